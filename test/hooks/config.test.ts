import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HookConfigError, parseHookConfig, parseHookConfigSync, readConfigText } from '../../src/hooks/config.js';
import { kubernetesBindingNames, lifecycleOrder, type HookConfig, type KubernetesBinding } from '../../src/hooks/config-types.js';
import { UserError } from '../../src/util/errors.js';

const HOOK = 'hooks/002-dir/hook.sh';

function parse(input: unknown, kind: 'global' | 'module' = 'global'): HookConfig {
  return parseHookConfigSync(input, { hookPath: HOOK, kind });
}

function problemsOf(input: unknown, kind: 'global' | 'module' = 'global'): HookConfigError {
  try {
    parse(input, kind);
  } catch (err) {
    assert.ok(err instanceof HookConfigError, `expected HookConfigError, got ${String(err)}`);
    return err;
  }
  assert.fail('expected the config to be rejected');
}

/** Asserts that one problem line names the hook path and the key, and matches `re`. */
function assertProblem(err: HookConfigError, key: string, re: RegExp): void {
  const prefix = key === '' ? `${HOOK}: ` : `${HOOK}: ${key}: `;
  const line = err.problems.find((p) => p.startsWith(prefix) && re.test(p));
  assert.ok(line, `no problem '${prefix}' matching ${re} in:\n${err.problems.join('\n')}`);
  assert.ok(err.message.includes(line), 'the message lists the problem');
  assert.ok(err.message.includes(HOOK), 'the message names the hook');
}

function kube(cfg: HookConfig, i = 0): KubernetesBinding {
  const b = cfg.kubernetes[i];
  assert.ok(b);
  return b;
}

void test('v1 YAML config with every default applied', async () => {
  const cfg = await parseHookConfig(
    `configVersion: v1
onStartup: 10
beforeAll: 5
schedule:
- crontab: "*/5 * * * *"
kubernetes:
- apiVersion: v1
  kind: Pod
`,
    { hookPath: HOOK, kind: 'global' },
  );
  assert.equal(cfg.version, 'v1');
  assert.equal(cfg.kind, 'global');
  assert.equal(cfg.hookPath, HOOK);
  assert.equal(cfg.onStartup, 10);
  assert.equal(lifecycleOrder(cfg, 'beforeAll'), 5);
  assert.equal(lifecycleOrder(cfg, 'afterAll'), undefined);
  assert.equal(lifecycleOrder(cfg, 'beforeHelm'), undefined);
  assert.deepEqual(cfg.schedule, [
    { type: 'schedule', name: 'schedule', crontab: '*/5 * * * *', allowFailure: false, queue: 'main', includeSnapshotsFrom: [] },
  ]);
  assert.deepEqual(cfg.kubernetes, [
    {
      type: 'kubernetes',
      name: 'kubernetes',
      apiVersion: 'v1',
      kind: 'Pod',
      executeHookOnEvent: ['Added', 'Modified', 'Deleted'],
      executeHookOnSynchronization: true,
      waitForSynchronization: true,
      keepFullObjectsInMemory: true,
      allowFailure: false,
      queue: 'main',
      includeSnapshotsFrom: [],
    },
  ]);
  assert.equal(cfg.settings, undefined);
});

void test('JSON config and an already-parsed object give the same result', () => {
  const obj = { configVersion: 'v1', afterHelm: 20, kubernetes: [{ name: 'pods', kind: 'Pod', jqFilter: '.metadata.name' }] };
  const a = parse(JSON.stringify(obj), 'module');
  const b = parse(obj, 'module');
  assert.equal(a.kind, 'module');
  assert.equal(lifecycleOrder(a, 'afterHelm'), 20);
  assert.equal(kube(a).jqFilter, '.metadata.name');
  assert.equal(kube(a).jqProgram?.filterResult({ metadata: { name: 'p1' } }), 'p1');
  assert.deepEqual({ ...a, kubernetes: a.kubernetes.map(({ jqProgram: _p, ...rest }) => rest) }, { ...b, kubernetes: b.kubernetes.map(({ jqProgram: _p, ...rest }) => rest) });
});

