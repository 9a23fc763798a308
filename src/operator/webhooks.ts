/**
 * The webhook bindings the operator serves: those of the global hooks and of the enabled modules'
 * hooks. `refresh()` recomputes them (after module discovery and after a module's run), starts the
 * admission server the first time there is one, tells the dispatcher which hook answers which webhook,
 * and registers them in the cluster: a disabled module's webhooks leave the configurations. A module's
 * conversion binding whose CRD does not exist yet is tried again after 15 s (shell-operator waits for
 * a CRD 15 s at a time), then less often, while the module is enabled, so that a CRD made later gets
 * its webhook.
 */
import type { Logger } from 'pino';
import type { ModuleManager } from '../modules/manager.js';
import { admissionSpecOf, type AdmissionWebhookSpec } from '../hooks/webhook-specs.js';
import { UserError, errorMessage } from '../util/errors.js';
import { withTaskLabels } from '../log/task-labels.js';
import { hookLabel } from './task-meta.js';
import type { Served, WebhookPort, WebhookRegistration } from './ports.js';
import { WebhookDispatcher, type WebhookEntry, type WebhookHookRunner } from './webhook-dispatch.js';

type MissingCrd = Served<{ crdName: string; binding: string }>;

/**
 * How long until a module's conversion binding whose CRD does not exist is tried again: 15 s (as
 * shell-operator waits for a CRD), doubled while none appears, up to 5 minutes; 15 s again when
 * another binding starts waiting. A fleet of modules whose CRDs never come costs little.
 */
export const MISSING_CRD_RETRY_MS = 15_000;
const MISSING_CRD_RETRY_MAX_MS = 5 * 60_000;

const missingKey = (m: MissingCrd) => `${m.hook}\0${m.spec.binding}\0${m.spec.crdName}`;

export class Webhooks {
  readonly dispatcher: WebhookDispatcher;
  private serving = false;
  private last = '';
  /** Refreshes run one at a time (a task's and the retry's). */
  private queue: Promise<unknown> = Promise.resolve();
  private retry: NodeJS.Timeout | undefined;
  private stopped = false;
  /** The module conversion bindings last found without their CRD. */
  private waiting = new Map<string, MissingCrd>();
  private retryDelay = MISSING_CRD_RETRY_MS;
  /** The modules whose hooks the last refresh served. */
  private servedModules = new Set<string>();

  constructor(
    private readonly port: WebhookPort,
    private readonly manager: ModuleManager,
    run: WebhookHookRunner,
    private readonly log: Logger,
  ) {
    this.dispatcher = new WebhookDispatcher(run, log);
  }

  /** The webhook bindings of the global hooks and the enabled modules' hooks (all loaded by discovery). */
  private async entries(): Promise<WebhookEntry[]> {
    const hooks = [...this.manager.globalHooks];
    for (const m of this.manager.enabledModules) hooks.push(...(await this.manager.moduleHooks(m)));
    return hooks.flatMap((hook) => hook.config.webhooks.map((binding) => ({ hook, binding })));
  }

  /**
   * Serves and registers the current webhook bindings. Returns the conversion bindings whose CRD does
   * not exist yet (their CRD is not patched; a later refresh tries again). With a module (after its
   * run: its chart may have made its CRDs) only that module's CRDs found missing before are asked for
   * again; the others wait for the retry.
   */
  async refresh(module?: string): Promise<MissingCrd[]> {
    const run = this.queue.then(() => this.refreshNow(module));
    this.queue = run.catch(() => undefined);
    const missing = await run;
    this.awaitCrds(missing.filter((m) => m.module !== undefined));
    return missing;
  }

  /** Notes the module conversion bindings still without their CRD and tries them again later. */
  private awaitCrds(missing: readonly MissingCrd[]): void {
    const now = new Map(missing.map((m) => [missingKey(m), m]));
    for (const [key, m] of this.waiting) {
      if (!now.has(key) && this.servedModules.has(m.module ?? '')) {
        this.log.info({ module: m.module, hook: m.hook, binding: m.spec.binding, crd: m.spec.crdName }, 'conversion webhook registered: its CRD exists now');
      }
    }
    if ([...now.keys()].some((key) => !this.waiting.has(key))) this.retryDelay = MISSING_CRD_RETRY_MS;
    this.waiting = now;
    if (!now.size || this.retry || this.stopped) return;
    const delay = this.retryDelay;
    this.retryDelay = Math.min(delay * 2, MISSING_CRD_RETRY_MAX_MS);
    this.retry = setTimeout(() => {
      this.retry = undefined;
      if (this.stopped) return;
      this.refresh().catch((e: unknown) => this.log.error({ error: errorMessage(e) }, 'webhooks: registering again failed'));
    }, delay);
    this.retry.unref();
  }

  private async refreshNow(module?: string): Promise<MissingCrd[]> {
    const entries = await this.entries();
    this.servedModules = new Set(entries.flatMap((e) => (e.hook.module ? [e.hook.module] : [])));
    if (!entries.length && !this.serving) return [];
    this.dispatcher.set(entries);
    if (!this.serving) {
      // started outside the task that first refreshes: its requests' log lines carry no task's labels
      await withTaskLabels({}, () => this.port.serve({ admit: (p, r) => this.dispatcher.admit(p, r), convert: (p, r) => this.dispatcher.convert(p, r) }));
      this.serving = true;
    }
    const registration: WebhookRegistration = { validating: [], mutating: [], conversions: [] };
    for (const { hook, binding } of entries) {
      const who = { hook: hookLabel(hook), ...(hook.module ? { module: hook.module } : {}) };
      if (binding.type === 'kubernetesCustomResourceConversion') {
        registration.conversions.push({ ...who, spec: { crdName: String(binding.raw.crdName), binding: binding.name } });
        continue;
      }
      const spec: AdmissionWebhookSpec = admissionSpecOf(binding);
      (binding.type === 'kubernetesValidating' ? registration.validating : registration.mutating).push({ ...who, spec });
    }
    const key = JSON.stringify(registration);
    const recheck = module === undefined ? undefined : new Set(registration.conversions.filter((c) => c.module === module).map((c) => c.spec.crdName));
    const missing = await this.port.register(registration, recheck);
    if (key !== this.last) {
      this.log.info({ validating: registration.validating.length, mutating: registration.mutating.length, conversions: registration.conversions.length }, 'webhooks registered');
      this.last = key;
    }
    return missing;
  }

  stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.retry);
    return this.port.stop();
  }
}

/** The error of conversion bindings whose CRD does not exist, naming each module, hook and binding. */
export function missingCrdError(missing: readonly MissingCrd[]): UserError {
  const lines = missing.map(
    (m) => `${m.module !== undefined ? `module ${m.module}, ` : ''}hook ${m.hook}, binding ${m.spec.binding}: kubernetesCustomResourceConversion for CRD ${m.spec.crdName}, which does not exist`,
  );
  return new UserError(`conversion webhooks cannot be served:\n  ${lines.join('\n  ')}`);
}
