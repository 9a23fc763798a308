/**
 * HA mode (issue 13): operators as processes on one sandbox, each with its own global hook that
 * writes what it did to a shared file. Timings are shortened by the ADDON_OPERATOR_HA_* variables.
 * Two operators listen on the same port on two loopback addresses, as two pods on their pod IPs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { closeConnections } from '../../src/kube/connections.js';
import { requestJson } from '../../src/kube/http.js';
import { haSettings } from '../../src/cli/start-ha.js';
import { LeaderElector, haIdentity, leaderHost } from '../../src/kube/leader-election.js';
import { MAIN, bashHook, logRecords, waitFor } from '../helpers/operator-process.js';
import { writeTree } from '../helpers/tree.js';

const LEASE = { duration: 4000, renew: 3000, retry: 1000 };
const HA_ENV = {
  ADDON_OPERATOR_HA: 'true',
  ADDON_OPERATOR_NAMESPACE: 'addons',
  ADDON_OPERATOR_HA_LEASE_DURATION: `${LEASE.duration}ms`,
  ADDON_OPERATOR_HA_RENEW_DEADLINE: `${LEASE.renew}ms`,
  ADDON_OPERATOR_HA_RETRY_PERIOD: `${LEASE.retry}ms`,
};

interface Op {
  name: string;
  ip: string;
  output(): string;
  exited: Promise<number | null>;
  exitedAt(): number | undefined;
  kill(signal: NodeJS.Signals): void;
  logged(msg: string): boolean;
}

/** A free port on both loopback addresses. */
async function freePort(hosts: string[]): Promise<number> {
  for (;;) {
    const port = await new Promise<number>((resolve, reject) => {
      const s = createServer().listen(0, hosts[0], () => {
        const p = (s.address() as { port: number }).port;
        s.close(() => resolve(p));
      });
      s.on('error', reject);
    });
    const free = await Promise.all(
      hosts.slice(1).map(
        (h) =>
          new Promise<boolean>((resolve) => {
            const s = createServer().listen(port, h, () => s.close(() => resolve(true)));
            s.on('error', () => resolve(false));
          }),
      ),
    );
    if (free.every(Boolean)) return port;
  }
}

async function cluster(t: { after: (fn: () => unknown) => void }) {
  const sandbox = await startSandbox();
  t.after(() => sandbox.stop());
  const kc = new KubeConfig();
  kc.loadFromFile(sandbox.kubeconfigPath);
  t.after(() => closeConnections(kc));
  await requestJson(kc, 'POST', '/api/v1/namespaces', {}, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'addons' } });
  const dir = mkdtempSync(join(tmpdir(), 'ha-test-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return { sandbox, kc, dir, trace: join(dir, 'trace') };
}

/**
 * An operator process named `name` on `ip`:`port` whose global hook runs `body` on startup and every
 * second; `files` (relative to its root: `modules/...`) are written first.
 */
function operator(t: { after: (fn: () => unknown) => void }, sandbox: Sandbox, dir: string, name: string, ip: string, port: number, body: string, files: Record<string, string> = {}, options: { hook?: object; args?: string[]; moduleTrace?: string } = {}): Op {
  const root = join(dir, name);
  mkdirSync(join(root, 'global-hooks', 'hooks'), { recursive: true });
  mkdirSync(join(root, 'modules'), { recursive: true });
  writeTree(root, files);
  const hook = join(root, 'global-hooks', 'hooks', 'work');
  writeFileSync(hook, bashHook(options.hook ?? { configVersion: 'v1', onStartup: 1, schedule: [{ name: 'tick', crontab: '*/1 * * * * *' }] }, body));
  chmodSync(hook, 0o755);
  const trace = options.moduleTrace ? ['--import', join(import.meta.dirname, '../helpers/module-trace.mjs')] : [];
  const args = ['--import', 'tsx', ...trace, MAIN, 'start', ...(options.args ?? []), '--kube-config', sandbox.kubeconfigPath, '--modules-dir', join(root, 'modules'), '--global-hooks-dir', join(root, 'global-hooks'), '--tmp-dir', join(root, 'tmp'), '--log-type', 'json', '--listen-port', String(port), '--debug-unix-socket', join(root, 'debug.socket')];
  const env = { ...process.env, ...HA_ENV, ADDON_OPERATOR_POD: name, ADDON_OPERATOR_LISTEN_ADDRESS: ip, ...(options.moduleTrace ? { MODULE_TRACE: options.moduleTrace } : {}) };
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
  let out = '';
  let exitedAt: number | undefined;
  child.stdout.on('data', (c: Buffer) => (out += c));
  child.stderr.on('data', (c: Buffer) => (out += c));
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitedAt = Date.now();
      resolve(code);
    }),
  );
  t.after(() => {
    if (exitedAt === undefined) child.kill('SIGKILL');
  });
  return {
    name,
    ip,
    output: () => out,
    exited,
    exitedAt: () => exitedAt,
    kill: (signal) => child.kill(signal),
    logged: (msg) => logRecords(out).some((r) => r.msg === msg),
  };
}

