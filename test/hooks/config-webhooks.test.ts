/**
 * Webhook bindings and multi-document --config output, checked as shell-operator checks them
 * (pkg/hook/config config_test.go cases carried over, plus Kubernetes' ValidateValidatingWebhooks).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HookConfigError, parseHookConfigSync, readConfigText } from '../../src/hooks/config.js';
import type { HookConfig } from '../../src/hooks/config-types.js';

const HOOK = 'hooks/webhooks.sh';

function load(text: string): HookConfig {
  return parseHookConfigSync(readConfigText(text, HOOK), { hookPath: HOOK, kind: 'global' });
}

function problems(text: string): string {
  try {
    load(text);
  } catch (e) {
    assert.ok(e instanceof HookConfigError, `expected a HookConfigError, got ${String(e)}`);
    return e.message;
  }
  assert.fail('expected the config to be rejected');
}

const VALIDATING = `
configVersion: v1
kubernetes:
- name: pods
  kind: Pod
  group: main
kubernetesValidating:
- name: default.example.com
  rules:
  - apiVersions: [v1]
    apiGroups: [crd-domain.io]
    resources: [MyCustomResource]
    operations: ["*"]
- name: snapshots.example.com
  group: main
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: ["apps"]
    apiVersions: ["v1", "v1beta1"]
    resources: ["deployments", "replicasets"]
    scope: "Namespaced"
- name: full.example.com
  includeSnapshotsFrom: ["pods"]
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: ["apps"]
    apiVersions: ["v1", "v1beta1"]
    resources: ["deployments", "replicasets"]
    scope: "Namespaced"
  failurePolicy: Ignore
  sideEffects: NoneOnDryRun
  timeoutSeconds: 30
  matchConditions:
  - name: not-system
    expression: "!object.metadata.name.startsWith('system-')"
  namespace:
    labelSelector:
      matchLabels:
        foo: bar
  labelSelector:
    matchLabels:
      baz: bar
`;

test('shell-operator test "v1 kubernetesValidating": three webhooks load; a group adds its snapshots', () => {
  const cfg = load(VALIDATING);
  assert.deepEqual(cfg.webhooks.map((w) => w.name), ['default.example.com', 'snapshots.example.com', 'full.example.com']);
  assert.deepEqual(cfg.webhooks[1]!.includeSnapshotsFrom, ['pods']);
  assert.deepEqual(cfg.webhooks[2]!.includeSnapshotsFrom, ['pods']);
});

test('a validating webhook name is a domain of at least three segments, unique; timeoutSeconds is 1-30', () => {
  const one = (extra: string, name = 'snapshots.example.com') =>
    `configVersion: v1\nkubernetesValidating:\n- name: ${name}\n  rules:\n  - operations: ["*"]\n    apiGroups: [""]\n    apiVersions: ["v1"]\n    resources: ["pods"]\n${extra}`;
  assert.match(problems(one('', 'snapshots')), /kubernetesValidating\[0\]\.name: should be a domain with at least three segments separated by dots, got string "snapshots"/);
  assert.match(problems(one('', 'Snap.Example.com')), /kubernetesValidating\[0\]\.name: a lowercase RFC 1123 subdomain/);
  assert.match(problems(one('  timeoutSeconds: 32\n')), /kubernetesValidating\[0\]\.timeoutSeconds: the timeout value must be between 1 and 30 seconds, got 32/);
  assert.match(problems(one('  timeoutSeconds: 0\n')), /between 1 and 30 seconds, got 0/);
  assert.match(problems(one('  failurePolicy: Sometimes\n')), /kubernetesValidating\[0\]\.failurePolicy: must be one of Ignore, Fail/);
  assert.match(problems(one('  sideEffects: Some\n')), /kubernetesValidating\[0\]\.sideEffects: must be one of None, NoneOnDryRun/);
  assert.match(problems(one('  objectSelector: {}\n')), /kubernetesValidating\[0\]\.objectSelector: unknown key/);
  assert.match(problems(one('  namespace: {}\n')), /kubernetesValidating\[0\]\.namespace\.labelSelector: is required/);
  const twice = one('') + '- name: snapshots.example.com\n';
  assert.match(problems(twice), /kubernetesValidating\[1\]\.name: duplicate value/);
  // mutating webhooks: shell-operator checks their schema, not the name or the timeout
  load('configVersion: v1\nkubernetesMutating:\n- name: mutate\n  timeoutSeconds: 45\n  rules: [{apiGroups: [""], apiVersions: [v1], resources: [pods], operations: [CREATE]}]\n');
  // a webhook that names no rules would never be called: an error naming the hook and the binding
  assert.match(problems('configVersion: v1\nkubernetesMutating:\n- name: mutate\n'), /hooks\/webhooks\.sh: kubernetesMutating\[0\]\.rules: is required/);
  assert.match(problems('configVersion: v1\nkubernetesMutating:\n- name: m\n  failurePolicy: Never\n'), /kubernetesMutating\[0\]\.failurePolicy: must be one of Ignore, Fail/);
});

test('webhook rules need their four lists, known operations and scopes, and no "*" beside other entries', () => {
  const rules = (r: string) => `configVersion: v1\nkubernetesValidating:\n- name: a.example.com\n  rules:\n${r}`;
  const msg = problems(rules('  - operations: ["CREATE", "PATCH"]\n    apiGroups: ["*", "apps"]\n    scope: Everywhere\n'));
  assert.match(msg, /rules\[0\]\.apiVersions: is required/);
  assert.match(msg, /rules\[0\]\.resources: is required/);
  assert.match(msg, /rules\[0\]\.operations\[1\]: must be one of CREATE, UPDATE, DELETE, CONNECT, \*/);
  assert.match(msg, /rules\[0\]\.apiGroups: if '\*' is present, must not specify other API groups/);
  assert.match(msg, /rules\[0\]\.scope: must be one of Cluster, Namespaced, \*/);
  assert.match(problems('configVersion: v1\nkubernetesValidating:\n- name: a.example.com\n  rules: []\n'), /rules: must have at least 1 item/);
});

