#!/usr/bin/env bash
# Dumps every snapshot and tag of every Paimon table under a fixtures root with the Java oracle,
# in one JVM:
#   dump_all.sh OUTDIR [FIXTURES_ROOT]
# FIXTURES_ROOT defaults to tests/fixtures/paimon-java (the repository's Java-written fixtures).
# Writes OUTDIR/<relative-table-path>/snapshot-N.jsonl and tag-NAME.jsonl; a target Java cannot
# read gets a .error file (the exception message) instead, and OUTDIR/SUMMARY.tsv lists everything.
# Exit status: 0 all dumped; 3 finished but some targets unreadable (see SUMMARY.tsv); other = failure.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ $# -lt 1 || $# -gt 2 ]]; then
    echo "usage: dump_all.sh OUTDIR [FIXTURES_ROOT]" >&2
    exit 2
fi
out="$1"
repo_root="$(cd "$here/../.." && pwd)"
root="${2:-$repo_root/tests/fixtures/paimon-java}"

"$here/build.sh" >/dev/null
start=$EPOCHREALTIME
rc=0
"$here/fjord-oracle" dump-all "$root" "$out" || rc=$?
end=$EPOCHREALTIME
awk -v s="$start" -v e="$end" -v rc="$rc" \
    'BEGIN { printf "dump_all.sh: wall time %.1f s (exit %d)\n", e - s, rc }' >&2
exit "$rc"
