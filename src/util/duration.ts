/** Go durations as flags and the debug socket take them: `90s`, `10m`, `1h30m`, `500ms`. Returns milliseconds. */
export function parseGoDuration(text: string): number {
  const units: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  if (!/^((\d+(\.\d+)?)(ns|us|µs|ms|s|m|h))+$/.test(text)) throw new Error(`"${text}" is not a duration (examples: 30s, 10m, 1h30m)`);
  let ms = 0;
  for (const m of text.matchAll(/(\d+(?:\.\d+)?)(ns|us|µs|ms|s|m|h)/g)) ms += Number(m[1]) * units[m[2]!]!;
  return ms;
}
