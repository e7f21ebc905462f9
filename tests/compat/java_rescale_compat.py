#!/usr/bin/env python3
"""Bucket rescale against Java Paimon 1.4 (issue 15 points 7 and 9), one JVM for the suite:

- Fjord rescales a primary-key and an append table (one partition, then the whole table with
  another count): Java reads the same rows as before, and every row lives in the bucket Java's own
  writer computes for it under its partition's bucket count (`bucket-check`);
- a Java writer that still uses the old count (`bucket` as a dynamic option) is refused on a
  partition Fjord rescaled, and a Java writer with the new count on a partition Fjord did not
  rescale yet, both with Java's "previous bucket num" error;
- Java rescales a table (ALTER TABLE SET 'bucket', then INSERT OVERWRITE of a partition, as its
  docs say): Fjord reads the same rows, and Fjord's writer is refused on the partition Java left
  at the old count and accepted on the rescaled one.

    java_rescale_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from oracle_batch import OracleBatch


def run(cmd, ok=True):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if ok and p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p


def canon(lines):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in lines if l.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fj = args.fjord
    work = tempfile.mkdtemp(prefix="fjord-java-rescale-")
    failures = []
    checks = [0]
    java = OracleBatch(work)

    def check(what, cond, detail=""):
        checks[0] += 1
        print(f"{'ok  ' if cond else 'FAIL'} {what}" + ("" if cond else f": {detail}"))
        if not cond:
            failures.append(what)

    def java_rows(table):
        with open(java.call("dump", table), encoding="utf-8") as f:
            return canon(f)

    def fjord_rows(table):
        return canon(run([fj, "cat", table, "--format", "jsonl"]).stdout.splitlines())

    def bucket_check(table):
        """Checks each row's bucket; returns dt -> the set of total bucket counts of its rows."""
        with open(java.call("bucket-check", table), encoding="utf-8") as f:
            lines = [json.loads(l) for l in f if l.strip()]
        wrong = [l for l in lines if l["bucket"] != l["expected"]]
        totals = {}
        for l in lines:
            totals.setdefault(l["row"]["dt"], set()).add(l["total"])
        return len(lines), wrong, totals

    def write_rows(path, rows):
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")

    def java_fails(what, expected, *cmd):
        try:
            java.call(*cmd)
            check(what, False, "Java accepted it")
        except RuntimeError as e:
            check(what, expected in str(e), str(e)[-400:])

    try:
        wh = os.path.join(work, "wh")
        run([fj, "db", "create", wh, "db"])
        for name, pk in (("pk", True), ("append", False)):
            table = os.path.join(wh, "db.db", name)
            create = [fj, "table", "create", wh, f"db.{name}", "--columns",
                      "dt STRING NOT NULL, id INT NOT NULL, v BIGINT", "--partition-keys", "dt",
                      "-o", "bucket=2"]
            create += ["--primary-key", "dt,id"] if pk else ["-o", "bucket-key=id"]
            run(create)
            for c in range(3):
                rows = os.path.join(work, f"{name}-{c}.jsonl")
                write_rows(rows, [{"dt": dt, "id": i, "v": i * 10 + c}
                                  for dt in ("d1", "d2") for i in range(c * 40, c * 40 + 100)])
                run([fj, "write", table, "--input", rows])
            before = java_rows(table)
            check(f"{name}: Java and Fjord read the same rows before", before == fjord_rows(table))

            run([fj, "rescale", table, "--buckets", "3", "--partition", "dt=d1"])
            check(f"{name}: Java reads the rows after rescaling dt=d1", java_rows(table) == before)
            n, wrong, totals = bucket_check(table)
            check(f"{name}: every row in Java's bucket ({n} rows)", n == len(before) and not wrong,
                  f"{len(wrong)} misplaced, e.g. {wrong[:2]}")
            check(f"{name}: dt=d1 has 3 buckets, dt=d2 still 2", totals == {"d1": {3}, "d2": {2}},
                  totals)
            probe = os.path.join(work, f"{name}-probe.jsonl")
            write_rows(probe, [{"dt": "d1", "id": i, "v": 7} for i in range(30)])
            java_fails(f"{name}: Java writer with the old count refused on dt=d1",
                       "with a new bucket num 2, but the previous bucket num is 3",
                       "write-bucket", table, "--input", probe, "--bucket", "2")
            write_rows(probe, [{"dt": "d2", "id": i, "v": 7} for i in range(30)])
            java_fails(f"{name}: Java writer with the new count refused on dt=d2",
                       "with a new bucket num 3, but the previous bucket num is 2",
                       "write-bucket", table, "--input", probe, "--bucket", "3")
            check(f"{name}: nothing written by the refused writers", java_rows(table) == before)

            run([fj, "rescale", table, "--buckets", "5"])
            check(f"{name}: Java reads the rows after rescaling the table to 5",
                  java_rows(table) == before)
            n, wrong, totals = bucket_check(table)
            check(f"{name}: every row in Java's bucket at 5 ({n} rows)",
                  n == len(before) and not wrong and totals == {"d1": {5}, "d2": {5}},
                  f"{len(wrong)} misplaced, totals {totals}")
            write_rows(probe, [{"dt": "d2", "id": i, "v": 8} for i in range(30)])
            java.call("write-bucket", table, "--input", probe, "--bucket", "5")
            check(f"{name}: Java writes with the new count afterwards; both read it alike",
                  java_rows(table) == fjord_rows(table))

            # Java rescales (ALTER + INSERT OVERWRITE of dt=d1); Fjord reads it and writes on.
            jt = os.path.join(wh, "db.db", f"{name}_java")
            create[4] = f"db.{name}_java"
            run(create)
            for c in range(2):
                rows = os.path.join(work, f"{name}-j{c}.jsonl")
                write_rows(rows, [{"dt": dt, "id": i, "v": i + c}
                                  for dt in ("d1", "d2") for i in range(c * 50, c * 50 + 120)])
                run([fj, "write", jt, "--input", rows])
            before = fjord_rows(jt)
            java.call("rescale", jt, "--buckets", "4", "--partition", "dt=d1")
            check(f"{name}: Fjord reads the table Java rescaled", fjord_rows(jt) == before)
            n, wrong, totals = bucket_check(jt)
            check(f"{name}: Java's rescale put dt=d1 in 4 buckets", totals == {"d1": {4}, "d2": {2}},
                  totals)
            files = run([fj, "files", jt, "--partition", "dt=d1"]).stdout
            check(f"{name}: Fjord lists buckets of 4 in dt=d1",
                  any(l.split()[1] == "3" for l in files.splitlines()[1:]), files[:400])
            write_rows(probe, [{"dt": "d2", "id": i, "v": 9} for i in range(30)])
            p = run([fj, "write", jt, "--input", probe], ok=False)
            check(f"{name}: Fjord's writer refused on dt=d2 (still 2 buckets)",
                  p.returncode != 0 and "but the previous bucket num is 2" in p.stderr,
                  p.stderr[-400:])
            write_rows(probe, [{"dt": "d1", "id": i, "v": 9} for i in range(30)])
            run([fj, "write", jt, "--input", probe])
            check(f"{name}: Fjord writes dt=d1 after Java's rescale; Java reads it alike",
                  java_rows(jt) == fjord_rows(jt))
    finally:
        java.close()
    print(f"{checks[0] - len(failures)}/{checks[0]} checks passed")
    if failures:
        print(f"kept {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
