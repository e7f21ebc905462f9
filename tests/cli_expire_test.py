#!/usr/bin/env python3
"""`fjord expire` (issue 15 point 1): --retain-max / --retain-min keep exactly that many snapshots,
--dry-run lists the files with sizes and deletes nothing (and lists exactly what the real run then
deletes), --older-than takes a duration or an ISO-8601 timestamp (a future one, a bad one and a
retain-max below retain-min are refused with nothing deleted), the table reads the same after, and
post-commit maintenance follows snapshot.num-retained.max.

    cli_expire_test.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import sys
import tempfile

from cli_checks import CliChecks, files_under


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    cli = CliChecks(fjord)
    check, run = cli.check, cli.run

    files = files_under

    with tempfile.TemporaryDirectory(prefix="fjord-cli-expire-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        run("table", "create", wh, "db.t", "--columns", "id INT NOT NULL, v STRING",
            "--primary-key", "id", "-o", "bucket=1")
        table = os.path.join(wh, "db.db", "t")

        def write(table, lines):
            path = os.path.join(work, "in.jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps(l) + "\n" for l in lines))
            run("write", table, "--input", path)

        for i in range(8):
            write(table, [{"id": i % 3, "v": f"v{i}"}])

        def snapshots(t):
            return sorted(int(n[len("snapshot-"):]) for n in os.listdir(os.path.join(t, "snapshot"))
                          if n.startswith("snapshot-"))

        before_rows = run("cat", table).stdout
        latest = snapshots(table)[-1]  # 8 writes, and the writer's own compactions
        check("every snapshot kept (default retention: all younger than 1 h)",
              latest >= 8 and snapshots(table) == list(range(1, latest + 1)), snapshots(table))
        last3 = [latest - 2, latest - 1, latest]

        # Refusals: nothing deleted.
        before = files(table)
        for args, want in [(["--retain-min", "3", "--retain-max", "2"], "retain-max"),
                           (["--older-than", "2999-01-01T00:00:00Z"], "future"),
                           (["--older-than", "yesterday"], "--older-than"),
                           (["--retain-min", "0"], "retain-min")]:
            p = run("expire", table, *args, ok=False)
            check(f"refused: {' '.join(args)}", p.returncode != 0 and want in p.stderr, p.stderr)
        check("refusals delete nothing", files(table) == before)

        dry = run("expire", table, "--retain-max", "3", "--retain-min", "1", "--dry-run")
        listed = [l.split("\t") for l in dry.stdout.splitlines() if "\t" in l]
        check("dry run lists files with sizes", listed and all(int(s) >= 0 for s, _ in listed),
              dry.stdout)
        check("dry run deletes nothing", files(table) == before)
        check("dry run counts all but 3 snapshots",
              f"would expire {latest - 3} snapshots" in dry.stdout, dry.stdout)

        out = run("expire", table, "--retain-max", "3", "--retain-min", "1")
        after = files(table)
        gone = {os.path.relpath(p, table) for _, p in listed}
        check("the real run deletes exactly what the dry run listed", before - after == gone,
              (sorted(before - after), sorted(gone)))
        check("3 snapshots remain", snapshots(table) == last3, snapshots(table))
        check("EARLIEST hint written", open(os.path.join(table, "snapshot", "EARLIEST")).read()
              == str(latest - 2))
        check("latest rows unchanged", run("cat", table).stdout == before_rows)
        check("reported", f"expired {latest - 3} snapshots" in out.stdout, out.stdout)

        # --older-than as a duration: every snapshot is younger than a day, none goes.
        run("expire", table, "--retain-min", "1", "--older-than", "1d")
        check("--older-than 1d keeps young snapshots", snapshots(table) == last3)
        # As a timestamp far in the past: same.
        run("expire", table, "--retain-min", "1", "--older-than", "2000-01-01 00:00:00")
        check("--older-than 2000-01-01 keeps them", snapshots(table) == last3)
        # A duration of 0 s: all but retain-min go.
        run("expire", table, "--retain-min", "1", "--older-than", "0s")
        check("--older-than 0s expires down to retain-min", snapshots(table) == [latest],
              snapshots(table))
        check("rows still the same", run("cat", table).stdout == before_rows)

        # Post-commit maintenance: the table's own retention after each `fjord write`.
        run("table", "create", wh, "db.m", "--columns", "id INT NOT NULL, v STRING",
            "--primary-key", "id", "-o", "bucket=1", "-o", "snapshot.num-retained.max=2",
            "-o", "snapshot.num-retained.min=1")
        m = os.path.join(wh, "db.db", "m")
        for i in range(5):
            write(m, [{"id": i, "v": "x"}])
        kept = snapshots(m)
        check("fjord write expires as snapshot.num-retained.max says",
              len(kept) == 2 and kept[0] > 1 and kept[1] == kept[0] + 1, kept)
        check("the table reads all rows", len(run("cat", m).stdout.splitlines()) == 5)

    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
