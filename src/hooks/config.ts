/**
 * Parsing and validation of a hook's `--config` output (JSON or YAML 1.1) into a normalised HookConfig.
 *
 * - `configVersion: v1`, or the legacy v0 format when the key is absent (only "v1" may be written).
 * - Every field of shell-operator's binding configuration with its default and validation, plus
 *   addon-operator's bindings: beforeAll/afterAll (global hooks only) and beforeHelm/afterHelm/
 *   beforeDeleteHelm/afterDeleteHelm (module hooks only).
 * - Unknown keys are errors. All problems are collected and reported together in one HookConfigError,
 *   each line naming the hook path and the key (`hooks/a.sh: kubernetes[1].kind: is required`).
 * - jq filters are compiled with src/jq, crontabs checked with src/schedule.
 */
import { compileJq, validateJqFilter, type JqFilter } from '../jq/index.js';
import { parseGoDuration, validateCrontab } from '../schedule/index.js';
import { errorMessage, UserErrors } from '../util/errors.js';
import { parseYaml } from '../util/yaml.js';
import { parseWebhooks } from './config-webhooks.js';
import {
  apiVersionProblem,
  Checker,
  describe,
  isPlainObject,
  joinKey,
  labelKeyProblem,
  labelValueProblem,
  mergeArrays,
  type Problem,
} from './config-checks.js';
import {
  GLOBAL_LIFECYCLE_BINDINGS,
  MODULE_LIFECYCLE_BINDINGS,
  WATCH_EVENTS,
  type FieldSelector,
  type FieldSelectorRequirement,
  type HookConfig,
  type HookConfigVersion,
  type HookKind,
  type HookSettings,
  type KubernetesBinding,
  type LabelSelector,
  type LabelSelectorRequirement,
  type NamespaceSelector,
  type NameSelector,
  type ScheduleBinding,
  type WatchEvent,
  type WebhookBinding,
} from './config-types.js';

export type { Problem } from './config-checks.js';

export interface ParseHookConfigOptions {
  /** Hook path or name used in every message (e.g. `hooks/002-dir/hook.sh`). */
  readonly hookPath: string;
  readonly kind: HookKind;
}

/** Every problem of one hook's config. `problems` are full lines: `<hookPath>: <key>: <message>`. */
export class HookConfigError extends UserErrors {
  override name = 'HookConfigError';
  constructor(
    readonly hookPath: string,
    readonly details: readonly Problem[],
    /** The raw `--config` output when it could not be parsed at all. */
    readonly output?: string,
  ) {
    const lines = details.map((p) => (p.key === '' ? `${hookPath}: ${p.message}` : `${hookPath}: ${p.key}: ${p.message}`));
    super(`invalid config of hook '${hookPath}'`, lines);
    if (output !== undefined) {
      const shown = output.length > 2000 ? `${output.slice(0, 2000)}... (${output.length} bytes)` : output;
      this.message += `\nhook --config output:\n${shown}`;
    }
  }
}

/**
 * Read `--config` output as JSON, else as YAML 1.1 (src/util/yaml.ts, as Go reads it). Throws HookConfigError
 * when it is neither, or when it is empty.
 */
export function readConfigText(text: string, hookPath: string): unknown {
  if (text.trim() === '') throw new HookConfigError(hookPath, [{ key: '', message: 'the --config output is empty' }]);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    // not JSON: try YAML
  }
  try {
    // as shell-operator reads it (sigs.k8s.io/yaml): the first document, a repeated key's later value
    return parseYaml(text, 'the --config output', { firstDocument: true, duplicateKeys: 'last' });
  } catch (err) {
    const first = errorMessage(err).split('\n')[0];
    throw new HookConfigError(hookPath, [{ key: '', message: `the --config output is neither JSON nor YAML: ${first}` }], text);
  }
}

/**
 * Parse and validate a hook config: `input` is the `--config` output text, or an already-parsed object
 * (in-process hooks export `config`). Throws HookConfigError listing every problem.
 */
