#!/usr/bin/env bash
# Runs a command against a loopback S3 server (moto, from .deps/venv): starts it on a free port of
# 127.0.0.1, exports FJORD_TEST_S3_ENDPOINT and AWS credentials, runs "$@", stops the server.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
moto="$root/.deps/venv/bin/moto_server"
[[ -x "$moto" ]] || { echo "with_moto.sh: $moto missing; run scripts/bootstrap.sh" >&2; exit 1; }
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$(mktemp)"
"$moto" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
export FJORD_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
"$@"
