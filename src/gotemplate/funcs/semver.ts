/** Masterminds/semver v3 (as sprig's semver/semverCompare use it): versions and constraints. */
import type { FuncDef } from '../exec.js';
import { GoInt, goSyntaxOf } from '../values.js';
import { goQuote } from '../strconv.js';

const VERSION_RE = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;

export class SemverVersion {
  get goTypeName(): string {
    return '*semver.Version';
  }
  constructor(
    readonly major: bigint,
    readonly minor: bigint,
    readonly patch: bigint,
    readonly pre: string,
    readonly metadata: string,
    readonly original: string,
  ) {}

  /** %#v of a *semver.Version: the struct's fields at the top, a pointer inside a value (Go prints its address). */
  [goSyntaxOf](depth: number): string {
    if (depth > 0) return '(*semver.Version)(0xc000010000)';
    const hex = (n: bigint): string => '0x' + n.toString(16);
    return (
      `&semver.Version{major:${hex(this.major)}, minor:${hex(this.minor)}, patch:${hex(this.patch)}, ` +
      `pre:${goQuote(this.pre)}, metadata:${goQuote(this.metadata)}, original:${goQuote(this.original)}}`
    );
  }

  static parse(v: string): SemverVersion {
    const m = VERSION_RE.exec(v);
    if (!m) throw new Error('Invalid Semantic Version');
    const num = (s: string | undefined): bigint => (s ? BigInt(s.replace(/^\./, '')) : 0n);
    const pre = m[5] ?? '';
    if (pre) {
      for (const part of pre.split('.')) {
        if (/^[0-9]+$/.test(part) && part.length > 1 && part[0] === '0') throw new Error('Version segment starts with 0');
      }
    }
    return new SemverVersion(num(m[1]), num(m[2]), num(m[3]), pre, m[8] ?? '', v);
  }

  Major(): GoInt {
    return new GoInt('uint64', this.major);
  }
  Minor(): GoInt {
    return new GoInt('uint64', this.minor);
  }
  Patch(): GoInt {
    return new GoInt('uint64', this.patch);
  }
  Prerelease(): string {
    return this.pre;
  }
  Metadata(): string {
    return this.metadata;
  }
  Original(): string {
    return this.original;
  }
  String(): string {
    let s = `${this.major}.${this.minor}.${this.patch}`;
    if (this.pre) s += '-' + this.pre;
    if (this.metadata) s += '+' + this.metadata;
    return s;
  }
  IncPatch(): SemverVersion {
    if (this.pre) return new SemverVersion(this.major, this.minor, this.patch, '', '', this.original);
    return new SemverVersion(this.major, this.minor, this.patch + 1n, '', '', this.original);
  }
  IncMinor(): SemverVersion {
    return new SemverVersion(this.major, this.minor + 1n, 0n, '', '', this.original);
  }
  IncMajor(): SemverVersion {
    return new SemverVersion(this.major + 1n, 0n, 0n, '', '', this.original);
  }
  MarshalJSON(): string {
    return JSON.stringify(this.String());
  }
  Compare(o: SemverVersion): bigint {
    return BigInt(compareVersions(this, o));
  }
  LessThan(o: SemverVersion): boolean {
    return compareVersions(this, o) < 0;
  }
  GreaterThan(o: SemverVersion): boolean {
    return compareVersions(this, o) > 0;
  }
  Equal(o: SemverVersion): boolean {
    return compareVersions(this, o) === 0;
  }
  equals(o: unknown): boolean {
    return o instanceof SemverVersion && compareVersions(this, o) === 0 && this.metadata === o.metadata;
  }
}

function cmpInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function comparePrerelease(a: string, b: string): number {
  if (a === b) return 0;
  if (a === '') return 1;
  if (b === '') return -1;
  const as = a.split('.');
  const bs = b.split('.');
  const n = Math.max(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const x = as[i];
    const y = bs[i];
    if (x === undefined) return -1;
    if (y === undefined) return 1;
    if (x === y) continue;
    const xn = /^[0-9]+$/.test(x);
    const yn = /^[0-9]+$/.test(y);
    if (xn && yn) return cmpInt(BigInt(x), BigInt(y));
    if (xn) return -1;
    if (yn) return 1;
    return x < y ? -1 : 1;
  }
  return 0;
}

export function compareVersions(a: SemverVersion, b: SemverVersion): number {
  return cmpInt(a.major, b.major) || cmpInt(a.minor, b.minor) || cmpInt(a.patch, b.patch) || comparePrerelease(a.pre, b.pre);
}

