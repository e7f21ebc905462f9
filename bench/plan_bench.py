#!/usr/bin/env python3
"""`make bench-plan`: planning a scan of a table of many files, Fjord against Java Paimon
(issue 20, point 4).

engine_fjord's `plan-setup` writes, untimed, an append table of `--files` data files (2 rows each,
`make bench`'s columns) in `--partitions` partitions, 1,000 files a commit. Then per repetition,
in an order that rotates, Fjord and Java plan a read of all of it (`plan`) and of one partition
(`plan-filtered`), each at the default manifest parallelism (one thread per core) and at 1
(`scan.manifest.parallelism`). Each run is its own process (run_bench.Runner: wall, CPU, RSS) and
reports its plan's own time twice: the first plan of the process, and a second one in the same
process (Java's classes loaded and JIT warm, as in a long-running engine). Both engines must plan
the same files and rows. Writes bench/results/<date>-plan.md. See bench/README.md.
"""

import argparse
import datetime
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

ENGINES = ["fjord", "java"]
WORKLOADS = ["plan", "plan-filtered"]


class Runner(run_bench.Runner):
    def __init__(self, args):
        super().__init__(args)
        self.threads = 0

    def argv(self, engine, workload, d):
        a = self.args
        common = ["--dir", d, "--files", str(a.files), "--partitions", str(a.partitions)]
        if engine == "fjord":
            return [self.fjord, workload, *common, "--threads", str(self.threads)]
        common = ["--dir", d, "--partitions", str(a.partitions), "--threads", str(self.threads)]
        return [*self.java, workload, *common]


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--files", type=int, default=100_000)
    p.add_argument("--partitions", type=int, default=10_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--jar", default="interop/java/target/fjord-oracle.jar")
    p.add_argument("--java-opts", default="")
    p.add_argument("--scratch", default="/tmp/fjord-bench-plan")
    p.add_argument("--out", help="results file (default bench/results/<date>-plan.md)")
    p.add_argument("--note", default="")
    args = p.parse_args()
    args.rows, args.keys, args.commits, args.block = 0, 1_000_000, 0, 0
    r = Runner(args)
    shutil.rmtree(args.scratch, ignore_errors=True)
    started = datetime.datetime.now(datetime.timezone.utc)
    setup = r.run("fjord", "plan-setup", args.scratch)
    print(f"plan-setup: {setup['files']} files in {setup['commits']} commits, "
          f"{setup['wall']:.1f} s", flush=True)
    manifests = sorted(os.listdir(os.path.join(args.scratch, "bench.db", "plan", "manifest")))
    results, loads = {}, []
    for rep in range(args.reps):
        loads.append((f"start of repetition {rep + 1}", run_bench.load()))
        order = ENGINES[rep % 2:] + ENGINES[:rep % 2]
        for workload in WORKLOADS:
            for threads in (0, 1):
                r.threads = threads
                for engine in order:
                    res = r.run(engine, workload, args.scratch)
                    results.setdefault((workload, threads, engine), []).append(res)
                    print(f"rep {rep + 1} {workload:14s} threads {threads or 'cores'} {engine:5s} "
                          f"plan {res['plan_s']:7.3f} s, again {res['plan_again_s']:7.3f} s; "
                          f"process {res['wall']:6.2f} s wall {res['cpu']:6.2f} s cpu "
                          f"{res['rss_mb']:6.0f} MB", flush=True)
                got = {e: (results[(workload, threads, e)][-1]["files"],
                           results[(workload, threads, e)][-1]["rows"]) for e in ENGINES}
                if len(set(got.values())) != 1:
                    sys.exit(f"plan_bench: engines disagree on {workload}: {got}")
    loads.append(("end", run_bench.load()))
    shutil.rmtree(args.scratch, ignore_errors=True)
    write_results(args, r, setup, manifests, results, loads, started)


def write_results(args, r, setup, manifests, results, loads, started):
    out = args.out or run_bench.fresh_path(
        os.path.join("bench", "results", started.strftime("%Y-%m-%d") + "-plan.md"))
    med = lambda w, t, e, k: statistics.median(x[k] for x in results[(w, t, e)])
    data_manifests = [m for m in manifests if m.startswith("manifest-") and
                      not m.startswith("manifest-list")]
    lines = [
        f"# Planning a table of {args.files:,} files, {started.strftime('%Y-%m-%d %H:%M')} UTC",
        "",
        f"`bench/plan_bench.py --files {args.files} --partitions {args.partitions} --reps "
        f"{args.reps}` at commit {r.git}; {os.cpu_count()} cores. The table: an append table of "
        f"{setup['files']:,} data files in {args.partitions:,} partitions, written by Fjord in "
        f"{setup['commits']} commits ({setup['wall']:.0f} s); its folder holds "
        f"{len(data_manifests)} manifest files (all snapshots'). Medians of {args.reps} "
        "repetitions. `plan`: the plan's own seconds, first in its process; `again`: a second plan "
        "in the same process; `process`: wall and CPU of the whole process (JVM start-up "
        "included). Threads: `scan.manifest.parallelism` (cores = unset).",
        "",
        "| workload | threads | files | Fjord plan / again (s) | Java plan / again (s) "
        "| Java / Fjord (plan, again) | Fjord process wall / CPU (s) | Java process wall / CPU (s) "
        "| RSS Fjord / Java (MB) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for w in WORKLOADS:
        for t in (0, 1):
            f = lambda e, k: med(w, t, e, k)
            lines.append(
                f"| {w} | {t or 'cores'} | {results[(w, t, 'fjord')][0]['files']:,} | "
                f"{f('fjord', 'plan_s'):.3f} / {f('fjord', 'plan_again_s'):.3f} | "
                f"{f('java', 'plan_s'):.3f} / {f('java', 'plan_again_s'):.3f} | "
                f"{f('java', 'plan_s') / f('fjord', 'plan_s'):.1f}x, "
                f"{f('java', 'plan_again_s') / f('fjord', 'plan_again_s'):.1f}x | "
                f"{f('fjord', 'wall'):.2f} / {f('fjord', 'cpu'):.2f} | "
                f"{f('java', 'wall'):.2f} / {f('java', 'cpu'):.2f} | "
                f"{f('fjord', 'rss_mb'):.0f} / {f('java', 'rss_mb'):.0f} |")
    run_bench.finish_report(out, lines, loads, r.commands, args.note, "Commands:")
    print(f"plan_bench: wrote {out}")


if __name__ == "__main__":
    main()
