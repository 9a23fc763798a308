/**
 * Helm hooks run as Helm 3.19's action.execHook runs them (pkg/action/hooks.go): the release's hooks
 * of one event, ordered by weight then name (stable over their kind order), each deleted first by
 * `before-hook-creation` (the default policy, written into the hook as Helm does), created (a POST:
 * an object that still exists is an error, as in Helm), and, for Jobs and Pods, watched until the Job
 * is Complete or Failed and the Pod Succeeded or Failed, up to the timeout (pkg/kube's
 * watchUntilReady), the state seen last logged every 30 s (`waiting for hook Job X: 0/1 succeeded, ...`). Each hook's last run (started, completed, phase) is kept in the release record,
 * which is stored when a hook starts. A failed hook is deleted by `hook-failed`, the ones that
 * succeeded before it by `hook-succeeded`; when all succeed, `hook-succeeded` deletes them, last first.
 * CustomResourceDefinitions are never deleted. Test hooks are never run here. Hooks are created as
 * rendered: Helm 3.19 runs the post-renderer (the Go operator's extra labels) on the manifest only.
 */
import type { KubeConfig } from '../kube/kube-config.js';
import type { RestMapper } from '../kube/mapper.js';
import { Informer, type KubeObject } from '../kube/informer.js';
import { isApiStatus } from '../kube/http.js';
import { errorMessage } from '../util/errors.js';
import { splitManifests } from './manifests.js';
import { apiMessage, manifestObjects, type ClusterObjects, type PlacedObject } from './objects.js';
import { goTime, type Release, type StoredHook } from './release-record.js';

export type RunHookEvent = 'pre-install' | 'post-install' | 'pre-upgrade' | 'post-upgrade' | 'pre-delete' | 'post-delete';

export interface HookRunnerOptions {
  kc: KubeConfig;
  mapper: RestMapper;
  objects: ClusterObjects;
  /** How long a Job, a Pod or a deletion is waited for (Helm's `--timeout`, the operator's `--helm-timeout`). */
  timeoutMs: number;
  /** Stores the release record (Helm's recordRelease). */
  record: (release: Release) => Promise<void>;
  log: { info(message: string): void; warn(message: string): void };
  now: () => Date;
  /** How often a Job or Pod still waited for is logged (default 30 s). */
  progressMs?: number;
}

/**
 * An error of a hook: `message` is Helm's text (the release's description carries it); `hookPath`, the
 * template of the hook that failed (`chart/templates/job.yaml`, `chart/charts/sub/templates/...`).
 */
