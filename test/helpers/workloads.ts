/** Workload manifests for the sandbox's simulated controllers, shared by the module health tests. */

/** A Job whose Pod fails at once (the sandbox's fail annotation, no retry): Failed, BackoffLimitExceeded. */
export const FAILING_JOB = `apiVersion: batch/v1
kind: Job
metadata: {name: migrate}
spec:
  backoffLimit: 0
  template:
    metadata:
      annotations: {sandbox.addon-operator.io/fail: "true"}
    spec: {restartPolicy: Never, containers: [{name: main, image: busybox}]}
`;

/** The sandbox's fail annotation on a Pod template: its Pods crash (CrashLoopBackOff), never Ready. */
export const CRASHING = '      annotations: {sandbox.addon-operator.io/fail: "true"}\n';

/** A Deployment of one replica with a 10-minute progress deadline; `annotations` go on its Pod template (e.g. CRASHING). */
export const deployment = (name: string, annotations = '') => `apiVersion: apps/v1
kind: Deployment
metadata: {name: ${name}}
spec:
  replicas: 1
  progressDeadlineSeconds: 600
  selector: {matchLabels: {app: ${name}}}
  template:
    metadata:
      labels: {app: ${name}}
${annotations}    spec: {containers: [{name: main, image: nginx}]}
`;
