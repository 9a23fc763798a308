#!/usr/bin/env bash
# Tools the tests and the quick start use besides Node: bash and jq (hook scripts in tests and
# examples use them); with --tests also chromium (the status page test) and Debian's
# python3-kubernetes (the sandbox's Python client test).
# Installs what is missing when it can (root with apt-get), otherwise says what is missing.
# kubectl is optional: the sandbox's kubectl test and the documentation blocks that use kubectl
# (test/docs/runnable.test.ts) print a notice and are not run without it.
set -u
missing=()
for tool in bash jq; do
  command -v "$tool" >/dev/null 2>&1 || missing+=("$tool")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check-tools: installing ${missing[*]} with apt-get"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
  fi
  for tool in "${missing[@]}"; do
    command -v "$tool" >/dev/null 2>&1 || { echo "check-tools: '$tool' is required by the tests and the example hooks and could not be installed" >&2; exit 1; }
  done
fi
command -v kubectl >/dev/null 2>&1 || echo "check-tools: note: kubectl not found; the kubectl scenario test and the docs blocks using kubectl will be skipped"
# Debian's chromium drives the status page test (with playwright-core from npm); optional: without
# it that test prints a notice and skips itself.
if [ ! -x /usr/bin/chromium ] && [ "${1:-}" = "--tests" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check-tools: installing chromium with apt-get (for the status page test)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; } || true
  fi
  [ -x /usr/bin/chromium ] || echo "check-tools: note: chromium could not be installed; the status page browser test will be skipped"
fi
# Debian's official Kubernetes Python client drives the sandbox with /usr/bin/python3; optional:
# without it that test prints a notice and skips itself.
if [ "${1:-}" = "--tests" ] && ! /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "check-tools: installing python3-kubernetes with apt-get (for the sandbox's Python client test)"
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3-kubernetes >/dev/null; } || true
  fi
  /usr/bin/python3 -c 'import kubernetes' >/dev/null 2>&1 || echo "check-tools: note: python3-kubernetes could not be installed; the sandbox's Python client test will be skipped"
fi
exit 0
