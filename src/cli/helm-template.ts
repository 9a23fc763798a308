/**
 * `addon-operator helm template [NAME] CHART`: Helm 3.19's `helm template` (cmd/helm/template.go,
 * runInstall, action.Install in client-only mode) for charts on disk, with its flags parsed as
 * pflag parses them, its values options (pkg/cli/values, strvals) and its output and error texts.
 * Nothing is read from a cluster: `.Capabilities` are Helm's defaults, `lookup` returns empty maps.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync, appendFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { TemplateExecError, TemplateParseError, TemplateSet } from '../gotemplate/index.js';
import { parseYAMLAsJSON } from '../gotemplate/yaml.js';
import { goQuote, goQuoteRune } from '../gotemplate/strconv.js';
import {
  KubeVersion,
  RenderPhaseError,
  checkInstallable,
  defaultCapabilities,
  loadChart,
  renderChart,
  splitManifests,
  type Chart,
  type RenderResult,
} from '../helm/index.js';
import { ChartError } from '../helm/metadata.js';
import { goTrimSpace } from '../helm/manifests.js';
import { goPathPattern } from '../helm/patterns.js';
import { parseInto, parseIntoFile, parseIntoString, parseJSON, parseLiteralInto } from '../helm/strvals.js';
import { UserError } from '../util/errors.js';
import { isPlainObject, type JsonObject } from '../util/json.js';

export interface HelmTemplateIO {
  out: (text: string) => void;
  err: (text: string) => void;
  readStdin: () => Buffer;
  env?: NodeJS.ProcessEnv;
  /** The command path in messages (default `addon-operator helm template`). */
  commandPath?: string;
}

type Kind = 'bool' | 'string' | 'stringArray' | 'stringSlice';
interface FlagDef {
  name: string;
  short?: string;
  kind: Kind;
  usage: string;
}

const FLAGS: FlagDef[] = [
  { name: 'values', short: 'f', kind: 'stringSlice', usage: 'specify values in a YAML file (can specify multiple; - reads stdin)' },
  { name: 'set', kind: 'stringArray', usage: 'set values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)' },
  { name: 'set-string', kind: 'stringArray', usage: 'set STRING values on the command line (can specify multiple or separate values with commas: key1=val1,key2=val2)' },
  { name: 'set-file', kind: 'stringArray', usage: 'set values from respective files specified via the command line (can specify multiple or separate values with commas: key1=path1,key2=path2)' },
  { name: 'set-json', kind: 'stringArray', usage: 'set JSON values on the command line (can specify multiple or separate values with commas: key1=jsonval1,key2=jsonval2)' },
  { name: 'set-literal', kind: 'stringArray', usage: 'set a literal STRING value on the command line' },
  { name: 'name-template', kind: 'string', usage: 'specify template used to name the release' },
  { name: 'generate-name', short: 'g', kind: 'bool', usage: 'generate the name (and omit the NAME parameter)' },
  { name: 'namespace', short: 'n', kind: 'string', usage: 'namespace scope for this request (env HELM_NAMESPACE; default "default")' },
  { name: 'kube-version', kind: 'string', usage: 'Kubernetes version used for Capabilities.KubeVersion' },
  { name: 'api-versions', short: 'a', kind: 'stringSlice', usage: 'Kubernetes api versions used for Capabilities.APIVersions' },
  { name: 'include-crds', kind: 'bool', usage: 'include CRDs in the templated output' },
  { name: 'skip-crds', kind: 'bool', usage: 'if set, no CRDs will be installed (no effect on the output, as in Helm)' },
  { name: 'skip-tests', kind: 'bool', usage: 'skip tests from templated output' },
  { name: 'no-hooks', kind: 'bool', usage: 'prevent hooks from running during install (no hooks in the output)' },
  { name: 'show-only', short: 's', kind: 'stringArray', usage: 'only show manifests rendered from the given templates' },
  { name: 'is-upgrade', kind: 'bool', usage: 'set .Release.IsUpgrade instead of .Release.IsInstall' },
  { name: 'output-dir', kind: 'string', usage: 'writes the executed templates to files in output-dir instead of stdout' },
  { name: 'release-name', kind: 'bool', usage: 'use release name in the output-dir path.' },
  { name: 'skip-schema-validation', kind: 'bool', usage: 'if set, disables JSON schema validation' },
  { name: 'debug', kind: 'bool', usage: 'enable verbose output' },
  { name: 'help', short: 'h', kind: 'bool', usage: 'help for template' },
];

