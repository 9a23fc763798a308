/**
 * `$METRICS_PATH`: a stream of JSON objects, one metric operation each (shell-operator §5.1).
 * `set` (gauge), `add` (counter), `observe` (histogram, with `buckets`), `expire` (a group);
 * the shortcuts `{"name": ..., "set": 5}` and `{"add": 1}`. Operations without `group` get the hook's
 * name as their group, so that each run replaces the hook's metric set.
 */
import { UserError } from '../../util/errors.js';
import { isPlainObject, positionOf, splitJsonStream } from '../../util/json.js';

export type MetricOperation =
  | { action: 'set' | 'add'; name: string; value: number; labels: Record<string, string>; group: string }
  | { action: 'observe'; name: string; value: number; buckets: number[]; labels: Record<string, string>; group: string }
  | { action: 'expire'; group: string };

const KEYS = new Set(['name', 'action', 'value', 'buckets', 'labels', 'group', 'set', 'add']);
const ACTIONS = new Set(['set', 'add', 'observe', 'expire']);

export class HookOutputError extends UserError {
  override name = 'HookOutputError';
}

/** Validates one metric operation object; `where` prefixes errors. */
export function toMetricOperation(item: unknown, hook: string, where: string): MetricOperation {
  const fail = (why: string): never => {
    throw new HookOutputError(`${where}: ${why}`);
  };
  if (!isPlainObject(item)) fail(`a metric operation must be an object, got ${JSON.stringify(item)}`);
  const op = item as Record<string, unknown>;
  for (const k of Object.keys(op)) if (!KEYS.has(k)) fail(`unknown key "${k}"`);
  let action = op.action;
  let value = op.value;
  if ('set' in op || 'add' in op) {
    if ('set' in op && 'add' in op) fail('"set" and "add" cannot be used together');
    if (action !== undefined) fail('"action" cannot be used with the "set"/"add" shortcut');
    action = 'set' in op ? 'set' : 'add';
    value = 'set' in op ? op.set : op.add;
  }
  if (typeof action !== 'string' || !ACTIONS.has(action)) fail(`unknown action ${JSON.stringify(action)} (want set, add, observe or expire)`);
  const group = op.group === undefined ? hook : op.group;
  if (typeof group !== 'string' || group === '') fail('"group" must be a non-empty string');
  if (action === 'expire') {
    if (op.group === undefined) fail('"expire" needs a "group"');
    return { action: 'expire', group: group as string };
  }
  if (typeof op.name !== 'string' || op.name === '') fail(`"${action as string}" needs a metric "name"`);
  if (!/^[a-zA-Z_:][a-zA-Z0-9_:]*$/.test(op.name as string)) fail(`"${op.name as string}" is not a valid metric name`);
  if (typeof value !== 'number' || !Number.isFinite(value)) fail(`"${action as string}" needs a numeric "value", got ${JSON.stringify(value)}`);
  const labels: Record<string, string> = {};
  if (op.labels !== undefined) {
    if (!isPlainObject(op.labels)) fail('"labels" must be a map of strings');
    for (const [k, v] of Object.entries(op.labels as Record<string, unknown>)) {
      if (!/^[a-zA-Z_][a-zA-Z0-9_]*$/.test(k)) fail(`"${k}" is not a valid label name`);
      if (typeof v !== 'string') fail(`label "${k}" must be a string, got ${JSON.stringify(v)}`);
      labels[k] = v as string;
    }
  }
  if (action === 'observe') {
    const buckets = op.buckets;
    if (!Array.isArray(buckets) || buckets.length === 0 || !buckets.every((b) => typeof b === 'number')) fail('"observe" needs "buckets": a list of numbers');
    return { action: 'observe', name: op.name as string, value: value as number, buckets: buckets as number[], labels, group: group as string };
  }
  return { action: action as 'set' | 'add', name: op.name as string, value: value as number, labels, group: group as string };
}

/** Parses the metrics file of hook `hook`; every error names $METRICS_PATH, the hook and the position. */
export function parseMetrics(text: string, hook: string): MetricOperation[] {
  const source = `$METRICS_PATH of hook ${hook}`;
  const out: MetricOperation[] = [];
  for (const { value: raw, offset } of splitJsonStream(text, source, HookOutputError)) {
    const items = Array.isArray(raw) ? raw : [raw];
    for (const item of items) out.push(toMetricOperation(item, hook, `${source}, ${positionOf(text, offset)}`));
  }
  return out;
}
