#!/usr/bin/env bash
# A global onStartup hook: logs the cluster name it was configured with.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  echo '{"configVersion":"v1","onStartup":1}'
  exit 0
fi
echo "starting for cluster $(jq -r '.global.clusterName' "$VALUES_PATH")"