/** Helm's template flags that need a repository, a registry or a cluster. */
const UNSUPPORTED = new Set([
  'validate', 'repo', 'version', 'devel', 'verify', 'keyring', 'username', 'password', 'ca-file', 'cert-file', 'key-file',
  'insecure-skip-tls-verify', 'plain-http', 'pass-credentials', 'dependency-update', 'post-renderer', 'post-renderer-args',
  'kubeconfig', 'kube-context', 'kube-apiserver', 'kube-token', 'kube-as-user', 'kube-as-group', 'kube-ca-file',
  'kube-insecure-skip-tls-verify', 'kube-tls-server-name', 'registry-config', 'repository-config', 'repository-cache',
  'dry-run', 'enable-dns',
]);

/** Flags Helm's template accepts that change nothing in its output. */
const IGNORED = new Set(['create-namespace', 'force', 'replace', 'timeout', 'wait', 'wait-for-jobs', 'description', 'disable-openapi-validation', 'atomic', 'render-subchart-notes', 'hide-notes', 'take-ownership', 'labels', 'burst-limit', 'qps']);

class HelmError extends Error {}
class HelpRequested extends Error {}

interface Parsed {
  args: string[];
  bool: Map<string, boolean>;
  str: Map<string, string>;
  list: Map<string, string[]>;
}

