/**
 * Rendering a chart as Helm 3's install does (action.renderResources + engine.Render): subcharts
 * enabled by condition/tags, values coalesced, every template parsed into one set and executed with
 * its chart's top-level objects (.Values, .Release, .Chart, .Capabilities, .Files, .Subcharts,
 * .Template), NOTES.txt set apart, documents split and sorted in Helm's install order.
 *
 * The result carries the release manifest text and what `helm template` prints, byte for byte.
 */
import { TemplateSet, helmErrorMessage, helmParseOrder } from '../gotemplate/index.js';
import { semverCompare } from '../gotemplate/funcs/semver.js';
import { UserError } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { chartFullPath, crdObjects, isRoot, type Chart, type CrdFile } from './chart.js';
import { ChartObject } from './chart-object.js';
import { defaultCapabilities, type Capabilities } from './capabilities.js';
import { templateFiles } from './files.js';
import { INSTALL_ORDER, goTrimSpace, sortManifests, sourceBlock, type Hook, type Manifest } from './manifests.js';
import { SCHEMA_HEADER, schemaErrors } from './schema.js';
import { coalesceValues, processDependencies, valuesTable, type Warn } from './values.js';

export interface RenderOptions {
  releaseName: string;
  namespace: string;
  /** `.Release.Revision` (default 1). */
  revision?: number;
  /** `.Release.IsUpgrade`; `.Release.IsInstall` is its opposite (default: an install). */
  isUpgrade?: boolean;
  /** Default: Helm's built-in capabilities (no cluster). */
  capabilities?: Capabilities;
  /** `helm template --include-crds`: crds/ files first in the manifest. */
  includeCrds?: boolean;
  /** `helm template --skip-tests`: no test hooks in the output. */
  skipTests?: boolean;
  /** `helm template --no-hooks`: no hooks in the output. */
  disableHooks?: boolean;
  /** `helm template --skip-schema-validation`: values.schema.json files are not checked. */
  skipSchemaValidation?: boolean;
  /** `lookup` in templates; without it an empty map (as `helm template`). */
  lookup?: (apiVersion: string, kind: string, namespace: string, name: string) => unknown;
  warn?: Warn;
}

export interface RenderResult {
  /** Plain manifests in install order (hooks and NOTES excluded). */
  manifests: Manifest[];
  /** Hook documents (`helm.sh/hook`), sorted by kind. */
  hooks: Hook[];
  /** crds/ files of the chart and its subcharts (never applied by the release engine). */
  crds: CrdFile[];
  /** The root chart's rendered NOTES.txt. */
  notes: string;
  /** `.Values` of the root chart. */
  values: JsonObject;
  /** The chart after conditions/tags (what was rendered). */
  chart: Chart;
  /** The release manifest: `---\n# Source: PATH\nDOC\n` per manifest (CRDs first with includeCrds). */
  manifest: string;
  /** Exactly what `helm template` prints. */
  output: string;
}

/**
 * An error of the rendering step itself (Helm's renderResources: the chart's kubeVersion, a template,
 * a rendered document that is no YAML), after which `helm template` adds "Use --debug flag to render
 * out invalid YAML"; `partial` is what it prints with --debug (the non-blank rendered files).
 */
