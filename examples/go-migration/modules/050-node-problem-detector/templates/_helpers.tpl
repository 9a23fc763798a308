{{- define "npd.labels" }}
app: node-problem-detector
heritage: addon-operator
{{- end }}
