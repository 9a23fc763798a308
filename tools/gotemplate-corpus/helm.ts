// Helm's own functions: include, tpl, required, lookup, and the YAML/JSON/TOML serialisers, plus
// realistic manifest templates.

import { V } from './data.js';
import { type CaseInput, type Topic } from './types.js';

export const helmFuncs: Topic = {
  source: 'helm-include-tpl',
  prefix: 'helm',
  data: V,
  cases: [
    '{{ define "name" }}{{ .Chart.Name }}-{{ .Release.Name }}{{ end }}{{ include "name" . }}',
    '{{ define "name" }}{{ .Chart.Name }}{{ end }}{{ include "name" . | upper | quote }}',
    '{{ define "labels" }}app: {{ .Chart.Name }}\nrelease: {{ .Release.Name }}{{ end }}{{ include "labels" . | nindent 4 }}',
    '{{ define "t" }}[{{ . }}]{{ end }}{{ include "t" "str" }}|{{ include "t" 1 }}|{{ include "t" nil }}|{{ include "t" (list 1 2) }}',
    '{{ define "t" }}{{ .a }}{{ end }}{{ include "t" (dict "a" "from-dict") }}',
    '{{ define "t" }}{{ $.Release.Name }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ .x }}{{ end }}{{ include "t" . }}|',
    '{{ define "t" }}{{ include "u" . }}{{ end }}{{ define "u" }}U{{ end }}{{ include "t" . }}',
    '{{ include "missing" . }}',
    '{{ include "x" }}',
    '{{ include }}',
    '{{ include 1 . }}',
    '{{ include .Values.name . }}',
    '{{ define "web" }}web template{{ end }}{{ include .Values.name . }}',
    '{{ define "t" }}{{ . | toYaml }}{{ end }}{{ include "t" .Values.image }}',
    '{{ define "t" }}  spaced  {{ end }}[{{ include "t" . }}]|[{{ include "t" . | trim }}]',
    '{{ define "t" }}<no value>{{ end }}[{{ include "t" . }}]',
    '{{ define "t" }}{{ .missing }}{{ end }}{{ $x := include "t" . }}{{ len $x }}',
    '{{ define "t" }}{{ .Values.missing }}{{ end }}{{ include "t" . | len }}',
    '{{ define "rec" }}{{ if gt (int .) 0 }}{{ . }},{{ include "rec" (sub . 1) }}{{ end }}{{ end }}{{ include "rec" 5 }}',
    '{{ define "t" }}{{ fail "inside include" }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ required "inner required" .nope }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ .a.b }}{{ end }}{{ include "t" (dict) }}',
    '{{ define "t" }}{{ .a.b }}{{ end }}\n\n  {{ include "t" (dict) }}',
    '{{ define "t" }}{{ include "u" . }}{{ end }}{{ define "u" }}{{ .x.y }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ include "u" . }}{{ end }}{{ define "u" }}{{ include "v" . }}{{ end }}{{ define "v" }}\n{{ .x.y }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ template "u" . }}{{ end }}{{ define "u" }}{{ .x.y }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ gt .Values.replicaCount 1 }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}{{ include "t" . }}{{ end }}{{ include "t" . | len }}',
    '{{ define "t" }}{{ template "t" . }}{{ end }}{{ include "t" . }}',
    '{{ define "t" }}x{{ end }}{{ include "t" . | printf "%s-%s" "a" }}',
    '{{ define "t" }}{{ $ }}{{ end }}{{ include "t" "dollar" }}',
    '{{ tpl "{{ .Release.Name }}-{{ .Values.name }}" . }}',
    '{{ tpl .Values.tplValue . }}',
    '{{ tpl "plain" . }}|{{ tpl "" . }}|',
    '{{ tpl "{{ . }}" "dot" }}|{{ tpl "{{ . }}" 5 }}|{{ tpl "{{ . }}" nil }}|',
    '{{ tpl "{{ .missing }}" . }}|{{ tpl "<no value>" . }}|',
    '{{ tpl "{{ .Values.missing.x }}" . }}',
    '{{ tpl "{{ .Release.Name " . }}',
    '{{ tpl "{{ nope }}" . }}',
    '{{ tpl "{{ fail \\"inner fail\\" }}" . }}',
    '{{ tpl "{{ required \\"inner req\\" .nope }}" . }}',
    '{{ define "helper" }}HELPER{{ end }}{{ tpl "{{ include \\"helper\\" . }}" . }}',
    '{{ define "helper" }}HELPER{{ end }}{{ tpl "{{ template \\"helper\\" . }}" . }}',
    '{{ tpl "{{ define \\"inner\\" }}I{{ end }}{{ include \\"inner\\" . }}" . }}',
    '{{ tpl "{{ define \\"inner\\" }}I{{ end }}x" . }}{{ include "inner" . }}',
    '{{ tpl "{{ tpl \\"{{ .Release.Name }}\\" . }}" . }}',
    '{{ tpl "{{ $ }}" "d" }}',
    '{{ tpl "{{ .Template.Name }}|{{ .Template.BasePath }}" . }}',
    '{{ tpl "{{ toYaml .Values.labels }}" . | nindent 2 }}',
    '{{ tpl "line1\\n{{ .Values.missing.x }}" . }}',
    '{{ tpl "{{ .a.b }}" (dict "a" 1) }}',
    '{{ tpl (toYaml .Values.image) . }}',
    '{{ tpl 1 . }}',
    '{{ tpl "x" }}',
    '{{ tpl "{{ define \\"gotpl\\" }}redef{{ end }}x" . }}',
    '{{ tpl "{{ template \\"gotpl\\" . }}" . }}',
    '{{ lookup "v1" "Secret" .Release.Namespace "db" }}|{{ lookup "v1" "Secret" "ns" "x" | len }}|{{ (lookup "v1" "Secret" "ns" "x").data }}|',
    '{{ $s := lookup "v1" "Secret" "ns" "x" }}{{ if $s }}found{{ else }}none{{ end }}',
    '{{ (lookup "v1" "Secret" "ns" "x").data.password | default "generated" }}',
    '{{ lookup "v1" "Namespace" "" "" | toJson }}',
    '{{ lookup "v1" "Pod" "ns" }}',
    '{{ required "name needed" .Values.name }}|{{ required "zero ok" .Values.zero }}',
    '{{ required "need list" .Values.emptyList }}|{{ required "need map" .Values.emptyMap | len }}',
    '{{ required "image.digest is required" .Values.image.digest }}',
    'value: {{ required "empty must be set" .Values.empty }}',
    '{{ required (printf "%s is required" "x") .Values.missing }}',
    '{{ required "a\\nb" nil }}',
    '{{ required }}',
    '{{ required "x" nil nil }}',
    '{{ $x := required "y" "ok" }}{{ $x }}',
    '{{ include "t" . }}{{ define "t" }}{{ range . }}{{ end }}{{ end }}',
    '{{ define "t" }}{{ .Values.name }}{{ end }}{{ include "t" . | include "t" }}',
    // tpl and include as Helm 3.19's engine.go runs them (tplFun: Clone, New("gotpl").Parse, Execute
    // of the new template): an empty or blank text inside another tpl gives itself, not the outer text
    { t: '{{ tpl .outer . }}', data: { outer: '[{{ tpl .e . }}]', e: '' } },
    { t: '{{ tpl .outer . }}', data: { outer: '[{{ tpl .e . }}]', e: ' \n\t ' } },
    { t: '{{ tpl .outer . }}', data: { outer: 'name={{ tpl .e . | default "fallback" }}', e: '' } },
    { t: '{{ tpl .a . }}', data: { a: '<{{ tpl .b . }}>', b: '({{ tpl .c . }})', c: '' } },
    { t: '{{ tpl .a . }}', data: { a: '<{{ tpl .b . }}>', b: '{{/* only a comment */}}' } },
    '{{ tpl "" . }}|{{ tpl " \\n " . }}|{{ tpl "{{/* c */}}" . }}|{{ tpl "{{- /* c */ -}}" . }}|',
    // define inside a tpl text: the text's own top level runs; "gotpl" defined by the text runs only
    // when the top level is empty, and an empty define never wins over a blank top level
    '{{ tpl "{{ define \\"x\\" }}X{{ end }}" . }}|{{ tpl "{{ define \\"x\\" }}X{{ end }}{{ include \\"x\\" . }}" . }}|',
    '{{ tpl "{{ define \\"gotpl\\" }}G{{ end }}" . }}|{{ tpl " {{ define \\"gotpl\\" }}G{{ end }} " . }}|',
    '[{{ tpl " {{ define \\"gotpl\\" }} {{ end }}\\t" . }}]|[{{ tpl "a{{ define \\"gotpl\\" }}{{ end }}b" . }}]',
    { t: '{{ tpl .outer . }}', data: { outer: '[{{ tpl .inner . }}]', inner: '{{ define "gotpl" }}G{{ end }}' } },
    // the clone's defines: seen by include of file templates run from the tpl, not outside it
    '{{ define "inner" }}FILE{{ end }}{{ define "outer" }}[{{ include "inner" . }}]{{ end }}{{ tpl "{{ define \\"inner\\" }}TPL{{ end }}{{ include \\"outer\\" . }}" . }}|{{ include "outer" . }}',
    '{{ define "inner" }}FILE{{ end }}{{ tpl "{{ define \\"inner\\" }} {{ end }}{{ include \\"inner\\" . }}" . }}',
    { t: '{{ tpl .outer . }}', data: { outer: '{{ define "y" }}Y{{ end }}{{ tpl .inner . }}', inner: '{{ include "y" . }}' } },
    { t: '{{ tpl .outer . }}', data: { outer: '{{ tpl .inner . }}{{ include "y" . }}', inner: '{{ define "y" }}Y{{ end }}' } },
    { t: '{{ tpl .outer . }}', data: { outer: '{{ define "y" }}outer{{ end }}{{ tpl .inner . }}|{{ include "y" . }}', inner: '{{ define "y" }}inner{{ end }}{{ include "y" . }}' } },
    // .Template inside tpl is whatever the given dot holds
    {
      t: '{{ tpl .v . }}|{{ tpl .v $ }}|{{ include "t" . }}{{ define "t" }}{{ tpl .v . }}{{ end }}',
      data: { Template: { Name: 'c/templates/a.yaml', BasePath: 'c/templates' }, v: '{{ .Template.Name }}:{{ .Template.BasePath }}' },
    },
    { t: '{{ tpl .v (dict "Template" (dict "Name" "other")) }}', data: { v: '{{ .Template.Name }}:{{ .Template.BasePath }}' } },
    // <no value>: removed from tpl's output, kept in include's
    '{{ define "t" }}{{ .missing }}{{ end }}{{ tpl "{{ include \\"t\\" . | len }}|{{ tpl \\"{{ .missing }}\\" . | len }}" . }}',
    // (Helm's include limit across tpl is in test/gotemplate/tpl.test.ts: Go's message is 237 KB)
  ],
};

