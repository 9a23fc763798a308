/**
 * A generated module set of Deckhouse's shape (issues 16 and 22): `modules` modules whose order numbers
 * are shared in pairs, each with a chart of `objects` objects (ConfigMaps, Services and Deployments in
 * equal parts) and five hooks, half of them bash with jq and half in-process over the fleet (modules
 * alternate three and two of each), every binding kind represented:
 *   - onStartup: bash + jq on even modules, in-process on odd ones;
 *   - beforeHelm, bash + jq patching the module's values;
 *   - a kubernetes binding on the module's own ConfigMaps, bash + jq, in one of four forms (watchForm):
 *     with a jqFilter; without one, with a daily schedule that includes its snapshot
 *     (includeSnapshotsFrom); with a jqFilter in a group with a daily schedule; with a jqFilter and
 *     executeHookOnSynchronization false (one module in twenty);
 *   - afterHelm, beforeDeleteHelm and afterDeleteHelm, in-process;
 *   - a 30-second schedule, in-process, that also declares one webhook binding: kubernetesValidating,
 *     kubernetesMutating or kubernetesCustomResourceConversion in turn. The operator serves them: the
 *     sandbox calls the validating and mutating ones on the module's ConfigMaps (the hook allows
 *     them); the conversion ones name a CRD that does not exist (logged, never called).
 * and three global hooks: onStartup and beforeAll (bash + jq), afterAll with a 10-minute schedule
 * (in-process), a kubernetes binding on the fleet's Namespace (in-process).
 * Used by bench/fleet/run.ts and by any bench that needs a realistic fleet (issue 16's headline).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { moduleValuesKey } from '../../src/modules/names.js';

export interface FleetShape {
  /** Modules (default 100). */
  modules: number;
  /** Objects per chart (default 30), split between ConfigMaps, Services and Deployments. */
  objects: number;
  /** Namespace of the releases (default `fleet`). */
  namespace: string;
  /**
   * 0 (the default): every module is critical (no module.yaml). N > 0: the second half of the modules
   * are functional, their module.yaml requirements N levels deep (functionalModuleYaml).
   */
  functionalDepth: number;
  /**
   * 0 (the default): the beforeHelm hook only patches values. N > 0: it also waits N ms, as a hook that
   * waits for an external system does; a module run then costs time without CPU, so the machine's load
   * moves a converge less than the order of its module runs does.
   */
  hookWaitMs?: number;
}

export const DEFAULT_SHAPE: FleetShape = { modules: 100, objects: 30, namespace: 'fleet', functionalDepth: 0 };

export interface Fleet {
  shape: FleetShape;
  modulesDir: string;
  globalHooksDir: string;
  /** Manifests the API server needs before the operator starts (the namespace). */
  seedFile: string;
  /** Module names, in order. */
  names: string[];
  /** ConfigMaps each chart renders (the kubernetes bindings watch them). */
  configMapsPerModule: number;
  /** Module hooks by language (5 a module), and the global hooks. */
  hooks: { shell: number; inProcess: number; global: number };
}

/** The kubernetes binding of every module's watching hook, and the group of its `group` form. */
export const WATCH_BINDING = 'own-configmaps';
export const WATCH_GROUP = 'own';
/** Hooks a module has. */
export const HOOKS_PER_MODULE = 5;

/** The binding kinds of the fleet's module hooks and of its global hooks (every kind the operator loads). */
export const MODULE_KINDS = ['onStartup', 'beforeHelm', 'afterHelm', 'beforeDeleteHelm', 'afterDeleteHelm', 'schedule', 'kubernetes', 'kubernetesValidating', 'kubernetesMutating', 'kubernetesCustomResourceConversion'] as const;
export const GLOBAL_KINDS = ['onStartup', 'beforeAll', 'afterAll', 'schedule', 'kubernetes'] as const;

/**
 * The form of module i's kubernetes binding: with a jqFilter (`filter`); without one, a daily schedule
 * of the hook including its snapshot (`includeSnapshots`); with a jqFilter, in a group with a daily
 * schedule (`group`); with a jqFilter and executeHookOnSynchronization false (`noSync`, i % 20 = 3:
 * five of the 100, so that the converge's runs stay about those of the set before these forms).
 */
