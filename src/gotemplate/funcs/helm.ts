/** Helm's own template functions (helm/pkg/engine/funcs.go and engine.go), written anew. */
import type { ExecContext, ExecGen, FuncDef } from '../exec.js';
import { TemplateExecError, drive, newExecContext, wrapping } from '../exec.js';
import { decodeJSON, marshalJSON } from '../json.js';
import { marshalYAML, parseYAMLAsJSON } from '../yaml.js';
import { isMap, isNil, typeName } from '../values.js';
import { goQuote } from '../strconv.js';
import { toToml } from '../toml.js';
import { sprintf } from '../fmt.js';

const ANY = 'interface {}';
const RECURSION_MAX = 1000;

/** Helm's include: runs template `name`; more than 1000 nested includes of one name fail as in Helm. */
function* include(ctx: ExecContext, name: string, data: unknown): ExecGen<string> {
  const n = ctx.included.get(name);
  if (n !== undefined) {
    if (n > RECURSION_MAX) {
      throw new Error(`rendering template has a nested reference name: ${name}: unable to execute template`);
    }
    ctx.included.set(name, n + 1);
  } else ctx.included.set(name, 1);
  try {
    return (yield ctx.call(name, data)) as string;
  } finally {
    ctx.included.set(name, ctx.included.get(name)! - 1);
  }
}

/**
 * Helm's tpl (pkg/engine/engine.go tplFun): the set is cloned, `text` is parsed into the clone as a new
 * template named like the root ("gotpl") and that new template is executed with `vals` as dot; `include`
 * and `tpl` inside it work on the clone, so its defines are seen there and nowhere else.
 *
 * Which tree runs: Go's Clone maps the root's name to the clone itself, whose tree is nil, so the
 * associate() rule "an empty tree never replaces a defined one" never keeps an older "gotpl" here:
 * the text's own tree always becomes the clone's "gotpl", and is what runs. An empty or blank text
 * gives "" or its blanks, also inside another tpl (whose text is the older "gotpl"). When the text's
 * top level is empty and it defines "gotpl" itself, that definition is the tree (Go's parse add()).
 */
function* tpl(ctx: ExecContext, text: string, vals: unknown): ExecGen<string> {
  const set = (ctx.set as any).clone();
  set.forget(ctx.rootName);
  try {
    set.parse(ctx.rootName, text);
  } catch (e) {
    throw wrapping(new Error(`cannot parse template ${goQuote(text)}: ${(e as Error).message}`, { cause: e }));
  }
  const sub = newExecContext(set, ctx.opts, ctx);
  let out: string;
  try {
    out = (yield sub.call(ctx.rootName, vals)) as string;
  } catch (e) {
    if (!(e instanceof TemplateExecError) || (e as any).name === 'TemplateLimitError') throw e;
    throw wrapping(new Error(`error during tpl function execution for ${goQuote(text)}: ${(e as Error).message}`, { cause: e }));
  }
  return out.replaceAll('<no value>', '');
}

function toYAML(v: unknown): string {
  try {
    return marshalYAML(v).replace(/\n$/, '');
  } catch {
    return '';
  }
}

function fromYAML(s: string): Record<string, unknown> {
  try {
    const v = parseYAMLAsJSON(s);
    if (isNil(v)) return {};
    if (!isMap(v)) {
      return { Error: `error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type map[string]interface {}` };
    }
    return v;
  } catch (e) {
    return { Error: (e as Error).message };
  }
}

function fromYAMLArray(s: string): unknown[] {
  try {
    const v = parseYAMLAsJSON(s);
    if (isNil(v)) return [];
    if (!Array.isArray(v)) {
      return [`error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${jsonKind(v)} into Go value of type []interface {}`];
    }
    return v;
  } catch (e) {
    return [(e as Error).message];
  }
}

function jsonKind(v: unknown): string {
  if (Array.isArray(v)) return 'array';
  if (isMap(v)) return 'object';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'value';
}

function fromJSON(s: string): Record<string, unknown> {
  try {
    const d = decodeJSON(s);
    const v = d.value;
    if (isNil(v)) return d.typeError ? { Error: d.typeError } : {};
    if (!isMap(v)) return { Error: `json: cannot unmarshal ${jsonKind(v)} into Go value of type map[string]interface {}` };
    if (d.typeError) v.Error = d.typeError;
    return v;
  } catch (e) {
    return { Error: (e as Error).message };
  }
}

function fromJSONArray(s: string): unknown[] {
  try {
    const d = decodeJSON(s);
    const v = d.value;
    if (isNil(v)) return d.typeError ? [d.typeError] : [];
    if (!Array.isArray(v)) return [`json: cannot unmarshal ${jsonKind(v)} into Go value of type []interface {}`];
    if (d.typeError) return [d.typeError];
    return v;
  } catch (e) {
    return [(e as Error).message];
  }
}

export const helmFuncs: Record<string, FuncDef> = {
  include: {
    params: ['string', ANY],
    fn: ([name, data], ctx) => drive(include(ctx, name, data)),
    gen: ([name, data], ctx) => include(ctx, name, data),
  },
  tpl: { params: ['string', ANY], fn: ([text, vals], ctx) => drive(tpl(ctx, text, vals)), gen: ([text, vals], ctx) => tpl(ctx, text, vals) },
  required: {
    params: ['string', ANY],
    fn: ([warn, val]) => {
      if (isNil(val) || val === '') throw new HelmFailError(sprintf(warn, []));
      return val;
    },
  },
  fail: {
    params: ['string'],
    fn: ([msg]) => {
      throw new HelmFailError(msg);
    },
  },
  toYaml: { params: [ANY], fn: ([v]) => toYAML(v) },
  mustToYaml: {
    params: [ANY],
    fn: ([v]) => marshalYAML(v).replace(/\n$/, ''),
  },
  fromYaml: { params: ['string'], fn: ([s]) => fromYAML(s) },
  fromYamlArray: { params: ['string'], fn: ([s]) => fromYAMLArray(s) },
  toJson: {
    params: [ANY],
    fn: ([v]) => {
      try {
        return marshalJSON(v, { escapeHTML: true });
      } catch {
        return '';
      }
    },
  },
  mustToJson: { params: [ANY], fn: ([v]) => marshalJSON(v, { escapeHTML: true }) },
  fromJson: { params: ['string'], fn: ([s]) => fromJSON(s) },
  fromJsonArray: { params: ['string'], fn: ([s]) => fromJSONArray(s) },
  toToml: {
    params: [ANY],
    fn: ([v]) => {
      if (isNil(v)) throw new Error('reflect: call of reflect.Value.Type on zero Value');
      try {
        return toToml(v);
      } catch (e) {
        return (e as Error).message;
      }
    },
  },
  lookup: {
    params: ['string', 'string', 'string', 'string'],
    fn: ([apiVersion, kind, namespace, name], ctx) => {
      const cb = ctx.opts.lookup;
      if (!cb) return {};
      const r = cb(apiVersion, kind, namespace, name);
      return isNil(r) ? {} : r;
    },
  },
};

/** `fail`/`required` errors: Helm shows just the message. */
export class HelmFailError extends Error {
  override name = 'HelmFailError';
}

export { typeName };