/** encoding/csv of one line, as pflag reads a string slice flag. */
function readCsv(val: string, flagName: string): string[] {
  if (val === '') return [];
  const out: string[] = [];
  let i = 0;
  for (;;) {
    let field = '';
    if (val[i] === '"') {
      i++;
      for (;;) {
        if (i >= val.length) throw new HelmError(`invalid argument ${goQuote(val)} for ${goQuote(flagName)} flag: parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`);
        if (val[i] === '"') {
          if (val[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += val[i++];
      }
      if (i < val.length && val[i] !== ',') throw new HelmError(`invalid argument ${goQuote(val)} for ${goQuote(flagName)} flag: parse error on line 1, column ${i + 1}: extraneous or missing " in quoted-field`);
    } else {
      const end = val.indexOf(',', i);
      field = end < 0 ? val.slice(i) : val.slice(i, end);
      if (field.includes('"')) throw new HelmError(`invalid argument ${goQuote(val)} for ${goQuote(flagName)} flag: parse error on line 1, column ${i + field.indexOf('"') + 1}: bare " in non-quoted-field`);
      i += field.length;
    }
    out.push(field);
    if (i >= val.length) return out;
    i++; // the comma
  }
}

const PARSE_BOOL: Record<string, boolean> = { '1': true, t: true, T: true, TRUE: true, true: true, True: true, '0': false, f: false, F: false, FALSE: false, false: false, False: false };

/** pflag's parsing: long and short flags, `--flag=value`, `-fVALUE`, bools without a value, `--` ends flags. */
export function parseHelmFlags(argv: readonly string[]): Parsed {
  const p: Parsed = { args: [], bool: new Map(), str: new Map(), list: new Map() };
  const byName = new Map(FLAGS.map((f) => [f.name, f]));
  const byShort = new Map(FLAGS.filter((f) => f.short).map((f) => [f.short!, f]));
  const setValue = (f: FlagDef, value: string, shown: string) => {
    switch (f.kind) {
      case 'bool': {
        const b = PARSE_BOOL[value];
        if (b === undefined) throw new HelmError(`invalid argument ${goQuote(value)} for ${goQuote(shown)} flag: strconv.ParseBool: parsing ${goQuote(value)}: invalid syntax`);
        if (f.name === 'help' && b) throw new HelpRequested();
        p.bool.set(f.name, b);
        return;
      }
      case 'string':
        p.str.set(f.name, value);
        return;
      case 'stringArray':
        p.list.set(f.name, [...(p.list.get(f.name) ?? []), value]);
        return;
      case 'stringSlice':
        p.list.set(f.name, [...(p.list.get(f.name) ?? []), ...readCsv(value, shown)]);
    }
  };
  const shownName = (f: FlagDef) => (f.short ? `-${f.short}, --${f.name}` : `--${f.name}`);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--') {
      p.args.push(...argv.slice(i + 1));
      break;
    }
    if (a.length < 2 || a[0] !== '-') {
      p.args.push(a);
      continue;
    }
    if (a[1] === '-') {
      const body = a.slice(2);
      if (body === '' || body[0] === '-' || body[0] === '=') throw new HelmError(`bad flag syntax: ${a}`);
      const eq = body.indexOf('=');
      const name = eq < 0 ? body : body.slice(0, eq);
      const f = byName.get(name);
      if (!f) {
        if (UNSUPPORTED.has(name)) throw new HelmError(`flag --${name} needs a repository, a registry or a cluster: not supported by addon-operator helm template`);
        if (IGNORED.has(name)) {
          // takes a value unless it is a bool Helm flag given without one
          if (eq < 0 && !['create-namespace', 'force', 'replace', 'wait', 'wait-for-jobs', 'disable-openapi-validation', 'atomic', 'render-subchart-notes', 'hide-notes', 'take-ownership'].includes(name)) i++;
          continue;
        }
        throw new HelmError(`unknown flag: --${name}`);
      }
      if (eq >= 0) setValue(f, body.slice(eq + 1), shownName(f));
      else if (f.kind === 'bool') setValue(f, 'true', shownName(f));
      else if (i + 1 < argv.length) setValue(f, argv[++i]!, shownName(f));
      else throw new HelmError(`flag needs an argument: --${name}`);
      continue;
    }
    let shorts = a.slice(1);
    while (shorts.length > 0) {
      const c = String.fromCodePoint(shorts.codePointAt(0)!);
      const f = byShort.get(c);
      if (!f) throw new HelmError(`unknown shorthand flag: ${goQuoteRune(c.codePointAt(0)!)} in -${shorts}`);
      const rest = shorts.slice(c.length);
      if (rest[0] === '=') {
        setValue(f, rest.slice(1), shownName(f));
        shorts = '';
      } else if (f.kind === 'bool') {
        setValue(f, 'true', shownName(f));
        shorts = rest;
      } else if (rest.length > 0) {
        setValue(f, rest, shownName(f));
        shorts = '';
      } else if (i + 1 < argv.length) {
        setValue(f, argv[++i]!, shownName(f));
        shorts = '';
      } else throw new HelmError(`flag needs an argument: ${goQuoteRune(c.codePointAt(0)!)} in -${shorts}`);
    }
  }
  return p;
}

/** The text of Go's *fs.PathError for a failed read. */
function readError(op: string, path: string, e: unknown): HelmError {
  const code = (e as NodeJS.ErrnoException).code;
  const why = code === 'ENOENT' ? 'no such file or directory' : code === 'EACCES' ? 'permission denied' : code === 'EISDIR' ? 'is a directory' : (e as Error).message;
  return new HelmError(`${code === 'EISDIR' ? 'read' : op} ${path}: ${why}`);
}

/** values.readFile: `-` is stdin, anything else a local file (no URL getters). */
function readValuesFile(path: string, io: HelmTemplateIO): Buffer {
  if (path.trim() === '-') return io.readStdin();
  try {
    return readFileSync(path);
  } catch (e) {
    throw readError('open', path, e);
  }
}

/** values.Options.mergeMaps: maps merged key by key, anything else replaced. */
function mergeMaps(a: Record<string, unknown>, b: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...a };
  for (const [k, v] of Object.entries(b)) {
    const cur = out[k];
    out[k] = isPlainObject(v) && isPlainObject(cur) ? mergeMaps(cur, v) : v;
  }
  return out;
}

