#!/usr/bin/env python3
"""`fjord tag create|delete|list` and automatic tags at commit (issue 15 point 3), end to end
through the `fjord` program: create from the latest or a given snapshot with a time retained
(Java's tag JSON), list as text and JSON, refusals (existing name, missing snapshot, blank name,
bad duration) with nothing written, reads of a tag, delete, a table with
`tag.automatic-creation` getting a tag at `fjord write`, and batch tags (`batch-write-<date>`,
replaced by the next batch write the same day, none for streaming identifiers, moved by a
dedicated compaction, the customized name).

    cli_tag_test.py --fjord BUILD/tools/fjord
"""
import argparse
import datetime
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

    with tempfile.TemporaryDirectory(prefix="fjord-cli-tag-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")

        def create(name, *options):
            args = ["table", "create", wh, "db." + name, "--columns", "v INT"]
            for o in options:
                args += ["-o", o]
            run(*args)
            return os.path.join(wh, "db.db", name)

        def write(table, values):
            path = os.path.join(work, "in.jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps({"v": v}) + "\n" for v in values))
            run("write", table, "--input", path)

        def tags(table):
            return json.loads(run("tag", "list", table, "--json").stdout)

        t = create("t", "bucket=-1")
        write(t, [1])
        write(t, [2])
        run("tag", "create", t, "latest")
        run("tag", "create", t, "first", "--snapshot", "1", "--time-retained", "1 d")
        listed = tags(t)
        check("list --json names both tags with their snapshots",
              [(x["name"], x["snapshot"]) for x in listed] == [("first", 1), ("latest", 2)],
              listed)
        check("the retention is listed", listed[0]["time_retained_millis"] == 86400000 and
              listed[0]["create_time"] is not None and listed[1]["create_time"] is None, listed)
        with open(os.path.join(t, "tag", "tag-first")) as f:
            text = f.read()
        check("the tag file ends with Java's tag fields",
              '"tagCreateTime" : [ ' in text and text.rstrip().endswith(
                  '"tagTimeRetained" : 86400.000000000\n}'.rstrip()), text)
        p = run("tag", "list", t)
        check("text list has a header and two rows", len(p.stdout.splitlines()) == 3, p.stdout)
        p = run("cat", t, "--tag", "first")
        check("a tag reads its snapshot", p.stdout.split() == ['{"v":1}'], p.stdout)

        for what, args, needle in [
                ("an existing name", ["latest"], "already exists"),
                ("a missing snapshot", ["x", "--snapshot", "9"], "Snapshot 9 doesn't exist"),
                ("a blank name", [" "], "blank"),
                ("a bad duration", ["y", "--time-retained", "soon"], "soon")]:
            p = run("tag", "create", t, *args, ok=False)
            check(f"{what} is refused", p.returncode != 0 and needle in p.stderr, p.stderr)
        check("refusals wrote no tag", len(tags(t)) == 2)

        run("tag", "delete", t, "first")
        check("delete removes the tag", [x["name"] for x in tags(t)] == ["latest"])
        p = run("tag", "delete", t, "first", ok=False)
        check("deleting a missing tag fails", p.returncode != 0 and "doesn't exist" in p.stderr,
              p.stderr)

        a = create("auto", "bucket=-1", "tag.automatic-creation=process-time",
                   "tag.creation-period=hourly", "sink.process-time-zone=UTC")
        write(a, [1])
        auto = tags(a)
        check("a commit creates the first auto tag at once",
              len(auto) == 1 and auto[0]["snapshot"] == 1 and len(auto[0]["name"]) == 13, auto)
        w = create("wo", "bucket=-1", "tag.automatic-creation=process-time", "write-only=true")
        write(w, [1])
        check("write-only writers create no tags", tags(w) == [])

        # Batch mode: every `fjord write` without --commit-id ends a batch job and tags the
        # latest snapshot batch-write-<its commit date in sink.process-time-zone>.
        b = create("b", "bucket=-1", "tag.automatic-creation=batch", "sink.process-time-zone=UTC")

        def batch_name(snapshot_id):
            with open(os.path.join(b, "snapshot", f"snapshot-{snapshot_id}")) as f:
                millis = json.load(f)["timeMillis"]
            day = datetime.datetime.fromtimestamp(millis / 1000, datetime.timezone.utc)
            return "batch-write-" + day.strftime("%Y-%m-%d")

        write(b, [1])
        listed = [(x["name"], x["snapshot"]) for x in tags(b)]
        check("a batch write tags its snapshot batch-write-<date>",
              listed == [(batch_name(1), 1)], listed)
        write(b, [2])
        listed = [(x["name"], x["snapshot"]) for x in tags(b)]
        expect = sorted({batch_name(1): 1, batch_name(2): 2}.items())  # 1's replaced the same day
        check("a second batch write the same day moves the tag to the new snapshot",
              listed == expect and dict(listed)[batch_name(2)] == 2, listed)
        path = os.path.join(work, "in.jsonl")
        run("write", b, "--input", path, "--commit-user", "stream", "--commit-id", "5")
        check("a commit under a streaming identifier makes no batch tag",
              [(x["name"], x["snapshot"]) for x in tags(b)] == listed, tags(b))
        run("compact", b, "--full")
        latest = max(int(f.split("-")[1]) for f in os.listdir(os.path.join(b, "snapshot"))
                     if f.startswith("snapshot-"))
        check("a dedicated compaction ends a batch job: the latest snapshot gets the tag",
              latest >= 4 and any(x["name"] == batch_name(latest) and x["snapshot"] == latest
                                  for x in tags(b)), (latest, tags(b)))
        n = create("named", "bucket=-1", "tag.automatic-creation=batch",
                   "tag.batch.customized-name=nightly")
        write(n, [1])
        write(n, [2])
        check("tag.batch.customized-name names the batch tag, replaced at every job",
              [(x["name"], x["snapshot"]) for x in tags(n)] == [("nightly", 2)], tags(n))
        z = create("z", "bucket=-1", "tag.automatic-creation=batch",
                   "sink.process-time-zone=Europe/Paris")
        p = run("write", z, "--input", path, ok=False)
        check("a region zone is refused before committing, naming the option",
              p.returncode != 0 and "sink.process-time-zone" in p.stderr and
              not os.path.exists(os.path.join(z, "snapshot", "snapshot-1")), p.stderr)

    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
