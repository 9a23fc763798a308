/**
 * The ConfigMap config backend (addon-operator's backend/configmap): reads the raw data of one
 * ConfigMap, watches it, and writes one section at a time as YAML.
 *
 * Sections are written as Go's yaml.Marshal writes them (sorted keys, block style). An empty section
 * removes its key instead of writing `{}` (the Go backend writes `{}`). A missing ConfigMap is created
 * on the first write; writes read, modify and update with the resourceVersion, retrying on conflicts.
 */
import type { KubeConfig } from './kube-config.js';
import type { ConfigMapData } from '../operator/ports.js';
import { marshalYAML } from '../gotemplate/index.js';
import { errorMessage } from '../util/errors.js';
import type { JsonObject } from '../util/json.js';
import { isApiStatus, requestJson } from './http.js';
import { Informer, type KubeObject } from './informer.js';
import { jittered, sleep } from '../util/rate-limit.js';

export interface ConfigMapSourceOptions {
  kc: KubeConfig;
  namespace: string;
  name: string;
}

interface ConfigMapObject extends KubeObject {
  data?: Record<string, string>;
}

const WRITE_ATTEMPTS = 5;

function dataOf(cm: ConfigMapObject | undefined): ConfigMapData {
  return cm ? { ...(cm.data ?? {}) } : null;
}

function sameData(a: ConfigMapData, b: ConfigMapData): boolean {
  if (a === null || b === null) return a === b;
  const keys = Object.keys(a);
  return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && a[k] === b[k]);
}

export class ConfigMapSource {
  readonly description: string;
  private readonly kc: KubeConfig;
  private readonly namespace: string;
  private readonly name: string;
  /** The data last read or notified; undefined before the first. */
  private last: ConfigMapData | undefined;
  private informer: Informer | undefined;

  constructor(opts: ConfigMapSourceOptions) {
    this.kc = opts.kc;
    this.namespace = opts.namespace;
    this.name = opts.name;
    this.description = `ConfigMap ${opts.namespace}/${opts.name}`;
  }

  private get collectionPath(): string {
    return `/api/v1/namespaces/${encodeURIComponent(this.namespace)}/configmaps`;
  }

  private get objectPath(): string {
    return `${this.collectionPath}/${encodeURIComponent(this.name)}`;
  }

  async read(): Promise<ConfigMapData> {
    const cm = await this.get(`reading ${this.description}`);
    this.last = dataOf(cm);
    return dataOf(cm);
  }

  /**
   * Watches the ConfigMap; resolves once watching. `onChange` is called only when the data differs
   * from the last read or notification (without a read before, the first state is notified).
   */
  async watch(onChange: (data: ConfigMapData) => void, onError?: (e: Error) => void): Promise<void> {
    if (this.informer) throw new Error(`${this.description} is already watched`);
    const notify = (data: ConfigMapData) => {
      if (this.last !== undefined && sameData(this.last, data)) return;
      this.last = data;
      onChange(data);
    };
    this.informer = new Informer({
      kc: this.kc,
      path: this.collectionPath,
      fieldSelector: `metadata.name=${this.name}`,
      onSync: (objects) => notify(dataOf(objects.find((o) => o.metadata?.name === this.name))),
      onEvent: (type, object) => {
        if (object.metadata?.name !== this.name) return;
        notify(type === 'DELETED' ? null : dataOf(object));
      },
      onError: (e) => onError?.(new Error(`watching ${this.description}: ${e.message}`, { cause: e })),
    });
    await this.informer.start();
  }

  /** Sets data[key] to the YAML of values; an empty object removes the key. */
  async writeSection(key: string, values: JsonObject): Promise<void> {
    const remove = Object.keys(values).length === 0;
    const text = remove ? undefined : marshalYAML(values);
    const what = `writing section "${key}" of ${this.description}`;
    for (let attempt = 1; ; attempt++) {
      const cm = await this.get(what);
      try {
        if (!cm) {
          if (remove) return;
          const body = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: this.name, namespace: this.namespace }, data: { [key]: text } };
          await requestJson(this.kc, 'POST', this.collectionPath, {}, body);
          return;
        }
        const data = { ...(cm.data ?? {}) };
        if (remove ? !Object.hasOwn(data, key) : data[key] === text) return;
        if (remove) delete data[key];
        else data[key] = text!;
        await requestJson(this.kc, 'PUT', this.objectPath, {}, { ...cm, data });
        return;
      } catch (e) {
        // someone else wrote (or created) the ConfigMap meanwhile: read it again
        const raced = isApiStatus(e, 409, 'Conflict') || isApiStatus(e, 409, 'AlreadyExists');
        if (!raced || attempt >= WRITE_ATTEMPTS) throw new Error(`${what}: ${errorMessage(e)}`, { cause: e });
        await sleep(jittered(20 * 4 ** (attempt - 1)));
      }
    }
  }

  async stop(): Promise<void> {
    const informer = this.informer;
    this.informer = undefined;
    await informer?.stop();
  }

  private async get(what: string): Promise<ConfigMapObject | undefined> {
    try {
      return await requestJson<ConfigMapObject>(this.kc, 'GET', this.objectPath);
    } catch (e) {
      if (isApiStatus(e, 404)) return undefined;
      throw new Error(`${what}: ${errorMessage(e)}`, { cause: e });
    }
  }
}