interface Constraint {
  op: string;
  con: SemverVersion;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

const isX = (s: string): boolean => s === 'x' || s === 'X' || s === '*';
const CV = 'v?([0-9|x|X|\\*]+)(\\.[0-9|x|X|\\*]+)?(\\.[0-9|x|X|\\*]+)?(-([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?(\\+([0-9A-Za-z\\-]+(\\.[0-9A-Za-z\\-]+)*))?';
const OPS = '=||!=|>|<|>=|=>|<=|=<|~|~>|\\^';
const CONSTRAINT_RE = new RegExp(`^\\s*(${OPS})\\s*(${CV})\\s*$`);
const FIND_RE = new RegExp(`(${OPS})\\s*(${CV})`, 'g');
const VALID_RE = new RegExp(`^(\\s*(${OPS})\\s*(${CV})\\s*\\,?)+$`);
const RANGE_RE = new RegExp(`\\s*(${CV})\\s+-\\s+(${CV})\\s*`, 'g');

function parseConstraint(c: string): Constraint {
  const m = CONSTRAINT_RE.exec(c);
  if (!m) throw new Error(`improper constraint: ${c}`);
  const op = m[1];
  const major = m[3];
  const minor = m[4] ?? '';
  const patch = m[5] ?? '';
  const rest = (m[6] ?? '') + (m[9] ?? '');
  let ver = m[2];
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major)) {
    ver = `0.0.0${rest}`;
    dirty = true;
  } else if (minor === '' || isX(minor.slice(1))) {
    minorDirty = true;
    dirty = true;
    ver = `${major}.0.0${rest}`;
  } else if (patch === '' || isX(patch.slice(1))) {
    dirty = true;
    patchDirty = true;
    ver = `${major}${minor}.0${rest}`;
  }
  const con = SemverVersion.parse(ver);
  return { op, con, dirty, minorDirty, patchDirty };
}

function check(v: SemverVersion, c: Constraint): boolean {
  const preBlocked = v.pre !== '' && c.con.pre === '';
  const cmp = compareVersions(v, c.con);
  const tilde = (): boolean => {
    if (preBlocked) return false;
    if (cmp < 0) return false;
    if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
    if (v.major !== c.con.major) return false;
    if (v.minor !== c.con.minor && !c.minorDirty) return false;
    return true;
  };
  switch (c.op) {
    case '':
    case '=':
      if (preBlocked) return false;
      if (c.dirty) return tilde();
      return cmp === 0;
    case '!=':
      if (c.dirty) {
        if (preBlocked) return false;
        if (c.con.major !== v.major) return true;
        if (c.con.minor !== v.minor && !c.minorDirty) return true;
        if (c.minorDirty) return false;
        if (c.con.patch !== v.patch && !c.patchDirty) return true;
        return false;
      }
      return cmp !== 0;
    case '>':
      if (preBlocked) return false;
      if (!c.dirty) return cmp > 0;
      if (v.major > c.con.major) return true;
      if (v.major < c.con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return cmp > 0;
    case '<':
      if (preBlocked) return false;
      return cmp < 0;
    case '>=':
    case '=>':
      if (preBlocked) return false;
      return cmp >= 0;
    case '<=':
    case '=<':
      if (preBlocked) return false;
      if (!c.dirty) return cmp <= 0;
      if (v.major > c.con.major) return false;
      if (v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty) return false;
      return true;
    case '~':
    case '~>':
      return tilde();
    case '^': {
      if (preBlocked) return false;
      if (cmp < 0) return false;
      if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
      if (c.con.major === 0n && v.major > 0n) return false;
      if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
      if (c.con.minor === 0n && v.minor > 0n) return false;
      return c.con.patch === v.patch;
    }
  }
  return false;
}

export function parseConstraints(s: string): Constraint[][] {
  const rewritten = s.replace(RANGE_RE, (_all, a: string, ...rest: string[]) => {
    const b = rest[9];
    return ` >= ${a}, <= ${b} `;
  });
  const ors = rewritten.split('||');
  const out: Constraint[][] = [];
  for (const o of ors) {
    if (!VALID_RE.test(o)) throw new Error(`improper constraint: ${s}`);
    const cs = o.match(FIND_RE) ?? [o];
    out.push(cs.map((c) => parseConstraint(c)));
  }
  return out;
}

export function semverCompare(constraint: string, version: string): boolean {
  const cs = parseConstraints(constraint);
  const v = SemverVersion.parse(version);
  return cs.some((and) => and.every((c) => check(v, c)));
}

export const semverFuncs: Record<string, FuncDef> = {
  semver: { params: ['string'], fn: ([v]) => SemverVersion.parse(v) },
  semverCompare: { params: ['string', 'string'], fn: ([c, v]) => semverCompare(c, v) },
};
