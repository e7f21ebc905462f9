#!/usr/bin/env python3
"""Snapshot expiration against Java Paimon 1.4 (issue 15 point 9; one JVM for the suite).

For changelog-producer none and input, each with the changelog coupled to snapshots and
decoupled (changelog.num-retained.min/max = 6 while snapshots keep 3), a primary-key table written
by `fjord write` (10 commits, compactions, a tag on snapshot 3) is copied twice:
  * Fjord expires one copy (`fjord expire --retain-min 3 --older-than 0s`), Java Paimon's own
    ExpireSnapshots (and ExpireChangelog when decoupled) the other with the same config
    (`fjord-oracle expire`): the two copies must hold exactly the same files afterwards;
  * Java reads every retained snapshot and the tag of Fjord's copy, equal to what Fjord read
    there before expiring; Java then writes to it and Fjord reads the result.
Then a table Java wrote (`fjord-oracle write`, 6 commits) is expired by Fjord and Java reads
every retained snapshot as before.

    java_expire_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_batch import OracleBatch  # noqa: E402
from table_files import files, rows_of, run, snapshots  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    failures = []
    counts = {"compared_file_sets": 0, "java_reads": 0}

    def check(what, ok, detail=""):
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {str(detail)[:1500]}"))
        if not ok:
            failures.append(what)

    with tempfile.TemporaryDirectory(prefix="fjord-java-expire-") as work:
        oracle = OracleBatch(work)
        try:
            wh = os.path.join(work, "wh")
            run([fjord, "db", "create", wh, "db"])
            n = 0
            for producer in ("none", "input"):
                for decoupled in (False, True):
                    n += 1
                    name = f"t{n}"
                    label = f"{producer}{' decoupled' if decoupled else ''}"
                    opts = ["-o", "bucket=2", "-o", f"changelog-producer={producer}",
                            "-o", "num-sorted-run.compaction-trigger=2"]
                    if decoupled:
                        opts += ["-o", "changelog.num-retained.min=6",
                                 "-o", "changelog.num-retained.max=6"]
                    run([fjord, "table", "create", wh, f"db.{name}", "--columns",
                         "id INT NOT NULL, v STRING", "--primary-key", "id", *opts])
                    table = os.path.join(wh, "db.db", name)
                    for i in range(10):
                        path = os.path.join(work, "in.jsonl")
                        with open(path, "w") as f:
                            for k in range(i % 4 + 1):
                                f.write(json.dumps({"id": (i * 3 + k) % 7, "v": f"v{i}-{k}"}) + "\n")
                            if i % 3 == 2:
                                f.write(json.dumps({"_row_kind": "-D", "id": (i + 1) % 7}) + "\n")
                        run([fjord, "write", table, "--input", path])
                    os.makedirs(os.path.join(table, "tag"), exist_ok=True)
                    shutil.copy(os.path.join(table, "snapshot", "snapshot-3"),
                                os.path.join(table, "tag", "tag-t3"))
                    before = {s: rows_of(run([fjord, "cat", table, "--snapshot", str(s)]), False)
                              for s in snapshots(table)}
                    java_copy = table + "-java"
                    shutil.copytree(table, java_copy)

                    run([fjord, "expire", table, "--retain-min", "3", "--older-than", "0s"])
                    args = ["expire", java_copy, "--retain-min", "3", "--time-retained-ms", "0"]
                    if decoupled:
                        args += ["--changelog-retain-min", "6", "--changelog-retain-max", "6"]
                    print(f"{label}: Java's expiration: {oracle.message(*args)}")
                    mine, theirs = files(table), files(java_copy)
                    counts["compared_file_sets"] += 1
                    check(f"{label}: Fjord's and Java's expiration leave the same files",
                          mine == theirs,
                          {"only Fjord kept": sorted(mine - theirs),
                           "only Java kept": sorted(theirs - mine)})
                    kept = snapshots(table)
                    check(f"{label}: 3 snapshots kept", len(kept) == 3, kept)
                    if decoupled:
                        cl = sorted(f for f in mine if f.startswith("changelog/changelog-"))
                        check(f"{label}: long-lived changelogs kept", len(cl) >= 3, cl)
                    for s in kept:
                        out = oracle.call("dump", table, "--snapshot", str(s))
                        counts["java_reads"] += 1
                        check(f"{label}: Java reads retained snapshot {s} as before",
                              rows_of(out) == before[s])
                    out = oracle.call("dump", table, "--tag", "t3")
                    counts["java_reads"] += 1
                    check(f"{label}: Java reads tag t3", rows_of(out) == before[3])
                    # Java writes on, Fjord reads.
                    path = os.path.join(work, "java.jsonl")
                    with open(path, "w") as f:
                        f.write(json.dumps({"id": 100, "v": "java"}) + "\n")
                    oracle.message("write", table, "--input", path)
                    latest = rows_of(run([fjord, "cat", table]), False)
                    want = sorted(before[max(before)] + [json.dumps({"id": 100, "v": "java"},
                                                                    sort_keys=True)])
                    check(f"{label}: Java writes to the expired table, Fjord reads it",
                          latest == want)

            # A table Java wrote, expired by Fjord.
            run([fjord, "table", "create", wh, "db.j", "--columns", "id INT NOT NULL, v STRING",
                 "--primary-key", "id", "-o", "bucket=1"])
            jt = os.path.join(wh, "db.db", "j")
            for i in range(6):
                path = os.path.join(work, "j.jsonl")
                with open(path, "w") as f:
                    f.write(json.dumps({"id": i % 3, "v": f"j{i}"}) + "\n")
                oracle.message("write", jt, "--input", path)
            before = {s: rows_of(oracle.call("dump", jt, "--snapshot", str(s)))
                      for s in snapshots(jt)}
            run([fjord, "expire", jt, "--retain-min", "2", "--older-than", "0s"])
            kept = snapshots(jt)
            check("Java-written table: Fjord keeps 2 snapshots", len(kept) == 2, kept)
            for s in kept:
                counts["java_reads"] += 1
                check(f"Java-written table: Java reads snapshot {s} after Fjord's expiration",
                      rows_of(oracle.call("dump", jt, "--snapshot", str(s))) == before[s])
        finally:
            oracle.close()
    print(f"file sets compared: {counts['compared_file_sets']}, Java reads: {counts['java_reads']}")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
