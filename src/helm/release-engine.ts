/**
 * The release engine, the operator's Helm port: `helm upgrade --install`, `helm uninstall`, release
 * listing, render and diff for module charts, without a helm binary. Releases are Helm 3 records
 * (release-secrets.ts); the work is done by the release actions (release-actions/: decide, then
 * install-or-upgrade, uninstall, prune, CRDs, status check). Here: the wiring, one operation per
 * release at a time, and the hand-over of deployed releases to the resources monitor.
 *
 * upgradeInstall skips the work when the digest of the release's inputs (chart files, values, ...)
 * equals the one stored on the last deployed revision and every object of that revision still exists
 * (LIFECYCLE-STEPS step 5; release-actions/decide.ts, change-detection.ts).
 */
import { performance } from 'node:perf_hooks';
import type { KubeConfig } from '../kube/kube-config.js';
import type { RestMapper } from '../kube/mapper.js';
import type { JsonObject } from '../util/json.js';
import { loadChart } from './chart.js';
import { manifestDiff } from './diff.js';
import { HookRunner } from './hooks.js';
import { apiMessage, ClusterObjects, manifestObjects, type PlacedObject } from './objects.js';
import { isPending, type Release } from './release-record.js';
import { ReleaseStore } from './release-secrets.js';
import { waitForRelease } from './release-wait.js';
import { ReleaseMonitor, type DriftMode, type DriftReport, type ReleaseObjectHealth } from './release-object-monitor.js';
import { ReleaseRenderer } from './release-render.js';
import { ownership, placedObjects, type CrdMode, type ReleaseContext, type ReleaseLog } from './release-actions/context.js';
import { absentObjects } from './release-actions/absent-objects.js';
import { decideModuleRun } from './release-actions/decide.js';
import { inputsDigest } from './release-actions/change-detection.js';
import { CRD_READY_MS, ensureModuleCrdsNow, installReleaseCrds, type EnsuredCrds } from './release-actions/crds.js';

/** Deckhouse's kind of a CRD conversion webhook configuration, applied ahead of the release (ModuleEnsureHooks). */
export const CONVERSION_WEBHOOK_KIND = 'ConversionWebhook';
import { installOrUpgrade } from './release-actions/install-or-upgrade.js';
import { uninstallRelease } from './release-actions/uninstall.js';
import { ReleaseStatusCheck } from './release-actions/status-check.js';

export { CHECKSUM_LABEL } from './release-actions/change-detection.js';
export type { ReleaseLog } from './release-actions/context.js';

/** `unmanaged`: a release in maintenance (`noResourceReconciliation`) left alone. */
export type ReleaseOutcome = 'installed' | 'upgraded' | 'unchanged' | 'unmanaged';

/**
 * The Go operator's release label of its maintenance mode: "true" on the revisions deployed in the
 * module's NoResourceReconciliation state, "false" (or absent) otherwise.
 */
export const MAINTENANCE_LABEL = 'maintenance.deckhouse.io/no-resource-reconciliation';

export type HelmOperation = 'template' | 'check-upgrade' | 'upgrade';

export interface ReleaseRequest {
  release: string;
  namespace: string;
  chartDir: string;
  values: JsonObject;
  /** Told how long each step took (Go's `helm_operation_seconds`): the render, the check, the upgrade. */
  onOperation?: (operation: HelmOperation, seconds: number) => void;
  /** Leave the chart's crds/ alone (Helm's and the Go operator's `SkipCRDs`). */
  skipCrds?: boolean;
  /**
   * The module's maintenance state NoResourceReconciliation (the Go operator's Unmanaged): the release
   * gets one more revision labelled `MAINTENANCE_LABEL: "true"`; once its deployed revision has that
   * label, runs leave it alone (`unmanaged`) and the resources monitor stops watching it.
   */
  noResourceReconciliation?: boolean;
  /** Wait for the release's objects to be ready (Helm's `--wait`); absent: the engine's `wait`. */
  wait?: boolean;
  /** What asked for `wait`, named in the timeout message in place of `--helm-wait`. */
  waitSource?: string;
}

