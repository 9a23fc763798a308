#!/usr/bin/env bash
# A global onStartup hook: runs once when the operator starts, before any module is discovered.
# It derives global values from the config (global.clusterName) that every module's chart can read.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  echo '{"configVersion":"v1","onStartup":1}'
  exit 0
fi
name=$(jq -r '.global.clusterName' "$CONFIG_VALUES_PATH")
echo "cluster $name: domain $name.cluster.internal"
jq -n --arg name "$name" '[{op: "add", path: "/global/clusterInfo", value: {domain: "\($name).cluster.internal", derivedBy: "onStartup"}}]' > "$VALUES_JSON_PATCH_PATH"
