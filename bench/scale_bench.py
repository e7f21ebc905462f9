#!/usr/bin/env python3
"""`make bench-scale`: Fjord's write and read workloads at growing sizes (issue 20, point 4).

Runs `make bench`'s Fjord workloads (engine_fjord: append-write, read-filtered, pk-write,
read-mor, compact, read-compacted) at each of `--sizes` rows (default 1M, 10M and 50M; keys =
rows / 10, as `make bench`'s 10M rows over 1M keys), each run its own process measured from
outside (run_bench.Runner: wall, CPU, peak RSS), and reports rows/s per workload and size, with
each size's rows/s against the smallest size's: cost that grows linearly with the data keeps that
ratio near 1. The writes run beside their limit (engine_arrow writing the same rows as one
Parquet file) in the same state, each after the page cache is emptied: a slope the machine puts
on every write shows in both. Writes bench/results/<date>-scale.md. See bench/README.md.
"""

import argparse
import datetime
import os
import shutil
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import run_bench  # noqa: E402

# (name, engine, workload, table dropped before it, if there); each after the one writing its
# table. The engines: "fjord" (engine_fjord) and "arrow" (engine_arrow: the same rows written as
# one plain Parquet file, make bench's limit), whose files are removed once measured.
# The append table goes once its read is measured: at 50M rows its 12 GB of files filled the page
# cache, and the upsert write after it spent 27 s more in the kernel (43 s of system time against
# 16 s alone, user time equal) taking pages back from the cache for its spill files -- a cost of
# what ran before, not of the size (docs/performance.md, "Sort chunks, spills read ahead, the page
# cache"). For the same reason every write starts with the page cache emptied (drop_caches),
# when the harness may (root).
# The upsert write runs twice: in make bench's 5 commits (commits of rows / 5 upserts, which
# spill more the larger they are) and in commits of a fixed COMMIT_ROWS upserts (rows / COMMIT_ROWS
# of them), the size of a streaming job's checkpoints. That series draws its keys from 10 x rows
# keys, so that every commit, whatever the size, holds about as many distinct keys (95-100% of
# its rows; keys = rows / 10 would fold a 1M commit 10:1 at the first size and 1.6:1 at 10M).
COMMIT_ROWS = 1_000_000
WORKLOADS = [("append-write limit", "arrow", "append-write", None),
             ("append-write", "fjord", "append-write", None),
             ("read-filtered", "fjord", "read-filtered", None),
             ("pk-write limit", "arrow", "pk-write", None),
             ("pk-write", "fjord", "pk-write", "append"),
             ("read-mor", "fjord", "read-pk", None),
             ("compact", "fjord", "compact", None),
             ("read-compacted", "fjord", "read-pk", None),
             ("pk-write 1M/commit limit", "arrow", "pk-write", None),
             ("pk-write 1M/commit", "fjord", "pk-write", "pk")]
# Each write and the limit it is read against.
LIMITS = {"append-write": "append-write limit", "pk-write": "pk-write limit",
          "pk-write 1M/commit": "pk-write 1M/commit limit"}
DROP_CACHES = "/proc/sys/vm/drop_caches"