const ACQUIRED = 'leader election: acquired the lease, leading';

function lease(sandbox: Sandbox): { holderIdentity?: string; acquireTime?: string; renewTime?: string; leaseTransitions?: number } | undefined {
  return sandbox.getObject('coordination.k8s.io/v1', 'Lease', 'addons', 'addon-operator-leader-election')?.spec;
}

/** The trace lines `<operator> <event> <epoch ms>` the hooks wrote. */
function traceLines(trace: string): Array<{ op: string; event: string }> {
  if (!existsSync(trace)) return [];
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => {
      const [op, event] = l.split(' ');
      return { op: op!, event: event! };
    });
}

test('HA settings: each missing variable is named, the timings are checked, the identity is the Go one', () => {
  const env = { ADDON_OPERATOR_HA: 'true', ADDON_OPERATOR_POD: 'ao-1', ADDON_OPERATOR_LISTEN_ADDRESS: '10.0.0.7', ADDON_OPERATOR_NAMESPACE: 'd8' };
  assert.equal(haSettings({}, false), undefined);
  assert.deepEqual(haSettings(env, false), { identity: 'ao-1.10-0-0-7.d8.pod', namespace: 'd8', leaseDurationMs: 35_000, renewDeadlineMs: 30_000, retryPeriodMs: 10_000 });
  for (const name of ['ADDON_OPERATOR_POD', 'ADDON_OPERATOR_LISTEN_ADDRESS', 'ADDON_OPERATOR_NAMESPACE']) {
    assert.throws(() => haSettings({ ...env, [name]: '' }, false), { name: 'UserError', message: new RegExp(`^ADDON_OPERATOR_HA=true needs ${name} \\(`) });
  }
  assert.throws(() => haSettings(env, true), /not --sandbox/);
  assert.throws(() => haSettings({ ...env, ADDON_OPERATOR_HA_RENEW_DEADLINE: '40s' }, false), /RETRY_PERIOD < .*RENEW_DEADLINE < .*LEASE_DURATION/);
  assert.equal(haIdentity('p', '10.1.2.3', 'ns'), 'p.10-1-2-3.ns.pod');
  assert.equal(leaderHost('p.10-1-2-3.ns.pod'), '10.1.2.3');
  assert.equal(leaderHost('p.fd00::1.ns.pod'), '[fd00::1]');
  assert.equal(leaderHost('some-host'), 'some-host');
});

test('a missing HA variable stops start with exit code 1 and says which', async () => {
  const child = spawn(process.execPath, ['--import', 'tsx', MAIN, 'start', '--namespace', 'addons', '--global-hooks-dir', tmpdir()], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, ADDON_OPERATOR_HA: 'true', ADDON_OPERATOR_POD: 'ao-1', ADDON_OPERATOR_LISTEN_ADDRESS: '', ADDON_OPERATOR_NAMESPACE: 'addons' },
  });
  let err = '';
  child.stderr.on('data', (c: Buffer) => (err += c));
  const code = await new Promise((resolve) => child.on('exit', resolve));
  assert.equal(code, 1);
  assert.match(err, /ADDON_OPERATOR_HA=true needs ADDON_OPERATOR_LISTEN_ADDRESS \(the pod IP \(fieldRef status\.podIP\)\); it is not set/);
  assert.doesNotMatch(err, /\n\s+at /, 'no stack trace');
});

