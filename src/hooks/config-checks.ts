/**
 * Small typed readers for untrusted config objects that collect every problem with its key path
 * (`kubernetes[1].labelSelector.matchExpressions[0].operator`), plus Kubernetes name checks.
 */

export interface Problem {
  /** Key path inside the config, e.g. `kubernetes[1].kind`; empty for the whole config. */
  readonly key: string;
  readonly message: string;
}

export function joinKey(base: string, key: string | number): string {
  if (typeof key === 'number') return `${base}[${key}]`;
  return base === '' ? key : `${base}.${key}`;
}

export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? `integer ${value}` : `number ${value}`;
  if (typeof value === 'string') return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  if (typeof value === 'object') return 'object';
  return `${typeof value} ${String(value)}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Collects problems; readers return undefined when the value is absent or wrong (after recording why). */
export class Checker {
  readonly problems: Problem[] = [];

  add(key: string, message: string): void {
    this.problems.push({ key, message });
  }

  /** Report keys of `obj` that are not in `allowed` (unknown keys are errors). */
  onlyKeys(obj: Record<string, unknown>, base: string, allowed: readonly string[], hint?: (key: string) => string | undefined): void {
    for (const key of Object.keys(obj)) {
      if (allowed.includes(key)) continue;
      const special = hint?.(key);
      this.add(joinKey(base, key), special ?? `unknown key (allowed keys: ${allowed.join(', ')})`);
    }
  }

  object(value: unknown, key: string): Record<string, unknown> | undefined {
    if (value === undefined) return undefined;
    if (!isPlainObject(value)) {
      this.add(key, `must be an object, got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  string(value: unknown, key: string, opts: { nonEmpty?: boolean } = {}): string | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string') {
      this.add(key, `must be a string, got ${describe(value)}`);
      return undefined;
    }
    if (opts.nonEmpty && value.trim() === '') {
      this.add(key, 'must be a non-empty string');
      return undefined;
    }
    return value;
  }

  boolean(value: unknown, key: string): boolean | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') {
      this.add(key, `must be a boolean (true or false), got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  integer(value: unknown, key: string): number | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
      this.add(key, `must be an integer, got ${describe(value)}`);
      return undefined;
    }
    return value;
  }

  array(value: unknown, key: string, opts: { minItems?: number } = {}): unknown[] | undefined {
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) {
      this.add(key, `must be an array, got ${describe(value)}`);
      return undefined;
    }
    if (opts.minItems !== undefined && value.length < opts.minItems) {
      this.add(key, `must have at least ${opts.minItems} item${opts.minItems === 1 ? '' : 's'}`);
      return undefined;
    }
    return value;
  }

  stringArray(value: unknown, key: string, opts: { minItems?: number; nonEmptyItems?: boolean } = {}): string[] | undefined {
    const arr = this.array(value, key, opts);
    if (!arr) return undefined;
    const out: string[] = [];
    let ok = true;
    arr.forEach((item, i) => {
      const s = this.string(item, joinKey(key, i), { nonEmpty: opts.nonEmptyItems ?? false });
      if (s === undefined) ok = false;
      else out.push(s);
    });
    return ok ? out : undefined;
  }

  oneOf<T extends string>(value: unknown, key: string, allowed: readonly T[]): T | undefined {
    if (value === undefined) return undefined;
    if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
      this.add(key, `must be one of ${allowed.join(', ')}, got ${describe(value)}`);
      return undefined;
    }
    return value as T;
  }
}

const DNS1123_SUBDOMAIN = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;
const QUALIFIED_NAME = /^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$/;
const LABEL_VALUE = /^(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?$/;

/** Kubernetes label key check (IsQualifiedName); returns the problem or null. */
export function labelKeyProblem(key: string): string | null {
  const slash = key.lastIndexOf('/');
  let name = key;
  if (slash >= 0) {
    const prefix = key.slice(0, slash);
    name = key.slice(slash + 1);
    if (prefix === '' || prefix.length > 253 || !DNS1123_SUBDOMAIN.test(prefix)) {
      return `invalid label key ${JSON.stringify(key)}: the prefix must be a DNS subdomain (lowercase alphanumerics, '-' and '.', at most 253 characters)`;
    }
  }
  if (name === '' || name.length > 63 || !QUALIFIED_NAME.test(name)) {
    return `invalid label key ${JSON.stringify(key)}: the name must be at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return null;
}

/** Kubernetes label value check; returns the problem or null. */
export function labelValueProblem(value: string): string | null {
  if (value.length > 63 || !LABEL_VALUE.test(value)) {
    return `invalid label value ${JSON.stringify(value)}: must be empty or at most 63 characters of alphanumerics, '-', '_' or '.', starting and ending with an alphanumeric`;
  }
  return null;
}

/** schema.ParseGroupVersion: `v1`, `group/version`; returns the problem or null. */
export function apiVersionProblem(apiVersion: string): string | null {
  const parts = apiVersion.split('/');
  if (parts.length > 2 || parts.some((p) => p === '' || /\s/.test(p))) {
    return `apiVersion is invalid: ${JSON.stringify(apiVersion)} is not "version" or "group/version"`;
  }
  return null;
}

/** Merge `extra` into `own`: own order first, then new names, de-duplicated (shell-operator MergeArrays). */
export function mergeArrays(own: readonly string[], extra: readonly string[]): string[] {
  const out: string[] = [];
  for (const s of [...own, ...extra]) if (!out.includes(s)) out.push(s);
  return out;
}