export interface HelmReleasesOptions {
  kc: KubeConfig;
  mapper: RestMapper;
  /** Revisions kept per release (`--helm-history-max`, default 10); 0 keeps all. */
  historyMax?: number;
  /** Field manager of server-side apply (default `addon-operator`). */
  fieldManager?: string;
  /**
   * Labels added to every object of a release's manifest and to the module's CRDs (`crds: 'module'`),
   * as the Go operator's post-renderer and crd-installer add `--crd-extra-labels`; the manifest Helm
   * stores is the post-rendered one (post-render.ts). Not added to Helm hooks or crds/ CRDs in `helm`
   * mode (Helm 3.19 post-renders the manifest only).
   */
  extraLabels?: Record<string, string>;
  /** Labels of each new revision's storage Secret (Helm's `--labels`), beside `moduleChecksum`. */
  releaseLabels?: Record<string, string>;
  /** Objects of one kind applied at once (default 8). */
  applyConcurrency?: number;
  /** How long a Helm hook's Job or Pod, or its deletion, is waited for (`--helm-timeout`, default 20 min). */
  hookTimeoutMs?: number;
  /**
   * Helm's `--wait` for every release (`--helm-wait`; a request's `wait` decides for its release): an
   * install or upgrade, or a run that found the release unchanged, resolves once the objects of its
   * deployed revision are ready (release-wait.ts), within `hookTimeoutMs`; needs the monitor.
   */
  wait?: boolean;
  /** How often a hook Job or Pod still waited for is logged (`waiting for hook Job X: 0/1 succeeded, ...`; default 30 s). */
  hookProgressMs?: number;
  /**
   * crds/ as Helm treats it (`helm`, the default: created when absent, never changed, `skipCrds`
   * honoured), or as the Go operator does (`module`): Helm is told SkipCRDs, and the module's
   * `.yaml` files under `crds/` (but `doc-` and `_` ones; subcharts' crds/ never) are created or updated before the
   * release, as its ModuleEnsureCRDs task does.
   */
  crds?: CrdMode;
  /** How long a CRD just created or applied is waited for: Established, then its kind served (default 60 s, Helm's). */
  crdReadyMs?: number;
  /** How long discovered capabilities are reused (default 30 s). */
  capabilitiesTtlMs?: number;
  log?: ReleaseLog;
  /**
   * Watch the objects of deployed releases (release-object-monitor.ts): absent objects raise `onAbsent`
   * (LIFECYCLE-STEPS step 15), drifted fields are restored (`fix`, the default) or reported (`warn`);
   * no-change runs check absence against the watches instead of reading every object.
   */
  monitor?: {
    /** The client of the monitor's watches and reads (HELM_MONITOR_KUBE_CLIENT_*; default `kc`). */
    kc?: KubeConfig;
    drift?: DriftMode;
    onAbsent?: (release: string, resources: string[]) => void;
    onDrift?: (report: DriftReport) => void;
    /** The status of an object of the release changed (read it with `objectHealth`). */
    onHealth?: (release: string) => void;
    burstMs?: number;
    /**
     * The Go monitor's HelmReleaseUnexpectedStatus (release-actions/status-check.ts): every
     * `statusCheckMs` (default the Go period, 4m30s plus up to 59 s), a watched release whose last
     * revision is not `deployed` (or that has none left) and that no operation holds is reported.
     */
    onUnexpectedStatus?: (release: string, status: string) => void;
    statusCheckMs?: number;
  };
  /** Clock (tests). */
  now?: () => Date;
}

/** Helm's and the Go operator's default timeout (`--helm-timeout`). */
const DEFAULT_HOOK_TIMEOUT_MS = 20 * 60_000;

export class HelmReleases {
  private readonly ctx: ReleaseContext;
  private readonly renderer: ReleaseRenderer;
  private readonly monitor?: ReleaseMonitor;
  private readonly statusCheck?: ReleaseStatusCheck;
  /** One operation at a time per release. */
  private readonly locks = new Map<string, Promise<unknown>>();
  private readonly wait: boolean;
  private readonly waitMs: number;

