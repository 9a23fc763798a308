/**
 * `.Chart` in templates: Helm's chart.Metadata (Go field names: `.Chart.Name`, `.Chart.AppVersion`
 * ...) plus `IsRoot`. A struct, so an unknown field is an error as in Helm; `toYaml .Chart` gives the
 * metadata's JSON names.
 */
import { withGoType } from '../gotemplate/index.js';
import { goJsonStringify } from '../util/json.js';
import type { ChartDependency, ChartMetadata, Maintainer } from './metadata.js';

const strings = (v: string[] | undefined): string[] => withGoType([...(v ?? [])], '[]string');

class MaintainerObject {
  get goTypeName(): string {
    return '*chart.Maintainer';
  }
  readonly Name: string;
  readonly Email: string;
  readonly URL: string;
  constructor(m: Maintainer) {
    this.Name = m.name ?? '';
    this.Email = m.email ?? '';
    this.URL = m.url ?? '';
  }
}

class DependencyObject {
  get goTypeName(): string {
    return '*chart.Dependency';
  }
  readonly Name: string;
  readonly Version: string;
  readonly Repository: string;
  readonly Condition: string;
  readonly Tags: string[];
  readonly Enabled: boolean;
  readonly ImportValues: unknown[];
  readonly Alias: string;
  constructor(d: ChartDependency) {
    this.Name = d.name ?? '';
    this.Version = d.version ?? '';
    this.Repository = d.repository ?? '';
    this.Condition = d.condition ?? '';
    this.Tags = strings(d.tags);
    this.Enabled = d.enabled ?? false;
    this.ImportValues = [...(d['import-values'] ?? [])];
    this.Alias = d.alias ?? '';
  }
}

/** Kept out of the object's own properties, which templates would see as fields. */
const metadataOf = new WeakMap<object, ChartMetadata>();

export class ChartObject {
  readonly Name: string;
  readonly Home: string;
  readonly Sources: string[];
  readonly Version: string;
  readonly Description: string;
  readonly Keywords: string[];
  readonly Maintainers: MaintainerObject[];
  readonly Icon: string;
  readonly APIVersion: string;
  readonly Condition: string;
  readonly Tags: string;
  readonly AppVersion: string;
  readonly Deprecated: boolean;
  readonly Annotations: Record<string, string>;
  readonly KubeVersion: string;
  readonly Dependencies: DependencyObject[];
  readonly Type: string;
  readonly IsRoot: boolean;

  constructor(m: ChartMetadata, isRoot: boolean) {
    metadataOf.set(this, m);
    this.Name = m.name;
    this.Home = m.home ?? '';
    this.Sources = strings(m.sources);
    this.Version = m.version;
    this.Description = m.description ?? '';
    this.Keywords = strings(m.keywords);
    this.Maintainers = withGoType((m.maintainers ?? []).map((x) => new MaintainerObject(x ?? {})), '[]*chart.Maintainer');
    this.Icon = m.icon ?? '';
    this.APIVersion = m.apiVersion;
    this.Condition = m.condition ?? '';
    this.Tags = m.tags ?? '';
    this.AppVersion = m.appVersion ?? '';
    this.Deprecated = m.deprecated ?? false;
    this.Annotations = withGoType({ ...(m.annotations ?? {}) }, 'map[string]string');
    this.KubeVersion = m.kubeVersion ?? '';
    this.Dependencies = withGoType((m.dependencies ?? []).map((d) => new DependencyObject(d)), '[]*chart.Dependency');
    this.Type = m.type ?? '';
    this.IsRoot = isRoot;
  }

  get goTypeName(): string {
    return 'struct { chart.Metadata; IsRoot bool }';
  }

  /** encoding/json of the struct: the metadata's JSON fields (omitempty), then IsRoot. */
  MarshalJSON(): string {
    const json = goJsonStringify(metadataOf.get(this) ?? {});
    return `${json.slice(0, -1)}${json.length > 2 ? ',' : ''}"IsRoot":${this.IsRoot}}`;
  }
}
