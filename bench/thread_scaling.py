#!/usr/bin/env python3
"""`make bench-threads`: Fjord's workloads at 1 and at 2 threads, side by side (issue 20, point 2).

The tables have several buckets or partitions, so that there is work for both cores: the append
table of `make bench` (10 partitions), the primary-key table with `--buckets` buckets (4 by
default). Per repetition each workload runs at 1 thread and then at 2 (the order alternates
between repetitions); each run is its own process, measured from outside as `make bench` measures
(wall, CPU seconds of the child, peak RSS; run_bench.Runner). The reads fold the light checksum
(bench_rows.h) and must return the same rows and checksum at both thread counts. Writes bench/results/<date>-threads.md with the scaling
(wall at 1 thread / wall at 2 threads) per workload. See bench/README.md.

The machine's own ceiling for that scaling: each workload also runs as two 1-thread processes at
once (writes into two fresh folders, compaction on two copies of the table, reads of the same
table), sharing nothing but the machine (caches, memory bandwidth). Two units of work in the
pair's wall time: ceiling = 2 x wall at 1 thread / wall of the pair. A workload that scales as
far as its ceiling loses nothing to its own threads.
"""

import argparse
import concurrent.futures
import datetime
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

# (name, engine_fjord workload, what it is); each needs the one before it that writes its table.
WORKLOADS = [
    ("append-write", "append-write", "append write, 10 partitions, one commit"),
    ("read-append", "read-append", "full read of the append table (10 partitions)"),
    ("pk-write", "pk-write", "primary-key upserts, B buckets, 5 commits, write-only"),
    ("read-mor", "read-pk", "full read after 5 commits (merge-on-read, B buckets)"),
    ("compact", "compact", "full compaction of the B buckets"),
    ("read-compacted", "read-pk", "full read after full compaction"),
]
THREADS = (1, 2)
PAIR = "pair"  # two 1-thread processes at once


class Runner(run_bench.Runner):
    def __init__(self, args):
        super().__init__(args)
        self.threads = 1

    def argv(self, engine, workload, d):
        # Reads fold the light checksum: the full one runs on the caller's thread, beside the
        # read, and would bound the scaling by the benchmark's own work.
        light = ["--light", "1"] if workload.startswith("read-") else []
        return [*super().argv(engine, workload, d), "--threads", str(self.threads),
                "--buckets", str(self.args.buckets), *light]


def run_pair(r, name, workload, scratch, table_dir):
    """Runs `workload` at 1 thread in two processes at once; returns the pair's wall (the later
    of the two), the mean CPU and RSS of the two, and the first one's result fields."""
    r.threads = 1
    reads = workload.startswith("read-")  # both read the same table; the others get their own
    if reads:
        dirs = [table_dir, table_dir]
    else:
        dirs = [os.path.join(scratch, "pair", x) for x in ("a", "b")]
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
            if workload == "compact":
                shutil.copytree(os.path.join(table_dir, "bench.db", "pk"),
                                os.path.join(d, "bench.db", "pk"))
            else:
                os.makedirs(d)
    with concurrent.futures.ThreadPoolExecutor(2) as pool:
        both = list(pool.map(lambda d: r.run("fjord", workload, d), dirs))
    if not reads:
        shutil.rmtree(os.path.join(scratch, "pair"), ignore_errors=True)
    res = dict(both[0])
    res.update(wall=max(x["wall"] for x in both), cpu=statistics.mean(x["cpu"] for x in both),
               rss_mb=statistics.mean(x["rss_mb"] for x in both))
    return res


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--buckets", type=int, default=4)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--read-reps", type=int, default=3,
                   help="runs of each read (at each thread count) per repetition")
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--scratch", default="/tmp/fjord-bench-threads")
    p.add_argument("--out", help="results file (default bench/results/<date>-threads.md)")
    p.add_argument("--raw", default="/tmp/fjord-bench-threads-raw.json")
    p.add_argument("--note", default="")
    p.add_argument("--only", default="",
                   help="comma-separated workloads to run (with the ones whose tables they need)")
    args = p.parse_args()
    if args.only:
        wanted = set(args.only.split(","))
        unknown = wanted - {w[0] for w in WORKLOADS}
        if unknown:
            sys.exit(f"thread_scaling: unknown workloads {sorted(unknown)}")
        # A read or compaction needs the write before it (its table).
        needs = {"read-append": "append-write", "read-mor": "pk-write", "compact": "pk-write",
                 "read-compacted": "compact"}
        for name in list(wanted):
            while name in needs:
                name = needs[name]
                wanted.add(name)
        WORKLOADS[:] = [w for w in WORKLOADS if w[0] in wanted]
    args.commits, args.block, args.jar, args.java_opts = 0, 0, "", ""
    r = Runner(args)
    results = {}  # (workload, threads) -> [result per rep]
    loads = []
    started = datetime.datetime.now(datetime.timezone.utc)
    for rep in range(args.reps):
        order = THREADS if rep % 2 == 0 else tuple(reversed(THREADS))
        shutil.rmtree(args.scratch, ignore_errors=True)
        dirs = {t: os.path.join(args.scratch, str(t)) for t in THREADS}
        loads.append((f"start of repetition {rep + 1}", run_bench.load()))
        for name, workload, _ in WORKLOADS:
            # Reads are short and this machine's speed drifts: each read runs --read-reps times
            # per repetition, 1 and 2 threads alternating.
            pairs = args.read_reps if workload.startswith("read-") else 1
            if name == "compact":  # the pair compacts copies of the table before it is compacted
                record_pair(r, rep, name, workload, args.scratch, dirs[1], results)
            for pair in range(pairs):
                for t in order if pair % 2 == 0 else tuple(reversed(order)):
                    r.threads = t
                    res = r.run("fjord", workload, dirs[t])
                    results.setdefault((name, t), []).append(res)
                    print(f"rep {rep + 1} {name:15s} {t} thread(s) {res['wall']:8.2f} s wall "
                          f"{res['cpu']:8.2f} s cpu {res['rss_mb']:8.0f} MB  "
                          f"load {run_bench.load()}", flush=True)
            if name != "compact":
                for _ in range(pairs):
                    record_pair(r, rep, name, workload, args.scratch, dirs[1], results)
            if "checksum" in results[(name, 1)][-1] or name == "compact":
                keys = ("rows", "checksum") if name != "compact" else ("rows", "files_out")
                seen = {tuple(results[(name, t)][-1].get(k) for k in keys)
                        for t in (*THREADS, PAIR)}
                if len(seen) != 1:
                    sys.exit(f"thread_scaling: {name} differs between thread counts: {seen}")
        with open(args.raw, "w") as fh:
            json.dump({"results": {f"{k[0]}|{k[1]}": v for k, v in results.items()},
                       "loads": loads, "git": r.git}, fh)
    loads.append(("end", run_bench.load()))
    shutil.rmtree(args.scratch, ignore_errors=True)
    write_results(args, r, results, loads, started)


