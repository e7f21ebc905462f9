#!/usr/bin/env python3
"""Streaming reads against Java Paimon (issue 14 point 6a): for tables Fjord writes with each
changelog producer (none, input, full-compaction) and an append table, with COMPACT and OVERWRITE
snapshots among the APPEND ones, Java's `StreamTableScan` (`fjord-oracle stream`, one JVM for all)
and `fjord tail --markers` plan the same snapshots in the same order for every scan mode checked,
and hand out for each snapshot the same changes: the same multiset of rows with their kinds and
the same order per primary key. Incremental queries in changelog mode between snapshot ids:
`fjord cat -o incremental-between=A,B` returns Java's rows (multiset); diffs of tags and
snapshots, tag-to-snapshot ranges and incremental-to-auto-tag return the rows of Java's audit_log
table read with the same options (multiset).

    java_stream_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import collections
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

from oracle_batch import OracleBatch


class Java(OracleBatch):
    """The Java oracle's stream scans and incremental reads."""

    def stream(self, table, options):
        cmd = ["stream", table]
        for k, v in options.items():
            cmd += ["-o", f"{k}={v}"]
        out = self.call(*cmd, "--plans", "100", "--waits", "2")
        plans, current = [], None
        with open(out, encoding="utf-8") as f:
            for line in f:
                if not line.strip():
                    continue
                row = json.loads(line)
                if "_plan" in row:
                    current = None
                    if "_splits" in row:
                        current = (row["_snapshot"], [])
                        plans.append(current)
                    continue
                current[1].append(line.strip())
        return [(s, rows) for s, rows in plans if rows]

    def changes(self, table, between):
        """Java's incremental read in changelog mode: the rows, with _row_kind first."""
        with open(self.call("changes", table, "--between", between), encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip()]

    def audit_changes(self, table, options):
        """Java's incremental read with `options` through the audit_log table (deletes kept)."""
        out = self.call("changes", table, "--options", json.dumps(options), "--audit-log", "true")
        with open(out, encoding="utf-8") as f:
            return [line.strip() for line in f if line.strip()]

    def tag(self, table, name, snapshot):
        self.call("tag", table, "--name", name, "--snapshot", str(snapshot))


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def fjord_tail(fjord, table, options):
    cmd = [fjord, "tail", table, "--markers"]
    for k, v in options.items():
        cmd += ["-o", f"{k}={v}"]
    plans = []
    for line in run(cmd).splitlines():
        row = json.loads(line)
        if "_snapshot" in row:
            plans.append((row["_snapshot"], []))
        else:
            plans[-1][1].append(line)
    return [(s, rows) for s, rows in plans if rows]


def per_key(rows):
    out = collections.defaultdict(list)
    for line in rows:
        row = json.loads(line)
        out[row.get("id", "")].append(line)
    return dict(out)


