/**
 * A small RE2-compatible regular-expression engine (Go's regexp syntax and semantics): a parser with
 * Go's error messages and a Pike VM that runs in linear time (no catastrophic backtracking, unlike
 * JS RegExp), leftmost-first like Go. Works on code points; reported indexes are JS string indexes.
 */

type CharTest = (cp: number) => boolean;

type Node =
  | { t: 'lit'; cp: number; fold: boolean }
  | { t: 'class'; test: CharTest }
  | { t: 'any'; nl: boolean }
  | { t: 'assert'; k: 'bol' | 'eol' | 'bot' | 'eot' | 'wb' | 'nwb' }
  | { t: 'cap'; idx: number; name: string; sub: Node }
  | { t: 'cat'; subs: Node[] }
  | { t: 'alt'; subs: Node[] }
  | { t: 'rep'; min: number; max: number; greedy: boolean; sub: Node }
  | { t: 'empty' };

export class RegexpSyntaxError extends Error {}

function err(code: string, arg: string): never {
  throw new RegexpSyntaxError(`error parsing regexp: ${code}: \`${arg}\``);
}

interface Flags {
  i: boolean;
  m: boolean;
  s: boolean;
  U: boolean;
}

const isWordCp = (cp: number): boolean =>
  (cp >= 48 && cp <= 57) || (cp >= 65 && cp <= 90) || (cp >= 97 && cp <= 122) || cp === 95;

const POSIX: Record<string, [number, number][]> = {
  alnum: [[48, 57], [65, 90], [97, 122]],
  alpha: [[65, 90], [97, 122]],
  ascii: [[0, 127]],
  blank: [[9, 9], [32, 32]],
  cntrl: [[0, 31], [127, 127]],
  digit: [[48, 57]],
  graph: [[33, 126]],
  lower: [[97, 122]],
  print: [[32, 126]],
  punct: [[33, 47], [58, 64], [91, 96], [123, 126]],
  space: [[9, 13], [32, 32]],
  upper: [[65, 90]],
  word: [[48, 57], [65, 90], [97, 122], [95, 95]],
  xdigit: [[48, 57], [65, 70], [97, 102]],
};
const PERL: Record<string, [number, number][]> = {
  d: [[48, 57]],
  s: [[9, 10], [12, 13], [32, 32]],
  w: [[48, 57], [65, 90], [97, 122], [95, 95]],
};

const inRanges = (r: [number, number][], cp: number): boolean => r.some(([a, b]) => cp >= a && cp <= b);

function foldEq(a: number, b: number): boolean {
  if (a === b) return true;
  const x = String.fromCodePoint(a);
  const y = String.fromCodePoint(b);
  return x.toLowerCase() === y.toLowerCase() || x.toUpperCase() === y.toUpperCase();
}

function unicodeClass(name: string, neg: boolean, whole: string): CharTest {
  let re: RegExp;
  try {
    re = name === 'Any' ? /[\s\S]/u : new RegExp(`^\\p{${name.length <= 2 ? name : 'Script=' + name}}$`, 'u');
  } catch {
    try {
      re = new RegExp(`^\\p{${name}}$`, 'u');
    } catch {
      err('invalid character class range', whole);
    }
  }
  return neg ? (cp) => !re.test(String.fromCodePoint(cp)) : (cp) => re.test(String.fromCodePoint(cp));
}

class Parser {
  private pos = 0;
  private ncap = 0;
  names: string[] = [''];
  private readonly cps: number[];
  constructor(private readonly src: string) {
    this.cps = Array.from(src, (c) => c.codePointAt(0)!);
  }
  get numCap(): number {
    return this.ncap;
  }
  private peek(): number | undefined {
    return this.cps[this.pos];
  }
  private text(from: number, to = this.cps.length): string {
    return String.fromCodePoint(...this.cps.slice(from, to));
  }

  parse(): Node {
    const n = this.alternation({ i: false, m: false, s: false, U: false }, 0);
    if (this.pos < this.cps.length) err('unexpected )', this.src);
    return n;
  }

