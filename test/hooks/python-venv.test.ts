// A module's `.py` hooks run with the module's own Python (hooks/venv/bin/python3), as the Go operator
// runs them since its #571; PYTHONHOME only for a venv that is a whole Python, not a `python3 -m venv`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { loadHooks } from '../../src/hooks/hook.js';
import { lifecycleContext } from '../../src/hooks/binding-context.js';

// a .py hook that cannot run by itself: only the venv's interpreter can run it
const HOOK = `#!/bin/false
import json, os, sys
if sys.argv[1:] == ['--config']:
    print(json.dumps({'configVersion': 'v1', 'beforeHelm': 1}))
else:
    with open(os.environ['VALUES_JSON_PATCH_PATH'], 'w') as f:
        json.dump([{'op': 'add', 'path': '/mod/prefix', 'value': sys.prefix}], f)
`;

async function runBeforeHelm(root: string) {
  const [hook] = await loadHooks(join(root, 'mod/hooks'), { kind: 'module', module: 'mod', timeoutMs: 30_000 });
  return hook!.run({ contexts: [lifecycleContext(hook!.config, 'beforeHelm')], values: { mod: {} }, configValues: { mod: {} } }, { tmpDir: join(root, 'tmp'), timeoutMs: 30_000 });
}

const hasVenv = spawnSync('python3', ['-c', 'import venv'], { stdio: 'ignore' }).status === 0;
const noVenv = hasVenv ? false : "python3's venv module is not installed: the python3 -m venv case is not run";
if (noVenv) console.log(`# NOTICE: ${noVenv}`);

test('a .py module hook runs with the venv made by python3 -m venv, without PYTHONHOME (which would stop it)', { skip: noVenv }, async () => {
  const root = makeTree({ 'mod/hooks/check.py': HOOK });
  execFileSync('python3', ['-m', 'venv', '--without-pip', join(root, 'mod/hooks/venv')]);
  const out = await runBeforeHelm(root);
  assert.deepEqual(out.valuesPatch, [{ op: 'add', path: '/mod/prefix', value: join(root, 'mod/hooks/venv') }]);
});

test('a venv that is a whole Python (no pyvenv.cfg) gets PYTHONHOME, as in Go; hooks of other kinds and global hooks do not use it', async () => {
  const root = makeTree({
    'mod/hooks/venv/bin/python3': `#!/usr/bin/env bash
if [ "$2" = --config ]; then echo '{"configVersion":"v1","beforeHelm":1}'; exit 0; fi
echo "[{\\"op\\":\\"add\\",\\"path\\":\\"/mod/prefix\\",\\"value\\":\\"$1 with PYTHONHOME=$PYTHONHOME\\"}]" > "$VALUES_JSON_PATCH_PATH"
`,
    'mod/hooks/check.py': HOOK,
  });
  const out = await runBeforeHelm(root);
  assert.deepEqual(out.valuesPatch, [{ op: 'add', path: '/mod/prefix', value: `${join(root, 'mod/hooks/check.py')} with PYTHONHOME=${join(root, 'mod/hooks/venv')}` }]);
  const global = makeTree({ 'hooks/venv/bin/python3': '#!/bin/false\n', 'hooks/check.py': HOOK.replace('beforeHelm', 'beforeAll') });
  await assert.rejects(loadHooks(join(global, 'hooks'), { kind: 'global', timeoutMs: 10_000 }), /hooks\/check\.py: ".*check\.py --config" failed/, 'a global .py hook runs as itself (here: #!/bin/false)');
});
