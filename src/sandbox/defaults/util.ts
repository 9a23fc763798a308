/** Small helpers of the defaulting functions: a map field made to exist, a value set when unset. */

export type Obj = Record<string, any>;

export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The map at `o[k]`, created empty when absent (as Go's defaulting of a nil pointer to a struct). */
export function ensure(o: Obj, k: string): Obj {
  if (!isObj(o[k])) o[k] = {};
  return o[k];
}

/** Sets `o[k]` when it is absent or null (a nil pointer in Go). */
export function dflt(o: Obj, k: string, v: unknown): void {
  if (o[k] === undefined || o[k] === null) o[k] = v;
}

/** Sets `o[k]` when it is absent, null or the empty string (an unset string in Go). */
export function dfltStr(o: Obj, k: string, v: string): void {
  if (o[k] === undefined || o[k] === null || o[k] === '') o[k] = v;
}

/** The objects of the list at `o[k]` (none when it is not a list). */
export function items(o: Obj | undefined, k: string): Obj[] {
  const l = o?.[k];
  return Array.isArray(l) ? l.filter(isObj) : [];
}
