// The versioned kubectl binaries of this machine (kubectl.1.27 ... kubectl.1.33 beside the `kubectl`
// dispatcher), for the tests that run every version against the sandbox.
import { accessSync, constants, readdirSync, realpathSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';

/** `kubectl.1.27` ... found beside each `kubectl` on the PATH (and beside what it links to), by version. */
export function kubectlVersions(): Map<string, string> {
  const found = new Map<string, string>();
  const dirs = new Set<string>();
  for (const dir of ['/usr/bin', ...(process.env.PATH ?? '').split(delimiter)]) {
    if (!dir) continue;
    const p = join(dir, 'kubectl');
    try {
      accessSync(p, constants.X_OK);
      dirs.add(dir);
      dirs.add(dirname(realpathSync(p)));
    } catch {
      // not here
    }
  }
  for (const dir of dirs) {
    let names: string[];
    try {
      names = readdirSync(dir);
    } catch {
      continue;
    }
    for (const n of names) {
      const m = /^kubectl\.(\d+\.\d+)$/.exec(n);
      if (!m || found.has(m[1])) continue;
      try {
        accessSync(join(dir, n), constants.X_OK);
        found.set(m[1], join(dir, n));
      } catch {
        // not executable
      }
    }
  }
  return new Map([...found].sort(([a], [b]) => Number(a.split('.')[1]) - Number(b.split('.')[1])));
}
