#!/usr/bin/env python3
"""`fjord expire-partitions` and partition expiration at commit (issue 15 point 6), end to end
through the `fjord` program: the dry run lists and drops nothing, --max-expires keeps the first
partitions in Java's order, --now / --timestamp-formatter / --timestamp-pattern / --strategy,
what remains readable afterwards, the OVERWRITE snapshot, bad input refused with nothing
committed, and a table with `partition.expiration-time` expiring at `fjord write` (not when
write-only).

    cli_partition_expire_test.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import sys
import tempfile

from cli_checks import CliChecks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    cli = CliChecks(fjord)
    check, run = cli.check, cli.run

    with tempfile.TemporaryDirectory(prefix="fjord-cli-partexp-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")

        def create(name, columns, keys, *options):
            args = ["table", "create", wh, "db." + name, "--columns", columns,
                    "--partition-keys", keys]
            for o in options:
                args += ["-o", o]
            run(*args)
            return os.path.join(wh, "db.db", name)

        def write(table, rows):
            path = os.path.join(work, "in.jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps(r) + "\n" for r in rows))
            run("write", table, "--input", path)

        def rows(table):
            return sorted(run("cat", table).stdout.splitlines())

        def snapshot_count(table):
            return len(os.listdir(os.path.join(table, "snapshot"))) - 2  # EARLIEST, LATEST

        def latest_snapshot(table):
            d = os.path.join(table, "snapshot")
            with open(os.path.join(d, "LATEST")) as f:
                latest = int(f.read().strip())
            with open(os.path.join(d, f"snapshot-{latest}")) as f:
                return json.load(f)

        t = create("t", "dt STRING, v INT", "dt", "bucket=-1")
        write(t, [{"dt": "2000-01-01", "v": 1}, {"dt": "2000-01-02", "v": 2},
                  {"dt": "2000-1-3", "v": 3}, {"dt": "2999-01-01", "v": 4},
                  {"dt": "junk", "v": 5}])
        before = snapshot_count(t)

        p = run("expire-partitions", t, "--expiration-time", "1 d", "--dry-run")
        check("dry run lists the old partitions in Java's text order",
              p.stdout.splitlines() == ["dt=2000-01-01", "dt=2000-01-02", "dt=2000-1-3"],
              p.stdout)
        check("dry run commits nothing", snapshot_count(t) == before)
        check("an unparseable value is warned about, not dropped", "dt:junk" in p.stderr,
              p.stderr)

        p = run("expire-partitions", t, "--expiration-time", "1 d", "--max-expires", "1")
        check("--max-expires 1 drops the first", p.stdout.splitlines() == ["dt=2000-01-01"],
              p.stdout)
        s = latest_snapshot(t)
        check("one OVERWRITE snapshot, Java's procedure identity",
              snapshot_count(t) == before + 1 and s["commitKind"] == "OVERWRITE"
              and s["commitIdentifier"] == 9223372036854775807 and s["commitUser"] == "", s)
        check("the dropped partition's rows are gone, the others read",
              rows(t) == sorted(['{"dt":"2000-01-02","v":2}', '{"dt":"2000-1-3","v":3}',
                                 '{"dt":"2999-01-01","v":4}', '{"dt":"junk","v":5}']), rows(t))

        p = run("expire-partitions", t, "--expiration-time", "1 d",
                "--timestamp-formatter", "yyyy-MM-dd", "--now", "2999-01-02T00:00:01")
        check("a formatter and --now: 2000-1-3 does not parse with MM, 2999-01-01 is old then",
              p.stdout.splitlines() == ["dt=2000-01-02", "dt=2999-01-01"], p.stdout)
        check("rows after the second run",
              rows(t) == sorted(['{"dt":"2000-1-3","v":3}', '{"dt":"junk","v":5}']), rows(t))

        p = run("expire-partitions", t, "--expiration-time", "1 d", "--strategy", "update-time")
        check("update-time: files written just now are young", p.stdout.strip() ==
              "No expired partitions.", p.stdout)
        p = run("expire-partitions", t, "--expiration-time", "1 d", "--strategy", "update-time",
                "--now", "3000-01-01T00:00:00")
        check("update-time with a far now drops every partition, whatever its value",
              p.stdout.splitlines() == ["dt=2000-1-3", "dt=junk"], p.stdout)
        check("the table is empty", rows(t) == [], rows(t))

        # Two keys and a pattern.
        h = create("h", "dt STRING, hr INT, v INT", "dt,hr", "bucket=-1")
        write(h, [{"dt": "2024-01-15", "hr": x, "v": x} for x in (1, 8, 9, 23)])
        p = run("expire-partitions", h, "--expiration-time", "1 h", "--timestamp-pattern",
                "$dt $hr:00:00", "--timestamp-formatter", "yyyy-MM-dd H:mm:ss", "--now",
                "2024-01-15T10:00:00")
        check("$dt $hr:00:00 with two keys", p.stdout.splitlines() ==
              ["dt=2024-01-15,hr=1", "dt=2024-01-15,hr=8"], p.stdout)

        # Bad input: refused, nothing committed.
        n = snapshot_count(h)
        p = run("expire-partitions", h, "--expiration-time", "1 h", "--timestamp-formatter",
                "dd MMM yyyy", ok=False)
        check("a formatter Fjord does not honour is refused naming it",
              p.returncode == 1 and "partition.timestamp-formatter 'dd MMM yyyy'" in p.stderr,
              p.stderr)
        p = run("expire-partitions", h, ok=False)
        check("no expiration time is refused",
              p.returncode == 1 and "partition.expiration-time" in p.stderr, p.stderr)
        p = run("expire-partitions", h, "--expiration-time", "soon", ok=False)
        check("a bad duration is refused naming the option",
              p.returncode == 1 and "partition.expiration-time" in p.stderr, p.stderr)
        check("nothing committed by refused runs", snapshot_count(h) == n)
        run("table", "create", wh, "db.u", "--columns", "v INT", "-o", "bucket=-1")
        u = os.path.join(wh, "db.db", "u")
        p = run("expire-partitions", u, "--expiration-time", "1 d", ok=False)
        check("an unpartitioned table is refused",
              p.returncode == 1 and "partition" in p.stderr, p.stderr)

        # At commit: the table's own options, checked at every commit (interval 0).
        c = create("c", "dt STRING, v INT", "dt", "bucket=-1", "partition.expiration-time=1 d",
                   "partition.expiration-check-interval=0")
        write(c, [{"dt": "2999-01-01", "v": 1}, {"dt": "2001-01-01", "v": 2}])
        s = latest_snapshot(c)
        check("fjord write expires the old partition right after its commit",
              rows(c) == ['{"dt":"2999-01-01","v":1}'] and s["commitKind"] == "OVERWRITE",
              (rows(c), s["commitKind"]))
        run("table", "alter", wh, "db.c", "--set", "write-only=true")
        write(c, [{"dt": "2002-01-01", "v": 3}])
        check("a write-only writer does not expire",
              rows(c) == ['{"dt":"2002-01-01","v":3}', '{"dt":"2999-01-01","v":1}']
              and latest_snapshot(c)["commitKind"] == "APPEND", rows(c))

    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