export async function parseHookConfig(input: unknown, options: ParseHookConfigOptions): Promise<HookConfig> {
  return parseHookConfigSync(input, options);
}

/** As parseHookConfig, synchronously (jq filters are compiled by the project's own engine). */
export function parseHookConfigSync(input: unknown, options: ParseHookConfigOptions): HookConfig {
  const data = typeof input === 'string' ? readConfigText(input, options.hookPath) : input;
  const c = new Checker();
  const config = parseData(data, options, c);
  if (c.problems.length > 0 || !config) throw new HookConfigError(options.hookPath, c.problems);
  return config;
}

const V1_KEYS = ['configVersion', 'onStartup', 'schedule', 'kubernetes', 'settings', 'kubernetesValidating', 'kubernetesMutating', 'kubernetesCustomResourceConversion'];
const V0_KEYS = ['onStartup', 'schedule', 'onKubernetesEvent'];

function parseData(data: unknown, options: ParseHookConfigOptions, c: Checker): HookConfig | undefined {
  if (!isPlainObject(data)) {
    c.add('', `the config must be an object (a mapping of bindings), got ${describe(data)}`);
    return undefined;
  }
  const lifecycleKeys: readonly string[] = options.kind === 'global' ? GLOBAL_LIFECYCLE_BINDINGS : MODULE_LIFECYCLE_BINDINGS;
  const otherKindKeys: readonly string[] = options.kind === 'global' ? MODULE_LIFECYCLE_BINDINGS : GLOBAL_LIFECYCLE_BINDINGS;

  let version: HookConfigVersion = 'v0';
  if ('configVersion' in data) {
    const v = data.configVersion;
    if (v === null || v === undefined) c.add('configVersion', "missing 'configVersion' value");
    else if (typeof v !== 'string') c.add('configVersion', `string value is expected, got ${describe(v)}`);
    else if (v !== 'v1') c.add('configVersion', `value '${v}' is unsupported: use v1, or omit configVersion for the legacy v0 format`);
    version = 'v1';
  }

  const kindHint = (key: string): string | undefined => {
    if (otherKindKeys.includes(key)) {
      return options.kind === 'global'
        ? `'${key}' is a module hook binding and cannot be used in a global hook (global hooks have ${GLOBAL_LIFECYCLE_BINDINGS.join(', ')})`
        : `'${key}' is a global hook binding and cannot be used in a module hook (module hooks have ${MODULE_LIFECYCLE_BINDINGS.join(', ')})`;
    }
    if (version === 'v0' && V1_KEYS.includes(key)) return `'${key}' needs 'configVersion: v1' (without configVersion the legacy v0 format is assumed)`;
    if (version === 'v1' && key === 'onKubernetesEvent') return `'onKubernetesEvent' is the legacy v0 binding; with configVersion v1 use 'kubernetes'`;
    return undefined;
  };
  const allowed = [...(version === 'v1' ? V1_KEYS : V0_KEYS), ...lifecycleKeys];
  c.onlyKeys(data, '', allowed, kindHint);

  const keys = Object.keys(data);
  if (version === 'v1' && keys.length < 2) c.add('', 'the config has no bindings besides configVersion');
  if (version === 'v0' && keys.length === 0) c.add('', 'the config has no bindings');

  const onStartup = c.integer(data.onStartup, 'onStartup');
  const orders: Record<string, number> = {};
  for (const key of lifecycleKeys) {
    const order = c.integer(data[key], key);
    if (order !== undefined) orders[key] = order;
  }

  let schedule: ScheduleBinding[];
  let kubernetes: KubernetesBinding[];
  let webhooks: WebhookBinding[] = [];
  let settings: HookSettings | undefined;
  if (version === 'v1') {
    const declared = declaredKubernetesNames(data.kubernetes);
    kubernetes = parseKubernetesList(data.kubernetes, c, declared);
    schedule = parseScheduleList(data.schedule, c, declared);
    webhooks = parseWebhooks(data, c, {
      includes: (obj, key) => readIncludes(obj, key, c, declared),
      labelSelector: (value, key) => readLabelSelector(value, key, c),
    });
    settings = parseSettings(data.settings, c);
    ({ kubernetes, schedule, webhooks } = expandGroups(kubernetes, schedule, webhooks));
  } else {
    kubernetes = parseV0KubernetesList(data.onKubernetesEvent, c);
    schedule = parseV0ScheduleList(data.schedule, c);
  }

  const common = {
    version,
    hookPath: options.hookPath,
    ...(onStartup !== undefined ? { onStartup } : {}),
    schedule,
    kubernetes,
    webhooks,
    ...(settings ? { settings } : {}),
  };
  if (options.kind === 'global') return { ...common, kind: 'global', ...orders };
  return { ...common, kind: 'module', ...orders };
}

