#!/usr/bin/env bash
# The quickstart that `make demo` runs: first the streaming job of scripts/demo_streaming.sh
# (`fjord run` with 1 s checkpoints, `fjord tail`, a SIGKILL and a restart, an exact table), then
# Fjord creates a warehouse, a table, writes and reads rows, and reads tables Java Paimon wrote.
set -euo pipefail
fjord="${FJORD:?set FJORD to the fjord binary}"
root="$(cd "$(dirname "$0")/.." && pwd)"
fixtures="$root/tests/fixtures/paimon-java"
pk="$fixtures/parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor"
evolved="$fixtures/parquet/append_table_with_alter_table.db/append_table_with_alter_table"

step() { printf '\n== %s\n' "$*"; }

step "fjord version"
"$fjord" version

"$root/scripts/demo_streaming.sh"

wh="$(mktemp -d)/warehouse"
trap 'rm -rf "$(dirname "$wh")"' EXIT
step "a warehouse, a database and a partitioned table"
"$fjord" db create "$wh" shop
"$fjord" table create "$wh" shop.orders \
  --columns "id INT NOT NULL, day DATE, customer STRING, amount DECIMAL(10, 2)" \
  --partition-keys day -o bucket=2 -o bucket-key=id
cat > "$(dirname "$wh")/orders.jsonl" <<'ROWS'
{"id": 1, "day": "2026-11-28", "customer": "Ada", "amount": "12.50"}
{"id": 2, "day": "2026-11-28", "customer": "Grace", "amount": "7.25"}
{"id": 3, "day": "2026-11-29", "customer": "Linus", "amount": "99.99"}
ROWS
step "write rows (one commit)"
"$fjord" write "$wh/shop.db/orders" --input "$(dirname "$wh")/orders.jsonl"
step "read them back"
"$fjord" cat "$wh/shop.db/orders" --format table
"$fjord" files "$wh/shop.db/orders"
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
