#!/usr/bin/env bash
# A hook writing a config patch: the first time the module runs without a password in its config,
# it generates one and saves it to the ConfigMap (CONFIG_VALUES_JSON_PATCH_PATH), where it stays
# across restarts: `kubectl get configmap addon-operator -o yaml` shows the new "dashboard" key.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  echo '{"configVersion":"v1","beforeHelm":5}'
  exit 0
fi
if jq -e '.dashboard.password // empty' "$CONFIG_VALUES_PATH" >/dev/null; then
  exit 0
fi
password=$(head -c 18 /dev/urandom | base64 | tr -d '/+=' | head -c 16)
echo "no password in the config: saving a generated one to the ConfigMap"
echo "[{\"op\":\"add\",\"path\":\"/dashboard/password\",\"value\":\"$password\"}]" > "$CONFIG_VALUES_JSON_PATCH_PATH"
