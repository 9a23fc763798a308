/**
 * What the HTTP server and the metrics registry read from a running operator. The operator may not
 * exist yet (the server starts first, so that probes answer during a long start): every source
 * answers "not ready" / empty until it does.
 */
import type { HttpSources } from '../server/http-server.js';
import type { HookMetricsStorage } from '../metrics/hook-metrics.js';
import type { OperatorMetrics, ScrapeSources } from '../metrics/operator-metrics.js';
import { ConvergeStatus } from './converge-status.js';
import type { Runtime } from './runtime.js';
import type { HookConfig } from '../hooks/config-types.js';
import { moduleObjectsJson, statusJson } from './status.js';

const LIFECYCLE_KEYS = ['onStartup', 'beforeAll', 'afterAll', 'beforeHelm', 'afterHelm', 'beforeDeleteHelm', 'afterDeleteHelm'] as const;

function bindingCount(config: HookConfig): number {
  const c = config as unknown as Record<string, unknown>;
  return config.kubernetes.length + config.schedule.length + LIFECYCLE_KEYS.filter((k) => c[k] !== undefined).length;
}

export type RuntimeRef = () => Runtime | undefined;

export function metricSources(ref: RuntimeRef): ScrapeSources {
  return {
    queues: () =>
      ref()
        ?.queues.queues()
        .map((q) => {
          const head = q.tasks()[0];
          const meta = head?.metadata;
          const module = meta && 'module' in meta ? meta.module : '';
          const hook = meta && 'hook' in meta ? meta.hook.name : '';
          return { queue: q.name, length: q.length, ...(head ? { head: { taskType: head.type, module, hook } } : {}) };
        }) ?? [],
    modules: () => {
      const rt = ref();
      return rt ? rt.manager.set.modules.map((m) => ({ name: m.def.name, enabled: rt.isEnabled(m.def.name), critical: m.def.critical, maintenance: rt.manager.inMaintenance(m.def.name) })) : [];
    },
    hooks: () => {
      const rt = ref();
      if (!rt) return [];
      return [...rt.manager.globalHooks, ...rt.manager.loadedModuleHooks()].map((h) => ({
        module: h.module ?? '',
        hook: h.name,
        bindings: bindingCount(h.config),
      }));
    },
    moduleHealth: () => {
      const rt = ref();
      if (!rt) return [];
      return rt.manager.enabledModules.flatMap((module) => {
        const h = rt.health.refresh(module);
        return h ? [{ module, health: h.health, ...(h.objects ? { objects: h.objects } : {}) }] : [];
      });
    },
    snapshots: () => {
      const rt = ref();
      if (!rt) return [];
      return [...rt.manager.globalHooks, ...rt.manager.loadedModuleHooks()].flatMap((h) =>
        h.config.kubernetes.map((b) => ({
          module: h.module ?? '',
          hook: h.name,
          binding: b.name,
          queue: b.queue,
          kind: b.kind,
          objects: rt.bindingsOf(h).snapshotSize(b.name),
          bytes: rt.bindingsOf(h).retainedBytes(b.name),
        })),
      );
    },
  };
}

const notStarted = new ConvergeStatus();

export function httpSources(ref: RuntimeRef, metrics: OperatorMetrics, hookMetrics: HookMetricsStorage, readiness?: HttpSources['readiness']): HttpSources {
  const converge = () => ref()?.convergeStatus ?? notStarted;
  return {
    ready: () => converge().ready,
    ...(readiness ? { readiness } : {}),
    convergeText: () => converge().text(),
    convergeJson: () => converge().json(),
    metrics: async () => ({ contentType: metrics.contentType, body: await metrics.renderParts() }),
    hookMetrics: () => hookMetrics.render(),
    status: (module?: string) => {
      const rt = ref();
      if (module !== undefined) return rt ? moduleObjectsJson(rt, module) : undefined;
      return rt ? statusJson(rt) : { generatedAt: Date.now(), converge: { phase: 'NotStarted', inProgressTasks: 0, count: 0, convergePhase: 'StandBy', restarts: 0 }, modules: [], queues: [], hookRuns: [] };
    },
  };
}
