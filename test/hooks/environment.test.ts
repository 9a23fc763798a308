// What hooks, enabled scripts and `--config` runs inherit: the operator's environment as the Go
// originals pass it (os.Environ()), the contract's variables over it, kubectl pointed at the cluster.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { inheritedEnvironment, setInheritedEnvironment } from '../../src/hooks/environment.js';
import { runShellHook } from '../../src/hooks/executor.js';
import { loadHooks } from '../../src/hooks/hook.js';
import { enabledScriptRunner } from '../../src/modules/enabled-script.js';
import { resolveEnabled } from '../../src/modules/enabled.js';
import { loadModuleSet } from '../../src/modules/module-set.js';
import { startSandbox } from '../../src/sandbox/index.js';
import { findKubectl } from '../helpers/kubectl.js';

/** `KEY=VALUE` lines of `env -0` output as an object. */
const parseEnv = (text: string) => Object.fromEntries(text.split('\0').filter(Boolean).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

test('the inherited environment: the operator\'s own, less the launcher\'s malloc setting; KUBECONFIG from --kube-config; on the sandbox no outer cluster', () => {
  const own = {
    PATH: '/usr/bin',
    HOME: '/root',
    HTTPS_PROXY: 'http://proxy:3128',
    TZ: 'Europe/Berlin',
    KUBECONFIG: '/etc/outer.yaml',
    KUBERNETES_SERVICE_HOST: '10.96.0.1',
    KUBERNETES_SERVICE_PORT: '443',
    KUBERNETES_SERVICE_PORT_HTTPS: '443',
    KUBERNETES_PORT: 'tcp://10.96.0.1:443',
    KUBERNETES_PORT_443_TCP_ADDR: '10.96.0.1',
    MALLOC_MMAP_THRESHOLD_: '131072',
  };
  const { MALLOC_MMAP_THRESHOLD_: _launcher, ...inPod } = own;
  assert.deepEqual(inheritedEnvironment(own, { kind: 'inherited' }), inPod);
  assert.deepEqual(inheritedEnvironment(own, { kind: 'kubeconfig', path: 'conf/kc.yaml' }), { ...inPod, KUBECONFIG: join(process.cwd(), 'conf/kc.yaml') });
  assert.deepEqual(inheritedEnvironment(own, { kind: 'sandbox', kubeconfigPath: '/tmp/sb/kubeconfig' }), {
    PATH: '/usr/bin',
    HOME: '/root',
    HTTPS_PROXY: 'http://proxy:3128',
    TZ: 'Europe/Berlin',
    KUBECONFIG: '/tmp/sb/kubeconfig',
  });
});

test('a hook, its --config run and an enabled script see the operator\'s variables, the contract\'s names winning', async () => {
  const root = makeTree({
    // the --config run leaves its environment beside the hook
    'hooks/h.sh': `#!/usr/bin/env bash
if [ "$1" = "--config" ]; then env -0 > "$(dirname "$0")/config.env"; echo '{"configVersion":"v1","onStartup":1}'; exit 0; fi
env -0 > "$(dirname "$0")/run.env"
`,
    'modules/001-mod/enabled': `#!/usr/bin/env bash
env -0 > "$(dirname "$0")/enabled.env"
echo true > "$MODULE_ENABLED_RESULT"
`,
    'modules/001-mod/values.yaml': 'modEnabled: true\n',
  });
  setInheritedEnvironment({ ...inheritedEnvironment(process.env, { kind: 'inherited' }), AO_DEPLOYMENT_SETTING: 'from-the-pod', VALUES_PATH: '/inherited/must-lose', MODULE_ENABLED_RESULT: '/inherited/must-lose' });
  try {
    const [hook] = await loadHooks(join(root, 'hooks'), { kind: 'global', timeoutMs: 10_000 });
    const config = parseEnv(readFileSync(join(root, 'hooks/config.env'), 'utf8'));
    assert.equal(config.AO_DEPLOYMENT_SETTING, 'from-the-pod');
    assert.equal(config.PATH, process.env.PATH);

    await runShellHook({ path: hook!.path, name: 'hooks/h.sh', bindingContextJson: '[]', values: {}, configValues: {}, tmpDir: join(root, 'tmp'), timeoutMs: 10_000 });
    const run = parseEnv(readFileSync(join(root, 'hooks/run.env'), 'utf8'));
    assert.equal(run.AO_DEPLOYMENT_SETTING, 'from-the-pod');
    assert.equal(run.HOME, process.env.HOME);
    assert.match(run.VALUES_PATH!, new RegExp(`^${join(root, 'tmp')}/`), "the contract's VALUES_PATH wins over an inherited one");
    for (const name of ['BINDING_CONTEXT_PATH', 'CONFIG_VALUES_PATH', 'VALUES_JSON_PATCH_PATH', 'CONFIG_VALUES_JSON_PATCH_PATH', 'METRICS_PATH', 'KUBERNETES_PATCH_PATH']) assert.ok(run[name], name);
    assert.equal(run.MALLOC_MMAP_THRESHOLD_, undefined);

    const set = loadModuleSet({ modulesDirs: [join(root, 'modules')] });
    const runner = enabledScriptRunner({ store: set.store, tmpDir: join(root, 'tmp'), timeoutMs: 10_000 });
    const [decision] = await resolveEnabled(set, { configFlags: new Map() }, runner);
    assert.equal(decision!.enabled, true, "the answer is read from the contract's MODULE_ENABLED_RESULT");
    const enabled = parseEnv(readFileSync(join(root, 'modules/001-mod/enabled.env'), 'utf8'));
    assert.equal(enabled.AO_DEPLOYMENT_SETTING, 'from-the-pod');
    assert.notEqual(enabled.MODULE_ENABLED_RESULT, '/inherited/must-lose');
  } finally {
    setInheritedEnvironment(inheritedEnvironment(process.env, { kind: 'inherited' }));
  }
});

const KUBECTL = findKubectl();
const noKubectl = KUBECTL ? false : 'kubectl is not installed on this machine: the hook calling kubectl is not run';
if (noKubectl) console.log(`# NOTICE: ${noKubectl}`);

test('a bash hook calling kubectl on the sandbox creates an object', { skip: noKubectl }, async () => {
  const sb = await startSandbox();
  const root = makeTree({
    'hooks/make.sh': `#!/usr/bin/env bash
kubectl create configmap made-by-hook -n default --from-literal=by=kubectl
`,
  });
  // the operator's own environment points elsewhere: an outer cluster's in-cluster variables and a
  // kubeconfig that does not exist; on the sandbox neither may reach the hook
  const outer = { ...process.env, KUBECONFIG: join(root, 'no-such-kubeconfig'), KUBERNETES_SERVICE_HOST: '10.255.0.1', KUBERNETES_SERVICE_PORT: '443', HOME: root };
  setInheritedEnvironment(inheritedEnvironment(outer, { kind: 'sandbox', kubeconfigPath: sb.kubeconfigPath }));
  try {
    await runShellHook({ path: join(root, 'hooks/make.sh'), name: 'hooks/make.sh', bindingContextJson: '[]', values: {}, configValues: {}, tmpDir: join(root, 'tmp'), timeoutMs: 30_000 });
    // not execFileSync: the sandbox answers from this process
    const { stdout: out } = await promisify(execFile)(KUBECTL!, ['get', 'configmap', 'made-by-hook', '-n', 'default', '-o', 'jsonpath={.data.by}'], { env: { ...process.env, KUBECONFIG: sb.kubeconfigPath, HOME: root } });
    assert.equal(out, 'kubectl');
    assert.ok(existsSync(join(root, '.kube')), 'kubectl in the hook used the inherited HOME for its cache');
  } finally {
    setInheritedEnvironment(inheritedEnvironment(process.env, { kind: 'inherited' }));
    await sb.stop();
  }
});
