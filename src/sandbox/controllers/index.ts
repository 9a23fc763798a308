/**
 * Wires the simulated controllers to a sandbox's store: which run, with which timings, and the default
 * Node they need; `stop()` ends their timers.
 */
import type { Resources } from '../resources.js';
import { Runtime, type Controller } from './runtime.js';
import { ensureNode, nodeController } from './node.js';
import { podController } from './pod.js';
import { replicaSetController } from './replicaset.js';
import { deploymentController } from './deployment.js';
import { statefulSetController } from './statefulset.js';
import { daemonSetController } from './daemonset.js';
import { jobController } from './job.js';
import { cronJobController } from './cronjob.js';
import { volumeController } from './volume.js';
import { serviceController } from './service.js';

export interface ControllerSettings {
  /** From a Pod's scheduling to Running and Ready (ms); a Pod that does not restart ends as long after. */
  podStartMs: number;
  /** The kubelet version the simulated Nodes report. */
  kubeletVersion: string;
  log?: (message: string) => void;
}

export interface Controllers {
  stop(): void;
}

export function startControllers(resources: Resources, settings: ControllerSettings): Controllers {
  const list: Controller[] = [
    nodeController(settings.kubeletVersion),
    podController(),
    replicaSetController(),
    deploymentController(),
    statefulSetController(),
    daemonSetController(),
    jobController(),
    cronJobController(),
    volumeController(),
    serviceController(),
  ];
  const rt = new Runtime(resources, list, { podStartMs: settings.podStartMs, log: settings.log });
  ensureNode(rt);
  return { stop: () => rt.stop() };
}
