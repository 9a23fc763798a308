/**
 * What every release action works with: the release records, the cluster's objects, the hook
 * runner, the log, the clock and the engine's settings; with Helm's ownership metadata and the
 * objects a stored manifest names, which several actions need.
 */
import { mapLimit } from '../../util/pool.js';
import { releaseDocuments } from '../manifests.js';
import { manifestObjects, type ClusterObjects, type PlacedObject } from '../objects.js';
import type { HookRunner } from '../hooks.js';
import type { ReleaseStore } from '../release-secrets.js';

export interface ReleaseLog {
  info(message: string): void;
  warn(message: string): void;
}

/** crds/ as Helm treats it (`helm`) or as the Go operator's ModuleEnsureCRDs does (`module`). */
export type CrdMode = 'helm' | 'module';

export interface ReleaseContext {
  store: ReleaseStore;
  objects: ClusterObjects;
  hooks: HookRunner;
  log: ReleaseLog;
  now: () => Date;
  /** Revisions kept per release; 0 keeps all. */
  historyMax: number;
  /** Labels post-rendered onto every manifest object and the module's CRDs. */
  extraLabels: Record<string, string>;
  /** Labels of each new revision's storage Secret. */
  releaseLabels: Record<string, string>;
  /** Objects of one kind applied at once. */
  applyConcurrency: number;
  crdMode: CrdMode;
  /** How long a CRD just created or applied is waited for (Established, then served). */
  crdReadyMs: number;
}

/** Objects of a release with `helm.sh/resource-policy: keep` are never deleted by it. */
export const KEEP_POLICY = 'helm.sh/resource-policy';

/** Helm's ownership metadata, added to every object of a release (the extra labels are in its manifest). */
export function ownership(release: string, namespace: string) {
  return {
    labels: { 'app.kubernetes.io/managed-by': 'Helm' },
    annotations: { 'meta.helm.sh/release-name': release, 'meta.helm.sh/release-namespace': namespace },
  };
}

/** The objects of a stored release manifest, placed (kinds the cluster does not serve are left out). */
export async function placedObjects(objects: ClusterObjects, manifest: string | undefined, namespace: string): Promise<PlacedObject[]> {
  const docs = releaseDocuments(manifest ?? '').map((d) => ({ name: d.path, content: d.doc }));
  const placed = await mapLimit(manifestObjects(docs), 8, (o) => objects.place(o, namespace));
  return placed.filter((p): p is PlacedObject => p !== undefined);
}
