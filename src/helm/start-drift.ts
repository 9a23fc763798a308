/**
 * Drift made while the operator was not running, for one object: does the live object still carry
 * what the release's stored manifest set? Its values are compared first (no request when they cover
 * the manifest's); only when they do not (a changed field, or a value the API server wrote in another
 * form) a dry-run forced apply of the manifest object under the operator's field manager tells which
 * fields the operator would take back: those in its field set after the dry run but not now.
 */
import type { JsonObject } from '../util/json.js';
import type { PlacedObject } from './objects.js';

/** Whether `live` has every value `want` sets (maps by key, lists item by item; `null` sets nothing). */
export function covers(live: unknown, want: unknown): boolean {
  if (want === null || want === undefined) return true;
  if (Array.isArray(want)) return Array.isArray(live) && live.length === want.length && want.every((w, i) => covers(live[i], w));
  if (typeof want === 'object') {
    if (typeof live !== 'object' || live === null || Array.isArray(live)) return false;
    const l = live as Record<string, unknown>;
    return Object.entries(want as Record<string, unknown>).every(([k, w]) => covers(l[k], w));
  }
  return live === want;
}

/**
 * The field paths (field-set form, as the monitor's drift reports them) that drifted from the
 * manifest, or none. `dryRun` answers the forced apply of the object without changing it;
 * `fieldsOf` is the operator's field set of an object.
 */
export async function startDrift(placed: PlacedObject, live: JsonObject, dryRun: (p: PlacedObject) => Promise<JsonObject>, fieldsOf: (o: JsonObject) => Set<string>): Promise<string[]> {
  const metadata = { ...(placed.object.metadata as JsonObject) };
  delete metadata.namespace;
  const want = { ...placed.object, metadata };
  if (covers(live, want)) return [];
  const now = fieldsOf(live);
  const lost = [...fieldsOf(await dryRun(placed))].filter((p) => !now.has(p));
  // a map's own entry (`.`) is shown only when nothing inside it is
  const leaves = lost.filter((p) => !p.endsWith('\0.'));
  return leaves.length ? leaves : lost;
}
