#!/usr/bin/env bash
# Long crash-injection soak (docs/testing.md, "Crash and soak tests"): the in-process crash test
# (tests/crash/crash_test.cc) with a crash at every operation of its fixed scenarios, then RUNS
# randomised runs (random table, data, history, crash point), keeping every JAVA_EVERY-th run's
# crashed and final tables for Java Paimon to read (tests/crash/java_check_kept.py).
#
#   scripts/soak_crash.sh [RUNS [SEED]]
#   RUNS=20000 SEED=7 JAVA_EVERY=100 JOBS=2 BUILD_DIR=build/relwithdebinfo scripts/soak_crash.sh
#
# Defaults: RUNS 5000, SEED from the clock (printed), JAVA_EVERY 100, JOBS = nproc. A failing run
# prints `--replay SPEC` (fjord_crash_test --replay SPEC reruns it alone) and keeps its table.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
RUNS="${1:-${RUNS:-5000}}"
SEED="${2:-${SEED:-$(date +%s)}}"
JAVA_EVERY="${JAVA_EVERY:-100}"
BUILD_DIR="${BUILD_DIR:-build/relwithdebinfo}"
JOBS="${JOBS:-$(nproc)}"

cmake --build "$BUILD_DIR" --target fjord_crash_test >/dev/null
keep="$(mktemp -d "${TMPDIR:-/tmp}/fjord-soak-crash-XXXXXX")"
trap 'rm -rf "$keep"' EXIT

echo "soak_crash: $RUNS random runs after the enumerated ones, seed $SEED, Java every $JAVA_EVERY"
start=$(date +%s)
status=0
ARROW_DEFAULT_MEMORY_POOL=system "$BUILD_DIR/tests/crash/fjord_crash_test" --enumerate --all-points \
  --runs "$RUNS" --seed "$SEED" --jobs "$JOBS" --keep-every "$JAVA_EVERY" --keep-dir "$keep" || status=$?
mid=$(date +%s)
echo "soak_crash: in-process runs took $((mid - start)) s"
if [ "$JAVA_EVERY" -gt 0 ]; then
  python3 tests/crash/java_check_kept.py "$keep" || status=1
  echo "soak_crash: Java check took $(($(date +%s) - mid)) s"
fi
if [ "$status" -ne 0 ]; then
  echo "soak_crash: FAILED (seed $SEED)"
  exit 1
fi
echo "soak_crash: ok (seed $SEED)"
