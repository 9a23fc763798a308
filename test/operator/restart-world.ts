/**
 * A world for converge-restart scenarios: the operator over the sandbox API server with the real
 * Kubernetes layer (monitors, patcher, ConfigMap source) and the real Helm layer; modules whose one
 * hook (onStartup, a kubernetes binding, beforeHelm, afterHelm) appends a line to a trace and can be
 * paused at any run; a chart that puts the values it got into a ConfigMap; and a check of the
 * restart invariants (issue 21) on the recorded trace.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after } from 'node:test';
import { KubeConfig } from '@kubernetes/client-node';
import { startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { requestJson } from '../../src/kube/http.js';
import type { ConfigSource, HelmPort } from '../../src/operator/ports.js';
import { sandboxPorts } from '../helpers/sandbox-ports.js';
import { scenario, settle, type Scenario, type Trace } from './helpers.js';
import { waitFor } from '../helpers/wait.js';

export const NS = 'addons';

/** The module's hook: one trace line per run, `<module> <contexts> synced=<..> x=<..> v=<..>`. */
function moduleHook(t: Trace, gates: string, name: string): string {
  const config = {
    configVersion: 'v1',
    onStartup: 1,
    beforeHelm: 1,
    afterHelm: 1,
    afterDeleteHelm: 1,
    kubernetes: [{ name: 'objs', kind: 'ConfigMap', labelSelector: { matchLabels: { app: name } }, namespace: { nameSelector: { matchNames: ['default'] } } }],
  };
  return `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
ctx=$(jq -r '[.[] | .binding + (if .type then ":" + .type else "" end)] | join(",")' "$BINDING_CONTEXT_PATH")
label="${name} $ctx"
echo "$label $(jq -r '"synced=\\(.${name}.synced // "no") x=\\(.global.x // "none") v=\\(.${name}.v // "none")"' "$VALUES_PATH")" >> '${t.path}'
${gateSnippet(gates)}
if [[ "$ctx" == *Synchronization* ]]; then echo '[{"op":"add","path":"/${name}/synced","value":"yes"}]' > "$VALUES_JSON_PATCH_PATH"; fi
`;
}

/** Pauses the run whose label has a `.block` file: touches `.at`, waits for `.go`. */
function gateSnippet(gates: string): string {
  return `f='${gates}'/$(echo "$label" | tr ' :,' '___')
if [[ -f "$f.block" ]]; then rm -f "$f.block"; touch "$f.at"; while [[ ! -f "$f.go" ]]; do sleep 0.02; done; fi`;
}

function globalHook(t: Trace, gates: string, extra: object = {}, body = ''): string {
  const config = { configVersion: 'v1', beforeAll: 1, afterAll: 1, ...extra };
  return `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then echo '${JSON.stringify(config)}'; exit 0; fi
ctx=$(jq -r '[.[] | .binding + (if .type then ":" + .type else "" end)] | join(",")' "$BINDING_CONTEXT_PATH")
label="g $ctx"
echo "$label x=$(jq -r '.global.x // "none"' "$VALUES_PATH")" >> '${t.path}'
${gateSnippet(gates)}
${body}
`;
}

interface HelmGate {
  hit: boolean;
  at: Promise<void>;
  reach: () => void;
  go: Promise<void>;
  open: () => void;
}

function helmGate(): HelmGate {
  const g = { hit: false } as HelmGate;
  g.at = new Promise((r) => (g.reach = r));
  g.go = new Promise((r) => (g.open = r));
  return g;
}

export const gateFile = (label: string) => label.replace(/[ :,]/g, '_');

export interface WorldOptions {
  modules: string[];
  /** Modules enabled by modules/values.yaml (default: all). */
  enabled?: string[];
  /** ConfigMap data at start. */
  config?: Record<string, string>;
  /** Extra files (relative to the root), given the trace and the gates dir. */
  files?: (t: Trace, gates: string) => Record<string, string>;
  parallelModuleRuns?: number;
  /** Order numbers of the modules (default 1, 2, 3...): equal ones run in parallel with parallelModuleRuns > 1. */
  order?: number[];
}

export interface World {
  s: Scenario;
  kc: KubeConfig;
  sandbox: Sandbox;
  /** Largest number of ConvergeModules tasks waiting in main at once (sampled at every task start and end). */
  maxPendingConverges: number;
  /** Pauses the next run of the hook with this trace label (`beta beforeHelm`, `g afterAll`, `helm beta`). */
  pause(label: string): void;
  /** Waits until the paused run is reached. */
  reached(label: string): Promise<void>;
  resume(label: string): void;
  /** Merge-patches the ConfigMap's data and waits until the operator has it. */
  edit(data: Record<string, string | null>): Promise<void>;
  /** The data of the ConfigMap each module's chart renders: the values Helm got. */
  objects(): Promise<Record<string, Record<string, string>>>;
  releases(): Promise<string[]>;
  stop(): Promise<void>;
}

