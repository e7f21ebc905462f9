#!/usr/bin/env python3
"""Deletion vectors written by Fjord (issue 19): Java Paimon reads the DELETION_VECTORS index
files Fjord's BucketDeletionVectors writes, and writes the same bytes for the same vectors.

fjord_dv_index_tool writes, for the 32- and the 64-bit layout and two seeds, index files of random
vectors of several shapes (new; restored and changed; all removed) and prints each file's ranges
and the positions it meant to write. In one JVM (`fjord-oracle batch -`), `dv-read` reads each
file with Java's own DeletionVectorsIndexFile, as a restore (entries back to back in the order of
the ranges) and as a read split (each entry at its offset, its length checked), checks each
vector's layout and cardinality, and writes Java's positions; then Java writes the same vectors as
one index file, which must be byte-identical to Fjord's, with the same ranges.

    java_dv_compat.py --tool BUILD/tests/fjord_dv_index_tool
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

from oracle_batch import OracleBatch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-dv-compat-")
    failures = []
    java = OracleBatch(work)

    def check(what, got, want):
        ok = got == want
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": got {got!r}, want {want!r}"))
        if not ok:
            failures.append(what)

    try:
        checked = 0
        for seed in (1, 2):
            table = os.path.join(work, f"seed-{seed}")
            p = subprocess.run([args.tool, table, str(seed)], stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True)
            if p.returncode != 0:
                raise RuntimeError(f"{args.tool} failed: {p.stderr.strip()}")
            for n, line in enumerate(l for l in p.stdout.splitlines() if l.strip()):
                case = json.loads(line)
                name = f"seed {seed} file {n} ({'64' if case['bitmap64'] else '32'}-bit, " \
                       f"{len(case['ranges'])} vectors)"
                ranges = os.path.join(work, f"ranges-{seed}-{n}.json")
                with open(ranges, "w", encoding="utf-8") as f:
                    json.dump(case["ranges"], f)
                out, message = java.call_message(
                    "dv-read", case["path"], "true" if case["bitmap64"] else "false", ranges)
                with open(out, encoding="utf-8") as f:
                    got = {v["file"]: v["positions"] for v in map(json.loads, f) if v}
                check(f"{name}: Java reads the positions written", got, case["vectors"])
                check(f"{name}: Java writes the same bytes and ranges", message,
                      f"vectors {len(case['ranges'])} same-bytes true same-ranges true")
                checked += 1
        check("index files checked", checked, 12)
    finally:
        java.close()
    if failures:
        print(f"{len(failures)} check(s) failed; files kept in {work}")
        return 1
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
