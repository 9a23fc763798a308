#!/usr/bin/env bash
# Keeps echoServer.internal.nodeCount equal to the number of Nodes in the cluster: a kubernetes
# binding (only the names are kept, through the jq filter) and a beforeHelm binding, both with the
# snapshot. A changed count changes the module's values, so the release is upgraded.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
configVersion: v1
beforeHelm: 10
kubernetes:
- name: nodes
  apiVersion: v1
  kind: Node
  jqFilter: .metadata.name
  includeSnapshotsFrom: [nodes]
CONFIG
  exit 0
fi
count=$(jq '.[-1].snapshots.nodes | length' "$BINDING_CONTEXT_PATH")
echo "nodes in the cluster: $count"
echo "[{\"op\":\"add\",\"path\":\"/echoServer/internal/nodeCount\",\"value\":$count}]" > "$VALUES_JSON_PATCH_PATH"