export async function world(opts: WorldOptions): Promise<World> {
  const enabled = opts.enabled ?? opts.modules;
  const sandbox = await startSandbox({
    seedObjects: [
      { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NS } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'addon-operator', namespace: NS }, data: opts.config ?? {} },
    ],
  });
  const { kc, kube, helm: releases, config: source } = sandboxPorts(sandbox.kubeconfigPath, NS);
  // the ConfigMap source, noting the last data it handed to the operator
  let delivered = '';
  const config: ConfigSource = {
    description: source.description,
    read: () => source.read(),
    watch: (onChange, onError) =>
      source.watch((data) => {
        delivered = JSON.stringify(data ?? {});
        onChange(data);
      }, onError),
    writeSection: (key, values) => source.writeSection(key, values),
    stop: () => source.stop(),
  };
  const helmGates = new Map<string, HelmGate>();
  // a test that fails with a Helm run paused: let it go, or stopping the operator would wait for it
  after(() => helmGates.forEach((g) => g.open()));
  let trace: Trace | undefined;
  // the real Helm layer, with a trace line per applied release and a pause point before it
  const helm: HelmPort = {
    upgradeInstall: async (req) => {
      const g = helmGates.get(req.release);
      if (g && !g.hit) {
        g.hit = true;
        g.reach();
        await g.go;
      }
      const outcome = await releases.upgradeInstall(req);
      trace!.add(`helm ${req.release}`);
      return outcome;
    },
    uninstall: async (release, ns) => {
      const had = await releases.uninstall(release, ns);
      trace!.add(`helm-uninstall ${release}`);
      return had;
    },
    listReleases: (ns) => releases.listReleases(ns),
    render: (req) => releases.render(req),
    diff: (req) => releases.diff(req),
    absentObjects: (release, ns) => releases.absentObjects(release, ns),
  };
  let gates = '';
  const s = await scenario({
    files: (t) => {
      trace = t;
      gates = join(t.path, '..', 'gates');
      mkdirSync(gates, { recursive: true });
      const files: Record<string, string> = {
        'modules/values.yaml': `global:\n  x: 0\n${enabled.map((m) => `${m}Enabled: true\n`).join('')}`,
        'global-hooks/hooks/all': globalHook(t, gates),
        ...(opts.files?.(t, gates) ?? {}),
      };
      opts.modules.forEach((m, i) => {
        const dir = `modules/${String(opts.order?.[i] ?? i + 1).padStart(3, '0')}-${m}`;
        files[`${dir}/Chart.yaml`] = `apiVersion: v2\nname: ${m}\nversion: 0.1.0\n`;
        files[`${dir}/values.yaml`] = `${m}:\n  v: init\n`;
        files[`${dir}/templates/cm.yaml`] =
          `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${m}-values\ndata:\n` +
          `  x: {{ .Values.global.x | quote }}\n  synced: {{ .Values.${m}.synced | default "no" | quote }}\n  v: {{ .Values.${m}.v | quote }}\n`;
        files[`${dir}/hooks/life`] = moduleHook(t, gates, m);
      });
      return files;
    },
    operator: { kube, config, helm, namespace: NS, parallelModuleRuns: opts.parallelModuleRuns },
  }).catch(async (err: unknown) => {
    await sandbox.stop();
    throw err;
  });
  // stopped when the calling test ends, whatever its outcome, after the operator (scenario() stops it the same way)
  after(() => sandbox.stop());
  const w: World = {
    s,
    kc,
    sandbox,
    maxPendingConverges: 0,
    pause(label) {
      if (label.startsWith('helm ')) return void helmGates.set(label.slice(5), helmGate());
      writeFileSync(join(gates, `${gateFile(label)}.block`), '');
    },
    async reached(label) {
      if (label.startsWith('helm ')) return helmGates.get(label.slice(5))!.at;
      await waitFor(() => existsSync(join(gates, `${gateFile(label)}.at`)), `the run of ${label}`, 60_000);
    },
    resume(label) {
      if (label.startsWith('helm ')) return helmGates.get(label.slice(5))!.open();
      writeFileSync(join(gates, `${gateFile(label)}.go`), '');
    },
    async edit(data) {
      const cm = await requestJson<{ data?: Record<string, string> }>(kc, 'PATCH', `/api/v1/namespaces/${NS}/configmaps/addon-operator`, {}, { data }, 'application/merge-patch+json');
      const want = JSON.stringify(cm.data ?? {});
      await waitFor(() => delivered === want, 'the operator to see the edit', 60_000);
    },
    async objects() {
      const list = await requestJson<{ items: Array<{ metadata: { name: string }; data?: Record<string, string> }> }>(kc, 'GET', `/api/v1/namespaces/${NS}/configmaps`);
      return Object.fromEntries(list.items.filter((o) => o.metadata.name.endsWith('-values')).map((o) => [o.metadata.name.replace(/-values$/, ''), o.data ?? {}]));
    },
    releases: async () => (await releases.listReleases(NS)).sort(),
    async stop() {
      await s.op.stop();
      await sandbox.stop();
    },
  };
  const sample = () => {
    const n = s.op.queues.main.tasks().filter((t) => t.metadata.kind === 'ConvergeModules' && !t.processing && t.id !== s.op.runtime.converge.taskId).length;
    w.maxPendingConverges = Math.max(w.maxPendingConverges, n);
  };
  s.op.queues.on('taskStarted', (e) => {
    sample();
    // the modules an afterAll run must come after: those enabled when it starts
    const m = e.task.metadata;
    if (m.kind === 'GlobalHookRun' && m.bindingType === 'afterAll') s.trace.add(`enabled-at-afterAll ${s.op.manager.enabledModules.join(',')}`);
  });
  s.op.queues.on('taskFinished', sample);
  return w;
}

