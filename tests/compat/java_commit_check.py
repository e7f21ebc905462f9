#!/usr/bin/env python3
"""Java Paimon reads a table that Fjord created, wrote and committed (tests/commit_test.cc),
at every snapshot, exactly as Fjord reads it.

    java_commit_check.py --fjord BUILD/tools/fjord --commit-test BUILD/tests/fjord_commit_test
"""
import argparse
import os
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--commit-test", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-commit-")
    warehouse = os.path.join(work, "wh")
    env = dict(os.environ, FJORD_TEST_WAREHOUSE=warehouse)
    rc = subprocess.run([args.commit_test, "--gtest_filter=CommitTest.*"], env=env,
                        stdout=subprocess.DEVNULL).returncode
    if rc != 0:
        print("fjord_commit_test failed")
        print("0 passed, 1 failed")
        return 1
    table = os.path.join(warehouse, "db.db", "events")
    passed = failed = 0
    for snapshot in ("1", "2"):
        java = os.path.join(work, f"java-{snapshot}.jsonl")
        mine = os.path.join(work, f"fjord-{snapshot}.jsonl")
        with open(java, "w") as out:
            jp = subprocess.run([os.path.join(REPO, "interop", "java", "fjord-oracle"), "dump", table,
                                 "--snapshot", snapshot], stdout=out, stderr=subprocess.PIPE, text=True)
        with open(mine, "w") as out:
            fp = subprocess.run([args.fjord, "cat", table, "--snapshot", snapshot], stdout=out,
                                stderr=subprocess.PIPE, text=True)
        ok = jp.returncode == 0 and fp.returncode == 0
        if ok:
            cmp = subprocess.run([sys.executable, os.path.join(REPO, "interop", "compare_rows.py"),
                                  java, mine], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
            ok = cmp.returncode == 0
            detail = cmp.stdout.strip()
        else:
            detail = f"java: {jp.stderr.strip()[:400]} fjord: {fp.stderr.strip()[:400]}"
        rows = sum(1 for _ in open(java)) if os.path.exists(java) else 0
        print(f"snapshot {snapshot}: {'ok' if ok else 'FAIL'} ({rows} rows read by Java) {'' if ok else detail}")
        passed += ok
        failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
