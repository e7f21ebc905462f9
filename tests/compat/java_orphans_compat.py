#!/usr/bin/env python3
"""Orphan file clean-up against Java Paimon 1.4 (issue 15 point 9 for point 5; one JVM).

A primary-key table written by `fjord write` (dynamic bucket, so hash index files; input
changelog; compactions; an overwrite; a tag; snapshots expired with `fjord expire`) gets planted
orphans of every kind (data and changelog files, one in a bucket nothing uses, manifest, manifest
list, index manifest, index file, statistics file, stray temporary files in snapshot/), all made
three days old, plus a young data file and manifest. Two copies:
  * the dry runs of `fjord orphans --older-than 1d` and Java's LocalOrphanFilesClean (older than
    one day, `fjord-oracle remove-orphans`) list the same files, the old planted ones;
  * the real runs leave the same files and directories, the young ones kept by both;
  * Java reads the latest snapshot and the tag of Fjord's copy, Fjord those of Java's copy, as
    Fjord read them before.
Then a table with a decoupled changelog (changelog.num-retained.min/max 6, snapshots expired to 3
by `fjord expire`): both clean-ups delete only the planted orphans (one a stray temporary file in
changelog/) and keep every file of the long-lived changelogs.

    java_orphans_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_batch import OracleBatch  # noqa: E402

DAY = 86400


def run(cmd):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()[:500]}")
    return r.stdout


def rows_of(text):
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in text.splitlines() if l.strip())


def tree(root):
    """(files, directories) under root, relative."""
    fs, ds = set(), set()
    for d, dirs, names in os.walk(root):
        ds.update(os.path.relpath(os.path.join(d, n), root) for n in dirs)
        fs.update(os.path.relpath(os.path.join(d, n), root) for n in names)
    return fs, ds


def age_all(root, seconds):
    t = time.time() - seconds
    for d, dirs, names in os.walk(root):
        for n in dirs + names:
            os.utime(os.path.join(d, n), (t, t))


def plant(table, names, seconds):
    for n in names:
        p = os.path.join(table, n)
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "w") as f:
            f.write("orphan " + n)
        t = time.time() - seconds
        os.utime(p, (t, t))


def uuid(i):
    return f"{i:08d}-aaaa-bbbb-cccc-{i:012d}"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    failures = []
    counts = {"checks": 0}

    def check(what, ok, detail=""):
        counts["checks"] += 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {str(detail)[:1500]}"))
        if not ok:
            failures.append(what)

    def write(table, rows, *extra):
        path = os.path.join(work, "in.jsonl")
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        run([fjord, "write", table, "--input", path, *extra])

    def java_clean(table, dry, older_than=-DAY):
        out = oracle.call("remove-orphans", table, "--older-than-millis",
                          str(int((time.time() + older_than) * 1000)), "--dry-run", str(dry).lower())
        return set(open(out, encoding="utf-8").read().split())

    def fjord_clean(table, dry):
        out = run([fjord, "orphans", table, "--older-than", "1d"] + (["--dry-run"] if dry else []))
        return {os.path.relpath(l.split("\t")[1], table) for l in out.splitlines() if l.strip()}

    def unused_before(label, table):
        """What the table's own writes and expiration left unused: Java's dry run counting every
        file as old (its class takes any time; only the procedure asks for a past one)."""
        left = java_clean(table, True, older_than=DAY)
        print(f"{label}: left unused before planting: {sorted(left)}")
        return left

    def both_clean(label, table, planted_old, planted_young):
        """Copies table, runs Java's clean-up on the copy and Fjord's on table; returns the copy.
        planted_old: every file that must go."""
        java_copy = table + "-java"
        shutil.copytree(table, java_copy)
        mine, theirs = fjord_clean(table, True), java_clean(java_copy, True)
        check(f"{label}: Fjord's and Java's dry runs list the same files", mine == theirs,
              {"only Fjord": sorted(mine - theirs), "only Java": sorted(theirs - mine)})
        check(f"{label}: the dry run lists the old planted orphans and what was left unused", mine == set(planted_old),
              sorted(mine ^ set(planted_old)))
        check(f"{label}: the dry runs delete nothing", tree(table) == tree(java_copy) == before_tree,
              "")
        deleted_fjord, deleted_java = fjord_clean(table, False), java_clean(java_copy, False)
        check(f"{label}: Fjord and Java delete the same files", deleted_fjord == deleted_java,
              {"only Fjord": sorted(deleted_fjord - deleted_java),
               "only Java": sorted(deleted_java - deleted_fjord)})
        (mf, md), (jf, jd) = tree(table), tree(java_copy)
        check(f"{label}: the same files remain", mf == jf,
              {"only Fjord kept": sorted(mf - jf), "only Java kept": sorted(jf - mf)})
        check(f"{label}: the same directories remain", md == jd,
              {"only Fjord kept": sorted(md - jd), "only Java kept": sorted(jd - md)})
        check(f"{label}: exactly those are gone",
              mf == before_tree[0] - set(planted_old), sorted(mf ^ (before_tree[0] - set(planted_old))))
        check(f"{label}: the young files are kept by both",
              set(planted_young) <= mf and set(planted_young) <= jf)
        return java_copy

    with tempfile.TemporaryDirectory(prefix="fjord-java-orphans-") as work:
        oracle = OracleBatch(work)
        try:
            wh = os.path.join(work, "wh")
            run([fjord, "db", "create", wh, "db"])

            # 1 and 2: every kind of orphan, old and young.
            run([fjord, "table", "create", wh, "db.t", "--columns", "id INT NOT NULL, v STRING",
                 "--primary-key", "id", "-o", "bucket=-1", "-o", "changelog-producer=input",
                 "-o", "num-sorted-run.compaction-trigger=2"])
            table = os.path.join(wh, "db.db", "t")
            for i in range(6):
                write(table, [{"id": (i * 3 + k) % 7, "v": f"v{i}-{k}"} for k in range(i % 3 + 1)])
            run([fjord, "tag", "create", table, "t3", "--snapshot", "3"])
            write(table, [{"id": 1, "v": "over"}, {"id": 2, "v": "over"}], "--overwrite")
            for i in range(3):
                write(table, [{"id": i, "v": f"w{i}"}, {"id": 5, "v": f"w{i}"}])
            run([fjord, "expire", table, "--retain-min", "3", "--older-than", "0s"])
            latest_rows = rows_of(run([fjord, "cat", table]))
            tag_rows = rows_of(run([fjord, "cat", table, "--tag", "t3"]))
            bucket = next(d for d in sorted(tree(table)[1]) if d.startswith("bucket-"))
            left = unused_before("every kind", table)
            old = [f"{bucket}/data-{uuid(1)}-0.parquet",
                   f"{bucket}/changelog-{uuid(2)}-0.parquet",
                   f"bucket-7/data-{uuid(3)}-0.parquet",
                   f"manifest/manifest-{uuid(4)}-0",
                   f"manifest/manifest-list-{uuid(5)}-0",
                   f"manifest/index-manifest-{uuid(6)}-0",
                   f"index/index-{uuid(7)}-0",
                   f"statistics/stat-{uuid(8)}-0",
                   f"snapshot/.snapshot-99.{uuid(9)}.tmp",
                   f"snapshot/.LATEST.{uuid(10)}.tmp"]
            young = [f"{bucket}/data-{uuid(11)}-0.parquet", f"manifest/manifest-{uuid(12)}-0"]
            age_all(table, 3 * DAY)
            plant(table, old, 3 * DAY)
            plant(table, young, 3600)
            os.makedirs(os.path.join(table, "bucket-9"))  # an old empty bucket directory
            age_all(os.path.join(table, "bucket-9"), 3 * DAY)
            os.utime(os.path.join(table, "bucket-9"), (time.time() - 3 * DAY,) * 2)
            before_tree = tree(table)
            java_copy = both_clean("every kind", table, set(old) | left, young)
            check("every kind: the emptied and the empty old bucket directories are removed",
                  not {"bucket-7", "bucket-9"} & tree(table)[1], sorted(tree(table)[1]))
            check("every kind: Java reads Fjord's copy's latest snapshot as before",
                  rows_of(open(oracle.call("dump", table), encoding="utf-8").read())
                  == latest_rows)
            check("every kind: Java reads Fjord's copy's tag as before",
                  rows_of(open(oracle.call("dump", table, "--tag", "t3"), encoding="utf-8").read())
                  == tag_rows)
            check("every kind: Fjord reads Java's copy's latest snapshot and tag as before",
                  rows_of(run([fjord, "cat", java_copy])) == latest_rows
                  and rows_of(run([fjord, "cat", java_copy, "--tag", "t3"])) == tag_rows)

            # 3: a long-lived changelog.
            run([fjord, "table", "create", wh, "db.c", "--columns", "id INT NOT NULL, v STRING",
                 "--primary-key", "id", "-o", "bucket=2", "-o", "changelog-producer=input",
                 "-o", "changelog.num-retained.min=6", "-o", "changelog.num-retained.max=6",
                 "-o", "num-sorted-run.compaction-trigger=2"])
            table = os.path.join(wh, "db.db", "c")
            for i in range(8):
                write(table, [{"id": (i + k) % 5, "v": f"c{i}-{k}"} for k in range(2)])
            run([fjord, "expire", table, "--retain-min", "3", "--older-than", "0s"])
            files = tree(table)[0]
            changelogs = sorted(f for f in files if f.startswith("changelog/changelog-"))
            check("changelog: long-lived changelogs exist beyond the snapshots",
                  len(changelogs) >= 3, changelogs)
            cl_files = {f for f in files if os.path.basename(f).startswith("changelog-")
                        and f.startswith("bucket-")}
            latest_rows = rows_of(run([fjord, "cat", table]))
            bucket = next(d for d in sorted(tree(table)[1]) if d.startswith("bucket-"))
            left = unused_before("changelog", table)
            old = [f"{bucket}/changelog-{uuid(21)}-0.parquet",
                   f"manifest/manifest-list-{uuid(22)}-0",
                   f"changelog/.changelog-99.{uuid(23)}.tmp"]
            young = [f"{bucket}/changelog-{uuid(24)}-0.parquet"]
            age_all(table, 3 * DAY)
            plant(table, old, 3 * DAY)
            plant(table, young, 3600)
            before_tree = tree(table)
            java_copy = both_clean("changelog", table, set(old) | left, young)
            for label, t in (("Fjord", table), ("Java", java_copy)):
                left = tree(t)[0]
                check(f"changelog: {label} keeps the long-lived changelogs and their files",
                      set(changelogs) | cl_files <= left,
                      sorted((set(changelogs) | cl_files) - left))
            check("changelog: Java reads Fjord's copy as before",
                  rows_of(open(oracle.call("dump", table), encoding="utf-8").read())
                  == latest_rows)
        finally:
            oracle.close()
    print(f"{counts['checks'] - len(failures)} of {counts['checks']} checks ok")
    if failures:
        print(f"{len(failures)} check(s) failed", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
