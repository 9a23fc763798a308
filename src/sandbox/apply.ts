/**
 * Server-side apply and managedFields: field sets (leaf paths), ownership per manager, conflicts.
 *
 * A field set is a set of leaf paths; a path is a list of segments `f:<field>`, `k:<json of key fields>`
 * (an item of a keyed list) and `.` (the keyed item itself). Lists without merge keys are atomic leaves.
 */
import { StatusError } from './errors.js';
import { clone, deepEqual, isObject } from './json.js';

export type KeyFn = (fieldPath: readonly string[]) => string[] | undefined;

export interface ManagedFieldsEntry {
  manager: string;
  operation: 'Apply' | 'Update';
  apiVersion: string;
  time: string;
  fieldsType: 'FieldsV1';
  fieldsV1: Record<string, unknown>;
  subresource?: string;
}

const SKIP_TOP = new Set(['apiVersion', 'kind']);
const SKIP_META = new Set([
  'name', 'namespace', 'uid', 'resourceVersion', 'generation', 'creationTimestamp', 'managedFields',
  'deletionTimestamp', 'deletionGracePeriodSeconds', 'selfLink',
]);

const SEP = '\u0001';

/** Defaults of key fields the schema declares (a port's `protocol`), used where an item omits them. */
const KEY_DEFAULTS: Record<string, unknown> = { protocol: 'TCP' };

/** A key field of a keyed list item, its schema default when the item omits it. */
function keyField(item: Record<string, any>, name: string): unknown {
  return item[name] ?? KEY_DEFAULTS[name];
}

function keyOf(item: Record<string, any>, keys: string[]): string {
  const k: Record<string, unknown> = {};
  for (const name of keys) {
    const v = keyField(item, name);
    if (v !== undefined) k[name] = v;
  }
  return 'k:' + JSON.stringify(k);
}

/** The leaf paths of an object (joined with SEP), skipping identity fields and, if asked, status. */
export function leafPaths(obj: unknown, keyFn: KeyFn, skipStatus: boolean): Set<string> {
  const out = new Set<string>();
  if (!isObject(obj)) return out;
  for (const [k, v] of Object.entries(obj)) {
    if (SKIP_TOP.has(k) || (skipStatus && k === 'status')) continue;
    if (k === 'metadata' && isObject(v)) {
      for (const [mk, mv] of Object.entries(v)) {
        if (SKIP_META.has(mk)) continue;
        walk(mv, ['f:metadata', `f:${mk}`], ['metadata', mk], keyFn, out);
      }
      continue;
    }
    walk(v, [`f:${k}`], [k], keyFn, out);
  }
  return out;
}

function walk(v: unknown, segs: string[], fields: string[], keyFn: KeyFn, out: Set<string>): void {
  if (isObject(v)) {
    const entries = Object.entries(v);
    if (entries.length === 0) {
      out.add(segs.join(SEP));
      return;
    }
    for (const [k, x] of entries) walk(x, [...segs, `f:${k}`], [...fields, k], keyFn, out);
    return;
  }
  if (Array.isArray(v)) {
    const keys = keyFn(fields);
    if (keys && keys[0] !== '$primitive' && v.length > 0 && v.every(isObject)) {
      for (const item of v) {
        const ks = [...segs, keyOf(item, keys)];
        out.add([...ks, '.'].join(SEP));
        for (const [k, x] of Object.entries(item)) walk(x, [...ks, `f:${k}`], [...fields, k], keyFn, out);
      }
      return;
    }
  }
  out.add(segs.join(SEP));
}

