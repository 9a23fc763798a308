/**
 * Sprig's regular-expression functions with Go's regexp (RE2 syntax and semantics, Go's error texts:
 * re2.ts), and replacement templates that follow Go's Expand ($1W is the group named "1W").
 */
import type { FuncDef } from '../exec.js';
import { nilSlice, withGoType } from '../values.js';
import { Re2 } from '../re2.js';

const cache = new Map<string, Re2 | Error>();

export function compileGo(expr: string): Re2 {
  let r = cache.get(expr);
  if (r === undefined) {
    try {
      r = new Re2(expr);
    } catch (e) {
      r = e instanceof Error ? e : new Error(String(e));
    }
    if (cache.size > 1000) cache.clear();
    cache.set(expr, r);
  }
  if (r instanceof Error) throw r;
  return r;
}

/** regexp.MustCompile's panic text, as sprig's non-must functions show it. */
function mustCompile(expr: string): Re2 {
  try {
    return compileGo(expr);
  } catch (e) {
    throw new Error(`regexp: Compile(\`${expr}\`): ${(e as Error).message}`, { cause: e });
  }
}

const group = (s: string, m: number[], k: number): string | undefined => (2 * k + 1 < m.length && m[2 * k] >= 0 ? s.slice(m[2 * k], m[2 * k + 1]) : undefined);

/** Go's Regexp.Expand template syntax ($1, ${1}, $name, ${name}, $$). */
function expand(re: Re2, template: string, src: string, m: number[]): string {
  let out = '';
  let i = 0;
  while (i < template.length) {
    const c = template[i];
    if (c !== '$') {
      out += c;
      i++;
      continue;
    }
    if (template[i + 1] === '$') {
      out += '$';
      i += 2;
      continue;
    }
    let name: string;
    let j: number;
    if (template[i + 1] === '{') {
      const end = template.indexOf('}', i + 2);
      name = end < 0 ? '' : template.slice(i + 2, end);
      if (end < 0 || !/^[A-Za-z0-9_]+$/.test(name)) {
        out += '$';
        i++;
        continue;
      }
      j = end + 1;
    } else {
      const mm = /^[A-Za-z0-9_]+/.exec(template.slice(i + 1));
      if (!mm) {
        out += '$';
        i++;
        continue;
      }
      name = mm[0];
      j = i + 1 + name.length;
    }
    if (/^\d+$/.test(name)) {
      const k = Number(name);
      out += group(src, m, k) ?? '';
    } else {
      const k = re.names.indexOf(name);
      if (k > 0) out += group(src, m, k) ?? '';
    }
    i = j;
  }
  return out;
}

function split(re: Re2, s: string, n: number): string[] | null {
  if (n === 0) return null;
  if (re.source.length > 0 && s.length === 0) return [''];
  const ms = re.findAll(s, n);
  const out: string[] = [];
  let beg = 0;
  let end = 0;
  for (const m of ms) {
    if (n > 0 && out.length === n - 1) break;
    end = m[0];
    if (m[1] !== 0) out.push(s.slice(beg, end));
    beg = m[1];
  }
  if (end !== s.length) out.push(s.slice(beg));
  return out;
}

const S = 'string';
const I = 'int';
const d = (params: string[], fn: FuncDef['fn']): FuncDef => ({ params, fn });
const strs = (a: string[]): string[] => withGoType(a, '[]string');

export const regexFuncs: Record<string, FuncDef> = {
  regexMatch: d([S, S], ([re, s]) => {
    try {
      return compileGo(re).test(s);
    } catch {
      return false;
    }
  }),
  mustRegexMatch: d([S, S], ([re, s]) => compileGo(re).test(s)),
  regexFindAll: d([S, S, I], ([re, s, n]) => strs(mustCompile(re).findAll(s, Number(n)).map((m) => s.slice(m[0], m[1])))),
  mustRegexFindAll: d([S, S, I], ([re, s, n]) => strs(compileGo(re).findAll(s, Number(n)).map((m) => s.slice(m[0], m[1])))),
  regexFind: d([S, S], ([re, s]) => {
    const m = mustCompile(re).exec(s, 0);
    return m ? s.slice(m[0], m[1]) : '';
  }),
  mustRegexFind: d([S, S], ([re, s]) => {
    const m = compileGo(re).exec(s, 0);
    return m ? s.slice(m[0], m[1]) : '';
  }),
  regexReplaceAll: d([S, S, S], ([re, s, r]) => {
    const x = mustCompile(re);
    return x.replaceAll(s, (m) => expand(x, r, s, m));
  }),
  mustRegexReplaceAll: d([S, S, S], ([re, s, r]) => {
    const x = compileGo(re);
    return x.replaceAll(s, (m) => expand(x, r, s, m));
  }),
  regexReplaceAllLiteral: d([S, S, S], ([re, s, r]) => mustCompile(re).replaceAll(s, () => r)),
  mustRegexReplaceAllLiteral: d([S, S, S], ([re, s, r]) => compileGo(re).replaceAll(s, () => r)),
  regexSplit: d([S, S, I], ([re, s, n]) => {
    const r = split(mustCompile(re), s, Number(n));
    return r ? strs(r) : nilSlice('[]string');
  }),
  mustRegexSplit: d([S, S, I], ([re, s, n]) => {
    const r = split(compileGo(re), s, Number(n));
    return r ? strs(r) : nilSlice('[]string');
  }),
  regexQuoteMeta: d([S], ([s]) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')),
};
