#!/usr/bin/env python3
"""Dynamic-bucket primary-key tables (`bucket = -1`, issue 6 point 5), Fjord and Java writing the
same tables in turn.

A. A table created with no bucket option (dynamic-bucket.target-row-num = 25, so partitions get
   several buckets): Fjord writes 4 commits of upserts and deletes, Java's writer (as a one-task
   Flink job assigns buckets: HashBucketAssigner over the table's hash index) upserts existing
   and new keys in 2 commits, then Fjord writes 2 more.
B. The same with Java writing first (Java creates every data and index file), then Fjord, then
   Java again.
Both in Parquet with Avro manifests and in ORC with ORC manifests. Checks, after every commit:
Java and Fjord read rows equal to a model of the writes; at the end, Java's `buckets` command
(each bucket read on its own) shows no key in two buckets, every live key's hash in its bucket's
HASH index file, no bucket over the target and more than one bucket per partition. Last, a
corrupt hash index file makes `fjord write` fail with an error naming the file.

Usage: dynamic_bucket_compat.py FJORD_BINARY
"""
import json
import os
import random
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

TARGET = 25
VARIANTS = {"parquet": ["-o", "file.format=parquet"],
            "orc": ["-o", "file.format=orc", "-o", "manifest.format=orc"]}
PLANS = {"A": ["fjord"] * 4 + ["java"] * 2 + ["fjord"] * 2,
         "B": ["java"] * 2 + ["fjord"] * 2 + ["java"]}


def commit_rows(rng, c, keys):
    rows = []
    for _ in range(40):
        r = {"p": rng.choice(["x", "y"]), "id": rng.randrange(keys)}
        if rng.random() < 0.15:
            r["_row_kind"] = "-D"
        else:
            r["v"] = rng.randrange(10**6)
            r["s"] = f"c{c}-{rng.randrange(100)}" if rng.random() < 0.8 else None
        rows.append(r)
    return rows


def apply(state, rows):
    for r in rows:
        k = (r["p"], r["id"])
        if r.get("_row_kind") == "-D":
            state.pop(k, None)
        else:
            state[k] = {"id": r["id"], "p": r["p"], "v": r["v"], "s": r["s"]}


def java_row(r):
    """The oracle's input form: every column, the row kind under _row_kind."""
    out = {"id": r["id"], "p": r["p"], "v": r.get("v"), "s": r.get("s")}
    if "_row_kind" in r:
        out["_row_kind"] = r["_row_kind"]
    return out


def check_buckets(label, path, failures):
    """Java's per-bucket read: no key twice, every key indexed, no bucket over the target."""
    seen = {}
    per_bucket = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            e = json.loads(line)
            k = (e["row"]["p"], e["row"]["id"])
            where = (e["partition"], e["bucket"])
            if k in seen and seen[k] != where:
                failures.append(f"{label}: key {k} is in two buckets: {seen[k]} and {where}")
            seen[k] = where
            if not e["indexed"]:
                failures.append(f"{label}: key {k} in bucket {e['bucket']} is not in its hash index")
            per_bucket.setdefault(where, 0)
            per_bucket[where] += 1
    for where, n in per_bucket.items():
        if n > TARGET:
            failures.append(f"{label}: bucket {where} holds {n} keys, over the target {TARGET}")
    buckets_per_partition = {}
    for (part, bucket) in per_bucket:
        buckets_per_partition.setdefault(part, set()).add(bucket)
    if not buckets_per_partition or min(len(b) for b in buckets_per_partition.values()) < 2:
        failures.append(f"{label}: expected several buckets per partition, got "
                        f"{ {p: sorted(b) for p, b in buckets_per_partition.items()} }")
    return len(seen)


