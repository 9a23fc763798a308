/**
 * Sprig's regular-expression functions with Go (RE2) syntax: patterns are translated to JS RegExp
 * (named groups, flags, POSIX classes, \z, \Q..\E), Go's error messages are reproduced for common
 * syntax errors, and replacement templates follow Go's Expand ($1W is the group named "1W").
 */
import type { FuncDef } from '../exec.js';
import { withGoType } from '../values.js';

const cache = new Map<string, RegExp | Error>();

const POSIX: Record<string, string> = {
  alnum: '0-9A-Za-z', alpha: 'A-Za-z', ascii: '\\x00-\\x7F', blank: '\\t ', cntrl: '\\x00-\\x1F\\x7F',
  digit: '0-9', graph: '!-~', lower: 'a-z', print: ' -~', punct: '!-\\/:-@\\[-`{-~', space: '\\t\\n\\v\\f\\r ',
  upper: 'A-Z', word: '0-9A-Za-z_', xdigit: '0-9A-Fa-f',
};

function goRegexpError(code: string, expr: string): Error {
  return new Error(`error parsing regexp: ${code}: \`${expr}\``);
}

/** Checks RE2 syntax errors Go reports, then translates. */
function translate(src: string): { source: string; flags: string } {
  let flags = 'u';
  let out = '';
  let i = 0;
  let depth = 0;
  const groupStarts: number[] = [];
  // leading flag group (?i) (?s) (?m) (?U not supported)
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') {
      const nx = src[i + 1];
      if (nx === undefined) throw goRegexpError('trailing backslash at end of expression', '');
      if (nx === 'Q') {
        const end = src.indexOf('\\E', i + 2);
        const lit = end < 0 ? src.slice(i + 2) : src.slice(i + 2, end);
        out += lit.replace(/[.*+?^${}()|[\]\\/-]/g, '\\$&');
        i = end < 0 ? src.length : end + 2;
        continue;
      }
      if (nx === 'z') {
        out += '(?![\\s\\S])';
        i += 2;
        continue;
      }
      if (nx === 'A') {
        out += '(?<![\\s\\S])';
        i += 2;
        continue;
      }
      if (/[pP]/.test(nx)) {
        // \pL or \p{Greek}
        if (src[i + 2] === '{') {
          const end = src.indexOf('}', i + 2);
          out += `\\${nx}{${src.slice(i + 3, end)}}`;
          i = end + 1;
        } else {
          out += `\\${nx}{${src[i + 2]}}`;
          i += 3;
        }
        continue;
      }
      if (/[1-9]/.test(nx)) throw goRegexpError('invalid escape sequence', src.slice(i, i + 2));
      if (/[a-zA-Z]/.test(nx) && !/[dDsSwWbBnrtfvx]/.test(nx)) throw goRegexpError('invalid escape sequence', src.slice(i, i + 2));
      out += c + nx;
      i += 2;
      continue;
    }
    if (c === '[') {
      // character class
      let j = i + 1;
      let cls = '[';
      if (src[j] === '^') {
        cls += '^';
        j++;
      }
      if (src[j] === ']') {
        cls += '\\]';
        j++;
      }
      let closed = false;
      while (j < src.length) {
        const ch = src[j];
        if (ch === ']') {
          closed = true;
          j++;
          break;
        }
        if (ch === '[' && src[j + 1] === ':') {
          const end = src.indexOf(':]', j + 2);
          if (end > 0) {
            let name = src.slice(j + 2, end);
            const neg = name.startsWith('^');
            if (neg) name = name.slice(1);
            const set = POSIX[name];
            if (!set) throw goRegexpError('invalid character class range', src.slice(j, end + 2));
            cls += set;
            void neg;
            j = end + 2;
            continue;
          }
        }
        if (ch === '\\') {
          const nx = src[j + 1];
          if (nx === undefined) break;
          if (nx === 'p' || nx === 'P') {
            if (src[j + 2] === '{') {
              const end = src.indexOf('}', j + 2);
              cls += `\\${nx}{${src.slice(j + 3, end)}}`;
              j = end + 1;
            } else {
              cls += `\\${nx}{${src[j + 2]}}`;
              j += 3;
            }
            continue;
          }
          cls += ch + nx;
          j += 2;
          continue;
        }
        if (ch === '[' || ch === '/') {
          cls += '\\' + ch;
          j++;
          continue;
        }
        cls += ch;
        j++;
      }
      if (!closed) throw goRegexpError('missing closing ]', src.slice(i));
      out += cls + ']';
      i = j;
      continue;
    }
    if (c === '(') {
      if (src.startsWith('(?P<', i)) {
        out += '(?<';
        i += 4;
        depth++;
        groupStarts.push(i);
        continue;
      }
      const fm = /^\(\?([imsU-]+)\)/.exec(src.slice(i));
      if (fm) {
        if (out === '' || out === '^') {
          for (const f of fm[1]) if (f === 'i' || f === 'm' || f === 's') flags += f;
          i += fm[0].length;
          continue;
        }
        // inline flags mid-pattern: JS supports (?i:...) modifiers only in new engines; ignore
        i += fm[0].length;
        continue;
      }
      const fg = /^\(\?([imsU-]+):/.exec(src.slice(i));
      if (fg) {
        out += '(?:';
        i += fg[0].length;
        depth++;
        groupStarts.push(i);
        continue;
      }
      if (src[i + 1] === '?' && src[i + 2] !== ':') {
        throw goRegexpError('invalid or unsupported Perl syntax', src.slice(i, i + 3));
      }
      depth++;
      groupStarts.push(i);
      out += c;
      i++;
      continue;
    }
    if (c === ')') {
      if (depth === 0) throw goRegexpError('unexpected )', src);
      depth--;
      groupStarts.pop();
      out += c;
      i++;
      continue;
    }
    if (c === '*' || c === '+' || c === '?') {
      const prev = out[out.length - 1];
      if (out === '' || prev === '(' || prev === '|') throw goRegexpError('missing argument to repetition operator', c);
      if (/[*+?]$/.test(out) && !/\\[*+?]$/.test(out) && src[i - 1] !== '?' && c !== '?') {
        throw goRegexpError('invalid nested repetition operator', src.slice(i - 1, i + 1));
      }
      out += c;
      i++;
      continue;
    }
    if (c === '/') {
      out += '\\/';
      i++;
      continue;
    }
    out += c;
    i++;
  }
  if (depth > 0) throw goRegexpError('missing closing )', src);
  return { source: out, flags };
}

