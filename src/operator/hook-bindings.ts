/**
 * The event sources of one hook: a monitor per `kubernetes` binding (with its snapshot) and a
 * subscription per `schedule` binding. Kubernetes events of a binding are held back until its
 * Synchronization run is done (shell-operator unlocks them then), and are then delivered in order.
 *
 * A monitor may be started ahead of the module's run (`prestartKubernetes`, so that bindings on one
 * collection share its list): until the run takes it, its changes only update its snapshot, as if it
 * had started at the run.
 */
import type { Hook } from '../hooks/hook.js';
import type { KubernetesBinding, ScheduleBinding } from '../hooks/config-types.js';
import { eventContext, synchronizationContext, type EventContext, type SnapshotSource, type SynchronizationContext } from '../hooks/binding-context.js';
import type { ScheduleManager } from '../schedule/index.js';
import type { BindingEvent, BindingMonitor, KubernetesPort, MonitorTimings } from './ports.js';
import { hookLabel } from './task-meta.js';

export interface HookEventSink {
  kubernetes(hook: Hook, binding: KubernetesBinding, context: EventContext): void;
  schedule(hook: Hook, binding: ScheduleBinding): void;
  monitorError(hook: Hook, binding: KubernetesBinding, error: Error): void;
  /** A snapshot of a configured kubernetes binding was read while its monitor is not running: it is empty. */
  monitorMissing?(hook: Hook, binding: string): void;
  /** Where a binding's monitor reports its timings, if anywhere. */
  timings?(hook: Hook, binding: KubernetesBinding): MonitorTimings;
}

/** Counters of a binding's snapshot operations (shell-operator's CachedObjectsInfo). */
interface OperationCounts {
  count: number;
  added: number;
  deleted: number;
  modified: number;
  cleaned: number;
}

const zeroCounts = (): OperationCounts => ({ count: 0, added: 0, deleted: 0, modified: 0, cleaned: 0 });

interface KubeState {
  binding: KubernetesBinding;
  sinceStart: OperationCounts;
  sinceLastExecution: OperationCounts;
  monitor: BindingMonitor;
  unlocked: boolean;
  stopped: boolean;
  /** Started ahead of the run and not taken by it yet: its changes are not events. */
  ahead: boolean;
  held: BindingEvent[];
}

export interface SyncRun {
  binding: KubernetesBinding;
  context: SynchronizationContext;
}

export class HookBindings {
  // a list, not a map by name: unnamed bindings all default to `kubernetes`, and a monitor dropped from
  // a map would never be stopped (it kept the process alive after SIGTERM)
  private kube: KubeState[] = [];
  /** Monitors started ahead of the run (prestartKubernetes), until enableKubernetes takes them. */
  private ahead: KubeState[] = [];
  /** enableKubernetes waits for its monitors' lists. */
  private enabling = false;
  private schedulesOn = false;

  constructor(
    readonly hook: Hook,
    private readonly deps: { kube: KubernetesPort | undefined; schedules: ScheduleManager; sink: HookEventSink },
  ) {}

  get hasKubernetes(): boolean {
    return this.hook.config.kubernetes.length > 0;
  }

  get hasSchedules(): boolean {
    return this.hook.config.schedule.length > 0;
  }

  get kubernetesEnabled(): boolean {
    return this.kube.length > 0;
  }

  /**
   * The hook's current snapshots, by binding name (bindings sharing a name share it). A configured
   * binding without a running monitor gives an empty one, and the sink hears of it (shell-operator's
   * binding_monitor_missing_total).
   */
  readonly snapshots: SnapshotSource = (name) => {
    const states = this.kube.filter((s) => s.binding.name === name);
    if (!states.length && this.hook.config.kubernetes.some((b) => b.name === name)) this.deps.sink.monitorMissing?.(this.hook, name);
    return states.flatMap((s) => s.monitor.snapshot());
  };

  /** How many objects `snapshots(name)` holds, without building it. */
  snapshotSize(name: string): number {
    let n = 0;
    for (const s of this.kube) if (s.binding.name === name) n += s.monitor.snapshotSize();
    return n;
  }

  /** The memory the snapshots of the bindings named `name` retain, estimated. */
  retainedBytes(name: string): number {
    let n = 0;
    for (const s of this.kube) if (s.binding.name === name) n += s.monitor.retainedBytes();
    return n;
  }

  /** How many monitors run ahead of the module's run. */
  get prestarted(): number {
    return this.ahead.length;
  }

  /**
   * Starts the monitors of the bindings `which` picks ahead of the run (not awaited; a monitor lists
   * until it succeeds or stops); enableKubernetes takes them. Nothing when the bindings run already.
   */
  prestartKubernetes(which: (binding: KubernetesBinding) => boolean): void {
    const kube = this.deps.kube;
    if (!kube || this.kubernetesEnabled || this.enabling) return;
    for (const binding of this.hook.config.kubernetes) {
      if (!which(binding) || this.ahead.some((s) => s.binding === binding)) continue;
      const state = this.newState(kube, binding);
      state.ahead = true;
      this.ahead.push(state);
      // a failed start is the run's to report: it starts the monitor again
      state.monitor.start().catch(() => undefined);
    }
  }

  /** Stops the monitors started ahead of the run (the module is no longer to run). */
  async stopPrestarted(): Promise<void> {
    const states = this.ahead;
    this.ahead = [];
    await stopAll(states);
  }