// Strings whose YAML form must be quoted (or not) exactly as gopkg.in/yaml.v2 decides.
const yamlStrings = [
  'plain', 'yes', 'no', 'on', 'off', 'y', 'n', 'Y', 'N', 'true', 'True', 'TRUE', 'false', 'null', 'Null', 'NULL', '~', '',
  '1.10', '1.0', '1', '-1', '+1', '0x1F', '0o17', '017', '0755', '08', '1e3', '1E3', '1_000', '.5', '5.', '.inf', '-.inf',
  '.NaN', 'NaN', 'inf', '#tag', 'a #b', 'a# b', 'key: value', 'a:b', 'a:', ':a', '- item', '-', '--', '---', '...', '?', '? x',
  '!tag', '&anchor', '*alias', '%percent', '@at', '`tick', '|', '|-', '>', "'single'", '"double"', "a'b", 'a"b',
  ' leading', 'trailing ', '  ', 'multi\nline', 'multi\nline\n', 'trailing\n\n', 'lead\n', '\nlead', '\ttab', 'tab\tin',
  'é', 'emoji 😀', '\u0007bell', 'nbsp\u00a0here', '{a}', '[a]', 'a,b', 'a, b', '2024-01-01', '2024-01-01T10:00:00Z',
  '12:30', '1:20:30', '190:20:30', '=', '<<', '0.1.2', '10.0.0.1', '1,000', 'a\r\nb', 'tab\tend', 'back\\slash',
  'null ', ' null', 'x: ', 'a - b', '- ', 'http://example.com/a?b=c#d', 'C:\\path', '$var', '${var}', '{{ tpl }}',
  'a'.repeat(100), 'word '.repeat(30).trim(), 'word '.repeat(30), 'line one\nline two is a bit longer ' + 'x'.repeat(90),
  'ÿ', 'ß', '\u2028sep', '\u00ad', 'Off', 'OFF', 'On', 'Yes', 'No', 'YES', 'NO', 'yes please', '0', '-0', '00', '0.0', '1e-7',
  '123456789012345678901234567890', '0b101', '+.inf', '1_0', '0x', 'y\n', 'true\n',
];

