#!/usr/bin/env python3
"""`fjord rollback` (issue 15 point 4) end to end through the `fjord` program: to a snapshot, a
time (ISO and a duration), a tag whose snapshot expired and an expired snapshot id a tag holds;
what it prints and deletes (newer snapshots and tags, not data files: `fjord orphans` removes
those); a consumer left beyond the new latest is warned about; refusals (no target, two targets,
a missing snapshot or tag) change nothing; the next `fjord write` continues from the target.

    cli_rollback_test.py --fjord BUILD/tools/fjord
"""
import argparse
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

    with tempfile.TemporaryDirectory(prefix="fjord-cli-rollback-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        run("table", "create", wh, "db.t", "--columns", "v INT", "-o", "bucket=-1")
        t = os.path.join(wh, "db.db", "t")

        def write(values):
            path = os.path.join(work, "in.jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps({"v": v}) + "\n" for v in values))
            run("write", t, "--input", path)

        def rows(*how):
            out = run("cat", t, *how).stdout
            return sorted(json.loads(l)["v"] for l in out.splitlines() if l.strip())

        def snapshot_ids():
            return sorted(int(n[9:]) for n in os.listdir(os.path.join(t, "snapshot"))
                          if n.startswith("snapshot-"))

        def tag_names():
            return [x["name"] for x in json.loads(run("tag", "list", t, "--json").stdout)]

        for v in range(1, 7):
            write([v])
        run("tag", "create", t, "t2", "--snapshot", "2")
        run("tag", "create", t, "t5", "--snapshot", "5")
        run("consumer", "reset", t, "c", "--next-snapshot", "6")

        # Refusals first: nothing changes.
        before = files_under(t)
        for args, words in ((["--snapshot", "9"], "Rollback snapshot '9' doesn't exist."),
                            (["--tag", "nope"], "nope"),
                            ([], "exactly one"),
                            (["--snapshot", "3", "--tag", "t2"], "exactly one"),
                            (["--timestamp", "2000-01-01T00:00:00Z"], "at or before"),
                            (["--timestamp", "soon"], "--timestamp")):
            p = run("rollback", t, *args, ok=False)
            check(f"rollback {' '.join(args) or '(no target)'} is refused naming the problem",
                  p.returncode == 1 and words in p.stderr, p.stderr)
        check("the refusals changed nothing", files_under(t) == before)

        p = run("rollback", t, "--snapshot", "4")
        check("rollback --snapshot 4 reports what it deleted",
              "rolled back to snapshot 4" in p.stdout and "deleted snapshots 6, 5" in p.stdout
              and "deleted tags t5" in p.stdout and "fjord orphans" in p.stdout, p.stdout)
        check("a consumer waiting for snapshot 6 is warned about",
              "consumer 'c' waits for snapshot 6" in p.stderr and "consumer reset" in p.stderr,
              p.stderr)
        check("snapshots 5 and 6 and tag t5 are gone", snapshot_ids() == [1, 2, 3, 4] and
              tag_names() == ["t2"], (snapshot_ids(), tag_names()))
        check("the latest reads as snapshot 4", rows() == [1, 2, 3, 4], rows())
        data_before = {f for f in before if f.startswith("bucket-")}
        check("no data file was deleted", data_before <= files_under(t))

        p = run("rollback", t, "--timestamp", "0s")
        check("rollback --timestamp 0s (now) keeps the latest", "rolled back to snapshot 4"
              in p.stdout and snapshot_ids() == [1, 2, 3, 4], p.stdout)

        run("expire", t, "--retain-min", "1", "--retain-max", "1")
        check("expiration left snapshot 4 and tag t2", snapshot_ids() == [4] and
              tag_names() == ["t2"], snapshot_ids())
        p = run("rollback", t, "--tag", "t2")
        check("rollback --tag t2 writes its expired snapshot again",
              "rolled back to snapshot 2 (written again from its tag)" in p.stdout and
              snapshot_ids() == [2], (p.stdout, snapshot_ids()))
        check("the latest reads as the tag", rows() == [1, 2] == rows("--tag", "t2"), rows())
        with open(os.path.join(t, "snapshot", "EARLIEST")) as f:
            check("the EARLIEST hint names snapshot 2", f.read().strip() == "2")

        write([7])
        check("the next write is snapshot 3 on top of 2", snapshot_ids() == [2, 3] and
              rows() == [1, 2, 7], (snapshot_ids(), rows()))
        time.sleep(1.5)  # the discarded files must be older than --older-than
        run("orphans", t, "--older-than", "1s")
        check("fjord orphans then removes the data files of the discarded snapshots",
              len({f for f in files_under(t) if f.startswith("bucket-")}) == 3,
              sorted(f for f in files_under(t) if f.startswith("bucket-")))
        check("and the table still reads", rows() == [1, 2, 7] and rows("--tag", "t2") == [1, 2])
    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
