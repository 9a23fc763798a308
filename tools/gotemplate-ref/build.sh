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
# GO selects the toolchain: the default `go` (Debian bookworm: 1.19, which made the corpus) builds
# bin/gotemplate-ref; another one, e.g. GO=/usr/lib/go-1.23/bin/go (bookworm-backports package
# golang-1.23-go), builds bin/gotemplate-ref-go1.23 to compare Go versions (see README.md).
GO=${GO:-go}
command -v "$GO" >/dev/null || { echo "build.sh: no go toolchain $GO (apt-get install golang-go)" >&2; exit 1; }
out=bin/gotemplate-ref
if [ "$GO" != go ]; then
  out="bin/gotemplate-ref-$("$GO" env GOVERSION | sed 's/^\(go[0-9]*\.[0-9]*\).*/\1/')"
fi

# GOPATH mode (no modules, no network). Sprig imports "github.com/Masterminds/semver/v3" and users
# import "github.com/Masterminds/sprig/v3": Debian ships both without the /v3 suffix, so a private
# GOPATH entry maps the /v3 paths onto them with symlinks.
gp="$here/.gopath"
mkdir -p "$gp/src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/semver" "$here/bin"
ln -sfn "$src/github.com/Masterminds/sprig" "$gp/src/github.com/Masterminds/sprig/v3"
ln -sfn "$src/github.com/Masterminds/semver" "$gp/src/github.com/Masterminds/semver/v3"

cd "$here"
GOPATH="$gp:/usr/share/gocode" GO111MODULE=off GOFLAGS= GOTOOLCHAIN=local GOCACHE="${GOCACHE:-$gp/cache}" \
  "$GO" build -o "$out" .
echo "built $here/$out ($("$GO" version | cut -d' ' -f3))"