function yamlCases(): CaseInput[] {
  const out: CaseInput[] = [];
  for (let i = 0; i < yamlStrings.length; i += 4) {
    out.push({ t: '{{ toYaml .v }}', data: { v: Object.fromEntries(yamlStrings.slice(i, i + 4).map((s, j) => [`k${i + j}`, s])) } });
  }
  for (let i = 0; i < yamlStrings.length; i += 6) {
    out.push({ t: '{{ toYaml .v }}', data: { v: yamlStrings.slice(i, i + 6) } });
  }
  out.push(
    { t: '{{ toYaml .v }}', data: { v: Object.fromEntries(['yes', 'on', '1', '1.5', '', ' ', 'a b', 'a: b', '#c', '-', 'null', '~', 'é'].map((k, i) => [k, i])) } },
    { t: '{{ toYaml . }}', data: { b: 1, a: { d: [1, 2, { x: null }], c: [] }, e: {}, f: [[1, 2], [], [[3]]] } },
    { t: '{{ toYaml . }}', data: [{ name: 'a', ports: [80, 443] }, { name: 'b', env: [{ name: 'X', value: '1' }] }] },
    { t: '{{ toYaml . }}', data: { list: ['a', 'b'], map: { k: 'v' }, emptyList: [], emptyMap: {}, nil: null } },
    { t: '{{ toYaml . }}', data: { n: [0, 1, -1, 1.5, 1e6, 1e21, 1e-7, 0.1, 12345678901, 3.0, -0.0, 1e20, 123456789.123] } },
    { t: '{{ toYaml . }}', data: { b: [true, false], s: ['true', 'false'], x: null } },
    { t: '{{ toYaml . }}', data: { script: '#!/bin/sh\necho "hi"\nexit 0\n', trailing: 'a\n\n\n', spaces: 'a  \nb', tabs: 'a\n\tb' } },
    { t: '{{ toYaml . }}', data: { deep: { a: { b: { c: { d: { e: ['x', { f: 'g' }] } } } } } } },
    { t: '{{ toYaml . }}', data: 'just a string' },
    { t: '{{ toYaml . }}', data: 42 },
    { t: '{{ toYaml . }}', data: null },
    { t: '{{ toYaml . }}', data: [] },
    { t: '{{ toYaml . }}', data: {} },
    { t: '{{ toYaml . }}', data: [[]] },
    { t: '{{ toYaml . }}', data: [null, null] },
    '{{ toYaml .Values.image }}',
    '{{ toYaml .Values.hosts }}',
    '{{ toYaml .Values.mixed }}',
    '{{ toYaml .Values.sortme }}',
    '{{ toYaml .Values }}',
    '{{ toYaml .Values.multiline }}|{{ toYaml .Values.special }}|{{ toYaml .Values.unicode }}',
    '{{ toYaml .Values.tplValue }}',
    '{{ toYaml .Values.labels | indent 4 }}',
    'spec:\n  template:\n    metadata:\n      labels:\n        {{- toYaml .Values.labels | nindent 8 }}',
    'items:\n{{ toYaml .Values.list | indent 2 }}',
    '{{ toYaml (list (dict "a" 1 "b" (list 1 2))) }}',
    '{{ toYaml (dict "k" (list)) }}|{{ toYaml (dict "k" (dict)) }}',
    '{{ toYaml 1 }}|{{ toYaml 1.5 }}|{{ toYaml "1" }}|{{ toYaml true }}|{{ toYaml nil }}|{{ toYaml "" }}',
    '{{ toYaml (int64 5) }}|{{ toYaml (toDate "2006-01-02" "2024-01-01") }}',
    '{{ toYaml (semver "1.2.3") }}',
    '{{ toYaml (urlParse "https://a.b/c") }}',
    '{{ toYaml (splitList "," "a,b") }}|{{ toYaml (until 3) }}',
    '{{ mustToYaml .Values.labels }}',
    '{{ mustToYaml nil }}|{{ mustToYaml "x" }}',
    '{{ toYaml }}',
    '{{ toYaml (dict "a" (b64dec "aGk=")) }}',
    '{{ toYaml (dict "key with spaces" 1 "UPPER" 2 "_u" 3 "Ab" 4 "aB" 5) }}',
    '{{ toYaml (dict "1" "a" "10" "b" "2" "c" "-1" "d") }}',
    '{{ toYaml (list "- a" "-a" " -a") }}',
    '{{ toYaml (dict "a" "b: c" "d" "e #f" "g" "h#i") }}',
    '{{ toYaml (dict "long" (repeat 20 "abcd ")) }}',
    '{{ toYaml (dict "long" (repeat 100 "x")) }}',
    '{{ toYaml (dict "long" (printf "%s\\n%s" (repeat 30 "ab ") (repeat 30 "cd "))) }}',
    '{{ toYaml (dict "nested" (dict "long" (repeat 18 "word "))) }}',
    '{{ toYaml (list (repeat 20 "word ")) }}',
  );
  return out;
}