test('two candidates racing for the lease: exactly one wins each round, and a released lease is taken at once', async (t) => {
  const { kc } = await cluster(t);
  const make = (id: string) => new LeaderElector({ kc, namespace: 'addons', name: 'race', identity: id, leaseDurationMs: 3000, renewDeadlineMs: 2000, retryPeriodMs: 200 });
  const a = make('a');
  const b = make('b');
  t.after(() => {
    a.stop();
    b.stop();
  });
  const first = await Promise.race([a.acquire().then(() => a), b.acquire().then(() => b)]);
  const second = first === a ? b : a;
  assert.equal(first.isLeader(), true);
  assert.equal(second.isLeader(), false);
  first.keepLeading(() => assert.fail('the leader lost its lease'));
  // the standby keeps trying and never wins while the leader renews (several lease durations' worth of retries)
  await new Promise((r) => setTimeout(r, 1500));
  assert.equal(second.isLeader(), false);
  assert.equal(second.leader(), first.leader());
  await first.release();
  await waitFor(() => second.isLeader(), 'the standby takes the released lease', 30_000);
  const spec = (await requestJson<{ spec: { holderIdentity: string; leaseTransitions: number } }>(kc, 'GET', '/apis/coordination.k8s.io/v1/namespaces/addons/leases/race')).spec;
  assert.equal(spec.holderIdentity, second.leader());
  assert.equal(spec.leaseTransitions, 1);
});

test('two operators: never two leaders, the standby answers /readyz from the leader, takes over within lease + retry after a SIGKILL, SIGTERM releases', { timeout: 240_000 }, async (t) => {
  const { sandbox, dir, trace } = await cluster(t);
  const port = await freePort(['127.0.0.2', '127.0.0.3']);
  const body = (name: string) => `echo "${name} ran $(date +%s%3N)" >> ${trace}`;
  const a = operator(t, sandbox, dir, 'op-a', '127.0.0.2', port, body('op-a'));
  await waitFor(() => a.logged(ACQUIRED), 'op-a leads');
  const b = operator(t, sandbox, dir, 'op-b', '127.0.0.3', port, body('op-b'));
  await waitFor(() => b.logged('HA mode: waiting for the leader lease'), 'op-b stands by');

  // checked all along: the lease's holder changes only as the test makes it, and a standby never logs leading
  let holders: string[] = [];
  const watcher = setInterval(() => {
    const h = lease(sandbox)?.holderIdentity ?? '';
    if (holders[holders.length - 1] !== h) holders.push(h);
  }, 20);
  t.after(() => clearInterval(watcher));

  await waitFor(async () => (await fetch(`http://127.0.0.2:${port}/readyz`)).status === 200, 'op-a converged');
  // the standby asks the leader within 3 s: a loaded machine may miss that once, so ask until it answers
  let standby = '';
  await waitFor(async () => {
    const r = await fetch(`http://127.0.0.3:${port}/readyz`);
    standby = `${r.status} ${await r.text()}`;
    return r.status === 200;
  }, "the standby's /readyz to answer 200");
  assert.equal(standby, '200 HA mode is enabled and waiting for acquiring the lock.\n');
  await waitFor(() => traceLines(trace).filter((l) => l.op === 'op-a').length >= 3, 'op-a runs its hook').catch((e) => {
    console.log(a.output());
    throw e;
  });
  assert.equal(b.logged(ACQUIRED), false);
  assert.ok(!traceLines(trace).some((l) => l.op === 'op-b'), 'the standby ran no hook');
  assert.equal(b.logged('operator starting'), false, 'the standby loaded nothing');

  const killedAt = Date.now();
  a.kill('SIGKILL');
  await a.exited;
  await waitFor(() => b.logged(ACQUIRED), 'op-b takes over');
  const took = Date.parse(lease(sandbox)!.acquireTime!) - killedAt;
  // bounded by lease + retry (+ 2 s for a loaded machine's timers and requests)
  t.diagnostic(`op-b took over ${took} ms after op-a was killed (lease ${LEASE.duration} ms, retry ${LEASE.retry} ms)`);
  assert.ok(took <= LEASE.duration + LEASE.retry + 2000, `op-b took over ${took} ms after op-a was killed`);
  await waitFor(() => traceLines(trace).some((l) => l.op === 'op-b'), 'op-b runs its hook');
  assert.deepEqual(holders, ['op-a.127-0-0-2.addons.pod', 'op-b.127-0-0-3.addons.pod']);
  // no op-a line after the first op-b line
  const lines = traceLines(trace);
  const firstB = lines.findIndex((l) => l.op === 'op-b');
  assert.ok(lines.slice(firstB).every((l) => l.op === 'op-b'), 'op-a ran nothing after op-b led');

  b.kill('SIGTERM');
  assert.equal(await b.exited, 0);
  assert.ok(b.logged('leader election: released the lease'));
  assert.equal(lease(sandbox)?.holderIdentity, '', 'SIGTERM released the lease: a standby takes it at its next try');
  clearInterval(watcher);
  holders = [];
});

