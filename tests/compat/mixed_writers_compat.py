#!/usr/bin/env python3
"""A Java Paimon writer and Fjord writers append to the same tables at the same time (issue 5,
point 8).

Three tables: an append table partitioned by p (bucket-unaware), an append table with 2 fixed
buckets and a primary-key table with 2 buckets. The bucketed ones are write-only: both writers
would otherwise compact the same buckets, and two compactions of one file are a real conflict
(one of them fails, as it should), not what this test is about. Java commits N times per
table from one JVM (`fjord-oracle batch`, one `write` per commit); as soon as Java's first commit
is in, one `fjord write` loop per table commits N times too. Keys never collide between writers.

Checks, per table: snapshot ids are 1..K without a gap; every Fjord commit (user, identifier) is
there exactly once, and N Java APPEND snapshots; the latest snapshot holds exactly the union of all
rows written (Java's `fjord-oracle dump` and `fjord cat` both); and at every third snapshot
(`--every`) Java and Fjord read the same rows.

    mixed_writers_compat.py --fjord BUILD/tools/fjord [--commits 20] [--rounds 1] [--every 3]
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

TABLES = {
    # Small manifests merged often: Fjord's merges copy the blocks of the first manifest
    # (manifest_merge.h) and Java reads and merges those files.
    "append_p": dict(columns="id BIGINT NOT NULL, p STRING, v STRING", partition_keys="p",
                     primary_key=None, options={"manifest.target-file-size": "4 kb",
                                                "manifest.merge-min-count": "3"}),
    "append_b2": dict(columns="id BIGINT NOT NULL, p STRING, v STRING", partition_keys=None,
                      primary_key=None, options={"bucket": "2", "bucket-key": "id",
                                                  "write-only": "true"}),
    "pk_b2": dict(columns="id BIGINT NOT NULL, p STRING, v STRING", partition_keys=None,
                  primary_key="id", options={"bucket": "2", "write-only": "true"}),
}


def rows_for(writer, table, commit):
    base = (1 if writer == "java" else 2) * 1_000_000 + commit * 100
    return [{"id": base + i, "p": f"p{(commit + i) % 3}", "v": f"{writer}-{commit}-{i}"}
            for i in range(3)]


def snapshots(table_dir):
    d = os.path.join(table_dir, "snapshot")
    out = {}
    for n in os.listdir(d) if os.path.isdir(d) else []:
        if n.startswith("snapshot-"):
            with open(os.path.join(d, n), encoding="utf-8") as f:
                out[int(n[len("snapshot-"):])] = json.load(f)
    return out


def run_round(fj, work, n_commits, round_no, every):
    wh = os.path.join(work, f"wh{round_no}")
    assert wm.run([fj, "db", "create", wh, "w"]).returncode == 0
    dirs = {}
    for name, t in TABLES.items():
        cmd = [fj, "table", "create", wh, f"w.{name}", "--columns", t["columns"]]
        if t["partition_keys"]:
            cmd += ["--partition-keys", t["partition_keys"]]
        if t["primary_key"]:
            cmd += ["--primary-key", t["primary_key"]]
        for k, v in t["options"].items():
            cmd += ["-o", f"{k}={v}"]
        r = wm.run(cmd)
        if r.returncode:
            return [f"create {name}: {r.stderr.strip()}"]
        dirs[name] = os.path.join(wh, "w.db", name)

    def data_file(writer, name, c):
        path = os.path.join(work, f"r{round_no}-{name}-{writer}-{c}.jsonl")
        wm.write_jsonl(path, rows_for(writer, name, c))
        return path

    # Java: all commits of all tables, interleaved, in one JVM.
    lines = [["write", dirs[name], "--input", data_file("java", name, c), "--commit-user",
              "java-mixed"] for c in range(1, n_commits + 1) for name in TABLES]
    batch_path = os.path.join(work, f"r{round_no}-java.txt")
    with open(batch_path, "w", encoding="utf-8") as f:
        for line in lines:
            f.write(json.dumps(line) + "\n")
    java = subprocess.Popen([wm.ORACLE, "batch", batch_path], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)

    # Fjord: once Java has committed, one loop per table.
    deadline = time.monotonic() + 120
    first = dirs[next(iter(TABLES))]
    while time.monotonic() < deadline and java.poll() is None:
        if os.path.isdir(os.path.join(first, "snapshot")) and snapshots(first):
            break
        time.sleep(0.02)
    failures = []
    overlap, lost_races = {}, {}

    def java_commits(name):
        return sum(1 for s in snapshots(dirs[name]).values()
                   if s["commitUser"].startswith("java-mixed_") and s["commitKind"] == "APPEND")

    def fjord_loop(name):
        rng = random.Random(f"{round_no}-{name}")
        for c in range(1, n_commits + 1):
            # Keep pace with Java (its first commits are slow while the JVM warms up), so that
            # the two race for snapshot ids all along rather than one after the other.
            wait_until = time.monotonic() + 20
            while (java.poll() is None and time.monotonic() < wait_until
                   and java_commits(name) < c - 1):
                time.sleep(0.01)
            time.sleep(rng.uniform(0, 0.04))  # land anywhere in Java's next commit
            r = wm.run([fj, "write", dirs[name], "--input", data_file("fjord", name, c),
                        "--commit-user", "fjord-mixed", "--commit-id", str(c)])
            if r.returncode:
                failures.append(f"{name}: fjord write {c}: {r.stderr.strip()[:400]}")
                return
            m = re.search(r"after losing (\d+) race", r.stdout)
            lost_races[name] = lost_races.get(name, 0) + (int(m.group(1)) if m else 0)
        overlap[name] = java.poll() is None  # Java still writing when Fjord finished

    threads = [threading.Thread(target=fjord_loop, args=(name,)) for name in TABLES]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out, err = java.communicate()
    results = [json.loads(x) for x in out.splitlines() if x.startswith("{")]
    for x in results:
        if not x["ok"]:
            failures.append(f"java batch line {x['line']}: {x['message'][:400]}")
    if len(results) != len(lines):
        failures.append(f"java batch: {len(results)} results for {len(lines)} lines: {err[-400:]}")

    # Checks.
    dump_lines, targets = [], []
    for name in TABLES:
        snaps = snapshots(dirs[name])
        ids = sorted(snaps)
        if ids != list(range(1, len(ids) + 1)):
            failures.append(f"{name}: snapshot ids not contiguous: {ids}")
        fjord_ids = [s["commitIdentifier"] for s in snaps.values()
                     if s["commitUser"] == "fjord-mixed"]
        if sorted(fjord_ids) != list(range(1, n_commits + 1)):
            failures.append(f"{name}: Fjord commits present {sorted(fjord_ids)}, "
                            f"expected each of 1..{n_commits} once")
        java_appends = [s for s in snaps.values() if s["commitUser"].startswith("java-mixed_")
                        and s["commitKind"] == "APPEND"]
        if len(java_appends) != n_commits:
            failures.append(f"{name}: {len(java_appends)} Java APPEND snapshots, expected "
                            f"{n_commits}")
        kinds = {}
        for s in snaps.values():
            who = "java" if s["commitUser"].startswith("java-mixed_") else "fjord"
            kinds[f"{who} {s['commitKind']}"] = kinds.get(f"{who} {s['commitKind']}", 0) + 1
        order = "".join("J" if snaps[i]["commitUser"].startswith("java") else "F" for i in ids)
        print(f"round {round_no} {name}: {len(ids)} snapshots {dict(sorted(kinds.items()))}; "
              f"order {order}; Fjord lost {lost_races.get(name, 0)} race(s) for a snapshot id; Java "
              f"still writing when Fjord finished: {overlap.get(name)}")
        for i in ids[::every] + ([] if (len(ids) - 1) % every == 0 else ids[-1:]):
            out = os.path.join(work, f"r{round_no}-{name}-s{i}.java.jsonl")
            dump_lines.append(["dump", dirs[name], "--snapshot", str(i), "--output", out])
            targets.append((name, i, out, i == ids[-1]))
    results = wm.run_batch([wm.ORACLE, "batch"], dump_lines,
                           os.path.join(work, f"r{round_no}-dump.txt"))
    for (name, snap, java_out, last), (ok, message) in zip(targets, results):
        if not ok:
            failures.append(f"{name} snapshot {snap}: Java cannot read: {message[:300]}")
            continue
        mine = os.path.join(work, f"r{round_no}-{name}-s{snap}.fjord.jsonl")
        rc, err = wm.fjord_cat(fj, dirs[name], mine, snap)
        if rc:
            failures.append(f"{name} snapshot {snap}: fjord cat: {err}")
            continue
        ok, report = wm.compare(java_out, mine)
        if not ok:
            failures.append(f"{name} snapshot {snap}: Java vs Fjord: {report}")
        if last:
            want = os.path.join(work, f"r{round_no}-{name}.want.jsonl")
            wm.write_jsonl(want, [r for c in range(1, n_commits + 1)
                                  for w in ("java", "fjord") for r in rows_for(w, name, c)])
            ok, report = wm.compare(java_out, want)
            if not ok:
                failures.append(f"{name} latest snapshot {snap}: not the union: {report}")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--every", type=int, default=3, help="compare every n-th snapshot (and the "
                    "latest) between Java and Fjord")
    args = ap.parse_args()
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-mixed-writers-")
    failures = []
    for round_no in range(1, args.rounds + 1):
        failures += run_round(args.fjord, work, args.commits, round_no, args.every)
    elapsed = time.monotonic() - started
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        print(f"{len(failures)} failures ({elapsed:.1f} s); work dir kept: {work}")
        return 1
    print(f"{args.rounds} round(s) x {len(TABLES)} tables x {args.commits} commits per writer: "
          f"union, contiguous ids, Java and Fjord agree ({elapsed:.1f} s)")
    shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
