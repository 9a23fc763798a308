/** Seed manifests: multi-document YAML loaded into the sandbox (namespaces and CRDs first). */
import { readFileSync } from 'node:fs';
import { parseAllDocuments } from 'yaml';
import { isObject } from './json.js';
import type { Registry } from './registry.js';
import type { Resources } from './resources.js';
import { StatusError } from './errors.js';

/** Parses multi-document YAML (or JSON); expands `kind: List`; skips empty documents. */
export function parseManifests(text: string, source = 'manifest'): Record<string, any>[] {
  const out: Record<string, any>[] = [];
  const docs = parseAllDocuments(text);
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    if (doc.errors.length) throw new Error(`${source}: ${doc.errors[0].message}`);
    const v = doc.toJS();
    if (v === null || v === undefined) continue;
    if (!isObject(v)) throw new Error(`${source}: a document is not an object`);
    if (typeof v.kind === 'string' && v.kind.endsWith('List') && Array.isArray(v.items)) {
      for (const it of v.items) if (isObject(it)) out.push(it);
    } else out.push(v);
  }
  return out;
}

function rank(o: Record<string, any>): number {
  if (o.kind === 'Namespace') return 0;
  if (o.kind === 'CustomResourceDefinition') return 1;
  return 2;
}

/** Creates or replaces each object. Returns how many were written. */
export function applyObjects(registry: Registry, resources: Resources, objects: Record<string, any>[], source = 'seed'): number {
  const ordered = objects.map((o, i) => ({ o, i })).sort((a, b) => rank(a.o) - rank(b.o) || a.i - b.i);
  let n = 0;
  for (const { o } of ordered) {
    const t = registry.byKind(String(o.apiVersion ?? ''), String(o.kind ?? ''));
    if (!t) throw new Error(`${source}: no resource type for apiVersion ${o.apiVersion} kind ${o.kind}`);
    const version = String(o.apiVersion).split('/').pop()!;
    const ns = t.namespaced ? String(o.metadata?.namespace || 'default') : '';
    const name = o.metadata?.name;
    const ctx = { manager: 'addon-operator-sandbox-seed', explicitManager: true };
    try {
      let exists = false;
      if (name) {
        try {
          resources.get(t, ns, name);
          exists = true;
        } catch {
          exists = false;
        }
      }
      if (exists) {
        const cur = resources.get(t, ns, name);
        const body = { ...o, metadata: { ...(o.metadata ?? {}), resourceVersion: String(cur.rv) } };
        resources.update(t, version, ns, name, body, ctx);
      } else {
        resources.create(t, version, ns, o, ctx);
      }
      n++;
    } catch (err) {
      const msg = err instanceof StatusError ? err.message : (err as Error).message;
      throw new Error(`${source}: ${o.kind} ${ns ? ns + '/' : ''}${name ?? ''}: ${msg}`, { cause: err });
    }
  }
  return n;
}

export function loadSeedFile(registry: Registry, resources: Resources, path: string): number {
  return applyObjects(registry, resources, parseManifests(readFileSync(path, 'utf8'), path), path);
}
