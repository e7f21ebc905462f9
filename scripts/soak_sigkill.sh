#!/usr/bin/env bash
# Long SIGKILL soak (docs/testing.md, "Crash and soak tests"): real `fjord write` / `fjord commit`
# processes killed at random moments and retried until they finish, IDS commit identifiers per
# table (append ORC, primary-key Parquet, append Avro), then the final rows checked against the
# model with Fjord and Java Paimon (tests/crash/sigkill_soak.py).
#
#   scripts/soak_sigkill.sh [IDS [SEED]]
#   IDS=1000 SEED=7 BUILD_DIR=build/relwithdebinfo scripts/soak_sigkill.sh
#
# Defaults: IDS 300, SEED from the clock (printed). JAVA=0 skips the Java read.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
IDS="${1:-${IDS:-300}}"
SEED="${2:-${SEED:-$(date +%s)}}"
BUILD_DIR="${BUILD_DIR:-build/relwithdebinfo}"
JAVA="${JAVA:-1}"

cmake --build "$BUILD_DIR" --target fjord >/dev/null
args=(--fjord "$BUILD_DIR/tools/fjord" --ids "$IDS" --seed "$SEED")
[ "$JAVA" = 1 ] && args+=(--java)
echo "soak_sigkill: $IDS identifiers per table, seed $SEED"
start=$(date +%s)
if python3 tests/crash/sigkill_soak.py "${args[@]}"; then
  echo "soak_sigkill: ok in $(($(date +%s) - start)) s (seed $SEED)"
else
  echo "soak_sigkill: FAILED (seed $SEED)"
  exit 1
fi
