/**
 * A generated module set of Deckhouse's shape (issue 22): `modules` modules whose order numbers are
 * shared in pairs, each with a chart of `objects` objects (ConfigMaps, Services and Deployments in
 * equal parts) and five hooks:
 *   - onStartup, bash;
 *   - beforeHelm, bash + jq patching the module's values;
 *   - a kubernetes binding on the module's own ConfigMaps with a jqFilter, bash + jq;
 *   - afterHelm, in-process;
 *   - a 30-second schedule, in-process.
 * Used by bench/fleet/run.ts and by any bench that needs a realistic fleet (issue 16's headline).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface FleetShape {
  /** Modules (default 100). */
  modules: number;
  /** Objects per chart (default 30), split between ConfigMaps, Services and Deployments. */
  objects: number;
  /** Namespace of the releases (default `fleet`). */
  namespace: string;
}

export const DEFAULT_SHAPE: FleetShape = { modules: 100, objects: 30, namespace: 'fleet' };

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
}

/** `fleet-aa`, `fleet-ab`...: names that survive the kebab → camelCase → kebab round trip. */
export function fleetModuleName(i: number): string {
  const letter = (n: number) => String.fromCharCode(97 + (n % 26));
  return `fleet-${letter(Math.floor(i / 676))}${letter(Math.floor(i / 26))}${letter(i)}`;
}

const camel = (name: string) => name.replace(/-(.)/g, (_, c: string) => c.toUpperCase());

const ON_STARTUP = `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then echo '{"configVersion":"v1","onStartup":10}'; exit 0; fi
echo "module starting"
`;

const beforeHelm = (key: string) => `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then echo '{"configVersion":"v1","beforeHelm":10}'; exit 0; fi
jq -c '[{"op":"add","path":"/${key}/internal/replicas","value":(.${key}.replicas + 1)},
        {"op":"add","path":"/${key}/internal/image","value":(.${key}.image.repository + ":" + .${key}.image.tag)}]' \\
  "$VALUES_PATH" > "$VALUES_JSON_PATCH_PATH"
`;

const watchConfigMaps = (name: string, namespace: string) => `#!/usr/bin/env bash
if [[ "\${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
{"configVersion":"v1","kubernetes":[{"name":"own-configmaps","apiVersion":"v1","kind":"ConfigMap",
 "namespace":{"nameSelector":{"matchNames":["${namespace}"]}},
 "labelSelector":{"matchLabels":{"fleet.example.com/module":"${name}"}},
 "jqFilter":"{name: .metadata.name, keys: (.data // {} | keys)}"}]}
CONFIG
  exit 0
fi
jq -r '.[] | "\\(.binding) \\(.type // "") \\(.objects // [] | length)"' "$BINDING_CONTEXT_PATH"
`;

const AFTER_HELM = `export const config = { configVersion: 'v1', afterHelm: 10 };
export function run(ctx) {
  ctx.metrics.set('fleet_module_replicas', Number(Object.values(ctx.values).find((v) => v && v.replicas)?.replicas ?? 0));
}
`;

const SCHEDULE = `export const config = { configVersion: 'v1', schedule: [{ name: 'every-30s', crontab: '*/30 * * * * *' }] };
export function run(ctx) {
  ctx.log('tick');
}
`;

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
    const key = camel(name);
    names.push(name);
    // orders shared in pairs: 010, 010, 011, 011...
    const dir = join(modulesDir, `${String(10 + Math.floor(i / 2)).padStart(3, '0')}-${name}`);
    mkdirSync(join(dir, 'hooks'), { recursive: true });
    mkdirSync(join(dir, 'templates'), { recursive: true });
    writeFileSync(join(dir, 'Chart.yaml'), `apiVersion: v2\nname: ${name}\nversion: 0.1.0\n`);
    writeFileSync(
      join(dir, 'values.yaml'),
      `${key}:\n  replicas: ${1 + (i % 3)}\n  image:\n    repository: registry.example.com/fleet/${name}\n    tag: v1.${i}\n  internal: {}\n  settings:\n    logLevel: info\n    features: [a, b, c]\n    limits: {cpu: 100m, memory: 64Mi}\n`,
    );
    for (const [file, text] of Object.entries(chartTemplates(name, key, s.objects))) writeFileSync(join(dir, 'templates', file), text);
    writeFileSync(join(dir, 'hooks', 'startup.sh'), ON_STARTUP, { mode: 0o755 });
    writeFileSync(join(dir, 'hooks', 'before-helm.sh'), beforeHelm(key), { mode: 0o755 });
    writeFileSync(join(dir, 'hooks', 'watch-configmaps.sh'), watchConfigMaps(name, s.namespace), { mode: 0o755 });
    writeFileSync(join(dir, 'hooks', 'after-helm.hook.mjs'), AFTER_HELM);
    writeFileSync(join(dir, 'hooks', 'schedule.hook.mjs'), SCHEDULE);
    flags.push(`${key}Enabled: true`);
  }
  writeFileSync(join(modulesDir, 'values.yaml'), `global:\n  clusterName: fleet\n${flags.join('\n')}\n`);
  const seedFile = join(root, 'seed.yaml');
  writeFileSync(seedFile, `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${s.namespace}\n`);
  return { shape: s, modulesDir, globalHooksDir, seedFile, names, configMapsPerModule: s.objects - 2 * Math.max(1, Math.floor(s.objects / 3)) };
}
