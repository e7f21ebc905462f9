#!/usr/bin/env python3
"""`fjord doctor` (issue 15 point 10) end to end through the `fjord` program: tables built to show
each finding (small files, sorted runs at the stop trigger, expiration not running, a consumer
pinning snapshots, a tag alone keeping bytes, orphans, a stale consumer, a skewed bucket) report
it with its fix in text and JSON, a healthy table reports none, nothing is written to a table;
then the --html page is loaded in headless Chromium and each chart is found drawn (an <svg> with
one bar or point per bucket, file, snapshot, reason and tag), which only the page's script makes.

    cli_doctor_test.py --fjord BUILD/tools/fjord [--chromium chromium]
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

from cli_checks import CliChecks, files_under


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--chromium", default="chromium")
    args = ap.parse_args()
    cli = CliChecks(args.fjord)
    check, run = cli.check, cli.run

    def snapshot_of(table):
        """(path, size, mtime) of every file: what a read-only command must leave alone."""
        out = set()
        for rel in files_under(table):
            st = os.stat(os.path.join(table, rel))
            out.add((rel, st.st_size, st.st_mtime_ns))
        return out

    def doctor(table):
        before = snapshot_of(table)
        text = run("doctor", table).stdout
        report = json.loads(run("doctor", table, "--json").stdout)
        check(f"doctor writes nothing to {os.path.basename(table)}", snapshot_of(table) == before)
        return text, report

    def findings(report, code):
        return [f for f in report["findings"] if f["code"] == code]

    with tempfile.TemporaryDirectory(prefix="fjord-cli-doctor-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        inp = os.path.join(work, "in.jsonl")

        def write(table, rows):
            with open(inp, "w") as f:
                for r in rows:
                    f.write(json.dumps(r) + "\n")
            run("write", table, "--input", inp)

        def create(name, columns, *opts, pk=None, partition=None):
            a = ["table", "create", wh, "db." + name, "--columns", columns]
            if pk:
                a += ["--primary-key", pk]
            if partition:
                a += ["--partition-keys", partition]
            for o in opts:
                a += ["-o", o]
            run(*a)
            return os.path.join(wh, "db.db", name)

        # Healthy: two commits to a primary-key table.
        healthy = create("healthy", "k INT NOT NULL, v STRING", "bucket=2", pk="k")
        for n in range(2):
            write(healthy, [{"k": k, "v": f"v{n}"} for k in range(40)])
        text, report = doctor(healthy)
        check("healthy: no findings (text)", "no findings" in text, text)
        check("healthy: no findings (json)", report["findings"] == [], report["findings"])
        check("healthy: Java's defaults", report["settings"]["target_file_size"] == 128 << 20 and
              report["settings"]["stop_trigger"] == 8 and report["settings"]["retain_min"] == 10,
              report["settings"])

        # Write-only writers: sorted runs pile up, small files, no expiration.
        wo = create("writeonly", "dt STRING NOT NULL, k INT NOT NULL, v STRING", "bucket=1",
                    "write-only=true", "snapshot.num-retained.min=1",
                    "snapshot.num-retained.max=3", pk="dt,k", partition="dt")
        for n in range(9):
            write(wo, [{"dt": "d1", "k": k, "v": f"v{n}"} for k in range(20)])
        text, report = doctor(wo)
        runs = findings(report, "sorted-runs")
        check("write-only: sorted runs at the stop trigger are an error",
              len(runs) == 1 and runs[0]["severity"] == "error" and
              runs[0]["numbers"]["sorted_runs"] == 9 and runs[0]["partition"] == "dt=d1" and
              runs[0]["bucket"] == 0, runs)
        check("write-only: sorted-runs fix", runs and runs[0]["fix"].startswith(
            f"fjord compact {wo} --partition dt=d1") and "write-only" in runs[0]["fix"], runs)
        check("write-only: level-0 files are sorted runs, not small files",
              not findings(report, "small-files"), report["findings"])
        exp = findings(report, "expiration-not-running")
        check("write-only: expiration not running", len(exp) == 1 and
              exp[0]["numbers"]["missed_snapshots"] == 6 and "write-only=true" in exp[0]["message"]
              and exp[0]["fix"].startswith(f"fjord expire {wo}"), exp)
        check("write-only: expiration's dry run agrees",
              report["expiration"]["expirable_snapshots"] == 6, report["expiration"])
        check("write-only: most severe first", report["findings"][0]["code"] == "sorted-runs")
        check("write-only: text names each finding and fix",
              "error sorted-runs [dt=d1 bucket 0]" in text and
              f"fix: fjord expire {wo}" in text, text)
        p = run("expire", wo)
        _, report = doctor(wo)
        check("after fjord expire: no expiration finding",
              not findings(report, "expiration-not-running"), report["findings"])
        run("compact", wo, "--full")
        _, report = doctor(wo)
        check("after fjord compact: no runs or small files",
              not findings(report, "sorted-runs") and not findings(report, "small-files"),
              report["findings"])

        # Append table, bucket-unaware and write-only: the small-file backlog.
        app = create("appendlog", "k INT, v STRING", "write-only=true")
        for n in range(6):
            write(app, [{"k": n, "v": "x"}])
        _, report = doctor(app)
        small = findings(report, "small-files")
        check("append: small-file backlog", len(small) == 1 and
              small[0]["numbers"]["small_files"] == 6 and
              small[0]["numbers"]["target_file_size"] == 256 << 20 and
              small[0]["fix"].startswith(f"fjord compact {app}"), small)

        # A consumer pins snapshots; later a tag alone keeps compacted-away files.
        pin = create("pinned", "k INT NOT NULL, v STRING", "bucket=2",
                     "snapshot.num-retained.min=1", "snapshot.num-retained.max=2", pk="k")
        write(pin, [{"k": k, "v": "a"} for k in range(30)])
        run("tag", "create", pin, "t1")
        run("consumer", "reset", pin, "reader", "--next-snapshot", "1")
        write(pin, [{"k": k, "v": "b"} for k in range(30)])
        write(pin, [{"k": k, "v": "c"} for k in range(30)])
        run("compact", pin, "--full")
        write(pin, [{"k": k, "v": "d"} for k in range(30, 40)])
        text, report = doctor(pin)
        c = findings(report, "consumer-pins-snapshots")
        check("consumer pins snapshots", len(c) == 1 and c[0]["consumer"] == "reader" and
              c[0]["numbers"]["pinned_snapshots"] == 3 and c[0]["numbers"]["pinned_bytes"] > 0 and
              f"fjord consumer reset {pin} reader" in c[0]["fix"], c)
        check("what keeps the oldest: the consumer",
              report["snapshots"][0]["kept_by"] == "consumer:reader", report["snapshots"][0])
        run("consumer", "reset", pin, "reader")
        write(pin, [{"k": k, "v": "e"} for k in range(40, 50)])
        text, report = doctor(pin)
        t = findings(report, "tag-only-bytes")
        check("tag alone keeps bytes", len(t) == 1 and t[0]["tag"] == "t1" and
              t[0]["numbers"]["own_bytes"] > 0 and
              t[0]["numbers"]["own_bytes"] == report["expiration"]["tag_only_bytes"] and
              t[0]["fix"].startswith(f"fjord tag delete {pin} t1"), t)
        check("consumer gone: no pin", not findings(report, "consumer-pins-snapshots"))

        # A consumer past the latest snapshot (as after a rollback) and an old orphan.
        stale = create("stale", "k INT NOT NULL, v STRING", "bucket=1", pk="k")
        write(stale, [{"k": 1, "v": "x"}])
        os.makedirs(os.path.join(stale, "consumer"), exist_ok=True)
        with open(os.path.join(stale, "consumer", "consumer-ahead"), "w") as f:
            f.write('{\n  "nextSnapshot" : 9\n}')
        orphan = os.path.join(stale, "bucket-0", "data-0b0b0b0b-0000-0000-0000-000000000000-0.orc")
        with open(orphan, "w") as f:
            f.write("x" * 11)
        old = time.time() - 3 * 86400
        os.utime(orphan, (old, old))
        text, report = doctor(stale)
        s = findings(report, "stale-consumer")
        check("stale consumer past latest + 1", len(s) == 1 and s[0]["consumer"] == "ahead" and
              s[0]["numbers"]["next_snapshot"] == 9 and
              f"fjord consumer reset {stale} ahead --next-snapshot 1" in s[0]["fix"], s)
        o = findings(report, "orphan-files")
        check("old orphan", len(o) == 1 and o[0]["severity"] == "warning" and
              o[0]["numbers"]["old_files"] == 1 and o[0]["numbers"]["old_bytes"] == 11 and
              o[0]["fix"].startswith(f"fjord orphans {stale}"), o)
        check("doctor deleted no orphan", os.path.exists(orphan))

        # Skew: one hot bucket key in a fixed-bucket append table.
        skew = create("skewed", "k INT, v STRING", "bucket=4", "bucket-key=k")
        write(skew, [{"k": 7, "v": "hot"} for _ in range(600)] +
              [{"k": k, "v": "x"} for k in range(200)])
        _, report = doctor(skew)
        sk = findings(report, "skewed-bucket")
        check("skewed bucket", len(sk) == 1 and sk[0]["numbers"]["rows"] >= 600 and
              "bucket-key" in sk[0]["fix"], sk)
        check("skew: the empty buckets count", len(report["buckets"]) == 4, report["buckets"])

        # A table without snapshots; refusals.
        empty_t = create("empty", "k INT, v STRING")
        text, report = doctor(empty_t)
        check("empty table: no snapshot, no findings", "no snapshot" in text and
              report["findings"] == [] and report["latest_snapshot"] is None, text)
        p = run("doctor", os.path.join(work, "missing"), ok=False)
        check("not a table: refused naming it", p.returncode == 1 and "missing" in p.stderr and
              "not a Paimon table" in p.stderr, p.stderr)
        p = run("doctor", empty_t, "--html", os.path.join(work, "no", "such", "dir.html"), ok=False)
        check("unwritable --html: refused naming the file", p.returncode == 1 and
              "dir.html" in p.stderr, p.stderr)

        # The HTML page, in a real browser.
        page = os.path.join(work, "doctor.html")
        run("doctor", pin, "--html", page)
        _, report = doctor(pin)
        html = open(page, encoding="utf-8").read()
        check("html: no external resource",
              re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", html) is None and
              "<link" not in html)
        chromium = shutil.which(args.chromium)
        check("chromium installed (scripts/bootstrap.sh)", chromium is not None, args.chromium)
        if chromium:
            profile = tempfile.mkdtemp(prefix="chromium-", dir=work)
            p = subprocess.run([chromium, "--headless", "--disable-gpu", "--no-sandbox",
                                "--no-first-run", "--disable-extensions", f"--user-data-dir={profile}",
                                "--virtual-time-budget=5000", "--dump-dom", "file://" + page],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               timeout=90)
            dom = p.stdout
            check("chromium rendered the page", p.returncode == 0 and
                  'data-rendered="yes"' in dom, p.stderr[-2000:])

            def section(id_):
                m = re.search(r'<div id="' + id_ + r'">(.*?)</div>', dom, re.S)
                return m.group(1) if m else ""

            def count(id_, cls):
                return len(re.findall(r'class="' + cls + '"', section(id_)))

            nfiles = sum(b["files"] for b in report["buckets"])
            check("html: findings table", len(re.findall(r'<tr class="finding">', dom)) ==
                  len(report["findings"]) > 0)
            check("html: one bar per file", "<svg" in section("chart-file-sizes") and
                  count("chart-file-sizes", "file-bar") == nfiles > 0,
                  (count("chart-file-sizes", "file-bar"), nfiles))
            check("html: target line", "target-file-size" in section("chart-file-sizes"))
            check("html: sorted runs per bucket against the triggers",
                  count("chart-sorted-runs", "runs-bar") == len(report["buckets"]) and
                  "stop trigger 8" in section("chart-sorted-runs"))
            check("html: rows per bucket", count("chart-skew", "rows-bar") == len(report["buckets"]))
            check("html: one point per snapshot",
                  count("chart-snapshots", "snap-point") == len(report["snapshots"]) and
                  count("chart-snapshots", "tag-point") == len(report["tags"]) == 1)
            reasons = {s["kept_by"] for s in report["snapshots"]}
            check("html: what keeps them", count("chart-pins", "pin-bar") == len(reasons) and
                  count("chart-pins", "tag-bar") == 1 and "tag t1" in section("chart-pins"))

    return cli.summary()


if __name__ == "__main__":
    sys.exit(main())