export const yamlOut: Topic = {
  source: 'helm-toYaml',
  prefix: 'toyaml',
  data: V,
  cases: yamlCases(),
};

const yamlDocs = [
  'a: 1\nb: two\nc: [1, 2]\nd: {e: f}',
  'on: yes\noff: no\ny: n\nt: true\nf: False',
  'octal: 0755\nhex: 0x1F\nfloat: 1.10\nexp: 1e3\nsexa: 1:20:30\ndate: 2024-01-01\nnil: ~\nempty:',
  'big: 12345678901234567890\nneg: -0\nnegf: -0.0\nlong: 1234567890123',
  'inf: .inf',
  'list:\n- a\n- b\n-  - nested\nmap:\n  k: v',
  'anchor: &a {x: 1}\nalias: *a\nmerged:\n  <<: *a\n  y: 2',
  'multi: |\n  line1\n  line2\nfolded: >\n  a\n  b\nkeep: |+\n  x\n\nstrip: |-\n  y',
  'quoted: "a\\tb"\nsingle: \'it\'\'s\'\nplain: a b c',
  'a: 1\na: 2',
  'a: [1, 2',
  'a:\n\tb: 1',
  '- 1\n- 2',
  'just a string',
  '',
  '---\na: 1\n---\nb: 2',
  '# only a comment',
  'key: value # comment\n# another\nother: x',
  '? complex key\n: value',
  '1: one\n2.5: float key\ntrue: bool key\nnull: null key',
  'a: !!str 123\nb: !!int "42"\nc: !!float 1',
  'a: !custom x',
  'nested:\n  deeper:\n    deepest: [1, {x: y}]',
  'unicode: "héllo \\u263a"\nraw: héllo',
  'ts: 2024-01-01T10:00:00Z',
  'bin: 0b101\nunder: 1_000\nplus: +12',
  'x: [a, b]: c',
  '{a: 1, b: [x, y]}',
  'a: "unterminated',
  'a:\n  - b\n  c: d',
  '~: tilde key',
  'nan: .nan',
  'null: null key',
  'n: 1\ny: 2\nN: 3\nYes: 4',
];

