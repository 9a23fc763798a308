/**
 * The webhook bindings the operator serves: those of the global hooks and of the enabled modules'
 * hooks. `refresh()` recomputes them (after module discovery and after a module's run), starts the
 * admission server the first time there is one, tells the dispatcher which hook answers which webhook,
 * and registers them in the cluster: a disabled module's webhooks leave the configurations.
 */
import type { Logger } from 'pino';
import type { ModuleManager } from '../modules/manager.js';
import { admissionSpecOf, type AdmissionWebhookSpec } from '../hooks/webhook-specs.js';
import { UserError } from '../util/errors.js';
import { withTaskLabels } from '../log/task-labels.js';
import { hookLabel } from './task-meta.js';
import type { Served, WebhookPort, WebhookRegistration } from './ports.js';
import { WebhookDispatcher, type WebhookEntry, type WebhookHookRunner } from './webhook-dispatch.js';

type MissingCrd = Served<{ crdName: string; binding: string }>;

export class Webhooks {
  readonly dispatcher: WebhookDispatcher;
  private serving = false;
  private last = '';

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
   * not exist yet (their CRD is not patched; a later refresh tries again).
   */
  async refresh(): Promise<MissingCrd[]> {
    const entries = await this.entries();
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
    const missing = await this.port.register(registration);
    if (key !== this.last) {
      this.log.info({ validating: registration.validating.length, mutating: registration.mutating.length, conversions: registration.conversions.length }, 'webhooks registered');
      this.last = key;
    }
    return missing;
  }

  stop(): Promise<void> {
    return this.port.stop();
  }
}

/** The error of conversion bindings whose CRD does not exist, naming each hook and binding. */
export function missingCrdError(missing: readonly MissingCrd[]): UserError {
  const lines = missing.map((m) => `hook ${m.hook}, binding ${m.spec.binding}: kubernetesCustomResourceConversion for CRD ${m.spec.crdName}, which does not exist`);
  return new UserError(`conversion webhooks cannot be served:\n  ${lines.join('\n  ')}`);
}