  constructor(options: HelmReleasesOptions) {
    this.wait = options.wait ?? false;
    this.waitMs = options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS;
    const log = options.log ?? { info: () => {}, warn: () => {} };
    const now = options.now ?? (() => new Date());
    const store = new ReleaseStore(options.kc, { warn: (m) => log.warn(m), now });
    const fieldManager = options.fieldManager ?? 'addon-operator';
    const extraLabels = options.extraLabels ?? {};
    if (options.monitor) {
      this.monitor = new ReleaseMonitor({
        mapper: options.mapper,
        fieldManager,
        ...options.monitor,
        kc: options.monitor.kc ?? options.kc,
        log,
        reapply: (release, namespace, p) =>
          this.locked(`${namespace}/${release}`, async () => {
            if (this.monitor?.tracks(p)) await this.ctx.objects.apply(p, ownership(release, namespace));
          }),
        dryRunApply: (release, namespace, p) => this.ctx.objects.applyDryRun(p, fieldManager, ownership(release, namespace)),
      });
      const onUnexpectedStatus = options.monitor.onUnexpectedStatus;
      if (onUnexpectedStatus) {
        this.statusCheck = new ReleaseStatusCheck({ store, log, onUnexpectedStatus, busy: (key) => this.locks.has(key), ...(options.monitor.statusCheckMs !== undefined ? { periodMs: options.monitor.statusCheckMs } : {}) });
      }
    }
    const monitor = this.monitor;
    const objects = new ClusterObjects(options.kc, options.mapper, fieldManager, monitor ? (p, live) => monitor.applied(p, live) : undefined);
    this.ctx = {
      store,
      objects,
      hooks: new HookRunner({
        kc: options.kc,
        mapper: options.mapper,
        objects,
        timeoutMs: options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
        ...(options.hookProgressMs !== undefined ? { progressMs: options.hookProgressMs } : {}),
        record: (r) => store.update(r),
        log,
        now,
      }),
      log,
      now,
      historyMax: options.historyMax ?? 10,
      extraLabels,
      releaseLabels: options.releaseLabels ?? {},
      applyConcurrency: Math.max(1, options.applyConcurrency ?? 8),
      crdMode: options.crds ?? 'helm',
      crdReadyMs: options.crdReadyMs ?? CRD_READY_MS,
    };
    this.renderer = new ReleaseRenderer({ kc: options.kc, mapper: options.mapper, extraLabels, capabilitiesTtlMs: options.capabilitiesTtlMs ?? 30_000, log });
  }

  async upgradeInstall(request: ReleaseRequest): Promise<ReleaseOutcome> {
    const outcome = await this.locked(`${request.namespace}/${request.release}`, () => this.monitoredUpgradeInstall(request));
    // drift made while the operator was not running is fixed or reported before the run goes on
    if (outcome !== 'unmanaged') await this.monitor?.startChecked(request.release, request.namespace);
    if ((request.wait ?? this.wait) && outcome !== 'unmanaged') {
      const source = (request.wait !== undefined && request.waitSource) || '--helm-wait';
      if (!this.monitor) throw new Error(`release ${request.release}: ${source} needs the resources monitor`);
      await waitForRelease(this.monitor, request.release, request.namespace, this.waitMs, source);
    }
    return outcome;
  }

  uninstall(release: string, namespace: string): Promise<boolean> {
    return this.locked(`${namespace}/${release}`, async () => {
      await this.monitor?.forget(release, namespace);
      this.statusCheck?.remove(release, namespace);
      return uninstallRelease(this.ctx, release, namespace);
    });
  }

  /** What the resources monitor watches, per release: `ns/Kind/name` of each object. */
  watched(): Record<string, string[]> {
    return this.monitor?.watched() ?? {};
  }

  /** The status of each object of the release's deployed revision, from the watches; undefined when not watched. */
  objectHealth(release: string, namespace: string): ReleaseObjectHealth[] | undefined {
    return this.monitor?.health(release, namespace);
  }

  /** Stops the resources monitor's watches and status checks. */
  async stop(): Promise<void> {
    this.statusCheck?.stop();
    await this.monitor?.stop();
  }

  listReleases(namespace: string): Promise<string[]> {
    return this.ctx.store.names(namespace);
  }

  /**
   * The manifest the release would get now, rendered as its next install or upgrade would render it
   * (`lookup` offline, as `helm template`), for `module render`; nothing is applied or recorded.
   */
  async render(request: ReleaseRequest): Promise<string> {
    const chart = loadChart(request.chartDir, { syntheticName: request.release });
    return (await this.renderer.forAction(chart, request, await this.nextAction(request))).manifest;
  }

  /**
   * What applying the release's manifest now would change (`module render --diff`): a unified diff of
   * the live objects and the dry-run server-side apply results, or `No diff found`.
   */
  async diff(request: ReleaseRequest): Promise<string> {
    const chart = loadChart(request.chartDir, { syntheticName: request.release });
    const rendered = await this.renderer.forAction(chart, request, await this.nextAction(request));
    const placed = [];
    for (const o of manifestObjects(rendered.manifests)) placed.push(await this.ctx.objects.placeOrFail(o, request.namespace));
    return manifestDiff(this.ctx.objects, placed);
  }

