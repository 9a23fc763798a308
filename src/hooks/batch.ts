/**
 * Batch hooks (flant/module-sdk; the Go operator's `kind/batch_hook.go`): one executable in a hooks dir
 * holding several hooks. Asked `hook list` it prints `Found N items:` and a line `ID - name` a hook;
 * `hook config` prints their configs, `hook run ID` runs one and `hook ready` the module's readiness
 * probe. This file tells a batch hook from a shell hook and turns the SDK's configs into
 * shell-operator v1 configs, which the hook config parser then checks as any other.
 */
import { basename, extname } from 'node:path';
import { UserError } from '../util/errors.js';
import { isPlainObject } from '../util/json.js';
import { describeExit, runProcess } from './process.js';
import type { HookKind } from './config-types.js';

/** What the Go operator takes for a batch hook's answer to `hook list` (1 to 9999 items). */
const FOUND_ITEMS = /Found ([1-9]|[1-9]\d|[1-9]\d\d|[1-9]\d\d\d) items/;

/** The ID `hook ready` runs under, as the Go operator names it. */
export const READINESS_ID = 'ready';

/** A file the Go operator asks `hook list`: an executable whose name has no extension. */
export function mayBeBatchHook(path: string): boolean {
  return extname(basename(path)) === '';
}

/**
 * `FILE hook list`, run as the Go operator runs it, with no environment. A batch hook when it answers
 * `Found N items`; anything else (an error, another answer) means it is not one.
 */
export async function isBatchHook(path: string, label: string, cwd: string, timeoutMs: number): Promise<boolean> {
  const r = await runProcess({ file: path, args: ['hook', 'list'], cwd, env: {}, bareEnvironment: true, timeoutMs, maxStdoutBytes: 1024 * 1024 });
  if (r.spawnError || r.timedOut || r.exitCode !== 0 || !FOUND_ITEMS.test(r.stdout)) return false;
  const seen = new Set<string>();
  for (const line of r.stdout.split('\n')) {
    const id = /^(\d+) - /.exec(line)?.[1];
    if (id === undefined) continue;
    if (seen.has(id)) throw new UserError(`batch hook ${label}: "hook list" lists ID ${id} twice`);
    seen.add(id);
  }
  return true;
}

/** One hook of a batch: its ID (`hook run ID`), its SDK name and its config as shell-operator v1. */
export interface BatchEntry {
  readonly id: string;
  readonly sdkName: string;
  readonly config: Record<string, unknown>;
}

/** The hooks a batch executable holds, the readiness probe (ID `ready`) last. */
export async function batchHookEntries(path: string, label: string, cwd: string, kind: HookKind, timeoutMs: number): Promise<BatchEntry[]> {
  const r = await runProcess({ file: path, args: ['hook', 'config'], cwd, timeoutMs, maxStdoutBytes: 4 * 1024 * 1024 });
  if (r.spawnError || r.timedOut || r.exitCode !== 0) {
    const tail = r.stderrTail.length ? `; stderr: ${r.stderrTail.slice(-5).join(' | ')}` : '';
    throw new UserError(`batch hook ${label}: "${path} hook config" failed: ${describeExit(r, timeoutMs)}${tail}`);
  }
  if (r.stdoutTruncated) throw new UserError(`batch hook ${label}: "hook config" printed more than 4 MiB`);
  let data: unknown;
  try {
    data = JSON.parse(r.stdout);
  } catch (e) {
    const head = r.stdout.trim().slice(0, 80);
    throw new UserError(`batch hook ${label}: "hook config" did not print JSON (${(e as Error).message}): ${JSON.stringify(head)}`);
  }
  const sdkHooks: unknown[] = [];
  let readiness: unknown;
  if (Array.isArray(data)) sdkHooks.push(...data); // the older form: a bare array of hook configs
  else if (isPlainObject(data)) {
    if (data.version !== 'v1') throw new UserError(`batch hook ${label}: "hook config" has version ${JSON.stringify(data.version ?? null)}; v1 is the one known`);
    if (data.hooks !== undefined && data.hooks !== null && !Array.isArray(data.hooks)) throw new UserError(`batch hook ${label}: "hook config": hooks must be an array`);
    sdkHooks.push(...((data.hooks as unknown[] | null | undefined) ?? []));
    readiness = data.readiness ?? undefined;
  } else throw new UserError(`batch hook ${label}: "hook config" must print an object with version and hooks (or an array), got ${JSON.stringify(r.stdout.trim().slice(0, 80))}`);
  const entries = sdkHooks.map((h, i) => entry(String(i), h, label, kind));
  if (readiness !== undefined) entries.push(entry(READINESS_ID, readiness, label, kind));
  return entries;
}

