/**
 * `.Capabilities` (Helm's chartutil.Capabilities): the Kubernetes version and the API versions the
 * cluster serves. Read from API discovery when connected (as Helm does before every install), else
 * Helm 3.19's defaults: Kubernetes v1.34.0 and the group versions client-go 0.34 knows.
 */
import type { KubeConfig } from '../kube/kube-config.js';
import { requestJson } from '../kube/http.js';
import { SemverVersion } from '../gotemplate/index.js';

export class KubeVersion {
  get goTypeName(): string {
    return 'chartutil.KubeVersion';
  }
  constructor(
    readonly Version: string,
    readonly Major: string,
    readonly Minor: string,
  ) {}
  String(): string {
    return this.Version;
  }
  /** Deprecated in Helm, kept for charts: the same as Version. */
  GitVersion(): string {
    return this.Version;
  }
  MarshalJSON(): string {
    return JSON.stringify({ Version: this.Version, Major: this.Major, Minor: this.Minor });
  }
}

/** chartutil.VersionSet: `group/version` and `group/version/Kind` entries. */
export class VersionSet {
  get goTypeName(): string {
    return 'chartutil.VersionSet';
  }
  private readonly set: Set<string>;
  constructor(readonly list: readonly string[]) {
    this.set = new Set(list);
  }
  Has(apiVersion: unknown): boolean {
    return this.set.has(String(apiVersion));
  }
  MarshalJSON(): string {
    return JSON.stringify(this.list);
  }
}

export class HelmVersion {
  get goTypeName(): string {
    return 'version.BuildInfo';
  }
  readonly Version = 'v3.19.0';
  readonly GitCommit = '';
  readonly GitTreeState = '';
  readonly GoVersion = 'go1.24.7';
  MarshalJSON(): string {
    return JSON.stringify({ version: this.Version, git_commit: this.GitCommit, git_tree_state: this.GitTreeState, go_version: this.GoVersion });
  }
}

export class Capabilities {
  get goTypeName(): string {
    return '*chartutil.Capabilities';
  }
  readonly HelmVersion = new HelmVersion();
  constructor(
    readonly KubeVersion: KubeVersion,
    readonly APIVersions: VersionSet,
  ) {}
  MarshalJSON(): string {
    return `{"APIVersions":${this.APIVersions.MarshalJSON()},"KubeVersion":${this.KubeVersion.MarshalJSON()},"HelmVersion":${this.HelmVersion.MarshalJSON()}}`;
  }
  /** A copy with more API versions (`helm template --api-versions`). */
  withApiVersions(extra: readonly string[]): Capabilities {
    return new Capabilities(this.KubeVersion, new VersionSet([...this.APIVersions.list, ...extra]));
  }
  withKubeVersion(version: KubeVersion): Capabilities {
    return new Capabilities(version, this.APIVersions);
  }
}

/** The group versions of client-go's scheme (plus apiextensions), which Helm offers without a cluster. */
const DEFAULT_API_VERSIONS = [
  'v1',
  'admissionregistration.k8s.io/v1',
  'admissionregistration.k8s.io/v1beta1',
  'admissionregistration.k8s.io/v1alpha1',
  'internal.apiserver.k8s.io/v1alpha1',
  'apps/v1',
  'apps/v1beta2',
  'apps/v1beta1',
  'authentication.k8s.io/v1',
  'authentication.k8s.io/v1beta1',
  'authentication.k8s.io/v1alpha1',
  'authorization.k8s.io/v1',
  'authorization.k8s.io/v1beta1',
  'autoscaling/v1',
  'autoscaling/v2',
  'autoscaling/v2beta1',
  'autoscaling/v2beta2',
  'batch/v1',
  'batch/v1beta1',
  'certificates.k8s.io/v1',
  'certificates.k8s.io/v1beta1',
  'certificates.k8s.io/v1alpha1',
  'coordination.k8s.io/v1',
  'coordination.k8s.io/v1beta1',
  'coordination.k8s.io/v1alpha2',
  'discovery.k8s.io/v1',
  'discovery.k8s.io/v1beta1',
  'events.k8s.io/v1',
  'events.k8s.io/v1beta1',
  'extensions/v1beta1',
  'flowcontrol.apiserver.k8s.io/v1',
  'flowcontrol.apiserver.k8s.io/v1beta3',
  'flowcontrol.apiserver.k8s.io/v1beta2',
  'flowcontrol.apiserver.k8s.io/v1beta1',
  'networking.k8s.io/v1',
  'networking.k8s.io/v1beta1',
  'node.k8s.io/v1',
  'node.k8s.io/v1beta1',
  'node.k8s.io/v1alpha1',
  'policy/v1',
  'policy/v1beta1',
  'rbac.authorization.k8s.io/v1',
  'rbac.authorization.k8s.io/v1beta1',
  'rbac.authorization.k8s.io/v1alpha1',
  'resource.k8s.io/v1',
  'resource.k8s.io/v1beta2',
  'resource.k8s.io/v1beta1',
  'resource.k8s.io/v1alpha3',
  'scheduling.k8s.io/v1',
  'scheduling.k8s.io/v1beta1',
  'scheduling.k8s.io/v1alpha1',
  'storage.k8s.io/v1',
  'storage.k8s.io/v1beta1',
  'storage.k8s.io/v1alpha1',
  'storagemigration.k8s.io/v1alpha1',
  'apiextensions.k8s.io/v1',
  'apiextensions.k8s.io/v1beta1',
];

/** chartutil.ParseKubeVersion: `1.20`, `v1.20.3` ... → KubeVersion{v1.20.0, 1, 20}. */
export function parseKubeVersion(version: string): KubeVersion {
  const v = SemverVersion.parse(version.trim());
  return new KubeVersion(`v${v.String()}`, String(v.major), String(v.minor));
}

/** Helm 3.19's DefaultCapabilities (what `helm template` renders with). */
export function defaultCapabilities(): Capabilities {
  return new Capabilities(new KubeVersion('v1.34.0', '1', '34'), new VersionSet(DEFAULT_API_VERSIONS));
}

interface ApiResourceList {
  groupVersion?: string;
  resources?: { name: string; kind: string }[];
}

/** Capabilities of a live cluster: /version, and every served group version with its kinds (as Helm's GetVersionSet). */
export async function discoverCapabilities(kc: KubeConfig): Promise<Capabilities> {
  const [version, core, apis] = await Promise.all([
    requestJson<{ major?: string; minor?: string; gitVersion?: string }>(kc, 'GET', '/version'),
    requestJson<{ versions?: string[] }>(kc, 'GET', '/api'),
    requestJson<{ groups?: { versions?: { groupVersion: string }[] }[] }>(kc, 'GET', '/apis'),
  ]);
  const groupVersions = [...(core.versions ?? []), ...(apis.groups ?? []).flatMap((g) => (g.versions ?? []).map((v) => v.groupVersion))];
  const lists = await Promise.all(
    groupVersions.map((gv) =>
      requestJson<ApiResourceList>(kc, 'GET', gv.includes('/') ? `/apis/${gv}` : `/api/${gv}`).catch(() => undefined),
    ),
  );
  const entries = new Set(groupVersions);
  lists.forEach((list, i) => {
    for (const r of list?.resources ?? []) entries.add(`${groupVersions[i]}/${r.kind}`);
  });
  const kube = new KubeVersion(version.gitVersion ?? '', version.major ?? '', version.minor ?? '');
  return new Capabilities(kube, new VersionSet([...entries]));
}
