/**
 * Scenario helpers: in-memory Kubernetes, Helm and config ports (test-only: `addon-operator start`
 * never uses them), hooks written as bash scripts that append a line to a trace file, and an operator
 * built over a module tree.
 */
import { appendFileSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after } from 'node:test';
import { makeTree, writeTree } from '../helpers/tree.js';
import { ModuleManager } from '../../src/modules/manager.js';
import { Operator, type OperatorOptions } from '../../src/operator/operator.js';
import type {
  BindingEvent,
  BindingMonitor,
  ConfigMapData,
  ConfigSource,
  HelmPort,
  KubernetesPort,
  MonitorOptions,
  ReleaseOutcome,
  ReleaseRequest,
} from '../../src/operator/ports.js';
import type { KubernetesBinding } from '../../src/hooks/config-types.js';
import { compareSnapshotItems, type SnapshotItem } from '../../src/hooks/binding-context.js';
import { itemBytes } from '../../src/hooks/retained-bytes.js';
import { filterObject } from '../../src/hooks/snapshot.js';
import type { KubeOperation } from '../../src/hooks/outputs/kubernetes.js';
import { checksumJson, type JsonObject } from '../../src/util/json.js';
import { pino } from 'pino';

export interface Obj {
  apiVersion?: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [k: string]: unknown;
}

const keyOf = (o: Obj) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`;

/** Objects in memory; monitors see them by kind (and namespace names, matchLabels). */
export class MemoryKube implements KubernetesPort {
  readonly objects = new Map<string, Obj>();
  readonly operations: Array<{ hook: string; op: KubeOperation }> = [];
  private readonly monitors = new Set<MemoryMonitor>();

  createMonitor(binding: KubernetesBinding, options: MonitorOptions): BindingMonitor {
    const m = new MemoryMonitor(this, binding, options);
    return m;
  }

  async applyOperations(operations: readonly KubeOperation[], options: { hook: string; hookFailed: boolean }): Promise<void> {
    for (const op of operations) {
      if (options.hookFailed && !op.ignoreHookError) continue;
      this.operations.push({ hook: options.hook, op });
      if (op.operation === 'Create' || op.operation === 'CreateOrUpdate' || op.operation === 'CreateIfNotExists') this.put(op.object as unknown as Obj);
      else if (op.operation === 'Delete' || op.operation === 'DeleteInBackground' || op.operation === 'DeleteNonCascading') {
        this.delete({ kind: op.kind, metadata: { name: op.name, namespace: op.namespace } });
      }
    }
  }

  put(o: Obj): void {
    const existed = this.objects.has(keyOf(o));
    this.objects.set(keyOf(o), o);
    for (const m of this.monitors) m.notify(existed ? 'Modified' : 'Added', o);
  }

  delete(o: Obj): void {
    const old = this.objects.get(keyOf(o));
    if (!old) return;
    this.objects.delete(keyOf(o));
    for (const m of this.monitors) m.notify('Deleted', old);
  }

  /** @internal */
  register(m: MemoryMonitor, on: boolean): void {
    if (on) this.monitors.add(m);
    else this.monitors.delete(m);
  }

  get activeMonitors(): number {
    return this.monitors.size;
  }
}

class MemoryMonitor implements BindingMonitor {
  private items = new Map<string, SnapshotItem>();
  private started = false;

  constructor(
    private readonly kube: MemoryKube,
    private readonly binding: KubernetesBinding,
    private readonly options: MonitorOptions,
  ) {}

  private matches(o: Obj): boolean {
    if (o.kind.toLowerCase() !== this.binding.kind.toLowerCase()) return false;
    const names = this.binding.namespace?.nameSelector?.matchNames;
    if (names?.length && !names.includes(o.metadata.namespace ?? '')) return false;
    const want = this.binding.labelSelector?.matchLabels ?? {};
    return Object.entries(want).every(([k, v]) => o.metadata.labels?.[k] === v);
  }

  async start(): Promise<void> {
    for (const o of this.kube.objects.values()) if (this.matches(o)) this.items.set(keyOf(o), filterObject(this.binding, o).item);
    this.kube.register(this, true);
    this.started = true;
  }

  snapshot(): readonly SnapshotItem[] {
    return [...this.items.values()].sort(compareSnapshotItems);
  }

  snapshotSize(): number {
    return this.items.size;
  }

  retainedBytes(): number {
    let n = 0;
    for (const [key, item] of this.items) n += itemBytes(key, item);
    return n;
  }

  async stop(): Promise<void> {
    this.started = false;
    this.kube.register(this, false);
  }

  notify(watchEvent: BindingEvent['watchEvent'], o: Obj): void {
    if (!this.started || !this.matches(o)) return;
    const item = filterObject(this.binding, o).item;
    if (watchEvent === 'Deleted') this.items.delete(keyOf(o));
    else this.items.set(keyOf(o), item);
    this.options.onEvent({ watchEvent, item });
  }
}

/** Releases in memory; every call that changes something appends `helm <verb> <release>` to the trace. */
export class MemoryHelm implements HelmPort {
  readonly releases = new Map<string, { checksum: string; revision: number; values: JsonObject }>();
  failNext = 0;

  constructor(private readonly trace?: Trace) {}

  async upgradeInstall(req: ReleaseRequest): Promise<ReleaseOutcome> {
    if (this.failNext > 0) {
      this.failNext--;
      this.trace?.add(`helm upgrade ${req.release} FAILED`);
      throw new Error(`helm upgrade of release ${req.release} failed (test)`);
    }
    const checksum = checksumJson(req.values);
    const old = this.releases.get(req.release);
    if (old?.checksum === checksum) return 'unchanged';
    this.releases.set(req.release, { checksum, revision: (old?.revision ?? 0) + 1, values: req.values });
    this.trace?.add(`helm upgrade ${req.release}`);
    return old ? 'upgraded' : 'installed';
  }

  async uninstall(release: string): Promise<boolean> {
    const had = this.releases.delete(release);
    if (had) this.trace?.add(`helm uninstall ${release}`);
    return had;
  }

  async listReleases(): Promise<string[]> {
    return [...this.releases.keys()];
  }

  /** No templates here: the "manifest" is the values the chart would get. */
  async render(req: ReleaseRequest): Promise<string> {
    return `---\n# Source: ${req.release}/values.json\n${JSON.stringify(req.values)}\n`;
  }

  /** Releases in memory have no objects in a cluster to differ from. */
  async diff(): Promise<string> {
    return 'No diff found';
  }

  /** Releases in memory have no objects that could go missing. */
  async absentObjects(): Promise<string[]> {
    return [];
  }
}

