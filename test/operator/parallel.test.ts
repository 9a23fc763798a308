/**
 * `--parallel-module-runs` (DESIGN decision 7): modules that share an order number run in parallel
 * queues, at most N at once; groups keep their order; a failing module is retried alone; one module's
 * hooks never run at the same time. Every hook appends `<label> start` and `<label> end` to the trace.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { scenario, settle, type Trace } from './helpers.js';

const chart = (dir: string) => ({ [`${dir}/Chart.yaml`]: 'name: x\nversion: 0.1.0\n', [`${dir}/templates/cm.yaml`]: 'kind: ConfigMap\n' });

/** A bash hook that traces its start and end around a short sleep; `body` runs in between. */
function slowHook(trace: Trace, label: string, config: object, body = ''): string {
  return `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
echo "${label} start" >> '${trace.path}'
sleep 0.15
${body}
echo "${label} end" >> '${trace.path}'
`;
}

function moduleFiles(t: Trace, dir: string, name: string, failOnceFlag?: string): Record<string, string> {
  const fail = failOnceFlag ? `if [[ ! -e '${failOnceFlag}' ]]; then touch '${failOnceFlag}'; echo "${name}/before end" >> '${t.path}'; exit 1; fi` : '';
  return {
    ...chart(dir),
    [`${dir}/hooks/startup`]: slowHook(t, `${name}/startup`, { configVersion: 'v1', onStartup: 1 }),
    [`${dir}/hooks/before`]: slowHook(t, `${name}/before`, { configVersion: 'v1', beforeHelm: 1 }, fail),
    [`${dir}/hooks/after`]: slowHook(t, `${name}/after`, { configVersion: 'v1', afterHelm: 1 }),
  };
}

/** Per line: which hooks are running after it. */
function running(lines: string[]): Array<Set<string>> {
  const open = new Set<string>();
  return lines.map((l) => {
    const [label, what] = l.split(' ');
    if (what === 'start') open.add(label!);
    else open.delete(label!);
    return new Set(open);
  });
}

test('modules of one order number run in parallel, at most N at once; groups keep their order; a failing module is retried alone', async (t) => {
  let flag = '';
  const s = await scenario({
    files: (tr) => {
      flag = join(tr.path, '..', 'b-failed-once');
      return {
        'modules/values.yaml': 'aEnabled: true\nbEnabled: true\ncEnabled: true\ndEnabled: true\neEnabled: true\n',
        ...moduleFiles(tr, 'modules/010-a', 'a'),
        ...moduleFiles(tr, 'modules/010-b', 'b', flag),
        ...moduleFiles(tr, 'modules/010-c', 'c'),
        ...moduleFiles(tr, 'modules/020-d', 'd'),
        ...moduleFiles(tr, 'modules/020-e', 'e'),
      };
    },
    operator: { parallelModuleRuns: 2 },
  });
  t.after(() => s.op.stop());
  const queuesSeen = new Set<string>();
  const dumps: string[] = [];
  s.op.queues.on('taskFinished', (e) => {
    if (e.task.metadata.kind !== 'ModuleRun') return;
    queuesSeen.add(`${e.task.metadata.module}@${e.queue}`);
    dumps.push(s.op.queues.dumpText());
  });
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  assert.ok(existsSync(flag), 'b failed once');

  const lines = s.trace.lines().filter((l) => !l.startsWith('helm'));
  const modOf = (label: string) => label.split('/')[0]!;
  const states = running(lines);
  // never more than 2 modules at once, and really 2 at some point in each group
  const modulesAt = states.map((set) => new Set([...set].map(modOf)));
  assert.ok(modulesAt.every((m) => m.size <= 2), 'at most 2 modules at once');
  assert.ok(modulesAt.some((m) => m.has('a') && m.has('b')) || modulesAt.some((m) => m.has('a') && m.has('c')), 'group 010 ran in parallel');
  assert.ok(modulesAt.some((m) => m.has('d') && m.has('e')), 'group 020 ran in parallel');
  // one module's hooks never overlap
  assert.ok(states.every((set) => [...set].map(modOf).length === new Set([...set].map(modOf)).size), 'one hook per module at a time');
  // the 020 group starts after every hook of the 010 group ended
  const firstOf020 = lines.findIndex((l) => /^[de]\//.test(l));
  const lastOf010 = lines.findLastIndex((l) => /^[abc]\//.test(l));
  assert.ok(lastOf010 < firstOf020, lines.join('\n'));
  // b failed in beforeHelm before it ever completed: it starts again from onStartup, alone
  const starts = (label: string) => lines.filter((l) => l === `${label} start`).length;
  assert.deepEqual(
    ['a', 'b', 'c', 'd', 'e'].map((m) => [m, starts(`${m}/startup`), starts(`${m}/before`), starts(`${m}/after`)]),
    [
      ['a', 1, 1, 1],
      ['b', 2, 2, 1],
      ['c', 1, 1, 1],
      ['d', 1, 1, 1],
      ['e', 1, 1, 1],
    ],
  );
  assert.deepEqual([...s.helm.releases.keys()].sort(), ['a', 'b', 'c', 'd', 'e']);
  // the runs went to parallel queues; queue list shows the group while it runs
  assert.ok([...queuesSeen].every((q) => /@parallel_queue_[01]$/.test(q)), [...queuesSeen].join(', '));
  assert.ok(dumps.some((d) => d.includes('Parallel run for a, b, c')), dumps[0]);
  assert.ok(dumps.some((d) => d.includes('Parallel run for d, e')), dumps.at(-1));
});

test('with the default (1) modules run one by one in main, in order', async (t) => {
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'aEnabled: true\nbEnabled: true\n',
      ...moduleFiles(tr, 'modules/010-a', 'a'),
      ...moduleFiles(tr, 'modules/010-b', 'b'),
    }),
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  const lines = s.trace.lines().filter((l) => !l.startsWith('helm'));
  assert.deepEqual(
    lines,
    ['a/startup', 'a/before', 'a/after', 'b/startup', 'b/before', 'b/after'].flatMap((h) => [`${h} start`, `${h} end`]),
  );
});

test('a module hook in a named queue waits for the same module hook running elsewhere', async (t) => {
  const s = await scenario({
    files: (tr) => ({
      'modules/values.yaml': 'aEnabled: true\n',
      ...chart('modules/010-a'),
      'modules/010-a/hooks/before': slowHook(tr, 'a/before', { configVersion: 'v1', beforeHelm: 1 }),
      'modules/010-a/hooks/side': slowHook(tr, 'a/side', { configVersion: 'v1', schedule: [{ name: 's', crontab: '0 0 1 1 *', queue: 'side' }] }),
    }),
  });
  t.after(() => s.op.stop());
  await s.op.start();
  await s.op.converge.whenFirstDone();
  await settle(s.op);
  // a schedule in the named queue and a module run in main at the same time
  s.op.schedules.fire('0 0 1 1 *');
  s.config.set({ a: JSON.stringify({ x: 1 }) });
  await new Promise((r) => setTimeout(r, 100));
  await settle(s.op);
  const lines = s.trace.lines().filter((l) => !l.startsWith('helm'));
  assert.ok(lines.filter((l) => l === 'a/side start').length === 1, lines.join('\n'));
  assert.ok(running(lines).every((set) => set.size <= 1), lines.join('\n'));
});