export class RenderPhaseError extends UserError {
  constructor(
    message: string,
    readonly partial = '',
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

interface Renderable {
  text: string;
  data: Record<string, unknown>;
  basePath: string;
}

/** engine.recAllTpls: the templates of a chart and its subcharts, each with its chart's top-level objects. */
function collectTemplates(c: Chart, parent: Record<string, unknown>, out: Map<string, Renderable>): Record<string, unknown> {
  const subcharts: Record<string, unknown> = {};
  const values = isRoot(c) ? parent.Values : (valuesTable({ Values: parent.Values as JsonObject }, `Values.${c.metadata.name}`) ?? {});
  const next: Record<string, unknown> = {
    Chart: new ChartObject(c.metadata, isRoot(c)),
    Files: templateFiles(c.files),
    Release: parent.Release,
    Capabilities: parent.Capabilities,
    Values: values,
    Subcharts: subcharts,
  };
  for (const child of c.dependencies) subcharts[child.metadata.name] = collectTemplates(child, next, out);
  const fullPath = chartFullPath(c);
  const library = (c.metadata.type ?? '').toLowerCase() === 'library';
  for (const t of c.templates) {
    // a library chart contributes only its partials
    if (library && !t.name.slice(t.name.lastIndexOf('/') + 1).startsWith('_')) continue;
    out.set(`${fullPath}/${t.name}`, { text: t.data.toString('utf8'), data: next, basePath: `${fullPath}/templates` });
  }
  return next;
}

/** engine.Render: template path → output (partials not rendered). */
function renderTemplates(templates: Map<string, Renderable>, options: RenderOptions): Record<string, string> {
  const set = new TemplateSet();
  const names = helmParseOrder(templates.keys());
  const out: Record<string, string> = {};
  try {
    for (const name of names) set.parse(name, templates.get(name)!.text);
    for (const name of names) {
      if (name.slice(name.lastIndexOf('/') + 1).startsWith('_')) continue;
      const r = templates.get(name)!;
      out[name] = set.render(name, { ...r.data, Template: { Name: name, BasePath: r.basePath } }, options.lookup ? { lookup: options.lookup } : {});
    }
  } catch (e) {
    throw new RenderPhaseError(helmErrorMessage(e), '', { cause: e });
  }
  return out;
}

export interface RenderedFiles {
  /** Template path (`chart/templates/x.yaml`) → output; partials are not rendered. */
  files: Record<string, string>;
  /** `.Values` of the root chart. */
  values: JsonObject;
  /** The chart after conditions/tags (what was rendered). */
  chart: Chart;
}

/** engine.Render after Helm's preparation: each template's output, before manifests are split and sorted. */
export function renderTemplateFiles(loaded: Chart, givenValues: JsonObject, options: RenderOptions): RenderedFiles {
  const warn = options.warn ?? (() => {});
  const caps = options.capabilities ?? defaultCapabilities();
  const chart = processDependencies(loaded, givenValues, warn);
  let values: JsonObject;
  try {
    values = coalesceValues(chart, givenValues, warn);
  } catch (e) {
    throw new UserError((e as Error).message, { cause: e });
  }
  // Helm's ToRenderValuesWithSchemaValidation, before renderResources checks the kubeVersion
  if (!options.skipSchemaValidation) {
    const errors = schemaErrors(chart, values);
    if (errors !== undefined) throw new UserError(SCHEMA_HEADER + errors);
  }
  const kubeVersion = chart.metadata.kubeVersion;
  if (kubeVersion && !compatible(kubeVersion, caps.KubeVersion.Version)) {
    throw new RenderPhaseError(`chart requires kubeVersion: ${kubeVersion} which is incompatible with Kubernetes ${caps.KubeVersion.Version}`);
  }
  const isUpgrade = options.isUpgrade ?? false;
  const top = {
    Values: values,
    Release: {
      Name: options.releaseName,
      Namespace: options.namespace,
      IsUpgrade: isUpgrade,
      IsInstall: !isUpgrade,
      Revision: BigInt(options.revision ?? 1),
      Service: 'Helm',
    },
    Capabilities: caps,
  };
  const templates = new Map<string, Renderable>();
  collectTemplates(chart, top, templates);
  return { files: renderTemplates(templates, options), values, chart };
}

/** Renders a loaded chart with the given values (the `-f`/`--set` values, or a module's values). */
export function renderChart(loaded: Chart, givenValues: JsonObject, options: RenderOptions): RenderResult {
  const warn = options.warn ?? (() => {});
  const { files, values, chart } = renderTemplateFiles(loaded, givenValues, options);

  // NOTES.txt is neither a manifest nor a hook; only the root chart's is kept
  const rootNotes = `${chart.metadata.name}/templates/NOTES.txt`;
  let notes = '';
  for (const name of Object.keys(files)) {
    if (!name.endsWith('NOTES.txt')) continue;
    if (name === rootNotes) notes = files[name]!;
    delete files[name];
  }
  let sorted: ReturnType<typeof sortManifests>;
  try {
    sorted = sortManifests(files, INSTALL_ORDER, warn);
  } catch (e) {
    // Helm returns every non-blank rendered file with the error, for --debug
    const partial = Object.entries(files)
      .filter(([, content]) => goTrimSpace(content) !== '')
      .map(([name, content]) => sourceBlock(name, content))
      .join('');
    throw new RenderPhaseError((e as Error).message, partial, { cause: e });
  }
  const crds = crdObjects(chart);
  let manifest = options.includeCrds ? crds.map((c) => sourceBlock(c.filename, c.data.toString('utf8'))).join('') : '';
  manifest += sorted.manifests.map((m) => sourceBlock(m.name, m.content)).join('');
  return {
    manifests: sorted.manifests,
    hooks: sorted.hooks,
    crds,
    notes,
    values,
    chart,
    manifest,
    output: templateOutput(manifest, sorted.hooks, options),
  };
}

/** cmd/helm/template.go: the trimmed manifest, then the hooks (tests unless skipped). */
function templateOutput(manifest: string, hooks: Hook[], options: RenderOptions): string {
  let out = goTrimSpace(manifest) + '\n';
  if (options.disableHooks) return out;
  for (const h of hooks) {
    if (options.skipTests && h.events.includes('test')) continue;
    out += sourceBlock(h.path, h.manifest);
  }
  return out;
}

function compatible(constraint: string, version: string): boolean {
  try {
    return semverCompare(constraint, version);
  } catch {
    return false;
  }
}