def write(fjord, table, rows, work, overwrite=False):
    path = os.path.join(work, "in.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")
    cmd = [fjord, "write", table, "--input", path]
    if overwrite:
        cmd.append("--overwrite")
    run(cmd)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fjord = args.fjord
    work = tempfile.mkdtemp(prefix="fjord-java-stream-")
    rng = random.Random(14)
    failures = []
    checks = 0
    java_misses = 0
    try:
        wh = os.path.join(work, "wh")
        run([fjord, "db", "create", wh, "db"])
        specs = {
            "pk_none": (["-o", "changelog-producer=none", "-o", "write-only=true"], True),
            "pk_input": (["-o", "changelog-producer=input", "-o", "write-only=true"], True),
            "pk_full": (["-o", "changelog-producer=full-compaction",
                         "-o", "full-compaction.delta-commits=2"], True),
            "append": (["-o", "bucket-key=id"], False),
        }
        tables = {}
        for name, (options, pk) in specs.items():
            cmd = [fjord, "table", "create", wh, f"db.{name}",
                   "--columns", "id INT NOT NULL, v STRING, n BIGINT", "-o", "bucket=2", *options]
            if pk:
                cmd += ["--primary-key", "id"]
            run(cmd)
            tables[name] = os.path.join(wh, "db.db", name)
        # Six rounds: upserts and deletes; a dedicated full compaction after round 3 (COMPACT
        # snapshots); an OVERWRITE in round 5 of the tables whose producer allows reading it.
        for rnd in range(1, 7):
            for name, table in tables.items():
                pk = specs[name][1]
                if rnd == 5 and name in ("pk_none", "append"):
                    rows = [{"id": i, "v": f"o{i}", "n": rnd} for i in range(3)]
                    write(fjord, table, rows, work, overwrite=True)
                    continue
                rows = []
                for _ in range(rng.randint(3, 12)):
                    key = rng.randint(0, 15)
                    if pk and rng.random() < 0.3:
                        rows.append({"_row_kind": "-D", "id": key, "v": None, "n": None})
                    else:
                        rows.append({"id": key, "v": f"r{rnd}-{rng.randint(0, 99)}", "n": rnd})
                write(fjord, table, rows, work)
                if rnd == 3 and name in ("pk_none", "pk_input"):
                    run([fjord, "compact", table, "--full"])
        java = Java(work)
        modes = [
            {"scan.mode": "latest-full"},
            {"scan.mode": "from-snapshot", "scan.snapshot-id": "1"},
            {"scan.mode": "from-snapshot", "scan.snapshot-id": "4"},
            {"scan.mode": "from-snapshot-full", "scan.snapshot-id": "2"},
            {"scan.mode": "compacted-full"},
            {"scan.mode": "latest"},
        ]
        for name, table in tables.items():
            for options in modes:
                opts = dict(options)
                if name == "pk_none":
                    opts["streaming-read-overwrite"] = "true"
                if name == "append":
                    opts["streaming-read-append-overwrite"] = "true"
                what = f"{name} {opts}"
                java_plans = java.stream(table, opts)
                fjord_plans = fjord_tail(fjord, table, opts)
                checks += 1
                problems = []
                js = [s for s, _ in java_plans]
                fs = [s for s, _ in fjord_plans]
                if js != fs:
                    problems.append(f"snapshots planned: Java {js}, Fjord {fs}")
                else:
                    for (s, jr), (_, fr) in zip(java_plans, fjord_plans):
                        if collections.Counter(jr) != collections.Counter(fr):
                            problems.append(f"snapshot {s}: rows differ: only Java "
                                            f"{sorted((collections.Counter(jr) - collections.Counter(fr)).elements())[:3]}, only Fjord "
                                            f"{sorted((collections.Counter(fr) - collections.Counter(jr)).elements())[:3]}")
                        elif specs[name][1] and per_key(jr) != per_key(fr):
                            problems.append(f"snapshot {s}: order per key differs")
                rows = sum(len(r) for _, r in java_plans)
                print(f"{'ok  ' if not problems else 'FAIL'} {what}: {len(js)} plans, {rows} rows")
                for p in problems:
                    print(f"     {p}")
                if problems:
                    failures.append(what)
        # Incremental queries (point 3): changelog mode between snapshot ids, as a multiset (Java
        # orders the files of a bucket by key ranges, not by snapshot).
        for name in ("pk_input", "pk_full"):
            for between in ("0,3", "1,4", "2,7", "3,3"):
                what = f"{name} incremental-between={between}"
                checks += 1
                jr = java.changes(tables[name], between)
                fr = run([fjord, "cat", tables[name], "-o", f"incremental-between={between}",
                          "-o", "incremental-between-scan-mode=changelog"]).splitlines()
                ok = collections.Counter(jr) == collections.Counter(fr)
                print(f"{'ok  ' if ok else 'FAIL'} {what}: Java {len(jr)} rows, Fjord {len(fr)}")
                if not ok:
                    failures.append(what)
        # Tags and diffs (point 3): Java creates daily auto-tag-named tags; the data of two tags
        # or snapshots compared (Java's audit_log keeps the -D of keys gone), the changes between
        # two tags' snapshots, and an auto tag against the one of the latest earlier period.
        for name in ("pk_none", "pk_input", "pk_full", "append"):
            table = tables[name]
            snaps = sorted(int(f[len("snapshot-"):]) for f in os.listdir(
                os.path.join(table, "snapshot")) if f.startswith("snapshot-"))
            latest = snaps[-1]
            for tag, snap in (("2024-01-01", 2), ("2024-01-02", 4), ("2024-01-04", latest)):
                java.tag(table, tag, snap)
            with open(os.path.join(table, "snapshot", "snapshot-2"), encoding="utf-8") as f:
                t2 = json.load(f)["timeMillis"]
            # Each case with the snapshots a diff compares (None: not a diff).
            cases = [
                ({"incremental-between": "2024-01-01,2024-01-04"}, (2, latest)),
                ({"incremental-between": "2024-01-02,2024-01-04"}, (4, latest)),
                ({"incremental-between": "2024-01-01,2024-01-02",
                  "incremental-between-tag-to-snapshot": "true"}, None),
                ({"incremental-between": f"1,{latest}", "incremental-between-scan-mode": "diff"},
                 (1, latest)),
                ({"incremental-between": "3,5", "incremental-between-scan-mode": "diff"}, (3, 5)),
                ({"incremental-between-timestamp": f"{t2},{t2 + 10 ** 9}",
                  "incremental-between-scan-mode": "diff"}, (2, latest)),
                ({"incremental-to-auto-tag": "2024-01-04"}, (4, latest)),
                ({"incremental-to-auto-tag": "2024-01-02"}, (2, 4)),
            ]
            for options, sides in cases:
                what = f"{name} {options}"
                checks += 1
                jr = java.audit_changes(table, options)
                cmd = [fjord, "cat", table]
                for k, v in options.items():
                    cmd += ["-o", f"{k}={v}"]
                fr = run(cmd).splitlines()
                jc, fc = collections.Counter(jr), collections.Counter(fr)
                extra = list((fc - jc).elements())
                # Java's diff merges the two sides' records of a key by sequence number and emits
                # nothing when the before's sorts last: the writer restarts a bucket's sequence
                # numbers after an OVERWRITE or after a full compaction dropped its last records,
                # and Java then misses keys added or changed since (docs/reading.md). Fjord emits
                # them; such a row must be the key's row in the end snapshot, differ from its row
                # in the start snapshot (or the key be new), and Java have no row for the key.
                if extra and sides and specs[name][1] and not jc - fc:
                    def rows_by_key(snapshot):
                        lines = run([fjord, "cat", table, "--snapshot", str(snapshot)])
                        return {json.loads(l)["id"]: l for l in lines.splitlines()}
                    start_rows, end_rows = rows_by_key(sides[0]), rows_by_key(sides[1])
                    java_keys = {json.loads(l)["id"] for l in jr}
                    for line in list(extra):
                        row = json.loads(line)
                        kind = row.pop("_row_kind")
                        text = json.dumps(row, separators=(",", ":"))
                        if (kind in ("+I", "+U") and row["id"] not in java_keys
                                and end_rows.get(row["id"]) == text
                                and start_rows.get(row["id"]) != text):
                            extra.remove(line)
                            java_misses += 1
                ok = not extra and not jc - fc
                print(f"{'ok  ' if ok else 'FAIL'} {what}: Java {len(jr)} rows, Fjord {len(fr)}")
                if not ok:
                    print(f"     only Java {sorted((jc - fc).elements())[:3]}, only Fjord "
                          f"{sorted(extra)[:3]}")
                    failures.append(what)
        java.close()
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{checks - len(failures)}/{checks} streams and incremental reads equal to Java's "
          f"({java_misses} diff rows Java misses, checked against the end snapshot)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