def main():
    fjord = sys.argv[1]
    work = tempfile.mkdtemp(prefix="fjord-dynamic-bucket-compat-")
    failures = []
    checks = 0
    try:
        wh = os.path.join(work, "wh")
        wm.run([fjord, "db", "create", wh, "db"])
        finals = []
        for variant, options in VARIANTS.items():
            for plan_name, plan in PLANS.items():
                name = f"{plan_name}_{variant}"
                r = wm.run([fjord, "table", "create", wh, f"db.{name}", "--columns",
                            "id INT NOT NULL, p STRING NOT NULL, v BIGINT, s STRING",
                            "--primary-key", "p,id", "--partition-keys", "p",
                            "-o", f"dynamic-bucket.target-row-num={TARGET}"] + options)
                if r.returncode != 0:
                    failures.append(f"{name}: create: {r.stderr.strip()}")
                    continue
                table_dir = os.path.join(wh, "db.db", name)
                rng = random.Random(f"{name}")
                state = {}
                for c, writer in enumerate(plan):
                    rows = commit_rows(rng, c, 90)
                    path = os.path.join(work, f"{name}-{c}.jsonl")
                    if writer == "fjord":
                        wm.write_jsonl(path, rows)
                        r = wm.fjord_write(fjord, table_dir, path, c)
                    else:
                        wm.write_jsonl(path, [java_row(x) for x in rows])
                        r = wm.run([wm.ORACLE, "write", table_dir, "--input", path])
                    if r.returncode != 0:
                        failures.append(f"{name}: {writer} write {c}: "
                                        f"{(r.stderr or r.stdout).strip()[-600:]}")
                        break
                    apply(state, rows)
                    expected = os.path.join(work, f"{name}-{c}.expected")
                    wm.write_jsonl(expected, sorted(state.values(),
                                                    key=lambda x: (x["p"], x["id"])))
                    fjord_out = os.path.join(work, f"{name}-{c}.fjord")
                    rc, err = wm.fjord_cat(fjord, table_dir, fjord_out)
                    if rc != 0:
                        failures.append(f"{name} after commit {c}: fjord cat: {err}")
                    finals.append((f"{name} after {writer} commit {c}", table_dir, expected,
                                   fjord_out if rc == 0 else None,
                                   os.path.join(work, f"{name}-{c}.java"), c == len(plan) - 1))
                    # Java reads the table as it is now: dump before the next commit.
                    r = wm.run([wm.ORACLE, "dump", table_dir, "--output", finals[-1][4]])
                    if r.returncode != 0:
                        failures.append(f"{name} after commit {c}: java dump: {r.stderr.strip()}")
                buckets_out = os.path.join(work, f"{name}.buckets")
                r = wm.run([wm.ORACLE, "buckets", table_dir, "--output", buckets_out])
                checks += 1
                if r.returncode != 0:
                    failures.append(f"{name}: java buckets: {r.stderr.strip()[-600:]}")
                else:
                    n = check_buckets(name, buckets_out, failures)
                    if n != len(state):
                        failures.append(f"{name}: Java's per-bucket read has {n} keys, the model "
                                        f"{len(state)}")
        for label, table_dir, expected, fjord_out, java_out, last in finals:
            for out, who in ((fjord_out, "Fjord"), (java_out, "Java")):
                if out is None or not os.path.exists(out):
                    continue
                checks += 1
                equal, report = wm.compare(out, expected)
                if not equal:
                    failures.append(f"{label}: {who} differs from the model: {report}")

        # A corrupt hash index file: Fjord's writer stops and names it.
        table_dir = os.path.join(wh, "db.db", "A_parquet")
        index_dir = os.path.join(table_dir, "index")
        names = sorted(os.listdir(index_dir)) if os.path.isdir(index_dir) else []
        checks += 1
        if not names:
            failures.append("A_parquet: no index files to corrupt")
        else:
            for n in names:
                with open(os.path.join(index_dir, n), "r+b") as f:
                    f.truncate(3)
            path = os.path.join(work, "after-corruption.jsonl")
            wm.write_jsonl(path, [{"p": "x", "id": 1, "v": 1, "s": "z"}])
            r = wm.fjord_write(fjord, table_dir, path, 100)
            if r.returncode == 0 or "index-" not in r.stderr or "hash index" not in r.stderr:
                failures.append(f"A_parquet: write over a corrupt index file: rc {r.returncode}, "
                                f"{r.stderr.strip()[-400:]}")
    finally:
        if not failures:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{checks} checks, {len(failures)} failure(s)")
    for f in failures:
        print("FAIL", f)
    if failures:
        print("work dir kept:", work)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
