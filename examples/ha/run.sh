#!/usr/bin/env bash
# Two replicas of the operator in HA mode on one API server, as two pods of a Deployment would run:
# the embedded API server runs alone (`addon-operator sandbox`), and each replica gets the pod's
# variables: ADDON_OPERATOR_HA=true, its pod name, its pod IP (127.0.0.1 and 127.0.0.2 here, the same
# port) and the namespace of the Lease. One leads and runs the modules; the other waits, answering
# /readyz with the leader's answer, and takes over when the leader stops or dies.
#
#   bash examples/ha/run.sh            (Ctrl-C stops all three)
#
# State (kubeconfig, logs, pids) goes to .sandbox/ha/ (or $EXAMPLE_STATE_DIR); HA_PORT (default
# 9660) is the replicas' HTTP port; ADDON_OPERATOR the command (default node dist/cli/main.js).
set -euo pipefail
cd "$(dirname "$0")/../.."
state=${EXAMPLE_STATE_DIR:-.sandbox/ha}
port=${HA_PORT:-9660}
read -r -a cli <<< "${ADDON_OPERATOR:-node dist/cli/main.js}"
mkdir -p "$state"
rm -f "$state/kubeconfig"
# each process in a session of its own: a terminal's Ctrl-C reaches this script only, which stops
# them in order
setsid "${cli[@]}" sandbox --kubeconfig "$state/kubeconfig" --seed examples/ha/cluster.yaml > "$state/sandbox.log" 2>&1 &
sandbox=$!
until [ -s "$state/kubeconfig" ]; do sleep 0.2; done
replicas=()
# Ctrl-C: the replicas stop (the leader gives the Lease up), then the API server
stop() {
  trap '' INT TERM
  kill -INT "${replicas[@]}" 2>/dev/null || true
  wait "${replicas[@]}" 2>/dev/null || true
  kill -INT "$sandbox" 2>/dev/null || true
  wait "$sandbox" 2>/dev/null || true
  exit 0
}
trap stop INT TERM
for i in 1 2; do
  ADDON_OPERATOR_HA=true ADDON_OPERATOR_POD=replica-$i ADDON_OPERATOR_LISTEN_ADDRESS=127.0.0.$i ADDON_OPERATOR_NAMESPACE=addons \
    setsid "${cli[@]}" start --kube-config "$state/kubeconfig" \
    --modules-dir examples/ha/modules --global-hooks-dir examples/ha/modules \
    --listen-port "$port" --debug-unix-socket "$state/replica-$i.socket" --tmp-dir "$state/tmp-$i" \
    --log-file "$state/replica-$i.log" "$@" > >(trap '' INT; sed -u "s/^/[replica-$i] /") 2>&1 &
  replicas+=($!)
  echo $! > "$state/replica-$i.pid"
done
echo "two replicas started; the one that gets the Lease addons/addon-operator-leader-election runs the modules"
echo "  kubectl --kubeconfig $state/kubeconfig -n addons get lease,configmaps"
echo "  kill \$(cat $state/replica-1.pid)    # stop one: if it led, the other takes over"
# each replica runs until it is stopped; then Ctrl-C stops the rest
for pid in "${replicas[@]}"; do wait "$pid" || true; done
stop