/** values.Options.MergeValues: -f files, then --set-json, --set, --set-string, --set-file, --set-literal. */
export function mergeValueOptions(p: Parsed, io: HelmTemplateIO): Record<string, unknown> {
  let base: Record<string, unknown> = {};
  for (const file of p.list.get('values') ?? []) {
    const data = readValuesFile(file, io);
    let doc: unknown;
    try {
      doc = parseYAMLAsJSON(data.toString('utf8'));
    } catch (e) {
      throw new HelmError(`failed to parse ${file}: ${(e as Error).message}`);
    }
    if (doc !== null && !isPlainObject(doc)) {
      const what = Array.isArray(doc) ? 'array' : typeof doc === 'string' ? 'string' : typeof doc === 'boolean' ? 'bool' : 'number';
      throw new HelmError(`failed to parse ${file}: error unmarshaling JSON: while decoding JSON: json: cannot unmarshal ${what} into Go value of type map[string]interface {}`);
    }
    if (doc) base = mergeMaps(base, doc as Record<string, unknown>);
  }
  for (const value of p.list.get('set-json') ?? []) {
    try {
      parseJSON(value, base);
    } catch {
      throw new HelmError(`failed parsing --set-json data ${value}`);
    }
  }
  const each = (flag: string, what: string, parse: (s: string) => void) => {
    for (const value of p.list.get(flag) ?? []) {
      try {
        parse(value);
      } catch (e) {
        throw new HelmError(`failed parsing ${what} data: ${(e as Error).message}`);
      }
    }
  };
  each('set', '--set', (s) => parseInto(s, base));
  each('set-string', '--set-string', (s) => parseIntoString(s, base));
  each('set-file', '--set-file', (s) =>
    parseIntoFile(s, base, (rs) => readValuesFile(rs, io).toString('utf8')),
  );
  each('set-literal', '--set-literal', (s) => parseLiteralInto(s, base));
  return base;
}

/** chartutil.ParseKubeVersion (k8s.io/apimachinery version.ParseGeneric): `1.20` is v1.20, `v1.30.2-gke.1` v1.30.2. */
export function parseGenericKubeVersion(str: string): KubeVersion {
  const m = /^\s*v?([0-9]+(?:\.[0-9]+)*)(.*)*$/s.exec(str);
  if (!m) throw new Error(`could not parse ${goQuote(str)} as version`);
  const comps = m[1]!.split('.');
  if (comps.length < 2) throw new Error(`illegal version string ${goQuote(str)}`);
  const nums = comps.map((c, i) => {
    if (i === 0 && c.startsWith('0') && c !== '0') throw new Error(`illegal zero-prefixed version component ${goQuote(c)} in ${goQuote(str)}`);
    const n = BigInt(c);
    if (n > 18446744073709551615n) throw new Error(`illegal non-numeric version component ${goQuote(c)} in ${goQuote(str)}: strconv.ParseUint: parsing ${goQuote(c)}: value out of range`);
    return n.toString();
  });
  return new KubeVersion(`v${nums.join('.')}`, nums[0]!, nums[1]!);
}

const VALID_RELEASE_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

/** chartutil.ValidateReleaseName, wrapped as availableName wraps it. */
function validateReleaseName(name: string): void {
  if (name === '') throw new HelmError(`release name "": no name provided`);
  if (Buffer.byteLength(name) > 53 || !VALID_RELEASE_NAME.test(name)) {
    throw new HelmError(
      `release name ${goQuote(name)}: invalid release name, must match regex ${VALID_RELEASE_NAME.source} and the length must not be longer than 53`,
    );
  }
}

/** action.TemplateName: --name-template rendered with Sprig's functions and no data. */
function templateName(text: string): string {
  const set = new TemplateSet();
  set.parse('name-template', text);
  return set.render('name-template', null);
}

