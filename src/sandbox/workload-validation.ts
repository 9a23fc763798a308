/**
 * The validations of workloads a chart is likely to trip, with kube-apiserver's messages: a selector
 * that does not match the Pod template's labels, an empty or missing selector, negative counts, a
 * restart policy the kind does not allow, Pod templates without containers or images.
 */
import type { StatusCause } from './errors.js';
import { isObject } from './json.js';
import { selectorMatches } from './controllers/runtime.js';

type Causes = StatusCause[];

const required = (field: string): StatusCause => ({ type: 'FieldValueRequired', field, message: 'Required value' });
/** A value as Go's json.Marshal prints it in a message (map keys sorted). */
function goJson(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(goJson).join(',')}]`;
  if (isObject(v)) return `{${Object.keys(v).sort().map((k) => `${JSON.stringify(k)}:${goJson(v[k])}`).join(',')}}`;
  return JSON.stringify(v ?? null);
}

const invalidValue = (field: string, value: unknown, detail: string): StatusCause => ({
  type: 'FieldValueInvalid',
  field,
  message: `Invalid value: ${goJson(value)}: ${detail}`,
});
const notSupported = (field: string, value: unknown, supported: string[]): StatusCause => ({
  type: 'FieldValueNotSupported',
  field,
  message: `Unsupported value: ${JSON.stringify(value ?? '')}: supported values: ${supported.map((s) => JSON.stringify(s)).join(', ')}`,
});

function nonNegative(spec: any, key: string, path: string, out: Causes): void {
  const v = spec?.[key];
  if (typeof v === 'number' && v < 0) out.push(invalidValue(`${path}.${key}`, v, 'must be greater than or equal to 0'));
}

function podTemplateSpec(tpl: any, path: string, restartPolicies: string[], out: Causes): void {
  const spec = tpl?.spec;
  const containers = spec?.containers;
  if (!Array.isArray(containers) || containers.length === 0) out.push(required(`${path}.spec.containers`));
  else {
    containers.forEach((c: any, i: number) => {
      if (!c?.name) out.push(required(`${path}.spec.containers[${i}].name`));
      if (!c?.image) out.push(required(`${path}.spec.containers[${i}].image`));
    });
  }
  if (spec && !restartPolicies.includes(spec.restartPolicy)) {
    const field = `${path}.spec.restartPolicy`;
    // a Job's template left at the default Always is told what it may be
    if (restartPolicies.length > 1 && (spec.restartPolicy === 'Always' || !spec.restartPolicy)) {
      out.push({ type: 'FieldValueRequired', field, message: `Required value: valid values: ${restartPolicies.map((s) => JSON.stringify(s)).join(', ')}` });
    } else out.push(notSupported(field, spec.restartPolicy, restartPolicies));
  }
}

/** Deployment, ReplicaSet, StatefulSet, DaemonSet: selector and template. */
function replicated(o: any, what: string, out: Causes): void {
  const spec = o.spec ?? {};
  nonNegative(spec, 'replicas', 'spec', out);
  const sel = spec.selector;
  const empty = isObject(sel) && Object.keys(sel.matchLabels ?? {}).length + (Array.isArray(sel.matchExpressions) ? sel.matchExpressions.length : 0) === 0;
  if (!isObject(sel)) {
    if (what !== 'daemonset') out.push(required('spec.selector'));
  } else if (empty) out.push(invalidValue('spec.selector', sel, `empty selector is invalid for ${what}`));
  if (!isObject(spec.template)) out.push(required('spec.template'));
  else {
    // no selector selects nothing; an empty one everything
    if (!empty && !(isObject(sel) && selectorMatches(sel, isObject(spec.template.metadata?.labels) ? spec.template.metadata.labels : undefined))) {
      out.push(invalidValue('spec.template.metadata.labels', spec.template.metadata?.labels, '`selector` does not match template `labels`'));
    }
    podTemplateSpec(spec.template, 'spec.template', ['Always'], out);
  }
  nonNegative(spec, 'minReadySeconds', 'spec', out);
  nonNegative(spec, 'revisionHistoryLimit', 'spec', out);
}

/**
 * `rollingUpdate` only with type RollingUpdate. A Deployment created without a strategy was given the
 * default rollingUpdate, which no applier owns, so a server-side apply of `type: Recreate` alone is
 * refused as kube-apiserver refuses it (kubernetes#24198).
 */
function deploymentStrategy(strategy: any, out: Causes): void {
  if (!isObject(strategy) || strategy.type !== 'Recreate' || strategy.rollingUpdate === undefined || strategy.rollingUpdate === null) return;
  out.push({ type: 'FieldValueForbidden', field: 'spec.strategy.rollingUpdate', message: "Forbidden: may not be specified when strategy `type` is 'Recreate'" });
}

function job(o: any, out: Causes): void {
  const spec = o.spec ?? {};
  for (const k of ['parallelism', 'completions', 'backoffLimit', 'activeDeadlineSeconds', 'ttlSecondsAfterFinished']) nonNegative(spec, k, 'spec', out);
  if (!isObject(spec.template)) out.push(required('spec.template'));
  else podTemplateSpec(spec.template, 'spec.template', ['OnFailure', 'Never'], out);
}

function cronJob(o: any, out: Causes): void {
  const spec = o.spec ?? {};
  if (!spec.schedule) out.push(required('spec.schedule'));
  const tpl = spec.jobTemplate?.spec?.template;
  if (!isObject(tpl)) out.push(required('spec.jobTemplate.spec.template'));
  else podTemplateSpec(tpl, 'spec.jobTemplate.spec.template', ['OnFailure', 'Never'], out);
}

/** The causes of a 422 for a workload (none for other kinds). */
export function workloadCauses(group: string, kind: string, o: any): Causes {
  const out: Causes = [];
  if (group === 'apps') {
    const what = { Deployment: 'deployment', ReplicaSet: 'deployment', StatefulSet: 'statefulset', DaemonSet: 'daemonset' }[kind];
    if (what) replicated(o, what, out);
    if (kind === 'Deployment') deploymentStrategy(o.spec?.strategy, out);
  } else if (group === 'batch' && kind === 'Job') job(o, out);
  else if (group === 'batch' && kind === 'CronJob') cronJob(o, out);
  else if (group === '' && kind === 'Pod') {
    if (!Array.isArray(o.spec?.containers) || o.spec.containers.length === 0) out.push(required('spec.containers'));
  }
  return out;
}
