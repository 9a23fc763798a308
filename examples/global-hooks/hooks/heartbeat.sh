#!/usr/bin/env bash
# A schedule hook: every minute (shell-operator's crontab; six fields would add seconds) it counts
# its runs in a metric, shown on /metrics/hooks as example_heartbeats_total{hook="..."}.
set -euo pipefail
if [[ "${1:-}" == "--config" ]]; then
  cat <<'CONFIG'
configVersion: v1
schedule:
- name: every-minute
  crontab: "* * * * *"
CONFIG
  exit 0
fi
echo "heartbeat at $(date -u +%H:%M:%S)"
echo '{"name":"example_heartbeats_total","add":1}' >> "$METRICS_PATH"
