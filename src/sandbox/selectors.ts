/** Label selectors (`=`, `==`, `!=`, `in`, `notin`, exists, `!`) and field selectors. */
import { badRequest } from './errors.js';

export type Labels = Record<string, string> | undefined;

type Requirement =
  | { op: 'eq' | 'neq'; key: string; value: string }
  | { op: 'in' | 'notin'; key: string; values: string[] }
  | { op: 'exists' | 'notexists'; key: string };

export type LabelSelector = (labels: Labels) => boolean;

const KEY_RE = /^([a-zA-Z0-9]([-a-zA-Z0-9.]*[a-zA-Z0-9])?\/)?[a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?$/;
const VALUE_RE = /^([a-zA-Z0-9]([-a-zA-Z0-9_.]*[a-zA-Z0-9])?)?$/;

/** Splits on commas that are not inside parentheses. */
function splitTop(s: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of s) {
    if (ch === '(') depth++;
    else if (ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

function checkKey(key: string, sel: string): string {
  if (!KEY_RE.test(key)) throw badRequest(`unable to parse requirement: invalid label key "${key}" in selector "${sel}"`);
  return key;
}

function checkValue(v: string, sel: string): string {
  if (!VALUE_RE.test(v) || v.length > 63) throw badRequest(`unable to parse requirement: invalid label value "${v}" in selector "${sel}"`);
  return v;
}

export function parseLabelSelector(sel: string | undefined | null): LabelSelector | undefined {
  if (sel == null || sel.trim() === '') return undefined;
  const reqs: Requirement[] = [];
  for (const rawPart of splitTop(sel)) {
    const part = rawPart.trim();
    if (!part) throw badRequest(`unable to parse requirement: empty requirement in selector "${sel}"`);
    let m: RegExpMatchArray | null;
    if ((m = part.match(/^(\S+)\s+(in|notin)\s*\(([^)]*)\)$/))) {
      const values = m[3].split(',').map((v) => checkValue(v.trim(), sel));
      reqs.push({ op: m[2] as 'in' | 'notin', key: checkKey(m[1], sel), values });
    } else if ((m = part.match(/^!\s*(\S+)$/))) {
      reqs.push({ op: 'notexists', key: checkKey(m[1], sel) });
    } else if ((m = part.match(/^([^=!\s]+)\s*(==|=|!=)\s*(\S*)$/))) {
      reqs.push({ op: m[2] === '!=' ? 'neq' : 'eq', key: checkKey(m[1], sel), value: checkValue(m[3], sel) });
    } else if ((m = part.match(/^([^=!\s(),]+)$/))) {
      reqs.push({ op: 'exists', key: checkKey(m[1], sel) });
    } else {
      throw badRequest(`unable to parse requirement: couldn't parse the selector string "${sel}"`);
    }
  }
  return (labels) => reqs.every((r) => matchRequirement(r, labels));
}

function matchRequirement(r: Requirement, labels: Labels): boolean {
  const has = labels != null && Object.prototype.hasOwnProperty.call(labels, r.key);
  const v = has ? labels![r.key] : undefined;
  switch (r.op) {
    case 'eq':
      return has && v === r.value;
    case 'neq':
      return !has || v !== r.value;
    case 'in':
      return has && r.values.includes(v!);
    case 'notin':
      return !has || !r.values.includes(v!);
    case 'exists':
      return has;
    case 'notexists':
      return !has;
  }
}

export interface FieldSubject {
  name: string;
  namespace: string;
  /** Other fields a selector may name (e.g. `status.phase`, `spec.nodeName`), read lazily. */
  get?: (path: string) => string | undefined;
}

export type FieldSelector = (o: FieldSubject) => boolean;

/**
 * The subject of a field selector for a stored object or change (`json` read, and parsed, only if a
 * selector names a field other than the name and namespace: a stored object's text is decoded on read).
 */
export function fieldSubject(o: { readonly name: string; readonly ns: string; readonly json: string }): FieldSubject {
  let parsed: any;
  return {
    name: o.name,
    namespace: o.ns,
    get: (path) => {
      parsed ??= JSON.parse(o.json);
      let cur = parsed;
      for (const p of path.split('.')) cur = cur?.[p];
      return cur == null ? undefined : String(cur);
    },
  };
}

/** Splits a field selector on the commas that are not escaped (`\\,`), as the API server does. */
function splitFieldTerms(sel: string): string[] {
  const terms: string[] = [];
  let start = 0;
  let inSlash = false;
  for (let i = 0; i < sel.length; i++) {
    const c = sel[i];
    if (inSlash) inSlash = false;
    else if (c === '\\') inSlash = true;
    else if (c === ',') {
      terms.push(sel.slice(start, i));
      start = i + 1;
    }
  }
  terms.push(sel.slice(start));
  return terms;
}

/** A field selector value with its escapes (`\\\\`, `\\,`, `\\=`) resolved. */
function unescapeFieldValue(v: string): string {
  if (!/[\\,=]/.test(v)) return v;
  let out = '';
  let inSlash = false;
  for (const c of v) {
    if (inSlash) {
      if (c !== '\\' && c !== ',' && c !== '=') throw badRequest(`invalid field selector: invalid escape sequence: \\${c}`);
      out += c;
      inSlash = false;
    } else if (c === '\\') inSlash = true;
    else if (c === ',' || c === '=') throw badRequest(`invalid field selector: unescaped character in value: ${c.codePointAt(0)}`);
    else out += c;
  }
  if (inSlash) throw badRequest('invalid field selector: invalid escape sequence: \\');
  return out;
}

/**
 * Field selectors as the API server parses them: terms split on unescaped commas, `!=`, `==` or `=`
 * (the first operator found), escaped values; `check` says why a field may not be selected on.
 */
export function parseFieldSelector(sel: string | undefined | null, check?: (label: string) => string | undefined): FieldSelector | undefined {
  if (sel == null || sel === '') return undefined;
  const reqs: { key: string; neq: boolean; value: string }[] = [];
  for (const part of splitFieldTerms(sel)) {
    if (part === '') continue;
    const m = part.match(/^(.*?)(!=|==|=)(.*)$/s);
    if (!m) throw badRequest(`invalid selector: '${sel}'; can't understand '${part}'`);
    const value = unescapeFieldValue(m[3]);
    const why = check?.(m[1]);
    if (why) throw badRequest(why);
    reqs.push({ key: m[1], neq: m[2] === '!=', value });
  }
  if (!reqs.length) return undefined;
  return (o) =>
    reqs.every((r) => {
      let v: string | undefined;
      if (r.key === 'metadata.name') v = o.name;
      else if (r.key === 'metadata.namespace') v = o.namespace;
      else v = o.get?.(r.key) ?? '';
      return r.neq ? v !== r.value : v === r.value;
    });
}