// ---------------------------------------------------------------------------------------------------
// schedule

const SCHEDULE_KEYS = ['name', 'crontab', 'allowFailure', 'queue', 'includeSnapshotsFrom', 'group'];

function parseScheduleList(value: unknown, c: Checker, declared: readonly string[]): ScheduleBinding[] {
  const list = c.array(value, 'schedule', { minItems: 1 });
  if (!list) return [];
  const out: ScheduleBinding[] = [];
  list.forEach((item, i) => {
    const key = joinKey('schedule', i);
    const obj = c.object(item, key);
    if (!obj) return;
    c.onlyKeys(obj, key, SCHEDULE_KEYS);
    const crontab = readCrontab(obj, key, c);
    const name = c.string(obj.name, joinKey(key, 'name'), { nonEmpty: true });
    const allowFailure = c.boolean(obj.allowFailure, joinKey(key, 'allowFailure'));
    const queue = readQueue(obj, key, c);
    const group = c.string(obj.group, joinKey(key, 'group'), { nonEmpty: true });
    const includes = readIncludes(obj, key, c, declared);
    if (crontab === undefined) return;
    out.push({
      type: 'schedule',
      name: name ?? 'schedule',
      crontab,
      allowFailure: allowFailure ?? false,
      queue: queue ?? 'main',
      ...(group !== undefined ? { group } : {}),
      includeSnapshotsFrom: includes ?? [],
    });
  });
  return out;
}

function readCrontab(obj: Record<string, unknown>, key: string, c: Checker): string | undefined {
  const ckey = joinKey(key, 'crontab');
  if (obj.crontab === undefined) {
    c.add(ckey, 'is required');
    return undefined;
  }
  const crontab = c.string(obj.crontab, ckey);
  if (crontab === undefined) return undefined;
  const problem = validateCrontab(crontab);
  if (problem !== null) {
    c.add(ckey, `crontab is invalid: ${problem}`);
    return undefined;
  }
  return crontab;
}

function readQueue(obj: Record<string, unknown>, key: string, c: Checker): string | undefined {
  const q = c.string(obj.queue, joinKey(key, 'queue'), { nonEmpty: true });
  if (q !== undefined && q !== q.trim()) {
    c.add(joinKey(key, 'queue'), `queue name ${JSON.stringify(q)} must not start or end with spaces`);
    return undefined;
  }
  return q;
}

function readIncludes(obj: Record<string, unknown>, key: string, c: Checker, declared: readonly string[]): string[] | undefined {
  const ikey = joinKey(key, 'includeSnapshotsFrom');
  const names = c.stringArray(obj.includeSnapshotsFrom, ikey, { minItems: 1, nonEmptyItems: true });
  if (names) checkNamesExist(names, ikey, declared, c);
  return names;
}

/** Names of the kubernetes bindings as written (unnamed ⇒ `kubernetes`), including invalid items. */
function declaredKubernetesNames(value: unknown): string[] {
  if (!Array.isArray(value)) return [];
  return value.filter(isPlainObject).map((o) => (typeof o.name === 'string' && o.name.trim() !== '' ? o.name : 'kubernetes'));
}

