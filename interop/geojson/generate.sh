#!/usr/bin/env bash
# Regenerates tests/fixtures/geojson: the corpus (gen_corpus.py, fixed seed) and what Java Paimon
# makes of each line (the oracle built by build.sh). Needs a JDK 17 and Maven; the tests read the
# committed files.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$here/../../tests/fixtures/geojson"
jar="$("$here/build.sh")"
mkdir -p "$out"
python3 "$here/gen_corpus.py" > "$out/cases.txt"
java -jar "$jar" "$out/cases.txt" > "$out/java.txt"
echo "geojson: $(wc -l < "$out/cases.txt") cases, $(grep -c '^ERROR' "$out/java.txt") Java errors" >&2
