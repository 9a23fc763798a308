/**
 * addon-operator/template: Go text/template + Sprig + Helm's template functions, rendering exactly as
 * Helm's engine does.
 *
 *   renderString(text, data)           one-shot render (Helm semantics), throws Error with Go's text
 *   new TemplateSet().parse(name, text) parse once ...
 *   set.render(name, data, options)     ... execute many times (safe to share)
 *
 * The value model (how Go values map to JS values) is described in values.ts. Objects passed as data
 * are read like Go maps; their function-valued properties are called as methods, so `.Files.Get "x"`
 * calls `data.Files.Get("x")` and `.Capabilities.APIVersions.Has "apps/v1"` works the same way.
 *
 * Safety: templates have no access to the environment (`env`/`expandenv` are absent) or to files
 * other than what the caller exposes; recursion is bounded (`maxDepth`, Helm's include limit) and
 * does not use the JS stack; the output size is bounded (`maxOutputLength`); JS stack exhaustion
 * (deep values in a function) is reported as a template error.
 */
import { TemplateSet, type TemplateSetOptions } from './template.js';
export { helmParseOrder, templateBasePath, renderChartFiles } from './template.js';
import { TemplateExecError, TemplateLimitError, isStackOverflow, type ExecGen, type ExecOptions, type FuncDef, type PrivateKeyType } from './exec.js';
import { TemplateParseError } from './parser.js';

export { TemplateSet, TemplateExecError, TemplateLimitError, TemplateParseError };
export type { ExecGen, ExecOptions, FuncDef, PrivateKeyType, TemplateSetOptions };
export { generatePrivateKey } from './funcs/crypto.js';
export { GoInt, withGoType, typeName, kindName, utf8 as goBytes } from './values.js';
export { GoTime } from './funcs/dates.js';
export { SemverVersion } from './funcs/semver.js';
export { sprintf, sprint, formatValue } from './fmt.js';
export { marshalYAML } from './yaml.js';
export { marshalJSON } from './json.js';
export { helmErrorMessage } from './helmerror.js';

export interface RenderOptions extends ExecOptions {
  /** template name used in error messages (default "main") */
  name?: string;
}

/** Converts a JS stack overflow into a template error. */
export function guardStack<T>(fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (isStackOverflow(e)) {
      throw new TemplateLimitError('template: exceeded maximum template depth (stack exhausted)');
    }
    throw e;
  }
}

/**
 * Renders one template the way Helm's engine does (missingkey=zero, then every `<no value>` removed).
 * Throws an Error whose message is Go's (`template: main:1:3: executing "main" at <...>: ...`).
 */
export function renderString(text: string, data: unknown, options: RenderOptions = {}): string {
  const name = options.name ?? 'main';
  const set = new TemplateSet();
  set.parse(name, text);
  return guardStack(() => set.render(name, data, options));
}

export default { renderString, TemplateSet };
