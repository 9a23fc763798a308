// A realistic chart-sized template set for the template benchmark (issue: helpers with include,
// range over 200 items, toYaml of nested values, about 3,000 lines of output). The same set feeds the
// TS engine and the Go reference (tools/gotemplate-ref.ts benchWithGo), so their timings compare.
//
//   import { benchChartSet } from '../tools/gotemplate-bench-chart.js';
//   const { templates, values } = benchChartSet();   // templates: file name -> text

import type { GoTemplateSet } from './gotemplate-ref.js';

const helpers = `{{/* Helpers in the style of helm create and the Bitnami common chart. */}}
{{- define "bench.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "bench.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "bench.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "bench.selectorLabels" -}}
app.kubernetes.io/name: {{ include "bench.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "bench.labels" -}}
helm.sh/chart: {{ include "bench.chart" . }}
{{ include "bench.selectorLabels" . }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{- define "bench.image" -}}
{{- $registry := .global.imageRegistry | default .image.registry -}}
{{- $tag := .image.tag | default .appVersion | toString -}}
{{- if $registry -}}
{{- printf "%s/%s:%s" $registry .image.repository $tag -}}
{{- else -}}
{{- printf "%s:%s" .image.repository $tag -}}
{{- end -}}
{{- end -}}

{{- define "bench.tplvalues" -}}
{{- if typeIs "string" .value -}}
{{- tpl .value .context -}}
{{- else -}}
{{- tpl (.value | toYaml) .context -}}
{{- end -}}
{{- end -}}
`;

const deployment = `{{- range $i, $w := .Values.workers }}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "bench.fullname" $ }}-{{ $w.name }}
  namespace: {{ $.Release.Namespace | quote }}
  labels:
    {{- include "bench.labels" $ | nindent 4 }}
    worker: {{ $w.name | quote }}
  annotations:
    checksum/config: {{ toJson $w.config | sha256sum }}
spec:
  replicas: {{ $w.replicas | default $.Values.replicaCount }}
  selector:
    matchLabels:
      {{- include "bench.selectorLabels" $ | nindent 6 }}
      worker: {{ $w.name | quote }}
  template:
    metadata:
      labels:
        {{- include "bench.selectorLabels" $ | nindent 8 }}
        worker: {{ $w.name | quote }}
    spec:
      containers:
        - name: {{ $w.name }}
          image: {{ include "bench.image" (dict "image" $.Values.image "global" $.Values.global "appVersion" $.Chart.AppVersion) }}
          imagePullPolicy: {{ $.Values.image.pullPolicy }}
          args:
          {{- range $w.args }}
            - {{ . | quote }}
          {{- end }}
          env:
          {{- range $k, $v := $w.env }}
            - name: {{ $k | upper | replace "-" "_" }}
              value: {{ $v | toString | quote }}
          {{- end }}
          ports:
          {{- range $w.ports }}
            - name: {{ .name }}
              containerPort: {{ .port }}
              protocol: {{ .protocol | default "TCP" }}
          {{- end }}
          {{- with $w.resources }}
          resources:
            {{- toYaml . | nindent 12 }}
          {{- end }}
      {{- with $.Values.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $.Values.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end }}
`;

const configmap = `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ include "bench.fullname" . }}-config
  labels:
    {{- include "bench.labels" . | nindent 4 }}
data:
  banner: {{ include "bench.tplvalues" (dict "value" .Values.banner "context" $) | quote }}
  {{- range $i, $item := .Values.items }}
  item-{{ $i }}.yaml: |
    {{- toYaml $item | nindent 4 }}
  {{- end }}
  summary.json: {{ dict "count" (len .Values.items) "first" (first .Values.items).name "last" (last .Values.items).name | toJson | quote }}
`;

const service = `apiVersion: v1
kind: Service
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
spec:
  type: {{ .Values.service.type }}
  ports:
  {{- range $w := .Values.workers }}
  {{- range $w.ports }}
    - name: {{ printf "%s-%s" $w.name .name | trunc 15 | trimSuffix "-" }}
      port: {{ .port }}
      targetPort: {{ .name }}
  {{- end }}
  {{- end }}
  selector:
    {{- include "bench.selectorLabels" . | nindent 4 }}
`;

