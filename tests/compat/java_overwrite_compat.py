#!/usr/bin/env python3
"""Overwrite commits written by Fjord and by Java Paimon read alike (issue 5, point 4).

Two partitioned tables, an append table partitioned by (p, q) and a primary-key table (2 buckets)
partitioned by p, both merging manifests early (manifest.merge-min-count = 3; the primary-key
table also fully compacts its manifests on every commit). Fjord and Java take turns:

   1 fjord append              6 fjord append
   2 fjord dynamic overwrite   7 java  static overwrite p=d
   3 java  append              8 fjord whole-table overwrite (--partition '')
   4 fjord static p=b, no rows 9 java  append
   5 java  dynamic overwrite  10 fjord static overwrite p=c (partial spec on the (p, q) table)

After every step `fjord cat --snapshot N` and `fjord-oracle dump --snapshot N` must return the
same multiset of rows, equal to what a model of the overwrite rules gives (dynamic: the
partitions of the new rows; static: every partition matching the spec, even with no new rows;
whole table: everything). Java's batch writer may add a COMPACT snapshot to a primary-key write;
the snapshot compared is the latest after each step.

    java_overwrite_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402


TABLES = {
    "append_pq": dict(columns="id BIGINT NOT NULL, p STRING, q INT, v STRING",
                      partition_keys="p,q", primary_key=None,
                      options={"manifest.merge-min-count": "3"}),
    "pk_p": dict(columns="id BIGINT NOT NULL, p STRING NOT NULL, v STRING",
                 partition_keys="p", primary_key="id,p",
                 options={"bucket": "2", "manifest.merge-min-count": "3",
                          "manifest.full-compaction-threshold-size": "1"}),
}

# (writer, mode, rows as (id, p)): mode "append", "dynamic", "table" or a static spec "k=v".
STEPS = [
    ("fjord", "append", [(i, p) for p in "abc" for i in range(ord(p) * 10, ord(p) * 10 + 4)]),
    ("fjord", "dynamic", [(1, "a"), (2, "a")]),
    ("java", "append", [(3, "b"), (4, "d"), (5, "d")]),
    ("fjord", "p=b", []),
    ("java", "dynamic", [(6, "c"), (7, "c"), (1, "a")]),
    ("fjord", "append", [(8, "e"), (2, "a")]),
    ("java", "p=d", [(9, "d")]),
    ("fjord", "table", [(10, "x"), (11, "y")]),
    ("java", "append", [(12, "x"), (13, "c")]),
    ("fjord", "p=c", [(14, "c")]),
]


def make_row(table, step, key):
    i, p = key
    r = {"id": i, "p": p, "v": f"s{step}-{i}"}
    if table == "append_pq":
        r["q"] = i % 2
    return r


def matches(row, mode):
    """Does `row` lie in the partitions an overwrite of `mode` replaces (static/table modes)?"""
    if mode == "table":
        return True
    k, v = mode.split("=")
    return str(row[k]) == v


def apply(table, state, mode, rows):
    """The model: state is a list of rows."""
    pk = TABLES[table]["primary_key"]
    if mode == "dynamic":
        parts = {(r["p"], r.get("q")) for r in rows}
        state = [r for r in state if (r["p"], r.get("q")) not in parts]
    elif mode != "append":
        state = [r for r in state if not matches(r, mode)]
    for r in rows:
        if pk:
            state = [s for s in state if (s["id"], s["p"]) != (r["id"], r["p"])]
        state.append(r)
    return state


def latest_snapshot(table_dir):
    ids = [int(n[len("snapshot-"):]) for n in os.listdir(os.path.join(table_dir, "snapshot"))
           if n.startswith("snapshot-")]
    return max(ids)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fj = args.fjord
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-java-overwrite-")
    wh = os.path.join(work, "wh")
    assert wm.run([fj, "db", "create", wh, "w"]).returncode == 0
    dirs, states, checkpoints, failures = {}, {}, {}, []
    for name, t in TABLES.items():
        cmd = [fj, "table", "create", wh, f"w.{name}", "--columns", t["columns"],
               "--partition-keys", t["partition_keys"]]
        if t["primary_key"]:
            cmd += ["--primary-key", t["primary_key"]]
        for k, v in t["options"].items():
            cmd += ["-o", f"{k}={v}"]
        r = wm.run(cmd)
        if r.returncode:
            print(f"create {name}: {r.stderr}")
            return 1
        dirs[name] = os.path.join(wh, "w.db", name)
        states[name], checkpoints[name] = [], []

    for n, (writer, mode, keys) in enumerate(STEPS, start=1):
        rows, results = {}, {}
        for name in TABLES:
            rows[name] = [make_row(name, n, k) for k in keys]
            data = os.path.join(work, f"{name}-{n}.jsonl")
            wm.write_jsonl(data, rows[name])
            if writer == "fjord":
                cmd = [fj, "write", dirs[name], "--input", data]
                if mode != "append":
                    cmd.append("--overwrite")
                    if mode != "dynamic":
                        cmd += ["--partition", "" if mode == "table" else mode]
                r = wm.run(cmd)
                results[name] = (r.returncode == 0, r.stderr.strip())
        if writer == "java":  # both tables in one JVM
            lines = [["write", dirs[name], "--input", os.path.join(work, f"{name}-{n}.jsonl")]
                     + ([] if mode == "append" else ["--overwrite", mode]) for name in TABLES]
            out = wm.run_batch([wm.ORACLE, "batch"], lines, os.path.join(work, f"step{n}.txt"))
            results = dict(zip(TABLES, out))
        for name in TABLES:
            ok, message = results[name]
            if not ok:
                failures.append(f"{name} step {n} ({writer} {mode}): {message[:500]}")
                continue
            states[name] = apply(name, states[name], mode, rows[name])
            checkpoints[name].append((n, writer, mode, latest_snapshot(dirs[name]),
                                      list(states[name])))

    # Java dumps every checkpoint in one JVM; Fjord reads the same snapshots.
    lines, targets = [], []
    for name in TABLES:
        for n, writer, mode, snap, state in checkpoints[name]:
            out = os.path.join(work, f"{name}-s{snap}.java.jsonl")
            lines.append(["dump", dirs[name], "--snapshot", str(snap), "--output", out])
            targets.append((name, n, writer, mode, snap, state, out))
    results = wm.run_batch([wm.ORACLE, "batch"], lines, os.path.join(work, "batch.txt"))
    for (name, n, writer, mode, snap, state, java_out), (ok, message) in zip(targets, results):
        label = f"{name} step {n} ({writer} {mode}, snapshot {snap})"
        if not ok:
            failures.append(f"{label}: Java cannot read: {message[:400]}")
            continue
        mine = os.path.join(work, f"{name}-s{snap}.fjord.jsonl")
        want = os.path.join(work, f"{name}-s{snap}.want.jsonl")
        rc, err = wm.fjord_cat(fj, dirs[name], mine, snap)
        if rc:
            failures.append(f"{label}: fjord cat: {err}")
            continue
        wm.write_jsonl(want, state)
        ok, report = wm.compare(java_out, mine)
        if not ok:
            failures.append(f"{label}: Java vs Fjord: {report}")
            continue
        ok, report = wm.compare(java_out, want)
        if not ok:
            failures.append(f"{label}: Java vs the model: {report}")
            continue
        print(f"{label}: {len(state)} rows, Java and Fjord agree")

    # The kinds of the snapshots each writer made.
    for name in TABLES:
        r = wm.run([fj, "snapshots", dirs[name]])
        kinds = [line.split()[2] for line in r.stdout.splitlines()[1:] if line.strip()]
        print(f"{name}: snapshot kinds {' '.join(kinds)}")

    elapsed = time.monotonic() - started
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        print(f"{len(failures)} failures ({elapsed:.1f} s); work dir kept: {work}")
        return 1
    checked = sum(len(c) for c in checkpoints.values())
    print(f"{checked} snapshots of {len(TABLES)} tables read alike ({elapsed:.1f} s)")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