function fromYamlCases(): CaseInput[] {
  const out: CaseInput[] = [];
  for (const doc of yamlDocs) {
    out.push({ t: '{{ fromYaml .doc | toJson }}', data: { doc } });
  }
  for (const doc of yamlDocs.slice(0, 12)) {
    out.push({ t: '{{ fromYaml .doc }}', data: { doc } });
  }
  const arrays = ['- 1\n- two\n- [3]\n- {a: b}', 'a: 1', '', '- yes\n- 0755\n- ~', '[1, 2', 'scalar', '- - x\n  - y', '---\n- 1\n---\n- 2'];
  for (const doc of arrays) out.push({ t: '{{ fromYamlArray .doc | toJson }}', data: { doc } });
  out.push(
    '{{ fromYamlArray "- 1\\n- two" | toJson }}|{{ fromYamlArray "a: 1" }}',
    '{{ (fromYaml "a: {b: c}").a.b }}|{{ (fromYaml "n: 3").n | typeOf }}|{{ (fromYaml "n: 3").n }}',
    '{{ $m := fromYaml "replicas: 3" }}{{ if gt $m.replicas 2.0 }}big{{ end }}',
    '{{ $m := fromYaml "replicas: 3" }}{{ if gt $m.replicas 2 }}big{{ end }}',
    '{{ fromYaml (toYaml .Values.image) | toJson }}',
    '{{ toYaml .Values | fromYaml | toYaml | sha256sum }}',
    '{{ fromYaml "a: 1" | toYaml }}',
    '{{ (fromYaml "bad: [").Error }}',
    '{{ fromYaml 1 }}',
    '{{ fromYaml }}',
    '{{ typeOf (fromYaml "a: [1]").a }}|{{ typeOf (index (fromYaml "a: [1]").a 0) }}',
    '{{ fromYaml "a: 2024-01-01" | toJson }}|{{ typeOf (fromYaml "a: 2024-01-01").a }}',
    '{{ range $k, $v := fromYaml "b: 1\\na: 2\\nc: 3" }}{{ $k }}{{ end }}',
    '{{ fromYamlArray "- a\\n- b" | join "," }}',
    '{{ index (fromYamlArray "- x") 0 }}|{{ len (fromYamlArray "") }}',
    '{{ fromYaml "key: null" | toJson }}|{{ hasKey (fromYaml "key: null") "key" }}',
  );
  return out;
}

