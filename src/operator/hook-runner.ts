/**
 * Runs hooks and applies all of their outputs (values, config, metrics, Kubernetes operations): one
 * module's hooks one at a time whatever queue they come from, each hook's rate limit (`settings`), and
 * every run recorded in the metrics and the status page's activity.
 */
import type { Logger } from 'pino';
import type { BindingContext, SnapshotSource } from '../hooks/binding-context.js';
import { HookRunError } from '../hooks/executor.js';
import type { Hook } from '../hooks/hook.js';
import type { CpuUsage } from '../hooks/spawner.js';
import { hookLineLogger } from '../log/logger.js';
import type { HookMetricsStorage } from '../metrics/hook-metrics.js';
import type { OperatorMetrics } from '../metrics/operator-metrics.js';
import type { HookRunOutcome, ModuleManager } from '../modules/manager.js';
import { errorMessage } from '../util/errors.js';
import { RateLimiter } from '../util/rate-limit.js';
import type { Activity } from './activity.js';
import type { ConfigSource, KubernetesPort } from './ports.js';
import { hookLabel, type BindingType } from './task-meta.js';

export interface HookRunnerOptions {
  manager: ModuleManager;
  logger: Logger;
  kube: KubernetesPort | undefined;
  config: ConfigSource | undefined;
  hookMetrics: HookMetricsStorage | undefined;
  metrics: OperatorMetrics | undefined;
  proxyHookJsonLogs: boolean | undefined;
  activity: Activity;
  /** The hook's current snapshots (its bindings' monitors). */
  snapshots: (hook: Hook) => SnapshotSource;
  /** Go's `activation` label of the moment. */
  activation: () => string;
}

const contextBinding = (c: BindingContext): string => (c.type === 'onStartup' ? 'onStartup' : c.binding);

/** The bindings of a run's contexts, once each, in order ("a,b"); undefined without contexts. */
function bindingsOf(contexts: readonly BindingContext[]): string | undefined {
  // one context is most runs: no arrays
  if (contexts.length <= 1) return contexts.length ? contextBinding(contexts[0]!) : undefined;
  return [...new Set(contexts.map(contextBinding))].join(',');
}

export class HookRunner {
  private readonly limiters = new Map<string, RateLimiter>();
  /** module → the end of its last hook run (kept once settled): one module's hooks never run at the same time. */
  private readonly moduleHookChains = new Map<string, Promise<unknown>>();

  constructor(private readonly opts: HookRunnerOptions) {}

  /** Waits for the hook's rate limit (`settings`), if it has one; false when the wait was cut short. */
  async rateLimit(hook: Hook, signal: AbortSignal): Promise<boolean> {
    const s = hook.config.settings;
    if (!s || s.executionMinIntervalMs <= 0) return true;
    let limiter = this.limiters.get(hook.id);
    if (!limiter) this.limiters.set(hook.id, (limiter = new RateLimiter(s.executionMinIntervalMs, s.executionBurst)));
    return limiter.take(signal);
  }

  /** Runs a global hook with its snapshots and applies every output. */
  runGlobalHook(hook: Hook, contexts: BindingContext[], bindingType: BindingType, queue: string): Promise<HookRunOutcome> {
    return this.withOutputs(hook, bindingType, queue, contexts, (rt) => this.opts.manager.runGlobalHook(hook, contexts, this.opts.snapshots(hook), rt));
  }

  /** Runs a module hook with its snapshots and applies every output. */
  runModuleHook(module: string, hook: Hook, contexts: BindingContext[], bindingType: BindingType, queue: string): Promise<HookRunOutcome> {
    // hooks of one module may be queued in several queues (parallel and named ones): one at a time
    const before = this.moduleHookChains.get(module) ?? Promise.resolve();
    const run = before.then(() =>
      this.withOutputs(hook, bindingType, queue, contexts, (rt) => this.opts.manager.runModuleHook(module, hook, contexts, this.opts.snapshots(hook), rt)),
    );
    // settles with nothing (the outcome is not kept); the entry stays, one settled promise per module:
    // deleting it whenever a chain ended made V8 allocate the map a new table in its old generation
    const tail = run.then(
      () => undefined,
      () => undefined,
    );
    this.moduleHookChains.set(module, tail);
    return run;
  }

  /**
   * Runs a hook for a webhook request at once, outside every queue and the module's chain (shell-operator
   * runs them synchronously), with the binding's own timeout; every output is applied as for other runs.
   */
  runWebhookHook(hook: Hook, contexts: BindingContext[], bindingType: BindingType, timeoutMs: number): Promise<HookRunOutcome> {
    const snapshots = this.opts.snapshots(hook);
    return this.withOutputs(hook, bindingType, 'webhook', contexts, (rt) =>
      hook.module ? this.opts.manager.runModuleHook(hook.module, hook, contexts, snapshots, { ...rt, timeoutMs }) : this.opts.manager.runGlobalHook(hook, contexts, snapshots, { ...rt, timeoutMs }),
    );
  }

  private async withOutputs(
    hook: Hook,
    bindingType: BindingType,
    queue: string,
    contexts: BindingContext[],
    run: (rt: { log: ReturnType<typeof hookLineLogger>; proxyJsonLogs?: boolean }) => Promise<HookRunOutcome>,
  ): Promise<HookRunOutcome> {
    const label = hookLabel(hook);
    const binding = bindingsOf(contexts) ?? bindingType;
    const log = hookLineLogger(this.opts.logger, { module: hook.module, hook: hook.name, binding, queue });
    let outcome: HookRunOutcome;
    const at = Date.now();
    const started = performance.now();
    const record = (error?: unknown, usage?: CpuUsage) => {
      const durationMs = performance.now() - started;
      const cpu = usage && { userSeconds: usage.user, sysSeconds: usage.sys, ...(usage.maxRssBytes === undefined ? {} : { maxRssBytes: usage.maxRssBytes }) };
      this.opts.metrics?.hookRun({ module: hook.module, hook: hook.name, binding: bindingType, queue, activation: this.opts.activation() }, durationMs / 1000, cpu);
      this.opts.activity.hookRun({ at, durationMs, hook: hook.name, module: hook.module, binding, queue, result: error === undefined ? 'success' : 'error', ...(error === undefined ? {} : { error: errorMessage(error) }) });
    };
    try {
      outcome = await run({ log, proxyJsonLogs: this.opts.proxyHookJsonLogs });
      record(undefined, outcome.outputs.usage);
    } catch (e) {
      record(e);
      if (e instanceof HookRunError && e.kubernetesOnFailure.length && this.opts.kube) {
        await this.opts.kube.applyOperations(e.kubernetesOnFailure, { hook: label, hookFailed: true });
      }
      throw e;
    }
    const { outputs, savedConfig } = outcome;
    if (savedConfig && this.opts.config) await this.opts.config.writeSection(savedConfig.key, savedConfig.values);
    if (outputs.metrics.length) this.opts.hookMetrics?.apply(hook.name, outputs.metrics, hook.module);
    if (outputs.kubernetes.length) {
      if (!this.opts.kube) throw new Error(`hook ${label} wrote Kubernetes operations, but the operator runs without a Kubernetes API`);
      await this.opts.kube.applyOperations(outputs.kubernetes, { hook: label, hookFailed: false });
    }
    return outcome;
  }
}
