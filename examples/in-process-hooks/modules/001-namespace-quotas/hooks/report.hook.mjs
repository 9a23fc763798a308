// A second in-process hook: after each Helm run it exports how many namespaces have a quota, as a
// metric on /metrics/hooks (example_quota_namespaces).
import { defineHook } from 'addon-operator/hooks';
export const { config, run } = defineHook({
    config: { configVersion: 'v1', afterHelm: 10 },
    run(ctx) {
        const quotas = ctx.values.namespaceQuotas;
        ctx.metrics.set('example_quota_namespaces', quotas.internal.namespaces.length);
    },
});
