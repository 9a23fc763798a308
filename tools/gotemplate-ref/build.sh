#!/bin/sh
# Builds the Go reference renderer (tools/gotemplate-ref/bin/gotemplate-ref) offline, from Debian's
# packaged Go sources. Development tool only: CI and users never need Go.
#
# Needs (as root, once):
#   apt-get update && apt-get install -y golang-go golang-github-masterminds-sprig-dev \
#     golang-k8s-sigs-yaml-dev golang-gopkg-yaml.v2-dev golang-github-burntsushi-toml-dev
set -eu
here=$(cd "$(dirname "$0")" && pwd)
src=/usr/share/gocode/src
for p in github.com/Masterminds/sprig sigs.k8s.io/yaml github.com/BurntSushi/toml gopkg.in/yaml.v2; do
  if [ ! -d "$src/$p" ]; then
    echo "build.sh: $src/$p is missing; install the Debian packages listed in README.md" >&2
    exit 1
  fi
done
command -v go >/dev/null || { echo "build.sh: no go toolchain (apt-get install golang-go)" >&2; exit 1; }

# GOPATH mode (no modules, no network). Sprig imports "github.com/Masterminds/semver/v3" and users
# import "github.com/Masterminds/sprig/v3": Debian ships both without the /v3 suffix, so a private
# GOPATH entry maps the /v3 paths onto them with symlinks.
gp="$here/.gopath"
mkdir -p "$gp/src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/semver" "$here/bin"
ln -sfn "$src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/sprig/v3"
ln -sfn "$src/github.com/Masterminds/semver" "$gp/src/github.com/Masterminds/semver/v3"

cd "$here"
GOPATH="$gp:/usr/share/gocode" GO111MODULE=off GOFLAGS= GOCACHE="${GOCACHE:-$gp/cache}" \
  go build -o bin/gotemplate-ref .
echo "built $here/bin/gotemplate-ref ($(go version | cut -d' ' -f3))"