/** action.Install.NameAndChart with `helm template`'s default name "release-name". */
function nameAndChart(p: Parsed): [string, string] {
  const args = p.args;
  if (args.length > 2) throw new HelmError(`expected at most two arguments, unexpected arguments: ${args.slice(2).join(', ')}`);
  if (args.length === 2) {
    if (p.bool.get('generate-name')) throw new HelmError('cannot set --generate-name and also specify a name');
    if (p.str.get('name-template')) throw new HelmError('cannot set --name-template and also specify a name');
    return [args[0]!, args[1]!];
  }
  const nameTemplate = p.str.get('name-template') ?? '';
  if (nameTemplate !== '') return [templateName(nameTemplate), args[0]!];
  return ['release-name', args[0]!];
}

/** ChartPathOptions.LocateChart for a chart on disk; anything else would need a repository. */
function locateChart(name: string): string {
  name = name.trim();
  if (existsSync(name)) return resolve(name);
  if (isAbsolute(name) || name.startsWith('.')) throw new HelmError(`path ${goQuote(name)} not found`);
  const slash = name.indexOf('/');
  if (slash < 0) throw new HelmError(`non-absolute URLs should be in form of repo_name/path_to_chart, got: ${name}`);
  throw new HelmError(`repo ${name.slice(0, slash)} not found`);
}

/** writeToFile of Helm's action and template command: the first write of a name creates, later ones append. */
function writeToFile(outputDir: string, name: string, data: string, append: boolean, io: HelmTemplateIO): void {
  const file = `${outputDir}/${name}`;
  mkdirSync(dirname(file), { recursive: true, mode: 0o755 });
  const text = `---\n# Source: ${name}\n${data}\n`;
  if (append) appendFileSync(file, text);
  else writeFileSync(file, text);
  io.out(`wrote ${file}\n`);
}

const USAGE = (path: string) => `Render chart templates locally and display the output, as Helm 3.19's \`helm template\` does.

Values that would be looked up in a cluster are faked locally (lookup returns nothing; .Capabilities are
Helm's defaults). Charts are read from a directory or a .tgz; repositories and registries are not used.

Usage:
  ${path} [NAME] [CHART] [flags]

Flags:
${FLAGS.map((f) => `  ${f.short ? `-${f.short}, ` : '    '}--${f.name}${f.kind === 'bool' ? '' : f.kind === 'string' ? ' string' : ' stringArray'}\n        ${f.usage}`).join('\n')}
`;

const debugLine = (io: HelmTemplateIO, where: string, text: string) => io.err(`${where}: ${new Date().toISOString()} [debug] ${text}\n`);

