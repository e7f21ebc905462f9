#!/usr/bin/env python3
"""Tables created and written by the `fjord` CLI are read by Java Paimon exactly as Fjord reads
them: append tables, partitioned or not (with partition values that need escaping and a NULL
partition), fixed buckets or bucket-unaware, Parquet / ORC / Avro data files, many column types,
several commits, and an idempotent retry of a commit.

    java_write_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))

COLUMNS = ("id INT NOT NULL, name STRING, p STRING, amount DECIMAL(10, 2), big DECIMAL(30, 5), "
           "f FLOAT, d DOUBLE, b BOOLEAN, day DATE, ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), "
           "ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, bin BYTES, tags ARRAY<STRING>, "
           "attrs MAP<STRING, INT>, point ROW<x DOUBLE, y DOUBLE>")

PARTITION_VALUES = ["a", "b/c", "x=y:z", "", None, "ünï"]


def rows(first, count, fmt):
    out = []
    for i in range(first, first + count):
        out.append({
            "id": i,
            "name": None if i % 7 == 0 else f"name-{i}-ü",
            "p": PARTITION_VALUES[i % len(PARTITION_VALUES)],
            "amount": f"{i * 3}.{i % 100:02d}",
            "big": f"-{i}1234567890123.12345",
            "f": i / 4,
            "d": None if i % 5 == 0 else i * 1.25,
            "b": i % 2 == 0,
            "day": f"2024-0{1 + i % 9}-1{i % 10}",
            "ts3": f"2024-03-01T10:{i % 60:02d}:05.123",
            "ts6": f"1969-12-31T23:59:{i % 59:02d}.123456",
            "ltz": f"2024-06-01T00:00:{i % 60:02d}.500Z",
            "bin": "AAEC/w==",
            "tags": ["x", "", None] if i % 3 else [],
            "attrs": [["k", i], ["n", None]],
            "point": {"x": i * 0.5, "y": None},
        })
    return out


def normalize_maps(path):
    """MAP entries have no order (Java's Avro reader yields hash order): sort them by key."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as f:
        for row in lines:
            if isinstance(row.get("attrs"), list):
                row["attrs"] = sorted(row["attrs"], key=lambda kv: json.dumps(kv))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-write-")
    wh = os.path.join(work, "wh")
    fj = args.fjord
    assert run([fj, "db", "create", wh, "w"]).returncode == 0
    cases = []
    for fmt in ("parquet", "orc", "avro"):
        for layout, opts, parts in (
            ("plain", [], None),
            ("partitioned", [], "p"),
            ("bucketed", ["-o", "bucket=3", "-o", "bucket-key=id"], "p"),
        ):
            name = f"t_{fmt}_{layout}"
            cmd = [fj, "table", "create", wh, f"w.{name}", "--columns", COLUMNS,
                   "-o", f"file.format={fmt}"] + opts
            if parts:
                cmd += ["--partition-keys", parts]
            r = run(cmd)
            if r.returncode != 0:
                print(f"create {name}: {r.stderr.strip()}")
                print("0 passed, 1 failed")
                return 1
            cases.append(name)
    passed = failed = 0
    for name in cases:
        table = os.path.join(wh, "w.db", name)
        ok, detail = True, ""
        for commit, (first, count) in enumerate(((0, 13), (13, 11), (24, 6)), start=1):
            data = os.path.join(work, f"{name}-{commit}.jsonl")
            with open(data, "w", encoding="utf-8") as f:
                for row in rows(first, count, name.split("_")[1]):
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
            for attempt in range(2 if commit == 2 else 1):  # commit 2 is retried: no duplicates
                r = run([fj, "write", table, "--input", data, "--commit-user", "compat",
                         "--commit-id", str(commit)])
                if r.returncode != 0:
                    ok, detail = False, f"write {commit}: {r.stderr.strip()[:300]}"
        if ok:
            for snapshot in ("1", "2", "3"):
                java = os.path.join(work, f"{name}-{snapshot}.java.jsonl")
                mine = os.path.join(work, f"{name}-{snapshot}.fjord.jsonl")
                with open(java, "w") as out:
                    jp = subprocess.run([os.path.join(REPO, "interop", "java", "fjord-oracle"), "dump",
                                         table, "--snapshot", snapshot], stdout=out,
                                        stderr=subprocess.PIPE, text=True)
                with open(mine, "w") as out:
                    fp = subprocess.run([fj, "cat", table, "--snapshot", snapshot], stdout=out,
                                        stderr=subprocess.PIPE, text=True)
                if jp.returncode or fp.returncode:
                    ok, detail = False, f"snapshot {snapshot}: java {jp.stderr.strip()[:300]} fjord {fp.stderr.strip()[:200]}"
                    break
                normalize_maps(java)
                normalize_maps(mine)
                cmp = run([sys.executable, os.path.join(REPO, "interop", "compare_rows.py"), java, mine])
                if cmp.returncode:
                    ok, detail = False, f"snapshot {snapshot}: {cmp.stdout.strip()[:600]}"
                    break
                expected = {"1": 13, "2": 24, "3": 30}[snapshot]
                got = sum(1 for _ in open(java))
                if got != expected:
                    ok, detail = False, f"snapshot {snapshot}: Java read {got} rows, expected {expected}"
                    break
        print(f"{name:28s} {'ok' if ok else 'FAIL ' + detail}")
        passed += ok
        failed += not ok
    # Bad input: a NULL in a NOT NULL column is a clear error and commits nothing.
    table = os.path.join(wh, "w.db", cases[0])
    bad = os.path.join(work, "bad.jsonl")
    with open(bad, "w", encoding="utf-8") as f:
        f.write(json.dumps(rows(100, 1, "parquet")[0]) + "\n")
        f.write(json.dumps({**rows(101, 1, "parquet")[0], "id": None}) + "\n")
    before = sorted(os.listdir(os.path.join(table, "snapshot")))
    r = run([fj, "write", table, "--input", bad])
    after = sorted(os.listdir(os.path.join(table, "snapshot")))
    ok = r.returncode == 1 and "'id' is NOT NULL" in r.stderr and before == after
    print(f"{'null into NOT NULL':28s} {'ok' if ok else 'FAIL ' + r.stderr.strip()[:300]}")
    passed += ok
    failed += not ok
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
