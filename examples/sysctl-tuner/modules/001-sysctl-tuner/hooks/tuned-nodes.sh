#!/usr/bin/env bash
# Watches Nodes labelled sysctl-tuner/enabled=true and keeps their names in the module's values
# (sysctlTuner.internal.tunedNodes). The kubernetes binding runs the hook at once with every such Node
# (Synchronization), then on each change; beforeHelm gets the same snapshot before each Helm run.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
configVersion: v1
beforeHelm: 10
kubernetes:
- name: tuned-nodes
  apiVersion: v1
  kind: Node
  labelSelector:
    matchLabels: {sysctl-tuner/enabled: "true"}
  jqFilter: .metadata.name
  includeSnapshotsFrom: [tuned-nodes]
CONFIG
  exit 0
fi
nodes=$(jq -c '[.[-1].snapshots["tuned-nodes"][].filterResult] | sort' "$BINDING_CONTEXT_PATH")
echo "nodes to tune: $nodes"
jq -n --argjson nodes "$nodes" '[{op: "add", path: "/sysctlTuner/internal/tunedNodes", value: $nodes}]' > "$VALUES_JSON_PATCH_PATH"
