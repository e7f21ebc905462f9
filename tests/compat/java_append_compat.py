#!/usr/bin/env python3
"""Fjord and Java Paimon write the same tables in turn, and both read every state alike.

For every table of write_matrix.py (append tables: plain / partitioned with escaped and NULL
partition values / 3 fixed buckets, × Parquet / ORC / Avro; primary-key tables once `fjord write`
supports them):

1. Fjord creates the table and commits the first rows (snapshot 1);
2. Java Paimon appends the second commit with its own batch writer (`fjord-oracle write`,
   snapshot 2);
3. Fjord commits the third (snapshot 3) on top of Java's.

At snapshots 1, 2 and 3 `fjord cat` and `fjord-oracle dump` must return the same multiset of rows,
equal to what the commits so far define (write_matrix.expected). New level-0 files must continue
the sequence numbers of their bucket (`fjord-oracle files`): Fjord's always, Java's in tables with
fixed buckets or primary keys. (Java's batch writer does not restore the files of a bucket-unaware
append table and starts again at 0 there; sequence numbers do not order anything in such tables.)

The JVM starts twice (two `fjord-oracle batch` runs).

    java_append_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402


# Where Fjord and Java still differ: table spec -> (text the failure shows, why). Failing that way
# is not a failure; reading alike prints a note that the entry is stale; failing otherwise fails.
KNOWN_DIVERGENCES = {}


# ORC stores CHAR(n) padded with blanks to n ("ab" in CHAR(5) as "ab   ", by Java's writer and by
# Fjord's); Java's ORC reader and Fjord's strip the padding and return "ab".
def known_specs():
    rows = [[{"id": n, "c": "ab"}] for n in (1, 2, 3)]
    return [wm.Spec("orc_char_padding", "orc", columns="id INT NOT NULL, c CHAR(5)",
                    commits=rows)]


def load_files(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def check_sequences(spec, before, after, writer):
    """New level-0 files in `after` continue the sequence numbers of their partition and bucket."""
    if writer == "java" and not spec.primary_key and spec.options.get("bucket", "-1") == "-1":
        return None
    old = {f["file"] for f in before}
    top = {}
    for f in before:
        key = (f["partition"], f["bucket"])
        top[key] = max(top.get(key, -1), f["max_seq"])
    for f in after:
        if f["file"] in old or f["level"] != 0:
            continue
        prev = top.get((f["partition"], f["bucket"]), -1)
        if f["min_seq"] != prev + 1:
            return (f"{writer}'s file {f['file']} (bucket {f['bucket']}) starts at sequence "
                    f"{f['min_seq']}, the bucket's previous maximum is {prev}")
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fj = args.fjord
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-java-append-")
    wh = os.path.join(work, "wh")
    assert wm.run([fj, "db", "create", wh, "w"]).returncode == 0
    specs = (wm.append_specs(wm.ESCAPED_PARTITION_VALUES) + wm.edge_specs() + known_specs()
             + wm.pk_specs())
    writers = ["fjord", "java", "fjord"]  # who makes commits 1, 2, 3

    status = {}   # name -> None (running) | "skip" | failure text
    tables = {}
    for spec in specs:
        status[spec.name] = None
        tables[spec.name] = os.path.join(wh, "w.db", spec.name)
        r = wm.run(spec.create_command(fj, wh, "w"))
        if r.returncode:
            status[spec.name] = f"create: {r.stderr.strip()[:300]}"

    def path(spec, what):
        return os.path.join(work, f"{spec.name}-{what}")

    def active():
        return [s for s in specs if status[s.name] is None]

    def fjord_commit(n):
        for spec in active():
            data = path(spec, f"commit{n}.jsonl")
            wm.write_jsonl(data, spec.commits[n - 1])
            r = wm.fjord_write(fj, tables[spec.name], data, n)
            if wm.pk_write_unsupported(spec, r):
                status[spec.name] = "skip"
            elif r.returncode:
                status[spec.name] = f"fjord write {n}: {r.stderr.strip()[:300]}"

    def java_batch(lines_for):
        """lines_for(spec) -> list of oracle command lines; runs them all in one JVM."""
        plan = [(spec, line) for spec in active() for line in lines_for(spec)]
        results = wm.run_batch([wm.ORACLE, "batch"], [line for _, line in plan],
                               os.path.join(work, f"batch-{len(os.listdir(work))}.txt"))
        for (spec, line), (ok, message) in zip(plan, results):
            if not ok and status[spec.name] is None:
                status[spec.name] = f"java {line[0]} {' '.join(line[2:4])}: {message[:400]}"

    def compare_snapshot(spec, n):
        java = path(spec, f"s{n}.java.jsonl")
        mine = path(spec, f"s{n}.fjord.jsonl")
        want = path(spec, f"s{n}.expected.jsonl")
        rc, err = wm.fjord_cat(fj, tables[spec.name], mine, n)
        if rc:
            return f"fjord cat --snapshot {n}: {err}"
        wm.write_jsonl(want, wm.expected(spec, n))
        for p in (java, mine, want):
            wm.normalize_maps(p)
        ok, report = wm.compare(java, mine)
        if not ok:
            return f"snapshot {n}, Java vs Fjord: {report}"
        ok, report = wm.compare(java, want)
        if not ok:
            return f"snapshot {n}, Java vs the rows written: {report}"
        return None

    def dump_lines(spec, snapshots):
        out = []
        for n in snapshots:
            out.append(["dump", tables[spec.name], "--snapshot", str(n),
                        "--output", path(spec, f"s{n}.java.jsonl")])
            out.append(["files", tables[spec.name], "--snapshot", str(n),
                        "--output", path(spec, f"s{n}.files.jsonl")])
        return out

    # 1. Fjord's first commit.
    fjord_commit(1)
    # 2. Java's commit, then Java dumps snapshots 1 and 2 (one JVM).
    for spec in active():
        wm.write_jsonl(path(spec, "commit2.jsonl"), spec.commits[1])
    java_batch(lambda spec: dump_lines(spec, [1])
               + [["write", tables[spec.name], "--input", path(spec, "commit2.jsonl"),
                   "--commit-user", "java-compat"]]
               + dump_lines(spec, [2]))
    for spec in active():
        for n in (1, 2):
            problem = compare_snapshot(spec, n)
            if problem:
                status[spec.name] = problem
                break
    # 3. Fjord's commit on top of Java's, then Java dumps snapshot 3 (second JVM).
    fjord_commit(3)
    java_batch(lambda spec: dump_lines(spec, [3]))
    for spec in active():
        problem = compare_snapshot(spec, 3)
        if not problem:
            files = [load_files(path(spec, f"s{n}.files.jsonl")) for n in (1, 2, 3)]
            problem = (check_sequences(spec, files[0], files[1], writers[1])
                       or check_sequences(spec, files[1], files[2], writers[2]))
        if problem:
            status[spec.name] = problem

    passed = failed = skipped = 0
    for spec in specs:
        st = status[spec.name]
        known = KNOWN_DIVERGENCES.get(spec.name)
        if st == "skip":
            print(f"{spec.name:24s} {wm.SKIP_PK}")
            skipped += 1
        elif known:
            needle, why = known
            if st is not None and needle in st:
                print(f"{spec.name:24s} known divergence: {why}")
                passed += 1
            elif st is None:  # fixed in Fjord: not a failure, but the list is stale
                print(f"{spec.name:24s} ok, and the known divergence ({why}) is gone: "
                      "remove it from KNOWN_DIVERGENCES")
                passed += 1
            else:
                print(f"{spec.name:24s} FAIL {st}")
                failed += 1
        elif st is None:
            print(f"{spec.name:24s} ok (fjord, java, fjord commits; snapshots 1-3 equal)")
            passed += 1
        else:
            print(f"{spec.name:24s} FAIL {st}")
            failed += 1
    print(f"wall time {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work dir kept: {work}")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
