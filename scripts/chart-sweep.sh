#!/usr/bin/env bash
# Renders every chart under the given directories as `helm template` would (default values and each
# ci/*.yaml), in parallel; one line per render and a total. See docs/helm.md, "Chart sweep".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec node --import "file://$root/node_modules/tsx/dist/loader.mjs" "$root/scripts/chart-sweep.ts" "$@"