/** Reads the value at a leaf path; `undefined` when absent. */
function getAt(obj: unknown, path: string): unknown {
  let cur: any = obj;
  for (const seg of path.split(SEP)) {
    if (cur === undefined || cur === null) return undefined;
    if (seg === '.') return cur;
    if (seg.startsWith('f:')) {
      cur = isObject(cur) ? cur[seg.slice(2)] : undefined;
    } else if (seg.startsWith('k:')) {
      if (!Array.isArray(cur)) return undefined;
      const key = JSON.parse(seg.slice(2)) as Record<string, unknown>;
      cur = cur.find((it) => isObject(it) && Object.entries(key).every(([k, v]) => deepEqual(keyField(it, k), v)));
    } else return undefined;
  }
  return cur;
}

function removeAt(obj: any, path: string, owned: (path: string) => boolean = () => false): void {
  const segs = path.split(SEP);
  removeLeaf(obj, segs);
  // prune the fields this removal left empty (maps, and keyed lists that lost their last item), deepest
  // first, up to the nearest keyed list item
  let n = segs.length - 1;
  if (segs[n] === '.') n--; // an item: its list is the parent
  for (; n > 0; n--) {
    const parentSegs = segs.slice(0, n);
    if (!parentSegs[n - 1].startsWith('f:')) break;
    const parent = parentSegs.join(SEP);
    if (owned(parent)) break; // an empty map or list someone applied or set stays
    const v = getAt(obj, parent);
    if ((isObject(v) && Object.keys(v).length === 0) || (Array.isArray(v) && v.length === 0)) removeLeaf(obj, parentSegs);
    else break;
  }
}

function removeLeaf(obj: any, segs: string[]): void {
  let cur: any = obj;
  for (let i = 0; i < segs.length; i++) {
    const seg = segs[i];
    const last = i === segs.length - 1 || (i === segs.length - 2 && segs[i + 1] === '.');
    if (seg.startsWith('f:')) {
      if (!isObject(cur)) return;
      const f = seg.slice(2);
      if (last) {
        delete cur[f];
        return;
      }
      cur = cur[f];
    } else if (seg.startsWith('k:')) {
      if (!Array.isArray(cur)) return;
      const key = JSON.parse(seg.slice(2)) as Record<string, unknown>;
      const idx = cur.findIndex((it) => isObject(it) && Object.entries(key).every(([k, v]) => deepEqual(keyField(it, k), v)));
      if (idx < 0) return;
      if (last) {
        cur.splice(idx, 1);
        return;
      }
      cur = cur[idx];
    } else return;
  }
}

export function toFieldsV1(paths: Iterable<string>): Record<string, unknown> {
  const root: Record<string, any> = {};
  for (const p of paths) {
    let cur = root;
    for (const seg of p.split(SEP)) {
      cur[seg] ??= {};
      cur = cur[seg];
    }
  }
  return root;
}

export function fromFieldsV1(f: unknown): Set<string> {
  const out = new Set<string>();
  const rec = (node: unknown, prefix: string[]): void => {
    if (!isObject(node)) return;
    const keys = Object.keys(node);
    if (keys.length === 0) {
      if (prefix.length) out.add(prefix.join(SEP));
      return;
    }
    for (const k of keys) {
      if (k === '.') out.add([...prefix, '.'].join(SEP));
      else rec(node[k], [...prefix, k]);
    }
  };
  rec(f, []);
  return out;
}

function displayPath(path: string): string {
  return path
    .split(SEP)
    .filter((s) => s !== '.')
    .map((s) => (s.startsWith('f:') ? '.' + s.slice(2) : `[${s.slice(2).replace(/^\{|\}$/g, '').replace(/"/g, '')}]`))
    .join('');
}

interface Manager {
  entry: ManagedFieldsEntry;
  set: Set<string>;
  /** Its set is still the one its entry's fieldsV1 gave: that fieldsV1 is written back as it is. */
  clean: boolean;
}

function readManagers(obj: any): Manager[] {
  const mf = obj?.metadata?.managedFields;
  if (!Array.isArray(mf)) return [];
  return mf.filter(isObject).map((e: any) => ({ entry: e as ManagedFieldsEntry, set: fromFieldsV1(e.fieldsV1), clean: true }));
}