const ingress = `{{- if .Values.ingress.enabled -}}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ include "bench.fullname" . }}
  labels:
    {{- include "bench.labels" . | nindent 4 }}
  {{- with .Values.ingress.annotations }}
  annotations:
    {{- toYaml . | nindent 4 }}
  {{- end }}
spec:
  rules:
  {{- range .Values.ingress.hosts }}
    - host: {{ .host | quote }}
      http:
        paths:
        {{- range .paths }}
          - path: {{ .path }}
            pathType: {{ .pathType }}
            backend:
              service:
                name: {{ include "bench.fullname" $ }}
                port:
                  number: {{ .port }}
        {{- end }}
  {{- end }}
{{- end }}
`;

/** The benchmark chart: 5 templates, 200 items, 8 workers; renders to about 3,000 lines. */
export function benchChartSet(items = 200): GoTemplateSet {
  const itemList = Array.from({ length: items }, (_, i) => ({
    name: `item-${i}`,
    enabled: i % 3 !== 0,
    weight: i * 1.5,
    port: 8000 + i,
    tags: [`t${i % 5}`, `g${i % 7}`],
    limits: { cpu: `${100 + i}m`, memory: `${64 + i}Mi` },
    description: i % 10 === 0 ? `Item ${i}\nspans two lines` : `Item number ${i}`,
  }));
  const workers = Array.from({ length: 8 }, (_, i) => ({
    name: `worker${i}`,
    replicas: i % 2 ? i : null,
    args: ['--port', String(9000 + i), '--verbose', `--id=${i}`],
    env: { 'log-level': 'info', 'worker-id': i, 'feature-x': i % 2 === 0 },
    ports: [
      { name: 'http', port: 8080 + i },
      { name: 'metrics', port: 9090 + i, protocol: 'TCP' },
    ],
    resources: { limits: { cpu: '500m', memory: '256Mi' }, requests: { cpu: `${50 * (i + 1)}m`, memory: '64Mi' } },
    config: { a: i, b: [1, 2, 3], c: { d: 'e' } },
  }));
  return {
    templates: {
      'bench/templates/_helpers.tpl': helpers,
      'bench/templates/deployment.yaml': deployment,
      'bench/templates/configmap.yaml': configmap,
      'bench/templates/service.yaml': service,
      'bench/templates/ingress.yaml': ingress,
    },
    values: {
      Values: {
        replicaCount: 2,
        nameOverride: '',
        fullnameOverride: '',
        image: { registry: 'docker.io', repository: 'bench/app', tag: '', pullPolicy: 'IfNotPresent' },
        global: { imageRegistry: '' },
        banner: 'Release {{ .Release.Name }} of {{ .Chart.Name }}',
        service: { type: 'ClusterIP' },
        nodeSelector: { 'kubernetes.io/os': 'linux' },
        tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'bench', effect: 'NoSchedule' }],
        ingress: {
          enabled: true,
          annotations: { 'cert-manager.io/cluster-issuer': 'letsencrypt', 'nginx.ingress.kubernetes.io/rewrite-target': '/' },
          hosts: Array.from({ length: 10 }, (_, i) => ({
            host: `h${i}.example.com`,
            paths: [
              { path: '/', pathType: 'Prefix', port: 80 },
              { path: `/api/v${i}`, pathType: 'Exact', port: 8080 },
            ],
          })),
        },
        workers,
        items: itemList,
      },
      Release: { Name: 'bench', Namespace: 'default', Service: 'Helm', IsInstall: true, IsUpgrade: false, Revision: 1 },
      Chart: { Name: 'bench', Version: '1.0.0+abc', AppVersion: '2.3.4' },
      Capabilities: { KubeVersion: { Version: 'v1.29.2', Major: '1', Minor: '29', GitVersion: 'v1.29.2' } },
    },
  };
}