  /**
   * Starts a monitor per kubernetes binding (or takes the one started ahead) and waits for every
   * first list; returns one Synchronization context per binding with the objects listed. All or
   * nothing: on an error the started monitors are stopped again.
   */
  async enableKubernetes(): Promise<SyncRun[]> {
    if (this.kubernetesEnabled || !this.hasKubernetes) return [];
    const kube = this.deps.kube;
    if (!kube) throw new Error(`hook ${hookLabel(this.hook)} has kubernetes bindings, but the operator runs without a Kubernetes API`);
    const ahead = this.ahead;
    this.ahead = [];
    this.enabling = true;
    const states = this.hook.config.kubernetes.map((binding) => {
      const state = ahead.find((s) => s.binding === binding);
      if (!state) return this.newState(kube, binding);
      // from now on as if it started here: its snapshot is what it listed, its changes are events
      state.ahead = false;
      return state;
    });
    try {
      await Promise.all(states.map((s) => s.monitor.start()));
    } catch (e) {
      await stopAll(states);
      throw e;
    } finally {
      this.enabling = false;
    }
    this.kube = states;
    return states.map((s) => ({ binding: s.binding, context: synchronizationContext(s.binding, s.monitor.snapshot()) }));
  }

  /**
   * A monitor started ahead that failed (a kind not served yet: its CRD may come with a module run
   * before this one): stopped unreported, the run starts its own as it would have.
   */
  private dropAhead(state: KubeState): void {
    if (!this.ahead.includes(state)) return;
    this.ahead = this.ahead.filter((s) => s !== state);
    void stopAll([state]);
  }

  private newState(kube: KubernetesPort, binding: KubernetesBinding): KubeState {
    const state: KubeState = { binding, sinceStart: zeroCounts(), sinceLastExecution: zeroCounts(), unlocked: false, stopped: false, ahead: false, held: [], monitor: undefined as unknown as BindingMonitor };
    state.monitor = kube.createMonitor(binding, {
      label: `${hookLabel(this.hook)} ${binding.name}`,
      onEvent: (ev) => this.onEvent(state, ev),
      onError: (err) => (state.ahead ? this.dropAhead(state) : this.deps.sink.monitorError(this.hook, binding, err)),
      ...(this.deps.sink.timings ? { timings: this.deps.sink.timings(this.hook, binding) } : {}),
    });
    return state;
  }

  /** Lets the binding's events through (after its Synchronization run), held ones first. */
  unlock(bindingName: string): void {
    for (const s of this.kube) {
      if (s.binding.name !== bindingName || s.unlocked) continue;
      s.unlocked = true;
      const held = s.held;
      s.held = [];
      for (const ev of held) this.deliver(s, ev);
    }
  }

  async disableKubernetes(): Promise<void> {
    const states = [...this.kube, ...this.ahead];
    this.kube = [];
    this.ahead = [];
    await stopAll(states);
  }

  enableSchedules(): void {
    if (this.schedulesOn) return;
    this.schedulesOn = true;
    this.hook.config.schedule.forEach((b, i) => {
      this.deps.schedules.add(b.crontab, this.subscriptionId(b, i), () => this.deps.sink.schedule(this.hook, b));
    });
  }

  disableSchedules(): void {
    if (!this.schedulesOn) return;
    this.schedulesOn = false;
    this.hook.config.schedule.forEach((b, i) => this.deps.schedules.remove(b.crontab, this.subscriptionId(b, i)));
  }

  async disable(): Promise<void> {
    this.disableSchedules();
    await this.disableKubernetes();
  }

  /** One subscription per binding: schedule bindings may share a name (and a crontab). */
  private subscriptionId(b: ScheduleBinding, index: number): string {
    return `${this.hook.id}\0${index}\0${b.name}`;
  }

  /**
   * `{binding: {snapshot, operations: {sinceStart, sinceLastExecution}}}` for the debug socket;
   * reading it starts a new `sinceLastExecution` period, as in shell-operator.
   */
  snapshotsDump(): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const s of this.kube) {
      const count = s.monitor.snapshotSize();
      const name = s.binding.name;
      // bindings sharing a name: one entry per name, with the first binding's counters (as one map in Go)
      if (name in out) continue;
      out[name] = { snapshot: this.snapshots(name), operations: { sinceStart: { ...s.sinceStart, count }, sinceLastExecution: { ...s.sinceLastExecution, count } } };
      s.sinceLastExecution = zeroCounts();
    }
    return out;
  }

  private onEvent(state: KubeState, ev: BindingEvent): void {
    if (state.stopped || state.ahead) return;
    const key = ev.watchEvent === 'Added' ? 'added' : ev.watchEvent === 'Deleted' ? 'deleted' : 'modified';
    state.sinceStart[key]++;
    state.sinceLastExecution[key]++;
    if (!state.unlocked) {
      state.held.push(ev);
      return;
    }
    this.deliver(state, ev);
  }

  private deliver(state: KubeState, ev: BindingEvent): void {
    if (!state.binding.executeHookOnEvent.includes(ev.watchEvent)) return;
    this.deps.sink.kubernetes(this.hook, state.binding, eventContext(state.binding, ev.watchEvent, ev.item));
  }
}

async function stopAll(states: readonly KubeState[]): Promise<void> {
  for (const s of states) s.stopped = true;
  await Promise.all(states.map((s) => s.monitor.stop()));
}
