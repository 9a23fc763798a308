/**
 * Helm without a helm binary: chart loading, rendering exactly as Helm 3 does (`helm template`
 * output included), and a release engine that keeps Helm 3's release records. See docs/helm.md.
 */
export { loadChart, checkInstallable, missingDependencies, chartFullPath, crdObjects, type Chart, type ChartFile, type CrdFile, type LoadChartOptions } from './chart.js';
export { parseChartMetadata, type ChartMetadata, type ChartDependency } from './metadata.js';
export { coalesceValues, mergeMaps, processDependencies } from './values.js';
export { Capabilities, KubeVersion, VersionSet, defaultCapabilities, discoverCapabilities, parseKubeVersion } from './capabilities.js';
export { renderChart, renderTemplateFiles, RenderPhaseError, type RenderOptions, type RenderResult, type RenderedFiles } from './render.js';
export { INSTALL_ORDER, UNINSTALL_ORDER, splitManifests, sortManifests, type Manifest, type Hook } from './manifests.js';
export { decodeRelease, encodeRelease, type Release, type ReleaseStatus } from './release-record.js';
export { ReleaseStore } from './release-secrets.js';
export { HelmReleases, CHECKSUM_LABEL, MAINTENANCE_LABEL, type HelmReleasesOptions, type HelmOperation, type ReleaseRequest, type ReleaseOutcome, type ReleaseLog } from './release-engine.js';
