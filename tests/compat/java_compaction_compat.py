#!/usr/bin/env python3
"""Compaction interop (issue 6): Java reads what Fjord compacted, and Fjord compacts what Java wrote.

A. Fjord writes primary-key tables (deduplicate with deletes, partial-update, aggregation with
   sum / last_non_null_value, max / listagg, first_non_null_value / min, first-row with and
   without ignored deletes; Parquet / ORC / Avro; partitioned, 2 buckets) in 8 commits with
   num-sorted-run.compaction-trigger = 2, so the writer compacts (COMPACT snapshots; first-row
   writers push level 0 up at every commit with Java's lookup rules, which Java's reader relies
   on: it skips level 0 and does not merge levels >= 1), then `fjord compact --full` moves
   everything to the highest level. At every snapshot Java's reader returns exactly the rows
   Fjord's returns, and the last snapshot equals a model of the writes.
B. Fjord compacts copies of Java-written fixture tables (`fjord compact --full`): Java and Fjord
   then read the same rows as Java read before the compaction. The first-row fixture is read
   before compaction without its level-0 files, so there only Fjord and Java after the
   compaction are compared (and every key must appear once).

Usage: java_compaction_compat.py FJORD_BINARY
"""
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

# The Java-written fixtures of the repository (tests/fixtures/README.md); FJORD_FIXTURES overrides.
FIXTURES = os.environ.get("FJORD_FIXTURES",
                          os.path.join(wm.REPO, "tests", "fixtures", "paimon-java"))
ENGINES = {
    "dedup": {},
    "partial": {"merge-engine": "partial-update"},
    "agg": {"merge-engine": "aggregation", "fields.v.aggregate-function": "sum",
            "fields.s.aggregate-function": "last_non_null_value"},
    "first": {"merge-engine": "first-row", "ignore-delete": "true"},
    "aggmax": {"merge-engine": "aggregation", "fields.v.aggregate-function": "max",
               "fields.s.aggregate-function": "listagg"},
    "aggfirst": {"merge-engine": "aggregation", "fields.v.aggregate-function": "first_non_null_value",
                 "fields.s.aggregate-function": "min"},
    "firstrow": {"merge-engine": "first-row"},
}
# The aggregate functions of the aggregation engines, by column; NULL input keeps the other side.
AGG = {
    "sum": lambda old, new: old + new,
    "max": max,
    "min": min,
    "listagg": lambda old, new: old + "," + new,
    "first_non_null_value": lambda old, new: old,
    "last_non_null_value": lambda old, new: new,
}
# Java-written primary-key tables without deletion vectors or first-row (whose batch reads skip
# level 0 and so differ before compaction by design).
JAVA_TABLES = ["pk_table_partial_update", "pk_table_scan_and_read_mor", "pk_table_nested_type",
               "pk_table_scan_and_read_first_row", "pk_table_aggregation"]
FIRST_ROW_TABLES = {"pk_table_scan_and_read_first_row"}


def commits_for(engine, seed):
    rng = random.Random(seed)
    commits = []
    for c in range(8):
        rows = []
        for _ in range(60):
            r = {"p": rng.choice(["x", "y"]), "id": rng.randrange(80)}
            if engine in ("dedup", "first") and rng.random() < 0.2:
                r["_row_kind"] = "-D"
            else:
                r["v"] = rng.randrange(1000) if rng.random() < 0.9 else None
                r["s"] = f"s{c}-{rng.randrange(50)}" if rng.random() < 0.8 else None
            rows.append(r)
        commits.append(rows)
    return commits


