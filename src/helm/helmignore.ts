/**
 * `.helmignore` rules as Helm's internal/ignore reads them, quirks included: a rule without '/'
 * matches the base name, a leading '/' anchors at the chart root, a trailing '/' matches only
 * directories, `**` is refused, and a negated rule that does NOT match a path ignores it.
 */
import { posix } from 'node:path';
import { UserError } from '../util/errors.js';
import { goPathPattern } from './patterns.js';

interface Rule {
  negate: boolean;
  mustDir: boolean;
  match: (path: string) => boolean;
}

export class IgnoreRules {
  private readonly rules: Rule[] = [];

  /** Parses a .helmignore text; `source` names it in errors. */
  static parse(text: string, source: string): IgnoreRules {
    const rules = new IgnoreRules();
    text.split('\n').forEach((line, i) => {
      try {
        rules.add(line);
      } catch (e) {
        throw new UserError(`${source}:${i + 1}: ${(e as Error).message}`);
      }
    });
    return rules;
  }

  /** Helm's default: dotfiles under templates/ are never loaded. */
  addDefaults(): this {
    this.add('templates/.?*');
    return this;
  }

  add(line: string): void {
    let rule = line.trim();
    if (rule === '' || rule.startsWith('#')) return;
    if (rule.includes('**')) throw new Error('double-star (**) syntax is not supported');
    goPathPattern(rule); // the whole rule must compile, as Helm checks with filepath.Match(rule, "abc")
    const negate = rule.startsWith('!');
    if (negate) rule = rule.slice(1);
    const mustDir = rule.endsWith('/');
    if (mustDir) rule = rule.slice(0, -1);
    let match: (path: string) => boolean;
    if (rule.startsWith('/')) {
      const re = goPathPattern(rule.slice(1));
      match = (p) => re.test(p);
    } else if (rule.includes('/')) {
      const re = goPathPattern(rule);
      match = (p) => re.test(p);
    } else {
      const re = goPathPattern(rule);
      match = (p) => re.test(posix.basename(p));
    }
    this.rules.push({ negate, mustDir, match });
  }

  /** `path` is relative to the chart root with '/' separators. */
  ignores(path: string, isDir: boolean): boolean {
    if (path === '' || path === '.' || path === './') return false;
    for (const r of this.rules) {
      if (r.negate) {
        if (r.mustDir && !isDir) return true;
        if (!r.match(path)) return true;
        continue;
      }
      if (r.mustDir && !isDir) continue;
      if (r.match(path)) return true;
    }
    return false;
  }
}
