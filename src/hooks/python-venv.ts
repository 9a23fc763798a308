/**
 * A module's own Python for its `.py` hooks (the Go operator's #571): when `<module>/hooks/venv/bin/python3`
 * is an executable, a module hook `X.py` runs as `venv/bin/python3 X.py ARGS...`. The Go operator also
 * sets PYTHONHOME to the venv, which suits a whole Python copied there but stops a standard virtual
 * environment (`python3 -m venv`, with its `pyvenv.cfg`) from starting at all ("Fatal Python error");
 * such a venv finds its home by itself, so PYTHONHOME is set only for a venv without `pyvenv.cfg`.
 */
import { accessSync, constants, existsSync } from 'node:fs';
import { extname, join } from 'node:path';

/** How a hook's process is started when it is not the file itself. */
export interface Invocation {
  /** The program to start instead of the hook's file. */
  readonly command?: string;
  /** Arguments before the hook's own (the hook's file, for an interpreter). */
  readonly args?: string[];
  readonly env?: Record<string, string>;
}

/** The module venv's interpreter for the hooks under `hooksDir`, or undefined when there is none. */
export function moduleVenv(hooksDir: string): Invocation | undefined {
  const venv = join(hooksDir, 'venv');
  const python = join(venv, 'bin/python3');
  try {
    accessSync(python, constants.X_OK);
  } catch {
    return undefined;
  }
  return { command: python, env: existsSync(join(venv, 'pyvenv.cfg')) ? {} : { PYTHONHOME: venv } };
}

/** How the hook at `path` starts: through the venv's interpreter for a `.py` hook of a module that has one. */
export function hookInvocation(path: string, venv: Invocation | undefined): Invocation {
  if (!venv || extname(path) !== '.py') return {};
  return { command: venv.command, args: [path], env: venv.env };
}