function checkNamesExist(names: readonly string[], key: string, declared: readonly string[], c: Checker): void {
  names.forEach((name, i) => {
    const count = declared.filter((d) => d === name).length;
    if (count === 0) c.add(joinKey(key, i), `'${name}' binding name not found among the kubernetes bindings`);
    else if (count > 1) c.add(joinKey(key, i), `there are ${count} '${name}' kubernetes binding names; a referenced name must be unique`);
  });
}

// ---------------------------------------------------------------------------------------------------
// kubernetes

const KUBERNETES_KEYS = [
  'name',
  'apiVersion',
  'kind',
  'nameSelector',
  'labelSelector',
  'fieldSelector',
  'namespace',
  'jqFilter',
  'executeHookOnEvent',
  'watchEvent',
  'executeHookOnSynchronization',
  'waitForSynchronization',
  'keepFullObjectsInMemory',
  'allowFailure',
  'queue',
  'group',
  'includeSnapshotsFrom',
  'resynchronizationPeriod',
];

function parseKubernetesList(value: unknown, c: Checker, declared: readonly string[]): KubernetesBinding[] {
  const list = c.array(value, 'kubernetes', { minItems: 1 });
  if (!list) return [];
  const out: KubernetesBinding[] = [];
  list.forEach((item, i) => {
    const b = parseKubernetesItem(item, joinKey('kubernetes', i), c, declared);
    if (b) out.push(b);
  });
  return out;
}

function readKind(obj: Record<string, unknown>, key: string, c: Checker): string | undefined {
  if (obj.kind === undefined) {
    c.add(joinKey(key, 'kind'), 'is required');
    return undefined;
  }
  return c.string(obj.kind, joinKey(key, 'kind'), { nonEmpty: true });
}

function readJq(value: unknown, key: string, c: Checker): { jqFilter: string; jqProgram: JqFilter } | undefined {
  const src = c.string(value, key);
  if (src === undefined) return undefined;
  const problem = validateJqFilter(src);
  if (problem !== null) {
    c.add(key, `invalid jq filter '${src}': ${problem}`);
    return undefined;
  }
  return { jqFilter: src, jqProgram: compileJq(src) };
}