export const yamlIn: Topic = {
  source: 'helm-fromYaml',
  prefix: 'fromyaml',
  data: V,
  cases: fromYamlCases(),
};

const jsonStrings = ['plain', '<tag>&amp;', 'quote"back\\slash', 'ctrl\u0001\u001f', 'tab\tnl\n', 'é☃😀', '\u2028\u2029', '\u007f', '', '/slash/'];

export const json: Topic = {
  source: 'helm-json',
  prefix: 'json',
  data: V,
  cases: [
    ...jsonStrings.map((s) => ({ t: '{{ toJson .s }}|{{ mustToJson .s }}|{{ toRawJson .s }}', data: { s } })),
    '{{ toJson .Values.image }}',
    '{{ toJson .Values.mixed }}',
    '{{ toJson .Values.sortme }}',
    '{{ toJson .Values.special }}|{{ toJson .Values.multiline }}|{{ toJson .Values.unicode }}',
    '{{ toJson .Values }}',
    '{{ toJson . | len }}',
    '{{ toJson 1 }}|{{ toJson 1.5 }}|{{ toJson "1" }}|{{ toJson true }}|{{ toJson nil }}|{{ toJson "" }}|{{ toJson .Values.missing }}',
    '{{ toJson (list) }}|{{ toJson (dict) }}|{{ toJson .Values.emptyList }}|{{ toJson .Values.emptyMap }}',
    '{{ toJson 1e21 }}|{{ toJson 1e20 }}|{{ toJson 0.000001 }}|{{ toJson 0.0000001 }}|{{ toJson 123456789.0 }}|{{ toJson -0.0 }}',
    '{{ toJson (int64 5) }}|{{ toJson (toDate "2006-01-02" "2024-01-01") }}|{{ toJson (semver "1.2.3") }}',
    '{{ toJson (b64dec "aGk=") }}|{{ toJson (splitList "," "a,b") }}',
    '{{ toJson (dict "b" (list 1 (dict "d" 2 "c" 1))) }}',
    '{{ toJson (dict 1 2) }}',
    '{{ toJson (dict "a" (mulf 1e300 1e300)) }}|',
    '{{ mustToJson (dict "a" (mulf 1e300 1e300)) }}',
    '{{ toJson }}',
    '{{ fromJson "{\\"a\\":1,\\"b\\":[true,null,\\"x\\"],\\"c\\":{\\"d\\":1.5}}" }}',
    '{{ fromJson "{\\"a\\":1}" | toJson }}|{{ (fromJson "{\\"n\\":3}").n | typeOf }}',
    '{{ fromJson "{bad" }}',
    '{{ fromJson "" }}',
    '{{ fromJson "[1,2]" }}',
    '{{ fromJson "null" }}|{{ fromJson "{}" }}',
    '{{ fromJson "{\\"a\\":1} trailing" }}',
    '{{ fromJson "{\\"a\\":1,\\"a\\":2}" }}',
    '{{ fromJson "{\\"big\\":12345678901234567890}" }}|{{ fromJson "{\\"e\\":1e400}" }}',
    '{{ (fromJson "{\\"u\\":\\"\\\\u263a\\"}").u }}',
    '{{ fromJsonArray "[1,\\"two\\",{\\"a\\":null}]" | toJson }}|{{ fromJsonArray "{}" }}|{{ fromJsonArray "" }}',
    '{{ fromJsonArray "[1" }}',
    '{{ fromJsonArray "[]" | len }}|{{ fromJsonArray "null" }}',
    '{{ toJson .Values.labels | fromJson | toYaml }}',
    '{{ toPrettyJson .Values.image }}',
    '{{ toPrettyJson .Values.hosts }}',
    '{{ toRawJson .Values.special }}|{{ toJson .Values.special }}',
    '{{ fromJson 1 }}',
    '{{ toJson .Values.image | quote }}',
    '{{ toJson (list 1 2) | fromJsonArray | len }}',
    '{{ $m := fromJson "{\\"replicas\\": 3}" }}{{ gt $m.replicas 2.0 }}',
    '{{ fromJson "{\\"a\\":1}" | keys }}',
    '{{ fromJson "  {\\"a\\" : 1 }  " | toJson }}',
    '{{ fromJson "{\\"a\\":\\"\\\\ud800\\"}" | toJson }}',
  ],
};