function writeManagers(obj: any, managers: Manager[], now: string, touched: Set<Manager>): void {
  const entries = managers
    .filter((m) => m.set.size > 0)
    .map((m) => ({
      ...m.entry,
      time: touched.has(m) ? now : m.entry.time,
      fieldsType: 'FieldsV1' as const,
      fieldsV1: m.clean ? m.entry.fieldsV1 : toFieldsV1([...m.set].sort()),
    }));
  if (!isObject(obj.metadata)) obj.metadata = {};
  if (entries.length) obj.metadata.managedFields = entries;
  else delete obj.metadata.managedFields;
}

function findOrAdd(managers: Manager[], name: string, op: 'Apply' | 'Update', apiVersion: string, subresource?: string): Manager {
  let m = managers.find((x) => x.entry.manager === name && x.entry.operation === op && (x.entry.subresource ?? '') === (subresource ?? ''));
  if (!m) {
    const entry: ManagedFieldsEntry = { manager: name, operation: op, apiVersion, time: '', fieldsType: 'FieldsV1', fieldsV1: {} };
    if (subresource) entry.subresource = subresource;
    m = { entry, set: new Set(), clean: false };
    managers.push(m);
  }
  m.entry.apiVersion = apiVersion;
  return m;
}

/**
 * Records an ordinary write (create, update, non-apply patch) by `manager`: the leaves it changed
 * become its own and stop belonging to others; leaves that disappeared are dropped everywhere.
 */
export function recordUpdate(
  oldObj: unknown,
  newObj: any,
  manager: string,
  apiVersion: string,
  keyFn: KeyFn,
  now: string,
  subresource?: string,
): void {
  const managers = readManagers(oldObj ?? newObj);
  // a create's managedFields come from its body: written anew, as the API server encodes them
  if (!oldObj) for (const m of managers) m.clean = false;
  // a write of the status subresource owns status fields only: only they are walked (a Pod's spec is
  // most of its leaves, and status patches are most of a busy cluster's writes)
  const leavesOf = (o: unknown): Set<string> =>
    subresource !== 'status' ? leafPaths(o, keyFn, false) : isObject(o) && o.status !== undefined ? leafPaths({ status: o.status }, keyFn, false) : new Set<string>();
  const newLeaves = leavesOf(newObj);
  const oldLeaves = oldObj ? leavesOf(oldObj) : new Set<string>();
  const changed: string[] = [];
  for (const p of newLeaves) if (!oldLeaves.has(p) || !deepEqual(getAt(oldObj, p), getAt(newObj, p))) changed.push(p);
  const removed: string[] = [];
  for (const p of oldLeaves) if (!newLeaves.has(p)) removed.push(p);
  const touched = new Set<Manager>();
  if (changed.length || removed.length) {
    const me = findOrAdd(managers, manager, 'Update', apiVersion, subresource);
    touched.add(me);
    for (const m of managers) {
      for (const p of removed) if (m.set.delete(p)) m.clean = false;
      if (m !== me) for (const p of changed) if (m.set.delete(p)) m.clean = false;
    }
    for (const p of changed) me.set.add(p);
    if (changed.length) me.clean = false;
  }
  writeManagers(newObj, managers, now, touched);
}

/** SSA merge: maps merge, keyed lists merge by key, other lists are replaced. */
function ssaMerge(cur: unknown, applied: unknown, fields: string[], keyFn: KeyFn): unknown {
  if (isObject(applied)) {
    const out: Record<string, any> = isObject(cur) ? { ...cur } : {};
    for (const [k, v] of Object.entries(applied)) {
      if (v === null) delete out[k];
      else out[k] = ssaMerge(out[k], v, [...fields, k], keyFn);
    }
    return out;
  }
  if (Array.isArray(applied)) {
    const keys = keyFn(fields);
    if (keys && keys[0] !== '$primitive' && Array.isArray(cur) && applied.every(isObject)) {
      const out = cur.slice();
      for (const item of applied) {
        const idx = out.findIndex((x) => isObject(x) && keys.every((k) => deepEqual(keyField(x, k), keyField(item, k))));
        if (idx >= 0) out[idx] = ssaMerge(out[idx], item, fields, keyFn);
        else out.push(clone(item));
      }
      return out;
    }
    if (keys && keys[0] === '$primitive' && Array.isArray(cur)) {
      const out = cur.slice();
      for (const x of applied) if (!out.some((y) => deepEqual(x, y))) out.push(x);
      return out;
    }
  }
  return clone(applied);
}

