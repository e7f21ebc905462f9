#!/usr/bin/env python3
"""`make bench-lookup`, second part: the lookup cache's peaks with 1,000 buckets.

Runs `lookup_cache_bench` (src/fjord/table/write/lookup_cache_bench.cc) once per configuration,
each its own process (wall time measured here; the program reports the cache's figures and its
own peak RSS, getrusage), and appends a table of the cache's own peaks (memory and local-disk bytes) against the configured bounds to the
results file. See bench/README.md.
"""

import argparse
import shlex
import json
import os
import shutil
import subprocess
import sys
import time

# (mode, lookup.cache-max-memory-size, lookup.cache-max-disk-size); "" = the option's default.
CONFIGS = [
    ("plain", "", ""),
    ("dv", "", ""),
    ("dv", "1 mb", "4 mb"),
    ("lookup", "", ""),
    ("lookup", "16 mb", "64 mb"),
]


def run(binary, args, mode, memory, disk, d):
    argv = [binary, "--dir", d, "--mode", mode, "--buckets", str(args.buckets),
            "--keys", str(args.keys), "--load-rows", str(args.load_rows),
            "--update-rows", str(args.update_rows), "--commits", str(args.commits)]
    if memory:
        argv += ["--memory", memory]
    if disk:
        argv += ["--disk", disk]
    shutil.rmtree(d, ignore_errors=True)
    start = time.monotonic()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    out, err = proc.communicate()
    wall = time.monotonic() - start
    if proc.returncode != 0:
        sys.exit(f"lookup_cache_peaks: {' '.join(argv)} failed ({proc.returncode}):\n{err[-3000:]}")
    print(out, end="", flush=True)
    result = json.loads([l for l in out.splitlines() if l.startswith("{")][-1])
    result["per_commit"] = [l for l in out.splitlines() if l[:1].isdigit()]
    result.update(wall=wall, argv=shlex.join(argv).replace(d, "$DIR"))
    shutil.rmtree(d, ignore_errors=True)
    return result


def mb(b):
    return f"{b / 1e6:,.1f}"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--buckets", type=int, default=1000)
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--load-rows", type=int, default=2_000_000)
    p.add_argument("--update-rows", type=int, default=200_000)
    p.add_argument("--commits", type=int, default=5)
    p.add_argument("--scratch", default="/tmp/fjord-bench-lookup-cache")
    p.add_argument("--configs", default="", help="mode:memory:disk,... (default: all of CONFIGS)")
    p.add_argument("--append", help="results file to append the table to")
    p.add_argument("--raw", default="/tmp/fjord-bench-lookup-cache.jsonl",
                   help="every run is appended here as a JSON line")
    p.add_argument("--report-from", help="write the table from these JSON lines, run nothing")
    args = p.parse_args()
    binary = os.path.join(args.build_dir, "bench", "lookup_cache_bench")
    configs = CONFIGS
    if args.configs:
        configs = [tuple((c.split(":") + ["", ""])[:3]) for c in args.configs.split(",")]
    results = []
    if args.report_from:
        configs = []
        results = [json.loads(l) for l in open(args.report_from) if l.strip()]
    for mode, memory, disk in configs:
        res = run(binary, args, mode, memory, disk, args.scratch)
        results.append(res)
        with open(args.raw, "a") as fh:
            fh.write(json.dumps(res) + "\n")
    lines = [
        "", f"## Lookup cache peaks with {args.buckets:,} buckets (`lookup_cache_bench`)", "",
        f"One writer, one table of {args.buckets:,} buckets (the rows of pk-write, keys "
        f"mod {args.keys:,}): a load commit of {args.load_rows:,} upserts, then {args.commits} "
        f"commits of {args.update_rows:,}, each waiting for its compactions. Every update commit "
        "compacts each bucket's new level-0 file one level above the bottom one with lookups into "
        "it, so every bucket builds lookup files. Peaks are the cache's own accounting "
        "(`LookupCache::peak_memory_bytes` / `peak_disk_bytes`: blocks, indexes and bloom "
        "filters held; local lookup files on disk); RSS is the whole process (ru_maxrss). MB = "
        "10^6 bytes; the bounds are `lookup.cache-max-memory-size` (default 256 mb) and "
        "`lookup.cache-max-disk-size` (default unbounded).", "",
        "| mode | memory bound MB | peak memory MB | disk bound MB | peak disk MB | lookup files "
        "built | evicted | compactions | wall s | peak RSS MB |",
        "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        disk_bound = "none" if r["disk_bound"] >= 2**62 else mb(r["disk_bound"])
        lines.append(
            f"| {r['mode']} | {mb(r['memory_bound'])} | {mb(r['peak_memory_bytes'])} | "
            f"{disk_bound} | {mb(r['peak_disk_bytes'])} | {r['files_built']:,} | "
            f"{r['files_evicted']:,} | {r['compactions']:,} | {r['wall']:.1f} | "
            f"{mb(r['peak_rss_bytes'])} |")
    lines += ["", "Per commit, after it (the cache's figures then, the process's RSS then):", "",
              "| mode | bounds MB (memory, disk) | commit | rows | s | cache disk MB | "
              "cache memory MB | lookup files built | evicted | RSS MB |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results:
        bounds = mb(r["memory_bound"]) + ", " + (
            "none" if r["disk_bound"] >= 2**62 else mb(r["disk_bound"]))
        for l in r["per_commit"]:
            c, rows, sec, disk, mem, built, evicted, _, rss = l.split()[:9]
            lines.append(f"| {r['mode']} | {bounds} | {c} | {int(rows):,} | {sec} | {disk} | "
                         f"{mem} | {int(built):,} | {int(evicted):,} | {float(rss):,.0f} |")
    lines += ["", "Commands:", ""] + [f"- `{r['argv']}`" for r in results]
    text = "\n".join(lines) + "\n"
    print(text)
    if args.append:
        with open(args.append, "a") as fh:
            fh.write(text)
        print(f"appended to {args.append}")


if __name__ == "__main__":
    main()
