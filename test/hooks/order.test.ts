import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseHookConfigSync } from '../../src/hooks/config.js';
import { bindingOrder, hooksInOrder } from '../../src/hooks/order.js';


function hook(name: string, config: unknown, kind: 'global' | 'module' = 'module') {
  return { name, config: parseHookConfigSync(config, { hookPath: name, kind }) };
}

void test('hooksInOrder sorts by ORDER, then by name, and leaves out hooks without the binding', () => {
  const hooks = [
    hook('hooks/c.sh', { configVersion: 'v1', beforeHelm: 10, onStartup: 1 }),
    hook('hooks/b.sh', { configVersion: 'v1', beforeHelm: 10 }),
    hook('hooks/a.sh', { configVersion: 'v1', beforeHelm: 20, afterHelm: 1 }),
    hook('hooks/z.sh', { configVersion: 'v1', beforeHelm: -5 }),
    hook('hooks/B.sh', { configVersion: 'v1', beforeHelm: 10 }),
  ];
  assert.deepEqual(
    hooksInOrder(hooks, 'beforeHelm').map((h) => h.name),
    ['hooks/z.sh', 'hooks/B.sh', 'hooks/b.sh', 'hooks/c.sh', 'hooks/a.sh'],
  );
  assert.deepEqual(hooksInOrder(hooks, 'onStartup').map((h) => h.name), ['hooks/c.sh']);
  assert.deepEqual(hooksInOrder(hooks, 'afterDeleteHelm'), []);
  assert.equal(bindingOrder(hooks[2]!.config, 'afterHelm'), 1);
  assert.equal(bindingOrder(hooks[2]!.config, 'beforeAll'), undefined);
  const g = hook('g.sh', { configVersion: 'v1', afterAll: 3 }, 'global');
  assert.deepEqual(hooksInOrder([g], 'afterAll').map((h) => h.name), ['g.sh']);
});