/** Runs `helm template`; returns the exit status. */
export function runHelmTemplate(argv: readonly string[], io: HelmTemplateIO): number {
  const path = io.commandPath ?? 'addon-operator helm template';
  let debug: boolean;
  try {
    let p: Parsed;
    try {
      p = parseHelmFlags(argv);
    } catch (e) {
      if (e instanceof HelpRequested) {
        io.out(USAGE(path));
        return 0;
      }
      throw e;
    }
    debug = p.bool.get('debug') ?? false;
    if (p.args.length < 1) throw new HelmError(`${goQuote(path)} requires at least 1 argument\n\nUsage:  ${path} [NAME] [CHART] [flags]`);
    let caps = defaultCapabilities();
    const kubeVersion = p.str.get('kube-version') ?? '';
    if (kubeVersion !== '') {
      try {
        caps = caps.withKubeVersion(parseGenericKubeVersion(kubeVersion));
      } catch (e) {
        throw new HelmError(`invalid kube version '${kubeVersion}': ${(e as Error).message}`);
      }
    }
    const apiVersions = p.list.get('api-versions') ?? [];
    if (apiVersions.length > 0) caps = caps.withApiVersions(apiVersions);

    if (debug) debugLine(io, 'install.go:225', 'Original chart version: ""');
    const [releaseName, chartRef] = nameAndChart(p);
    const chartPath = locateChart(chartRef);
    if (debug) debugLine(io, 'install.go:242', `CHART PATH: ${chartPath}\n`);
    const values = mergeValueOptions(p, io);
    let chart: Chart;
    try {
      chart = loadChart(chartPath);
      checkInstallable(chart);
    } catch (e) {
      throw new HelmError(e instanceof ChartError ? e.helmText : (e as Error).message);
    }
    if (chart.metadata.deprecated) io.err('WARNING: This chart is deprecated\n');
    validateReleaseName(releaseName);
    const namespace = p.str.get('namespace') || (io.env ?? process.env).HELM_NAMESPACE || 'default';
    const outputDir = p.str.get('output-dir') ?? '';
    const disableHooks = p.bool.get('no-hooks') ?? false;
    const skipTests = p.bool.get('skip-tests') ?? false;

    let result: RenderResult | undefined;
    let failure: unknown;
    try {
      result = renderChart(chart, values as JsonObject, {
        releaseName,
        namespace,
        capabilities: caps,
        isUpgrade: p.bool.get('is-upgrade') ?? false,
        includeCrds: p.bool.get('include-crds') ?? false,
        skipTests,
        disableHooks,
        skipSchemaValidation: p.bool.get('skip-schema-validation') ?? false,
        warn: (m) => io.err(`${m}\n`),
      });
    } catch (e) {
      if (!(e instanceof RenderPhaseError)) throw e;
      if (!debug) throw new HelmError(`${e.message}\n\nUse --debug flag to render out invalid YAML`);
      failure = e;
    }

    // the release's manifest (empty with --output-dir: the files were written instead), then its hooks
    let releaseManifest = failure instanceof RenderPhaseError ? failure.partial : '';
    const hooks = result?.hooks ?? [];
    if (result) {
      if (outputDir === '') releaseManifest = result.manifest;
      else {
        const written = new Set<string>();
        const newDir = p.bool.get('release-name') ? join(outputDir, releaseName) : outputDir;
        if (p.bool.get('include-crds')) {
          for (const c of result.crds) {
            writeToFile(outputDir, c.filename, c.data.toString('utf8'), written.has(c.filename), io);
            written.add(c.filename);
          }
        }
        for (const m of result.manifests) {
          writeToFile(newDir, m.name, m.content, written.has(m.name), io);
          written.add(m.name);
        }
      }
    }
    let manifests = goTrimSpace(releaseManifest) + '\n';
    if (!disableHooks) {
      const hookWritten = new Set<string>();
      for (const h of hooks) {
        if (skipTests && h.events.includes('test')) continue;
        if (outputDir === '') manifests += `---\n# Source: ${h.path}\n${h.manifest}\n`;
        else {
          const newDir = p.bool.get('release-name') ? join(outputDir, releaseName) : outputDir;
          if (existsSync(join(newDir, h.path))) hookWritten.add(h.path);
          writeToFile(newDir, h.path, h.manifest, hookWritten.has(h.path), io);
        }
      }
    }
    const showOnly = p.list.get('show-only') ?? [];
    if (showOnly.length > 0) {
      const docs = splitManifests(manifests);
      const selected: string[] = [];
      for (const raw of showOnly) {
        const f = raw.replaceAll('\\', '/');
        let re: RegExp | undefined;
        try {
          re = goPathPattern(f);
        } catch {
          re = undefined;
        }
        let missing = true;
        for (const doc of docs) {
          const m = /# Source: [^/]+\/(.+)/.exec(doc);
          if (!m) continue;
          if (!re || !re.test(m[1]!)) continue;
          selected.push(doc);
          missing = false;
        }
        if (missing) throw new HelmError(`could not find template ${f} in chart`);
      }
      for (const doc of selected) io.out(`---\n${doc}\n`);
    } else io.out(manifests);
    if (failure) throw new HelmError((failure as Error).message);
    return 0;
  } catch (e) {
    if (!(e instanceof HelmError || e instanceof UserError || e instanceof TemplateParseError || e instanceof TemplateExecError)) throw e;
    io.err(`Error: ${(e as Error).message}\n`);
    return 1;
  }
}
