/**
 * Helm's presentation of template errors (helm/helm pkg/engine, Helm 3.18+), from the Go-worded
 * errors this engine throws:
 *
 *   parse errors:   parse error at (main:LINE): MESSAGE
 *   fail/required:  execution error at (main:LINE:COL): MESSAGE
 *   an execution error whose whole cause chain is made of text/template messages:
 *       LOCATION
 *         executing "NAME" at <NODE>:
 *           MESSAGE
 *     one block per level (include nests);
 *   anything else: Go's message unchanged.
 */
import { TemplateExecError, isWrapping } from './exec.js';
import { TemplateParseError } from './parser.js';
import { HelmFailError } from './funcs/helm.js';

const WARN_START = 'HELM_ERR_START';
const WARN_END = 'HELM_ERR_END';
const WARN_RE = /HELM_ERR_START([\s\S]*)HELM_ERR_END/;

interface Level {
  location: string;
  fn: string;
  message: string;
}

function cutNextLevel(msg: string): string {
  const i = msg.indexOf(' template:');
  return i >= 0 ? msg.slice(0, i) : msg;
}

function parseLevel(s: string): Level | null {
  const prefix = 'template: ';
  if (!s.startsWith(prefix)) return null;
  const rest = s.slice(prefix.length);
  if (rest.startsWith('no template ')) return { location: '', fn: '', message: s };
  const i = rest.indexOf(': executing "');
  if (i >= 0) {
    const location = rest.slice(0, i);
    let after = rest.slice(i + ': executing "'.length);
    const q = after.indexOf('"');
    if (q >= 0) {
      const name = after.slice(0, q);
      after = after.slice(q + 1);
      if (after.startsWith(' at <')) {
        after = after.slice(' at <'.length);
        const e = after.indexOf('>: ');
        if (e >= 0) return { location, fn: `executing "${name}" at <${after.slice(0, e)}>:`, message: cutNextLevel(after.slice(e + 3)) };
      }
    }
    return null;
  }
  const j = rest.lastIndexOf(': ');
  if (j >= 0) return { location: rest.slice(0, j), fn: '', message: cutNextLevel(rest.slice(j + 2)) };
  return null;
}

const levelString = (l: Level): string =>
  (l.location ? l.location + '\n  ' : '') + (l.fn ? l.fn + '\n    ' : '') + (l.message ? l.message + '\n' : '');

function splitN(s: string, sep: string, n: number): string[] {
  const out: string[] = [];
  let rest = s;
  while (out.length < n - 1) {
    const i = rest.indexOf(sep);
    if (i < 0) break;
    out.push(rest.slice(0, i));
    rest = rest.slice(i + sep.length);
  }
  out.push(rest);
  return out;
}

/** The message Helm shows for an error thrown while parsing (`file` names it) or rendering. */
export function helmErrorMessage(err: unknown, file = 'main'): string {
  if (!(err instanceof Error)) return String(err);
  if (err instanceof TemplateParseError) {
    const parts = err.message.split(': ');
    if (parts.length === 1) return `parse error in (${file}): ${err.message}`;
    return `parse error at (${parts[1]}): ${parts[parts.length - 1]}`;
  }
  if (!(err instanceof TemplateExecError)) return err.message;
  const parts = splitN(err.message, ': ', 3);
  if (parts.length !== 3) return `execution error in (${file}): ${err.message}`;
  for (let c: unknown = err; c instanceof Error; c = c.cause) {
    if (c instanceof HelmFailError) {
      // Helm wraps the message as HELM_ERR_START...HELM_ERR_END and takes back what its greedy
      // regexp finds from the first start marker to the last end marker of the whole chain, so a
      // marker in the template text or in the message itself shows.
      if (!parts[2].endsWith(c.message)) return `execution error at (${parts[1]}): ${c.message}`;
      const chain = `${parts[2].slice(0, parts[2].length - c.message.length)}${WARN_START}${c.message}${WARN_END}`;
      return `execution error at (${parts[1]}): ${WARN_RE.exec(chain)![1]}`;
    }
  }
  const levels: Level[] = [];
  // Each level's message is read as a suffix of the outermost one while the chain is made of
  // wrapping errors: reading (flattening) every level's own message would take quadratic time.
  const top = err.message;
  let suffix = true;
  for (let c: unknown = err; c instanceof Error; c = c.cause) {
    const l = parseLevel(suffix ? top.slice(top.length - c.message.length) : c.message);
    suffix = suffix && isWrapping(c);
    if (!l) return err.message;
    const last = levels[levels.length - 1];
    if (last && last.location === l.location && last.fn === l.fn && last.message === l.message) continue;
    levels.push(l);
  }
  return levels.map(levelString).join('').trim();
}
