// Unit tests of the engine API: parse once / execute many, methods on caller objects, Helm functions
// that need the caller (lookup), and the safety limits.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { X509Certificate, createPrivateKey, type KeyObject } from 'node:crypto';
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  generatePrivateKey,
  renderString,
  type PrivateKeyType,
  TemplateSet,
  TemplateLimitError,
  TemplateParseError,
  TemplateExecError,
  type FuncDef,
} from '../../src/gotemplate/index.js';

test('parse once, execute many times with different data', () => {
  const set = new TemplateSet();
  set.parse('_helpers.tpl', '{{ define "name" }}{{ .Release.Name }}-{{ .Chart.Name }}{{ end }}');
  set.parse('deployment.yaml', 'name: {{ include "name" . }}\nreplicas: {{ .Values.replicas }}\n');
  for (let i = 0; i < 50; i++) {
    const out = set.render('deployment.yaml', { Release: { Name: `r${i}` }, Chart: { Name: 'c' }, Values: { replicas: i } });
    assert.equal(out, `name: r${i}-c\nreplicas: ${i}\n`);
  }
  assert.deepEqual(set.names().sort(), ['_helpers.tpl', 'deployment.yaml', 'name']);
});

test('a parsed set is shared safely: nested and interleaved executions do not interfere', () => {
  const set = new TemplateSet();
  set.parse('a', '{{ $x := .v }}{{ .f }}|{{ $x }}');
  const inner = (): string => set.render('a', { v: 'inner', f: () => 'x' });
  const out = set.render('a', { v: 'outer', f: inner });
  assert.equal(out, 'x|inner|outer');
});

