#!/usr/bin/env python3
"""Small-file compaction of append tables: Fjord compacts, Java Paimon reads the same rows.

Three partitioned append tables (partition values that need escaping, NULL and ''), one per
format and way of compacting:

* fixed_writer (Parquet, 3 buckets): Fjord's writer compacts at every commit (Java's
  BucketedAppendCompactManager rules);
* fixed_write_only (ORC, 2 buckets, write-only): `fjord compact` (best effort);
* unaware (Avro, bucket = -1): `fjord compact --partition p=a`, then `fjord compact`.

1. Fjord makes 12 small commits to each table, then runs the dedicated compactions;
2. Java (one JVM) dumps rows and live files, then appends two commits of its own to each table;
3. Fjord compacts everything with `fjord compact --full` (Java's files too) and commits once more
   to fixed_writer (its writer compacts on top of Java's files);
4. Java (a second JVM) dumps rows and live files again.

At both points `fjord cat` and `fjord-oracle dump` must return the same multiset of rows, equal to
everything written. With fixed buckets the live files of every bucket must cover the sequence
numbers 0..n-1 exactly once (compaction keeps sequence ranges); file counts must stay bounded
(at most 4 per bucket in fixed_writer after Fjord's commits; after the full compactions at most 2
per bucket, as Java's full compaction needs 3 files, plus fixed_writer's last commit, and 1 per
partition when bucket-unaware); compactions must be COMPACT snapshots.

    append_compact_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import collections
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

PARTITIONS = wm.ESCAPED_PARTITION_VALUES
# ORC without the TIMESTAMP(6) column: pre-1970 fractions are the ORC writer's own subject.
ORC_COLUMNS = wm.COLUMNS.replace("ts6 TIMESTAMP(6), ", "")
FJORD_COMMITS = 12
ROWS_PER_COMMIT = 25


class Table:
    def __init__(self, name, fmt, options, columns=wm.COLUMNS):
        self.name = name
        self.fmt = fmt
        self.options = options
        self.columns = columns
        self.names = wm.column_names(columns)
        self.rows = []  # everything committed so far
        self.path = None

    def make_rows(self, first, count):
        return [{c: r[c] for c in self.names}
                for r in (wm.row(i, self.fmt, PARTITIONS) for i in range(first, first + count))]

    @property
    def fixed(self):
        return int(self.options.get("bucket", "-1")) > 0


TABLES = [
    Table("fixed_writer", "parquet", {"bucket": "3", "bucket-key": "id"}),
    Table("fixed_write_only", "orc", {"bucket": "2", "bucket-key": "id", "write-only": "true"},
          columns=ORC_COLUMNS),
    Table("unaware", "avro", {"target-file-size": "256 kb",
                              "source.split.open-file-cost": "16 kb"}),
]


class Failure(Exception):
    pass


def check(ok, message):
    if not ok:
        raise Failure(message)


def run_ok(cmd, what):
    r = wm.run(cmd)
    check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()[:500]}")
    return r.stdout


def snapshot_kinds(table_dir):
    """{snapshot id: commitKind} from the snapshot files."""
    out = {}
    d = os.path.join(table_dir, "snapshot")
    for name in os.listdir(d):
        if name.startswith("snapshot-"):
            with open(os.path.join(d, name), encoding="utf-8") as f:
                out[int(name[len("snapshot-"):])] = json.load(f)["commitKind"]
    return out


def load_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check_files(t, files, max_per_bucket=None, max_per_partition=None):
    """Live files (fjord-oracle files): sequence ranges and counts."""
    per_bucket = collections.defaultdict(list)
    for f in files:
        per_bucket[(f["partition"], f["bucket"])].append(f)
    if t.fixed:
        for key, fs in per_bucket.items():
            fs.sort(key=lambda f: f["min_seq"])
            nxt = 0
            for f in fs:
                check(f["min_seq"] == nxt and f["max_seq"] == nxt + f["rows"] - 1,
                      f"{t.name} bucket {key[1]}: file {f['file']} covers sequence "
                      f"{f['min_seq']}..{f['max_seq']}, expected to start at {nxt}")
                nxt = f["max_seq"] + 1
    for key, fs in per_bucket.items():
        if max_per_bucket is not None:
            check(len(fs) <= max_per_bucket,
                  f"{t.name} bucket {key[1]}: {len(fs)} live files, want at most {max_per_bucket}")
    if max_per_partition is not None:
        per_partition = collections.Counter(f["partition"] for f in files)
        for p, n in per_partition.items():
            check(n <= max_per_partition,
                  f"{t.name}: {n} live files in a partition, want at most {max_per_partition}")
    return len(files)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fj = args.fjord
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-append-compact-")
    wh = os.path.join(work, "wh")
    run_ok([fj, "db", "create", wh, "w"], "db create")
    next_id = 0
    report = []
    try:
        for t in TABLES:
            cmd = [fj, "table", "create", wh, f"w.{t.name}", "--columns", t.columns,
                   "-o", f"file.format={t.fmt}", "--partition-keys", "p"]
            for k, v in t.options.items():
                cmd += ["-o", f"{k}={v}"]
            run_ok(cmd, f"create {t.name}")
            t.path = os.path.join(wh, "w.db", t.name)

        def fjord_commit(t, n, tag):
            nonlocal next_id
            rows = t.make_rows(next_id, n)
            next_id += n
            data = os.path.join(work, f"{t.name}-{tag}.jsonl")
            wm.write_jsonl(data, rows)
            r = wm.fjord_write(fj, t.path, data, tag)
            check(r.returncode == 0, f"fjord write {t.name}: {r.stderr.strip()[:500]}")
            t.rows += rows

        # 1. Many small Fjord commits, then the dedicated compactions.
        for c in range(FJORD_COMMITS):
            for t in TABLES:
                fjord_commit(t, ROWS_PER_COMMIT, c)
        writer_compactions = [k for k in snapshot_kinds(TABLES[0].path).values() if k == "COMPACT"]
        check(len(writer_compactions) >= 3,
              f"fixed_writer: {len(writer_compactions)} COMPACT snapshots from the writer")
        report.append(f"fixed_writer: {len(writer_compactions)} compactions by Fjord's writer")
        check(not any(k == "COMPACT" for k in snapshot_kinds(TABLES[1].path).values()),
              "fixed_write_only: the write-only writer compacted")
        report.append("fixed_write_only: " + run_ok([fj, "compact", TABLES[1].path],
                                                     "fjord compact fixed_write_only").strip())
        out = run_ok([fj, "compact", TABLES[2].path, "--partition", "p=a"],
                     "fjord compact unaware --partition p=a")
        report.append("unaware p=a: " + out.strip())
        out = run_ok([fj, "compact", TABLES[2].path], "fjord compact unaware")
        report.append("unaware: " + out.strip())
        for t in TABLES[1:]:
            kinds = snapshot_kinds(t.path)
            check(kinds[max(kinds)] == "COMPACT", f"{t.name}: the compaction is {kinds[max(kinds)]}")
        first_point = {t.name: max(snapshot_kinds(t.path)) for t in TABLES}
        rows_at_first = {t.name: list(t.rows) for t in TABLES}

        # 2. Java dumps, then appends two commits to each table.
        plan = []
        for t in TABLES:
            s = str(first_point[t.name])
            plan.append(["dump", t.path, "--snapshot", s,
                         "--output", os.path.join(work, f"{t.name}-1.java.jsonl")])
            plan.append(["files", t.path, "--snapshot", s,
                         "--output", os.path.join(work, f"{t.name}-1.files.jsonl")])
            for c in range(2):
                rows = t.make_rows(next_id, ROWS_PER_COMMIT)
                next_id += ROWS_PER_COMMIT
                data = os.path.join(work, f"{t.name}-java{c}.jsonl")
                wm.write_jsonl(data, rows)
                t.rows += rows
                plan.append(["write", t.path, "--input", data, "--commit-user", "java"])
        results = wm.run_batch([wm.ORACLE, "batch"], plan, os.path.join(work, "batch1.txt"))
        for line, (ok, message) in zip(plan, results):
            check(ok, f"java {line[0]} {line[1]}: {message[:500]}")

        def compare(t, point, snapshot, rows):
            java = os.path.join(work, f"{t.name}-{point}.java.jsonl")
            mine = os.path.join(work, f"{t.name}-{point}.fjord.jsonl")
            want = os.path.join(work, f"{t.name}-{point}.expected.jsonl")
            rc, err = wm.fjord_cat(fj, t.path, mine, snapshot)
            check(rc == 0, f"fjord cat {t.name}: {err}")
            wm.write_jsonl(want, rows)
            for p in (java, mine, want):
                wm.normalize_maps(p)
            ok, diff = wm.compare(java, mine)
            check(ok, f"{t.name} point {point}: Java and Fjord read differently: {diff}")
            ok, diff = wm.compare(java, want)
            check(ok, f"{t.name} point {point}: Java does not read the rows written: {diff}")

        counts = {}
        for t in TABLES:
            compare(t, 1, first_point[t.name], rows_at_first[t.name])
            files = load_jsonl(os.path.join(work, f"{t.name}-1.files.jsonl"))
            counts[t.name] = check_files(t, files, 4 if t.name == "fixed_writer" else None)

        # 3. Fjord compacts everything, Java's files included; one more commit to fixed_writer.
        for t in TABLES:
            out = run_ok([fj, "compact", t.path, "--full"], f"fjord compact --full {t.name}")
            report.append(f"{t.name} --full: {out.strip()}")
        fjord_commit(TABLES[0], ROWS_PER_COMMIT, 100)

        # 4. Java reads the result.
        plan = []
        for t in TABLES:
            plan.append(["dump", t.path, "--output", os.path.join(work, f"{t.name}-2.java.jsonl")])
            plan.append(["files", t.path,
                         "--output", os.path.join(work, f"{t.name}-2.files.jsonl")])
        results = wm.run_batch([wm.ORACLE, "batch"], plan, os.path.join(work, "batch2.txt"))
        for line, (ok, message) in zip(plan, results):
            check(ok, f"java {line[0]} {line[1]}: {message[:500]}")
        for t in TABLES:
            compare(t, 2, None, t.rows)
            files = load_jsonl(os.path.join(work, f"{t.name}-2.files.jsonl"))
            # A full compaction leaves at most 2 files per bucket (it needs 3), plus the new
            # commit's in fixed_writer.
            limit = {"fixed_writer": 3, "fixed_write_only": 2}.get(t.name)
            n = check_files(t, files, limit, None if t.fixed else 1)
            report.append(f"{t.name}: {counts[t.name]} live files after Fjord's commits and "
                          f"compactions, {n} after Java's commits and the full compaction")
    except Failure as e:
        print(f"FAIL {e}")
        print(f"(work directory kept: {work})")
        return 1
    for line in report:
        print(line)
    print(f"ok: Java and Fjord read the same rows; wall time {time.monotonic() - started:.1f} s")
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
