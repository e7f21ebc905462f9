#!/usr/bin/env python3
"""An hour of 1 s checkpoints in a few minutes: files per bucket stay bounded (issue 16 point 8).

`fjord run` streams datagen upserts into a primary-key table (4 buckets, deduplicate, the
writers' compaction at Paimon's defaults) and appends into a fixed-bucket append table (4
buckets, compacted by the writers too). Time is compressed by --speedup (default 10): the
checkpoint interval is 1 s / speedup and the source rate is --rate x speedup rows per second, so
each checkpoint carries what a 1 s checkpoint would (the report gives the rows per checkpoint
measured: more when checkpoints take longer than their interval), and --checkpoints (default
3600) of them are an hour of checkpoints. Time-based options are scaled alike
(snapshot.time-retained 1 h -> 6 min); snapshot.num-retained.max is set to 120 so that
expiration bounds the files on disk too.

While the jobs run, /metrics is read every --sample seconds; the report has, per 5 simulated
minutes, the checkpoints done, the most live data files of any bucket in the latest snapshot
(`fjord stats`), the most data files, level-0 files and sorted runs of any bucket in the writers'
view (primary-key table), the snapshots retained and the data files on disk. At the end `fjord stats`
gives the live files per bucket and the table is checked: as many rows as distinct keys, each
key once.

    bench/runtime_soak.py --fjord build/relwithdebinfo/tools/fjord [--checkpoints 3600] \
        [--speedup 50] [--rate 1000] [--out bench/results/DATE-runtime-soak.md]
"""
import argparse
import datetime
import json
import os
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from metrics_scrape import free_port, named, scrape  # noqa: E402

KEYS = 100_000