/** A ConfigMap in memory; `set` behaves like an edit seen by the watch. */
export class MemoryConfig implements ConfigSource {
  readonly description = 'ConfigMap test/addon-operator';
  readonly writes: Array<{ key: string; values: JsonObject }> = [];
  private onChange: ((data: ConfigMapData) => void) | undefined;

  constructor(public data: ConfigMapData = null) {}

  async read(): Promise<ConfigMapData> {
    return this.data && { ...this.data };
  }

  async watch(onChange: (data: ConfigMapData) => void): Promise<void> {
    this.onChange = onChange;
  }

  async writeSection(key: string, values: JsonObject): Promise<void> {
    this.writes.push({ key, values });
    this.set({ ...(this.data ?? {}), [key]: JSON.stringify(values) });
  }

  set(data: ConfigMapData): void {
    this.data = data;
    this.onChange?.(data && { ...data });
  }

  async stop(): Promise<void> {
    this.onChange = undefined;
  }
}

/** The trace file every hook appends to. */
export class Trace {
  constructor(readonly path: string) {}

  add(line: string): void {
    appendFileSync(this.path, `${line}\n`);
  }

  lines(): string[] {
    return existsSync(this.path) ? readFileSync(this.path, 'utf8').split('\n').filter(Boolean) : [];
  }

  /** Lines that start with one of the prefixes (to follow one actor among many). */
  of(...prefixes: string[]): string[] {
    return this.lines().filter((l) => prefixes.some((p) => l.startsWith(p)));
  }
}

/**
 * A bash hook printing `config` for --config and appending `<label> <contexts>` to the trace, where
 * contexts are `binding[:type[:watchEvent]]` joined by commas; `body` runs after that.
 */
export function traceHook(trace: Trace, label: string, config: object, body = ''): string {
  return `#!/usr/bin/env bash
if [[ "$1" == "--config" ]]; then
cat <<'EOF'
${JSON.stringify(config)}
EOF
exit 0
fi
ctx=$(jq -r '[.[] | .binding + (if .type then ":" + .type else "" end) + (if .watchEvent then ":" + .watchEvent else "" end)] | join(",")' "$BINDING_CONTEXT_PATH")
echo "${label} $ctx" >> '${trace.path}'
${body}
`;
}

export interface Scenario {
  root: string;
  trace: Trace;
  kube: MemoryKube;
  helm: MemoryHelm;
  config: MemoryConfig;
  op: Operator;
  logs: string[];
}

export interface ScenarioOptions {
  /** Files relative to the root; `modules/` and `global-hooks/` are the dirs the operator reads. */
  files: (trace: Trace) => Record<string, string>;
  config?: Record<string, string>;
  operator?: Partial<OperatorOptions>;
}

/**
 * Builds the tree, loads the modules and creates (does not start) an operator over in-memory ports
 * (or those of `opts.operator`). The operator is stopped when the calling test ends, whatever its
 * outcome, so that a failed assertion fails the test at once instead of keeping the file running.
 */
export async function scenario(opts: ScenarioOptions): Promise<Scenario> {
  const root = makeTree({ 'modules/.keep': '', 'global-hooks/.keep': '' });
  const trace = new Trace(join(root, 'trace.log'));
  writeTree(root, opts.files(trace));
  const logs: string[] = [];
  const logger = pino({ level: 'debug', base: undefined }, new Writable({ write: (c, _e, cb) => (logs.push(String(c)), cb()) }));
  const manager = await ModuleManager.load({
    modulesDir: join(root, 'modules'),
    globalHooksDir: join(root, 'global-hooks'),
    tmpDir: join(root, 'tmp'),
    hookTimeoutMs: 20_000,
  });
  const kube = new MemoryKube();
  const helm = new MemoryHelm(trace);
  const config = new MemoryConfig(opts.config ?? null);
  const op = new Operator({ manager, namespace: 'test', kube, helm, config, logger, timing: { backoff: () => 10, discoveryRetryMs: 10 }, ...opts.operator });
  after(() => op.stop());
  return { root, trace, kube, helm, config, op, logs };
}

/** Waits for every queue to be idle twice in a row (a task may queue another). */
export async function settle(op: Operator): Promise<void> {
  for (let i = 0; i < 3; i++) {
    await op.queues.whenIdle();
    await new Promise((r) => setTimeout(r, 20));
  }
}