  private alternation(f: Flags, depth: number): Node {
    const subs: Node[] = [this.concat(f, depth)];
    while (this.peek() === 0x7c /* | */) {
      this.pos++;
      subs.push(this.concat(f, depth));
    }
    return subs.length === 1 ? subs[0] : { t: 'alt', subs };
  }

  private concat(f: Flags, depth: number): Node {
    const subs: Node[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined || c === 0x7c) break;
      if (c === 0x29 /* ) */) {
        if (depth === 0) err('unexpected )', this.src);
        break;
      }
      const start = this.pos;
      // flag groups change f for the rest of this concatenation
      if (c === 0x28 && this.cps[this.pos + 1] === 0x3f) {
        const m = /^\(\?([imsU-]*)(\)|:)/.exec(this.text(this.pos, Math.min(this.pos + 12, this.cps.length)));
        if (m && m[2] === ')') {
          this.applyFlags(f, m[1], this.text(this.pos, this.pos + m[0].length));
          this.pos += m[0].length;
          continue;
        }
      }
      let atom = this.atom(f, depth);
      atom = this.repeat(atom, f, start);
      subs.push(atom);
    }
    if (subs.length === 0) return { t: 'empty' };
    return subs.length === 1 ? subs[0] : { t: 'cat', subs };
  }

  private applyFlags(f: Flags, spec: string, whole: string): void {
    let neg = false;
    let sawFlag = false;
    for (const ch of spec) {
      if (ch === '-') {
        if (neg) err('invalid or unsupported Perl syntax', whole);
        neg = true;
        continue;
      }
      sawFlag = true;
      (f as any)[ch] = !neg;
    }
    if (neg && !sawFlag) err('invalid or unsupported Perl syntax', whole);
  }

  private repeat(atom: Node, f: Flags, start: number): Node {
    let c = this.peek();
    let seenRepeat = false;
    while (c === 0x2a || c === 0x2b || c === 0x3f || c === 0x7b) {
      const opStart = this.pos;
      let min: number;
      let max: number;
      if (c === 0x7b) {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(this.text(this.pos, Math.min(this.pos + 20, this.cps.length)));
        if (!m) break; // literal {
        min = Number(m[1]);
        max = m[2] === undefined ? min : m[3] === '' ? -1 : Number(m[3]);
        this.pos += m[0].length;
        if (min > 1000 || max > 1000 || (max >= 0 && min > max)) err('invalid repeat count', this.text(opStart, this.pos));
      } else {
        this.pos++;
        [min, max] = c === 0x2a ? [0, -1] : c === 0x2b ? [1, -1] : [0, 1];
      }
      let greedy = true;
      if (this.peek() === 0x3f) {
        this.pos++;
        greedy = false;
      }
      if (f.U) greedy = !greedy;
      if (start === opStart || atom.t === 'empty') err('missing argument to repetition operator', this.text(opStart, this.pos));
      if (seenRepeat) err('invalid nested repetition operator', this.text(start === opStart ? opStart : this.prevOpStart, this.pos));
      this.prevOpStart = opStart;
      seenRepeat = true;
      atom = { t: 'rep', min, max, greedy, sub: atom };
      c = this.peek();
    }
    return atom;
  }
  private prevOpStart = 0;

  private atom(f: Flags, depth: number): Node {
    const c = this.peek()!;
    switch (c) {
      case 0x28: {
        // (
        const start = this.pos;
        this.pos++;
        if (this.peek() === 0x3f) {
          const rest = this.text(this.pos, Math.min(this.pos + 100, this.cps.length));
          const named = /^\?P?<([^>]*)>/.exec(rest);
          if (rest.startsWith('?P<') || rest.startsWith('?P')) {
            if (!named || !rest.startsWith('?P<')) err('invalid or unsupported Perl syntax', this.text(start, this.pos + 2));
          }
          if (named && rest.startsWith('?P<')) {
            const name = named[1];
            if (!/^[A-Za-z0-9_]+$/.test(name)) err('invalid named capture', this.text(start, this.pos + named[0].length));
            if (this.names.includes(name)) err('duplicate capture group name', this.text(start, this.pos + named[0].length));
            this.pos += named[0].length;
            const idx = ++this.ncap;
            this.names[idx] = name;
            const sub = this.alternation({ ...f }, depth + 1);
            if (this.peek() !== 0x29) err('missing closing )', this.src);
            this.pos++;
            return { t: 'cap', idx, name, sub };
          }
          const m = /^\?([imsU-]*):/.exec(rest);
          if (!m) err('invalid or unsupported Perl syntax', this.text(start, Math.min(start + 3, this.cps.length)));
          const nf = { ...f };
          this.applyFlags(nf, m![1], this.text(start, this.pos + m![0].length));
          this.pos += m![0].length;
          const sub = this.alternation(nf, depth + 1);
          if (this.peek() !== 0x29) err('missing closing )', this.src);
          this.pos++;
          return sub;
        }
        const idx = ++this.ncap;
        this.names[idx] = '';
        const sub = this.alternation({ ...f }, depth + 1);
        if (this.peek() !== 0x29) err('missing closing )', this.src);
        this.pos++;
        return { t: 'cap', idx, name: '', sub };
      }
      case 0x5b:
        return this.charClass(f);
      case 0x2e:
        this.pos++;
        return { t: 'any', nl: f.s };
      case 0x5e:
        this.pos++;
        return { t: 'assert', k: f.m ? 'bol' : 'bot' };
      case 0x24:
        this.pos++;
        return { t: 'assert', k: f.m ? 'eol' : 'eot' };
      case 0x5c:
        return this.escape(f, false) as Node;
      case 0x2a:
      case 0x2b:
      case 0x3f: {
        err('missing argument to repetition operator', String.fromCodePoint(c));
      }
    }
    this.pos++;
    return { t: 'lit', cp: c, fold: f.i };
  }

  /** Parses an escape at pos (a backslash). In a class, returns ranges or a test. */
  private escape(f: Flags, inClass: boolean): Node | { ranges: [number, number][] } | { test: CharTest } | { cp: number } {
    const start = this.pos;
    this.pos++;
    const c = this.peek();
    if (c === undefined) err('trailing backslash at end of expression', '');
    this.pos++;
    const ch = String.fromCodePoint(c);
    const lit = (cp: number): Node | { cp: number } => (inClass ? { cp } : { t: 'lit', cp, fold: f.i });
    switch (ch) {
      case 'a':
        return lit(7);
      case 'f':
        return lit(12);
      case 't':
        return lit(9);
      case 'n':
        return lit(10);
      case 'r':
        return lit(13);
      case 'v':
        return lit(11);
      case 'x': {
        if (this.peek() === 0x7b) {
          const end = this.cps.indexOf(0x7d, this.pos);
          const hex = end < 0 ? '' : this.text(this.pos + 1, end);
          if (end < 0 || !/^[0-9A-Fa-f]+$/.test(hex) || parseInt(hex, 16) > 0x10ffff) err('invalid escape sequence', this.text(start, end < 0 ? this.cps.length : end + 1));
          this.pos = end + 1;
          return lit(parseInt(hex, 16));
        }
        const hex = this.text(this.pos, this.pos + 2);
        if (!/^[0-9A-Fa-f]{2}$/.test(hex)) err('invalid escape sequence', this.text(start, Math.min(this.pos + 2, this.cps.length)));
        this.pos += 2;
        return lit(parseInt(hex, 16));
      }
      case 'd':
      case 's':
      case 'w':
      case 'D':
      case 'S':
      case 'W': {
        const r = PERL[ch.toLowerCase()];
        const neg = ch !== ch.toLowerCase();
        if (inClass) return neg ? { test: (cp: number) => !inRanges(r, cp) } : { ranges: r };
        return { t: 'class', test: neg ? (cp) => !inRanges(r, cp) : (cp) => inRanges(r, cp) };
      }
      case 'p':
      case 'P': {
        let name: string;
        if (this.peek() === 0x7b) {
          const end = this.cps.indexOf(0x7d, this.pos);
          if (end < 0) err('invalid character class range', this.text(start));
          name = this.text(this.pos + 1, end);
          this.pos = end + 1;
        } else {
          if (this.peek() === undefined) err('invalid character class range', this.text(start));
          name = String.fromCodePoint(this.peek()!);
          this.pos++;
        }
        let neg = ch === 'P';
        if (name.startsWith('^')) {
          neg = !neg;
          name = name.slice(1);
        }
        const test = unicodeClass(name, neg, this.text(start, this.pos));
        return inClass ? { test } : { t: 'class', test };
      }
    }
    if (!inClass) {
      switch (ch) {
        case 'A':
          return { t: 'assert', k: 'bot' };
        case 'z':
          return { t: 'assert', k: 'eot' };
        case 'b':
          return { t: 'assert', k: 'wb' };
        case 'B':
          return { t: 'assert', k: 'nwb' };
        case 'Q': {
          let end = -1;
          for (let i = this.pos; i + 1 < this.cps.length; i++) if (this.cps[i] === 0x5c && this.cps[i + 1] === 0x45) {
            end = i;
            break;
          }
          const stop = end < 0 ? this.cps.length : end;
          const subs: Node[] = this.cps.slice(this.pos, stop).map((cp) => ({ t: 'lit', cp, fold: f.i }) as Node);
          this.pos = end < 0 ? this.cps.length : end + 2;
          return subs.length === 1 ? subs[0] : { t: 'cat', subs };
        }
      }
    }
    if (c >= 0x30 && c <= 0x37) {
      // octal: \0 not followed... Go allows \[0-7]{1,3} only when starting with 0 or in a class? treat \0nn
      if (c === 0x30 || inClass) {
        let s = ch;
        while (s.length < 3 && this.peek() !== undefined && this.peek()! >= 0x30 && this.peek()! <= 0x37) {
          s += String.fromCodePoint(this.peek()!);
          this.pos++;
        }
        return lit(parseInt(s, 8));
      }
      err('invalid escape sequence', this.text(start, this.pos));
    }
    if (c < 0x80 && !/[A-Za-z0-9]/.test(ch)) return lit(c);
    err('invalid escape sequence', this.text(start, this.pos));
  }

  private charClass(f: Flags): Node {
    const start = this.pos;
    this.pos++;
    let neg = false;
    if (this.peek() === 0x5e) {
      neg = true;
      this.pos++;
    }
    const ranges: [number, number][] = [];
    const tests: CharTest[] = [];
    let first = true;
    for (;;) {
      const c = this.peek();
      if (c === undefined) err('missing closing ]', this.text(start));
      if (c === 0x5d && !first) {
        this.pos++;
        break;
      }
      first = false;
      if (c === 0x5b && this.cps[this.pos + 1] === 0x3a) {
        const end = this.text(this.pos).indexOf(':]');
        if (end > 0) {
          const whole = this.text(this.pos, this.pos + end + 2);
          let name = whole.slice(2, -2);
          const pn = name.startsWith('^');
          if (pn) name = name.slice(1);
          const r = POSIX[name];
          if (!r) err('invalid character class range', whole);
          if (pn) tests.push((cp) => !inRanges(r, cp));
          else ranges.push(...r);
          this.pos += Array.from(whole).length;
          continue;
        }
      }
      let lo: number;
      const itemStart = this.pos;
      if (c === 0x5c) {
        const e = this.escape(f, true) as any;
        if ('ranges' in e) {
          ranges.push(...e.ranges);
          continue;
        }
        if ('test' in e) {
          tests.push(e.test);
          continue;
        }
        lo = e.cp;
      } else {
        lo = c;
        this.pos++;
      }
      let hi = lo;
      if (this.peek() === 0x2d && this.cps[this.pos + 1] !== undefined && this.cps[this.pos + 1] !== 0x5d) {
        this.pos++;
        const c2 = this.peek()!;
        if (c2 === 0x5c) {
          const e = this.escape(f, true) as any;
          if (!('cp' in e)) err('invalid character class range', this.text(itemStart, this.pos));
          hi = e.cp;
        } else {
          hi = c2;
          this.pos++;
        }
        if (hi < lo) err('invalid character class range', this.text(itemStart, this.pos));
      }
      ranges.push([lo, hi]);
    }
    const fold = f.i;
    const base: CharTest = (cp) => inRanges(ranges, cp) || tests.some((t) => t(cp));
    const withFold: CharTest = fold
      ? (cp) => {
          if (base(cp)) return true;
          const s = String.fromCodePoint(cp);
          const l = s.toLowerCase().codePointAt(0)!;
          const u = s.toUpperCase().codePointAt(0)!;
          return base(l) || base(u);
        }
      : base;
    return { t: 'class', test: neg ? (cp) => !withFold(cp) : withFold };
  }
}

