#!/usr/bin/env python3
"""`fjord orphans` (issue 15 point 5) end to end through the `fjord` program: planted orphans
older than --older-than go (durations and ISO-8601 timestamps), younger ones and every file in
use stay, the dry run lists sizes and deletes nothing, a future time and a bad TIME are refused
with nothing deleted, and the table reads the same afterwards.

    cli_orphans_test.py --fjord BUILD/tools/fjord
"""
import argparse
import datetime
import json
import os
import sys
import tempfile
import time

from cli_checks import CliChecks, files_under


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    cli = CliChecks(fjord)
    check, run = cli.check, cli.run

    files = files_under

    def age(path, seconds):
        t = time.time() - seconds
        os.utime(path, (t, t))

    with tempfile.TemporaryDirectory(prefix="fjord-cli-orphans-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        run("table", "create", wh, "db.t", "--columns", "dt STRING NOT NULL, k INT NOT NULL, v INT",
            "--partition-keys", "dt", "--primary-key", "dt,k", "-o", "bucket=2")
        table = os.path.join(wh, "db.db", "t")
        inp = os.path.join(work, "in.jsonl")
        for n in range(3):
            with open(inp, "w") as f:
                for k in range(10):
                    f.write(json.dumps({"dt": f"d{k % 2}", "k": k, "v": k * 10 + n}) + "\n")
            run("write", table, "--input", inp)
        before_rows = sorted(run("cat", table).stdout.splitlines())
        in_use = files(table)
        bucket = next(os.path.dirname(f) for f in in_use if "bucket-" in f)
        planted = {
            "old": [os.path.join(bucket, "data-11111111-1111-1111-1111-111111111111-0.parquet"),
                    "manifest/manifest-22222222-2222-2222-2222-222222222222-0",
                    "snapshot/.snapshot-9.33333333-3333-3333-3333-333333333333.tmp",
                    "dt=gone/bucket-0/data-44444444-4444-4444-4444-444444444444-0.parquet"],
            "young": [os.path.join(bucket, "data-55555555-5555-5555-5555-555555555555-0.parquet")],
        }
        for kind, names in planted.items():
            for n in names:
                p = os.path.join(table, n)
                os.makedirs(os.path.dirname(p), exist_ok=True)
                with open(p, "w") as f:
                    f.write("x" * 7)
        for root, dirs, fs in os.walk(table):
            for x in dirs + fs:
                age(os.path.join(root, x), 3 * 86400)
        age(os.path.join(table, planted["young"][0]), 3600)

        p = run("orphans", table, "--older-than", "1d", "--dry-run")
        listed = {os.path.relpath(line.split("\t")[1], table): int(line.split("\t")[0])
                  for line in p.stdout.splitlines()}
        check("dry run lists the old orphans with sizes", listed == {n: 7 for n in planted["old"]},
              listed)
        check("dry run summary", "4 orphan file(s), 28 bytes would be deleted" in p.stderr,
              p.stderr)
        check("dry run deletes nothing", files(table) == in_use | set(sum(planted.values(), [])))

        p = run("orphans", table, "--older-than", "2026-01-01T00:00:00x", ok=False)
        check("bad TIME refused naming the option", p.returncode != 0 and "--older-than" in
              p.stderr, p.stderr)
        future = (datetime.datetime.now() + datetime.timedelta(hours=1)).strftime(
            "%Y-%m-%dT%H:%M:%S")
        p = run("orphans", table, "--older-than", future, ok=False)
        check("future time refused", p.returncode != 0 and "past" in p.stderr, p.stderr)
        check("refusals delete nothing", files(table) == in_use | set(sum(planted.values(), [])))

        iso = (datetime.datetime.now() - datetime.timedelta(days=1)).strftime("%Y-%m-%dT%H:%M:%S")
        p = run("orphans", table, "--older-than", iso)
        check("ISO time deletes the old orphans", files(table) == in_use | set(planted["young"]),
              sorted(files(table) ^ in_use))
        check("emptied partition directory removed",
              not os.path.exists(os.path.join(table, "dt=gone")))
        check("summary counts", "4 orphan file(s), 28 bytes deleted" in p.stderr, p.stderr)

        p = run("orphans", table, "--older-than", "30s")
        check("30s deletes the young one too", files(table) == in_use, sorted(files(table) ^ in_use))
        check("table reads the same", sorted(run("cat", table).stdout.splitlines()) == before_rows)
        p = run("orphans", table)
        check("default run finds nothing more", "0 orphan file(s)" in p.stderr, p.stderr)

    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