export type WatchForm = 'filter' | 'includeSnapshots' | 'group' | 'noSync';
export function watchForm(i: number): WatchForm {
  if (i % 20 === 3) return 'noSync';
  return (['filter', 'includeSnapshots', 'group', 'filter'] as const)[i % 4]!;
}

/** The webhook binding module i's scheduled hook declares. */
export function webhookKind(i: number): (typeof MODULE_KINDS)[7 | 8 | 9] {
  return (['kubernetesValidating', 'kubernetesMutating', 'kubernetesCustomResourceConversion'] as const)[i % 3]!;
}

/** `fleet-aa`, `fleet-ab`...: names that survive the kebab → camelCase → kebab round trip. */
export function fleetModuleName(i: number): string {
  const letter = (n: number) => String.fromCharCode(97 + (n % 26));
  return `fleet-${letter(Math.floor(i / 676))}${letter(Math.floor(i / 26))}${letter(i)}`;
}


/** A bash hook: its config printed on --config, else `body`. */
const bash = (config: object, body: string) => `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
${JSON.stringify(config)}
CONFIG
  exit 0
fi
${body}`;

/** An in-process hook (`*.hook.mjs`). */
const inProcess = (config: object, body: string) => `export const config = ${JSON.stringify(config)};
export function run(ctx) {
${body}
}
`;

const ON_STARTUP_BASH = bash({ configVersion: 'v1', onStartup: 10 }, `jq -r '"module starting, \\(.global.enabledModules // [] | length) modules enabled"' "$VALUES_PATH"\n`);
const ON_STARTUP_IN_PROCESS = inProcess({ configVersion: 'v1', onStartup: 10 }, `  ctx.log(\`module starting, \${ctx.values.global?.enabledModules?.length ?? 0} modules enabled\`);`);

const beforeHelm = (key: string, waitMs = 0) =>
  bash(
    { configVersion: 'v1', beforeHelm: 10 },
    `${waitMs > 0 ? `sleep ${waitMs / 1000}\n` : ''}jq -c '[{"op":"add","path":"/${key}/internal/replicas","value":(.${key}.replicas + 1)},
        {"op":"add","path":"/${key}/internal/image","value":(.${key}.image.repository + ":" + .${key}.image.tag)}]' \\
  "$VALUES_PATH" > "$VALUES_JSON_PATCH_PATH"
`,
  );

const DAILY = '15 3 * * *';

function watchConfigMaps(i: number, name: string, namespace: string): string {
  const form = watchForm(i);
  const binding: Record<string, unknown> = {
    name: WATCH_BINDING,
    apiVersion: 'v1',
    kind: 'ConfigMap',
    namespace: { nameSelector: { matchNames: [namespace] } },
    labelSelector: { matchLabels: { 'fleet.example.com/module': name } },
    ...(form === 'includeSnapshots' ? {} : { jqFilter: '{name: .metadata.name, keys: (.data // {} | keys)}' }),
    ...(form === 'group' ? { group: WATCH_GROUP } : {}),
    ...(form === 'noSync' ? { executeHookOnSynchronization: false } : {}),
  };
  const config: Record<string, unknown> = { configVersion: 'v1', kubernetes: [binding] };
  if (form === 'includeSnapshots') config.schedule = [{ name: 'daily', crontab: DAILY, includeSnapshotsFrom: [WATCH_BINDING] }];
  if (form === 'group') config.schedule = [{ name: 'daily', crontab: DAILY, group: WATCH_GROUP }];
  // one line per binding context: its binding, type and how many objects it carries
  return bash(config, `jq -r '.[] | "\\(.binding) \\(.type // "") \\(.objects // [] | length)"' "$BINDING_CONTEXT_PATH"\n`);
}

const AFTER_HELM = inProcess(
  { configVersion: 'v1', afterHelm: 10, beforeDeleteHelm: 10, afterDeleteHelm: 10 },
  `  if (ctx.bindingContext[0]?.binding !== 'afterHelm') return ctx.metrics.set('fleet_module_replicas', 0);
  ctx.metrics.set('fleet_module_replicas', Number(Object.values(ctx.values).find((v) => v && v.replicas)?.replicas ?? 0));`,
);

