#!/usr/bin/env python3
"""Java Paimon reads the tables a crash run kept (fjord_crash_test --keep-every K --keep-dir D).

    java_check_kept.py KEEP_DIR

KEEP_DIR holds run-<n>-crashed/ (the table right after an injected crash) and run-<n>-final/ (the
table after the retry), each with table/ and expected.jsonl (the rows Fjord read, which the crash
test checked against its model). All tables are dumped by `fjord-oracle batch` in one JVM and
compared with interop/compare_rows.py. Prints one line per failure and "N passed, M failed".
"""
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMPARE = os.path.join(REPO, "interop", "compare_rows.py")
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")


def main():
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    keep = sys.argv[1]
    cases = sorted(d for d in os.listdir(keep)
                   if os.path.isfile(os.path.join(keep, d, "expected.jsonl")))
    if not cases:
        print("no kept tables")
        print("0 passed, 0 failed")
        return 0
    batch = os.path.join(keep, "java-batch.txt")
    with open(batch, "w") as f:
        for d in cases:
            f.write(json.dumps(["dump", os.path.join(keep, d, "table"), "--output",
                                os.path.join(keep, d, "java.jsonl")]) + "\n")
    r = subprocess.run([ORACLE, "batch", batch], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    results = {}
    for line in r.stdout.splitlines():
        if line.startswith("{"):
            x = json.loads(line)
            results[x["line"]] = x
    passed = failed = 0
    for i, d in enumerate(cases, start=1):
        res = results.get(i)
        java = os.path.join(keep, d, "java.jsonl")
        if not res or not res["ok"]:
            msg = res["message"] if res else f"no result: {r.stderr.strip()[-300:]}"
            print(f"FAIL {d}: Java cannot read the table: {msg[:500]}")
            failed += 1
            continue
        cmp = subprocess.run([sys.executable, COMPARE, os.path.join(keep, d, "expected.jsonl"),
                              java], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if cmp.returncode != 0:
            print(f"FAIL {d}: Java's rows differ from Fjord's: {cmp.stdout.strip()[:600]}")
            failed += 1
        else:
            passed += 1
    print(f"{passed} passed, {failed} failed (Java read {len(cases)} kept tables)")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