// ---------------------------------------------------------------------------------------------
// compiler + Pike VM

type Inst =
  | { op: 'char'; test: CharTest }
  | { op: 'split'; x: number; y: number }
  | { op: 'jmp'; x: number }
  | { op: 'save'; n: number }
  | { op: 'assert'; k: 'bol' | 'eol' | 'bot' | 'eot' | 'wb' | 'nwb' }
  | { op: 'match' };

function compile(n: Node, prog: Inst[]): void {
  switch (n.t) {
    case 'empty':
      return;
    case 'lit': {
      const cp = n.cp;
      prog.push({ op: 'char', test: n.fold ? (x) => foldEq(x, cp) : (x) => x === cp });
      return;
    }
    case 'class':
      prog.push({ op: 'char', test: n.test });
      return;
    case 'any':
      prog.push({ op: 'char', test: n.nl ? () => true : (x) => x !== 10 });
      return;
    case 'assert':
      prog.push({ op: 'assert', k: n.k });
      return;
    case 'cap':
      prog.push({ op: 'save', n: 2 * n.idx });
      compile(n.sub, prog);
      prog.push({ op: 'save', n: 2 * n.idx + 1 });
      return;
    case 'cat':
      for (const s of n.subs) compile(s, prog);
      return;
    case 'alt': {
      const jumps: Inst[] = [];
      for (let i = 0; i < n.subs.length; i++) {
        if (i < n.subs.length - 1) {
          const split: Inst = { op: 'split', x: prog.length + 1, y: 0 };
          prog.push(split);
          compile(n.subs[i], prog);
          const j: Inst = { op: 'jmp', x: 0 };
          prog.push(j);
          jumps.push(j);
          (split as any).y = prog.length;
        } else compile(n.subs[i], prog);
      }
      for (const j of jumps) (j as any).x = prog.length;
      return;
    }
    case 'rep': {
      const { min, max, greedy, sub } = n;
      for (let i = 0; i < min; i++) compile(sub, prog);
      if (max < 0) {
        // star
        const L = prog.length;
        const split: Inst = { op: 'split', x: 0, y: 0 };
        prog.push(split);
        compile(sub, prog);
        prog.push({ op: 'jmp', x: L });
        if (greedy) {
          (split as any).x = L + 1;
          (split as any).y = prog.length;
        } else {
          (split as any).x = prog.length;
          (split as any).y = L + 1;
        }
        return;
      }
      const splits: Inst[] = [];
      for (let i = min; i < max; i++) {
        const split: Inst = { op: 'split', x: 0, y: 0 };
        prog.push(split);
        splits.push(split);
        (split as any).x = prog.length;
        compile(sub, prog);
      }
      for (const s of splits) {
        if (greedy) (s as any).y = prog.length;
        else {
          (s as any).y = (s as any).x;
          (s as any).x = prog.length;
        }
      }
      return;
    }
  }
}