def data_files_on_disk(table):
    n = 0
    for root, _, files in os.walk(table):
        n += sum(1 for f in files if f.startswith("data-"))
    return n


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--checkpoints", type=int, default=3600)
    ap.add_argument("--speedup", type=int, default=10)
    ap.add_argument("--rate", type=int, default=1000, help="rows per simulated second")
    ap.add_argument("--sample", type=float, default=1.0)
    ap.add_argument("--tables", default="pk,app", help="which of the two tables: pk, app")
    ap.add_argument("--out")
    args = ap.parse_args()
    fjord = os.path.abspath(args.fjord)
    interval_ms = max(1, 1000 // args.speedup)
    rate = args.rate * args.speedup
    retained_s = 3600 // args.speedup

    def run(*a):
        p = subprocess.run([fjord, *a], capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit(f"fjord {' '.join(a)} failed:\n{p.stdout}\n{p.stderr}")
        return p.stdout

    report = []
    with tempfile.TemporaryDirectory(prefix="fjord-runtime-soak-") as work:
        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        common = ["-o", f"snapshot.time-retained={retained_s} s", "-o",
                  "snapshot.num-retained.max=120"]
        run("table", "create", wh, "db.pk", "--columns",
            "k BIGINT NOT NULL, v BIGINT, s STRING", "--primary-key", "k", "-o", "bucket=4",
            *common)
        run("table", "create", wh, "db.app", "--columns", "k BIGINT, v BIGINT, s STRING",
            "-o", "bucket=4", "-o", "bucket-key=k", *common)
        jobs = {}
        wanted = args.tables.split(",")
        for name, update in (("pk", 0.5), ("app", 0.0)):
            if name not in wanted:
                continue
            port = free_port()
            path = os.path.join(work, f"{name}.yaml")
            with open(path, "w") as f:
                f.write(f"source: {{type: datagen, rows-per-second: {rate}, key-range: {KEYS}, "
                        f"update-ratio: {update}}}\n"
                        f"sink: {{table: wh/db.db/{name}}}\n"
                        f"pipeline: {{parallelism: 2, checkpoint-interval: {interval_ms}ms, "
                        f"state-dir: state-{name}, metrics-port: {port}}}\n")
            log = open(os.path.join(work, f"{name}.log"), "w")
            jobs[name] = {"port": port, "log": log, "rows": [],
                          "proc": subprocess.Popen([fjord, "run", path], cwd=work, stdout=log,
                                                   stderr=subprocess.STDOUT)}
        started = time.time()
        every = 300  # checkpoints: 5 simulated minutes
        next_mark = {name: every for name in jobs}
        peak = {name: {"files": 0, "level0": 0, "runs": 0} for name in jobs}
        done = set()
        while len(done) < len(jobs):
            time.sleep(args.sample)
            for name, j in jobs.items():
                if name in done:
                    continue
                if j["proc"].poll() is not None:
                    sys.exit(f"{name} exited early ({j['proc'].returncode}); see its log")
                values = scrape(j["port"])
                if not values:
                    continue
                cp = int(values.get(f'fjord_job_last_checkpoint_id{{job="{name}"}}', 0))
                files = named(values, "fjord_job_bucket_files").values()
                level0 = named(values, "fjord_job_bucket_level0_files").values()
                runs = named(values, "fjord_job_bucket_sorted_runs").values()
                pk = peak[name]
                pk["files"] = max([pk["files"], *files])
                pk["level0"] = max([pk["level0"], *level0])
                pk["runs"] = max([pk["runs"], *runs])
                if cp >= next_mark[name] or cp >= args.checkpoints:
                    table = os.path.join(wh, "db.db", name)
                    live = json.loads(run("stats", "--json", table))["buckets"]
                    j["rows"].append({
                        "live": max([b["files"] for b in live] or [0]),
                        "per_checkpoint": values.get(
                            f'fjord_job_records_in_total{{job="{name}"}}', 0) / max(cp, 1),
                        "minute": cp * 1.0 / 60, "checkpoint": cp,
                        "files": max(files or [0]), "level0": max(level0 or [0]),
                        "runs": max(runs or [0]), "peak": dict(pk),
                        "snapshots": int(values.get(
                            f'fjord_job_table_snapshots{{job="{name}"}}', 0)),
                        "disk": data_files_on_disk(table),
                        "stalls": int(values.get(
                            f'fjord_job_write_stalls_total{{job="{name}"}}', 0)),
                        "compactions": int(values.get(
                            f'fjord_job_compactions_total{{job="{name}"}}', 0)),
                        "wall": time.time() - started})
                    for pk_key in pk:
                        pk[pk_key] = 0
                    next_mark[name] = (cp // every + 1) * every
                if cp >= args.checkpoints:
                    j["proc"].send_signal(signal.SIGTERM)
                    if j["proc"].wait(timeout=120) != 0:
                        sys.exit(f"{name}: SIGTERM gave exit {j['proc'].returncode}")
                    done.add(name)
        elapsed = time.time() - started

        failures = []
        for name, j in jobs.items():
            table = os.path.join(wh, "db.db", name)
            stats = run("stats", table)
            rows = [json.loads(line) for line in run("cat", table).splitlines() if line.strip()]
            keys = [r["k"] for r in rows]
            if name == "pk" and (len(keys) != len(set(keys)) or not keys):
                failures.append(f"pk: {len(keys)} rows, {len(set(keys))} keys")
            j["stats"] = stats
            j["count"] = len(rows)

        date = datetime.date.today().isoformat()
        out = [f"# `fjord run`: an hour of 1 s checkpoints ({date})", "",
               f"{args.checkpoints} checkpoints every {interval_ms} ms (1 s / {args.speedup}), "
               f"datagen at {rate} rows/s ({args.rate} rows per simulated second), keys "
               f"0..{KEYS - 1}, parallelism 2, `snapshot.time-retained` {retained_s} s "
               f"(1 h / {args.speedup}), `snapshot.num-retained.max` 120; {elapsed:.0f} s of wall "
               f"time. Per bucket the writers' view at the sample (files, level-0 files, sorted "
               f"runs) and the peak since the previous line; data files on disk count every "
               f"file of the table directory, live or kept by retained snapshots.", ""]
        for name, j in jobs.items():
            kind = ("primary-key table, 4 buckets, 50 % updates" if name == "pk"
                    else "append table, 4 buckets (bucket-key k)")
            out += [f"## {name}: {kind}", "",
                    "| simulated min | checkpoint | rows/checkpoint | live files/bucket | writer: "
                    "files/bucket (peak) | level-0 (peak) | sorted runs (peak) | compactions | "
                    "write stalls | snapshots | data files on disk |",
                    "|---|---|---|---|---|---|---|---|---|---|---|"]
            for r in j["rows"]:
                out.append(f"| {r['minute']:.0f} | {r['checkpoint']} | "
                           f"{r['per_checkpoint']:.0f} | {r['live']} | {r['files']:.0f} "
                           f"({r['peak']['files']:.0f}) | {r['level0']:.0f} "
                           f"({r['peak']['level0']:.0f}) | {r['runs']:.0f} "
                           f"({r['peak']['runs']:.0f}) | {r['compactions']} | {r['stalls']} | "
                           f"{r['snapshots']} | {r['disk']} |")
            out += ["", f"{j['count']} rows at the end. `fjord stats`:", "", "```",
                    j["stats"].rstrip(), "```", ""]
        text = "\n".join(out)
        print(text)
        if args.out:
            with open(args.out, "w") as f:
                f.write(text)
        for f in failures:
            print("FAIL:", f)
        sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
