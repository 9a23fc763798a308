/** Which objects of a release revision (those `which` picks) are missing from the cluster (`Kind namespace/name`), each read once. */
import { mapLimit } from '../../util/pool.js';
import { releaseDocuments } from '../manifests.js';
import { manifestObjects, type ClusterObjects, type ManifestObject } from '../objects.js';
import type { Release } from '../release-record.js';

export async function absentObjects(objects: ClusterObjects, r: Release, which: (o: ManifestObject) => boolean = () => true): Promise<string[]> {
  const docs = releaseDocuments(r.manifest ?? '').map((d) => ({ name: d.path, content: d.doc }));
  const checks = await mapLimit(manifestObjects(docs).filter(which), 8, async (o) => {
    const p = await objects.place(o, r.namespace);
    return p && (await objects.exists(p)) ? undefined : `${o.kind} ${o.namespace || r.namespace}/${o.name}`;
  });
  return checks.filter((x): x is string => x !== undefined);
}
