/**
 * `lookup` during install and upgrade, against the live cluster. Templates run synchronously, so a
 * release is rendered, the calls it made are fetched, and it is rendered again with their answers
 * (a call made only because of an earlier answer takes another round, at most 5). Answers as Helm's
 * lookup gives them: the object, a list (`{apiVersion, kind: ...List, items}`) when the name is
 * empty (every namespace when a namespaced kind gets namespace ""), an empty map when not found;
 * integers are int64 as in client-go's unstructured objects.
 */
import type { KubeConfig } from '../kube/kube-config.js';

import type { RestMapper } from '../kube/mapper.js';
import { GoInt } from '../gotemplate/index.js';
import { isApiStatus, requestJson } from '../kube/http.js';

type Answer = { value: unknown } | { error: Error };

export type LookupFn = (apiVersion: string, kind: string, namespace: string, name: string) => unknown;

/** Unstructured objects as client-go decodes them: integers are int64, other numbers float64. */
function goNumbers(v: unknown): unknown {
  if (typeof v === 'number') return Number.isInteger(v) ? new GoInt('int64', BigInt(v)) : v;
  if (Array.isArray(v)) return v.map(goNumbers);
  if (v !== null && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, goNumbers(x)]));
  return v;
}

export class ClusterLookup {
  private readonly answers = new Map<string, Answer>();
  private readonly pending = new Map<string, [string, string, string, string]>();

  constructor(
    private readonly kc: KubeConfig,
    private readonly mapper: RestMapper,
  ) {}

  /** The template function: a known answer, or an empty map while the call waits for the next fetch. */
  readonly lookup: LookupFn = (apiVersion, kind, namespace, name) => {
    const key = JSON.stringify([apiVersion, kind, namespace, name]);
    const a = this.answers.get(key);
    if (a === undefined) {
      this.pending.set(key, [apiVersion, kind, namespace, name]);
      return {};
    }
    if ('error' in a) throw a.error;
    return a.value;
  };

  /** Fetches the calls made since the last fetch; false when there were none. */
  async fetchPending(): Promise<boolean> {
    if (this.pending.size === 0) return false;
    const calls = [...this.pending];
    this.pending.clear();
    await Promise.all(calls.map(async ([key, call]) => this.answers.set(key, await this.fetch(...call))));
    return true;
  }

  private async fetch(apiVersion: string, kind: string, namespace: string, name: string): Promise<Answer> {
    let info;
    try {
      info = await this.mapper.resolve(apiVersion, kind);
    } catch (e) {
      const gv = apiVersion.includes('/') ? apiVersion : `/${apiVersion}`;
      return { error: new Error(`unable to get apiresource from unstructured: ${gv}, Kind=${kind}: ${(e as Error).message}`) };
    }
    const ns = info.namespaced && namespace !== '' ? namespace : undefined;
    const path = name !== '' ? this.mapper.objectPath(info, ns, name) : this.mapper.collectionPath(info, ns);
    try {
      return { value: goNumbers(await requestJson(this.kc, 'GET', path)) };
    } catch (e) {
      if (isApiStatus(e, 404)) return { value: {} };
      return { error: e instanceof Error ? e : new Error(String(e)) };
    }
  }
}

/**
 * Renders until the answers are complete: after each render the calls it made are fetched and it
 * runs again (an error of a render that asked for something new is retried with the answers).
 */
export async function renderLooking<T>(lookup: ClusterLookup, render: (fn: LookupFn) => T, rounds = 5): Promise<T> {
  for (let round = 1; ; round++) {
    let result: T | undefined;
    let error: unknown;
    let failed = false;
    try {
      result = render(lookup.lookup);
    } catch (e) {
      error = e;
      failed = true;
    }
    if (round < rounds && (await lookup.fetchPending())) continue;
    if (failed) throw error;
    return result as T;
  }
}