export class HookError extends Error {
  constructor(
    message: string,
    readonly hookPath?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

const BEFORE_CREATION = 'before-hook-creation';
const SUCCEEDED = 'hook-succeeded';
const FAILED = 'hook-failed';

/** Helm's hookByWeight: weight, then name (Go's byte order), on a stable sort. */
function byWeight(a: StoredHook, b: StoredHook): number {
  const wa = a.weight ?? 0;
  const wb = b.weight ?? 0;
  if (wa !== wb) return wa - wb;
  const na = a.name ?? '';
  const nb = b.name ?? '';
  return na === nb ? 0 : Buffer.compare(Buffer.from(na), Buffer.from(nb));
}

/** go-multierror's text of the errors of one `perform` (WatchUntilReady, Create). */
function multiError(errors: string[]): string {
  const points = errors.map((e) => `\t* ${e}`).join('\n');
  return `${errors.length} ${errors.length === 1 ? 'error' : 'errors'} occurred:\n${points}\n\n`;
}

export class HookRunner {
  constructor(private readonly o: HookRunnerOptions) {}

  /** Runs the hooks of `event` in the release; throws a HookError with Helm's text when one fails. */
  async run(release: Release, event: RunHookEvent): Promise<void> {
    const executing = (release.hooks ?? []).filter((h) => h.events?.includes(event)).sort(byWeight);
    for (let i = 0; i < executing.length; i++) {
      const h = executing[i]!;
      if (!h.delete_policies?.length) h.delete_policies = [BEFORE_CREATION];
      await this.deleteByPolicy(h, BEFORE_CREATION, release.namespace);
      let placed: PlacedObject[];
      try {
        placed = await this.build(h, release.namespace);
      } catch (e) {
        throw new HookError(`unable to build kubernetes object for ${event} hook ${h.path}: ${errorMessage(e)}`, h.path, { cause: e });
      }
      h.last_run = { started_at: goTime(this.o.now()), completed_at: '', phase: 'Running' };
      await this.o.record(release);
      this.o.log.info(`release ${release.name}: ${event} hook ${h.path} (${h.kind} ${h.name}) started`);
      h.last_run.phase = 'Unknown';
      const createErrors = await this.create(placed);
      if (createErrors.length) {
        h.last_run.completed_at = goTime(this.o.now());
        h.last_run.phase = 'Failed';
        throw new HookError(`warning: Hook ${event} ${h.path} failed: ${multiError(createErrors)}`, h.path);
      }
      const waitErrors = (await Promise.all(placed.map((p) => this.untilReady(p, release.name)))).filter((e): e is string => e !== undefined);
      h.last_run.completed_at = goTime(this.o.now());
      if (waitErrors.length) {
        h.last_run.phase = 'Failed';
        this.o.log.warn(`release ${release.name}: ${event} hook ${h.path} (${h.kind} ${h.name}) failed: ${waitErrors.join('; ')}`);
        try {
          await this.deleteByPolicy(h, FAILED, release.namespace);
        } catch (e) {
          this.o.log.warn(`release ${release.name}: deleting the failed hook ${h.path}: ${errorMessage(e)}`);
        }
        for (const done of executing.slice(0, i)) await this.deleteByPolicy(done, SUCCEEDED, release.namespace);
        throw new HookError(multiError(waitErrors), h.path);
      }
      h.last_run.phase = 'Succeeded';
      this.o.log.info(`release ${release.name}: ${event} hook ${h.path} (${h.kind} ${h.name}) succeeded`);
    }
    for (let i = executing.length - 1; i >= 0; i--) await this.deleteByPolicy(executing[i]!, SUCCEEDED, release.namespace);
  }

  private async build(h: StoredHook, namespace: string): Promise<PlacedObject[]> {
    const docs = splitManifests(h.manifest ?? '').map((content) => ({ name: h.path ?? '', content }));
    const out: PlacedObject[] = [];
    for (const o of manifestObjects(docs)) out.push(await this.o.objects.placeOrFail(o, namespace));
    return out;
  }

  /** Creates the objects (Helm's Create: all of one kind together); the errors, Helm's texts. */
  private async create(placed: PlacedObject[]): Promise<string[]> {
    const errors = await Promise.all(
      placed.map(async (p) => {
        try {
          await this.o.objects.create(p, { labels: {}, annotations: {} });
          return undefined;
        } catch (e) {
          return apiMessage(e);
        }
      }),
    );
    return errors.filter((e): e is string => e !== undefined);
  }

  /** Deletes the hook's objects when it has the policy, waiting until they are gone (Helm's WaitForDelete). */
  private async deleteByPolicy(h: StoredHook, policy: string, namespace: string): Promise<void> {
    if (h.kind === 'CustomResourceDefinition' || !h.delete_policies?.includes(policy)) return;
    let placed: PlacedObject[];
    try {
      placed = await this.build(h, namespace);
    } catch (e) {
      throw new HookError(`unable to build kubernetes object for deleting hook ${h.path}: ${errorMessage(e)}`, h.path, { cause: e });
    }
    const errors: string[] = [];
    for (const p of placed) {
      try {
        await this.o.objects.delete(p);
      } catch (e) {
        errors.push(apiMessage(e));
      }
    }
    if (errors.length) throw new HookError(errors.join('; '), h.path);
    for (const p of placed) {
      const error = await this.watch(p, (type) => (type === 'gone' ? { done: true } : { done: false }), true);
      if (error) throw new HookError(error, h.path);
    }
  }

  /**
   * Helm's watchUntilReady: Jobs until Complete/Failed, Pods until Succeeded/Failed, others at once;
   * while waiting, the state seen last is logged every `progressMs`.
   */
  private async untilReady(p: PlacedObject, release: string): Promise<string | undefined> {
    if (p.info.kind !== 'Job' && p.info.kind !== 'Pod') return undefined;
    let seen: KubeObject | undefined;
    const progress = setInterval(() => this.o.log.info(`release ${release}: waiting for hook ${p.info.kind} ${p.name}: ${progressText(p.info.kind, seen)}`), this.o.progressMs ?? 30_000);
    try {
      return await this.watch(p, (type, obj) => {
        if (type === 'gone') return { done: true }; // Helm: a Deleted event ends the wait without an error
        seen = obj;
        return p.info.kind === 'Job' ? jobState(obj!, p.name) : podState(obj!, p.name);
      });
    } finally {
      clearInterval(progress);
    }
  }

  /**
   * Lists and watches one object (by name) until `decide` says done, or the timeout: the error text
   * or undefined. `gone` is decided when the object is absent (at the list, when `absentIsGone`) or deleted.
   */
  private async watch(p: PlacedObject, decide: (type: 'present' | 'gone', obj?: KubeObject) => { done: boolean; error?: string }, absentIsGone = false): Promise<string | undefined> {
    return new Promise<string | undefined>((resolve) => {
      let finished = false;
      let informer: Informer | undefined = undefined;
      const finish = (error: string | undefined) => {
        if (finished) return;
        finished = true;
        clearTimeout(timer);
        void informer?.stop();
        resolve(error);
      };
      const consider = (type: 'present' | 'gone', obj?: KubeObject) => {
        const r = decide(type, obj);
        if (r.done) finish(r.error);
      };
      const timer = setTimeout(() => finish('timed out waiting for the condition'), this.o.timeoutMs);
      informer = new Informer({
        kc: this.o.kc,
        path: this.o.mapper.collectionPath(p.info, p.placedNamespace),
        fieldSelector: `metadata.name=${p.name}`,
        onSync: (objects) => {
          const obj = objects.find((x) => x.metadata?.name === p.name);
          if (obj) consider('present', obj);
          else if (absentIsGone) consider('gone');
        },
        onEvent: (type, obj) => consider(type === 'DELETED' ? 'gone' : 'present', obj),
        onError: (e) => {
          if (isApiStatus(e, 403) || isApiStatus(e, 401)) finish(`failed to deploy ${p.name}: ${apiMessage(e)}`);
          else this.o.log.warn(`watching ${p.label}: ${errorMessage(e)}`);
        },
      });
      informer.start().catch((e: unknown) => finish(errorMessage(e)));
    });
  }
}

interface Condition {
  type?: string;
  status?: string;
  reason?: string;
}

/** What a Job (`0/1 succeeded, 1 active, 0 failed`) or a Pod (`phase Pending`) shows so far. */
function progressText(kind: string, obj: KubeObject | undefined): string {
  if (!obj) return 'not seen yet';
  if (kind === 'Pod') return `phase ${(obj.status as { phase?: string } | undefined)?.phase ?? 'unknown'}`;
  const status = (obj.status ?? {}) as { succeeded?: number; active?: number; failed?: number };
  const completions = (obj.spec as { completions?: number } | undefined)?.completions ?? 1;
  return `${status.succeeded ?? 0}/${completions} succeeded, ${status.active ?? 0} active, ${status.failed ?? 0} failed`;
}

/** pkg/kube's waitForJob. */
function jobState(obj: KubeObject, name: string): { done: boolean; error?: string } {
  const conditions = ((obj.status as { conditions?: Condition[] } | undefined)?.conditions ?? []) as Condition[];
  for (const c of conditions) {
    if (c.type === 'Complete' && c.status === 'True') return { done: true };
    if (c.type === 'Failed' && c.status === 'True') return { done: true, error: `job ${name} failed: ${c.reason ?? ''}` };
  }
  return { done: false };
}

/** pkg/kube's waitForPodSuccess. */
function podState(obj: KubeObject, name: string): { done: boolean; error?: string } {
  const phase = (obj.status as { phase?: string } | undefined)?.phase;
  if (phase === 'Succeeded') return { done: true };
  if (phase === 'Failed') return { done: true, error: `pod ${name} failed` };
  return { done: false };
}
