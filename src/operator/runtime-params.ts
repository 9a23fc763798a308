/**
 * Runtime parameters of the debug socket (`config list`, `config set NAME VALUE [DURATION]`), as
 * shell-operator's runtime config: a value may be set for a while and then falls back; `log.level`
 * set to `debug` without a duration expires after 30 minutes.
 */
import { BadRequestError } from '../server/debug-server.js';

export interface ParamDefinition {
  name: string;
  description: string;
  defaultValue: string;
  /** Rejects a bad value before anything changes. */
  validate?: (value: string) => void;
  onChange: (value: string) => void;
  /** A duration (ms) forced on a value set without one. */
  forceDurationMs?: (value: string) => number | undefined;
}

interface Param extends ParamDefinition {
  value?: string;
  temporary?: { value: string; expireAt: number; timer: NodeJS.Timeout };
}

export interface ParamInfo {
  name: string;
  description: string;
  default: string;
  value: string;
  expireAt?: string;
}

/** RFC 3339 without fractions, as Go's time.RFC3339 prints it in UTC. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

export class RuntimeParams {
  private readonly params = new Map<string, Param>();

  constructor(private readonly now: () => number = Date.now) {}

  register(def: ParamDefinition): void {
    this.params.set(def.name, { ...def });
  }

  value(name: string): string {
    const p = this.params.get(name);
    return p ? (p.temporary?.value ?? p.value ?? p.defaultValue) : '';
  }

  list(): ParamInfo[] {
    return [...this.params.values()]
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((p) => ({
        name: p.name,
        description: p.description,
        default: p.defaultValue,
        value: this.value(p.name),
        ...(p.temporary ? { expireAt: rfc3339(p.temporary.expireAt) } : {}),
      }));
  }

  /** The text of `config list`: `%-30s %-20s %-20s %-40s` columns, as shell-operator prints them. */
  text(): string {
    const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(30)} ${b.padEnd(20)} ${c.padEnd(20)} ${d.padEnd(40)}\n`;
    return line('NAME', 'VALUE', 'EXPIRE AT', 'DESCRIPTION') + this.list().map((p) => line(p.name, p.value, p.expireAt ?? '', p.description)).join('');
  }

  /** Sets a value, for `durationMs` when given (or when the parameter forces one). */
  set(name: string, value: string, durationMs?: number): void {
    const p = this.params.get(name);
    if (!p) throw new BadRequestError(`unknown parameter "${name}"; known: ${[...this.params.keys()].join(', ')}`);
    p.validate?.(value);
    const before = this.value(name);
    clearTimeout(p.temporary?.timer);
    p.temporary = undefined;
    const ms = durationMs ?? p.forceDurationMs?.(value);
    if (ms !== undefined && ms > 0) {
      const timer = setTimeout(() => {
        const was = this.value(name);
        p.temporary = undefined;
        if (this.value(name) !== was) p.onChange(this.value(name));
      }, ms);
      timer.unref();
      p.temporary = { value, expireAt: this.now() + ms, timer };
    } else {
      p.value = value;
    }
    if (this.value(name) !== before) p.onChange(this.value(name));
  }

  stop(): void {
    for (const p of this.params.values()) clearTimeout(p.temporary?.timer);
  }
}
