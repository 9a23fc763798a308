/**
 * The release engine: `helm upgrade --install` / `helm uninstall` / release listing for module
 * charts, without a helm binary. Releases are Helm 3 records (release-store.ts); objects are applied
 * server-side with one field manager; objects dropped from the chart are deleted.
 *
 * upgradeInstall skips the work when the checksum of the values and the rendered manifest equals the
 * one stored on the last deployed revision (release label `moduleChecksum`, where the Go operator
 * keeps its own) and every object of that revision still exists (LIFECYCLE-STEPS step 5).
 */
import { readdirSync, readFileSync, type Dirent } from 'node:fs';
import { extname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { KubeConfig } from '../kube/kube-config.js';
import { KindNotServedError, type RestMapper } from '../kube/mapper.js';
import { checksumJson, type JsonObject } from '../util/json.js';
import { errorMessage } from '../util/errors.js';
import { loadChart, type Chart } from './chart.js';
import { defaultCapabilities, discoverCapabilities, type Capabilities } from './capabilities.js';
import { UNINSTALL_ORDER, releaseDocuments, sortByKind, splitManifests } from './manifests.js';
import { apiMessage, ClusterObjects, manifestObjects, type ManifestObject, type PlacedObject } from './objects.js';
import { goTime, isPending, storedChart, storedHook, type Release } from './release.js';
import { ReleaseStore } from './release-store.js';
import { manifestDiff } from './diff.js';
import { renderChart, type RenderResult } from './render.js';
import { ClusterLookup, renderLooking, type LookupFn } from './lookup.js';
import { HookError, HookRunner, type RunHookEvent } from './hooks.js';
import { ReleaseMonitor, type DriftMode, type DriftReport } from './monitor.js';
import { postRender, postRenderedManifest } from './post-render.js';

export type ReleaseOutcome = 'installed' | 'upgraded' | 'unchanged';

export interface ReleaseRequest {
  release: string;
  namespace: string;
  chartDir: string;
  values: JsonObject;
  /** Told how long each step took (Go's `helm_operation_seconds`): the render, the check, the upgrade. */
  onOperation?: (operation: HelmOperation, seconds: number) => void;
  /** Leave the chart's crds/ alone (Helm's and the Go operator's `SkipCRDs`). */
  skipCrds?: boolean;
}

export type HelmOperation = 'template' | 'check-upgrade' | 'upgrade';

export interface ReleaseLog {
  info(message: string): void;
  warn(message: string): void;
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
   * crds/ as Helm treats it (`helm`, the default: created when absent, never changed, `skipCrds`
   * honoured), or as the Go operator does (`module`): Helm is told SkipCRDs, and the module's
   * `.yaml` files under `crds/` (but `doc-` and `_` ones; subcharts' crds/ never) are created or updated before the
   * release, as its ModuleEnsureCRDs task does.
   */
  crds?: 'helm' | 'module';
  /** How long discovered capabilities are reused (default 30 s). */
  capabilitiesTtlMs?: number;
  log?: ReleaseLog;
  /**
   * Watch the objects of deployed releases (monitor.ts): absent objects raise `onAbsent` (LIFECYCLE-STEPS
   * step 15), drifted fields are restored (`fix`, the default) or reported (`warn`); no-change runs
   * check absence against the watches instead of reading every object.
   */
  monitor?: {
    drift?: DriftMode;
    onAbsent?: (release: string, resources: string[]) => void;
    onDrift?: (report: DriftReport) => void;
    burstMs?: number;
    /**
     * The Go monitor's HelmReleaseUnexpectedStatus: every `statusCheckMs` (default the Go period, 4m30s
     * plus up to 59 s), a watched release whose last revision is not `deployed` (or that has none left)
     * and that no operation holds is reported, with that status ('' when none).
     */
    onUnexpectedStatus?: (release: string, status: string) => void;
    statusCheckMs?: number;
  };
  /** Clock (tests). */
  now?: () => Date;
}

/** Release label with the checksum, and the value key older Go operators kept it under. */
export const CHECKSUM_LABEL = 'moduleChecksum';
const LEGACY_CHECKSUM_VALUE = '_addonOperatorModuleChecksum';
const KEEP_POLICY = 'helm.sh/resource-policy';
/** How long a custom resource waits for the CRD applied before it in the same release. */
const CRD_WAIT_MS = 15_000;
/** Helm's and the Go operator's default timeout (`--helm-timeout`). */
export const DEFAULT_HOOK_TIMEOUT_MS = 20 * 60_000;

/** Objects in runs of one kind, in their order (Helm's `batchPerform`). */
function kindBatches(objects: readonly ManifestObject[]): ManifestObject[][] {
  const out: ManifestObject[][] = [];
  for (const o of objects) {
    const last = out.at(-1);
    if (last && last[0]!.kind === o.kind) last.push(o);
    else out.push([o]);
  }
  return out;
}

/** Runs async work on a few items at a time. */
async function eachLimited<T, R>(items: readonly T[], limit: number, fn: (t: T) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class HelmReleases {
  private readonly store: ReleaseStore;
  private readonly objects: ClusterObjects;
  private readonly historyMax: number;
  private readonly extraLabels: Record<string, string>;
  private readonly log: ReleaseLog;
  private readonly now: () => Date;
  private readonly capabilitiesTtlMs: number;
  private readonly applyConcurrency: number;
  private readonly hooks: HookRunner;
  private readonly crdMode: 'helm' | 'module';
  private readonly monitor?: ReleaseMonitor;
  private capabilities?: { at: number; value: Promise<Capabilities> };
  /** One operation at a time per release. */
  private readonly locks = new Map<string, Promise<unknown>>();
  /** Deployed releases whose status is checked (`monitor.onUnexpectedStatus`), by `ns/name`. */
  private readonly statusChecked = new Map<string, { name: string; namespace: string }>();
  private statusTimer?: NodeJS.Timeout;
  private stopped = false;

  constructor(private readonly options: HelmReleasesOptions) {
    this.log = options.log ?? { info: () => {}, warn: () => {} };
    this.now = options.now ?? (() => new Date());
    this.store = new ReleaseStore(options.kc, { warn: (m) => this.log.warn(m), now: this.now });
    const fieldManager = options.fieldManager ?? 'addon-operator';
    if (options.monitor) {
      this.monitor = new ReleaseMonitor({
        kc: options.kc,
        mapper: options.mapper,
        fieldManager,
        ...options.monitor,
        log: this.log,
        reapply: (release, namespace, p) =>
          this.locked(`${namespace}/${release}`, async () => {
            if (this.monitor?.tracks(p)) await this.objects.apply(p, this.ownership(release, namespace));
          }),
      });
    }
    const monitor = this.monitor;
    this.objects = new ClusterObjects(options.kc, options.mapper, fieldManager, monitor ? (p, live) => monitor.applied(p, live) : undefined);
    this.historyMax = options.historyMax ?? 10;
    this.extraLabels = options.extraLabels ?? {};
    this.capabilitiesTtlMs = options.capabilitiesTtlMs ?? 30_000;
    this.applyConcurrency = Math.max(1, options.applyConcurrency ?? 8);
    this.crdMode = options.crds ?? 'helm';
    this.hooks = new HookRunner({
      kc: options.kc,
      mapper: options.mapper,
      objects: this.objects,
      timeoutMs: options.hookTimeoutMs ?? DEFAULT_HOOK_TIMEOUT_MS,
      record: (r) => this.store.update(r),
      log: this.log,
      now: this.now,
    });
  }

  upgradeInstall(request: ReleaseRequest): Promise<ReleaseOutcome> {
    return this.locked(`${request.namespace}/${request.release}`, () => this.monitoredUpgradeInstall(request));
  }

  uninstall(release: string, namespace: string): Promise<boolean> {
    return this.locked(`${namespace}/${release}`, async () => {
      await this.monitor?.forget(release, namespace);
      this.statusChecked.delete(`${namespace}/${release}`);
      return this.doUninstall(release, namespace);
    });
  }

  /** What the resources monitor watches, per release: `ns/Kind/name` of each object. */
  watched(): Record<string, string[]> {
    return this.monitor?.watched() ?? {};
  }

  /** Stops the resources monitor's watches and status checks. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.statusTimer);
    await this.monitor?.stop();
  }

  /** Checks the status of the watched releases now and then (see `monitor.onUnexpectedStatus`). */
  private scheduleStatusCheck(): void {
    const m = this.options.monitor;
    if (!m?.onUnexpectedStatus || this.statusTimer || this.stopped) return;
    const ms = m.statusCheckMs ?? 270_000 + Math.floor(Math.random() * 60_000);
    this.statusTimer = setTimeout(() => {
      void this.checkStatuses().finally(() => {
        this.statusTimer = undefined;
        this.scheduleStatusCheck();
      });
    }, ms);
    this.statusTimer.unref();
  }

  private async checkStatuses(): Promise<void> {
    for (const [key, r] of this.statusChecked) {
      if (this.locks.has(key)) continue; // an operation is under way: it settles the status
      let status: string;
      try {
        status = (await this.store.history(r.name, r.namespace)).at(-1)?.info.status ?? '';
      } catch (e) {
        this.log.warn(`release ${r.name}: cannot read its status: ${errorMessage(e)}`);
        continue;
      }
      if (status === 'deployed' || this.locks.has(key) || !this.statusChecked.has(key) || this.stopped) continue;
      this.log.info(`release ${r.name}: ${status ? `last revision is ${status}` : 'no revision left'}, not deployed`);
      this.options.monitor?.onUnexpectedStatus?.(r.name, status);
    }
  }

  listReleases(namespace: string): Promise<string[]> {
    return this.store.names(namespace);
  }

  /**
   * The manifest the release would get now, rendered as `upgradeInstall` renders it to compare
   * checksums (for `module render`); nothing is applied or recorded.
   */
  async render(request: ReleaseRequest): Promise<string> {
    const chart = loadChart(request.chartDir, { syntheticName: request.release });
    return this.probeRender(chart, request, await this.getCapabilities()).manifest;
  }

  /**
   * What applying the release's manifest now would change (`module render --diff`): a unified diff of
   * the live objects and the dry-run server-side apply results, or `No diff found`.
   */
  async diff(request: ReleaseRequest): Promise<string> {
    const chart = loadChart(request.chartDir, { syntheticName: request.release });
    const rendered = this.probeRender(chart, request, await this.getCapabilities());
    const placed = [];
    for (const o of manifestObjects(rendered.manifests)) placed.push(await this.objects.placeOrFail(o, request.namespace));
    return manifestDiff(this.objects, placed);
  }

  /** Objects of the last deployed revision that are missing from the cluster (for drift checks). */
  async absentObjects(release: string, namespace: string): Promise<string[]> {
    const deployed = (await this.store.history(release, namespace)).filter((r) => r.info.status === 'deployed').at(-1);
    if (!deployed) return [];
    return this.absent(deployed);
  }

  /** Forgets the discovered capabilities (after CRDs were added, say). */
  invalidateCapabilities(): void {
    this.capabilities = undefined;
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

  private getCapabilities(): Promise<Capabilities> {
    const now = Date.now();
    if (!this.capabilities || now - this.capabilities.at > this.capabilitiesTtlMs) {
      const value = discoverCapabilities(this.options.kc).catch((e: unknown) => {
        this.log.warn(`API discovery failed, rendering with Helm's default capabilities: ${(e as Error).message}`);
        this.capabilities = undefined;
        return defaultCapabilities();
      });
      this.capabilities = { at: now, value };
    }
    return this.capabilities.value;
  }

  /** The monitor leaves the release alone during the run, then watches what its deployed revision owns. */
  private async monitoredUpgradeInstall(req: ReleaseRequest): Promise<ReleaseOutcome> {
    const monitor = this.monitor;
    if (!monitor) return (await this.doUpgradeInstall(req)).outcome;
    monitor.pause(req.release, req.namespace);
    try {
      const { outcome, deployed, applied } = await this.doUpgradeInstall(req);
      if (outcome === 'unchanged' && monitor.isTracking(req.release, req.namespace)) return outcome;
      // not awaited: a watch that cannot list yet must not hold the module run
      if (deployed) {
        void monitor.track(req.release, req.namespace, applied ?? (await this.placedObjects(deployed.manifest, req.namespace)));
        this.statusChecked.set(`${req.namespace}/${req.release}`, { name: req.release, namespace: req.namespace });
        this.scheduleStatusCheck();
      }
      return outcome;
    } finally {
      monitor.resume(req.release, req.namespace);
    }
  }

  /**
   * The outcome and the release's deployed revision after it (read once: the history is not listed
   * again); after an install or upgrade, also the objects it applied (its manifest's, not parsed again).
   */
  private async doUpgradeInstall(req: ReleaseRequest): Promise<{ outcome: ReleaseOutcome; deployed: Release | undefined; applied?: PlacedObject[] }> {
    const { release: name, namespace, values } = req;
    let stepStarted = performance.now();
    const step = (operation: HelmOperation) => {
      const now = performance.now();
      req.onOperation?.(operation, (now - stepStarted) / 1000);
      stepStarted = now;
    };
    const chart = loadChart(req.chartDir, { syntheticName: name });
    let history = await this.store.history(name, namespace);
    const last = history.at(-1);
    // the Go operator's shouldRunHelmUpgrade: a last revision that is not `deployed` is upgraded
    const unexpected = last && last.info.status !== 'deployed' ? last : undefined;
    if (last && isPending(last.info.status)) {
      // an operation that never finished (the operator stopped): drop its record, as the Go operator does
      this.log.warn(`release ${name}: revision ${last.version} is ${last.info.status}, removing its record`);
      await this.store.delete(name, namespace, last.version);
      history = history.slice(0, -1);
    }
    const previous = history.at(-1);
    const deployed = history.filter((r) => r.info.status === 'deployed').at(-1);
    const capabilities = await this.getCapabilities();

    // `lookup` reads the cluster: both renders share the answers
    const lookup = new ClusterLookup(this.options.kc, this.options.mapper);
    const probe = await renderLooking(lookup, (fn) => this.probeRender(chart, req, capabilities, fn));
    step('template');
    // the module's CRD files count as the release's content (a changed file is applied by the next run)
    const moduleCrds = this.crdMode === 'module' ? moduleCrdFiles(req.chartDir) : [];
    const checksum = checksumJson(moduleCrds.length ? { values, manifest: probe.manifest, crds: moduleCrds } : { values, manifest: probe.manifest });
    if (unexpected) this.log.info(`release ${name}: revision ${unexpected.version} is ${unexpected.info.status}, not deployed: upgrading`);
    else if (previous && previous === deployed && storedChecksum(deployed) === checksum) {
      const absent = this.monitor?.absent(name, namespace) ?? (await this.absent(deployed));
      step('check-upgrade');
      if (absent.length === 0) return { outcome: 'unchanged', deployed };
      this.log.info(`release ${name}: ${absent.length} object(s) absent (${absent.slice(0, 3).join(', ')}${absent.length > 3 ? ', ...' : ''}), upgrading`);
    }

    const revision = (previous?.version ?? 0) + 1;
    // the probe is the release's render unless the chart can see the revision or the install/upgrade flag
    const rendered = readsRevision(chart, values)
      ? this.postRendered(await renderLooking(lookup, (fn) => renderChart(chart, values, { ...this.renderBase(req, capabilities), isUpgrade: previous !== undefined, revision, lookup: fn })))
      : probe;
    const record = this.newRecord(req, rendered, revision, checksum, deployed ?? previous, previous);
    if (this.historyMax > 0) await this.store.prune(name, namespace, this.historyMax - 1, history);
    await this.store.create(record);
    const upgrade = previous !== undefined;
    let applied: PlacedObject[];
    try {
      const crdsInstalled = this.crdMode === 'module' ? await this.ensureModuleCrds(moduleCrds, name) : req.skipCrds ? false : await this.installCrds(rendered, name);
      await this.runHooks(record, upgrade ? 'pre-upgrade' : 'pre-install');
      applied = await this.applyAll(record, rendered, crdsInstalled);
      // objects of the replaced revisions that the chart no longer renders
      await this.prune([...new Set([deployed, previous])].filter((r): r is Release => r !== undefined), rendered, namespace);
      await this.runHooks(record, upgrade ? 'post-upgrade' : 'post-install');
    } catch (e) {
      // Helm's description carries its own text; the error thrown names the release
      const helmText = e instanceof HelmHookFailure ? e.helmText : (e as Error).message;
      record.info.status = 'failed';
      record.info.description = upgrade ? `Upgrade "${name}" failed: ${helmText}` : `Release "${name}" failed: ${helmText}`;
      await this.store.update(record).catch((err: unknown) => this.log.warn(`release ${name}: cannot record the failure: ${(err as Error).message}`));
      throw e;
    }
    if (deployed) {
      deployed.info.status = 'superseded';
      await this.store.update(deployed);
    }
    record.info.status = 'deployed';
    record.info.description = previous ? 'Upgrade complete' : 'Install complete';
    await this.store.update(record);
    step('upgrade');
    return { outcome: previous ? 'upgraded' : 'installed', deployed: record, applied };
  }

  /**
   * The release's hooks of one event; a failure is Helm's error of that moment (`failed pre-install:
   * ...`, `pre-upgrade hooks failed: ...`) as a HelmHookFailure.
   */
  private async runHooks(record: Release, event: RunHookEvent): Promise<void> {
    try {
      await this.hooks.run(record, event);
    } catch (e) {
      if (!(e instanceof HookError)) throw e;
      const helmText = HOOK_FAILURE[event](e.message);
      throw new HelmHookFailure(`release ${record.name}: ${oneLine(helmText)}`, helmText, e);
    }
  }

  private renderBase(req: ReleaseRequest, capabilities: Capabilities) {
    return { releaseName: req.release, namespace: req.namespace, capabilities, warn: (m: string) => this.log.warn(`release ${req.release}: ${m}`) };
  }

  /** The render behind the checksum: it does not depend on the revision (as the Go operator's dry run, post-rendered too). */
  private probeRender(chart: Chart, req: ReleaseRequest, capabilities: Capabilities, lookup?: LookupFn): RenderResult {
    return this.postRendered(renderChart(chart, req.values, { ...this.renderBase(req, capabilities), isUpgrade: true, revision: 1, ...(lookup ? { lookup } : {}) }));
  }

  /** The manifest with the extra labels (post-render.ts): what is applied is what the release records. */
  private postRendered(r: RenderResult): RenderResult {
    if (!Object.keys(this.extraLabels).length) return r;
    const manifests = postRender(r.manifests, this.extraLabels);
    return { ...r, manifests, manifest: postRenderedManifest(manifests) };
  }

  private newRecord(req: ReleaseRequest, rendered: RenderResult, revision: number, checksum: string, before: Release | undefined, last: Release | undefined): Release {
    const now = goTime(this.now());
    return {
      name: req.release,
      namespace: req.namespace,
      version: revision,
      info: {
        first_deployed: before?.info.first_deployed || now,
        last_deployed: now,
        deleted: '',
        description: before ? 'Preparing upgrade' : 'Initial install underway',
        status: before ? 'pending-upgrade' : 'pending-install',
        notes: rendered.notes,
      },
      chart: storedChart(rendered.chart),
      config: req.values,
      manifest: rendered.manifest,
      hooks: rendered.hooks.map(storedHook),
      // Helm's mergeCustomLabels: the last revision's labels, then the new ones; "null" removes one
      labels: Object.fromEntries(
        Object.entries({ ...last?.labels, ...this.options.releaseLabels, [CHECKSUM_LABEL]: checksum }).filter(([, v]) => v !== 'null'),
      ),
    };
  }

  /**
   * Applies the manifest objects as Helm's kube client creates them: consecutive objects of one kind
   * together (at most `applyConcurrency` in flight), each kind after the one before it in install
   * order. A kind with failures stops the release there, every failed object named.
   */
  /**
   * The chart's crds/ files (and its subcharts'), before the release's objects, as Helm's install
   * does: a CRD that is absent is created; one that exists is never changed, and none is ever
   * deleted with the release (they are not part of its manifest). True when one was created.
   */
  private async installCrds(rendered: RenderResult, release: string): Promise<boolean> {
    let installed = false;
    for (const file of rendered.crds) {
      const docs = splitManifests(file.data.toString('utf8')).map((content) => ({ name: file.filename, content }));
      for (const o of manifestObjects(docs)) {
        const placed = await this.objects.placeOrFail(o, '');
        if (await this.objects.exists(placed)) continue;
        try {
          await this.objects.apply(placed, { labels: {}, annotations: {} });
        } catch (e) {
          throw new Error(`release ${release}: installing ${o.kind} ${o.name} (${o.source}) failed: ${apiMessage(e)}`, { cause: e });
        }
        this.log.info(`release ${release}: ${o.kind} ${o.name} installed from ${o.source}`);
        installed = true;
      }
    }
    return installed;
  }

  /**
   * The Go operator's ModuleEnsureCRDs (module-sdk's crd-installer): each CustomResourceDefinition
   * of the module's crd files created or updated, with the extra labels. True when there was one.
   */
  private async ensureModuleCrds(files: { path: string; text: string }[], release: string): Promise<boolean> {
    let applied = false;
    for (const file of files) {
      const docs = splitManifests(file.text).map((content) => ({ name: file.path, content }));
      for (const o of manifestObjects(docs)) {
        if (o.kind !== 'CustomResourceDefinition') continue;
        try {
          await this.objects.apply(await this.objects.placeOrFail(o, ''), { labels: { ...this.extraLabels }, annotations: {} });
        } catch (e) {
          throw new Error(`release ${release}: applying ${o.kind} ${o.name} (${o.source}) failed: ${apiMessage(e)}`, { cause: e });
        }
        applied = true;
      }
    }
    return applied;
  }

  /** Applies the release's objects kind by kind; returns them as placed. */
  private async applyAll(record: Release, rendered: RenderResult, crdsInstalled = false): Promise<PlacedObject[]> {
    const extra = this.ownership(record.name, record.namespace);
    let appliedCrd = crdsInstalled;
    const applied: PlacedObject[] = [];
    for (const batch of kindBatches(manifestObjects(rendered.manifests))) {
      const afterCrd = appliedCrd;
      const failures = await eachLimited(batch, this.applyConcurrency, async (o) => {
        try {
          const placed = afterCrd ? await this.placeAfterCrd(o, record.namespace) : await this.objects.placeOrFail(o, record.namespace);
          await this.objects.apply(placed, extra);
          applied.push(placed);
          if (placed.info.kind === 'CustomResourceDefinition') appliedCrd = true;
          return undefined;
        } catch (e) {
          return { o, e };
        }
      });
      const failed = failures.filter((f) => f !== undefined);
      if (!failed.length) continue;
      const what = failed.map(({ o, e }) => `applying ${o.kind} ${o.namespace || record.namespace}/${o.name} (${o.source}) failed: ${apiMessage(e)}`);
      throw new Error(`release ${record.name}: ${what.join('; ')}`, { cause: failed[0]!.e });
    }
    return applied;
  }

  /** Helm's ownership metadata, added to every object of a release (the extra labels are in its manifest). */
  private ownership(release: string, namespace: string) {
    return {
      labels: { 'app.kubernetes.io/managed-by': 'Helm' },
      annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
    };
  }

  /** A kind defined by a CRD of this same release may take a few seconds to be served. */
  private async placeAfterCrd(o: ManifestObject, namespace: string): Promise<PlacedObject> {
    const deadline = Date.now() + CRD_WAIT_MS;
    for (;;) {
      try {
        return await this.objects.placeOrFail(o, namespace);
      } catch (e) {
        if (!(e instanceof KindNotServedError) || Date.now() > deadline) throw e;
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  private async placedObjects(manifest: string | undefined, namespace: string): Promise<PlacedObject[]> {
    const docs = releaseDocuments(manifest ?? '').map((d) => ({ name: d.path, content: d.doc }));
    const placed = await eachLimited(manifestObjects(docs), 8, (o) => this.objects.place(o, namespace));
    return placed.filter((p): p is PlacedObject => p !== undefined);
  }

  private async prune(olds: Release[], rendered: RenderResult, namespace: string): Promise<void> {
    if (!olds.length) return;
    const placed = await eachLimited(manifestObjects(rendered.manifests), 8, (o) => this.objects.place(o, namespace));
    const keep = new Set(placed.filter((p): p is PlacedObject => p !== undefined).map((p) => p.key));
    const seen = new Set<string>();
    for (const old of olds) {
      for (const p of await this.placedObjects(old.manifest, namespace)) {
        if (keep.has(p.key) || seen.has(p.key)) continue;
        seen.add(p.key);
        if (p.annotations[KEEP_POLICY] === 'keep') continue;
        try {
          if (await this.objects.delete(p)) this.log.info(`release ${old.name}: deleted ${p.label}, no longer in the chart`);
        } catch (e) {
          throw new Error(`release ${old.name}: deleting ${p.label} failed: ${apiMessage(e)}`, { cause: e });
        }
      }
    }
  }

  private async absent(r: Release): Promise<string[]> {
    const docs = releaseDocuments(r.manifest ?? '').map((d) => ({ name: d.path, content: d.doc }));
    const checks = await eachLimited(manifestObjects(docs), 8, async (o) => {
      const p = await this.objects.place(o, r.namespace);
      return p && (await this.objects.exists(p)) ? undefined : `${o.kind} ${o.namespace || r.namespace}/${o.name}`;
    });
    return checks.filter((x): x is string => x !== undefined);
  }

  private async doUninstall(name: string, namespace: string): Promise<boolean> {
    const history = await this.store.history(name, namespace);
    const last = history.at(-1);
    if (!last) return false;
    last.info.status = 'uninstalling';
    last.info.deleted = goTime(this.now());
    last.info.description = 'Deletion in progress (or silently failed)';
    await this.store.update(last);
    await this.runHooks(last, 'pre-delete');
    const placed = sortByKind(await this.placedObjects(last.manifest, namespace), (p) => p.info.kind, UNINSTALL_ORDER);
    for (const p of placed) {
      if (p.annotations[KEEP_POLICY] === 'keep') continue;
      try {
        await this.objects.delete(p);
      } catch (e) {
        throw new Error(`release ${name}: deleting ${p.label} failed: ${apiMessage(e)}`, { cause: e });
      }
    }
    // Helm purges the history also when a post-delete hook failed, then reports it
    const errors: HelmHookFailure[] = [];
    await this.runHooks(last, 'post-delete').catch((e: unknown) => {
      if (!(e instanceof HelmHookFailure)) throw e;
      errors.push(e);
    });
    for (const r of history) await this.store.delete(name, namespace, r.version);
    if (errors.length) throw new Error(`release ${name}: uninstallation completed with ${errors.length} error(s): ${errors.map((e) => oneLine(e.helmText)).join('; ')}`, { cause: errors[0] });
    this.log.info(`release ${name}: uninstalled`);
    return true;
  }
}

/** Helm's wording of a hook failure at each moment (install.go, upgrade.go, uninstall.go). */
const HOOK_FAILURE: Record<RunHookEvent, (message: string) => string> = {
  'pre-install': (m) => `failed pre-install: ${m}`,
  'post-install': (m) => `failed post-install: ${m}`,
  'pre-upgrade': (m) => `pre-upgrade hooks failed: ${m}`,
  'post-upgrade': (m) => `post-upgrade hooks failed: ${m}`,
  'pre-delete': (m) => m,
  'post-delete': (m) => m,
};

/** A hook failure: the message names the release on one line; `helmText` is what Helm records. */
export class HelmHookFailure extends Error {
  constructor(
    message: string,
    readonly helmText: string,
    cause: unknown,
  ) {
    super(message, { cause });
  }
}

/** go-multierror's list on one line: `1 error occurred:\n\t* A\n\n` → `A`. */
const oneLine = (text: string): string =>
  text
    .replace(/\d+ errors? occurred:\n\t\* /g, '')
    .replace(/\n\t\* /g, '; ')
    .trim();

/** The Go operator's `--crd-filters` default: crd files whose name starts with these are skipped. */
const CRD_FILTER_PREFIXES = ['doc-', '_'];

/** The `.yaml` files under the module's crds/ as the Go operator lists them (getCRDsFromPath), in walk order. */
function moduleCrdFiles(moduleDir: string): { path: string; text: string }[] {
  const out: { path: string; text: string }[] = [];
  const walk = (dir: string, rel: string) => {
    let entries: Dirent[];
    try {
      entries = readdirSync(dir, { withFileTypes: true });
    } catch {
      return; // no crds/
    }
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const full = join(dir, e.name);
      if (e.isDirectory()) walk(full, `${rel}/${e.name}`);
      else if (extname(e.name) === '.yaml' && !CRD_FILTER_PREFIXES.some((p) => e.name.startsWith(p))) out.push({ path: `${rel}/${e.name}`, text: readFileSync(full, 'utf8') });
    }
  };
  walk(join(moduleDir, 'crds'), 'crds');
  return out;
}

/** `.Release` other than Name, Namespace and Service (Revision, IsUpgrade, IsInstall, or the whole object). */
const RELEASE_FIELDS = /Release(?!\.(?:Name|Namespace|Service)\b)/;

/**
 * Whether a render may depend on the revision: some template, file or value (through `tpl`) names
 * `.Release` other than its name, namespace or service. Conservative: any other mention counts.
 */
function readsRevision(chart: Chart, values: JsonObject): boolean {
  const charts = [chart];
  for (let i = 0; i < charts.length; i++) {
    const c = charts[i]!;
    if (c.templates.some((t) => RELEASE_FIELDS.test(t.data.toString('utf8')))) return true;
    if (c.files.some((f) => RELEASE_FIELDS.test(f.data.toString('utf8')))) return true;
    if (RELEASE_FIELDS.test(JSON.stringify(c.values ?? {}))) return true;
    charts.push(...c.dependencies);
  }
  return RELEASE_FIELDS.test(JSON.stringify(values));
}

function storedChecksum(r: Release): string | undefined {
  const legacy = r.config?.[LEGACY_CHECKSUM_VALUE];
  return r.labels[CHECKSUM_LABEL] ?? (typeof legacy === 'string' ? legacy : undefined);
}
