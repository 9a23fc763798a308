// tpl and include as Helm 3.19's engine runs them (pkg/engine/engine.go: tplFun clones the set, parses
// the text as a new template named "gotpl" and executes that new template; includeFun counts nested
// includes of one name across the whole render). The corpus (helm-074..091, made with real Go) pins
// single templates; these tests run them the way a chart does: several files, .Template per file.
// Every expected result here is what the Go reference (tools/gotemplate-ref `set`) gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { helmErrorMessage, renderChartFiles, TemplateExecError } from '../../src/gotemplate/index.js';

const top = (values: Record<string, unknown>) => ({ Values: values, Release: { Name: 'rel', Namespace: 'ns' } });

test('tpl of an empty or blank value inside another tpl gives that value (not the outer text again)', () => {
  const out = renderChartFiles(
    {
      'c/templates/_helpers.tpl':
        '{{ define "c.secretName" }}{{ tpl .Values.auth.existingSecret $ | default (printf "%s-auth" .Release.Name) }}{{ end }}',
      'c/templates/cm.yaml': 'data:\n  config: |\n    {{- tpl .Values.config . | nindent 4 }}\n',
    },
    top({
      auth: { existingSecret: '' },
      extra: '   ',
      config: 'secret: {{ include "c.secretName" . }}\nextra: [{{ tpl .Values.extra . }}]\nnone: [{{ tpl "" . }}]',
    }),
  );
  assert.equal(out['c/templates/cm.yaml'], 'data:\n  config: |\n    secret: rel-auth\n    extra: [   ]\n    none: []\n');
});

test('defines made by a tpl text are seen by the includes it runs, file templates included, and nowhere else', () => {
  const files = {
    'c/templates/_helpers.tpl': '{{ define "c.name" }}file{{ end }}{{ define "c.label" }}name={{ include "c.name" . }}{{ end }}',
    'c/templates/a.yaml': 'a: {{ tpl .Values.override . }}\nb: {{ include "c.label" . }}\n',
    'c/templates/b.yaml': 'c: {{ tpl .Values.blank . }}\n',
  };
  const out = renderChartFiles(files, top({
    override: '{{ define "c.name" }}tpl{{ end }}{{ include "c.label" . }}',
    blank: '{{ define "c.name" }} {{ end }}{{ include "c.label" . }}',
  }));
  assert.equal(out['c/templates/a.yaml'], 'a: name=tpl\nb: name=file\n');
  // an empty define does not replace a defined template (Go's associate)
  assert.equal(out['c/templates/b.yaml'], 'c: name=file\n');
});

test('.Template.Name and .Template.BasePath inside tpl are those of the file being rendered', () => {
  const out = renderChartFiles(
    {
      'c/templates/_helpers.tpl': '{{ define "c.where" }}{{ tpl "{{ .Template.Name }} in {{ .Template.BasePath }}" . }}{{ end }}',
      'c/templates/x.yaml': 'x: {{ include "c.where" . }}\n',
      'c/charts/sub/templates/y.yaml': 'y: {{ tpl "{{ .Template.Name }}" $ }}\n',
    },
    top({}),
  );
  assert.equal(out['c/templates/x.yaml'], 'x: c/templates/x.yaml in c/templates\n');
  assert.equal(out['c/charts/sub/templates/y.yaml'], 'y: c/charts/sub/templates/y.yaml\n');
});

test('<no value>: tpl removes it from its output, include keeps it', () => {
  const out = renderChartFiles(
    {
      'c/templates/_h.tpl': '{{ define "c.missing" }}{{ .nothing }}{{ end }}',
      'c/templates/x.yaml': 'tpl: {{ tpl "{{ .nothing }}" . | len }}\ninclude: {{ include "c.missing" . | len }}\nboth: {{ tpl "{{ include \\"c.missing\\" . }}" . | len }}\n',
    },
    top({}),
  );
  assert.equal(out['c/templates/x.yaml'], 'tpl: 0\ninclude: 10\nboth: 0\n');
});

test("Helm's include limit counts includes made through tpl; the message is Go's, byte for byte", () => {
  const files = {
    'c/templates/_h.tpl': '{{ define "c.loop" }}{{ tpl "{{ include \\"c.loop\\" . }}" . }}{{ end }}',
    'c/templates/x.yaml': 'x: {{ include "c.loop" . }}\n',
  };
  let err: unknown;
  try {
    renderChartFiles(files, top({}));
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof TemplateExecError, String(err));
  const msg = (err as Error).message;
  // Go: include of a name already running 1001 times fails (count > 1000); each level is include -> tpl
  assert.ok(msg.startsWith('template: c/templates/x.yaml:1:6: executing "c/templates/x.yaml" at <include "c.loop" .>: error calling include: '), msg.slice(0, 200));
  assert.ok(msg.endsWith('error calling include: rendering template has a nested reference name: c.loop: unable to execute template'), msg.slice(-200));
  assert.equal(msg.split('error during tpl function execution for "{{ include \\"c.loop\\" . }}"').length - 1, 1001); // 1002 includes, the last one refused
  assert.equal(msg.length, 271466); // the length of Go's message (tools/gotemplate-ref, set mode)
  assert.match(helmErrorMessage(err), /rendering template has a nested reference name: c\.loop: unable to execute template/);
});
