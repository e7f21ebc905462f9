#!/usr/bin/env python3
"""`make bench-reads`: Fjord's reads against two limits, Arrow C++ and DuckDB (issue 20, point 3).

The tables are written once, untimed: `make bench`'s append table (10 partitions), its upsert table
after full compaction (`compact`) and the upsert table with deletion vectors (`pk-write-dv`). Then
per repetition each read runs with Fjord (engine_fjord), Arrow C++ (engine_arrow, on the files of
its `prepare`: the same rows written as plain Parquet) and DuckDB (engine_duckdb.py, read_parquet
over the table's own data files, listed by Fjord's plan), in an order that rotates between
repetitions, all with the same thread count (`--threads`, default: the machine's cores). Every
engine folds the light checksum (bench_rows.h), so that the time is the decoding and not the
check; Fjord's, Arrow's and DuckDB's rows and checksums must agree (DuckDB on the deletion-vector
table reads the data files as they are, deleted rows included: there it is a bound, not a check).

Each run is its own process, measured from outside (run_bench.Runner: wall, CPU seconds, peak
RSS); DuckDB's query alone is also reported (its process pays Python's and DuckDB's start-up).
Writes bench/results/<date>-reads.md. See bench/README.md.
"""

import argparse
import datetime
import json
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

ENGINES = ["fjord", "arrow", "duckdb"]
# (name, Fjord's workload, Arrow's workload or None, DuckDB's workload, what)
READS = [
    ("read-append", "read-append", "read-append", "read", "full read of the append table"),
    ("read-filtered", "read-filtered", "read-filtered", "read-filtered",
     "p = 3 AND k < keys/10 (append table)"),
    ("read-compacted", "read-pk", "read-pk", "read", "full read of the compacted upsert table"),
    ("read-dv", "read-dv", None, "read",
     "full read of the upsert table with deletion vectors (DuckDB: the files, deleted rows too)"),
]


class Runner(run_bench.Runner):
    def __init__(self, args):
        super().__init__(args)
        self.duckdb_python = args.python
        self.paths = {}  # read name -> file with the JSON list of its data files

    def argv(self, engine, workload, d):
        a = self.args
        common = ["--dir", d, "--rows", str(a.rows), "--keys", str(a.keys)]
        threads = ["--threads", str(a.threads)]
        if engine == "fjord":
            return [self.fjord, workload, *common, *threads, "--light", "1"]
        if engine == "arrow":
            return [self.arrow, workload, *common, *threads, "--light", "1"]
        if engine == "fjord-setup":
            return [self.fjord, workload, *common]
        if engine == "arrow-setup":
            return [self.arrow, workload, *common]
        name, duck = workload
        paths = ["--paths", self.paths[name]] if duck != "noop" else []
        return [self.duckdb_python, os.path.join(os.path.dirname(__file__), "engine_duckdb.py"),
                duck, "--dir", d, "--keys", str(a.keys), *threads, *paths]