export const toml: Topic = {
  source: 'helm-toml',
  prefix: 'toml',
  data: V,
  cases: [
    '{{ toToml (dict "name" "x" "port" 80 "tags" (list "a" "b") "db" (dict "host" "h")) }}',
    '{{ toToml .Values.image }}',
    '{{ toToml .Values.labels }}',
    '{{ toToml (dict "f" 1.5 "i" 3 "b" true "s" "q\\"uote" "e" "") }}',
    '{{ toToml (dict "n" .Values.replicaCount "big" .Values.big "ratio" .Values.ratio) }}',
    '{{ toToml (dict "list" (list 1 2 3) "mixed" (list 1 "a")) }}',
    '{{ toToml (dict "tables" (list (dict "a" 1) (dict "a" 2))) }}',
    '{{ toToml (dict "nested" (dict "deeper" (dict "k" "v") "x" 1)) }}',
    '{{ toToml (dict "nil" nil "a" 1) }}',
    '{{ toToml (dict "key with space" 1 "ünï" 2 "a.b" 3) }}',
    '{{ toToml (list 1 2) }}',
    '{{ toToml "str" }}',
    '{{ toToml nil }}',
    '{{ toToml (dict) }}',
    '{{ toToml (dict "multi" "a\\nb" "tab" "a\\tb") }}',
    '{{ toToml (dict "date" (toDate "2006-01-02" "2024-01-01")) }}',
    '{{ toToml (dict "z" 1 "a" (dict "b" 2) "m" 3) }}',
    '{{ toToml (dict "empty" (dict) "emptyList" (list)) }}',
    '{{ toToml .Values.hosts }}',
    '{{ toToml (dict "hosts" .Values.hosts) }}',
    '{{ toToml (dict "n" 1e21 "small" 1e-7 "neg" -0.5) }}',
  ],
};

