/**
 * Defaults of batch/v1 as kube-apiserver's defaulting sets them (pkg/apis/batch/v1/defaults.go), and
 * the selector and Pod labels the Job strategy generates on create.
 */
import { podTemplate } from './core.js';
import { dflt, ensure, isObj, type Obj } from './util.js';

const MAX_INT32 = 2147483647;

export function job(o: Obj): void {
  const spec = ensure(o, 'spec');
  if ((spec.completions === undefined || spec.completions === null) && (spec.parallelism === undefined || spec.parallelism === null)) {
    spec.completions = 1;
    spec.parallelism = 1;
  }
  dflt(spec, 'parallelism', 1);
  dflt(spec, 'backoffLimit', spec.backoffLimitPerIndex != null ? MAX_INT32 : 6);
  const tplLabels = spec.template?.metadata?.labels;
  const meta = ensure(o, 'metadata');
  if (isObj(tplLabels) && !(isObj(meta.labels) && Object.keys(meta.labels).length)) meta.labels = { ...tplLabels };
  dflt(spec, 'completionMode', 'NonIndexed');
  dflt(spec, 'suspend', false);
  dflt(spec, 'podReplacementPolicy', spec.podFailurePolicy ? 'Failed' : 'TerminatingOrFailed');
  podTemplate(spec.template);
}

/**
 * The Job strategy's generated selector and template labels (unless `manualSelector`), on create; a Job
 * without labels then shows its template's (the API server defaults them on every read).
 */
export function jobSelector(o: Obj): void {
  const spec = ensure(o, 'spec');
  if (spec.manualSelector === true) return;
  const uid = String(o.metadata?.uid ?? '');
  const name = String(o.metadata?.name ?? '');
  spec.selector = { matchLabels: { 'batch.kubernetes.io/controller-uid': uid } };
  const tmeta = ensure(ensure(spec, 'template'), 'metadata');
  tmeta.labels = { ...(isObj(tmeta.labels) ? tmeta.labels : {}), 'batch.kubernetes.io/controller-uid': uid, 'batch.kubernetes.io/job-name': name, 'controller-uid': uid, 'job-name': name };
  const meta = ensure(o, 'metadata');
  if (!(isObj(meta.labels) && Object.keys(meta.labels).length)) meta.labels = { ...tmeta.labels };
}

export function cronJob(o: Obj): void {
  const spec = ensure(o, 'spec');
  dflt(spec, 'concurrencyPolicy', 'Allow');
  dflt(spec, 'suspend', false);
  dflt(spec, 'successfulJobsHistoryLimit', 3);
  dflt(spec, 'failedJobsHistoryLimit', 1);
  podTemplate(spec.jobTemplate?.spec?.template);
}
