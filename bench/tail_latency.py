#!/usr/bin/env python3
"""Latency from a commit to its changes appearing in `fjord tail --follow` (issue 14 evidence).

Starts `fjord tail --follow` on a primary-key table (changelog-producer input), commits one row
at random pauses of up to one
discovery interval with `fjord write`, and measures, for each commit, the time from the commit (the
snapshot's timeMillis) to the moment tail prints the row. Prints p50 / p99 / max per discovery interval.

    bench/tail_latency.py --fjord build/relwithdebinfo/tools/fjord [--commits N] \
        [--interval "10 s"] [--interval "100 ms"]
"""
import argparse
import random
import json
import os
import threading
import subprocess
import tempfile
import time


def percentile(values, p):
    values = sorted(values)
    k = min(len(values) - 1, max(0, int(round(p / 100.0 * (len(values) - 1)))))
    return values[k]


def measure(fjord, interval, commits, period):
    with tempfile.TemporaryDirectory(prefix="fjord-tail-latency-") as work:
        wh = os.path.join(work, "wh")
        subprocess.run([fjord, "db", "create", wh, "db"], check=True, capture_output=True)
        subprocess.run([fjord, "table", "create", wh, "db.t", "--columns",
                        "id INT NOT NULL, v STRING", "--primary-key", "id", "-o", "bucket=1",
                        "-o", "changelog-producer=input", "-o", "write-only=true"],
                       check=True, capture_output=True)
        table = os.path.join(wh, "db.db", "t")
        tail = subprocess.Popen([fjord, "tail", table, "--follow", "-o", "scan.mode=latest",
                                 "-o", f"continuous.discovery-interval={interval}"],
                                stdout=subprocess.PIPE, text=True, bufsize=1)
        arrived = {}  # id -> wall time the line was read
        done = threading.Event()

        def reader():
            for line in tail.stdout:
                arrived[json.loads(line)["id"]] = time.time()
                done.set()

        threading.Thread(target=reader, daemon=True).start()
        time.sleep(0.5)
        latencies = []
        path = os.path.join(work, "in.jsonl")
        for i in range(commits):
            with open(path, "w") as f:
                f.write(json.dumps({"id": i, "v": "x"}) + "\n")
            subprocess.run([fjord, "write", table, "--input", path], check=True,
                           capture_output=True)
            # The commit's own time (the snapshot's timeMillis): the tail may see the snapshot
            # before `fjord write` has exited.
            with open(os.path.join(table, "snapshot", f"snapshot-{i + 1}")) as f:
                committed = json.load(f)["timeMillis"] / 1000.0
            deadline = time.time() + 60
            while i not in arrived:
                if time.time() > deadline:
                    raise RuntimeError("no output from tail for 60 s")
                time.sleep(0.001)
            latencies.append(arrived[i] - committed)
            # A random pause (up to one discovery interval) so that commits fall at random
            # points of the polling cycle, not right after a poll.
            time.sleep(random.uniform(0, period))
        tail.terminate()
        tail.wait(timeout=30)
        return latencies


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--commits", type=int, default=20)
    ap.add_argument("--period", type=float, default=0.37)
    ap.add_argument("--interval", action="append")
    args = ap.parse_args()
    for interval in args.interval or ["10 s", "100 ms"]:
        seconds = float(interval.split()[0]) / (1000.0 if interval.endswith("ms") else 1.0)
        lat = measure(args.fjord, interval, args.commits, max(seconds, args.period))
        print(f"discovery-interval {interval}: {len(lat)} commits, "
              f"p50 {percentile(lat, 50) * 1000:.0f} ms, p99 {percentile(lat, 99) * 1000:.0f} ms, "
              f"max {max(lat) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