  /** Objects of the last deployed revision that are missing from the cluster (for drift checks). */
  async absentObjects(release: string, namespace: string): Promise<string[]> {
    const deployed = (await this.ctx.store.history(release, namespace)).filter((r) => r.info.status === 'deployed').at(-1);
    if (!deployed) return [];
    return absentObjects(this.ctx.objects, deployed);
  }

  /**
   * The Go operator's ModuleEnsureCRDs ahead of a converge: the module directory's crds/ CRDs created
   * or updated (with the extra labels) and waited for until served; their names and API versions.
   */
  async ensureModuleCrds(release: string, moduleDir: string): Promise<EnsuredCrds> {
    const applied = await ensureModuleCrdsNow(this.ctx, moduleDir, release);
    if (applied.crds.length) this.renderer.invalidateCapabilities();
    return applied;
  }

  /**
   * The Go operator's ModuleEnsureHooks (#790): the release's objects of kind ConversionWebhook, as its
   * next install or upgrade renders them, created or updated ahead of that release, which then adopts
   * them. Returns how many were applied.
   */
  async ensureConversionWebhooks(request: ReleaseRequest): Promise<number> {
    const chart = loadChart(request.chartDir, { syntheticName: request.release });
    const rendered = await this.renderer.forAction(chart, request, await this.nextAction(request));
    const webhooks = manifestObjects(rendered.manifests).filter((o) => o.kind === CONVERSION_WEBHOOK_KIND);
    for (const o of webhooks) {
      const placed = await this.ctx.objects.placeOrFail(o, request.namespace);
      try {
        await this.ctx.objects.apply(placed, { labels: {}, annotations: {} });
      } catch (e) {
        throw new Error(`release ${request.release}: applying ${o.kind} ${o.name} (${o.source}) ahead of the release failed: ${apiMessage(e)}`, { cause: e });
      }
    }
    return webhooks.length;
  }

  /** Forgets the discovered capabilities (after CRDs were added, say). */
  invalidateCapabilities(): void {
    this.renderer.invalidateCapabilities();
  }

  private async locked<T>(key: string, fn: () => Promise<T>): Promise<T> {
    const before = this.locks.get(key) ?? Promise.resolve();
    const run = before.then(fn, fn);
    const tail = run.catch(() => {});
    this.locks.set(key, tail);
    try {
      return await run;
    } finally {
      if (this.locks.get(key) === tail) this.locks.delete(key);
    }
  }

  /** The monitor leaves the release alone during the run, then watches what its deployed revision owns. */
  private async monitoredUpgradeInstall(req: ReleaseRequest): Promise<ReleaseOutcome> {
    const monitor = this.monitor;
    if (!monitor) return (await this.run(req)).outcome;
    monitor.pause(req.release, req.namespace);
    try {
      const { outcome, deployed, applied } = await this.run(req);
      if (outcome === 'unmanaged') {
        // the Go operator's StopMonitor: no absent objects re-installed, no drift fixed, no status checks
        await monitor.forget(req.release, req.namespace);
        this.statusCheck?.remove(req.release, req.namespace);
        return outcome;
      }
      if (outcome === 'unchanged' && monitor.isTracking(req.release, req.namespace)) return outcome;
      // not awaited: a watch that cannot list yet must not hold the module run
      if (deployed) {
        void monitor.track(req.release, req.namespace, applied ?? (await placedObjects(this.ctx.objects, deployed.manifest, req.namespace)));
        this.statusCheck?.add(req.release, req.namespace);
      }
      return outcome;
    } finally {
      monitor.resume(req.release, req.namespace);
    }
  }

