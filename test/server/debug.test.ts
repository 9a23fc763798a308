/**
 * The debug socket of a running operator and the debug commands (DESIGN §3.1 and §3.4,
 * reference/addon-operator.md §3.2–§3.3): every route against golden output (times and ids masked),
 * the socket's mode, a log level change through the CLI and back after its time, and clear errors.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { makeTree } from '../helpers/tree.js';
import { MAIN, bashHook, logRecords, startOperator, waitFor } from '../helpers/operator-process.js';
import { debugRequest } from '../../src/cli/debug.js';

/** Runs a debug command of the CLI; resolves with its exit code, stdout and stderr. */
function cli(args: string[], socket: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', MAIN, ...args, '--debug-unix-socket', socket], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c));
    child.stderr.on('data', (c: Buffer) => (stderr += c));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const mask = (s: string) =>
  s
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/"uid":"[^"]+"/g, '"uid":"<uid>"')
    .replace(/"resourceVersion":"\d+"/g, '"resourceVersion":"<rv>"')
    // an idle queue says how long it has waited once that is a second or more (Go's duration: 7s, 1m7s)
    .replace(/,"status":"waiting for task (?:\d+h)?(?:\d+m)?\d+s"/g, '')
    .replace(/status: '?waiting for task (?:\d+h)?(?:\d+m)?\d+s'?\n/g, '');

function moduleSet() {
  return makeTree({
    'global-hooks/hooks/watch-cm': bashHook(
      { configVersion: 'v1', kubernetes: [{ name: 'cms', apiVersion: 'v1', kind: 'ConfigMap', namespace: { nameSelector: { matchNames: ['addons'] } }, jqFilter: '.metadata.name', keepFullObjectsInMemory: false }] },
      'echo \'[{"op":"add","path":"/global/seen","value":1}]\' > "$VALUES_JSON_PATCH_PATH"',
    ),
    'modules/values.yaml': 'echoEnabled: true\n',
    'modules/001-echo/Chart.yaml': 'apiVersion: v2\nname: echo\nversion: 0.1.0\n',
    'modules/001-echo/values.yaml': 'echo:\n  greeting: hello\n',
    'modules/001-echo/templates/cm.yaml': 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\ndata:\n  greeting: {{ .Values.echo.greeting | quote }}\n',
    'modules/001-echo/hooks/before': bashHook({ configVersion: 'v1', beforeHelm: 1 }, 'echo \'[{"op":"add","path":"/echo/port","value":80}]\' > "$VALUES_JSON_PATCH_PATH"'),
    'modules/002-spare/Chart.yaml': 'apiVersion: v2\nname: spare\nversion: 0.1.0\n',
  });
}