void test('module hooks accept beforeHelm, afterHelm, beforeDeleteHelm and afterDeleteHelm', () => {
  const cfg = parse({ configVersion: 'v1', beforeHelm: 1, afterHelm: 2, beforeDeleteHelm: 3, afterDeleteHelm: 4 }, 'module');
  assert.equal(cfg.kind, 'module');
  if (cfg.kind !== 'module') return;
  assert.deepEqual([cfg.beforeHelm, cfg.afterHelm, cfg.beforeDeleteHelm, cfg.afterDeleteHelm], [1, 2, 3, 4]);
  assert.equal(lifecycleOrder(cfg, 'afterDeleteHelm'), 4);
  assert.equal(lifecycleOrder(cfg, 'beforeAll'), undefined);
});

void test('YAML is read as YAML 1.1 (yes/no/on/off are booleans, timestamps stay strings)', () => {
  const cfg = parse(`configVersion: v1
kubernetes:
- name: cms
  kind: ConfigMap
  executeHookOnSynchronization: no
  keepFullObjectsInMemory: off
  allowFailure: yes
  queue: 2001-12-14
`);
  const b = kube(cfg);
  assert.equal(b.executeHookOnSynchronization, false);
  assert.equal(b.keepFullObjectsInMemory, false);
  assert.equal(b.allowFailure, true);
  assert.equal(b.queue, '2001-12-14');
});

void test('kubernetes binding: every field is read and normalised', () => {
  const cfg = parse({
    configVersion: 'v1',
    kubernetes: [
      {
        name: 'pods',
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        nameSelector: { matchNames: ['a', 'b'] },
        labelSelector: { matchLabels: { app: 'x', 'example.com/tier': 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }, { key: 'canary', operator: 'DoesNotExist' }] },
        fieldSelector: { matchExpressions: [{ field: 'status.phase', operator: 'Equals', value: 'Running' }, { field: 'spec.nodeName', operator: 'NotEquals', value: 'n1' }] },
        namespace: { nameSelector: { matchNames: ['default'] }, labelSelector: { matchLabels: { team: 'a' } } },
        jqFilter: '.spec.replicas',
        watchEvent: ['Added'],
        executeHookOnEvent: ['Modified', 'Deleted'],
        executeHookOnSynchronization: false,
        waitForSynchronization: false,
        keepFullObjectsInMemory: false,
        allowFailure: true,
        queue: 'deployments',
        group: 'g',
        includeSnapshotsFrom: ['pods'],
        resynchronizationPeriod: '10m',
      },
    ],
  });
  const { jqProgram, ...b } = kube(cfg);
  assert.ok(jqProgram);
  assert.deepEqual(b, {
    type: 'kubernetes',
    name: 'pods',
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    nameSelector: { matchNames: ['a', 'b'] },
    labelSelector: { matchLabels: { app: 'x', 'example.com/tier': 'web' }, matchExpressions: [{ key: 'env', operator: 'In', values: ['prod'] }, { key: 'canary', operator: 'DoesNotExist' }] },
    fieldSelector: { matchExpressions: [{ field: 'status.phase', operator: '=', value: 'Running' }, { field: 'spec.nodeName', operator: '!=', value: 'n1' }] },
    namespace: { nameSelector: { matchNames: ['default'] }, labelSelector: { matchLabels: { team: 'a' } } },
    jqFilter: '.spec.replicas',
    executeHookOnEvent: ['Modified', 'Deleted'],
    executeHookOnSynchronization: false,
    waitForSynchronization: false,
    keepFullObjectsInMemory: false,
    allowFailure: true,
    queue: 'deployments',
    group: 'g',
    includeSnapshotsFrom: ['pods'],
    resynchronizationPeriod: '10m',
  });
});