export const manifests: Topic = {
  source: 'manifests',
  prefix: 'manifest',
  data: V,
  cases: [
    `{{- define "app.fullname" -}}
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
{{- define "app.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- if .Chart.AppVersion }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{- end }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "app.fullname" . }}
  labels:
    {{- include "app.labels" . | nindent 4 }}
spec:
  replicas: {{ .Values.replicaCount }}
  selector:
    matchLabels:
      {{- toYaml .Values.labels | nindent 6 }}
  template:
    spec:
      containers:
        - name: {{ .Chart.Name }}
          image: "{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}"
          imagePullPolicy: {{ .Values.image.pullPolicy }}
          ports:
          {{- range .Values.hosts }}
            - containerPort: {{ .port }}
              name: {{ .name | replace "." "-" | trunc 15 }}
          {{- end }}
`,
    `apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-config
  namespace: {{ .Release.Namespace }}
data:
  {{- range $k, $v := .Values.labels }}
  {{ $k }}: {{ $v | quote }}
  {{- end }}
  replicas: {{ .Values.replicaCount | quote }}
  big: {{ .Values.big | quote }}
  version: {{ .Values.version | quote }}
  multiline: |
    {{- .Values.multiline | nindent 4 }}
  json: {{ toJson .Values.image | quote }}
`,
    `{{- if .Values.enabled }}
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata:
  name: {{ .Release.Name }}
  annotations:
    {{- with .Values.emptyMap }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
spec:
  rules:
  {{- range .Values.hosts }}
    - host: {{ .name | quote }}
      http:
        paths:
          - path: /
            backend:
              service:
                name: {{ $.Release.Name }}
                port:
                  number: {{ .port }}
  {{- end }}
{{- end }}
`,
    `{{- $root := . -}}
{{- range $i, $h := .Values.hosts }}
---
apiVersion: v1
kind: Service
metadata:
  name: {{ $root.Release.Name }}-{{ $i }}
spec:
  ports:
    - port: {{ $h.port }}
      targetPort: {{ add $h.port 1000 }}
{{- end }}
`,
    `apiVersion: v1
kind: Secret
metadata:
  name: {{ .Release.Name }}-secret
  annotations:
    checksum/config: {{ toJson .Values.labels | sha256sum }}
type: Opaque
data:
  password: {{ "s3cr3t" | b64enc | quote }}
  {{- $existing := lookup "v1" "Secret" .Release.Namespace (printf "%s-secret" .Release.Name) }}
  {{- if $existing }}
  reused: "true"
  {{- end }}
stringData:
  url: {{ printf "postgres://%s:%s@db:5432/%s" "app" "pw" .Release.Name | quote }}
`,
    `{{- define "env" -}}
{{- range $k, $v := . }}
- name: {{ $k | upper | replace "." "_" }}
  value: {{ $v | toString | quote }}
{{- end }}
{{- end -}}
env:
{{- include "env" .Values.sortme | indent 2 }}
`,
    `resources:
{{- if .Values.missing }}
{{ toYaml .Values.missing | indent 2 }}
{{- else }}
  limits:
    cpu: {{ .Values.ratio | mulf 1000 | int }}m
    memory: {{ mul .Values.replicaCount 256 }}Mi
{{- end }}
`,
    `{{- if semverCompare ">=1.19-0" .Capabilities.KubeVersion.GitVersion -}}
apiVersion: networking.k8s.io/v1
{{- else if semverCompare ">=1.14-0" .Capabilities.KubeVersion.GitVersion -}}
apiVersion: networking.k8s.io/v1beta1
{{- else -}}
apiVersion: extensions/v1beta1
{{- end }}
kind: Ingress
`,
    `{{- range $name, $cfg := dict "a" (dict "port" 80) "b" (dict "port" 81 "tls" true) }}
{{ $name }}:
  port: {{ $cfg.port }}
  tls: {{ $cfg.tls | default false }}
{{- end }}
`,
    `{{- $list := list }}
{{- range .Values.list }}
{{- $list = append $list (printf "item-%s" .) }}
{{- end }}
items: {{ $list | toJson }}
sorted: {{ $list | sortAlpha | join "," }}
count: {{ len $list }}
`,
    `{{- $vals := merge (dict "extra" "x") .Values.image }}
image:
{{ toYaml $vals | indent 2 }}
tag: {{ $vals.tag }}
`,
    `args:
{{- range $i, $a := list "--port" (toString .Values.port) "--name=web" "--debug" }}
  - {{ $a | quote }}
{{- end }}
`,
    `{{- with .Values.image -}}
{{- $tag := .tag | toString -}}
{{- if regexMatch "^[0-9]+[.][0-9]+[.][0-9]+$" $tag -}}
semver tag {{ $tag }} (major {{ (semver $tag).Major }})
{{- else -}}
other tag {{ $tag }}
{{- end -}}
{{- end }}
`,
    `{{ define "probe" -}}
httpGet:
  path: {{ .path }}
  port: {{ .port }}
initialDelaySeconds: {{ .delay | default 10 }}
{{- end -}}
livenessProbe:
  {{- include "probe" (dict "path" "/healthz" "port" 8080 "delay" 0) | nindent 2 }}
readinessProbe:
  {{- include "probe" (dict "path" "/ready" "port" 8080 "delay" 5) | nindent 2 }}
`,
    `{{- $cm := dict "apiVersion" "v1" "kind" "ConfigMap" "metadata" (dict "name" .Release.Name "labels" .Values.labels) "data" (dict "a" "1" "yes" "yes") -}}
{{ toYaml $cm }}
`,
  ],
};

export const extraToYaml: Topic = {
  source: 'helm-toYaml-values',
  prefix: 'yamlvals',
  data: V,
  cases: Object.keys(V.Values).map((k) => `{{ toYaml .Values.${k} }}`),
};
