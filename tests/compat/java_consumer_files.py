#!/usr/bin/env python3
"""Consumer files (issue 14 point 4): Fjord's ConsumerManager and Java Paimon read and write the
same `consumer/consumer-<id>` files.

On a primary-key table Fjord wrote (4 APPEND snapshots), in one JVM (`fjord-oracle batch -`):
- Java's streaming scan with a consumer id records its progress (`stream --commit-progress`, as a
  Flink checkpoint completing); Fjord reads that file, and the file Fjord writes for the same
  value is byte-identical to Java's;
- Fjord writes a consumer; Java's streaming scan with that consumer id starts from its next
  snapshot (not from its scan mode's start), then moves it on; Fjord reads Java's update;
- Fjord lists the consumers and their minimum, clears some by pattern, and Java no longer finds
  them (its scan starts by its scan mode again).

    java_consumer_files.py --fjord BUILD/tools/fjord --tool BUILD/tests/fjord_consumer_tool
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from oracle_batch import OracleBatch


class Java(OracleBatch):
    def stream(self, table, *args):
        """Runs `stream` and returns its output lines as JSON objects."""
        with open(self.call("stream", table, *args), encoding="utf-8") as f:
            return [json.loads(line) for line in f if line.strip()]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def data_plans(lines):
    """The snapshots of the plans that read rows, in order."""
    return [l["_snapshot"] for l in lines if "_plan" in l and "_splits" in l]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--tool", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-consumer-files-")
    failures = []
    java = Java(work)

    def check(what, got, want):
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {what}: got {got!r}" + ("" if ok else f", want {want!r}"))
        if not ok:
            failures.append(what)

    def tool(*a):
        return run([args.tool, *a]).strip()

    try:
        wh = os.path.join(work, "wh")
        run([args.fjord, "db", "create", wh, "db"])
        run([args.fjord, "table", "create", wh, "db.t", "--columns", "id INT NOT NULL, v STRING",
             "--primary-key", "id", "-o", "bucket=1"])
        table = os.path.join(wh, "db.db", "t")
        for s in range(1, 5):
            rows = os.path.join(work, f"rows-{s}.jsonl")
            with open(rows, "w") as f:
                f.write(json.dumps({"id": s, "v": f"v{s}"}) + "\n")
            run([args.fjord, "write", table, "--input", rows])
        cdir = os.path.join(table, "consumer")

        # Java writes, Fjord reads and writes the same bytes.
        lines = java.stream(table, "-o", "scan.snapshot-id=2", "--consumer-id", "j1",
                            "--plans", "2", "--commit-progress")
        check("java from snapshot 2 reads", data_plans(lines), [2])
        check("fjord reads java's consumer", tool("read", table, "j1"), "3")
        tool("write", table, "same", "3")
        with open(os.path.join(cdir, "consumer-j1"), "rb") as f:
            java_bytes = f.read()
        with open(os.path.join(cdir, "consumer-same"), "rb") as f:
            fjord_bytes = f.read()
        check("java's bytes", java_bytes, b'{\n  "nextSnapshot" : 3\n}')
        check("fjord writes java's bytes", fjord_bytes, java_bytes)

        # Fjord writes, Java starts there (default scan mode would read snapshot 4 in full).
        tool("write", table, "f1", "3")
        lines = java.stream(table, "--consumer-id", "f1", "--commit-progress")
        check("java starts at fjord's consumer", data_plans(lines), [3, 4])
        check("java's first plan is no full read", "_wait" in lines[0], True)
        check("fjord reads java's update of fjord's file", tool("read", table, "f1"), "5")
        # A consumer past the latest snapshot: Java waits for it.
        tool("write", table, "f2", "5")
        lines = java.stream(table, "--consumer-id", "f2")
        check("java waits at consumer 5", [(l.get("_wait"), l["_next_snapshot"]) for l in lines],
              [(True, 5), (True, 5)])

        check("fjord lists", json.loads(tool("list", table)),
              {"f1": 5, "f2": 5, "j1": 3, "same": 3})
        check("fjord's minimum", tool("min", table), "3")

        # Fjord clears f*, except f2; Java then starts by its scan mode (latest-full: snapshot 4).
        check("fjord clears", tool("clear", table, "f.*", "f2").split(), ["f1"])
        check("f1 gone", tool("read", table, "f1"), "none")
        lines = java.stream(table, "--consumer-id", "f1", "--plans", "1")
        check("java without the consumer reads the latest in full", data_plans(lines), [4])
        tool("delete", table, "same")
        check("fjord lists after clear and delete", json.loads(tool("list", table)),
              {"f2": 5, "j1": 3})
    finally:
        java.close()
    if failures:
        print(f"{len(failures)} checks failed; work directory kept: {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("all checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
