#!/usr/bin/env python3
"""`fjord tail` (issue 14 point 5): the canonical JSON lines with "_row_kind" first, the batch
form `fjord cat -o`, --max-snapshots / --until-snapshot, a consumer id resumed by the next run,
--follow picking up new commits and stopping cleanly on SIGTERM (progress recorded, exit 0), and
bad options refused.

    cli_tail_test.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile

from cli_checks import CliChecks
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    cli = CliChecks(fjord)
    check, run = cli.check, cli.run

    with tempfile.TemporaryDirectory(prefix="fjord-cli-tail-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        run("table", "create", wh, "db.t", "--columns", "id INT NOT NULL, v STRING",
            "--primary-key", "id", "-o", "bucket=1", "-o", "changelog-producer=input")
        table = os.path.join(wh, "db.db", "t")

        def write(lines):
            path = os.path.join(work, "in.jsonl")
            with open(path, "w") as f:
                f.write("".join(json.dumps(l) + "\n" for l in lines))
            run("write", table, "--input", path)

        write([{"id": 1, "v": "a"}, {"id": 2, "v": "b"}])                    # snapshot 1
        write([{"_row_kind": "-D", "id": 1, "v": "a"}, {"id": 2, "v": "c"}])  # snapshot 2
        write([{"id": 3, "v": "d"}])                                          # snapshot 3

        out = run("tail", table, "-o", "scan.mode=from-snapshot", "-o", "scan.snapshot-id=1")
        lines = out.stdout.splitlines()
        want = ['{"_row_kind":"+I","id":1,"v":"a"}', '{"_row_kind":"+I","id":2,"v":"b"}',
                '{"_row_kind":"-D","id":1,"v":"a"}', '{"_row_kind":"+I","id":2,"v":"c"}',
                '{"_row_kind":"+I","id":3,"v":"d"}']
        check("every change from snapshot 1, canonical JSON with _row_kind first", lines == want,
              lines)
        full = run("tail", table).stdout.splitlines()
        check("latest-full: the latest snapshot whole", full ==
              ['{"_row_kind":"+I","id":2,"v":"c"}', '{"_row_kind":"+I","id":3,"v":"d"}'], full)
        two = run("tail", table, "-o", "scan.snapshot-id=1", "--max-snapshots", "2")
        check("--max-snapshots 2", two.stdout.splitlines() == want[:4], two.stdout)
        until = run("tail", table, "-o", "scan.snapshot-id=1", "--until-snapshot", "1")
        check("--until-snapshot 1", until.stdout.splitlines() == want[:2], until.stdout)
        cat = run("cat", table, "-o", "scan.snapshot-id=1").stdout.splitlines()
        check("fjord cat -o scan.snapshot-id=1 reads snapshot 1",
              cat == ['{"id":1,"v":"a"}', '{"id":2,"v":"b"}'], cat)

        # Incremental queries: start exclusive, end inclusive; by time; diff refused.
        inc = run("cat", table, "-o", "incremental-between=1,3").stdout.splitlines()
        check("cat -o incremental-between=1,3: the changes of snapshots 2 and 3", inc == want[2:],
              inc)
        with open(os.path.join(table, "snapshot", "snapshot-1")) as f:
            t1 = json.load(f)["timeMillis"]
        with open(os.path.join(table, "snapshot", "snapshot-2")) as f:
            t2 = json.load(f)["timeMillis"]
        inc = run("cat", table, "-o", f"incremental-between-timestamp={t1},{t2}").stdout
        check("incremental-between-timestamp: snapshot 2 only", inc.splitlines() == want[2:4],
              inc)
        # The diff mode: the data of snapshot 3 against snapshot 1. Snapshot 1's file is on both
        # sides and drops out; key 1's retraction is the after side's record of the key.
        diff = ['{"_row_kind":"-D","id":1,"v":"a"}', '{"_row_kind":"+I","id":2,"v":"c"}',
                '{"_row_kind":"+I","id":3,"v":"d"}']
        inc = run("cat", table, "-o", "incremental-between=1,3", "-o",
                  "incremental-between-scan-mode=diff").stdout.splitlines()
        check("incremental-between-scan-mode=diff", inc == diff, inc)
        inc = run("cat", table, "-o", "incremental-between=2,3", "-o",
                  "incremental-between-scan-mode=diff").stdout.splitlines()
        check("diff of snapshots 2 and 3: the new key only", inc == diff[2:], inc)
        # Tags (a tag file is a snapshot's JSON): two tags are compared by their data, or with
        # incremental-between-tag-to-snapshot by the changes between their snapshots.
        os.makedirs(os.path.join(table, "tag"))
        for name, snap in (("t1", 1), ("t3", 3), ("2024-01-01", 1), ("2024-01-02", 2),
                           ("2024-01-03", 3), ("2024-01-03 x", 3), ("2023-02-29", 3)):
            shutil.copy(os.path.join(table, "snapshot", f"snapshot-{snap}"),
                        os.path.join(table, "tag", f"tag-{name}"))
        inc = run("cat", table, "-o", "incremental-between=t1,t3").stdout.splitlines()
        check("incremental-between of two tags: a diff", inc == diff, inc)
        inc = run("cat", table, "-o", "incremental-between=t1,t3", "-o",
                  "incremental-between-tag-to-snapshot=true").stdout.splitlines()
        check("incremental-between-tag-to-snapshot: the changes of snapshots 2 and 3",
              inc == want[2:], inc)
        inc = run("cat", table, "-o", "incremental-between=t3,t3").stdout
        check("equal tags: nothing", inc == "", inc)
        bad = run("cat", table, "-o", "incremental-between=t3,t1", ok=False)
        check("an end tag before the start tag is refused",
              bad.returncode != 0 and "before the start tag" in bad.stderr, bad.stderr)
        bad = run("cat", table, "-o", "incremental-between=t1,3", ok=False)
        check("a tag and a number are refused",
              bad.returncode != 0 and "neither two tags nor two snapshot ids" in bad.stderr,
              bad.stderr)
        # incremental-to-auto-tag: against the auto tag of the latest earlier period (daily,
        # with dashes: "2024-01-03 x" and "2023-02-29" are no auto tags of an earlier period).
        inc = run("cat", table, "-o", "incremental-to-auto-tag=2024-01-02").stdout.splitlines()
        check("incremental-to-auto-tag=2024-01-02: snapshot 2 against snapshot 1",
              inc == ['{"_row_kind":"-D","id":1,"v":"a"}', '{"_row_kind":"+I","id":2,"v":"c"}'],
              inc)
        inc = run("cat", table, "-o", "incremental-to-auto-tag=2024-01-01").stdout
        check("incremental-to-auto-tag with no earlier auto tag: nothing", inc == "", inc)
        inc = run("cat", table, "-o", "incremental-to-auto-tag=2024-01-09").stdout
        check("incremental-to-auto-tag of a missing tag: nothing", inc == "", inc)
        bad = run("cat", table, "-o", "incremental-to-auto-tag=t3", ok=False)
        check("incremental-to-auto-tag of a tag that is not an auto tag is refused",
              bad.returncode != 0 and "not an automatically created tag" in bad.stderr,
              bad.stderr)
        hourly = run("cat", table, "-o", "incremental-to-auto-tag=2024-01-02",
                     "-o", "tag.creation-period=hourly", ok=False)
        check("incremental-to-auto-tag follows tag.creation-period",
              hourly.returncode != 0 and "not an automatically created tag" in hourly.stderr,
              hourly.stderr)
        shutil.rmtree(os.path.join(table, "tag"))
        bad = run("cat", table, "-o", "incremental-between=0,9", ok=False)
        check("a range beyond the latest snapshot is refused",
              bad.returncode != 0 and "out of the snapshots" in bad.stderr, bad.stderr)

        # A consumer: the first run stops after one snapshot, the next continues there.
        first = run("tail", table, "--consumer-id", "c", "-o", "scan.snapshot-id=1",
                    "--max-snapshots", "1").stdout.splitlines()
        consumer = os.path.join(table, "consumer", "consumer-c")
        with open(consumer) as f:
            recorded = json.load(f)
        check("consumer file records the next snapshot", recorded == {"nextSnapshot": 2},
              recorded)
        rest = run("tail", table, "--consumer-id", "c").stdout.splitlines()
        check("the same consumer continues exactly", first + rest == want, first + rest)

        # Consumers managed as Java's reset_consumer / clear_consumers do.
        listed = run("consumer", "list", table, "--json").stdout.splitlines()
        check("consumer list", [json.loads(l) for l in listed] ==
              [{"id": "c", "next_snapshot": 4}], listed)
        run("consumer", "reset", table, "c", "--next-snapshot", "2")
        again = run("tail", table, "--consumer-id", "c").stdout.splitlines()
        check("a consumer reset to snapshot 2 continues there", again == want[2:], again)
        bad = run("consumer", "reset", table, "c", "--next-snapshot", "99", ok=False)
        check("a reset to a missing snapshot is refused, nothing written",
              bad.returncode != 0 and "no such snapshot" in bad.stderr and
              run("consumer", "list", table).stdout == "c\t4\n", bad.stderr)
        run("tail", table, "--consumer-id", "c2", "--max-snapshots", "1")
        run("tail", table, "--consumer-id", "keep", "--max-snapshots", "1")
        cleared = run("consumer", "clear", table, "--including", "c.*", "--excluding", "c2")
        check("consumer clear deletes the ids the patterns select",
              cleared.stdout.splitlines() == ["c"] and
              run("consumer", "list", table).stdout.split() == ["c2", "4", "keep", "4"],
              cleared.stdout)
        run("consumer", "reset", table, "keep")
        run("consumer", "clear", table)
        check("reset without a snapshot deletes; clear without patterns deletes all",
              run("consumer", "list", table).stdout == "", "")

        # --follow: picks up a new commit, stops on SIGTERM with progress recorded.
        proc = subprocess.Popen([fjord, "tail", table, "--follow", "--consumer-id", "f",
                                 "-o", "continuous.discovery-interval=100 ms"],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        time.sleep(1.0)
        write([{"id": 4, "v": "e"}])  # snapshot 4
        deadline = time.time() + 20
        seen = False
        while time.time() < deadline and not seen:
            time.sleep(0.2)
            if os.path.exists(os.path.join(table, "consumer", "consumer-f")):
                with open(os.path.join(table, "consumer", "consumer-f")) as f:
                    seen = json.load(f).get("nextSnapshot") == 5
        proc.send_signal(signal.SIGTERM)
        stdout, stderr = proc.communicate(timeout=20)
        check("--follow exits 0 on SIGTERM", proc.returncode == 0, (proc.returncode, stderr))
        check("--follow printed the new commit",
              stdout.splitlines()[-1:] == ['{"_row_kind":"+I","id":4,"v":"e"}'], stdout)
        check("--follow recorded the consumer's progress", seen)

        bad = run("tail", table, "-o", "scan.mode=latest", "-o", "scan.snapshot-id=1", ok=False)
        check("contradicting scan options refused",
              bad.returncode != 0 and "scan.snapshot-id" in bad.stderr, bad.stderr)
        bad = run("tail", table, "-o", "scan.mode=incremental", ok=False)
        check("incremental refused for a stream", bad.returncode != 0, bad.stderr)
        bad = run("tail", table, "-o", "no.such.option=1", ok=False)
        check("unknown option refused", bad.returncode != 0 and "no.such.option" in bad.stderr,
              bad.stderr)
    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
