#!/usr/bin/env python3
"""Partition expiration against Java Paimon (issue 15 points 6 and 9).

For tables Fjord wrote, one copy is expired by Java's own PartitionExpire (the expire_partitions
procedure's setup: `fjord-oracle partition-expire` at a given "now") and another by
`fjord expire-partitions` at the same "now" with the same options. Checked per case:
- both drop exactly the same partitions, in the same order (values-time with the default
  formatter and its lenient resolution, formatters with adjacent digits, two-digit years, SMART
  day clamping, 24:00, patterns over two keys, NULL and unparseable values, INT and DATE
  partition columns, max-num, batch-size; update-time far from its boundary), also at the exact
  boundary of the expiration time;
- the snapshots they create match (count and kind), and Java reads Fjord's expired table exactly
  as it reads its own (rows of the latest snapshot) and every earlier snapshot still.
All Java calls go through one JVM (`fjord-oracle batch -`).

    java_partition_expire.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from oracle_batch import OracleBatch


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


# name, columns, partition keys, table options, rows, runs: [(now, options)]
CASES = [
    ("formatter_yyyymmdd", "dt STRING, v INT", "dt", {"partition.timestamp-formatter": "yyyyMMdd"},
     [{"dt": d, "v": i} for i, d in enumerate(
         ["20240101", "20240102", "20240103", "20240104", "2024010", "202401040", "x20240101"])],
     [("2024-01-05T00:00:00", {"partition.expiration-time": "2 d"}),         # boundary: 01-03
      ("2024-01-05T00:00:00.001", {"partition.expiration-time": "2 d"})]),
    ("default_lenient", "dt STRING, v INT", "dt", {},
     [{"dt": d, "v": i} for i, d in enumerate(
         ["2024-1-5", "2024-13-01", "2024-02-30", "2024-01-15 10:30:00", "2024-01-15 25:00:00",
          "2024-01-15 10:30", "2024-01-15 10:30:00.25", "20240115", "junk", None])],
     [("2024-01-16T00:00:00", {"partition.expiration-time": "1 d"}),
      ("2024-01-16T01:00:00", {"partition.expiration-time": "1 d"}),
      ("2025-01-03T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("smart_formatter", "dt STRING, v INT", "dt",
     {"partition.timestamp-formatter": "yyyy-MM-dd HH:mm:ss"},
     [{"dt": d, "v": i} for i, d in enumerate(
         ["2024-02-30 00:00:00", "2024-04-31 24:00:00", "2024-01-01 24:00:01",
          "2024-01-01 23:59:59", "2024-13-01 00:00:00", "12024-01-01 00:00:00",
          "2024-01-01T00:00:00"])],
     [("2024-05-01T00:00:00", {"partition.expiration-time": "1 ms"}),
      ("2024-05-01T00:00:00.002", {"partition.expiration-time": "1 ms"}),
      ("9999-01-01T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("two_digit_year_and_optional", "dt STRING, v INT", "dt",
     {"partition.timestamp-formatter": "yy-MM-dd['T'HH]"},
     [{"dt": d, "v": i} for i, d in enumerate(["24-01-01", "24-01-01T05", "99-12-31", "2024-01-01"])],
     [("2024-01-01T05:00:00", {"partition.expiration-time": "1 ms"}),
      ("2100-01-01T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("pattern_two_keys", "dt STRING, hr INT, v INT", "dt,hr",
     {"partition.timestamp-pattern": "$dt $hr:00:00",
      "partition.timestamp-formatter": "yyyy-MM-dd H:mm:ss"},
     [{"dt": "2024-01-15", "hr": h, "v": h} for h in (0, 1, 8, 9, 10, 23)]
     + [{"dt": "2024-01-14", "hr": None, "v": 99}, {"dt": None, "hr": 3, "v": 98}],
     [("2024-01-15T10:00:00", {"partition.expiration-time": "1 h"}),
      ("2024-01-16T00:00:00", {"partition.expiration-time": "1 h"})]),
    ("pattern_adjacent_digits", "y STRING, m STRING, d STRING, v INT", "y,m,d",
     {"partition.timestamp-pattern": "$y$m$d", "partition.timestamp-formatter": "yyyyMMdd"},
     [{"y": "2024", "m": m, "d": d, "v": 0} for m, d in
      [("01", "01"), ("01", "31"), ("02", "29"), ("1", "15"), ("12", "5")]],
     [("2024-03-01T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("int_and_date_columns", "dt INT, day DATE, v INT", "dt,day",
     {"partition.timestamp-formatter": "yyyyMMdd"},
     [{"dt": 20240101, "day": "2024-01-01", "v": 1}, {"dt": 20240301, "day": "2024-03-01", "v": 2},
      {"dt": 2024, "day": "2024-01-01", "v": 3}],
     [("2024-02-01T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("date_column_default_formatter", "day DATE, v INT", "day", {},
     [{"day": "2024-01-01", "v": 1}],
     [("2025-01-01T00:00:00", {"partition.expiration-time": "1 d"})]),
    ("max_num_and_batches", "dt STRING, v INT", "dt",
     {"partition.expiration-max-num": "4", "partition.expiration-batch-size": "3"},
     [{"dt": d, "v": i} for i, d in enumerate(
         ["2023-9-9", "2023-2-10", "2023-10-1", "2023-2-1", "2023-11-30", "2023-12-01",
          "2024-06-01"])],
     [("2024-01-02T00:00:00", {"partition.expiration-time": "1 d"}),
      ("2024-01-02T00:00:00", {"partition.expiration-time": "1 d",
                               "partition.expiration-max-num": "1"})]),
    ("update_time", "dt STRING, v INT", "dt", {},
     [{"dt": d, "v": i} for i, d in enumerate(["a", "b", "2024-01-01"])],
     [("2000-01-01T00:00:00", {"partition.expiration-time": "1 d",
                               "partition.expiration-strategy": "update-time"}),
      ("2999-01-01T00:00:00", {"partition.expiration-time": "1 d",
                               "partition.expiration-strategy": "update-time"})]),
]

FLAGS = {
    "partition.expiration-time": "--expiration-time",
    "partition.timestamp-formatter": "--timestamp-formatter",
    "partition.timestamp-pattern": "--timestamp-pattern",
    "partition.expiration-strategy": "--strategy",
    "partition.expiration-max-num": "--max-expires",
}


def snapshots(table):
    d = os.path.join(table, "snapshot")
    out = []
    for name in sorted(os.listdir(d)):
        if name.startswith("snapshot-"):
            with open(os.path.join(d, name)) as f:
                s = json.load(f)
            out.append((s["id"], s["commitKind"]))
    return sorted(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fjord = args.fjord
    work = tempfile.mkdtemp(prefix="fjord-partition-expire-compat-")
    failures = []
    counts = {"runs": 0, "dropped": 0}
    java = OracleBatch(work)

    def check(what, got, want):
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": got {got!r}, want {want!r}"))
        if not ok:
            failures.append(what)

    def dump(table, *extra):
        with open(java.call("dump", table, *extra), encoding="utf-8") as f:
            return sorted(l for l in f.read().splitlines() if l.strip())

    try:
        wh = os.path.join(work, "wh")
        run([fjord, "db", "create", wh, "db"])
        for name, columns, keys, options, rows, runs in CASES:
            cmd = [fjord, "table", "create", wh, "db." + name, "--columns", columns,
                   "--partition-keys", keys, "-o", "bucket=-1"]
            for k, v in options.items():
                cmd += ["-o", f"{k}={v}"]
            run(cmd)
            table = os.path.join(wh, "db.db", name)
            rows_path = os.path.join(work, name + ".jsonl")
            with open(rows_path, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in rows))
            run([fjord, "write", table, "--input", rows_path])
            key_list = keys.split(",")
            for i, (now, opts) in enumerate(runs):
                what = f"{name} run {i + 1} (now {now})"
                j_table = os.path.join(work, f"{name}-{i}-java")
                f_table = os.path.join(work, f"{name}-{i}-fjord")
                shutil.copytree(table, j_table)
                shutil.copytree(table, f_table)
                j_args = ["partition-expire", j_table, "--now", now]
                for k, v in opts.items():
                    j_args += ["-o", f"{k}={v}"]
                with open(java.call(*j_args), encoding="utf-8") as f:
                    j_dropped = [json.loads(l) for l in f if l.strip()]
                j_text = [",".join(f"{k}={p[k]}" for k in key_list) for p in j_dropped]
                f_cmd = [fjord, "expire-partitions", f_table, "--now", now]
                for k, v in opts.items():
                    f_cmd += [FLAGS[k], v]
                out = run(f_cmd).splitlines()
                f_text = [] if out == ["No expired partitions."] else out
                counts["runs"] += 1
                counts["dropped"] += len(j_text)
                if name.startswith("int_and_date") or name.startswith("date_column"):
                    # Fjord prints DATE values as dates, Java hands day numbers to its drop.
                    check(f"{what}: same number dropped ({len(j_text)})", len(f_text), len(j_text))
                else:
                    check(f"{what}: same partitions dropped {j_text}", f_text, j_text)
                check(f"{what}: same snapshots", snapshots(f_table), snapshots(j_table))
                check(f"{what}: Java reads Fjord's result as its own", dump(f_table), dump(j_table))
                first = snapshots(f_table)[0][0]
                check(f"{what}: Java still reads snapshot {first}",
                      dump(f_table, "--snapshot", str(first)), dump(table, "--snapshot", str(first)))
            # The table itself is untouched (the runs used copies): one more sanity check.
            check(f"{name}: original intact", len(snapshots(table)), 1)
    finally:
        java.close()
    print(f"{counts['runs']} expiration runs compared, {counts['dropped']} partitions dropped by "
          f"Java; {len(failures)} failures")
    if not failures:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
