/**
 * JSON patches from hooks (DESIGN §4.5): RFC 6902 operations with RFC 6901 paths. A file may hold a
 * stream of arrays and single operation objects; a path without a leading `/` is read as dot-separated
 * keys; `remove` of a missing path does nothing. Application is atomic: the input document is never
 * changed, and a failing operation gives an error naming its index, its path and why.
 */
import { UserError } from '../util/errors.js';
import { cloneJson, isPlainObject, jsonEqual, splitJsonStream, positionOf, type JsonObject, type JsonValue } from '../util/json.js';

export type PatchOp =
  | { op: 'add' | 'replace' | 'test'; path: string; value: JsonValue }
  | { op: 'remove'; path: string }
  | { op: 'move' | 'copy'; from: string; path: string };

const OPS = new Set(['add', 'remove', 'replace', 'move', 'copy', 'test']);

export class PatchError extends UserError {
  override name = 'PatchError';
}

/** `a.b.c` → `/a/b/c`; a path that starts with `/` is kept. */
export function normalizePath(path: string): string {
  if (path === '' || path.startsWith('/')) return path;
  return '/' + path.split('.').map(escapeSegment).join('/');
}

export function escapeSegment(s: string): string {
  return s.replace(/~/g, '~0').replace(/\//g, '~1');
}

export function parsePointer(path: string): string[] {
  if (path === '') return [];
  if (!path.startsWith('/')) throw new Error(`path "${path}" must start with "/"`);
  return path
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/** Validates and normalises one operation object; `where` prefixes the error messages. */
export function toPatchOp(raw: unknown, where: string): PatchOp {
  if (!isPlainObject(raw)) throw new PatchError(`${where}: an operation must be an object, got ${JSON.stringify(raw)}`);
  const op = raw.op;
  if (typeof op !== 'string' || !OPS.has(op)) {
    throw new PatchError(`${where}: unknown op ${JSON.stringify(op)} (want add, remove, replace, move, copy or test)`);
  }
  if (typeof raw.path !== 'string') throw new PatchError(`${where}: "${op}" needs a string "path"`);
  const path = normalizePath(raw.path);
  switch (op) {
    case 'remove':
      return { op, path };
    case 'move':
    case 'copy':
      if (typeof raw.from !== 'string') throw new PatchError(`${where}: "${op}" needs a string "from"`);
      return { op, from: normalizePath(raw.from), path };
    default:
      if (!('value' in raw)) throw new PatchError(`${where}: "${op}" needs a "value"`);
      return { op: op as 'add' | 'replace' | 'test', path, value: raw.value as JsonValue };
  }
}

/**
 * Reads a patch file's text: a stream of JSON arrays of operations and single operation objects,
 * concatenated or separated by white space. Empty text is an empty patch.
 */
export function parsePatchText(text: string, source: string): PatchOp[] {
  const ops: PatchOp[] = [];
  for (const { value, offset } of splitJsonStream(text, source, PatchError)) {
    const items = Array.isArray(value) ? value : [value];
    items.forEach((item, i) => {
      const where = `${source}: ${positionOf(text, offset)}, operation ${ops.length + 1}` + (Array.isArray(value) ? ` (item ${i})` : '');
      ops.push(toPatchOp(item, where));
    });
  }
  return ops;
}

type Container = JsonObject | JsonValue[];

function arrayIndex(seg: string, length: number, forAdd: boolean): number {
  if (forAdd && seg === '-') return length;
  if (!/^(0|[1-9][0-9]*)$/.test(seg)) throw new Error(`"${seg}" is not a valid array index`);
  const idx = Number(seg);
  const max = forAdd ? length : length - 1;
  if (idx > max) throw new Error(`index ${idx} is out of range (the list has ${length} items)`);
  return idx;
}

/**
 * Walks to the parent of `segs`, copying every container on the way (copy-on-write), and returns the
 * new root and the copied parent. `root` itself is never changed.
 */
function writableParent(root: JsonValue, segs: string[], opPath: string): { root: JsonValue; parent: Container } {
  const newRoot = shallowCopy(root, '');
  let cur = newRoot;
  for (let i = 0; i < segs.length - 1; i++) {
    const seg = segs[i]!;
    const at = '/' + segs.slice(0, i + 1).join('/');
    let next: JsonValue | undefined;
    if (Array.isArray(cur)) {
      const idx = arrayIndex(seg, cur.length, false);
      next = shallowCopy(cur[idx] as JsonValue, at);
      cur[idx] = next;
    } else if (isPlainObject(cur)) {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) throw new Error(`${at} does not exist`);
      next = shallowCopy(cur[seg] as JsonValue, at);
      cur[seg] = next;
    } else {
      throw new Error(`cannot reach ${opPath}: ${at.slice(0, at.lastIndexOf('/')) || '/'} is not an object or a list`);
    }
    cur = next;
  }
  if (!Array.isArray(cur) && !isPlainObject(cur)) {
    const parentPath = '/' + segs.slice(0, -1).join('/');
    throw new Error(`${parentPath} is not an object or a list`);
  }
  return { root: newRoot, parent: cur };
}

function shallowCopy(v: JsonValue, _at: string): JsonValue {
  if (Array.isArray(v)) return v.slice();
  if (isPlainObject(v)) return { ...v };
  return v;
}

function getAt(root: JsonValue, segs: string[]): JsonValue | undefined {
  let cur: JsonValue | undefined = root;
  for (const seg of segs) {
    if (Array.isArray(cur)) {
      if (!/^(0|[1-9][0-9]*)$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else if (isPlainObject(cur)) {
      cur = Object.prototype.hasOwnProperty.call(cur, seg) ? cur[seg] : undefined;
    } else return undefined;
  }
  return cur;
}

function addAt(root: JsonValue, segs: string[], value: JsonValue, path: string, insert: boolean): JsonValue {
  if (segs.length === 0) return cloneJson(value);
  const { root: out, parent } = writableParent(root, segs, path);
  const last = segs[segs.length - 1]!;
  if (Array.isArray(parent)) {
    const idx = arrayIndex(last, parent.length, insert);
    if (insert) parent.splice(idx, 0, cloneJson(value));
    else parent[idx] = cloneJson(value);
  } else {
    (parent as JsonObject)[last] = cloneJson(value);
  }
  return out;
}

function removeAt(root: JsonValue, segs: string[], path: string): JsonValue {
  if (segs.length === 0) throw new Error('cannot remove the whole document');
  const { root: out, parent } = writableParent(root, segs, path);
  const last = segs[segs.length - 1]!;
  if (Array.isArray(parent)) parent.splice(arrayIndex(last, parent.length, false), 1);
  else delete (parent as JsonObject)[last];
  return out;
}

/** Applies one operation, returning a new document; throws a plain Error saying why it failed. */
function applyOne(doc: JsonValue, op: PatchOp): JsonValue {
  const segs = parsePointer(op.path);
  switch (op.op) {
    case 'add':
      return addAt(doc, segs, op.value, op.path, true);
    case 'replace':
      if (getAt(doc, segs) === undefined) throw new Error(`${op.path} does not exist`);
      return addAt(doc, segs, op.value, op.path, false);
    case 'remove':
      if (getAt(doc, segs) === undefined) return doc; // DESIGN §4.5: removing a missing path is a no-op
      return removeAt(doc, segs, op.path);
    case 'test': {
      const cur = getAt(doc, segs);
      if (cur === undefined) throw new Error(`${op.path} does not exist`);
      if (!jsonEqual(cur, op.value)) throw new Error(`test failed: the value is ${JSON.stringify(cur)}, not ${JSON.stringify(op.value)}`);
      return doc;
    }
    case 'copy':
    case 'move': {
      const from = parsePointer(op.from);
      const v = getAt(doc, from);
      if (v === undefined) throw new Error(`"from" path ${op.from} does not exist`);
      if (op.op === 'move' && op.path.startsWith(op.from + '/')) throw new Error(`cannot move ${op.from} into its own child ${op.path}`);
      const base = op.op === 'move' ? removeAt(doc, from, op.from) : doc;
      return addAt(base, segs, v, op.path, true);
    }
  }
}

export function describeOp(op: PatchOp): string {
  return op.op === 'move' || op.op === 'copy' ? `${op.op} ${op.from} → ${op.path}` : `${op.op} ${op.path}`;
}

/**
 * Applies the operations in order and returns the new document; `doc` is left untouched. On failure
 * nothing is returned: the error names the operation's index (0-based), its op and path, and why.
 */
export function applyPatch<T extends JsonValue>(doc: T, ops: readonly PatchOp[], source = 'patch'): T {
  let cur: JsonValue = doc;
  ops.forEach((op, i) => {
    try {
      cur = applyOne(cur, op);
    } catch (e) {
      throw new PatchError(`${source}: operation ${i} (${describeOp(op)}) failed: ${(e as Error).message}`);
    }
  });
  return cur as T;
}

/**
 * Applies what can be applied and reports the rest: used when stored patches are replayed over values
 * that changed underneath them (a changed config may have removed a parent a patch writes into).
 */
export function applyPatchLenient<T extends JsonValue>(doc: T, ops: readonly PatchOp[]): { result: T; skipped: { index: number; reason: string }[] } {
  let cur: JsonValue = doc;
  const skipped: { index: number; reason: string }[] = [];
  ops.forEach((op, i) => {
    try {
      cur = applyOne(cur, op);
    } catch (e) {
      skipped.push({ index: i, reason: `${describeOp(op)}: ${(e as Error).message}` });
    }
  });
  return { result: cur as T, skipped };
}

/** True when `prefix` is the same path as `path` or one of its ancestors. */
export function isPathPrefix(prefix: string, path: string): boolean {
  return prefix === path || path.startsWith(prefix + '/') || prefix === '';
}

function readsOf(op: PatchOp): string[] | undefined {
  if (op.op === 'test') return [op.path];
  if (op.op === 'move' || op.op === 'copy') return [op.from, op.path];
  return undefined;
}

/**
 * Keeps a list of stored patches short without changing what it does: an earlier operation is
 * dropped when a later add/replace/remove overwrites its whole path or an ancestor of it, and only
 * when nothing in between reads that path (move/copy/test).
 */
export function compactOps(ops: readonly PatchOp[]): PatchOp[] {
  const keep = keptOps(ops);
  return ops.filter((_, i) => keep[i]);
}

/** Which operations `compactOps` keeps, by index. */
export function keptOps(ops: readonly PatchOp[]): boolean[] {
  const keep = new Array<boolean>(ops.length).fill(true);
  for (let j = ops.length - 1; j >= 0; j--) {
    const later = ops[j]!;
    if (!keep[j] || (later.op !== 'add' && later.op !== 'replace' && later.op !== 'remove')) continue;
    const overwritten = later.path;
    if (/\/(-|\d+)(\/|$)/.test(overwritten)) continue; // list indices shift: leave them alone
    for (let i = j - 1; i >= 0; i--) {
      const earlier = ops[i]!;
      const readPaths = readsOf(earlier);
      if (readPaths) {
        if (readPaths.some((p) => isPathPrefix(p, overwritten) || isPathPrefix(overwritten, p))) break;
        continue;
      }
      if (isPathPrefix(overwritten, earlier.path) && !/\/(-|\d+)(\/|$)/.test(earlier.path)) keep[i] = false;
    }
  }
  return keep;
}
