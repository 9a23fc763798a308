import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from 'pino';
import { createLogger, hookLineLogger } from '../../src/log/logger.js';
import { withTaskLabels } from '../../src/log/task-labels.js';

function capture(type: 'json' | 'text' | 'color', noTime = true) {
  const lines: string[] = [];
  const logger = createLogger({ type, noTime, write: (l) => lines.push(l) });
  return { logger, lines };
}

test('json logs carry string levels and the hook labels', () => {
  const { logger, lines } = capture('json');
  const log = hookLineLogger(logger, { module: 'echo-server', hook: 'hooks/a.sh', binding: 'beforeHelm', queue: 'main' });
  log('stdout', 'hello');
  log('stderr', 'oops');
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [
    { level: 'info', module: 'echo-server', hook: 'hooks/a.sh', binding: 'beforeHelm', queue: 'main', output: 'stdout', msg: 'hello' },
    { level: 'info', module: 'echo-server', hook: 'hooks/a.sh', binding: 'beforeHelm', queue: 'main', output: 'stderr', msg: 'oops' },
  ]);
});

test('a proxied JSON line keeps its fields and message; labels win', () => {
  const { logger, lines } = capture('json');
  hookLineLogger(logger, { hook: 'hooks/a.sh' })('stdout', '{"msg":"done","count":3,"hook":"spoofed"}', { msg: 'done', count: 3, hook: 'spoofed' });
  const rec = JSON.parse(lines[0]!);
  assert.equal(rec.msg, 'done');
  assert.equal(rec.count, 3);
  assert.equal(rec.hook, 'hooks/a.sh');
});

test('text and color types print one readable line per record', () => {
  const { logger, lines } = capture('text');
  hookLineLogger(logger, { module: 'm', hook: 'hooks/a b.sh' })('stdout', 'hello world');
  assert.equal(lines[0], 'INFO  hello world module=m hook="hooks/a b.sh" output=stdout\n');
  const c = capture('color');
  c.logger.error('bad');
  assert.equal(c.lines[0], '\x1b[31mERROR\x1b[0m bad\n');
  const t = capture('text', false);
  t.logger.info('x');
  assert.match(t.lines[0]!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z INFO {2}x\n$/);
});

test("a hook's line logger makes its child logger at the first line, with the task's labels of when it was made", () => {
  const { logger, lines } = capture('json');
  let made = 0;
  const counting = Object.create(logger) as Logger;
  counting.child = ((bindings: Record<string, unknown>) => {
    made++;
    return logger.child(bindings);
  }) as Logger['child'];
  const log = withTaskLabels({ queue: 'main', task: 'HookRun' }, () => hookLineLogger(counting, { hook: 'hooks/a.sh' }));
  assert.equal(made, 0, 'no child logger for a run that writes no line');
  log('stdout', 'one');
  log('stdout', 'two');
  assert.equal(made, 1);
  assert.deepEqual(lines.map((l) => JSON.parse(l)), [
    { level: 'info', queue: 'main', task: 'HookRun', hook: 'hooks/a.sh', output: 'stdout', msg: 'one' },
    { level: 'info', queue: 'main', task: 'HookRun', hook: 'hooks/a.sh', output: 'stdout', msg: 'two' },
  ]);
});