def model(engine, commits):
    state = {}
    for rows in commits:
        for r in rows:
            k = (r["p"], r["id"])
            if engine == "first":
                if r.get("_row_kind") != "-D" and k not in state:
                    state[k] = {"p": r["p"], "id": r["id"], "v": r.get("v"), "s": r.get("s")}
                continue
            if r.get("_row_kind") == "-D":
                state.pop(k, None)
                continue
            old = state.get(k)
            if engine == "firstrow" and old is not None:
                continue
            if engine in ("dedup", "firstrow") or old is None:
                new = {"p": r["p"], "id": r["id"], "v": r.get("v"), "s": r.get("s")}
            elif engine == "partial":
                new = dict(old)
                for c in ("v", "s"):
                    if r.get(c) is not None:
                        new[c] = r[c]
            else:  # aggregation
                new = dict(old)
                for c in ("v", "s"):
                    f = AGG[ENGINES[engine][f"fields.{c}.aggregate-function"]]
                    if r.get(c) is not None:
                        new[c] = r[c] if old[c] is None else f(old[c], r[c])
            state[k] = new
    return [{"id": v["id"], "p": v["p"], "v": v["v"], "s": v["s"]} for v in state.values()]


def snapshot_ids(fjord, table_dir):
    r = wm.run([fjord, "snapshots", table_dir])
    ids = []
    for line in r.stdout.splitlines():
        head = line.split()
        if head and head[0].isdigit():
            ids.append(int(head[0]))
    return ids