function parseKubernetesItem(item: unknown, key: string, c: Checker, declared: readonly string[]): KubernetesBinding | undefined {
  const obj = c.object(item, key);
  if (!obj) return undefined;
  const before = c.problems.length;
  c.onlyKeys(obj, key, KUBERNETES_KEYS);
  const k = (name: string): string => joinKey(key, name);

  const name = c.string(obj.name, k('name'), { nonEmpty: true });
  const kind = readKind(obj, key, c);
  const apiVersion = c.string(obj.apiVersion, k('apiVersion'));
  if (apiVersion !== undefined && apiVersion !== '') {
    const p = apiVersionProblem(apiVersion);
    if (p) c.add(k('apiVersion'), p);
  }
  const nameSelector = readNameSelector(obj.nameSelector, k('nameSelector'), c);
  const labelSelector = readLabelSelector(obj.labelSelector, k('labelSelector'), c);
  const fieldSelector = readFieldSelector(obj.fieldSelector, k('fieldSelector'), c);
  if (nameSelector && nameSelector.matchNames.length > 0 && fieldSelector?.matchExpressions.some((e) => e.field === 'metadata.name')) {
    c.add(k('fieldSelector'), "fieldSelector 'metadata.name' and nameSelector.matchNames are mutually exclusive");
  }
  const namespace = readNamespaceSelector(obj.namespace, k('namespace'), c);
  const jq = readJq(obj.jqFilter, k('jqFilter'), c);
  const onEvent = c.array(obj.executeHookOnEvent, k('executeHookOnEvent'));
  const watchEvent = c.array(obj.watchEvent, k('watchEvent'));
  const events = readEvents(onEvent, k('executeHookOnEvent'), c);
  const legacyEvents = readEvents(watchEvent, k('watchEvent'), c);
  const onSync = c.boolean(obj.executeHookOnSynchronization, k('executeHookOnSynchronization'));
  const waitSync = c.boolean(obj.waitForSynchronization, k('waitForSynchronization'));
  const keepFull = c.boolean(obj.keepFullObjectsInMemory, k('keepFullObjectsInMemory'));
  const allowFailure = c.boolean(obj.allowFailure, k('allowFailure'));
  const queue = readQueue(obj, key, c);
  const group = c.string(obj.group, k('group'), { nonEmpty: true });
  const includes = readIncludes(obj, key, c, declared);
  const resync = c.string(obj.resynchronizationPeriod, k('resynchronizationPeriod'));
  if (resync !== undefined && resync !== '') {
    try {
      parseGoDuration(resync);
    } catch (err) {
      c.add(k('resynchronizationPeriod'), (err as Error).message);
    }
  }
  if (c.problems.length > before || kind === undefined) return undefined;

  return {
    type: 'kubernetes',
    name: name ?? 'kubernetes',
    ...(apiVersion ? { apiVersion } : {}),
    kind,
    ...(nameSelector ? { nameSelector } : {}),
    ...(labelSelector ? { labelSelector } : {}),
    ...(fieldSelector ? { fieldSelector } : {}),
    ...(namespace ? { namespace } : {}),
    ...(jq ?? {}),
    // executeHookOnEvent wins over the legacy watchEvent; absent ⇒ all events.
    executeHookOnEvent: events ?? legacyEvents ?? [...WATCH_EVENTS],
    executeHookOnSynchronization: onSync ?? true,
    // false is honoured only for a binding with an explicit queue.
    waitForSynchronization: waitSync === false && queue !== undefined ? false : true,
    keepFullObjectsInMemory: keepFull ?? true,
    allowFailure: allowFailure ?? false,
    queue: queue ?? 'main',
    ...(group !== undefined ? { group } : {}),
    includeSnapshotsFrom: includes ?? [],
    ...(resync ? { resynchronizationPeriod: resync } : {}),
  };
}

function readEvents(list: unknown[] | undefined, key: string, c: Checker): WatchEvent[] | undefined {
  if (!list) return undefined;
  const out: WatchEvent[] = [];
  list.forEach((e, i) => {
    const ev = c.oneOf(e, joinKey(key, i), WATCH_EVENTS);
    if (ev && !out.includes(ev)) out.push(ev);
  });
  return out;
}

function readNameSelector(value: unknown, key: string, c: Checker): NameSelector | undefined {
  const obj = c.object(value, key);
  if (!obj) return undefined;
  c.onlyKeys(obj, key, ['matchNames']);
  if (obj.matchNames === undefined) {
    c.add(joinKey(key, 'matchNames'), 'is required');
    return undefined;
  }
  const names = c.stringArray(obj.matchNames, joinKey(key, 'matchNames'), { nonEmptyItems: true });
  return names ? { matchNames: names } : undefined;
}

const LABEL_OPERATORS = ['In', 'NotIn', 'Exists', 'DoesNotExist'] as const;

