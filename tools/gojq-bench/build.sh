#!/usr/bin/env bash
# Builds gojq-bench against Debian's packaged gojq (apt-get install golang-go golang-github-itchyny-gojq-dev).
set -euo pipefail
cd "$(dirname "$0")"
GO111MODULE=off GOPATH=/usr/share/gocode GOCACHE="${GOCACHE:-/tmp/gojq-bench-cache}" go build -o gojq-bench main.go