/** route → expected body (masked). */
const GOLDEN: Record<string, string> = {
  '/': 'debug endpoint is alive',
  '/queue/list.text': "Summary:\n- 'main' queue: empty.\n- no tasks to handle.\n",
  '/queue/list.json': '{"active":[],"summary":{"mainQueueTasks":0,"otherQueues":{"active":0,"empty":0,"tasks":0},"totalTasks":0}}\n',
  '/queue/main.json': '{"name":"main","tasksCount":0}\n',
  '/config/list.json': '[{"default":"info","description":"Global log level","name":"log.level","value":"info"}]\n',
  '/config/list.text':
    'NAME                           VALUE                EXPIRE AT            DESCRIPTION                             \n' +
    'log.level                      info                                      Global log level                        \n',
  '/global/list.json': '{"globalHooks":["hooks/watch-cm"]}\n',
  '/global/list.yaml': 'globalHooks:\n  - hooks/watch-cm\n',
  '/global/values.json': '{"seen":1}\n',
  '/global/config.yaml': '{}\n',
  '/global/patches.json': '[{"Operations":[{"op":"add","path":"/global/seen","value":1}]}]\n',
  '/global/snapshots.json':
    '{"hooks/watch-cm":{"cms":{"operations":{"sinceLastExecution":{"added":1,"cleaned":0,"count":1,"deleted":0,"modified":0},"sinceStart":{"added":1,"cleaned":0,"count":1,"deleted":0,"modified":0}},"snapshot":[{"filterResult":"echo"}]}}}\n',
  '/module/list.json':
    '{"enabledModules":["echo"],"modules":[{"critical":true,"enabled":true,"name":"echo","reason":"echoEnabled in <modules>/values.yaml","state":"Ready"},{"critical":true,"enabled":false,"name":"spare","reason":"no enabled flag is set (modules are disabled by default)","state":"Disabled"}]}\n',
  '/module/list.text':
    'MODULE  STATE     HEALTH                    REASON\n' +
    'echo    Ready     Ready: 1 object(s) ready  echoEnabled in <modules>/values.yaml\n' +
    'spare   Disabled  -                         no enabled flag is set (modules are disabled by default)\n',
  '/module/echo/values.json': '{"greeting":"hello","port":80}\n',
  '/module/echo/values.yaml?global=true': 'echo:\n  greeting: hello\n  port: 80\nglobal:\n  seen: 1\n',
  '/module/echo/config.json': '{}\n',
  '/module/echo/render': '# Source: echo/templates/cm.yaml\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: echo\n  labels:\n    heritage: addon-operator\ndata:\n  greeting: "hello"\n',
  '/module/echo/render?diff=true': 'No diff found',
  '/module/spare/render': '---\n# Source: off/templates/',
  '/module/echo/patches.json': '[{"Operations":[{"op":"add","path":"/echo/port","value":80}]}]\n',
  '/module/resource-monitor.json': '{"echo":["addons/ConfigMap/echo"]}\n',
  '/module/echo/snapshots.yaml': 'hooks/before: null\n',
  '/discovery':
    'GET /global/list.{format:(json|yaml)}\nGET /global/values.{format:(json|yaml)}\nGET /global/config.{format:(json|yaml)}\nGET /global/patches.{format:(json|yaml)}\n' +
    'GET /global/snapshots.{format:(json|yaml)}\nGET /module/list.{format:(json|yaml|text)}\nGET /module/resource-monitor.{format:(json|yaml)}\n' +
    'GET /module/{name}/{type:(config|values)}.{format:(json|yaml)}\nGET /module/{name}/render\nGET /module/{name}/patches.{format:(json)}\nGET /module/{name}/snapshots.{format:(json|yaml)}\n',
};