test('execution never changes the parsed set', () => {
  const set = new TemplateSet();
  set.parse('h', '{{ define "x" }}{{ range $i, $v := . }}{{ $i }}{{ include "y" $v }}{{ end }}{{ end }}{{ define "y" }}<{{ . }}>{{ end }}');
  set.parse('m', '{{ $a := 1 }}{{ include "x" .l }}{{ tpl "{{ define \\"z\\" }}Z{{ end }}{{ template \\"z\\" }}" . }}{{ template "y" $a }}');
  const snapshot = (): string =>
    JSON.stringify(set.names().sort().map((n) => [n, set.lookup(n)]), (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  const before = snapshot();
  assert.equal(set.render('m', { l: ['a', 'b'] }), '0<a>1<b>Z<1>');
  assert.equal(set.render('m', { l: [] }), 'Z<1>');
  assert.equal(snapshot(), before);
});

test('tpl defines do not leak into the shared set', () => {
  const set = new TemplateSet();
  set.parse('main', '{{ tpl "{{ define \\"leak\\" }}L{{ end }}{{ include \\"leak\\" . }}" . }}');
  assert.equal(set.render('main', {}), 'L');
  assert.equal(set.has('leak'), false);
});

test('later definitions replace earlier ones, empty bodies do not', () => {
  const set = new TemplateSet();
  set.parse('one', '{{ define "x" }}first{{ end }}');
  set.parse('two', '{{ define "x" }}second{{ end }}');
  set.parse('three', '{{ define "x" }}{{ end }}');
  set.parse('main', '{{ template "x" }}');
  assert.equal(set.render('main', null), 'second');
});

test('methods on caller objects: .Files.Get, .Capabilities.APIVersions.Has', () => {
  const files: Record<string, string> = { 'config.ini': 'a=1' };
  const data = {
    Files: { Get: (name: string) => files[name] ?? '' },
    Capabilities: { APIVersions: { Has: (v: string) => v === 'apps/v1' }, KubeVersion: { GitVersion: 'v1.29.0' } },
  };
  const out = renderString(
    '{{ .Files.Get "config.ini" }}|{{ .Capabilities.APIVersions.Has "apps/v1" }}|{{ .Capabilities.APIVersions.Has "x/v1" }}|{{ .Capabilities.KubeVersion.GitVersion }}',
    data,
  );
  assert.equal(out, 'a=1|true|false|v1.29.0');
});

test('class instances act as structs: fields, methods, unknown field error', () => {
  class Release {
    readonly goTypeName = '*chartutil.Release';
    Name = 'shop';
    Upper(): string {
      return this.Name.toUpperCase();
    }
  }
  assert.equal(renderString('{{ .R.Name }}/{{ .R.Upper }}', { R: new Release() }), 'shop/SHOP');
  assert.throws(() => renderString('{{ .Nope }}', new Release()), /can't evaluate field Nope in type \*chartutil\.Release/);
  // a value read from a map has Go's static type interface {}
  assert.throws(() => renderString('{{ .R.Nope }}', { R: new Release() }), /can't evaluate field Nope in type interface \{\}/);
});

test('lookup uses the callback, and is an empty map without one', () => {
  const calls: string[][] = [];
  const set = new TemplateSet({
    exec: {
      lookup: (...a) => {
        calls.push(a);
        return { metadata: { name: a[3] } };
      },
    },
  });
  set.parse('m', '{{ (lookup "v1" "Secret" "ns" "db").metadata.name }}');
  assert.equal(set.render('m', {}), 'db');
  assert.deepEqual(calls, [['v1', 'Secret', 'ns', 'db']]);
  assert.equal(renderString('{{ lookup "v1" "Secret" "ns" "db" | len }}', {}), '0');
});

test('errors carry Go text, template name, line and column', () => {
  assert.throws(() => renderString('x\n{{ .a.b.c }}', { a: {} }), (e: Error) => {
    assert.ok(e instanceof TemplateExecError);
    assert.equal(e.message, 'template: main:2:5: executing "main" at <.a.b.c>: nil pointer evaluating interface {}.c');
    return true;
  });
  assert.throws(() => renderString('{{ if }}', {}), (e: Error) => {
    assert.ok(e instanceof TemplateParseError);
    assert.equal(e.message, 'template: main:1: missing value for if');
    return true;
  });
  assert.throws(() => renderString('{{ .x }}', {}, { name: 'chart/templates/a.yaml', missingKey: 'error' }), /template: chart\/templates\/a\.yaml:1:3: executing "chart\/templates\/a\.yaml" at <\.x>: map has no entry for key "x"/);
});

test('safety: no environment access', () => {
  process.env.GOTEMPLATE_SECRET_TEST = 'secret';
  assert.throws(() => renderString('{{ env "GOTEMPLATE_SECRET_TEST" }}', {}), /function "env" not defined/);
  assert.throws(() => renderString('{{ expandenv "$GOTEMPLATE_SECRET_TEST" }}', {}), /function "expandenv" not defined/);
  delete process.env.GOTEMPLATE_SECRET_TEST;
});

test('functions: every Sprig function but env/expandenv, Helm\'s functions and Go\'s built-ins, nothing else', async () => {
  const { defaultFuncs } = await import('../../src/gotemplate/funcs/index.js');
  // Sprig 3.3.0's function map (functions.go genericMap), by group of its documentation
  const sprig = {
    strings:
      'abbrev abbrevboth trunc trim upper lower title untitle substr repeat trimall trimAll trimSuffix trimPrefix nospace initials ' +
      'randAlphaNum randAlpha randAscii randNumeric swapcase shuffle snakecase camelcase kebabcase wrap wrapWith contains hasPrefix ' +
      'hasSuffix quote squote cat indent nindent replace plural sha1sum sha256sum sha512sum adler32sum toString seq hello',
    stringLists: 'split splitList splitn toStrings join sortAlpha',
    math: 'add1 add sub div mod mul randInt biggest max min ceil floor round atoi int64 int float64 toDecimal',
    floatMath: 'add1f addf subf divf mulf maxf minf',
    intLists: 'until untilStep',
    dates:
      'ago date date_in_zone date_modify dateInZone dateModify duration durationRound htmlDate htmlDateInZone must_date_modify ' +
      'mustDateModify mustToDate now toDate unixEpoch',
    defaults: 'default empty coalesce all any compact mustCompact ternary fromJson toJson toPrettyJson toRawJson mustFromJson mustToJson mustToPrettyJson mustToRawJson',
    encoding: 'b64enc b64dec b32enc b32dec',
    lists:
      'list tuple append push mustAppend mustPush prepend mustPrepend first mustFirst rest mustRest last mustLast initial mustInitial ' +
      'reverse mustReverse uniq mustUniq without mustWithout has mustHas slice mustSlice concat chunk mustChunk',
    dicts: 'dict get set unset hasKey pluck keys pick omit merge mergeOverwrite mustMerge mustMergeOverwrite values deepCopy mustDeepCopy dig',
    reflection: 'typeOf typeIs typeIsLike kindOf kindIs deepEqual',
    paths: 'base dir clean ext isAbs osBase osClean osDir osExt osIsAbs',
    flow: 'fail',
    uuid: 'uuidv4',
    regex:
      'regexMatch mustRegexMatch regexFindAll mustRegexFindAll regexFind mustRegexFind regexReplaceAll mustRegexReplaceAll ' +
      'regexReplaceAllLiteral mustRegexReplaceAllLiteral regexSplit mustRegexSplit regexQuoteMeta',
    semver: 'semver semverCompare',
    crypto:
      'bcrypt htpasswd genPrivateKey derivePassword buildCustomCert genCA genCAWithKey genSelfSignedCert genSelfSignedCertWithKey ' +
      'genSignedCert genSignedCertWithKey encryptAES decryptAES randBytes',
    url: 'urlParse urlJoin',
    network: 'getHostByName',
  };
  const helm = 'include tpl required toYaml mustToYaml fromYaml fromYamlArray toJson mustToJson fromJson fromJsonArray toToml lookup';
  const go = 'and or not len index slice print printf println html js urlquery eq ne lt le gt ge call';
  const want = new Set([...Object.values(sprig), helm, go].join(' ').split(' '));
  assert.deepEqual([...defaultFuncs().keys()].sort(), [...want].sort());
  assert.ok(!want.has('env') && !want.has('expandenv'));
});

test('safety: no file or network access from templates', () => {
  // getHostByName does no DNS lookup, as in Helm without --enable-dns
  assert.equal(renderString('[{{ getHostByName "localhost" }}]', {}), '[]');
  // a path is only ever a template name; there is no function that reads files
  assert.throws(() => renderString('{{ include "/etc/passwd" . }}', {}), /no template "\/etc\/passwd" associated with template "gotpl"/);
  assert.throws(() => renderString('{{ template "/etc/passwd" }}', {}), /template "\/etc\/passwd" not defined/);
  for (const f of ['readFile', 'file', 'glob', 'exec', 'shell', 'httpGet']) {
    assert.throws(() => renderString(`{{ ${f} "/etc/passwd" }}`, {}), new RegExp(`function "${f}" not defined`));
  }
  // .Files is whatever the caller passes: without it there is nothing to call
  assert.throws(() => renderString('{{ .Files.Get "/etc/passwd" }}', {}), /nil pointer evaluating interface \{\}\.Get/);
});

test('safety: infinite {{template}} recursion is an error, not a crash', () => {
  assert.throws(
    () => renderString('{{ define "loop" }}{{ template "loop" . }}{{ end }}{{ template "loop" . }}', {}),
    /exceeded maximum template depth/,
  );
});

test('safety: infinite include recursion fails with Helm\'s error', () => {
  assert.throws(
    () => renderString('{{ define "t" }}{{ include "t" . }}{{ end }}{{ include "t" . }}', {}),
    /rendering template has a nested reference name: t: unable to execute template/,
  );
});

test('depth: 1000 nested includes of one name work (Helm\'s limit), the 1001st nested one fails', () => {
  const set = new TemplateSet();
  // each level is an include inside an if, inside a pipeline with other functions
  set.parse('m', '{{ define "t" }}{{ if gt (int .) 0 }}{{ include "t" (sub . 1) | trim | printf "%s." }}{{ else }}x{{ end }}{{ end }}{{ include "t" . }}');
  assert.equal(set.render('m', 1000n), 'x' + '.'.repeat(1000)); // 1001 includes of "t"
  assert.throws(
    () => set.render('m', 1001n),
    (e: Error) => e.message.endsWith('error calling include: rendering template has a nested reference name: t: unable to execute template'),
  );
});

test('depth: nesting is not bounded by the JS stack (template, include of many names, tpl, arguments, range, with)', () => {
  const set = new TemplateSet();
  set.parse(
    'm',
    '{{ define "deep" }}{{ if gt (int .) 0 }}{{ template "deep" (sub . 1) }}{{ else }}bottom{{ end }}{{ end }}' +
      // two names alternating: 1800 nested includes, 900 of each name
      '{{ define "a" }}{{ if gt (int .) 0 }}{{ range list 1 }}{{ with $ }}{{ include "b" (sub . 1) }}{{ end }}{{ end }}{{ else }}A{{ end }}{{ end }}' +
      '{{ define "b" }}{{ if gt (int .) 0 }}{{ include "a" (include "dec" .) }}{{ else }}B{{ end }}{{ end }}' +
      '{{ define "dec" }}{{ sub . 1 }}{{ end }}' +
      '{{ define "viatpl" }}{{ if gt (int .) 0 }}{{ tpl "{{ template \\"viatpl\\" (sub . 1) }}" . }}{{ else }}T{{ end }}{{ end }}' +
      '{{ template "deep" .n }}|{{ include "a" .m }}|{{ include "viatpl" .t }}|{{ and 1 (include "deep" 2000) }}',
  );
  assert.equal(set.render('m', { n: 20000n, m: 1800n, t: 2000n }), 'bottom|A|T|bottom');
});

test('depth: a custom function that runs templates (FuncDef gen) nests without the JS stack too', () => {
  const bracket: FuncDef = {
    params: ['string', 'interface {}'],
    fn: () => {
      throw new Error('not used: the executor calls gen');
    },
    *gen([name, data], ctx) {
      return `[${(yield ctx.call(name, data)) as string}]`;
    },
  };
  const set = new TemplateSet({ funcs: { bracket } });
  set.parse('m', '{{ define "t" }}{{ if gt (int .) 0 }}{{ bracket "t" (sub . 1) }}{{ else }}.{{ end }}{{ end }}{{ bracket "t" .n }}');
  assert.equal(set.render('m', { n: 2n }), '[[[.]]]');
  assert.equal(set.render('m', { n: 5000n }), '['.repeat(5001) + '.' + ']'.repeat(5001));
});

test('depth: an error deep down keeps Go\'s locations and Helm\'s presentation', async () => {
  const { helmErrorMessage } = await import('../../src/gotemplate/index.js');
  const set = new TemplateSet();
  set.parse('m', '{{ define "t" }}{{ if gt (int .) 0 }}{{ include "t" (sub . 1) }}{{ else }}{{ .nope.x }}{{ end }}{{ end }}{{ include "t" . }}');
  let err: unknown;
  try {
    set.render('m', 900n);
  } catch (e) {
    err = e;
  }
  assert.ok(err instanceof TemplateExecError);
  const go = (err as Error).message;
  assert.ok(go.startsWith('template: m:1:108: executing "m" at <include "t" .>: error calling include: template: m:1:40: executing "t" at <include "t" (sub . 1)>:'));
  assert.ok(go.endsWith('error calling include: template: m:1:82: executing "t" at <.nope.x>: can\'t evaluate field nope in type int64'));
  assert.equal(go.split('error calling include').length - 1, 901);
  // Helm shows one block per level, and repeated levels once
  assert.deepEqual(helmErrorMessage(err).split('\n'), [
    'm:1:108',
    '  executing "m" at <include "t" .>:',
    '    error calling include:',
    'm:1:40',
    '  executing "t" at <include "t" (sub . 1)>:',
    '    error calling include:',
    'm:1:82',
    '  executing "t" at <.nope.x>:',
    "    can't evaluate field nope in type int64",
  ]);
});

test('safety: runaway recursion through many include names or through tpl ends in an error', () => {
  let text = '';
  for (let i = 0; i < 150; i++) text += `{{ define "n${i}" }}{{ include "n${(i + 1) % 150}" . }}{{ end }}`;
  const set = new TemplateSet();
  set.parse('m', text + '{{ include "n0" . }}');
  assert.throws(() => set.render('m', {}), /exceeded maximum template depth \(100000\)/);
  // (Helm itself crashes on this one: its stack overflows)
  assert.throws(
    () => renderString('{{ define "a" }}{{ tpl "{{ template \\"a\\" . }}" . }}{{ end }}{{ template "a" . }}', {}, { maxDepth: 10000 }),
    /exceeded maximum template depth \(10000\)/,
  );
});

test('safety: maxDepth option bounds nesting', () => {
  const set = new TemplateSet({ exec: { maxDepth: 10 } });
  set.parse('m', '{{ define "n" }}{{ if gt (int .) 0 }}{{ template "n" (sub . 1) }}{{ end }}{{ end }}{{ template "n" . }}');
  assert.equal(set.render('m', 5n), '');
  assert.throws(() => set.render('m', 20n), /exceeded maximum template depth \(10\)/);
});

test('safety: output larger than the limit fails', () => {
  const set = new TemplateSet();
  set.parse('big', '{{ range until 100000 }}0123456789{{ end }}');
  assert.throws(() => set.render('big', {}, { maxOutputLength: 100_000 }), (e: Error) => e instanceof TemplateLimitError && /output exceeds the limit/.test(e.message));
  assert.equal(set.render('big', {}, { maxOutputLength: 2_000_000 }).length, 1_000_000);
});

test('safety: regular expressions run in linear time (no catastrophic backtracking)', () => {
  const start = Date.now();
  assert.equal(renderString(`{{ regexMatch "(a+)+$" "${'a'.repeat(5000)}b" }}`, {}), 'false');
  assert.ok(Date.now() - start < 5000, 'regexMatch took too long');
});

test('fmt: %#v of times is Go\'s GoString, with time.Local for the local zone (as Helm prints it)', () => {
  assert.match(renderString('{{ printf "%#v" now }}', {}), /^time\.Date\(\d{4}, time\.[A-Z][a-z]+, \d+, \d+, \d+, \d+, \d+, time\.Local\)$/);
  assert.equal(renderString('{{ printf "%#v" (toDate "2006-01-02" "2024-03-05") }}', {}), 'time.Date(2024, time.March, 5, 0, 0, 0, 0, time.Local)');
  assert.equal(renderString('{{ (toDate "2006-01-02T15:04:05Z" "2024-03-05T10:11:12Z").UTC.GoString }}', {}), 'time.Date(2024, time.March, 5, 10, 11, 12, 0, time.UTC)');
});

test('value model: YAML/JSON numbers are float64, template literals are int', () => {
  assert.equal(renderString('{{ .n }}|{{ 1000000 }}|{{ printf "%T %T" .n 1 }}', { n: 1000000 }), '1e+06|1000000|float64 int');
  assert.throws(() => renderString('{{ eq .n 1 }}', { n: 1 }), /incompatible types for comparison/);
});

test('safety: JS built-ins are not reachable as fields or methods', () => {
  class Obj {
    Name = 'x';
  }
  assert.throws(() => renderString('{{ .constructor }}', new Obj()), /can't evaluate field constructor/);
  assert.throws(() => renderString('{{ .toString }}', new Obj()), /can't evaluate field toString/);
  assert.throws(() => renderString('{{ .__proto__ }}', new Obj()), /can't evaluate field __proto__/);
  assert.equal(renderString('[{{ .constructor }}{{ .toString }}]', {}), '[]');
  assert.throws(() => renderString('{{ .l.map }}', { l: [1] }), /can't evaluate field map in type interface \{\}/);
  assert.throws(() => renderString('{{ .length }}', [1]), /can't evaluate field length in type \[\]interface \{\}/);
});

test('renderChartFiles: Helm order, partials skipped, .Template per file, later define wins', async () => {
  const { renderChartFiles, helmParseOrder } = await import('../../src/gotemplate/index.js');
  assert.deepEqual(helmParseOrder(['c/templates/b.yaml', 'c/templates/a.yaml', 'c/charts/s/templates/x.yaml']), [
    'c/charts/s/templates/x.yaml',
    'c/templates/b.yaml',
    'c/templates/a.yaml',
  ]);
  const out = renderChartFiles(
    {
      'c/templates/_a.tpl': '{{ define "x" }}A{{ end }}',
      'c/templates/_b.tpl': '{{ define "x" }}B{{ end }}',
      'c/templates/t.yaml': '{{ include "x" . }}|{{ .Template.Name }}|{{ .Template.BasePath }}|{{ .Values.v }}',
    },
    { Values: { v: 1 } },
  );
  assert.deepEqual(out, { 'c/templates/t.yaml': 'A|c/templates/t.yaml|c/templates|1' });
});

test('crypto: keys of the sizes Sprig makes, from the generateKey option when given', () => {
  const asked: string[] = [];
  const made = new Map<string, KeyObject>();
  const generateKey = (type: PrivateKeyType, bits: number): KeyObject => {
    asked.push(`${type}/${bits}`);
    let k = made.get(type);
    if (!k) made.set(type, (k = generatePrivateKey(type, type === 'rsa' ? 1024 : bits)));
    return k;
  };
  const out = renderString(
    '{{ genPrivateKey "rsa" }}|{{ genPrivateKey "" }}|{{ genPrivateKey "ecdsa" }}|{{ genPrivateKey "ed25519" }}|' +
      '{{ $ca := genCA "ca" 1 }}{{ $ca.Key }}|{{ (genSelfSignedCert "s" nil nil 1).Key }}|{{ (genSignedCert "x" nil nil 1 $ca).Key }}',
    {},
    { generateKey },
  ).split('|');
  assert.deepEqual(asked, ['rsa/4096', 'rsa/4096', 'ecdsa/256', 'ed25519/256', 'rsa/2048', 'rsa/2048', 'rsa/2048']);
  const rsa = made.get('rsa')!.export({ type: 'pkcs1', format: 'pem' });
  assert.deepEqual(out, [
    rsa,
    rsa,
    made.get('ecdsa')!.export({ type: 'sec1', format: 'pem' }),
    made.get('ed25519')!.export({ type: 'pkcs8', format: 'pem' }),
    rsa,
    rsa,
    rsa,
  ]);
  // the default generator makes a new key each time, of the size asked
  const a = generatePrivateKey('rsa', 1024);
  assert.equal(a.asymmetricKeyDetails!.modulusLength, 1024);
  assert.notEqual(a.export({ type: 'pkcs1', format: 'pem' }), generatePrivateKey('rsa', 1024).export({ type: 'pkcs1', format: 'pem' }));
  assert.match(renderString('{{ genPrivateKey "ecdsa" }}', {}), /^-----BEGIN EC PRIVATE KEY-----\n/);
});

test('crypto: real CA, self-signed and CA-signed certificates (subject, SANs, validity, signature, key)', () => {
  // genCA with the default generator: a real 2048-bit RSA key
  const [caCert, caKey, leafCert, leafKey, selfCert, selfKey] = JSON.parse(
    renderString(
      '{{ $ca := genCA "my-ca" 365 }}{{ $c := genSignedCert "svc" (list "10.0.0.1") (list "svc.ns" "svc.ns.svc") 30 $ca }}' +
        '{{ $s := genSelfSignedCertWithKey "self.io" nil (list "self.io") 7 (genPrivateKey "ecdsa") }}' +
        '{{ list $ca.Cert $ca.Key $c.Cert $c.Key $s.Cert $s.Key | toJson }}',
      {},
    ),
  ) as string[];
  const day = 86_400_000;
  const ca = new X509Certificate(caCert);
  assert.equal(ca.subject, 'CN=my-ca');
  assert.equal(ca.issuer, 'CN=my-ca');
  assert.equal(ca.ca, true);
  assert.ok(ca.verify(ca.publicKey), 'self-signed');
  assert.ok(ca.checkPrivateKey(createPrivateKey(caKey)));
  assert.equal(createPrivateKey(caKey).asymmetricKeyDetails!.modulusLength, 2048);
  assert.ok(Math.abs(Date.parse(ca.validTo) - Date.now() - 365 * day) < 2 * day);

  const leaf = new X509Certificate(leafCert);
  assert.equal(leaf.subject, 'CN=svc');
  assert.equal(leaf.issuer, 'CN=my-ca');
  assert.equal(leaf.ca, false);
  assert.ok(leaf.verify(ca.publicKey), 'signed by the CA');
  assert.ok(!leaf.verify(leaf.publicKey));
  assert.ok(leaf.checkPrivateKey(createPrivateKey(leafKey)));
  assert.ok(!leaf.checkPrivateKey(createPrivateKey(caKey)), 'a key of its own');
  assert.equal(leaf.subjectAltName, 'IP Address:10.0.0.1, DNS:svc.ns, DNS:svc.ns.svc');
  assert.ok(Math.abs(Date.parse(leaf.validTo) - Date.now() - 30 * day) < 2 * day);

  const self = new X509Certificate(selfCert);
  assert.equal(self.subject, 'CN=self.io');
  assert.ok(self.verify(self.publicKey));
  assert.ok(self.checkPrivateKey(createPrivateKey(selfKey)));
  assert.equal(self.publicKey.asymmetricKeyType, 'ec');
  assert.equal(self.subjectAltName, 'DNS:self.io');
});

test('leaf library: imports only its own modules, node:crypto and its npm dependencies; no env, files or network', () => {
  const dir = fileURLToPath(new URL('../../src/gotemplate/', import.meta.url));
  const files = readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'));
  assert.ok(files.length > 10);
  for (const f of files) {
    const text = readFileSync(join(dir, f), 'utf8');
    for (const m of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      const spec = m[1];
      if (spec.startsWith('.')) {
        const target = resolve(dirname(join(dir, f)), spec);
        assert.ok(target.startsWith(dir), `${f} imports ${spec}, outside src/gotemplate`);
      } else assert.ok(['node:crypto', 'bcryptjs', 'node-forge', 'yaml', 're2js'].includes(spec), `${f} imports ${spec}`);
    }
    assert.doesNotMatch(text, /process\.env|process\.cwd|\brequire\(/, `${f} reaches the environment`);
  }
});

test('range over an integer (Go 1.24): 0..n-1, else when n <= 0, one variable at most', () => {
  assert.equal(renderString('{{ range 3 }}{{ . }}{{ end }}|{{ range $i := 3 }}{{ $i }}{{ end }}', {}), '012|012');
  assert.equal(renderString('{{ range 0 }}x{{ else }}zero{{ end }}|{{ range -2 }}x{{ else }}none{{ end }}', {}), 'zero|none');
  assert.equal(renderString('{{ range (int64 2) }}{{ printf "%T" . }} {{ end }}', {}), 'int64 int64 ');
  assert.equal(renderString('{{ range 5 }}{{ if eq . 1 }}{{ continue }}{{ end }}{{ if eq . 3 }}{{ break }}{{ end }}{{ . }}{{ end }}', {}), '02');
  assert.throws(() => renderString('{{ range $a, $b := 5 }}{{ end }}', {}), /template: main:1:19: executing "main" at <5>: can't use 5 to iterate over more than one variable/);
  // numbers from values are float64: not iterable, as in Go
  assert.throws(() => renderString('{{ range .n }}{{ end }}', { n: 3 }), /range can't iterate over 3/);
});

test('crypto: every serial is a minimal DER integer (OpenSSL 3 rejects a redundant leading zero byte)', () => {
  // a serial's first random byte is 0 once in 256 certificates: 1,000 of them leave that to chance 2 % of the time
  const pems = JSON.parse(
    renderString('{{ $k := genPrivateKey "ecdsa" }}[{{ range $i, $_ := until 1000 }}{{ if $i }},{{ end }}{{ (genSelfSignedCertWithKey "a" nil nil 1 $k).Cert | toJson }}{{ end }}]', {}),
  ) as string[];
  assert.equal(pems.length, 1000);
  for (const pem of pems) {
    const serial = new X509Certificate(pem).serialNumber;
    assert.ok(!/^00/.test(serial) || /^00[89A-F]/.test(serial), `serial ${serial}`);
  }
});