test('shell-operator tests "v1 kubernetesCustomResourceConversion": conversions need fromVersion and toVersion, and crdName', () => {
  const cfg = load(`
configVersion: v1
kubernetes:
- name: pods
  kind: Pod
kubernetesCustomResourceConversion:
- name: v1alpha1-to-v1beta1
  crdName: crontabs.stable.example.com
  conversions:
  - fromVersion: v1alpha1
    toVersion: v1beta1
- name: v1beta-to-v1
  crdName: crontabs.stable.example.com
  conversions:
  - {fromVersion: v1beta1, toVersion: v1beta2}
  - {fromVersion: v1beta2, toVersion: v1}
  includeSnapshotsFrom: ["pods"]
`);
  assert.deepEqual(cfg.webhooks.map((w) => w.name), ['v1alpha1-to-v1beta1', 'v1beta-to-v1']);
  assert.match(problems('configVersion: v1\nkubernetesCustomResourceConversion:\n- name: v1beta-to-v2\n'), /\[0\]\.crdName: is required[\s\S]*\[0\]\.conversions: is required/);
  assert.match(problems('configVersion: v1\nkubernetesCustomResourceConversion:\n- name: x\n  conversions:\n  - fromVersion: q\n    toVersion: q\n'), /kubernetesCustomResourceConversion\[0\]\.crdName: is required/);
  assert.match(
    problems('configVersion: v1\nkubernetesCustomResourceConversion:\n- name: x\n  crdName: a.b.c\n  conversions:\n  - fromVersion: v1\n  - {toVersion: v2, from: v1}\n'),
    /conversions\[0\]\.toVersion: is required[\s\S]*conversions\[1\]\.from: unknown key[\s\S]*conversions\[1\]\.fromVersion: is required/,
  );
});

test('--config output with several YAML documents: the first is read, as Go reads it; no library hint leaks', () => {
  const cfg = load('configVersion: v1\nonStartup: 5\n---\nconfigVersion: v1\nschedule: [{crontab: "* * * * *"}]\n---\n: not even yaml [\n');
  assert.equal(cfg.onStartup, 5);
  assert.deepEqual(cfg.schedule, []);
  // a repeated key: the later value, as sigs.k8s.io/yaml reads it
  assert.equal(load('configVersion: v1\nonStartup: 1\nonStartup: 2\n').onStartup, 2);
  const bad = problems('configVersion: v1\nkubernetes: [\n---\nonStartup: 1\n');
  assert.doesNotMatch(bad, /parseAllDocuments/);
  assert.match(bad, /the --config output is neither JSON nor YAML/);
});
