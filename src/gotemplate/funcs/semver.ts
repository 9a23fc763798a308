/**
 * Masterminds/semver v3.4.0 (the version Helm 3.19 links; see README, "Library versions"), as Sprig's
 * `semver`/`semverCompare` and Helm's kubeVersion checks use it: `NewVersion` (which coerces, the
 * default since 3.4.0), `NewConstraint` and `Constraints.Check`.
 */
import type { FuncDef } from '../exec.js';
import { GoInt, goSyntaxOf } from '../values.js';
import { goQuote } from '../strconv.js';
import { Re2 } from '../re2.js';

// NewVersion's loose pattern (`looseSemVerRegex`): leading zeros and a missing minor/patch pass.
const VERSION_RE = /^v?([0-9]+)(\.[0-9]+)?(\.[0-9]+)?(-([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?(\+([0-9A-Za-z-]+(\.[0-9A-Za-z-]+)*))?$/;
const UINT64_MAX = (1n << 64n) - 1n;
const ALLOWED = /^[0-9A-Za-z-]*$/;
const DIGITS = /^[0-9]*$/;

/** strconv.ParseUint(s, 10, 64) of a run of ASCII digits. */
function parseSegment(s: string): bigint {
  const n = BigInt(s);
  if (n > UINT64_MAX) throw new Error(`error parsing version segment: strconv.ParseUint: parsing ${goQuote(s)}: value out of range`);
  return n;
}

function validatePrerelease(p: string): void {
  for (const part of p.split('.')) {
    if (part === '') throw new Error('invalid prerelease string');
    if (DIGITS.test(part)) {
      if (part.length > 1 && part[0] === '0') throw new Error('version segment starts with 0');
    } else if (!ALLOWED.test(part)) throw new Error('invalid prerelease string');
  }
}

function validateMetadata(m: string): void {
  for (const part of m.split('.')) {
    if (part === '' || !ALLOWED.test(part)) throw new Error('invalid metadata string');
  }
}

/** A nil *Version argument: Go's methods dereference it and panic; text/template reports the panic. */
function deref(o: SemverVersion | null | undefined): SemverVersion {
  if (o == null) throw new Error('runtime error: invalid memory address or nil pointer dereference');
  return o;
}

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

  /** semver.NewVersion with CoerceNewVersion (3.4.0's default): its results and its error messages. */
  static parse(v: string): SemverVersion {
    const m = VERSION_RE.exec(v);
    if (!m) throw new Error('invalid semantic version');
    const major = parseSegment(m[1]);
    const minor = m[2] ? parseSegment(m[2].slice(1)) : 0n;
    const patch = m[3] ? parseSegment(m[3].slice(1)) : 0n;
    const pre = m[5] ?? '';
    const metadata = m[8] ?? '';
    if (pre) validatePrerelease(pre);
    if (metadata) validateMetadata(metadata);
    return new SemverVersion(major, minor, patch, pre, metadata, v);
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
  Compare(o: SemverVersion | null): bigint {
    return BigInt(compareVersions(this, deref(o)));
  }
  LessThan(o: SemverVersion | null): boolean {
    return compareVersions(this, deref(o)) < 0;
  }
  /** Since semver 3.3.0. */
  LessThanEqual(o: SemverVersion | null): boolean {
    return compareVersions(this, deref(o)) <= 0;
  }
  GreaterThan(o: SemverVersion | null): boolean {
    return compareVersions(this, deref(o)) > 0;
  }
  /** Since semver 3.3.0. */
  GreaterThanEqual(o: SemverVersion | null): boolean {
    return compareVersions(this, deref(o)) >= 0;
  }
  /** A nil argument is unequal (semver 3.3.0; 3.2 panicked). */
  Equal(o: SemverVersion | null): boolean {
    if (o === this) return true;
    if (o == null) return false;
    return compareVersions(this, o) === 0;
  }
  equals(o: unknown): boolean {
    return o instanceof SemverVersion && compareVersions(this, o) === 0 && this.metadata === o.metadata;
  }
}

function cmpInt(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** strconv.ParseUint succeeds: digits only, at most 2^64-1 (a longer number compares as a string). */
function isUint(s: string): boolean {
  return s !== '' && DIGITS.test(s) && BigInt(s) <= UINT64_MAX;
}

/** comparePrePart: one dot-separated part of two prereleases ("" when one has fewer parts). */
function comparePrePart(s: string, o: string): number {
  if (s === o) return 0;
  if (s === '') return -1;
  if (o === '') return 1;
  const sn = isUint(s);
  const on = isUint(o);
  if (!sn && !on) return s > o ? 1 : -1;
  if (!on) return -1;
  if (!sn) return 1;
  return BigInt(s) > BigInt(o) ? 1 : -1;
}

/** comparePrerelease: part by part, also when one side is empty (as `!=` calls it). */
function comparePrerelease(a: string, b: string): number {
  const as = a.split('.');
  const bs = b.split('.');
  const n = Math.max(as.length, bs.length);
  for (let i = 0; i < n; i++) {
    const d = comparePrePart(as[i] ?? '', bs[i] ?? '');
    if (d !== 0) return d;
  }
  return 0;
}

/** Version.Compare: metadata ignored, a version without a prerelease above one with. */
export function compareVersions(a: SemverVersion, b: SemverVersion): number {
  const d = cmpInt(a.major, b.major) || cmpInt(a.minor, b.minor) || cmpInt(a.patch, b.patch);
  if (d !== 0) return d;
  if (a.pre === '' && b.pre === '') return 0;
  if (a.pre === '') return 1;
  if (b.pre === '') return -1;
  return comparePrerelease(a.pre, b.pre);
}

interface Constraint {
  op: string;
  con: SemverVersion;
  dirty: boolean;
  minorDirty: boolean;
  patchDirty: boolean;
}

/** Parsed constraints: OR groups of AND-ed constraints, and whether each group names a prerelease. */
export interface Constraints {
  groups: Constraint[][];
  containsPre: boolean[];
}

// The library's patterns, run with Go's regexp semantics (RE2: `\s` is ASCII whitespace only,
// leftmost-first submatches) in linear time.
const CV = String.raw`v?([0-9|x|X|\*]+)(\.[0-9|x|X|\*]+)?(\.[0-9|x|X|\*]+)?(-([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?(\+([0-9A-Za-z\-]+(\.[0-9A-Za-z\-]+)*))?`;
const OPS = String.raw`=||!=|>|<|>=|=>|<=|=<|~|~>|\^`;
const CONSTRAINT_RE = new Re2(String.raw`^\s*(${OPS})\s*(${CV})\s*$`);
const RANGE_RE = new Re2(String.raw`\s*(${CV})\s+-\s+(${CV})\s*`);
const FIND_RE = new Re2(String.raw`(${OPS})\s*(${CV})`);
const VALID_RE = new Re2(String.raw`^(\s*(${OPS})\s*(${CV})\s*)((?:\s+|,\s*)(${OPS})\s*(${CV})\s*)*$`);

const group = (s: string, m: number[], i: number): string => (m[2 * i] >= 0 ? s.slice(m[2 * i], m[2 * i + 1]) : '');
const isX = (s: string): boolean => s === 'x' || s === 'X' || s === '*';

/** rewriteRange: each `A - B` becomes `>= A, <= B ` (3.2.1+ adds the trailing space). */
function rewriteRange(s: string): string {
  let out = s;
  for (const m of RANGE_RE.findAll(s, -1)) {
    const whole = s.slice(m[0], m[1]);
    const at = out.indexOf(whole);
    if (at >= 0) out = out.slice(0, at) + `>= ${group(s, m, 1)}, <= ${group(s, m, 11)} ` + out.slice(at + whole.length);
  }
  return out;
}

function parseConstraint(c: string): Constraint {
  if (c === '') return { op: '', con: new SemverVersion(0n, 0n, 0n, '', '', '0.0.0'), dirty: true, minorDirty: false, patchDirty: false };
  const m = CONSTRAINT_RE.exec(c, 0);
  if (!m) throw new Error(`improper constraint: ${c}`);
  const op = group(c, m, 1);
  const major = group(c, m, 3);
  const minor = group(c, m, 4);
  const patch = group(c, m, 5);
  const pre = group(c, m, 6);
  let ver = group(c, m, 2);
  let dirty = false;
  let minorDirty = false;
  let patchDirty = false;
  if (isX(major) || major === '') {
    ver = `0.0.0${pre}`;
    dirty = true;
  } else if (isX(minor.slice(1)) || minor === '') {
    minorDirty = true;
    dirty = true;
    ver = `${major}.0.0${pre}`;
  } else if (isX(patch.slice(1)) || patch === '') {
    dirty = true;
    patchDirty = true;
    ver = `${major}${minor}.0${pre}`;
  }
  let con: SemverVersion;
  try {
    con = SemverVersion.parse(ver);
  } catch {
    throw new Error('constraint parser error');
  }
  return { op, con, dirty, minorDirty, patchDirty };
}

/** semver.NewConstraint: its parse, its errors (`improper constraint: ` names the failing OR group). */
export function parseConstraints(s: string): Constraints {
  const groups: Constraint[][] = [];
  const containsPre: boolean[] = [];
  for (const or of rewriteRange(s).split('||')) {
    if (!VALID_RE.test(or)) throw new Error(`improper constraint: ${or}`);
    const found = FIND_RE.findAll(or, -1).map((m) => or.slice(m[0], m[1]));
    const cs = (found.length ? found : [or]).map(parseConstraint);
    groups.push(cs);
    containsPre.push(cs.some((c) => c.con.pre !== ''));
  }
  return { groups, containsPre };
}

function tilde(v: SemverVersion, c: Constraint): boolean {
  if (compareVersions(v, c.con) < 0) return false;
  // ~0.0.0 (also `*`, `x`) accepts every version.
  if (c.con.major === 0n && c.con.minor === 0n && c.con.patch === 0n && !c.minorDirty && !c.patchDirty) return true;
  if (v.major !== c.con.major) return false;
  if (v.minor !== c.con.minor && !c.minorDirty) return false;
  return true;
}

function notEqual(v: SemverVersion, c: Constraint): boolean {
  if (c.dirty) {
    if (c.con.major !== v.major) return true;
    if (c.con.minor !== v.minor && !c.minorDirty) return true;
    if (c.minorDirty) return false;
    if (c.con.patch !== v.patch && !c.patchDirty) return true;
    if (c.patchDirty) return (v.pre !== '' || c.con.pre !== '') && comparePrerelease(v.pre, c.con.pre) !== 0;
  }
  return compareVersions(v, c.con) !== 0;
}

/**
 * One constraint. 3.4.0: a prerelease version fails every operator (`!=` too) unless its AND group
 * has a constraint with a prerelease (`includePre`); before, each constraint needed one itself.
 */
function check(v: SemverVersion, c: Constraint, includePre: boolean): boolean {
  if (v.pre !== '' && !includePre) return false;
  const cmp = compareVersions(v, c.con);
  switch (c.op) {
    case '':
    case '=':
      return c.dirty ? tilde(v, c) : cmp === 0;
    case '!=':
      return notEqual(v, c);
    case '>':
      if (!c.dirty) return cmp > 0;
      if (v.major > c.con.major) return true;
      if (v.major < c.con.major) return false;
      if (c.minorDirty) return false;
      if (c.patchDirty) return v.minor > c.con.minor;
      return cmp > 0;
    case '<':
      return cmp < 0;
    case '>=':
    case '=>':
      return cmp >= 0;
    case '<=':
    case '=<':
      if (!c.dirty) return cmp <= 0;
      if (v.major > c.con.major) return false;
      if (v.major === c.con.major && v.minor > c.con.minor && !c.minorDirty) return false;
      return true;
    case '~':
    case '~>':
      return tilde(v, c);
    case '^': {
      if (cmp < 0) return false;
      if (c.con.major > 0n || c.minorDirty) return v.major === c.con.major;
      if (v.major > 0n) return false;
      if (c.con.minor > 0n || c.patchDirty) return v.minor === c.con.minor;
      if (v.minor > 0n) return false;
      return c.con.patch === v.patch;
    }
  }
  return false;
}

/** Constraints.Check (IncludePrerelease unset, as Sprig and Helm leave it). */
export function checkConstraints(cs: Constraints, v: SemverVersion): boolean {
  return cs.groups.some((and, i) => and.every((c) => check(v, c, cs.containsPre[i])));
}

/** Sprig's semverCompare: the constraint is parsed first, then the version. */
export function semverCompare(constraint: string, version: string): boolean {
  const cs = parseConstraints(constraint);
  return checkConstraints(cs, SemverVersion.parse(version));
}

export const semverFuncs: Record<string, FuncDef> = {
  semver: { params: ['string'], fn: ([v]) => SemverVersion.parse(v) },
  semverCompare: { params: ['string', 'string'], fn: ([c, v]) => semverCompare(c, v) },
};
