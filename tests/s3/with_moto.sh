#!/usr/bin/env bash
# Runs a command against a loopback S3 server (moto, from .deps/venv, through moto_server.py): starts
# it on a free port of 127.0.0.1, exports FJORD_TEST_S3_ENDPOINT and AWS credentials, runs "$@",
# stops the server.
#
# FJORD_TEST_S3_AUTH=1: the server checks every request's Signature Version 4 and permissions,
# against an IAM user made for the run whose keys go to FJORD_TEST_S3_ACCESS_KEY and
# FJORD_TEST_S3_SECRET_KEY (and FJORD_TEST_S3_AUTH stays exported for the tests).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="$root/.deps/venv/bin/python"
[[ -x "$root/.deps/venv/bin/moto_server" ]] || { echo "with_moto.sh: moto missing in $root/.deps/venv; run scripts/bootstrap.sh" >&2; exit 1; }
port="$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
log="$(mktemp)"
"$python" "$here/moto_server.py" -H 127.0.0.1 -p "$port" >"$log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true; rm -f "$log"' EXIT
up=0
for _ in $(seq 1 100); do
  if python3 -c "import socket,sys; socket.create_connection(('127.0.0.1', $port), 0.2)" 2>/dev/null; then
    up=1
    break
  fi
  sleep 0.1
done
if [[ $up != 1 ]]; then
  echo "with_moto.sh: the S3 server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
export FJORD_TEST_S3_ENDPOINT="http://127.0.0.1:$port"
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_REGION=us-east-1
export AWS_EC2_METADATA_DISABLED=true
if [[ "${FJORD_TEST_S3_AUTH:-0}" == 1 ]]; then
  keys="$("$python" "$here/moto_auth.py" "$FJORD_TEST_S3_ENDPOINT")"
  read -r FJORD_TEST_S3_ACCESS_KEY FJORD_TEST_S3_SECRET_KEY <<<"$keys"
  export FJORD_TEST_S3_AUTH FJORD_TEST_S3_ACCESS_KEY FJORD_TEST_S3_SECRET_KEY
fi
"$@"