function webhook(i: number, name: string): Record<string, unknown> {
  const kind = webhookKind(i);
  const rules = [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE', 'UPDATE'], resources: ['configmaps'], scope: 'Namespaced' }];
  const selector = { matchLabels: { 'fleet.example.com/module': name } };
  if (kind === 'kubernetesCustomResourceConversion') {
    return { [kind]: [{ name: `${name}-conversion`, crdName: `widgets.${name}.fleet.example.com`, conversions: [{ fromVersion: 'v1alpha1', toVersion: 'v1' }] }] };
  }
  return { [kind]: [{ name: `${name}.fleet.example.com`, rules, labelSelector: selector, failurePolicy: 'Fail', sideEffects: 'None', timeoutSeconds: 10 }] };
}

const schedule = (i: number, name: string) =>
  inProcess(
    { configVersion: 'v1', schedule: [{ name: 'every-30s', crontab: '*/30 * * * * *' }], ...webhook(i, name) },
    // the sandbox calls the admission webhooks on the module's ConfigMaps: they are allowed
    `  if (ctx.bindingContext[0]?.review) return ctx.admissionResponse({ allowed: true });
  ctx.log('tick');`,
  );

const GLOBAL_STARTUP = bash(
  { configVersion: 'v1', onStartup: 5, beforeAll: 10 },
  `jq -c '{name: "fleet_global_runs", add: 1, labels: {cluster: (.global.clusterName // "")}}' "$VALUES_PATH" > "$METRICS_PATH"\n`,
);
const GLOBAL_AFTER_ALL = inProcess(
  { configVersion: 'v1', afterAll: 10, schedule: [{ name: 'every-10m', crontab: '*/10 * * * *' }] },
  `  ctx.metrics.set('fleet_global_enabled_modules', Object.keys(ctx.values).length);`,
);
const globalNamespace = (namespace: string) =>
  inProcess(
    { configVersion: 'v1', kubernetes: [{ name: 'fleet-namespace', apiVersion: 'v1', kind: 'Namespace', nameSelector: { matchNames: [namespace] }, jqFilter: '.metadata.labels // {}' }] },
    `  ctx.log('fleet namespace', { contexts: ctx.bindingContext.length });`,
  );

function chartTemplates(name: string, key: string, objects: number): Record<string, string> {
  const per = Math.max(1, Math.floor(objects / 3));
  const cms = objects - 2 * per;
  const labels = `
    fleet.example.com/module: ${name}
    app.kubernetes.io/name: {{ $.Chart.Name }}`;
  return {
    'configmaps.yaml': `{{- range $i := until ${cms} }}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: ${name}-config-{{ $i }}
  labels:${labels}
data:
  index: {{ $i | quote }}
  replicas: {{ $.Values.${key}.internal.replicas | quote }}
  settings.yaml: |
    {{- toYaml $.Values.${key}.settings | nindent 4 }}
{{- end }}
`,
    'services.yaml': `{{- range $i := until ${per} }}
---
apiVersion: v1
kind: Service
metadata:
  name: ${name}-svc-{{ $i }}
  labels:${labels}
spec:
  selector:
    app: ${name}-{{ $i }}
  ports:
  - name: http
    port: 80
    targetPort: {{ add 8000 $i }}
{{- end }}
`,
    'deployments.yaml': `{{- range $i := until ${per} }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: ${name}-app-{{ $i }}
  labels:${labels}
spec:
  replicas: {{ $.Values.${key}.replicas }}
  selector:
    matchLabels:
      app: ${name}-{{ $i }}
  template:
    metadata:
      labels:
        app: ${name}-{{ $i }}
    spec:
      containers:
      - name: app
        image: {{ $.Values.${key}.internal.image }}
        args: ["--index={{ $i }}", "--cluster={{ $.Values.global.clusterName | default "fleet" }}"]
        ports:
        - containerPort: {{ add 8000 $i }}
        resources:
          requests: {cpu: 10m, memory: 16Mi}
{{- end }}
`,
  };
}

/**
 * module.yaml of module i when the fleet has functional modules (issue 34): the second half of the
 * fleet, split into `functionalDepth` levels of equal size; a module of level L > 0 requires the module
 * at its place in level L-1 and the next one there (a fan-in of two), so the longest chain of
 * requirements has `functionalDepth` modules. The first half stays critical (no module.yaml).
 */
export function functionalModuleYaml(i: number, s: FleetShape): string | undefined {
  const first = Math.floor(s.modules / 2);
  if (!s.functionalDepth || i < first) return undefined;
  const size = Math.ceil((s.modules - first) / s.functionalDepth);
  const j = i - first;
  const level = Math.floor(j / size);
  const required = level === 0 ? [] : [j - size, j - size + 1].filter((k) => k < level * size).map((k) => fleetModuleName(first + k));
  const requirements = required.length ? `requirements:\n  modules:\n${required.map((r) => `    ${r}: ">= 0.0.0"\n`).join('')}` : '';
  return `name: ${fleetModuleName(i)}\nweight: ${10 + Math.floor(i / 2)}\n${requirements}`;
}

/** Writes the fleet under `root` and returns where things are. */
export function generateFleet(root: string, shape: Partial<FleetShape> = {}): Fleet {
  const s: FleetShape = { ...DEFAULT_SHAPE, ...shape };
  const modulesDir = join(root, 'modules');
  const globalHooksDir = join(root, 'global-hooks');
  mkdirSync(join(globalHooksDir, 'hooks'), { recursive: true });
  const names: string[] = [];
  const flags: string[] = [];
  for (let i = 0; i < s.modules; i++) {
    const name = fleetModuleName(i);
    const key = moduleValuesKey(name);
    names.push(name);
    // orders shared in pairs: 010, 010, 011, 011...
    const dir = join(modulesDir, `${String(10 + Math.floor(i / 2)).padStart(3, '0')}-${name}`);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    const moduleYaml = functionalModuleYaml(i, s);
    if (moduleYaml) writeFileSync(join(dir, 'module.yaml'), moduleYaml);
    writeFileSync(
      join(dir, 'values.yaml'),
      `${key}:\n  replicas: ${1 + (i % 3)}\n  image:\n    repository: registry.example.com/fleet/${name}\n    tag: v1.${i}\n  internal: {}\n  settings:\n    logLevel: info\n    features: [a, b, c]\n    limits: {cpu: 100m, memory: 64Mi}\n`,
    );
    for (const [file, text] of Object.entries(chartTemplates(name, key, s.objects))) writeFileSync(join(dir, 'templates', file), text);
    const hooks = join(dir, 'hooks');
    if (i % 2 === 0) writeFileSync(join(hooks, 'startup.sh'), ON_STARTUP_BASH, { mode: 0o755 });
    else writeFileSync(join(hooks, 'startup.hook.mjs'), ON_STARTUP_IN_PROCESS);
    writeFileSync(join(hooks, 'before-helm.sh'), beforeHelm(key, s.hookWaitMs), { mode: 0o755 });
    writeFileSync(join(hooks, 'watch-configmaps.sh'), watchConfigMaps(i, name, s.namespace), { mode: 0o755 });
    writeFileSync(join(hooks, 'after-helm.hook.mjs'), AFTER_HELM);
    writeFileSync(join(hooks, 'schedule.hook.mjs'), schedule(i, name));
    flags.push(`${key}Enabled: true`);
  }
  writeFileSync(join(modulesDir, 'values.yaml'), `global:\n  clusterName: fleet\n${flags.join('\n')}\n`);
  writeFileSync(join(globalHooksDir, 'hooks', 'startup.sh'), GLOBAL_STARTUP, { mode: 0o755 });
  writeFileSync(join(globalHooksDir, 'hooks', 'after-all.hook.mjs'), GLOBAL_AFTER_ALL);
  writeFileSync(join(globalHooksDir, 'hooks', 'namespace.hook.mjs'), globalNamespace(s.namespace));
  const seedFile = join(root, 'seed.yaml');
  writeFileSync(seedFile, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${s.namespace}\n`);
  return { shape: s, modulesDir, globalHooksDir, seedFile, names, configMapsPerModule: s.objects - 2 * Math.max(1, Math.floor(s.objects / 3)),
    // even modules: 3 bash hooks and 2 in-process; odd ones: 2 and 3
    hooks: { shell: 3 * Math.ceil(s.modules / 2) + 2 * Math.floor(s.modules / 2), inProcess: 2 * Math.ceil(s.modules / 2) + 3 * Math.floor(s.modules / 2), global: 3 },
  };
}