test('every debug route and command of a running operator', async () => {
  const root = moduleSet();
  const socket = join(makeTree({ '.keep': '' }), 'run', 'debug.socket');
  const op = startOperator(root, ['--debug-unix-socket', socket]);
  try {
    await waitFor(() => op.output().includes('startup converge done'), 'the first converge');
    await waitFor(async () => (await debugRequest(socket, 'GET', '/queue/list.text')).body.includes('no tasks'), 'an idle queue');

    // the socket file is 0600, its missing parent dir was made 0700
    assert.equal(statSync(socket).mode & 0o777, 0o600);
    assert.equal(statSync(join(socket, '..')).mode & 0o777, 0o700);

    for (const [route, want] of Object.entries(GOLDEN)) {
      const r = await debugRequest(socket, 'GET', route);
      const body = mask(r.body).replaceAll(join(root, 'modules'), '<modules>');
      assert.equal(r.status, 200, `${route}: ${r.body}`);
      if (route === '/module/spare/render') assert.equal(body, '', 'a module without templates renders nothing');
      else assert.equal(body, want, route);
    }

    // errors: an unknown module, an unknown route, a bad format
    const missing = await debugRequest(socket, 'GET', '/module/nope/values.json');
    assert.deepEqual([missing.status, missing.body], [404, 'module "nope" not found; modules: echo, spare\n']);
    const unknown = await debugRequest(socket, 'GET', '/nope');
    assert.equal(unknown.status, 404);
    assert.match(unknown.body, /GET \/queue\/list\.\{format:\(json\|yaml\|text\)\}/);
    assert.equal((await debugRequest(socket, 'GET', '/global/values.text')).status, 404);

    // the CLI prints what the socket answers, then a newline, as the Go CLI does
    const [list, modules, yamlQueue, values] = await Promise.all([
      cli(['queue', 'list'], socket),
      cli(['module', 'list', '-o', 'json'], socket),
      cli(['queue', 'main', '-o', 'yaml'], socket),
      cli(['module', 'values', 'echo', '-g'], socket),
    ]);
    assert.equal(list.stdout, GOLDEN['/queue/list.text'] + '\n', list.stderr);
    assert.equal(mask(modules.stdout).replaceAll(join(root, 'modules'), '<modules>'), GOLDEN['/module/list.json'] + '\n');
    assert.equal(mask(yamlQueue.stdout), 'name: main\ntasksCount: 0\n\n');
    assert.equal(values.stdout, GOLDEN['/module/echo/values.yaml?global=true'] + '\n');

    // queue list --watch redraws in place (clear screen, then the list) until stopped
    const watch = spawn(process.execPath, ['--import', 'tsx', MAIN, 'queue', 'list', '--watch', '-t', '200ms', '--debug-unix-socket', socket], { stdio: ['ignore', 'pipe', 'pipe'] });
    let watched = '';
    watch.stdout.on('data', (c: Buffer) => (watched += c));
    try {
      await waitFor(() => watched.split('\x1b[H\x1b[2J').length > 3, 'three screens of queue list --watch');
    } finally {
      watch.kill('SIGINT');
    }
    const screens = watched.split('\x1b[H\x1b[2J').slice(1);
    assert.ok(screens.every((sc) => sc.includes("Summary:\n- 'main' queue:")), JSON.stringify(screens[0]));

    // a log level change for a while, and back
    const set = await cli(['config', 'set', 'log.level', 'debug', '3s'], socket);
    assert.equal(set.code, 0, set.stderr);
    const during = await debugRequest(socket, 'GET', '/config/list.json');
    assert.match(during.body, /"expireAt":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ".*"value":"debug"/);
    await waitFor(async () => (await debugRequest(socket, 'GET', '/config/list.json')).body.includes('"value":"info"'), 'the level to come back', 15_000);
    const changes = logRecords(op.output()).filter((r) => r.msg === 'log level changed').map((r) => [r.level, r.logLevel]);
    assert.deepEqual(changes, [['info', 'debug'], ['info', 'info']]);

    // a malformed config set: a clear error, exit 1, the operator keeps running
    const bad = await Promise.all([cli(['config', 'set', 'log.level', 'loud'], socket), cli(['config', 'set', 'log.level', 'debug', '10x'], socket), cli(['config', 'set', 'nope', '1'], socket)]);
    assert.deepEqual(bad.map((r) => r.code), [1, 1, 1]);
    assert.equal(bad[0]!.stderr, 'Error: POST /config/set: 400: log.level: "loud" is not one of debug, info, warn, error\n');
    assert.equal(bad[1]!.stderr, 'Error: duration: "10x" is not a duration (examples: 30s, 10m, 1h30m)\n');
    assert.equal(bad[2]!.stderr, 'Error: POST /config/set: 400: unknown parameter "nope"; known: log.level\n');
    assert.equal((await debugRequest(socket, 'GET', '/')).body, 'debug endpoint is alive');
  } finally {
    op.child.kill('SIGTERM');
  }
  assert.equal(await op.exited, 0, op.output());
  assert.equal(existsSync(socket), false, 'the socket is removed at exit');
});

test('a debug command without a running operator says so in one line', async () => {
  const socket = join(makeTree({ '.keep': '' }), 'none.socket');
  const r = await cli(['queue', 'list'], socket);
  assert.equal(r.code, 1);
  assert.equal(r.stderr, `Error: debug socket ${socket} does not exist: is the operator running? (--debug-unix-socket, env DEBUG_UNIX_SOCKET)\n`);
});

test('a socket path that cannot be created stops the start with one line naming it', async () => {
  const root = makeTree({ 'global-hooks/.keep': '', 'modules/.keep': '', 'blocker': 'a file, not a directory\n' });
  const socket = join(root, 'blocker', 'debug.socket');
  const op = startOperator(root, ['--debug-unix-socket', socket]);
  assert.equal(await op.exited, 1, op.output());
  assert.match(op.output(), new RegExp(`^Error: debug socket ${socket.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: .*(EEXIST|ENOTDIR).*\\(--debug-unix-socket, env DEBUG_UNIX_SOCKET\\)$`, 'm'));
});