function readLabelSelector(value: unknown, key: string, c: Checker): LabelSelector | undefined {
  const obj = c.object(value, key);
  if (!obj) return undefined;
  const before = c.problems.length;
  c.onlyKeys(obj, key, ['matchLabels', 'matchExpressions']);
  if (obj.matchLabels === undefined && obj.matchExpressions === undefined) {
    c.add(key, 'must have matchLabels or matchExpressions');
    return undefined;
  }
  let matchLabels: Record<string, string> | undefined;
  const labels = c.object(obj.matchLabels, joinKey(key, 'matchLabels'));
  if (labels) {
    matchLabels = {};
    for (const [lk, lv] of Object.entries(labels)) {
      const lkey = joinKey(joinKey(key, 'matchLabels'), lk);
      const keyProblem = labelKeyProblem(lk);
      if (keyProblem) c.add(lkey, keyProblem);
      const v = c.string(lv, lkey);
      if (v === undefined) continue;
      const valueProblem = labelValueProblem(v);
      if (valueProblem) c.add(lkey, valueProblem);
      matchLabels[lk] = v;
    }
  }
  let matchExpressions: LabelSelectorRequirement[] | undefined;
  const exprs = c.array(obj.matchExpressions, joinKey(key, 'matchExpressions'));
  if (exprs) {
    matchExpressions = [];
    exprs.forEach((e, i) => {
      const ekey = joinKey(joinKey(key, 'matchExpressions'), i);
      const r = readLabelRequirement(e, ekey, c);
      if (r) matchExpressions!.push(r);
    });
  }
  if (c.problems.length > before) return undefined;
  return { ...(matchLabels ? { matchLabels } : {}), ...(matchExpressions ? { matchExpressions } : {}) };
}

function readLabelRequirement(value: unknown, key: string, c: Checker): LabelSelectorRequirement | undefined {
  const obj = c.object(value, key);
  if (!obj) return undefined;
  c.onlyKeys(obj, key, ['key', 'operator', 'values']);
  let ok = true;
  if (obj.key === undefined) {
    c.add(joinKey(key, 'key'), 'is required');
    ok = false;
  }
  if (obj.operator === undefined) {
    c.add(joinKey(key, 'operator'), 'is required');
    ok = false;
  }
  const labelKey = c.string(obj.key, joinKey(key, 'key'));
  if (labelKey !== undefined) {
    const p = labelKeyProblem(labelKey);
    if (p) {
      c.add(joinKey(key, 'key'), p);
      ok = false;
    }
  }
  const operator = c.oneOf(obj.operator, joinKey(key, 'operator'), LABEL_OPERATORS);
  const values = c.stringArray(obj.values, joinKey(key, 'values'));
  values?.forEach((v, i) => {
    const p = labelValueProblem(v);
    if (p) {
      c.add(joinKey(joinKey(key, 'values'), i), p);
      ok = false;
    }
  });
  if (!ok || labelKey === undefined || operator === undefined || (obj.values !== undefined && values === undefined)) return undefined;
  if (operator === 'In' || operator === 'NotIn') {
    if (!values || values.length === 0) {
      c.add(joinKey(key, 'values'), `must be a non-empty list for operator ${operator}`);
      return undefined;
    }
    return { key: labelKey, operator, values };
  }
  if (values && values.length > 0) {
    c.add(joinKey(key, 'values'), `must be empty for operator ${operator}`);
    return undefined;
  }
  return { key: labelKey, operator };
}

const FIELD_OPERATORS = ['=', '==', 'Equals', '!=', 'NotEquals'] as const;

function readFieldSelector(value: unknown, key: string, c: Checker): FieldSelector | undefined {
  const obj = c.object(value, key);
  if (!obj) return undefined;
  const before = c.problems.length;
  c.onlyKeys(obj, key, ['matchExpressions']);
  const mkey = joinKey(key, 'matchExpressions');
  if (obj.matchExpressions === undefined) {
    c.add(mkey, 'is required');
    return undefined;
  }
  const exprs = c.array(obj.matchExpressions, mkey);
  if (!exprs) return undefined;
  const out: FieldSelectorRequirement[] = [];
  exprs.forEach((e, i) => {
    const ekey = joinKey(mkey, i);
    const o = c.object(e, ekey);
    if (!o) return;
    c.onlyKeys(o, ekey, ['field', 'operator', 'value']);
    for (const req of ['field', 'operator', 'value']) if (o[req] === undefined) c.add(joinKey(ekey, req), 'is required');
    const field = c.string(o.field, joinKey(ekey, 'field'), { nonEmpty: true });
    const op = c.oneOf(o.operator, joinKey(ekey, 'operator'), FIELD_OPERATORS);
    const v = c.string(o.value, joinKey(ekey, 'value'));
    if (field !== undefined && op !== undefined && v !== undefined) {
      out.push({ field, operator: op === '!=' || op === 'NotEquals' ? '!=' : '=', value: v });
    }
  });
  if (c.problems.length > before) return undefined;
  return { matchExpressions: out };
}