export async function started(w: World): Promise<World> {
  await w.s.op.start();
  await w.s.op.converge.whenFirstDone();
  await settle(w.s.op);
  return w;
}

/** Every line of the module's hook of one kind (`beforeHelm`, `onStartup`, `objs:Synchronization`). */
const runsOf = (lines: readonly string[], module: string, kind: string) => lines.map((l, i) => [l, i] as const).filter(([l]) => l.startsWith(`${module} ${kind} `)).map(([, i]) => i);

/** A trace without the lines the test adds. */
export const bare = (lines: readonly string[]) => lines.filter((l) => !l.startsWith('enabled-at-afterAll '));

/**
 * The invariants of issue 21 on a trace: (1) every afterAll ran after beforeHelm, Helm and afterHelm of
 * every module enabled then (the `enabled-at-afterAll` line before it) since the last beforeAll, and at most once per beforeAll; per
 * module and per enabling (the spans between its afterDeleteHelm runs): (2) onStartup ran exactly once,
 * before the first beforeHelm; (3) its Synchronization ran before the first beforeHelm, and every
 * beforeHelm saw the values it set. `enabled`: modules that must have run by the end.
 */
export function checkInvariants(lines: readonly string[], enabled: readonly string[]): void {
  const all = () => lines.join('\n');
  let lastBeforeAll = -1;
  let afterAllSince = 0;
  let enabledThen = '';
  const modules = new Set<string>(enabled);
  lines.forEach((l, i) => {
    const m = /^(\S+) (onStartup|beforeHelm) /.exec(l);
    if (m && m[1] !== 'g') modules.add(m[1]!);
    if (l.startsWith('enabled-at-afterAll ')) enabledThen = l.slice('enabled-at-afterAll '.length);
    if (l.startsWith('g beforeAll ')) {
      lastBeforeAll = i;
      afterAllSince = 0;
    }
    if (!l.startsWith('g afterAll ')) return;
    afterAllSince++;
    assert.ok(afterAllSince <= 1, `afterAll ran twice after the beforeAll at line ${lastBeforeAll}:\n${all()}`);
    const since = lines.slice(lastBeforeAll + 1, i);
    for (const mod of enabledThen.split(',').filter(Boolean)) {
      for (const step of [`${mod} beforeHelm `, `helm ${mod}`, `${mod} afterHelm `]) {
        assert.ok(since.some((x) => x.startsWith(step)), `afterAll at line ${i} ran before "${step.trim()}" of the converge that began at line ${lastBeforeAll}:\n${all()}`);
      }
    }
  });
  for (const m of modules) {
    const deletes = runsOf(lines, m, 'afterDeleteHelm');
    const spans = [-1, ...deletes, lines.length];
    for (let k = 0; k + 1 < spans.length; k++) {
      const span = lines.slice(spans[k]! + 1, spans[k + 1]!);
      const at = `${m}, enabling ${k + 1} (after line ${spans[k]})`;
      const startups = runsOf(span, m, 'onStartup');
      const helms = runsOf(span, m, 'beforeHelm');
      const syncs = runsOf(span, m, 'objs:Synchronization');
      if (helms.length === 0) {
        assert.ok(startups.length <= 1, `${at}: onStartup ran ${startups.length} times:\n${all()}`);
        continue;
      }
      assert.equal(startups.length, 1, `${at}: onStartup ran ${startups.length} times:\n${all()}`);
      assert.ok(startups[0]! < helms[0]!, `${at}: beforeHelm before onStartup:\n${all()}`);
      assert.ok(syncs.length > 0 && syncs[0]! < helms[0]!, `${at}: beforeHelm before Synchronization:\n${all()}`);
      for (const i of helms) assert.match(span[i]!, / synced=yes /, `${at}: a beforeHelm without the values of Synchronization:\n${all()}`);
    }
    if (enabled.includes(m)) {
      const last = lines.slice((deletes.at(-1) ?? -1) + 1);
      assert.ok(runsOf(last, m, 'afterHelm').length > 0, `${m} is enabled but never ran:\n${all()}`);
    }
  }
}