def main():
    fjord = sys.argv[1]
    work = tempfile.mkdtemp(prefix="fjord-compaction-compat-")
    failures = []
    checks = 0
    try:
        wh = os.path.join(work, "wh")
        wm.run([fjord, "db", "create", wh, "db"])
        dumps = []  # (label, table_dir, snapshot, fjord_out, java_out)
        finals = []  # (label, fjord_out, expected_rows)
        first_rows = {}  # first-row table name -> {(p, id): row of the model}
        for engine, options in ENGINES.items():
            for fmt in wm.FORMATS:
                name = f"{engine}_{fmt}"
                cmd = [fjord, "table", "create", wh, f"db.{name}", "--columns",
                       "id INT NOT NULL, p STRING NOT NULL, v BIGINT, s STRING",
                       "--primary-key", "p,id", "--partition-keys", "p", "-o", "bucket=2",
                       "-o", f"file.format={fmt}", "-o", "num-sorted-run.compaction-trigger=2"]
                for k, v in options.items():
                    cmd += ["-o", f"{k}={v}"]
                r = wm.run(cmd)
                if r.returncode != 0:
                    failures.append(f"{name}: create: {r.stderr.strip()}")
                    continue
                table_dir = os.path.join(wh, "db.db", name)
                commits = commits_for(engine, hash(name) & 0xffff)
                for i, rows in enumerate(commits):
                    path = os.path.join(work, f"{name}-{i}.jsonl")
                    wm.write_jsonl(path, rows)
                    r = wm.fjord_write(fjord, table_dir, path, i)
                    if r.returncode != 0:
                        failures.append(f"{name}: write {i}: {r.stderr.strip()}")
                r = wm.run([fjord, "compact", table_dir, "--full"])
                if r.returncode != 0:
                    failures.append(f"{name}: compact: {r.stderr.strip()}")
                ids = snapshot_ids(fjord, table_dir)
                kinds = wm.run([fjord, "snapshots", table_dir]).stdout
                if "COMPACT" not in kinds:
                    failures.append(f"{name}: no COMPACT snapshot was written")
                for sid in ids:
                    out = os.path.join(work, f"{name}-s{sid}.fjord")
                    rc, err = wm.fjord_cat(fjord, table_dir, out, sid)
                    if rc != 0:
                        failures.append(f"{name} snapshot {sid}: fjord cat: {err}")
                        continue
                    dumps.append((f"{name} snapshot {sid}", table_dir, sid, out,
                                  os.path.join(work, f"{name}-s{sid}.java")))
                expected_path = os.path.join(work, f"{name}.expected")
                wm.write_jsonl(expected_path, model(engine, commits))
                if engine == "first":
                    first_rows[name] = {(r["p"], r["id"]): r for r in model(engine, commits)}
                if ids:
                    finals.append((name, os.path.join(work, f"{name}-s{ids[-1]}.fjord"),
                                   expected_path))

        # B: Fjord compacts Java-written tables.
        for fmt in ("parquet", "orc"):
            for t in JAVA_TABLES:
                src = os.path.join(FIXTURES, fmt, t + ".db")
                if not os.path.isdir(src):
                    continue
                copy = os.path.join(work, "java", fmt, t + ".db")
                shutil.copytree(src, copy)
                tables = [d for d in os.listdir(copy) if os.path.isdir(os.path.join(copy, d, "schema"))]
                for tname in tables:
                    table_dir = os.path.join(copy, tname)
                    before = os.path.join(work, f"java-{fmt}-{t}-{tname}.before")
                    dumps.append((f"java {fmt}/{t}/{tname} before", table_dir, None, None, before))
        lines = []
        for label, table_dir, sid, _, java_out in dumps:
            args = ["dump", table_dir, "--output", java_out]
            if sid is not None:
                args += ["--snapshot", str(sid)]
            lines.append(args)
        results = wm.run_batch([wm.ORACLE, "batch"], lines, os.path.join(work, "batch1.txt"))
        after_dumps = []
        for (label, table_dir, sid, fjord_out, java_out), (ok, msg) in zip(dumps, results):
            if not ok:
                failures.append(f"{label}: java dump failed: {msg}")
                continue
            if fjord_out is None:
                # A Java-written table: compact it with Fjord, then both read it again.
                r = wm.run([fjord, "compact", table_dir, "--full"])
                if r.returncode != 0:
                    failures.append(f"{label}: fjord compact: {r.stderr.strip()}")
                    continue
                after_fjord = java_out.replace(".before", ".after.fjord")
                rc, err = wm.fjord_cat(fjord, table_dir, after_fjord)
                if rc != 0:
                    failures.append(f"{label}: fjord cat after compaction: {err}")
                    continue
                after_dumps.append((label, table_dir, java_out, after_fjord,
                                    java_out.replace(".before", ".after.java")))
                continue
            checks += 1
            for p in (fjord_out, java_out):
                wm.normalize_maps(p)
            equal, report = wm.compare(fjord_out, java_out)
            if not equal:
                failures.append(f"{label}: Fjord and Java differ: {report}")
            name = label.split()[0]
            if name in first_rows:
                # Java reads levels >= 1 of first-row tables without merging: each key must be
                # there once, with the first value ever written for it.
                checks += 1
                seen = set()
                with open(java_out) as f:
                    for line in f:
                        if not line.strip():
                            continue
                        r = json.loads(line)
                        k = (r["p"], r["id"])
                        want = first_rows[name].get(k)
                        if k in seen or want is None or any(r[c] != want[c] for c in ("v", "s")):
                            failures.append(f"{label}: row {r} is not the first row of its key "
                                            f"or appears twice")
                            break
                        seen.add(k)
        lines = [["dump", d[1], "--output", d[4]] for d in after_dumps]
        results = wm.run_batch([wm.ORACLE, "batch"], lines, os.path.join(work, "batch2.txt"))
        for (label, table_dir, before, after_fjord, after_java), (ok, msg) in zip(after_dumps,
                                                                                 results):
            if not ok:
                failures.append(f"{label}: java dump after compaction failed: {msg}")
                continue
            for p in (before, after_fjord, after_java):
                wm.normalize_maps(p)
            pairs = [(after_java, before, "Java after vs before"),
                     (after_fjord, after_java, "Fjord vs Java after")]
            if any(f"/{t}/" in label for t in FIRST_ROW_TABLES):
                pairs = pairs[1:]
                checks += 1
                with open(after_java) as f:
                    rows = [json.loads(line) for line in f if line.strip()]
                # The fixture's primary key is (f0, f1, f2).
                keys = [json.dumps({k: v for k, v in r.items() if k in ("f0", "f1", "f2")},
                                   sort_keys=True) for r in rows]
                if len(keys) != len(set(keys)):
                    failures.append(f"{label}: a key appears twice after compaction")
            for a, b, what in pairs:
                checks += 1
                equal, report = wm.compare(a, b)
                if not equal:
                    failures.append(f"{label}: {what}: {report}")
        for name, fjord_out, expected_path in finals:
            checks += 1
            equal, report = wm.compare(fjord_out, expected_path)
            if not equal:
                failures.append(f"{name}: final rows differ from the model: {report}")
    finally:
        if not failures:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{checks - len(failures)} of {checks} checks passed")
    for f in failures:
        print("FAIL", f)
    if failures:
        print("work dir kept:", work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
