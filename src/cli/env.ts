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

/** Go durations as flags take them: `90s`, `10m`, `1h30m`, `500ms`. Returns milliseconds. */
export function parseDuration(text: string, flag: string): number {
  const re = /(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g;
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (!/^((\d+(\.\d+)?)(ns|us|µs|ms|s|m|h))+$/.test(text)) {
    throw new Error(`${flag}: "${text}" is not a duration (examples: 30s, 10m, 1h30m)`);
  }
  let ms = 0;
  for (const m of text.matchAll(re)) ms += Number(m[1]) * units[m[2]!]!;
  return ms;
}

export function parseOrder(text: string, flag: string): number {
  if (!/^\d+$/.test(text)) throw new Error(`${flag}: "${text}" is not a non-negative integer`);
  return Number(text);
}