function readNamespaceSelector(value: unknown, key: string, c: Checker): NamespaceSelector | undefined {
  const obj = c.object(value, key);
  if (!obj) return undefined;
  c.onlyKeys(obj, key, ['nameSelector', 'labelSelector']);
  if (obj.nameSelector === undefined && obj.labelSelector === undefined) {
    c.add(key, 'must have nameSelector or labelSelector');
    return undefined;
  }
  const nameSelector = readNameSelector(obj.nameSelector, joinKey(key, 'nameSelector'), c);
  const labelSelector = readLabelSelector(obj.labelSelector, joinKey(key, 'labelSelector'), c);
  if (!nameSelector && !labelSelector) return undefined;
  return { ...(nameSelector ? { nameSelector } : {}), ...(labelSelector ? { labelSelector } : {}) };
}

// ---------------------------------------------------------------------------------------------------
// settings, webhooks, groups

function parseSettings(value: unknown, c: Checker): HookSettings | undefined {
  const obj = c.object(value, 'settings');
  if (!obj) return undefined;
  c.onlyKeys(obj, 'settings', ['executionMinInterval', 'executionMinPeriod', 'executionBurst']);
  if (obj.executionMinInterval !== undefined && obj.executionMinPeriod !== undefined) {
    c.add('settings.executionMinPeriod', 'is an alias of executionMinInterval; give only one of them');
  }
  const intervalKey = obj.executionMinPeriod !== undefined ? 'settings.executionMinPeriod' : 'settings.executionMinInterval';
  const intervalText = c.string(obj.executionMinPeriod ?? obj.executionMinInterval, intervalKey);
  let intervalMs = 0;
  if (intervalText !== undefined) {
    try {
      intervalMs = parseGoDuration(intervalText);
      if (intervalMs < 0) c.add(intervalKey, `must not be negative, got ${JSON.stringify(intervalText)}`);
    } catch (err) {
      c.add(intervalKey, `${(err as Error).message} (a duration such as 30s, 1m or 500ms)`);
    }
  }
  const burst = c.integer(obj.executionBurst, 'settings.executionBurst');
  if (burst !== undefined && burst < 0) c.add('settings.executionBurst', `must not be negative, got ${burst}`);
  return { executionMinIntervalMs: Math.max(0, intervalMs), executionBurst: burst === undefined || burst <= 0 ? 1 : burst };
}

/** `group`: every binding of a group includes the snapshots of the group's kubernetes bindings. */
function expandGroups(
  kubernetes: KubernetesBinding[],
  schedule: ScheduleBinding[],
  webhooks: WebhookBinding[],
): { kubernetes: KubernetesBinding[]; schedule: ScheduleBinding[]; webhooks: WebhookBinding[] } {
  const groups = new Map<string, string[]>();
  for (const k of kubernetes) {
    if (k.group === undefined) continue;
    const names = groups.get(k.group) ?? [];
    names.push(k.name);
    groups.set(k.group, names);
  }
  const expand = <T extends { group?: string; includeSnapshotsFrom: readonly string[] }>(b: T): T => {
    const names = b.group === undefined ? undefined : groups.get(b.group);
    return names ? { ...b, includeSnapshotsFrom: mergeArrays(b.includeSnapshotsFrom, names) } : b;
  };
  return { kubernetes: kubernetes.map(expand), schedule: schedule.map(expand), webhooks: webhooks.map(expand) };
}

// ---------------------------------------------------------------------------------------------------
// v0

