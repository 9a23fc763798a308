/**
 * `module render --diff`: what applying a release's manifest would change, as the Go operator shows
 * it (kubectl's diff with server-side apply): for every object, the live one ("LIVE") beside the one a
 * dry-run server-side apply returns ("MERGED"), written as YAML into two temporary directories and
 * compared by `diff -u -N`. managedFields and metadata.generation are left out, and a Secret's data
 * values are masked (`***`, `*** (before)`/`*** (after)` where they differ), as kubectl does.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { marshalYAML } from '../gotemplate/yaml.js';
import { isPlainObject, type JsonObject } from '../util/json.js';
import type { ClusterObjects, PlacedObject } from './objects.js';

/** The field manager kubectl's client-side apply uses; the Go operator's diff applies under it. */
const DIFF_FIELD_MANAGER = 'kubectl-client-side-apply';

const NO_DIFF = 'No diff found';

/** kubectl's file name of an object: `[group.]version.Kind.namespace.name`. */
function diffFileName(p: PlacedObject): string {
  return `${p.info.group ? `${p.info.group}.` : ''}${p.info.version}.${p.info.kind}.${p.placedNamespace ?? ''}.${p.name}`;
}

/** Without managedFields and metadata.generation. */
function forDiff(o: JsonObject | undefined): JsonObject | undefined {
  if (!o) return undefined;
  const metadata = isPlainObject(o.metadata ?? null) ? { ...(o.metadata as JsonObject) } : undefined;
  if (!metadata) return o;
  delete metadata.managedFields;
  delete metadata.generation;
  return { ...o, metadata };
}

/** kubectl's Masker: every Secret data value hidden, a changed one marked before/after. */
function maskSecrets(live: JsonObject | undefined, merged: JsonObject | undefined): [JsonObject | undefined, JsonObject | undefined] {
  const data = (o: JsonObject | undefined) => (o && isPlainObject(o.data ?? null) ? { ...(o.data as JsonObject) } : undefined);
  const from = data(live);
  const to = data(merged);
  for (const k of Object.keys(from ?? {})) {
    if (to && k in to) {
      if (to[k] !== from![k]) {
        from![k] = '*** (before)';
        to[k] = '*** (after)';
        continue;
      }
      to[k] = '***';
    }
    from![k] = '***';
  }
  for (const k of Object.keys(to ?? {})) if (!from || !(k in from)) to![k] = '***';
  return [live && from ? { ...live, data: from } : live, merged && to ? { ...merged, data: to } : merged];
}

function runDiff(from: string, to: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile('diff', ['-u', '-N', from, to], { maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      // diff exits 1 when the files differ, 0 when they do not
      if (!error) return resolve('');
      if (error.code === 1) return resolve(stdout);
      reject(new Error(`running diff program: ${stderr.trim() || error.message}`));
    });
  });
}

/** The diff of applying these objects now, or `No diff found`. */
export async function manifestDiff(cluster: ClusterObjects, objects: readonly PlacedObject[]): Promise<string> {
  const liveDir = mkdtempSync(join(tmpdir(), 'LIVE-'));
  const mergedDir = mkdtempSync(join(tmpdir(), 'MERGED-'));
  try {
    for (const p of objects) {
      const live = await cluster.get(p);
      const merged = await cluster.applyDryRun(p, DIFF_FIELD_MANAGER);
      let [from, to] = [forDiff(live), forDiff(merged)];
      if (p.info.group === '' && p.info.version === 'v1' && p.info.kind === 'Secret') [from, to] = maskSecrets(from, to);
      const name = diffFileName(p);
      writeFileSync(join(liveDir, name), from ? marshalYAML(from) : '');
      writeFileSync(join(mergedDir, name), to ? marshalYAML(to) : '');
    }
    const out = await runDiff(liveDir, mergedDir);
    return out === '' ? NO_DIFF : out;
  } finally {
    rmSync(liveDir, { recursive: true, force: true });
    rmSync(mergedDir, { recursive: true, force: true });
  }
}