void test('watchEvent is used when executeHookOnEvent is absent; [] means snapshot only', () => {
  const cfg = parse({ configVersion: 'v1', kubernetes: [{ kind: 'Pod', watchEvent: ['Deleted'] }, { kind: 'Pod', name: 'b', executeHookOnEvent: [] }] });
  assert.deepEqual(kube(cfg, 0).executeHookOnEvent, ['Deleted']);
  assert.deepEqual(kube(cfg, 1).executeHookOnEvent, []);
});

void test('waitForSynchronization: false is honoured only with an explicit queue', () => {
  const cfg = parse({ configVersion: 'v1', kubernetes: [{ name: 'a', kind: 'Pod', waitForSynchronization: false }, { name: 'b', kind: 'Pod', queue: 'main', waitForSynchronization: false }] });
  assert.equal(kube(cfg, 0).waitForSynchronization, true);
  assert.equal(kube(cfg, 1).waitForSynchronization, false);
});

void test('group is expanded into includeSnapshotsFrom (own names first, de-duplicated)', () => {
  const cfg = parse({
    configVersion: 'v1',
    schedule: [
      { name: 'every', crontab: '* * * * *', group: 'pods', includeSnapshotsFrom: ['nodes'] },
      { name: 'alone', crontab: '@hourly', group: 'only-schedules' },
    ],
    kubernetes: [
      { name: 'pods', kind: 'Pod', group: 'pods' },
      { name: 'nodes', kind: 'Node' },
      { name: 'pods2', kind: 'Pod', group: 'pods', includeSnapshotsFrom: ['pods'] },
    ],
  });
  assert.deepEqual(cfg.schedule[0]!.includeSnapshotsFrom, ['nodes', 'pods', 'pods2']);
  assert.deepEqual(cfg.schedule[1]!.includeSnapshotsFrom, []);
  assert.deepEqual(kube(cfg, 0).includeSnapshotsFrom, ['pods', 'pods2']);
  assert.deepEqual(kube(cfg, 1).includeSnapshotsFrom, []);
  assert.deepEqual(kube(cfg, 2).includeSnapshotsFrom, ['pods', 'pods2']);
  assert.deepEqual(kubernetesBindingNames(cfg), ['pods', 'nodes', 'pods2']);
});

void test('settings: executionMinInterval (alias executionMinPeriod) and executionBurst', () => {
  assert.deepEqual(parse({ configVersion: 'v1', onStartup: 1, settings: { executionMinInterval: '3s', executionBurst: 2 } }).settings, { executionMinIntervalMs: 3000, executionBurst: 2 });
  assert.deepEqual(parse({ configVersion: 'v1', onStartup: 1, settings: { executionMinPeriod: '1m' } }).settings, { executionMinIntervalMs: 60000, executionBurst: 1 });
  assert.deepEqual(parse({ configVersion: 'v1', onStartup: 1, settings: { executionBurst: 0 } }).settings, { executionMinIntervalMs: 0, executionBurst: 1 });
});

