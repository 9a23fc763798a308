/**
 * The two glob dialects charts meet: Go's path/filepath.Match (used by .helmignore) and
 * gobwas/glob with '/' as separator (used by `.Files.Glob`). Both compile to anchored RegExps.
 */

const escapeRe = (c: string): string => c.replace(/[\\^$.*+?()[\]{}|/-]/g, '\\$&');

/** Reads a `[...]` class at `i` (just after '['); returns the RegExp class text and the index after ']'. */
function readClass(p: string, i: number, negation: '^' | '!'): { re: string; next: number } | undefined {
  let re = '[';
  if (p[i] === negation) {
    re += '^';
    i++;
  }
  let first = true;
  while (i < p.length && (p[i] !== ']' || first)) {
    first = false;
    let c = p[i]!;
    if (c === '\\') {
      i++;
      if (i >= p.length) return undefined;
      c = p[i]!;
    }
    re += escapeRe(c);
    i++;
    if (p[i] === '-' && p[i + 1] !== undefined && p[i + 1] !== ']') {
      let hi = p[i + 1]!;
      i += 2;
      if (hi === '\\') {
        if (i >= p.length) return undefined;
        hi = p[i]!;
        i++;
      }
      if (hi < c) return undefined;
      re += '-' + escapeRe(hi);
    }
  }
  if (i >= p.length || re === '[' || re === '[^') return undefined;
  return { re: re + ']', next: i + 1 };
}

/** Go's filepath.Match pattern as a RegExp; throws "syntax error in pattern" as Go's ErrBadPattern reads. */
export function goPathPattern(pattern: string): RegExp {
  let re = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === '*') {
      re += '[^/]*';
      i++;
    } else if (c === '?') {
      re += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = readClass(pattern, i + 1, '^');
      if (!cls) throw new Error('syntax error in pattern');
      re += cls.re;
      i = cls.next;
    } else if (c === '\\') {
      if (i + 1 >= pattern.length) throw new Error('syntax error in pattern');
      re += escapeRe(pattern[i + 1]!);
      i += 2;
    } else {
      re += escapeRe(c);
      i++;
    }
  }
  return new RegExp(`^${re}$`, 's');
}

/**
 * gobwas/glob with separator '/': `*` stays within a path segment, `**` crosses segments, `?` is one
 * character, `[a-z]`/`[!a-z]` classes, `{a,b}` alternatives, `\` escapes. Undefined when it does not
 * compile (Helm then falls back to `**`).
 */
export function gobwasPattern(pattern: string): RegExp | undefined {
  let depth = 0;
  let re = '';
  for (let i = 0; i < pattern.length; ) {
    const c = pattern[i]!;
    if (c === '*') {
      if (pattern[i + 1] === '*') {
        re += '.*';
        i += 2;
      } else {
        re += '[^/]*';
        i++;
      }
    } else if (c === '?') {
      re += '[^/]';
      i++;
    } else if (c === '[') {
      const cls = readClass(pattern, i + 1, '!');
      if (!cls) return undefined;
      re += cls.re;
      i = cls.next;
    } else if (c === '{') {
      depth++;
      re += '(?:';
      i++;
    } else if (c === '}' && depth > 0) {
      depth--;
      re += ')';
      i++;
    } else if (c === ',' && depth > 0) {
      re += '|';
      i++;
    } else if (c === '\\') {
      if (i + 1 >= pattern.length) return undefined;
      re += escapeRe(pattern[i + 1]!);
      i += 2;
    } else {
      re += escapeRe(c);
      i++;
    }
  }
  if (depth !== 0) return undefined;
  return new RegExp(`^${re}$`, 's');
}
