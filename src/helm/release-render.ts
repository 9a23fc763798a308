/**
 * Renders a module chart as its release gets it: with the cluster's capabilities (discovered, kept
 * for a while, Helm's defaults when discovery fails), `lookup` answered from the cluster, and the
 * extra labels post-rendered onto the manifest (what is applied is what the release records).
 */
import type { KubeConfig } from '../kube/kube-config.js';
import type { RestMapper } from '../kube/mapper.js';
import type { JsonObject } from '../util/json.js';
import type { Chart } from './chart.js';
import { defaultCapabilities, discoverCapabilities, type Capabilities } from './capabilities.js';
import { ClusterLookup, renderLooking, type LookupFn } from './lookup.js';
import { postRender, postRenderedManifest } from './post-render.js';
import { renderChart, type RenderResult } from './render.js';
import type { ReleaseLog } from './release-actions/context.js';

export interface ReleaseRenderInput {
  release: string;
  namespace: string;
  values: JsonObject;
}

export interface ReleaseRendererOptions {
  kc: KubeConfig;
  mapper: RestMapper;
  extraLabels: Record<string, string>;
  /** How long discovered capabilities are reused. */
  capabilitiesTtlMs: number;
  log: ReleaseLog;
}

export class ReleaseRenderer {
  private capabilities?: { at: number; value: Promise<Capabilities> };

  constructor(private readonly o: ReleaseRendererOptions) {}

  /** A fresh set of cluster answers for `lookup`, shared by the renders of one run. */
  newLookup(): ClusterLookup {
    return new ClusterLookup(this.o.kc, this.o.mapper);
  }

  /**
   * The render of the action that will run, as Helm renders it: `.Release.IsInstall`/`IsUpgrade` and
   * `.Release.Revision` of that action; `lookup` answered from the cluster when given answers.
   */
  async forAction(chart: Chart, req: ReleaseRenderInput, action: { isUpgrade: boolean; revision: number }, lookup?: ClusterLookup): Promise<RenderResult> {
    const capabilities = await this.capabilitiesNow();
    const render = (fn?: LookupFn) => this.postRendered(renderChart(chart, req.values, { ...this.base(req, capabilities), ...action, ...(fn ? { lookup: fn } : {}) }));
    return lookup ? renderLooking(lookup, render) : render();
  }

  /** Forgets the discovered capabilities (after CRDs were added, say). */
  invalidateCapabilities(): void {
    this.capabilities = undefined;
  }

  private base(req: ReleaseRenderInput, capabilities: Capabilities) {
    return { releaseName: req.release, namespace: req.namespace, capabilities, warn: (m: string) => this.o.log.warn(`release ${req.release}: ${m}`) };
  }

  /** The cluster's capabilities (discovered at most every `capabilitiesTtlMs`). */
  capabilitiesNow(): Promise<Capabilities> {
    const now = Date.now();
    if (!this.capabilities || now - this.capabilities.at > this.o.capabilitiesTtlMs) {
      const value = discoverCapabilities(this.o.kc).catch((e: unknown) => {
        this.o.log.warn(`API discovery failed, rendering with Helm's default capabilities: ${(e as Error).message}`);
        this.capabilities = undefined;
        return defaultCapabilities();
      });
      this.capabilities = { at: now, value };
    }
    return this.capabilities.value;
  }

  /** The manifest with the extra labels (post-render.ts). */
  private postRendered(r: RenderResult): RenderResult {
    if (!Object.keys(this.o.extraLabels).length) return r;
    const manifests = postRender(r.manifests, this.o.extraLabels);
    return { ...r, manifests, manifest: postRenderedManifest(manifests) };
  }
}