void test('webhook bindings are accepted and take part in groups', () => {
  const cfg = parse({
    configVersion: 'v1',
    kubernetes: [{ name: 'pods', kind: 'Pod', group: 'g' }],
    kubernetesValidating: [{ name: 'v.example.com', group: 'g', rules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'], operations: ['CREATE'] }] }],
  });
  assert.equal(cfg.webhooks.length, 1);
  assert.equal(cfg.webhooks[0]!.type, 'kubernetesValidating');
  assert.deepEqual(cfg.webhooks[0]!.includeSnapshotsFrom, ['pods']);
});

void test('v0 config (no configVersion) is converted', () => {
  const cfg = parse(
    {
      onStartup: 3,
      afterHelm: 7,
      schedule: [{ crontab: '0 * * * *', allowFailure: true }],
      onKubernetesEvent: [
        { kind: 'Pod', event: ['add', 'delete'], selector: { matchLabels: { app: 'x' } }, objectName: 'p1', namespaceSelector: { matchNames: ['ns1'] }, jqFilter: '.metadata' },
        { name: 'any-ns', kind: 'Secret', namespaceSelector: { any: true } },
      ],
    },
    'module',
  );
  assert.equal(cfg.version, 'v0');
  assert.equal(cfg.onStartup, 3);
  assert.equal(lifecycleOrder(cfg, 'afterHelm'), 7);
  assert.deepEqual(cfg.schedule, [{ type: 'schedule', name: 'schedule', crontab: '0 * * * *', allowFailure: true, queue: 'main', includeSnapshotsFrom: [] }]);
  const { jqProgram: _p, ...k0 } = kube(cfg, 0);
  assert.deepEqual(k0, {
    type: 'kubernetes',
    name: 'onKubernetesEvent',
    kind: 'Pod',
    nameSelector: { matchNames: ['p1'] },
    labelSelector: { matchLabels: { app: 'x' } },
    namespace: { nameSelector: { matchNames: ['ns1'] } },
    jqFilter: '.metadata',
    executeHookOnEvent: ['Added', 'Deleted'],
    executeHookOnSynchronization: false,
    waitForSynchronization: true,
    keepFullObjectsInMemory: true,
    allowFailure: false,
    queue: 'main',
    includeSnapshotsFrom: [],
  });
  assert.equal(kube(cfg, 1).name, 'any-ns');
  assert.equal(kube(cfg, 1).namespace, undefined);
  // like shell-operator: a v0 binding without `event` has an empty event list (never runs on events)
  assert.deepEqual(kube(cfg, 1).executeHookOnEvent, []);
});

void test('readConfigText: JSON first, then YAML; empty output is an error', () => {
  assert.deepEqual(readConfigText('{"onStartup": 1}', HOOK), { onStartup: 1 });
  assert.deepEqual(readConfigText('onStartup: 1\n', HOOK), { onStartup: 1 });
  assert.throws(() => readConfigText('  \n', HOOK), /hooks\/002-dir\/hook\.sh: the --config output is empty/);
});

// ---------------------------------------------------------------------------------------------------
// Bad-input corpus: every case must name the hook path and the key.

void test('bad input: output that is neither JSON nor YAML', () => {
  const err = problemsOf('configVersion: v1\nkubernetes: [\n  - kind: {\n');
  assert.ok(err instanceof UserError);
  assertProblem(err, '', /neither JSON nor YAML/);
  assert.match(err.message, /hook --config output:\nconfigVersion: v1/);
});

void test('bad input: a scalar or a list instead of a mapping', () => {
  assertProblem(problemsOf('just some text'), '', /must be an object .*got string "just some text"/);
  assertProblem(problemsOf('[1, 2]'), '', /must be an object .*got array/);
});

void test('bad input: unknown keys at every level', () => {
  const err = problemsOf({
    configVrsion: 'v1',
    onStartup: 1,
  });
  assertProblem(err, 'configVrsion', /unknown key/);
  const err2 = problemsOf({
    configVersion: 'v1',
    kubernetes: [{ kind: 'Pod', nmae: 'x', labelSelector: { matchLabels: { a: 'b' }, matchExpresions: [] }, namespace: { nameSelector: { matchNames: [], extra: 1 } } }],
    schedule: [{ crontab: '@hourly', queu: 'x' }],
    settings: { executionMinInterval: '1s', executionBurst: 1, foo: 1 },
  });
  assertProblem(err2, 'kubernetes[0].nmae', /unknown key \(allowed keys: name, apiVersion, kind/);
  assertProblem(err2, 'kubernetes[0].labelSelector.matchExpresions', /unknown key/);
  assertProblem(err2, 'kubernetes[0].namespace.nameSelector.extra', /unknown key/);
  assertProblem(err2, 'schedule[0].queu', /unknown key/);
  assertProblem(err2, 'settings.foo', /unknown key/);
  assert.equal(err2.problems.length, 5, err2.problems.join('\n'));
});

void test('bad input: wrong types', () => {
  const err = problemsOf(`configVersion: v1
onStartup: "10"
afterAll: 1.5
schedule: {crontab: "* * * * *"}
kubernetes:
- kind: Pod
  executeHookOnSynchronization: ok
  watchEvent: Added
  nameSelector:
    matchNames: [1]
  allowFailure: "true"
  queue: 5
`);
  assertProblem(err, 'onStartup', /must be an integer, got string "10"/);
  assertProblem(err, 'afterAll', /must be an integer, got number 1.5/);
  assertProblem(err, 'schedule', /must be an array, got object/);
  assertProblem(err, 'kubernetes[0].executeHookOnSynchronization', /must be a boolean/);
  assertProblem(err, 'kubernetes[0].watchEvent', /must be an array, got string "Added"/);
  assertProblem(err, 'kubernetes[0].nameSelector.matchNames[0]', /must be a string, got integer 1/);
  assertProblem(err, 'kubernetes[0].allowFailure', /must be a boolean/);
  assertProblem(err, 'kubernetes[0].queue', /must be a string, got integer 5/);
});

void test('bad input: configVersion values', () => {
  assertProblem(problemsOf({ configVersion: 'v2', onStartup: 1 }), 'configVersion', /'v2' is unsupported/);
  assertProblem(problemsOf({ configVersion: 'v0', onStartup: 1 }), 'configVersion', /'v0' is unsupported/);
  assertProblem(problemsOf({ configVersion: 1, onStartup: 1 }), 'configVersion', /string value is expected/);
  assertProblem(problemsOf({ configVersion: null, onStartup: 1 }), 'configVersion', /missing 'configVersion' value/);
  assertProblem(problemsOf({ configVersion: 'v1' }), '', /no bindings besides configVersion/);
  assertProblem(problemsOf({}), '', /no bindings/);
});

void test('bad input: kubernetes binding without kind, and an empty kind', () => {
  const err = problemsOf({ configVersion: 'v1', kubernetes: [{ kind: 'Pod' }, { name: 'x', apiVersion: 'v1' }, { name: 'y', kind: '' }] });
  assertProblem(err, 'kubernetes[1].kind', /is required/);
  assertProblem(err, 'kubernetes[2].kind', /non-empty/);
});

void test('bad input: bad crontab', () => {
  const err = problemsOf({ configVersion: 'v1', schedule: [{ crontab: '* * * *' }, { crontab: '61 * * * *' }, { name: 'no-crontab' }] });
  assertProblem(err, 'schedule[0].crontab', /crontab is invalid: Expected 5 or 6 fields, found 4/);
  assertProblem(err, 'schedule[1].crontab', /above maximum \(59\)/);
  assertProblem(err, 'schedule[2].crontab', /is required/);
});

void test('bad input: bad jqFilter', () => {
  const err = problemsOf({ configVersion: 'v1', kubernetes: [{ kind: 'Pod', jqFilter: '.metadata | nosuch' }, { name: 'b', kind: 'Pod', jqFilter: '.a |||' }] });
  assertProblem(err, 'kubernetes[0].jqFilter', /invalid jq filter '\.metadata \| nosuch': .*nosuch\/0 is not defined/);
  assertProblem(err, 'kubernetes[1].jqFilter', /syntax error/);
});

void test('bad input: module-only binding on a global hook and global-only binding on a module hook', () => {
  const g = problemsOf({ configVersion: 'v1', beforeHelm: 10 }, 'global');
  assertProblem(g, 'beforeHelm', /module hook binding and cannot be used in a global hook/);
  const m = problemsOf({ configVersion: 'v1', afterAll: 10, afterDeleteHelm: 1 }, 'module');
  assertProblem(m, 'afterAll', /global hook binding and cannot be used in a module hook/);
  const v0 = problemsOf({ beforeAll: 1 }, 'module');
  assertProblem(v0, 'beforeAll', /global hook binding/);
});

void test('bad input: v1 keys without configVersion and v0 keys with it', () => {
  assertProblem(problemsOf({ kubernetes: [{ kind: 'Pod' }] }), 'kubernetes', /needs 'configVersion: v1'/);
  assertProblem(problemsOf({ configVersion: 'v1', onKubernetesEvent: [{ kind: 'Pod' }] }), 'onKubernetesEvent', /legacy v0 binding/);
});

void test('bad input: label selectors', () => {
  const err = problemsOf({
    configVersion: 'v1',
    kubernetes: [
      {
        kind: 'Pod',
        labelSelector: {
          matchLabels: { 'bad key!': 'v', ok: 'bad value!' },
          matchExpressions: [
            { key: 'a', operator: 'Equals', values: ['x'] },
            { key: 'b', operator: 'In' },
            { key: 'c', operator: 'Exists', values: ['x'] },
            { operator: 'In', values: ['x'] },
            { key: 'd', operator: 'NotIn', values: [], operand: 1 },
          ],
        },
      },
      { name: 'empty', kind: 'Pod', labelSelector: {} },
      { name: 'ns', kind: 'Pod', namespace: { labelSelector: { matchExpressions: [{ key: 'x', operator: 'DoesNotExists' }] } } },
    ],
  });
  assertProblem(err, 'kubernetes[0].labelSelector.matchLabels.bad key!', /invalid label key/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchLabels.ok', /invalid label value/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchExpressions[0].operator', /must be one of In, NotIn, Exists, DoesNotExist/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchExpressions[1].values', /non-empty list for operator In/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchExpressions[2].values', /must be empty for operator Exists/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchExpressions[3].key', /is required/);
  assertProblem(err, 'kubernetes[0].labelSelector.matchExpressions[4].operand', /unknown key/);
  assertProblem(err, 'kubernetes[1].labelSelector', /must have matchLabels or matchExpressions/);
  assertProblem(err, 'kubernetes[2].namespace.labelSelector.matchExpressions[0].operator', /must be one of/);
});

void test('bad input: field selector, name selector and namespace', () => {
  const err = problemsOf({
    configVersion: 'v1',
    kubernetes: [
      { kind: 'Pod', fieldSelector: { matchExpressions: [{ field: 'metadata.name', operator: '~', value: 'x' }, { field: 'a', operator: '=' }] } },
      { name: 'b', kind: 'Pod', nameSelector: { matchNames: ['x'] }, fieldSelector: { matchExpressions: [{ field: 'metadata.name', operator: '=', value: 'y' }] } },
      { name: 'c', kind: 'Pod', fieldSelector: {}, nameSelector: {}, namespace: {} },
      { name: 'd', kind: 'Pod', apiVersion: 'a/b/c' },
    ],
  });
  assertProblem(err, 'kubernetes[0].fieldSelector.matchExpressions[0].operator', /must be one of =, ==, Equals, !=, NotEquals/);
  assertProblem(err, 'kubernetes[0].fieldSelector.matchExpressions[1].value', /is required/);
  assertProblem(err, 'kubernetes[1].fieldSelector', /mutually exclusive/);
  assertProblem(err, 'kubernetes[2].fieldSelector.matchExpressions', /is required/);
  assertProblem(err, 'kubernetes[2].nameSelector.matchNames', /is required/);
  assertProblem(err, 'kubernetes[2].namespace', /must have nameSelector or labelSelector/);
  assertProblem(err, 'kubernetes[3].apiVersion', /apiVersion is invalid/);
});

void test('bad input: includeSnapshotsFrom names, events, queue, settings', () => {
  const err = problemsOf({
    configVersion: 'v1',
    schedule: [{ crontab: '@daily', includeSnapshotsFrom: ['nope'] }, { crontab: '@daily', name: 's2', includeSnapshotsFrom: [] }],
    kubernetes: [
      { name: 'dup', kind: 'Pod', executeHookOnEvent: ['Added', 'Updated'] },
      { name: 'dup', kind: 'Pod', queue: '' },
      { name: 'x', kind: 'Pod', includeSnapshotsFrom: ['dup'] },
    ],
    settings: { executionMinInterval: '5 seconds', executionBurst: -1 },
  });
  assertProblem(err, 'schedule[0].includeSnapshotsFrom[0]', /'nope' binding name not found/);
  assertProblem(err, 'schedule[1].includeSnapshotsFrom', /at least 1 item/);
  assertProblem(err, 'kubernetes[0].executeHookOnEvent[1]', /must be one of Added, Modified, Deleted, got string "Updated"/);
  assertProblem(err, 'kubernetes[1].queue', /non-empty/);
  assertProblem(err, 'kubernetes[2].includeSnapshotsFrom[0]', /there are 2 'dup' kubernetes binding names/);
  assertProblem(err, 'settings.executionMinInterval', /invalid duration/);
  assertProblem(err, 'settings.executionBurst', /must not be negative/);
});

void test('bad input: v0 items', () => {
  const err = problemsOf({ schedule: [{ crontab: 'bad' }], onKubernetesEvent: [{ kind: 'Pod', event: ['create'] }, { event: ['add'] }] });
  assertProblem(err, 'schedule[0].crontab', /crontab is invalid/);
  assertProblem(err, 'onKubernetesEvent[0].event[0]', /event 'create' is unsupported/);
  assertProblem(err, 'onKubernetesEvent[1].kind', /is required/);
});

void test('every problem of a config is reported at once', () => {
  const err = problemsOf({ configVersion: 'v1', onStartup: 'x', beforeHelm: 1, kubernetes: [{ name: 'a' }], schedule: [{ crontab: 'x' }] });
  assert.equal(err.problems.length, 4, err.problems.join('\n'));
  assert.match(err.message, /^invalid config of hook 'hooks\/002-dir\/hook\.sh':\n {2}- /);
  assert.equal(err.hookPath, HOOK);
  assert.deepEqual(
    err.details.map((d) => d.key),
    ['beforeHelm', 'onStartup', 'kubernetes[0].kind', 'schedule[0].crontab'],
  );
});

void test('the HOOKS.md synchronization example gives the documented defaults', () => {
  const cfg = parse(
    `configVersion: v1
beforeHelm: 10
kubernetes:
- name: monitor-pods
  apiVersion: v1
  kind: Pod
  jqFilter: ".metadata.labels"
- name: monitor-nodes
  apiVersion: v1
  kind: Node
  jqFilter: ".metadata.labels"
  queue: nodes-handling
  executeHookOnSynchronization: false
- name: monitor-cms
  apiVersion: v1
  kind: ConfigMap
  jqFilter: ".metadata.labels"
  queue: config-map-handling
  waitForSynchronization: false
- name: monitor-secrets
  apiVersion: v1
  kind: Secret
  jqFilter: ".metadata.labels"
  queue: secrets-handling
  executeHookOnSynchronization: false
  waitForSynchronization: false
`,
    'module',
  );
  assert.deepEqual(
    cfg.kubernetes.map((k) => [k.name, k.queue, k.executeHookOnSynchronization, k.waitForSynchronization]),
    [
      ['monitor-pods', 'main', true, true],
      ['monitor-nodes', 'nodes-handling', false, true],
      ['monitor-cms', 'config-map-handling', true, false],
      ['monitor-secrets', 'secrets-handling', false, false],
    ],
  );
  assert.equal(lifecycleOrder(cfg, 'beforeHelm'), 10);
});
