#!/usr/bin/env bash
# A global hook watching Namespaces. The jqFilter keeps only each Namespace's name, so a change to
# anything else (labels, status) does not run the hook. Every run writes the sorted list of names to
# the global values (global.discovery.namespaces); the modules' charts read it, and a change of global
# values runs every module again: `kubectl create namespace demo` shows up in the echo-server chart.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
configVersion: v1
kubernetes:
- name: namespaces
  apiVersion: v1
  kind: Namespace
  jqFilter: .metadata.name
  includeSnapshotsFrom: [namespaces]
CONFIG
  exit 0
fi
# the last binding context carries the whole snapshot: every Namespace's filter result
names=$(jq -c '[.[-1].snapshots.namespaces[].filterResult] | sort' "$BINDING_CONTEXT_PATH")
echo "namespaces: $names"
echo "[{\"op\":\"add\",\"path\":\"/global/discovery\",\"value\":{\"namespaces\":$names}}]" > "$VALUES_JSON_PATCH_PATH"