export class Re2 {
  private readonly prog: Inst[];
  readonly numCap: number;
  readonly names: string[];
  constructor(readonly source: string) {
    const p = new Parser(source);
    const ast = p.parse();
    this.numCap = p.numCap;
    this.names = p.names;
    const prog: Inst[] = [{ op: 'save', n: 0 }];
    compile(ast, prog);
    prog.push({ op: 'save', n: 1 }, { op: 'match' });
    this.prog = prog;
  }

  /**
   * Leftmost-first match starting the search at JS index `from`. Returns capture positions (JS string
   * indexes, -1 when unset) or null.
   */
  exec(s: string, from: number): number[] | null {
    const prog = this.prog;
    const ncap = 2 * (this.numCap + 1);
    let clist: { pc: number; caps: number[] }[] = [];
    let nlist: { pc: number; caps: number[] }[] = [];
    let matched: number[] | null = null;
    const seen = new Int32Array(prog.length).fill(-1);
    let gen = 0;
    const isWordAt = (i: number): boolean => i >= 0 && i < s.length && isWordCp(s.charCodeAt(i));
    const add = (list: { pc: number; caps: number[] }[], pc: number, caps: number[], pos: number): void => {
      if (seen[pc] === gen) return;
      seen[pc] = gen;
      const inst = prog[pc];
      switch (inst.op) {
        case 'jmp':
          add(list, inst.x, caps, pos);
          return;
        case 'split':
          add(list, inst.x, caps, pos);
          add(list, inst.y, caps, pos);
          return;
        case 'save': {
          const c = caps.slice();
          c[inst.n] = pos;
          add(list, pc + 1, c, pos);
          return;
        }
        case 'assert': {
          let ok = false;
          const prev = pos > 0 ? s.charCodeAt(pos - 1) : -1;
          switch (inst.k) {
            case 'bot':
              ok = pos === 0;
              break;
            case 'eot':
              ok = pos === s.length;
              break;
            case 'bol':
              ok = pos === 0 || prev === 10;
              break;
            case 'eol':
              ok = pos === s.length || s.charCodeAt(pos) === 10;
              break;
            case 'wb':
              ok = isWordAt(pos - 1) !== isWordAt(pos);
              break;
            case 'nwb':
              ok = isWordAt(pos - 1) === isWordAt(pos);
              break;
          }
          if (ok) add(list, pc + 1, caps, pos);
          return;
        }
        default:
          list.push({ pc, caps });
      }
    };
    const empty = new Array<number>(ncap).fill(-1);
    gen++;
    add(clist, 0, empty, from);
    for (let pos = from; ; ) {
      const cp = pos < s.length ? s.codePointAt(pos)! : -1;
      const w = cp > 0xffff ? 2 : 1;
      gen++;
      for (let i = 0; i < clist.length; i++) {
        const th = clist[i];
        const inst = prog[th.pc];
        if (inst.op === 'match') {
          matched = th.caps;
          break; // cut lower-priority threads
        }
        if (inst.op === 'char' && cp >= 0 && inst.test(cp)) add(nlist, th.pc + 1, th.caps, pos + w);
      }
      if (pos >= s.length) break;
      if (!matched) add(nlist, 0, empty, pos + w);
      [clist, nlist] = [nlist, clist];
      nlist.length = 0;
      if (clist.length === 0 && matched) break;
      pos += w;
    }
    return matched;
  }

  test(s: string): boolean {
    return this.exec(s, 0) !== null;
  }

  /** Go's FindAll: non-overlapping matches, n < 0 for all. */
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
      } else pos = m[1];
      prevEnd = m[1];
      if (accept) out.push(m);
    }
    return out;
  }

  /** Go's replaceAll. */
  replaceAll(s: string, repl: (m: number[]) => string): string {
    let out = '';
    let lastEnd = 0;
    let search = 0;
    while (search <= s.length) {
      const a = this.exec(s, search);
      if (!a) break;
      out += s.slice(lastEnd, a[0]);
      if (a[1] > lastEnd || a[0] === 0) out += repl(a);
      lastEnd = a[1];
      const w = search < s.length ? (s.codePointAt(search)! > 0xffff ? 2 : 1) : 0;
      if (search + w > a[1]) search += w;
      else if (search + 1 > a[1]) search++;
      else search = a[1];
    }
    return out + s.slice(lastEnd);
  }
}
