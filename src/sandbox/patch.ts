/** Patch strategies: RFC 6902 JSON patch, RFC 7386 merge patch and Kubernetes strategic merge patch. */
import { StatusError, badRequest } from './errors.js';
import { clone, deepEqual, isObject } from './json.js';

function unprocessable(message: string): StatusError {
  return new StatusError(422, 'Invalid', message);
}

// ---------------------------------------------------------------- RFC 6902

function parsePointer(ptr: string): string[] {
  if (ptr === '') return [];
  if (!ptr.startsWith('/')) throw unprocessable(`invalid JSON pointer "${ptr}"`);
  return ptr
    .slice(1)
    .split('/')
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function resolveParent(doc: any, tokens: string[], op: string, path: string): [any, string] {
  let cur = doc;
  for (let i = 0; i < tokens.length - 1; i++) {
    const t = tokens[i];
    if (Array.isArray(cur)) cur = cur[Number(t)];
    else if (isObject(cur)) cur = cur[t];
    else cur = undefined;
    if (cur === undefined || cur === null || typeof cur !== 'object') {
      throw unprocessable(`the server rejected our request due to an error in our request: ${op} operation does not apply: doc is missing path: "${path}"`);
    }
  }
  return [cur, tokens[tokens.length - 1]];
}

function getAtPointer(doc: any, path: string, op: string): any {
  let cur = doc;
  for (const t of parsePointer(path)) {
    if (Array.isArray(cur)) cur = t === '-' ? undefined : cur[Number(t)];
    else if (isObject(cur)) cur = Object.prototype.hasOwnProperty.call(cur, t) ? cur[t] : undefined;
    else cur = undefined;
    if (cur === undefined) throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  return cur;
}

function arrayIndex(arr: any[], t: string, allowEnd: boolean, path: string): number {
  if (t === '-' && allowEnd) return arr.length;
  if (!/^(0|[1-9][0-9]*)$/.test(t)) throw unprocessable(`invalid array index "${t}" in "${path}"`);
  const i = Number(t);
  if (i > arr.length || (!allowEnd && i >= arr.length)) throw unprocessable(`array index out of bounds: "${path}"`);
  return i;
}

function addAt(doc: any, path: string, value: any, op: string): any {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return value;
  const [parent, last] = resolveParent(doc, tokens, op, path);
  if (Array.isArray(parent)) parent.splice(arrayIndex(parent, last, true, path), 0, value);
  else parent[last] = value;
  return doc;
}

function removeAt(doc: any, path: string, op: string): [any, any] {
  const tokens = parsePointer(path);
  if (tokens.length === 0) return [undefined, doc];
  const [parent, last] = resolveParent(doc, tokens, op, path);
  if (Array.isArray(parent)) {
    const i = arrayIndex(parent, last, false, path);
    return [doc, parent.splice(i, 1)[0]];
  }
  if (!Object.prototype.hasOwnProperty.call(parent, last)) {
    throw unprocessable(`${op} operation does not apply: doc is missing path: "${path}"`);
  }
  const old = parent[last];
  delete parent[last];
  return [doc, old];
}

export function applyJsonPatch(doc: unknown, ops: unknown): unknown {
  if (!Array.isArray(ops)) throw badRequest('json patch must be an array of operations');
  let out: any = clone(doc);
  for (const o of ops) {
    if (!isObject(o) || typeof o.op !== 'string' || typeof o.path !== 'string') {
      throw badRequest(`invalid json patch operation: ${JSON.stringify(o)}`);
    }
    switch (o.op) {
      case 'add':
        out = addAt(out, o.path, clone(o.value), 'add');
        break;
      case 'remove':
        out = removeAt(out, o.path, 'remove')[0];
        break;
      case 'replace': {
        getAtPointer(out, o.path, 'replace');
        const tokens = parsePointer(o.path);
        if (tokens.length === 0) out = clone(o.value);
        else {
          const [parent, last] = resolveParent(out, tokens, 'replace', o.path);
          if (Array.isArray(parent)) parent[arrayIndex(parent, last, false, o.path)] = clone(o.value);
          else parent[last] = clone(o.value);
        }
        break;
      }
      case 'move': {
        if (typeof o.from !== 'string') throw badRequest('move operation needs "from"');
        const [d, v] = removeAt(out, o.from, 'move');
        out = addAt(d, o.path, v, 'move');
        break;
      }
      case 'copy': {
        if (typeof o.from !== 'string') throw badRequest('copy operation needs "from"');
        out = addAt(out, o.path, clone(getAtPointer(out, o.from, 'copy')), 'copy');
        break;
      }
      case 'test': {
        const v = getAtPointer(out, o.path, 'test');
        if (!deepEqual(v, o.value)) throw unprocessable(`testing value ${o.path} failed: test operation does not apply`);
        break;
      }
      default:
        throw badRequest(`Unexpected kind: ${o.op}`);
    }
  }
  return out;
}

// ---------------------------------------------------------------- RFC 7386

export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return clone(patch);
  const out: Record<string, any> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = applyMergePatch(out[k], v);
  }
  return out;
}

// ---------------------------------------------------------------- strategic merge

