#!/usr/bin/env bash
# Runs examples/NAME on the embedded sandbox, as `npm start` runs the quick start set:
#
#   bash scripts/example.sh NAME [start flags...]
#
# The operator gets examples/NAME/modules and examples/NAME/global-hooks (an example's example.env
# may set MODULES_DIR and GLOBAL_HOOKS_DIR otherwise), with examples/NAME/config.yaml (the ConfigMap)
# and examples/NAME/cluster.yaml loaded into the sandbox when they exist. Its kubeconfig, debug
# socket, log and hook temp files go to .sandbox/NAME/ (or $EXAMPLE_STATE_DIR). The HTTP server
# listens on 127.0.0.1:9651, beside the quick start's 9650. Flags given after NAME are added (a later
# flag wins: --listen-port 9652).
# ADDON_OPERATOR is the command to run (default: node dist/cli/main.js, built by npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."
name=${1:-}
if [ -z "$name" ] || [ ! -d "examples/$name" ] || [ "$name" = modules ] || [ "$name" = global-hooks ]; then
  echo "usage: bash scripts/example.sh NAME [start flags...]; NAME is one of:" >&2
  for d in examples/*/README.md; do d=${d%/README.md}; echo "  ${d#examples/}" >&2; done
  exit 1
fi
shift
dir=examples/$name
state=${EXAMPLE_STATE_DIR:-.sandbox/$name}
MODULES_DIR=$dir/modules
GLOBAL_HOOKS_DIR=$dir/global-hooks
# shellcheck disable=SC1090
if [ -f "$dir/example.env" ]; then . "$dir/example.env"; fi
mkdir -p "$state"
if [ ! -d "$GLOBAL_HOOKS_DIR" ]; then GLOBAL_HOOKS_DIR=$state/no-global-hooks; mkdir -p "$GLOBAL_HOOKS_DIR"; fi
seeds=()
for f in "$dir/config.yaml" "$dir/cluster.yaml"; do
  if [ -f "$f" ]; then seeds+=(--sandbox-seed "$f"); fi
done
# shellcheck disable=SC2086
exec ${ADDON_OPERATOR:-node dist/cli/main.js} start --sandbox \
  --modules-dir "$MODULES_DIR" --global-hooks-dir "$GLOBAL_HOOKS_DIR" "${seeds[@]}" \
  --sandbox-kubeconfig "$state/kubeconfig" --debug-unix-socket "$state/debug.socket" \
  --tmp-dir "$state/tmp" --log-file "$state/operator.log" --listen-port 9651 "$@"
