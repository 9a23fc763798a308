import { parseGoDuration } from '../util/duration.js';

/**
 * Flag defaults from the environment: both the `ADDON_OPERATOR_`-prefixed names the Go code reads and
 * the bare names its docs use (DESIGN §3.1), first one set wins.
 */
export function fromEnv(names: readonly string[], fallback: string): string {
  for (const n of names) {
    const v = process.env[n];
    if (v !== undefined && v !== '') return v;
  }
  return fallback;
}

export const ENV = {
  modulesDir: ['ADDON_OPERATOR_MODULES_DIR', 'MODULES_DIR'],
  globalHooksDir: ['ADDON_OPERATOR_GLOBAL_HOOKS_DIR', 'GLOBAL_HOOKS_DIR', 'SHELL_OPERATOR_HOOKS_DIR'],
  unnumberedOrder: ['ADDON_OPERATOR_UNNUMBERED_MODULES_ORDER', 'UNNUMBERED_MODULES_ORDER', 'UNNUMBERED_MODULE_ORDER'],
  tmpDir: ['ADDON_OPERATOR_TMP_DIR', 'SHELL_OPERATOR_TMP_DIR'],
  hookTimeout: ['ADDON_OPERATOR_HOOK_TIMEOUT'],
} as const;

/** A Go duration flag (`30s`, `10m`, `1h30m`), in milliseconds; the message names the flag. */
export function parseDuration(text: string, flag: string): number {
  try {
    return parseGoDuration(text);
  } catch (e) {
    throw new Error(`${flag}: ${(e as Error).message}`, { cause: e });
  }
}

export function parseOrder(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag}: "${text}" is not a non-negative integer`);
  return Number(text);
}

export function parsePort(text: string, flag: string): number {
  const n = Number(text);
  if (!/^\d+$/.test(text) || n > 65535) throw new Error(`${flag}: "${text}" is not a port number (0-65535)`);
  return n;
}