def setup(r, dirs):
    """Writes the tables (untimed) and lists the data files each read reads."""
    for workload in ("append-write", "pk-write", "compact", "pk-write-dv"):
        r.run("fjord-setup", workload, dirs["fjord"])
    for workload in ("append-write", "prepare"):
        r.run("arrow-setup", workload, dirs["arrow"])
    for name, fjord, _, _, _ in READS:
        argv = r.argv("fjord", fjord, dirs["fjord"]) + ["--paths", "1"]
        out = run_bench.subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        paths = json.loads(out.strip().splitlines()[-1])["paths"]
        r.paths[name] = os.path.join(r.args.scratch, name + ".json")
        with open(r.paths[name], "w") as fh:
            json.dump(paths, fh)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--python", default=".deps/python-venv/bin/python",
                   help="a Python with duckdb (the bootstrap's, scripts/python.lock)")
    p.add_argument("--scratch", default="/tmp/fjord-bench-reads")
    p.add_argument("--out", help="results file (default bench/results/<date>-reads.md)")
    p.add_argument("--note", default="")
    args = p.parse_args()
    args.commits, args.block, args.jar, args.java_opts = 0, 0, "", ""
    r = Runner(args)
    shutil.rmtree(args.scratch, ignore_errors=True)
    dirs = {"fjord": os.path.join(args.scratch, "fjord"), "arrow": os.path.join(args.scratch, "arrow")}
    dirs["duckdb"] = dirs["fjord"]  # DuckDB reads Fjord's tables' files
    started = datetime.datetime.now(datetime.timezone.utc)
    setup(r, dirs)
    results, loads = {}, []
    for rep in range(args.reps):
        loads.append((f"start of repetition {rep + 1}", run_bench.load()))
        results.setdefault(("duckdb-start", "duckdb"), []).append(
            r.run("duckdb", ("read", "noop"), dirs["duckdb"]))
        order = ENGINES[rep % 3:] + ENGINES[:rep % 3]
        for name, fjord, arrow, duck, _ in READS:
            for engine in order:
                if engine == "arrow" and arrow is None:
                    continue
                workload = {"fjord": fjord, "arrow": arrow, "duckdb": (name, duck)}[engine]
                res = r.run(engine, workload, dirs[engine])
                results.setdefault((name, engine), []).append(res)
                print(f"rep {rep + 1} {name:15s} {engine:6s} {res['wall']:8.2f} s wall "
                      f"{res['cpu']:8.2f} s cpu {res['rss_mb']:8.0f} MB  load {run_bench.load()}",
                      flush=True)
            got = {e: (results[(name, e)][-1]["rows"], results[(name, e)][-1]["checksum"])
                   for e in ENGINES if (name, e) in results and (e != "duckdb" or arrow)}
            if len(set(got.values())) != 1:
                sys.exit(f"read_limits: engines disagree on {name}: {got}")
    loads.append(("end", run_bench.load()))
    shutil.rmtree(args.scratch, ignore_errors=True)
    write_results(args, r, results, loads, started)


def write_results(args, r, results, loads, started):
    out = args.out or run_bench.fresh_path(
        os.path.join("bench", "results", started.strftime("%Y-%m-%d") + "-reads.md"))
    med = lambda name, e, k: statistics.median(x[k] for x in results[(name, e)])
    has = lambda name, e: (name, e) in results
    lines = [
        f"# Reads against Arrow C++ and DuckDB, {started.strftime('%Y-%m-%d %H:%M')} UTC",
        "",
        f"`bench/read_limits.py --rows {args.rows} --keys {args.keys} --threads {args.threads} "
        f"--reps {args.reps}` at commit {r.git}; {os.cpu_count()} cores; DuckDB "
        f"{results[('duckdb-start', 'duckdb')][0].get('duckdb', '?')}. Medians of {args.reps} "
        "repetitions. Wall and CPU seconds of each process; DuckDB's also for its query alone "
        f"(its process start-up, Python and `import duckdb`, took "
        f"{med('duckdb-start', 'duckdb', 'wall'):.2f} s wall). Ratios are limit / Fjord (1.0: "
        "Fjord as fast as the limit; above 1: faster).",
        "",
        "| read | what | rows (Fjord) | Fjord wall / CPU (s) | Arrow wall / CPU (s) "
        "| DuckDB query wall / CPU (s) | DuckDB process wall / CPU (s) | Arrow / Fjord wall "
        "| DuckDB query / Fjord wall | RSS Fjord / Arrow / DuckDB (MB) |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    pair = lambda name, e, w, c: (f"{med(name, e, w):.2f} / {med(name, e, c):.2f}"
                                  if has(name, e) else "n/a")
    for name, _, _, _, what in READS:
        fw = med(name, "fjord", "wall")
        arrow = f"{med(name, 'arrow', 'wall') / fw:.2f}" if has(name, "arrow") else "n/a"
        duck = med(name, "duckdb", "query_wall") / fw
        rss = " / ".join(f"{med(name, e, 'rss_mb'):.0f}" if has(name, e) else "n/a"
                         for e in ENGINES)
        lines.append(
            f"| {name} | {what} | {results[(name, 'fjord')][0]['rows']:,} | "
            f"{pair(name, 'fjord', 'wall', 'cpu')} | {pair(name, 'arrow', 'wall', 'cpu')} | "
            f"{pair(name, 'duckdb', 'query_wall', 'query_cpu')} | "
            f"{pair(name, 'duckdb', 'wall', 'cpu')} | {arrow} | {duck:.2f} | {rss} |")
    run_bench.finish_report(out, lines, loads, r.commands, args.note, "Commands:")
    print(f"read_limits: wrote {out}")


if __name__ == "__main__":
    main()
