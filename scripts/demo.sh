#!/usr/bin/env bash
# The quickstart that `make demo` runs: Fjord reading tables that Java Paimon wrote.
# (Writing arrives with the write path; then the demo creates its own warehouse.)
set -euo pipefail
fjord="${FJORD:?set FJORD to the fjord binary}"
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/../shared/fixtures/paimon-java"
pk="$fixtures/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"
evolved="$fixtures/parquet/append_table_with_alter_table.db/append_table_with_alter_table"

step() { printf '\n== %s\n' "$*"; }

step "fjord version"
"$fjord" version
step "snapshots of a primary-key table written by Java Paimon"
"$fjord" snapshots "$pk"
step "its latest rows (merge-on-read over the live files)"
"$fjord" cat "$pk" --format table
step "the same table at snapshot 1 (time travel)"
"$fjord" cat "$pk" --snapshot 1 --format table
step "a filtered read: partition, bucket and statistics pruning, then an exact filter"
"$fjord" cat "$pk" --where "f1 = 10 AND f3 > 12" --format table
step "live data files"
"$fjord" files "$pk"
step "a table whose schema evolved: snapshot 1 in its old schema, the latest in the new one"
"$fjord" cat "$evolved" --snapshot 1 --format table
"$fjord" cat "$evolved" --format table
step "canonical JSON lines"
"$fjord" cat "$pk" --columns f0,f1,f3 | head -3