function parseV0ScheduleList(value: unknown, c: Checker): ScheduleBinding[] {
  const list = c.array(value, 'schedule', { minItems: 1 });
  if (!list) return [];
  const out: ScheduleBinding[] = [];
  list.forEach((item, i) => {
    const key = joinKey('schedule', i);
    const obj = c.object(item, key);
    if (!obj) return;
    c.onlyKeys(obj, key, ['name', 'crontab', 'allowFailure']);
    const crontab = readCrontab(obj, key, c);
    const name = c.string(obj.name, joinKey(key, 'name'), { nonEmpty: true });
    const allowFailure = c.boolean(obj.allowFailure, joinKey(key, 'allowFailure'));
    if (crontab === undefined) return;
    out.push({ type: 'schedule', name: name ?? 'schedule', crontab, allowFailure: allowFailure ?? false, queue: 'main', includeSnapshotsFrom: [] });
  });
  return out;
}

const V0_EVENTS: Readonly<Record<string, WatchEvent>> = { add: 'Added', update: 'Modified', delete: 'Deleted' };

function parseV0KubernetesList(value: unknown, c: Checker): KubernetesBinding[] {
  const list = c.array(value, 'onKubernetesEvent', { minItems: 1 });
  if (!list) return [];
  const out: KubernetesBinding[] = [];
  list.forEach((item, i) => {
    const key = joinKey('onKubernetesEvent', i);
    const obj = c.object(item, key);
    if (!obj) return;
    const before = c.problems.length;
    const k = (name: string): string => joinKey(key, name);
    c.onlyKeys(obj, key, ['name', 'event', 'kind', 'selector', 'objectName', 'namespaceSelector', 'jqFilter', 'allowFailure']);
    const name = c.string(obj.name, k('name'), { nonEmpty: true });
    const kind = readKind(obj, key, c);
    let events: WatchEvent[] | undefined;
    const evList = c.stringArray(obj.event, k('event'));
    if (evList) {
      events = [];
      evList.forEach((e, j) => {
        const ev = V0_EVENTS[e];
        if (ev === undefined) c.add(joinKey(k('event'), j), `event '${e}' is unsupported (use add, update or delete)`);
        else if (!events!.includes(ev)) events!.push(ev);
      });
    }
    const labelSelector = readLabelSelector(obj.selector, k('selector'), c);
    const objectName = c.string(obj.objectName, k('objectName'));
    let namespace: NamespaceSelector | undefined;
    const ns = c.object(obj.namespaceSelector, k('namespaceSelector'));
    if (ns) {
      c.onlyKeys(ns, k('namespaceSelector'), ['matchNames', 'any']);
      const any = c.boolean(ns.any, joinKey(k('namespaceSelector'), 'any'));
      const names = c.stringArray(ns.matchNames, joinKey(k('namespaceSelector'), 'matchNames'), { nonEmptyItems: true });
      if (any !== true && names) namespace = { nameSelector: { matchNames: names } };
    }
    const jq = readJq(obj.jqFilter, k('jqFilter'), c);
    const allowFailure = c.boolean(obj.allowFailure, k('allowFailure'));
    if (c.problems.length > before || kind === undefined) return;
    out.push({
      type: 'kubernetes',
      name: name ?? 'onKubernetesEvent',
      kind,
      ...(objectName ? { nameSelector: { matchNames: [objectName] } } : {}),
      ...(labelSelector ? { labelSelector } : {}),
      ...(namespace ? { namespace } : {}),
      ...(jq ?? {}),
      // As shell-operator's v0 conversion: no `event` list ⇒ an empty list ⇒ the hook never runs on events.
      executeHookOnEvent: events ?? [],
      executeHookOnSynchronization: false,
      waitForSynchronization: true,
      keepFullObjectsInMemory: true,
      allowFailure: allowFailure ?? false,
      queue: 'main',
      includeSnapshotsFrom: [],
    });
  });
  return out;
}
