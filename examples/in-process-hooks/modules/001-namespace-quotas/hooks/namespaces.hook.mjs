// An in-process hook in TypeScript (compiled to namespaces.hook.mjs, which the operator runs inside
// its own process: no bash, no jq, no process start). It watches Namespaces that have a quota-tier
// label and keeps them in the module's values; the chart makes a ResourceQuota for each.
import { defineHook } from 'addon-operator/hooks';
export const { config, run } = defineHook({
    config: {
        configVersion: 'v1',
        beforeHelm: 10,
        kubernetes: [
            {
                name: 'namespaces',
                apiVersion: 'v1',
                kind: 'Namespace',
                labelSelector: { matchExpressions: [{ key: 'quota-tier', operator: 'Exists' }] },
                // the filter keeps what the hook needs: other changes to a Namespace do not run it
                jqFilter: '{name: .metadata.name, tier: .metadata.labels["quota-tier"]}',
                includeSnapshotsFrom: ['namespaces'],
            },
        ],
    },
    run(ctx) {
        // the last binding context holds the whole snapshot, whatever event started the run
        const last = ctx.bindingContext[ctx.bindingContext.length - 1];
        const namespaces = last.snapshots.namespaces.map((s) => s.filterResult).sort((a, b) => a.name.localeCompare(b.name));
        ctx.patchValues({ op: 'add', path: '/namespaceQuotas/internal/namespaces', value: namespaces.map((n) => ({ ...n })) });
        ctx.log(`namespaces with a quota tier: ${namespaces.map((n) => `${n.name}=${n.tier}`).join(', ') || 'none'}`);
    },
});
