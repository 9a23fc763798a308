#!/usr/bin/env bash
# A global onStartup hook: runs once, before anything else, and logs the cluster name from the
# config (the ConfigMap's "global" key, seeded from examples/config.yaml).
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  echo '{"configVersion":"v1","onStartup":1}'
  exit 0
fi
echo "starting for cluster $(jq -r '.global.clusterName' "$VALUES_PATH")"