def record_pair(r, rep, name, workload, scratch, table_dir, results):
    res = run_pair(r, name, workload, scratch, table_dir)
    results.setdefault((name, PAIR), []).append(res)
    print(f"rep {rep + 1} {name:15s} 2 x 1 thread {res['wall']:8.2f} s wall "
          f"{res['cpu']:8.2f} s cpu each {res['rss_mb']:6.0f} MB each  load {run_bench.load()}",
          flush=True)


def per_rep(results, name, reps):
    """Scaling of each repetition (its 1-thread runs' median wall over its 2-thread runs'), and
    in brackets its own scaling / ceiling: its runs and its pair close together in time, so the
    machine's drift between repetitions matters less."""
    runs = [results[(name, t)] for t in (1, 2, PAIR)]
    if any(len(x) % reps for x in runs):
        return ""
    out = []
    for i in range(reps):
        w1, w2, wp = (statistics.median(y["wall"] for y in x[i * (len(x) // reps):
                                                             (i + 1) * (len(x) // reps)])
                      for x in runs)
        out.append(f"{w1 / w2:.2f}x ({wp / (2 * w2):.2f})")
    return ", ".join(out)


def write_results(args, r, results, loads, started):
    out = args.out or run_bench.fresh_path(
        os.path.join("bench", "results", started.strftime("%Y-%m-%d") + "-threads.md"))
    med = lambda name, t, k: statistics.median(x[k] for x in results[(name, t)])
    lines = [
        f"# Thread scaling, {started.strftime('%Y-%m-%d %H:%M')} UTC",
        "",
        f"`bench/thread_scaling.py --rows {args.rows} --keys {args.keys} --buckets {args.buckets} "
        f"--reps {args.reps} --read-reps {args.read_reps}` at commit {r.git}; {os.cpu_count()} "
        f"cores. Medians of {args.reps} repetitions ({args.reps * args.read_reps} runs of each "
        "read); each run its own process (wall, CPU seconds of the child, peak RSS). Scaling = "
        "wall at 1 thread / wall at 2 threads. Two 1-t at once: the same 1-thread run as two "
        "processes at the same time (wall of the later one; CPU each); ceiling = 2 x wall 1 t / "
        "that wall: the scaling the machine allows when nothing is shared but its caches and "
        "memory bandwidth.",
        "",
        "| workload | what | wall 1 t (s) | wall 2 t (s) | scaling | CPU 1 t (s) | CPU 2 t (s) "
        "| RSS 1 t (MB) | RSS 2 t (MB) | two 1-t at once: wall (s) | CPU each (s) | ceiling "
        "| scaling / ceiling | scaling per repetition |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for name, _, what in WORKLOADS:
        w1, w2, wp = med(name, 1, "wall"), med(name, 2, "wall"), med(name, PAIR, "wall")
        what = what.replace("B buckets", f"{args.buckets} buckets")
        ceiling = 2 * w1 / wp
        lines.append(
            f"| {name} | {what} | {w1:.2f} | {w2:.2f} | {w1 / w2:.2f}x | "
            f"{med(name, 1, 'cpu'):.2f} | {med(name, 2, 'cpu'):.2f} | "
            f"{med(name, 1, 'rss_mb'):.0f} | {med(name, 2, 'rss_mb'):.0f} | {wp:.2f} | "
            f"{med(name, PAIR, 'cpu'):.2f} | {ceiling:.2f}x | {w1 / w2 / ceiling:.2f} | "
            f"{per_rep(results, name, args.reps)} |")
    run_bench.finish_report(out, lines, loads, r.commands, args.note, "Commands (at 2 threads the same with `--threads 2`):")
    print(f"thread_scaling: wrote {out}")


if __name__ == "__main__":
    main()
