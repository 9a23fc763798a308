// Benchmark of the template engine on a chart-sized template set: helpers called with include,
// range over 200 items, toYaml of nested values, about 3,000 lines of output per render.
//
//   node --import tsx bench/gotemplate.ts [--seconds N] [--go N]
//
// Prints the output size, parse time, and renders per second (parse once, execute many).
// With --go N (and the Go reference built: tools/gotemplate-ref/build.sh), it also renders the shared
// benchmark chart of tools/gotemplate-bench-chart.ts N times in the same run with both engines,
// checks that the outputs are identical, and prints the TS/Go time ratio (below 1.0: faster than Go).
import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { TemplateSet } from '../src/gotemplate/index.js';
import { emitFigures } from './figures.js';

const HELPERS = `{{/* helpers */}}
{{- define "app.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "app.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}
{{- define "app.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "app.selectorLabels" -}}
app.kubernetes.io/name: {{ include "app.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}
{{- define "app.labels" -}}
helm.sh/chart: {{ include "app.chart" . }}
{{ include "app.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}
{{- define "app.image" -}}
{{- $registry := .global.imageRegistry | default "docker.io" -}}
{{ $registry }}/{{ .image.repository }}:{{ .image.tag | default "latest" }}
{{- end }}
`;

const DEPLOYMENT = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "app.selectorLabels" . | nindent 6 }}
  template:
    metadata:
      annotations:
        checksum/config: {{ toYaml .Values.config | sha256sum }}
        {{- with .Values.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      labels:
        {{- include "app.selectorLabels" . | nindent 8 }}
    spec:
      containers:
        {{- range $i, $c := .Values.containers }}
        - name: {{ $c.name }}
          image: {{ include "app.image" (dict "global" $.Values.global "image" $c.image) | quote }}
          {{- if $c.args }}
          args:
            {{- toYaml $c.args | nindent 12 }}
          {{- end }}
          ports:
            - containerPort: {{ $c.port }}
              name: {{ printf "p-%d" $i | trunc 15 }}
          env:
            {{- range $k, $v := $c.env }}
            - name: {{ $k | upper | replace "-" "_" }}
              value: {{ $v | toString | quote }}
            {{- end }}
          resources:
            {{- toYaml $c.resources | nindent 12 }}
        {{- end }}
`;

const CONFIGMAP = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "app.fullname" . }}-config
  labels:
    {{- include "app.labels" . | nindent 4 }}
data:
  config.yaml: |
    {{- toYaml .Values.config | nindent 4 }}
  settings.json: {{ toJson .Values.config.settings | quote }}
`;

const SERVICE = `{{- range .Values.services }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ include "app.fullname" $ }}-{{ .name }}
  labels:
    {{- include "app.labels" $ | nindent 4 }}
spec:
  type: {{ .type | default "ClusterIP" }}
  ports:
    - port: {{ .port }}
      targetPort: {{ .targetPort | default .port }}
  selector:
    {{- include "app.selectorLabels" $ | nindent 4 }}
{{- end }}
`;

function values(): Record<string, unknown> {
  const containers = [];
  for (let i = 0; i < 200; i++) {
    containers.push({
      name: `worker-${i}`,
      image: { repository: `org/worker-${i % 7}`, tag: `1.${i % 10}.${i}` },
      port: 8000 + i,
      args: i % 3 === 0 ? ['--verbose', `--shard=${i}`] : [],
      env: { 'log-level': i % 2 ? 'debug' : 'info', shard: i, ratio: i / 7 },
      resources: { limits: { cpu: `${(i % 4) + 1}00m`, memory: `${(i % 8) + 1}28Mi` }, requests: { cpu: '50m', memory: '64Mi' } },
    });
  }
  const settings: Record<string, unknown> = {};
  for (let i = 0; i < 60; i++) settings[`key${i}`] = { enabled: i % 2 === 0, limit: i * 1000, tags: [`t${i}`, 'x'], note: `value number ${i}` };
  return {
    replicaCount: 3,
    nameOverride: '',
    fullnameOverride: '',
    global: { imageRegistry: 'registry.example.com' },
    podAnnotations: { 'prometheus.io/scrape': 'true', 'prometheus.io/port': '9102' },
    containers,
    config: { settings, features: ['a', 'b', 'c'], database: { host: 'db', port: 5432, pool: { min: 1, max: 20 } } },
    services: Array.from({ length: 10 }, (_, i) => ({ name: `svc${i}`, port: 80 + i, type: i % 2 ? 'NodePort' : undefined })),
  };
}

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 5;
const data = {
  Values: values(),
  Release: { Name: 'shop', Namespace: 'prod', Service: 'Helm', IsInstall: true, Revision: 1 },
  Chart: { Name: 'webapp', Version: '1.2.3+build.7', AppVersion: '2.0.0' },
  Capabilities: { KubeVersion: { Version: 'v1.29.2', GitVersion: 'v1.29.2' } },
};
const files: Record<string, string> = {
  'webapp/templates/_helpers.tpl': HELPERS,
  'webapp/templates/deployment.yaml': DEPLOYMENT,
  'webapp/templates/configmap.yaml': CONFIGMAP,
  'webapp/templates/service.yaml': SERVICE,
};
const rendered = Object.keys(files).filter((n) => !n.split('/').pop()!.startsWith('_'));

const t0 = performance.now();
const set = new TemplateSet();
for (const [name, text] of Object.entries(files)) set.parse(name, text);
const parseMs = performance.now() - t0;

const renderAll = (): string => rendered.map((n) => set.render(n, { ...data, Template: { Name: n, BasePath: 'webapp/templates' } })).join('\n---\n');
const out = renderAll();
const lines = out.split('\n').length;

// warm up, then measure
for (let i = 0; i < 5; i++) renderAll();
let n = 0;
const start = performance.now();
while (performance.now() - start < seconds * 1000) {
  renderAll();
  n++;
}
const elapsed = (performance.now() - start) / 1000;
console.log(`template set: ${Object.keys(files).length} files, parse ${parseMs.toFixed(1)} ms`);
console.log(`output: ${lines} lines, ${out.length} bytes per render`);
console.log(`renders: ${n} in ${elapsed.toFixed(2)} s = ${(n / elapsed).toFixed(1)} renders/s (${((elapsed / n) * 1000).toFixed(2)} ms each)`);
const goWanted = process.argv.includes('--go');
// with --go, the figures of the comparison only (the suite `gotemplate` reports this one)
if (!goWanted) emitFigures([{ name: `render of ${lines} lines`, value: (elapsed / n) * 1000, unit: 'ms' }]);

// ---------------------------------------------------------------------------------------------
// comparison with Go on the shared chart (optional)

interface GoSet {
  templates: Record<string, string>;
  values: Record<string, unknown>;
}

/** Helm's parse order: deeper files first, then reverse name order. */
function helmOrder(names: string[]): string[] {
  return [...names].sort((a, b) => {
    const ca = a.split('/').length;
    const cb = b.split('/').length;
    if (ca !== cb) return cb - ca;
    return a > b ? -1 : a < b ? 1 : 0;
  });
}

function renderChart(set: TemplateSet, names: string[], values: Record<string, unknown>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const n of names) {
    if (n.split('/').pop()!.startsWith('_')) continue;
    const i = n.lastIndexOf('/templates/');
    const basePath = i >= 0 ? n.slice(0, i + '/templates'.length) : dirname(n);
    out[n] = set.render(n, { ...values, Template: { Name: n, BasePath: basePath } });
  }
  return out;
}

async function compareWithGo(n: number): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
  const chartMod = resolve(root, 'tools/gotemplate-bench-chart.ts');
  const refMod = resolve(root, 'tools/gotemplate-ref.ts');
  if (!existsSync(chartMod) || !existsSync(refMod)) {
    console.log('go: tools/gotemplate-bench-chart.ts or tools/gotemplate-ref.ts missing; skipped');
    return;
  }
  const { benchChartSet } = (await import(pathToFileURL(chartMod).href)) as { benchChartSet: () => GoSet };
  const ref = (await import(pathToFileURL(refMod).href)) as {
    renderSetWithGo: (s: GoSet) => { rendered?: Record<string, string>; error?: string } | null;
    benchWithGo: (s: GoSet, n: number) => { executeOnly: { perRenderMs: number }; parseAndExecute: { perRenderMs: number }; outputLines: number } | null;
  };
  const chart = benchChartSet();
  const names = helmOrder(Object.keys(chart.templates));
  const parseSet = (): TemplateSet => {
    const s = new TemplateSet();
    for (const name of names) s.parse(name, chart.templates[name]);
    return s;
  };
  const set = parseSet();
  const mine = renderChart(set, names, structuredClone(chart.values));
  const go = ref.renderSetWithGo(chart);
  if (go === null) {
    console.log('go: reference binary not built (tools/gotemplate-ref/build.sh); skipped');
    return;
  }
  const same = go.rendered !== undefined && Object.keys(go.rendered).every((k) => go.rendered![k] === mine[k]);
  const lines = Object.values(mine).join('\n').split('\n').length;
  console.log(`go chart: ${names.length} files, ${lines} lines; outputs identical to Go: ${same ? 'yes' : 'NO'}`);
  const time = (f: () => void): number => {
    for (let i = 0; i < Math.min(20, n); i++) f();
    const t = performance.now();
    for (let i = 0; i < n; i++) f();
    return (performance.now() - t) / n;
  };
  const execMs = time(() => renderChart(set, names, chart.values));
  const fullMs = time(() => renderChart(parseSet(), names, chart.values));
  const g = ref.benchWithGo(chart, n);
  if (!g) return;
  const fmt = (x: number): string => x.toFixed(3);
  console.log(`execute only:      TS ${fmt(execMs)} ms, Go ${fmt(g.executeOnly.perRenderMs)} ms, ratio TS/Go ${(execMs / g.executeOnly.perRenderMs).toFixed(2)}`);
  console.log(`parse + execute:   TS ${fmt(fullMs)} ms, Go ${fmt(g.parseAndExecute.perRenderMs)} ms, ratio TS/Go ${(fullMs / g.parseAndExecute.perRenderMs).toFixed(2)}`);
  emitFigures([
    { name: 'outputs identical to Go', value: same ? 1 : 0, unit: 'yes=1', better: 'higher', target: { min: 1 } },
    { name: 'execute only, per render', value: execMs, unit: 'ms', baseline: { what: 'Go', value: g.executeOnly.perRenderMs, unit: 'ms' } },
    { name: 'parse + execute, per render', value: fullMs, unit: 'ms', baseline: { what: 'Go', value: g.parseAndExecute.perRenderMs, unit: 'ms' } },
  ]);
}

const goIdx = process.argv.indexOf('--go');
if (goWanted) await compareWithGo(Number(process.argv[goIdx + 1]) || 200);