  /**
   * The deployed revision's objects missing from the cluster, as the resources monitor's watches see
   * them. At the release's first run in this process it is tracked now, so its kinds are listed once
   * (shared with the releases before it) instead of one read per object; its CRDs, which the monitor
   * leaves out, and every object when a watch cannot list, are read. An upgrade follows when some
   * are missing: the monitor is paused for it.
   */
  private async absentOf(req: ReleaseRequest, deployed: Release): Promise<string[]> {
    const monitor = this.monitor;
    if (!monitor) return absentObjects(this.ctx.objects, deployed);
    if (!monitor.isTracking(req.release, req.namespace)) {
      const placed = await placedObjects(this.ctx.objects, deployed.manifest, req.namespace);
      void monitor.track(req.release, req.namespace, placed);
      this.statusCheck?.add(req.release, req.namespace);
      await monitor.listed(req.release, req.namespace);
    }
    const seen = monitor.absent(req.release, req.namespace);
    const missing = seen ? [...seen, ...(await absentObjects(this.ctx.objects, deployed, (o) => o.kind === 'CustomResourceDefinition'))] : await absentObjects(this.ctx.objects, deployed);
    if (missing.length) monitor.pause(req.release, req.namespace);
    return missing;
  }

  /**
   * One module run: the decision, then the action it names: the CRDs, the render of that action
   * (`lookup` from the cluster), the install or upgrade. The outcome and the release's deployed
   * revision after it; after an install or upgrade, also the objects it applied.
   */
  private async run(req: ReleaseRequest): Promise<{ outcome: ReleaseOutcome; deployed: Release | undefined; applied?: PlacedObject[] }> {
    let stepStarted = performance.now();
    const step = (operation: HelmOperation) => {
      const now = performance.now();
      req.onOperation?.(operation, (now - stepStarted) / 1000);
      stepStarted = now;
    };
    const chart = loadChart(req.chartDir, { syntheticName: req.release });
    const capabilities = await this.renderer.capabilitiesNow();
    const wantUnmanaged = req.noResourceReconciliation === true;
    // entering or leaving maintenance: a revision with the label's new value, even with the inputs unchanged
    const plan = await decideModuleRun(this.ctx, { ...req, chart, capabilities, keep: (d) => (d.labels?.[MAINTENANCE_LABEL] === 'true') === wantUnmanaged }, (deployed) => this.absentOf(req, deployed));
    const unmanagedNow = plan.deployed?.labels?.[MAINTENANCE_LABEL] === 'true';
    if (wantUnmanaged && unmanagedNow) {
      this.ctx.log.info(`release ${req.release}: in maintenance (NoResourceReconciliation), helm upgrade skipped`);
      return { outcome: 'unmanaged', deployed: plan.deployed };
    }
    const releaseLabels: Record<string, string> = wantUnmanaged ? { [MAINTENANCE_LABEL]: 'true' } : unmanagedNow ? { [MAINTENANCE_LABEL]: 'false' } : {};
    step('check-upgrade');
    if (plan.action === 'unchanged') return { outcome: 'unchanged', deployed: plan.deployed };
    // the digest with the API versions served now (after CRDs were added)
    const digestNow = async () => {
      this.renderer.invalidateCapabilities();
      return inputsDigest({ chart, values: req.values, capabilities: await this.renderer.capabilitiesNow(), moduleCrds: plan.moduleCrds, extraLabels: this.ctx.extraLabels });
    };
    const crdsInstalled = await installReleaseCrds(this.ctx, chart, { ...req, moduleCrds: plan.moduleCrds });
    // the render and the digest the revision keeps see the kinds those CRDs added
    if (crdsInstalled) plan.checksum = await digestNow();
    const rendered = await this.renderer.forAction(chart, req, { isUpgrade: plan.action === 'upgrade', revision: plan.revision }, this.renderer.newLookup());
    step('template');
    // CRDs among the templates' objects are served once applied: the digest the revision keeps sees
    // them, or the chart's next converge would find its API versions changed and upgrade for nothing
    const settledChecksum = async (applied: PlacedObject[]) =>
      applied.some((p) => p.info.kind === 'CustomResourceDefinition' && p.info.group === 'apiextensions.k8s.io') ? digestNow() : undefined;
    const { record, applied } = await installOrUpgrade(this.ctx, { ...req, releaseLabels }, plan, rendered, crdsInstalled, settledChecksum);
    step('upgrade');
    return { outcome: plan.action === 'upgrade' ? 'upgraded' : 'installed', deployed: record, applied };
  }

  /** How the next install or upgrade would render: an install when there is no revision yet, else revision N+1. */
  private async nextAction(req: ReleaseRequest): Promise<{ isUpgrade: boolean; revision: number }> {
    const last = (await this.ctx.store.history(req.release, req.namespace)).filter((r) => !isPending(r.info.status)).at(-1);
    return { isUpgrade: last !== undefined, revision: (last?.version ?? 0) + 1 };
  }
}
