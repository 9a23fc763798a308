// An in-process hook written in TypeScript: it runs inside the operator, without a process. This
// file is the source; the operator runs status.hook.mjs, compiled from it with
//   npx tsc --module nodenext --target es2022 --skipLibCheck examples/modules/001-echo-server/hooks/status.hook.mts
// After each Helm run it records the replicas it installed in a ConfigMap and a metric.
import { defineHook } from 'addon-operator/hooks';

export const { config, run } = defineHook({
  config: { configVersion: 'v1', afterHelm: 10 },
  run(ctx) {
    const echo = ctx.values.echoServer as { replicas: number };
    ctx.kubernetes.createOrUpdate({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name: 'echo-server-status', namespace: 'default' },
      data: { replicas: String(echo.replicas) },
    });
    ctx.metrics.set('example_echo_server_replicas', echo.replicas);
    ctx.log(`echo-server runs ${echo.replicas} replicas`);
  },
});
