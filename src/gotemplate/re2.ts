/**
 * Go's regexp (RE2 syntax and semantics, linear time) for the template functions, semver and values
 * schemas, on top of re2js (a maintained JavaScript port of RE2/J, whose parser, compiler and error
 * texts follow Go's regexp). This module keeps the small interface the rest of the code uses and Go's
 * iteration rules for FindAll and ReplaceAll. Indexes are JS string indexes. The choice of re2js over
 * the hand-written engine this file used to hold is measured in README.md ("Regular expressions").
 */
import { RE2JS, RE2JSSyntaxException } from 're2js';

export class RegexpSyntaxError extends Error {}

type Compiled = ReturnType<typeof RE2JS.compile>;

export class Re2 {
  private readonly re: Compiled;
  readonly numCap: number;
  /** Capture group names by index ('' for unnamed ones and for the whole match). */
  readonly names: string[];

  constructor(readonly source: string) {
    try {
      this.re = RE2JS.compile(source);
    } catch (e) {
      if (!(e instanceof RE2JSSyntaxException)) throw e;
      // Go prints the (empty) expression of a trailing backslash too
      const message = e.message === 'error parsing regexp: trailing backslash at end of expression' ? `${e.message}: \`\`` : e.message;
      throw new RegexpSyntaxError(message);
    }
    this.numCap = this.re.groupCount();
    this.names = new Array<string>(this.numCap + 1).fill('');
    for (const [name, i] of Object.entries(this.re.namedGroups())) this.names[i] = name;
  }

  /**
   * Leftmost-first match starting the search at JS index `from` (anchors and \b still see the text
   * before it). Returns capture positions (JS string indexes, -1 when unset) or null.
   */
  exec(s: string, from: number): number[] | null {
    const m = this.re.matcher(s);
    if (!m.find(from)) return null;
    const out = new Array<number>(2 * (this.numCap + 1));
    for (let g = 0; g <= this.numCap; g++) {
      out[2 * g] = m.start(g);
      out[2 * g + 1] = m.end(g);
    }
    return out;
  }

  test(s: string): boolean {
    return this.re.matcher(s).find(0);
  }

  /** Go's FindAll: at most n matches (all with n < 0); an empty match right after a match is skipped. */
  findAll(s: string, n: number): number[][] {
    const out: number[][] = [];
    let pos = 0;
    let prevEnd = -1;
    while ((n < 0 || out.length < n) && pos <= s.length) {
      const m = this.exec(s, pos);
      if (!m) break;
      let accept = true;
      if (m[1] === pos) {
        if (m[0] === prevEnd) accept = false;
        pos += pos < s.length ? (s.codePointAt(pos)! > 0xffff ? 2 : 1) : 1;
      } else pos = m[1]!;
      prevEnd = m[1]!;
      if (accept) out.push(m);
    }
    return out;
  }

  /** Go's ReplaceAll iteration: `repl` gets each match's positions. */
  replaceAll(s: string, repl: (m: number[]) => string): string {
    let out = '';
    let lastEnd = 0;
    let search = 0;
    while (search <= s.length) {
      const a = this.exec(s, search);
      if (!a) break;
      out += s.slice(lastEnd, a[0]);
      if (a[1]! > lastEnd || a[0] === 0) out += repl(a);
      lastEnd = a[1]!;
      const w = search < s.length ? (s.codePointAt(search)! > 0xffff ? 2 : 1) : 0;
      if (search + w > a[1]!) search += w;
      else if (search + 1 > a[1]!) search++;
      else search = a[1]!;
    }
    return out + s.slice(lastEnd);
  }
}
