/**
 * Size limits of the inputs the operator reads (issue 13's security checks; docs/modules.md and
 * docs/hooks.md list them). The Go originals have none: a hook that writes a 2 GiB patch file, or a
 * values.yaml of that size, takes their memory with it. Each limit is far above what a real input
 * needs; an input beyond it is refused with an error naming it, before it is read whole.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { UserError } from './errors.js';

const MiB = 1024 * 1024;

export const LIMITS = {
  /** A values file: modules/values.yaml, a module's values.yaml, a config file given to a command. */
  valuesFile: 4 * MiB,
  /** The data of the config ConfigMap, all keys together: the API server's own limit of a ConfigMap. */
  configMap: 1 * MiB,
  /** A hook's $VALUES_JSON_PATCH_PATH or $CONFIG_VALUES_JSON_PATCH_PATH. */
  valuesPatch: 4 * MiB,
  /** A hook's $METRICS_PATH. */
  metrics: 4 * MiB,
  /** A hook's $KUBERNETES_PATCH_PATH (objects to create may be large: CRDs, bundles). */
  kubernetesPatch: 32 * MiB,
  /** An `enabled` script's $MODULE_ENABLED_RESULT: "true" or "false". */
  enabledResult: 64 * 1024,
} as const;

/** `1 MiB`, `4.5 MiB`, `900 KiB`, `12 bytes`. */
export function formatBytes(n: number): string {
  if (n >= MiB) return `${+(n / MiB).toFixed(1)} MiB`;
  if (n >= 1024) return `${+(n / 1024).toFixed(1)} KiB`;
  return `${n} bytes`;
}

const SIZE_UNITS: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 1024, Mi: MiB, Gi: 1024 * MiB, Ti: 1024 * 1024 * MiB };

/** A size written as a Kubernetes quantity: `512Mi`, `2Gi`, `500M`, `1048576`; `what` names it in the error. */
export function parseByteSize(text: string, what: string): number {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([kKMGT]i?)?\s*$/.exec(text);
  const unit = m ? SIZE_UNITS[m[2] ?? ''] : undefined;
  if (!m || unit === undefined) throw new UserError(`${what}: "${text}" is not a size (bytes, or a number with Ki, Mi, Gi, Ti, k, M, G or T: 512Mi)`);
  return Math.round(Number(m[1]) * unit);
}

/** The error of an input beyond its limit; `what` names it ("hook x: $METRICS_PATH"). */
export function tooLarge(what: string, size: number | undefined, limit: number): UserError {
  const got = size === undefined ? '' : ` ${size} bytes,`;
  return new UserError(`${what} is too large:${got} more than its limit of ${formatBytes(limit)}; refused`);
}

/**
 * Reads a text file of at most `limit` bytes; a larger one is refused without reading it (also one
 * that grows while being read). Errors of the file system are left to the caller.
 */
export function readFileLimited(file: string, limit: number, what: string): string {
  const fd = openSync(file, 'r');
  try {
    const size = fstatSync(fd).size;
    if (size > limit) throw tooLarge(what, size, limit);
    let buf = Buffer.allocUnsafe(Math.min(limit, Math.max(size, 64 * 1024)) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (n > limit) throw tooLarge(what, undefined, limit);
        // the file grew since fstat: read on, up to the limit
        const bigger = Buffer.allocUnsafe(Math.min(limit, buf.length * 2) + 1);
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > limit) throw tooLarge(what, undefined, limit);
    return buf.toString('utf8', 0, n);
  } finally {
    closeSync(fd);
  }
}