function entry(id: string, sdk: unknown, label: string, kind: HookKind): BatchEntry {
  if (!isPlainObject(sdk)) throw new UserError(`batch hook ${label}: the config of hook ${id} must be an object, got ${JSON.stringify(sdk)}`);
  const metadata = isPlainObject(sdk.metadata) ? sdk.metadata : {};
  return { id, sdkName: typeof metadata.name === 'string' ? metadata.name : '', config: shellConfigOf(sdk, kind) };
}

/**
 * A module SDK hook config as shell-operator's v1 config, as the Go operator remaps it: every binding
 * in the group `main` (SDK hooks read all their snapshots from every binding context), kubernetes
 * bindings without full objects unless they ask, a setting of `executeHookOnEvent: false` as no events.
 * `beforeHelm`/`afterHelm` are a global hook's `beforeAll`/`afterAll`.
 */
function shellConfigOf(sdk: Record<string, unknown>, kind: HookKind): Record<string, unknown> {
  const out: Record<string, unknown> = { configVersion: sdk.configVersion ?? 'v1' };
  if (sdk.onStartup !== undefined && sdk.onStartup !== null) out.onStartup = sdk.onStartup;
  const lifecycle: Array<[string, string | undefined]> =
    kind === 'global'
      ? [['beforeHelm', 'beforeAll'], ['afterHelm', 'afterAll']]
      : [['beforeHelm', 'beforeHelm'], ['afterHelm', 'afterHelm'], ['beforeDeleteHelm', 'beforeDeleteHelm'], ['afterDeleteHelm', 'afterDeleteHelm']];
  for (const [from, to] of lifecycle) if (to && sdk[from] !== undefined && sdk[from] !== null) out[to] = sdk[from];
  if (isPlainObject(sdk.settings)) {
    const settings: Record<string, unknown> = {};
    const interval = sdk.settings.executionMinInterval;
    // Go's time.Duration is written as nanoseconds
    if (typeof interval === 'number' && interval > 0) settings.executionMinInterval = `${interval}ns`;
    else if (typeof interval === 'string' && interval !== '') settings.executionMinInterval = interval;
    if (sdk.settings.executionBurst !== undefined && sdk.settings.executionBurst !== 0) settings.executionBurst = sdk.settings.executionBurst;
    if (Object.keys(settings).length) out.settings = settings;
  }
  if (Array.isArray(sdk.schedule) && sdk.schedule.length) out.schedule = sdk.schedule.map((s) => scheduleOf(s));
  if (Array.isArray(sdk.kubernetes) && sdk.kubernetes.length) out.kubernetes = sdk.kubernetes.map((k) => kubernetesOf(k));
  return out;
}

function scheduleOf(s: unknown): unknown {
  if (!isPlainObject(s)) return s; // the config parser names what is wrong
  return withoutEmpty({ name: s.name, crontab: s.crontab, queue: s.queue, group: 'main' });
}

function kubernetesOf(k: unknown): unknown {
  if (!isPlainObject(k)) return k;
  return withoutEmpty({
    name: k.name,
    apiVersion: k.apiVersion,
    kind: k.kind,
    nameSelector: k.nameSelector,
    namespace: k.namespace,
    labelSelector: k.labelSelector,
    fieldSelector: k.fieldSelector,
    jqFilter: k.jqFilter,
    executeHookOnEvent: k.executeHookOnEvent === false ? [] : undefined,
    executeHookOnSynchronization: k.executeHookOnSynchronization ?? true,
    waitForSynchronization: k.waitForSynchronization ?? true,
    keepFullObjectsInMemory: k.keepFullObjectsInMemory ?? false,
    allowFailure: k.allowFailure,
    resynchronizationPeriod: k.resynchronizationPeriod,
    includeSnapshotsFrom: k.includeSnapshotsFrom,
    queue: k.queue,
    group: 'main',
  });
}

/** The object without its absent, null and empty-string keys (Go's `omitempty`). */
function withoutEmpty(o: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined && v !== null && v !== ''));
}