export interface ApplyResult {
  object: any;
}

/**
 * Server-side apply of `applied` onto `current` (undefined when creating) by `manager`.
 * Throws a 409 Conflict Status when other managers own differing fields and `force` is false.
 */
export function serverSideApply(
  current: any,
  applied: any,
  manager: string,
  force: boolean,
  apiVersion: string,
  keyFn: KeyFn,
  skipStatus: boolean,
  now: string,
  subresource?: string,
): any {
  // the apply below rewrites sets in several ways: every manager's fieldsV1 is written anew
  const managers = readManagers(current);
  for (const m of managers) m.clean = false;
  const appliedLeaves = leafPaths(applied, keyFn, skipStatus && subresource !== 'status');
  const me = findOrAdd(managers, manager, 'Apply', apiVersion, subresource);
  const conflicts: { manager: string; path: string; apiVersion: string }[] = [];
  if (current) {
    for (const m of managers) {
      if (m === me) continue;
      for (const p of appliedLeaves) {
        if (!m.set.has(p) || p.endsWith(SEP + '.')) continue;
        const a = getAt(applied, p);
        const c = getAt(current, p);
        if (!deepEqual(a, c)) conflicts.push({ manager: m.entry.manager, path: p, apiVersion: m.entry.apiVersion });
      }
    }
  }
  if (conflicts.length && !force) {
    const msg = conflicts.map((c) => `conflict with "${c.manager}"${c.manager.endsWith('-') ? '' : ''} using ${c.apiVersion}: ${displayPath(c.path)}`);
    throw new StatusError(
      409,
      'Conflict',
      conflicts.length === 1 ? `Apply failed with 1 conflict: ${msg[0]}` : `Apply failed with ${conflicts.length} conflicts: ${msg.join('\n')}`,
      {
        causes: conflicts.map((c) => ({ type: 'FieldManagerConflict', message: `conflict with "${c.manager}" using ${c.apiVersion}`, field: displayPath(c.path) })),
      },
    );
  }
  for (const c of conflicts) {
    for (const m of managers) if (m !== me && m.entry.manager === c.manager) m.set.delete(c.path);
  }
  const appliedBody = clone(applied);
  if (isObject(appliedBody.metadata)) {
    delete appliedBody.metadata.managedFields;
    delete appliedBody.metadata.resourceVersion;
    delete appliedBody.metadata.uid;
    delete appliedBody.metadata.creationTimestamp;
    delete appliedBody.metadata.generation;
  }
  // on a copy: the removals below reach into parts the merge shares with `current`, which the caller
  // still compares the result with (a change made there too would look like no change at all)
  let obj: any = ssaMerge(clone(current ?? {}), appliedBody, [], keyFn);
  // Fields this manager applied before, no longer applies, and nobody else owns: remove them.
  const previously = [...me.set];
  for (const p of previously) {
    if (appliedLeaves.has(p)) continue;
    if (managers.some((m) => m !== me && m.set.has(p))) continue;
    removeAt(obj, p, (q) => appliedLeaves.has(q) || managers.some((m) => m !== me && m.set.has(q)));
  }
  obj = obj ?? {};
  me.set = appliedLeaves;
  writeManagers(obj, managers, now, new Set([me]));
  return obj;
}