test("leader election: the leader collects garbage when idle; a standby has none of the operator's modules loaded until it leads, then collects too", { timeout: 240_000 }, async (t) => {
  const { sandbox, dir } = await cluster(t);
  const port = await freePort(['127.0.0.2', '127.0.0.3']);
  // a hook on startup only: after the first converge every queue is empty
  const opts = (name: string) => ({ hook: { configVersion: 'v1', onStartup: 1 }, args: ['--log-level', 'debug'], moduleTrace: join(dir, `${name}.modules`) });
  const IDLE_GC = 'idle: garbage collected';
  const loaded = (name: string) => (existsSync(join(dir, `${name}.modules`)) ? readFileSync(join(dir, `${name}.modules`), 'utf8').split('\n') : []);
  const operatorModule = (name: string) => loaded(name).some((url) => url.endsWith('/src/operator/operator.ts'));
  const a = operator(t, sandbox, dir, 'op-a', '127.0.0.2', port, 'true', {}, opts('op-a'));
  await waitFor(() => a.logged(ACQUIRED), 'op-a leads');
  const b = operator(t, sandbox, dir, 'op-b', '127.0.0.3', port, 'true', {}, opts('op-b'));
  await waitFor(() => b.logged('HA mode: waiting for the leader lease'), 'op-b stands by');

  // the leader, started through the election, runs the idle collection as a plain start does
  await waitFor(() => a.logged(IDLE_GC), "op-a's idle collection").catch((e) => {
    console.log(a.output());
    throw e;
  });
  assert.ok(operatorModule('op-a'), 'the trace sees the modules a leader loads');
  // the standby loaded the election, the HTTP server and the metrics, and nothing of the operator
  assert.ok(loaded('op-b').some((url) => url.endsWith('/src/cli/start-ha.ts')), 'the trace covers the standby');
  assert.deepEqual(
    loaded('op-b').filter((url) => /\/src\/(operator\/operator|modules\/manager|helm\/releases|cli\/start-operator|sandbox\/index)\.ts$/.test(url)),
    [],
    'a standby holds none of the operator',
  );

  // op-a stops (releasing the lease): op-b leads, loads the operator, and collects when idle too
  a.kill('SIGTERM');
  assert.equal(await a.exited, 0, a.output());
  await waitFor(() => b.logged(ACQUIRED), 'op-b takes over');
  await waitFor(() => b.logged(IDLE_GC), "op-b's idle collection").catch((e) => {
    console.log(b.output());
    throw e;
  });
  assert.ok(operatorModule('op-b'));
  b.kill('SIGTERM');
  assert.equal(await b.exited, 0, b.output());
});

test('a leader whose renewals fail kills its running hooks and exits before the lease runs out', { timeout: 180_000 }, async (t) => {
  const { sandbox, dir, trace } = await cluster(t);
  const port = await freePort(['127.0.0.2']);
  const pids = join(dir, 'pids');
  // the hook starts a child in its process group and waits: only a kill of the group ends both
  const body = `sleep 1000 & echo "$$ $!" >> ${pids}; echo "op-a started $(date +%s%3N)" >> ${trace}; wait`;
  const a = operator(t, sandbox, dir, 'op-a', '127.0.0.2', port, body);
  await waitFor(() => existsSync(pids) && readFileSync(pids, 'utf8').trim() !== '', 'the hook runs');
  const [hookPid, childPid] = readFileSync(pids, 'utf8').trim().split('\n')[0]!.split(' ').map(Number);
  assert.ok(alive(hookPid!) && alive(childPid!));

  // from now on every request fails: renewals too
  sandbox.failNext(1_000_000, 503);
  t.after(() => sandbox.failNext(0));
  assert.equal(await a.exited, 1);
  const lastRenew = Date.parse(lease(sandbox)!.renewTime!);
  const stoppedAfter = a.exitedAt()! - lastRenew;
  t.diagnostic(`op-a exited ${stoppedAfter} ms after its last renewal (renew deadline ${LEASE.renew} ms, lease ${LEASE.duration} ms)`);
  assert.ok(stoppedAfter < LEASE.duration, `exited ${stoppedAfter} ms after its last renewal, before the ${LEASE.duration} ms lease ran out`);
  // the kill goes through the spawner process, which a loaded machine may run a moment after the exit
  await waitFor(() => !alive(hookPid!), 'the hook to be killed', 5_000);
  await waitFor(() => !alive(childPid!), "the hook's child to be killed with its group", 5_000);
  const recs = logRecords(a.output());
  assert.ok(recs.some((r) => r.msg === 'HA mode: lost the leader lease: killing running hooks and exiting'));
  assert.equal(lease(sandbox)?.holderIdentity, 'op-a.127-0-0-2.addons.pod', 'the lease was left to expire (nothing written after the loss)');
});

