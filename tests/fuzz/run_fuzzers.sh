#!/usr/bin/env bash
# Builds the libFuzzer targets with clang and runs each for a bounded time.
#   run_fuzzers.sh SECONDS [TARGET...]     (make test uses 20 s each; `make fuzz` longer)
# Seeds come from the fixtures: Avro manifests for avro_fuzz, schema/snapshot files for
# json_fuzz, BinaryRow bytes cut from manifests for binary_row_fuzz, ORC data files and ORC
# manifests for orc_tail_fuzz (their tails and stripe statistics), the ORC specification's RLE
# examples for orc_stream_fuzz, small CSV files and JSON lines of every type (good and bad
# values) for csv_fuzz and jsonl_fuzz.
# Crashes are written to build/fuzz/artifacts/ and fail the run.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
seconds="${1:-20}"
shift || true
targets=("$@")
((${#targets[@]})) || targets=(binary_row_fuzz avro_fuzz json_fuzz orc_tail_fuzz orc_stream_fuzz csv_fuzz jsonl_fuzz)
build="$root/build/fuzz"
fixtures="$root/tests/fixtures/paimon-java"

cmake -S "$here" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_COMPILER=clang-14 -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build "$build" -j "$(nproc)" >"$build/build.log" 2>&1 || { tail -30 "$build/build.log"; exit 1; }

seeds="$build/seeds"
rm -rf "$seeds"
mkdir -p "$seeds"/{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz,orc_stream_fuzz,csv_fuzz,jsonl_fuzz} \
  "$build/artifacts" \
  "$build"/corpus-{avro_fuzz,json_fuzz,binary_row_fuzz,orc_tail_fuzz,orc_stream_fuzz,csv_fuzz,jsonl_fuzz}
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

# CSV seeds (the first byte picks the null literal) and JSON-lines seeds.
c="$seeds/csv_fuzz"
printf '\x00id,b,i,dec,bigdec,s,dt,ts,ltz,bin\n1,true,-7,1.005,12345678901234567890.1234567891,"a,""b""\nc",2024-02-29,2026-01-01 12:00:00.123,2026-01-01T00:00:00Z,AAEC\n2,,,,,"",,,,\n' > "$c/scalars"
printf '\x01id,arr,m,r,ms,_row_kind\r\n1,"[1,null]","[[""k"",1]]","{""x"":1,""y"":""z""}","[""a""]",+I\r\n2,\\N,\\N,\\N,\\N,-D\r\n' > "$c/nested"
printf '\x00id,i,dt,tm\n1,3000000000,2026-02-30,25:00\n' > "$c/bad"
j="$seeds/jsonl_fuzz"
printf '{"id":1,"b":true,"ti":-128,"i":7,"bi":9223372036854775807,"f":1.5,"d":"NaN","dec":1.005,"bigdec":12345678901234567890.1234567891,"s":"007"}' > "$j/scalars"
printf '{"id":1,"bin":"AAEC","dt":"2024-02-29","tm":"12:00:00.123","ts":"2026-01-01T00:00:00","ts9":"2262-04-11T23:47:16.854775807","ltz":"1970-01-01T00:00:00Z"}' > "$j/times"
printf '{"id":1,"arr":[1,null],"m":[["k",1]],"r":{"x":1,"y":"z"},"ms":["a","a"],"_row_kind":"-U"}' > "$j/nested"
printf '2026-02-30' > "$j/date"

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