def extra_args(name, rows):
    if name == "pk-write 1M/commit":
        return ("--runs", str(max(rows // COMMIT_ROWS, 1)), "--keys", str(10 * rows))
    if name == "pk-write 1M/commit limit":
        return ("--keys", str(10 * rows))
    return ()


def can_drop_caches():
    return os.access(DROP_CACHES, os.W_OK)


def drop_caches():
    """Empties the page cache: dirty pages are written first, then every clean page (and the
    dentry and inode caches) is freed."""
    os.sync()
    with open(DROP_CACHES, "w") as fh:
        fh.write("3\n")


# Sizes under this many rows run --small-reps times (runs of a second or two vary most).
SMALL_ROWS = 5_000_000


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--sizes", default="1000000,10000000,50000000")
    p.add_argument("--reps", type=int, default=1)
    p.add_argument("--small-reps", type=int, default=3,
                   help=f"repetitions of the sizes under {SMALL_ROWS:,} rows (the figure is "
                        "their median)")
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--scratch", default="/tmp/fjord-bench-scale")
    p.add_argument("--out", help="results file (default bench/results/<date>-scale.md)")
    p.add_argument("--note", default="")
    p.add_argument("--no-drop-caches", dest="drop_caches", action="store_false",
                   help="leave the page cache as the runs before left it (default: emptied "
                        "before every write, where the harness may)")
    p.add_argument("--workloads", help="comma-separated names of the workloads to run (default "
                   "all; a read needs the write before it)")
    args = p.parse_args()
    args.drop_caches = args.drop_caches and can_drop_caches()
    args.commits, args.block, args.jar, args.java_opts = 0, 0, "", ""
    sizes = [int(s) for s in args.sizes.split(",")]
    names = [name for name, _, _, _ in WORKLOADS]
    chosen = args.workloads.split(",") if args.workloads else names
    unknown = [n for n in chosen if n not in names]
    if unknown:
        sys.exit(f"scale_bench: unknown workloads {unknown}; known: {names}")
    r = run_bench.Runner(args)
    results, loads = {}, []
    started = datetime.datetime.now(datetime.timezone.utc)
    reps = lambda rows: max(args.reps, args.small_reps) if rows < SMALL_ROWS else args.reps
    for rows in sizes:
        for rep in range(reps(rows)):
            args.rows, args.keys = rows, max(rows // 10, 1)
            shutil.rmtree(args.scratch, ignore_errors=True)
            loads.append((f"{rows:,} rows, repetition {rep + 1}", run_bench.load()))
            for name, engine, workload, drop in WORKLOADS:
                if name not in chosen:
                    continue
                if drop:
                    shutil.rmtree(os.path.join(args.scratch, "bench.db", drop), ignore_errors=True)
                if args.drop_caches and "write" in workload:
                    drop_caches()
                d = args.scratch if engine == "fjord" else os.path.join(args.scratch, "arrow")
                res = r.run(engine, workload, d, extra_args(name, rows))
                if engine == "arrow":
                    shutil.rmtree(d, ignore_errors=True)
                results.setdefault((name, rows), []).append(res)
                print(f"rep {rep + 1} {rows:>11,} {name:15s} {res['wall']:8.2f} s wall "
                      f"{res['cpu']:8.2f} s cpu {res['rss_mb']:8.0f} MB "
                      f"{res['rows'] / res['wall']:>12,.0f} rows/s  load {run_bench.load()}",
                      flush=True)
    loads.append(("end", run_bench.load()))
    shutil.rmtree(args.scratch, ignore_errors=True)
    write_results(args, r, sizes, results, loads, started, chosen)


def write_results(args, r, sizes, results, loads, started, chosen):
    out = args.out or run_bench.fresh_path(
        os.path.join("bench", "results", started.strftime("%Y-%m-%d") + "-scale.md"))
    med = lambda name, n, k: statistics.median(x[k] for x in results[(name, n)])
    rate = lambda name, n: statistics.median(x["rows"] / x["wall"] for x in results[(name, n)])
    cpu_rate = lambda name, n: statistics.median(x["rows"] / x["cpu"] for x in results[(name, n)])
    head = " | ".join(f"{n:,} rows: rows/s (x first) / rows per CPU s / RSS MB" for n in sizes)
    lines = [
        f"# Scale, {started.strftime('%Y-%m-%d %H:%M')} UTC",
        "",
        f"`bench/scale_bench.py --sizes {args.sizes} --reps {args.reps} --small-reps "
        f"{args.small_reps}` at commit {r.git}; {os.cpu_count()} cores; keys = rows / 10. Each "
        f"figure a median over {args.reps} repetition(s), {max(args.reps, args.small_reps)} for "
        f"sizes under {SMALL_ROWS:,} rows; rows/s from wall time; `x first`: rows/s against "
        "the smallest size "
        "(1.00 = the cost per row does not grow). The reads' rows are the rows they return. "
        "The append table is dropped after its filtered read, before the upsert write; the "
        "upsert table after the compacted read, before the upsert write in commits of "
        f"{COMMIT_ROWS:,} rows (`pk-write 1M/commit`: `--runs rows / {COMMIT_ROWS:,} --keys "
        "10 x rows`, so that each commit holds about as many distinct keys at every size). "
        + ("The page cache was emptied before every write (`/proc/sys/vm/drop_caches`)."
           if args.drop_caches else "The page cache was left as the runs before left it."),
        "",
        f"| workload | {head} |",
        "|---|" + "---:|" * len(sizes),
    ]
    fjord_names = [n for n in chosen if n not in LIMITS.values()]
    for name in fjord_names:
        cells = []
        for n in sizes:
            cells.append(f"{rate(name, n):,.0f} ({rate(name, n) / rate(name, sizes[0]):.2f}) / "
                         f"{cpu_rate(name, n):,.0f} / {med(name, n, 'rss_mb'):,.0f}")
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    # The writes against Arrow writing the same rows as one Parquet file, measured in the same
    # state (page cache emptied before each): a machine whose writes slow down with the size
    # slows both.
    pairs = [(n, LIMITS[n]) for n in fjord_names if LIMITS.get(n) in chosen]
    if pairs:
        lines += [
            "",
            "The writes against their limit (`engine_arrow`: the same rows as one plain Parquet "
            "file): the limit's rows/s (x first) and Fjord's rows/s / the limit's, in wall time "
            "and in CPU time.",
            "",
            "| write | " + " | ".join(f"{n:,} rows: limit rows/s (x first) / of limit, wall / "
                                      "of limit, CPU" for n in sizes) + " |",
            "|---|" + "---:|" * len(sizes),
        ]
        for name, limit in pairs:
            cells = [f"{rate(limit, n):,.0f} ({rate(limit, n) / rate(limit, sizes[0]):.2f}) / "
                     f"{rate(name, n) / rate(limit, n):.2f} / "
                     f"{cpu_rate(name, n) / cpu_rate(limit, n):.2f}" for n in sizes]
            lines.append(f"| {name} | " + " | ".join(cells) + " |")
    # User time is the engine's own work; system time is mostly the kernel's, much of it copying
    # the files written into the page cache, which on a virtual machine costs more once the
    # guest's free memory has been handed back to the host (docs/performance.md, "Recycled
    # pages").
    lines += [
        "",
        "CPU per row (median run): user us / system us.",
        "",
        "| workload | " + " | ".join(f"{n:,} rows" for n in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for name in chosen:
        cells = [f"{med(name, n, 'user') * 1e6 / med(name, n, 'rows'):.2f} / "
                 f"{med(name, n, 'sys') * 1e6 / med(name, n, 'rows'):.2f}" for n in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    run_bench.finish_report(out, lines, loads, r.commands, args.note, "Commands (at the first size; the others differ in --rows and --keys):")
    print(f"scale_bench: wrote {out}")


if __name__ == "__main__":
    main()
