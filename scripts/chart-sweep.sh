#!/usr/bin/env bash
# Renders every chart under the given directories as `helm template` would (default values and each
# ci/*.yaml), in parallel; one line per render and a total. With --runtime, converges each chart as a
# module on `addon-operator start --sandbox` instead (chart-sweep-runtime.ts). See docs/helm.md,
# "Chart sweep" and "Run-time chart sweep".
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
script=chart-sweep.ts
for a in "$@"; do [ "$a" = --runtime ] && script=chart-sweep-runtime.ts; done
exec node --import "file://$root/node_modules/tsx/dist/loader.mjs" "$root/scripts/$script" "$@"
