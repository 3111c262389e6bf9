#!/usr/bin/env bash
# `npm start` as a developer runs it: installs nothing, builds, migrates, starts the whole stack;
# passes once the gateway answers an authenticated request, then stops the stack (Ctrl-C's way).
# Used by CI on the machine's Node; bounded in time.
set -euo pipefail
cd "$(dirname "$0")/.."

readonly TIMEOUT=${START_CHECK_TIMEOUT:-300}
readonly GATEWAY=http://127.0.0.1:3000
log=$(mktemp "${TMPDIR:-/tmp}/petstore-start-check.XXXXXX")

setsid npm start >"$log" 2>&1 &
pid=$!
stop() {
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL -- "-$pid" 2>/dev/null || true
}
trap stop EXIT

deadline=$((SECONDS + TIMEOUT))
until curl -fsS -H 'Authorization: Bearer dev-key-0123456789' "$GATEWAY/v1/pets?limit=1" >/dev/null 2>&1; do
  if ! kill -0 "$pid" 2>/dev/null || ((SECONDS >= deadline)); then
    echo "npm start did not serve $GATEWAY/v1/pets within $TIMEOUT s on Node $(node --version); its output:" >&2
    tail -n 60 "$log" >&2
    exit 1
  fi
  sleep 1
done
echo "npm start served $GATEWAY/v1/pets on Node $(node --version) after $SECONDS s"
rm -f "$log"
