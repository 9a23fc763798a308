/**
 * The operator's routes on the debug socket (reference/addon-operator.md §3.2): queues, runtime
 * parameters, global and module values, config, patches, snapshots, rendered manifests.
 */
import { dumpQueue, dumpQueueList, dumpQueueListText, dumpQueueText } from '../queue/index.js';
import { BadRequestError, NotFoundError, Ordered, type DebugServer } from '../server/debug-server.js';
import type { Hook } from '../hooks/hook.js';
import type { StoredPatch } from '../values/scope.js';
import type { Runtime } from './runtime.js';
import type { RuntimeParams } from './runtime-params.js';
import { moduleStates } from './status.js';
import { parseGoDuration } from '../util/duration.js';

const FORMATS = ['json', 'yaml', 'text'] as const;
const STRUCTURED = ['json', 'yaml'] as const;

const bool = (v: string | null) => v === 'true' || v === '1' || v === 't' || v === 'T' || v === 'TRUE' || v === 'True';

/** ValuesPatch as Go serialises it: `[{"Operations":[{"op","path","value"}]}]`. */
function patchesDump(patches: readonly StoredPatch[]): Ordered {
  return new Ordered(patches.map((p) => ({ Operations: p.ops.map((o) => ('value' in o ? { op: o.op, path: o.path, value: o.value } : { op: o.op, path: o.path })) })));
}

/** `{binding: {snapshot, operations}}` of one hook, as shell-operator's SnapshotsDump: null without kubernetes bindings. */
function snapshotsDump(rt: Runtime, hook: Hook): Record<string, unknown> | null {
  return hook.config.kubernetes.length ? rt.bindingsOf(hook).snapshotsDump() : null;
}

function moduleListText(rt: Runtime): string {
  const rows = moduleStates(rt);
  const w = Math.max(6, ...rows.map((r) => r.name.length));
  const sw = Math.max(5, ...rows.map((r) => r.state.length));
  const health = rows.map((r) => {
    const h = rt.health.refresh(r.name);
    return h ? `${h.health}: ${h.reason}` : '-';
  });
  const hw = Math.max(6, ...health.map((h) => h.length));
  // the WAITS FOR column while functional modules of a converge wait for what they require
  const waits = rows.some((r) => r.waitsFor) ? rows.map((r) => r.waitsFor?.join(',') ?? '-') : undefined;
  const ww = Math.max(9, ...(waits ?? []).map((x) => x.length));
  const waitsCell = (x: string) => (waits ? `${x.padEnd(ww)}  ` : '');
  return [
    `${'MODULE'.padEnd(w)}  ${'STATE'.padEnd(sw)}  ${'HEALTH'.padEnd(hw)}  ${waitsCell('WAITS FOR')}REASON`,
    ...rows.map((r, i) => `${r.name.padEnd(w)}  ${r.state.padEnd(sw)}  ${health[i]!.padEnd(hw)}  ${waitsCell(waits?.[i] ?? '')}${r.reason}`),
  ].join('\n') + '\n';
}

export function registerDebugRoutes(server: DebugServer, rt: Runtime, params: RuntimeParams): void {
  const store = rt.manager.store;
  const module = (name: string) => {
    const m = rt.manager.set.byName.get(name);
    if (!m) throw new NotFoundError(`module "${name}" not found; modules: ${rt.manager.set.modules.map((x) => x.def.name).join(', ') || 'none'}`);
    return m;
  };

  server
    .get('/', () => 'debug endpoint is alive')
    .get('/queue/main.{format}', (r) => (r.format === 'text' ? dumpQueueText(rt.main) : new Ordered(dumpQueue(rt.main))), FORMATS)
    .get(
      '/queue/list.{format}',
      (r) => {
        const opts = { showEmpty: bool(r.query.get('showEmpty')), mainName: rt.queues.mainName };
        return r.format === 'text' ? dumpQueueListText(rt.queues.queues(), opts) : new Ordered(dumpQueueList(rt.queues.queues(), opts));
      },
      FORMATS,
    )
    .get('/config/list.{format}', (r) => (r.format === 'text' ? params.text() : params.list()), FORMATS)
    .post('/config/set', (r) => {
      const name = r.form.get('name') ?? '';
      const value = r.form.get('value') ?? '';
      const duration = r.form.get('duration') ?? '';
      if (!name) throw new BadRequestError("'name' parameter is required");
      if (!value) throw new BadRequestError("'value' parameter is required");
      let ms: number | undefined;
      if (duration) {
        try {
          ms = parseGoDuration(duration);
        } catch (e) {
          throw new BadRequestError(`'duration' parameter is invalid: ${e instanceof Error ? e.message : String(e)}`);
        }
      }
      params.set(name, value, ms);
      return undefined;
    })
    .get('/global/list.{format}', () => ({ globalHooks: rt.manager.globalHooks.map((h) => h.name).sort() }), STRUCTURED)
    .get('/global/values.{format}', () => store.global.effective(), STRUCTURED)
    .get('/global/config.{format}', () => store.global.configValues, STRUCTURED)
    .get('/global/patches.{format}', () => patchesDump(store.global.storedPatches), STRUCTURED)
    .get('/global/snapshots.{format}', () => Object.fromEntries(rt.manager.globalHooks.filter((h) => h.config.kubernetes.length).map((h) => [h.name, snapshotsDump(rt, h)])), STRUCTURED)
    .get('/module/list.{format}', (r) => {
      if (r.format === 'text') return moduleListText(rt);
      return { enabledModules: [...rt.manager.enabledModules].sort(), modules: moduleStates(rt).map(({ name, critical, enabled, state, reason, waitsFor }) => ({ name, critical, enabled, state, reason, ...(waitsFor ? { waitsFor } : {}) })) };
    }, FORMATS)
    .get('/module/resource-monitor.{format}', () => {
      const watched = rt.opts.helm.watched?.() ?? {};
      return Object.fromEntries(rt.manager.enabledModules.map((n) => [n, watched[n] ?? 'No monitor']));
    }, STRUCTURED)
    .get('/module/{name}/{type:(config|values)}.{format}', (r) => {
      const m = module(r.params.name!);
      const scope = m.values;
      const own = r.params.type === 'config' ? scope.configValues : scope.effective();
      if (!bool(r.query.get('global'))) return own;
      const global = r.params.type === 'config' ? store.global.configValues : store.global.effective();
      return { global, [m.def.valuesKey]: own };
    }, STRUCTURED)
    .get('/module/{name}/render', async (r) => {
      const m = module(r.params.name!);
      if (!m.def.hasChart) return undefined;
      const request = { release: m.def.name, namespace: rt.opts.namespace, chartDir: m.def.path, values: store.helmValues(m.def.valuesKey) };
      return bool(r.query.get('diff')) ? rt.opts.helm.diff(request) : rt.opts.helm.render(request);
    })
    .get('/module/{name}/patches.{format}', (r) => patchesDump(module(r.params.name!).values.storedPatches), ['json'])
    .get('/module/{name}/snapshots.{format}', (r) => {
      const name = module(r.params.name!).def.name;
      const hooks = rt.manager.loadedModuleHooks().filter((h) => h.module === name);
      return Object.fromEntries(hooks.map((h) => [h.name, snapshotsDump(rt, h)]));
    }, STRUCTURED)
    .get('/discovery', () => server.routeList(['/global/', '/module/']));
}
