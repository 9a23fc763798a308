#!/usr/bin/env bash
# Two kubernetes bindings in one group. A group's events reach the hook as one binding context of
# type "Group", with the snapshots of every binding of the group (and nothing of each event itself):
# the hook rebuilds its whole answer from the snapshots, whichever of them changed.
#  - apps: Deployments labelled app.example.com/name, all namespaces; jqFilter keeps the label.
#  - owners: ConfigMaps named app-owner in the namespace "apps"; jqFilter keeps app and owner.
# executeHookOnSynchronization: false: the start-up synchronization runs no hook; beforeHelm, whose
# binding context carries the snapshots too, computes the first values instead.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
configVersion: v1
beforeHelm: 10
kubernetes:
- name: apps
  group: inventory
  apiVersion: apps/v1
  kind: Deployment
  labelSelector:
    matchExpressions: [{key: app.example.com/name, operator: Exists}]
  jqFilter: '.metadata.labels["app.example.com/name"]'
  executeHookOnSynchronization: false
- name: owners
  group: inventory
  apiVersion: v1
  kind: ConfigMap
  namespace: {nameSelector: {matchNames: [apps]}}
  jqFilter: '{app: .data.app, owner: .data.owner}'
  executeHookOnSynchronization: false
CONFIG
  exit 0
fi
context=$(jq -c '.[-1]' "$BINDING_CONTEXT_PATH")
echo "binding context: type $(jq -r '.type' <<<"$context"), binding $(jq -r '.binding' <<<"$context"), snapshots $(jq -r '.snapshots | keys | join(",")' <<<"$context")"
jq '[.[-1].snapshots as $s |
  {op: "add", path: "/appInventory/internal/apps", value: ([$s.apps[].filterResult] | unique)},
  {op: "add", path: "/appInventory/internal/owners", value: ([$s.owners[].filterResult | select(.app != null) | {(.app): .owner}] | add // {})}]' \
  "$BINDING_CONTEXT_PATH" > "$VALUES_JSON_PATCH_PATH"