export function compileGo(expr: string): RegExp {
  let r = cache.get(expr);
  if (r === undefined) {
    try {
      const t = translate(expr);
      r = new RegExp(t.source, t.flags + 'g');
    } catch (e) {
      r = e instanceof Error && e.message.startsWith('error parsing regexp') ? e : goRegexpError('invalid or unsupported Perl syntax', expr);
    }
    if (cache.size > 1000) cache.clear();
    cache.set(expr, r);
  }
  if (r instanceof Error) throw r;
  r.lastIndex = 0;
  return r;
}

/** regexp.MustCompile's panic text, as sprig's non-must functions show it. */
function mustCompile(expr: string): RegExp {
  try {
    return compileGo(expr);
  } catch (e) {
    throw new Error(`regexp: Compile(\`${expr}\`): ${(e as Error).message}`);
  }
}

function findAll(re: RegExp, s: string, n: number): RegExpExecArray[] {
  const out: RegExpExecArray[] = [];
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  let prevEnd = -1;
  while ((n < 0 || out.length < n) && (m = re.exec(s)) !== null) {
    if (m[0] === '') {
      if (m.index === prevEnd) {
        re.lastIndex = m.index + 1;
        continue;
      }
      re.lastIndex = m.index + 1;
    }
    prevEnd = m.index + m[0].length;
    out.push(m);
  }
  return out;
}

/** Go's Regexp.Expand template syntax. */
function expand(template: string, m: RegExpExecArray): string {
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
      if (end < 0) {
        out += '$';
        i++;
        continue;
      }
      name = template.slice(i + 2, end);
      j = end + 1;
      if (!/^[A-Za-z0-9_]+$/.test(name)) {
        out += '$';
        i++;
        continue;
      }
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
      if (k < m.length && m[k] !== undefined) out += m[k];
    } else if (m.groups && m.groups[name] !== undefined) out += m.groups[name];
    i = j;
  }
  return out;
}

function replaceAll(re: RegExp, src: string, repl: (m: RegExpExecArray) => string): string {
  const ms = findAll(re, src, -1);
  let out = '';
  let last = 0;
  for (const m of ms) {
    out += src.slice(last, m.index) + repl(m);
    last = m.index + m[0].length;
  }
  return out + src.slice(last);
}

function split(re: RegExp, s: string, n: number): string[] {
  if (n === 0) return [];
  if (re.source === '(?:)' && s.length > 0) {
    const chars = [...s];
    if (n > 0 && n < chars.length) return [...chars.slice(0, n - 1), chars.slice(n - 1).join('')];
    return chars;
  }
  const ms = findAll(re, s, -1);
  const out: string[] = [];
  let beg = 0;
  for (const m of ms) {
    if (n > 0 && out.length === n - 1) break;
    const end = m.index;
    if (m[0] === '' && m.index === 0) continue;
    out.push(s.slice(beg, end));
    beg = m.index + m[0].length;
  }
  out.push(s.slice(beg));
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
  regexFindAll: d([S, S, I], ([re, s, n]) => strs(findAll(mustCompile(re), s, Number(n)).map((m) => m[0]))),
  mustRegexFindAll: d([S, S, I], ([re, s, n]) => strs(findAll(compileGo(re), s, Number(n)).map((m) => m[0]))),
  regexFind: d([S, S], ([re, s]) => findAll(mustCompile(re), s, 1)[0]?.[0] ?? ''),
  mustRegexFind: d([S, S], ([re, s]) => findAll(compileGo(re), s, 1)[0]?.[0] ?? ''),
  regexReplaceAll: d([S, S, S], ([re, s, r]) => replaceAll(mustCompile(re), s, (m) => expand(r, m))),
  mustRegexReplaceAll: d([S, S, S], ([re, s, r]) => replaceAll(compileGo(re), s, (m) => expand(r, m))),
  regexReplaceAllLiteral: d([S, S, S], ([re, s, r]) => replaceAll(mustCompile(re), s, () => r)),
  mustRegexReplaceAllLiteral: d([S, S, S], ([re, s, r]) => replaceAll(compileGo(re), s, () => r)),
  regexSplit: d([S, S, I], ([re, s, n]) => strs(split(mustCompile(re), s, Number(n)))),
  mustRegexSplit: d([S, S, I], ([re, s, n]) => strs(split(compileGo(re), s, Number(n)))),
  regexQuoteMeta: d([S], ([s]) => s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')),
};
