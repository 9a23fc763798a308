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
