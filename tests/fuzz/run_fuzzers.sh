#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time.
#   run_fuzzers.sh SECONDS [TARGET...]     (make test uses 20 s each; `make fuzz` longer)
# Seeds come from the fixtures: Avro manifests for avro_fuzz, schema/snapshot files for
# json_fuzz, BinaryRow bytes cut from manifests for binary_row_fuzz, ORC data files and ORC
# manifests for orc_tail_fuzz. Crashes are written to build/fuzz/artifacts/ and fail the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(binary_row_fuzz avro_fuzz json_fuzz orc_tail_fuzz)
build="$root/build/fuzz"
fixtures="$root/../shared/fixtures/paimon-java"

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz} "$build/artifacts" \
  "$build"/corpus-{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz}
i=0
while IFS= read -r f; do
  if [[ "$(head -c 4 "$f")" == $'Obj\x01' ]]; then cp "$f" "$seeds/avro_fuzz/$((i++))"; fi
done < <(find "$fixtures" -path '*manifest*' -type f | sort)
find "$fixtures/avro/data" -type f -exec cp {} "$seeds/avro_fuzz/" \;
# ORC seeds: data files and ORC manifests, recognised by the "ORC" magic at the start.
while IFS= read -r f; do
  if [[ "$(head -c 3 "$f" | tr -d '\0')" == "ORC" ]]; then cp "$f" "$seeds/orc_tail_fuzz/$((i++))"; fi
done < <(find "$fixtures" -type f | sort)
while IFS= read -r f; do cp "$f" "$seeds/json_fuzz/$((i++))"; done \
  < <(find "$fixtures" \( -name 'schema-*' -o -name 'snapshot-*' -o -name 'tag-*' \) -type f | sort)
# BinaryRow seeds: short byte strings of the layouts the decoder sees.
printf '\x00\x00\x00\x00\x00\x00\x00\x00' > "$seeds/binary_row_fuzz/empty"
head -c 64 /dev/urandom > "$seeds/binary_row_fuzz/random"

status=0
for t in "${targets[@]}"; do
  echo "== $t for ${seconds}s"
  if ! "$build/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 \
      -artifact_prefix="$build/artifacts/$t-" "$build/corpus-$t" "$seeds/$t" \
      >"$build/$t.log" 2>&1; then
    echo "FAILED: $t (see $build/$t.log)"
    tail -40 "$build/$t.log"
    status=1
  else
    grep -E '^#[0-9]+.*(DONE|pulse)' "$build/$t.log" | tail -1 || true
  fi
done
exit $status