/** Merge keys of built-in list fields, by field path (field names only). `$primitive` merges a set of scalars. */
export function builtinMergeKey(path: readonly string[]): string[] | undefined {
  const n = path.length;
  if (n === 0) return undefined;
  const last = path[n - 1];
  const parent = n > 1 ? path[n - 2] : '';
  switch (last) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'volumes':
    case 'env':
    case 'imagePullSecrets':
    case 'resourceClaims':
    case 'schedulingGates':
      return ['name'];
    case 'ports':
      if (parent === 'containers' || parent === 'initContainers' || parent === 'ephemeralContainers') return ['containerPort', 'protocol'];
      if (n === 2 && parent === 'spec') return ['port', 'protocol'];
      return undefined;
    case 'volumeMounts':
      return ['mountPath'];
    case 'volumeDevices':
      return ['devicePath'];
    case 'hostAliases':
      return ['ip'];
    case 'topologySpreadConstraints':
      return ['topologyKey', 'whenUnsatisfiable'];
    case 'conditions':
      return ['type'];
    case 'ownerReferences':
      return parent === 'metadata' ? ['uid'] : undefined;
    case 'finalizers':
      return parent === 'metadata' ? ['$primitive'] : undefined;
    default:
      return undefined;
  }
}

function strip(v: any): any {
  if (Array.isArray(v)) return v.map(strip);
  if (!isObject(v)) return v;
  const out: Record<string, any> = {};
  for (const [k, x] of Object.entries(v)) {
    if (k.startsWith('$')) continue;
    out[k] = strip(x);
  }
  return out;
}

function itemMatches(item: any, probe: any, keys: string[]): boolean {
  return isObject(item) && keys.every((k) => k === 'protocol' ? (item[k] ?? 'TCP') === (probe[k] ?? 'TCP') : item[k] === probe[k]);
}

function mergeKeyedList(orig: any[], patch: any[], keys: string[], path: string[]): any[] {
  const result = orig.map((x) => x);
  if (patch.some((p) => isObject(p) && p.$patch === 'replace')) {
    return patch.filter((p) => !(isObject(p) && p.$patch === 'replace')).map(strip);
  }
  for (const p of patch) {
    if (!isObject(p)) {
      result.push(p);
      continue;
    }
    const idx = result.findIndex((x) => itemMatches(x, p, keys));
    if (p.$patch === 'delete') {
      if (idx >= 0) result.splice(idx, 1);
      continue;
    }
    if (idx >= 0) result[idx] = strategicMerge(result[idx], p, path);
    else result.push(strategicMerge({}, p, path));
  }
  return result;
}

function orderBy(list: any[], order: any[], keys: string[] | undefined): any[] {
  const pos = (x: any): number => {
    const i = order.findIndex((o) => (keys && keys[0] !== '$primitive' ? itemMatches(x, o, keys) : deepEqual(x, o)));
    return i < 0 ? Number.MAX_SAFE_INTEGER : i;
  };
  return list
    .map((x, i) => ({ x, i, p: pos(x) }))
    .sort((a, b) => a.p - b.p || a.i - b.i)
    .map((e) => e.x);
}

/** Applies a strategic merge patch; `mergeKey` names the merge keys of list fields by path. */
export function strategicMerge(
  original: unknown,
  patch: unknown,
  path: string[] = [],
  mergeKey: (path: readonly string[]) => string[] | undefined = builtinMergeKey,
): any {
  if (!isObject(patch)) return clone(patch);
  const orig: Record<string, any> = isObject(original) ? original : {};
  if (patch.$patch === 'replace') return strip(patch);
  if (patch.$patch === 'delete') return undefined;
  const out: Record<string, any> = { ...orig };
  const orders: [string, any[]][] = [];
  for (const [k, v] of Object.entries(patch)) {
    if (k === '$patch' || k === '$retainKeys') continue;
    if (k.startsWith('$setElementOrder/')) {
      if (Array.isArray(v)) orders.push([k.slice('$setElementOrder/'.length), v]);
      continue;
    }
    if (k.startsWith('$deleteFromPrimitiveList/')) {
      const field = k.slice('$deleteFromPrimitiveList/'.length);
      if (Array.isArray(out[field]) && Array.isArray(v)) out[field] = out[field].filter((x: any) => !v.some((d) => deepEqual(d, x)));
      continue;
    }
    if (k.startsWith('$')) continue;
    if (v === null) {
      delete out[k];
      continue;
    }
    const childPath = [...path, k];
    if (Array.isArray(v)) {
      const keys = mergeKey(childPath);
      const cur = Array.isArray(out[k]) ? out[k] : [];
      if (keys && keys[0] === '$primitive') {
        const merged = cur.slice();
        for (const x of v) if (!merged.some((y: any) => deepEqual(x, y))) merged.push(x);
        out[k] = merged;
      } else if (keys) {
        out[k] = mergeKeyedList(cur, v, keys, childPath);
      } else {
        out[k] = strip(v);
      }
    } else if (isObject(v)) {
      const merged = strategicMerge(out[k], v, childPath, mergeKey);
      if (merged === undefined) delete out[k];
      else out[k] = merged;
    } else {
      out[k] = v;
    }
  }
  for (const [field, order] of orders) {
    if (Array.isArray(out[field])) out[field] = orderBy(out[field], order, mergeKey([...path, field]));
  }
  if (Array.isArray(patch.$retainKeys)) {
    const keep = new Set<string>(patch.$retainKeys.map(String));
    for (const k of Object.keys(out)) if (!keep.has(k)) delete out[k];
  }
  return out;
}