/** A module whose release has a post-install/post-upgrade Job hook: its Helm operation lasts until the test completes the Job. */
function hookedModule(greeting: string): Record<string, string> {
  return {
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/templates/cm.yaml': `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: ${greeting}\n`,
    'modules/001-echo/templates/wait.yaml':
      'apiVersion: batch/v1\nkind: Job\nmetadata:\n  name: echo-wait\n  annotations:\n    "helm.sh/hook": post-install,post-upgrade\n' +
      'spec:\n  template:\n    spec:\n      restartPolicy: Never\n      containers:\n      - name: run\n        image: busybox\n',
  };
}

test('stopping during a Helm operation: one SIGTERM lets it finish (release deployed, lease released, exit 0); a second signal exits at once (143) as the Go operator does, and the next leader upgrades the pending release', { timeout: 240_000 }, async (t) => {
  const { sandbox, kc, dir } = await cluster(t);
  const port = await freePort(['127.0.0.2']);
  const job = () => sandbox.getObject('batch/v1', 'Job', 'addons', 'echo-wait');
  const status = (v: number) => sandbox.getObject('v1', 'Secret', 'addons', `sh.helm.release.v1.echo.v${v}`)?.metadata.labels.status as string | undefined;
  const complete = () =>
    requestJson(kc, 'PATCH', '/apis/batch/v1/namespaces/addons/jobs/echo-wait/status', {}, JSON.stringify({ status: { conditions: [{ type: 'Complete', status: 'True' }] } }), 'application/merge-patch+json');

  // one SIGTERM while the install waits for its post-install hook: the run finishes, then the lease goes
  const a = operator(t, sandbox, dir, 'op-a', '127.0.0.2', port, 'true', hookedModule('one'));
  await waitFor(() => job() !== undefined, 'the post-install hook Job');
  assert.equal(status(1), 'pending-install');
  a.kill('SIGTERM');
  await waitFor(() => a.logged('stopping: running tasks may finish, nothing new starts'), 'the stop to begin');
  await complete();
  assert.equal(await a.exited, 0, a.output());
  assert.equal(status(1), 'deployed', 'no pending release left');
  assert.equal(lease(sandbox)?.holderIdentity, '', 'the lease was released');

  // new values: the upgrade waits for its post-upgrade hook; two signals end the process at once
  const b = operator(t, sandbox, dir, 'op-b', '127.0.0.2', port, 'true', hookedModule('two'));
  await waitFor(() => status(2) === 'pending-upgrade' && job()?.status?.conditions === undefined, 'the upgrade waiting for its hook');
  b.kill('SIGTERM');
  await waitFor(() => b.logged('stopping: running tasks may finish, nothing new starts'), 'the stop to begin');
  b.kill('SIGTERM');
  assert.equal(await b.exited, 143, b.output());
  assert.ok(b.logged('forced shutdown by a second signal'), b.output());
  assert.equal(status(2), 'pending-upgrade', 'the forced exit left the upgrade as it was');
  assert.equal(lease(sandbox)?.holderIdentity, 'op-b.127-0-0-2.addons.pod', 'not released: it runs out (as the Go os.Exit leaves it)');

  // the next leader (after the lease ran out) drops the pending revision and upgrades again
  const leftJob = job()?.metadata.uid as string;
  const c = operator(t, sandbox, dir, 'op-c', '127.0.0.2', port, 'true', hookedModule('two'));
  await waitFor(() => c.logged(ACQUIRED), 'op-c leads', 60_000);
  await waitFor(() => status(2) === 'pending-upgrade' && job() !== undefined && job()?.metadata.uid !== leftJob, 'the upgrade run again with a new hook Job', 60_000);
  assert.ok(c.output().includes('revision 2 is pending-upgrade, removing its record'), c.output());
  await complete();
  await waitFor(() => status(2) === 'deployed', 'the release deployed', 60_000);
  assert.equal(status(1), 'superseded');
  assert.equal(status(3), undefined);
  assert.equal(sandbox.getObject('v1', 'ConfigMap', 'addons', 'echo')?.data.greeting, 'two');
  c.kill('SIGTERM');
  assert.equal(await c.exited, 0, c.output());
});

/** A process that exists and is not a zombie. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
