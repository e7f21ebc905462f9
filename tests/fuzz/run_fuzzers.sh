#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time.
#   run_fuzzers.sh SECONDS [TARGET...]     (make test uses 20 s each; `make fuzz` longer)
# Seeds come from the fixtures: Avro manifests for avro_fuzz, schema/snapshot files for
# json_fuzz, BinaryRow bytes cut from manifests for binary_row_fuzz, ORC data files and ORC
# manifests for orc_tail_fuzz, the ORC specification's RLE examples for orc_stream_fuzz.
# Crashes are written to build/fuzz/artifacts/ and fail the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(binary_row_fuzz avro_fuzz json_fuzz orc_tail_fuzz orc_stream_fuzz)
build="$root/build/fuzz"
fixtures="$root/tests/fixtures/paimon-java"

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz,orc_stream_fuzz} \
  "$build/artifacts" "$build"/corpus-{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz,orc_stream_fuzz}
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
# ORC stream seeds: mode byte, value count (little-endian), stream (spec examples).
o="$seeds/orc_stream_fuzz"
printf '\x00\x66\x00\x61\x00\xfe\x44\x45' > "$o/byte_rle"
printf '\x01\x04\x00\xfe\xff\x80' > "$o/bool_rle"
printf '\x02\x64\x00\x61\xff\x64' > "$o/int_v1_run"
printf '\x03\x05\x00\xfb\x02\x03\x04\x07\x0b' > "$o/int_v1_literals"
printf '\x04\x05\x00\x0a\x27\x10' > "$o/int_v2_short_repeat"
printf '\x04\x04\x00\x5e\x03\x5c\xa1\xab\x1e\xde\xad\xbe\xef' > "$o/int_v2_direct"
printf '\x04\x14\x00\x8e\x13\x2b\x21\x07\xd0\x1e\x00\x14\x70\x28\x32\x3c\x46\x50\x5a\x64\x6e\x78\x82\x8c\x96\xa0\xaa\xb4\xbe\xfc\xe8' > "$o/int_v2_patched"
printf '\x04\x0a\x00\xc6\x09\x02\x02\x22\x42\x42\x46' > "$o/int_v2_delta"
printf '\x06\x05\x00\x07\x00\x00abc' > "$o/chunk_original"
printf '\x07\x06\x00\x02\x04\x06\x0a\x04\x08\x01\x10\x01' > "$o/stripe"

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
