#!/usr/bin/env python3
"""`make bench`: each workload with Fjord, Java Paimon and the limit (Arrow C++), interleaved.

Every run is its own process, measured from outside: wall time, CPU seconds (user + sys of the
child, from wait4) and peak RSS (the child's ru_maxrss). Per repetition and workload the three
engines run one after another, in an order that rotates between repetitions, so load from other
users of the machine falls on all three alike. Read results are checked across engines (row count
and content checksum must agree). Writes bench/results/<date>.md and the summary table of
docs/performance.md. See bench/README.md.
"""

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ENGINES = ["fjord", "java", "limit"]
# (name, engine workload, description). Limit's `prepare` runs untimed before the reads.
WORKLOADS = [
    ("append-write", "append-write", "append write, 10 partitions, one commit"),
    ("read-filtered", "read-filtered", "filtered read: p = 3 AND k < keys/10 (append table)"),
    ("pk-write", "pk-write", "primary-key upserts, 1 bucket, deduplicate, 5 commits, write-only"),
    ("read-mor", "read-pk", "full read after 5 commits (merge-on-read over the sorted runs); "
     "limit: Arrow reading the 5 runs unmerged (`engine_arrow read-runs`, rows of every run)"),
    ("compact", "compact", "full compaction of the 5 runs"),
    ("read-compacted", "read-pk", "full read after full compaction"),
    ("commits", "commits", "one-file commits to an append table, commit call only"),
]
# `make bench-lookup` (issue 19): the upsert table of pk-write with the writer's own compaction
# (not write-only, each commit waits for its compaction), plain, with deletion vectors and with
# the lookup changelog producer; the full read of each result. Not in the default set.
LOOKUP_WORKLOADS = [
    ("pk-write-compacting", "pk-write-compacting",
     "pk-write's upserts with the writer's compaction (no deletion vectors, no changelog): the "
     "baseline"),
    ("read-compacting", "read-compacting", "full read of pk-write-compacting's table"),
    ("pk-write-dv", "pk-write-dv",
     "as pk-write-compacting with `deletion-vectors.enabled = true` (lookup compaction)"),
    ("read-dv", "read-dv", "full read of pk-write-dv's table (deletion vectors applied)"),
    ("pk-write-lookup", "pk-write-lookup",
     "as pk-write-compacting with `changelog-producer = lookup` (lookup compaction, changelog files)"),
    ("read-lookup", "read-lookup", "full read of pk-write-lookup's table"),
]
ALL_WORKLOADS = WORKLOADS + LOOKUP_WORKLOADS
LOOKUP_NAMES = {w[0] for w in LOOKUP_WORKLOADS}
# Workloads without an Arrow limit (table logic only: compaction, deletion vectors, lookups).
NO_LIMIT = {"commits"} | LOOKUP_NAMES
READS = {"read-filtered", "read-mor", "read-compacted", "read-compacting", "read-dv", "read-lookup"}
# workload -> the workload that writes the table it reads or compacts
NEEDS_WRITE = {"read-filtered": "append-write", "read-mor": "pk-write", "compact": "pk-write",
               "read-compacted": "compact", "read-compacting": "pk-write-compacting",
               "read-dv": "pk-write-dv", "read-lookup": "pk-write-lookup"}
# The limit's workload where it is not the table's own: merge-on-read's limit is Arrow reading the
# table's five sorted runs unmerged (what the merge must read; issue 20), not the merged result.
LIMIT_WORKLOAD = {"read-mor": "read-runs"}
QUICK = dict(rows=1_000_000, keys=100_000, commits=1000, block=100, reps=2)


def sh(cmd):
    try:
        return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout.strip()
    except OSError:
        return ""


def load():
    return " ".join(open("/proc/loadavg").read().split()[:3])


class Runner:
    def __init__(self, args):
        self.args = args
        self.fjord = os.path.join(args.build_dir, "bench", "engine_fjord")
        self.arrow = os.path.join(args.build_dir, "bench", "engine_arrow")
        self.java = ["java", *args.java_opts.split(), "-jar", args.jar, "bench"]
        self.commands = {}
        # The commit measured: taken at the start (the report may be written later).
        self.git = sh("git rev-parse --short HEAD") + (
            " (with local changes)" if sh("git status --porcelain --untracked-files=no") else "")

    def argv(self, engine, workload, d):
        a = self.args
        common = ["--dir", d, "--rows", str(a.rows), "--keys", str(a.keys)]
        if workload == "commits":
            common += ["--commits", str(a.commits), "--block", str(a.block)]
        if engine == "fjord":
            return [self.fjord, workload, *common]
        if engine == "java":
            return [*self.java, workload, *common]
        return [self.arrow, workload, *common]

    def run(self, engine, workload, d, extra=()):
        argv = self.argv(engine, workload, d) + list(extra)
        self.commands.setdefault((engine, workload, *extra[:1]),
                                 " ".join(argv).replace(d, "$DIR"))
        # The files the last run wrote go to disk before this one starts, not during it.
        os.sync()
        start = time.monotonic()
        with tempfile.TemporaryFile(mode="w+") as errf:
            proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf, text=True)
            out = proc.stdout.read()
            # wait4 gives this child's own rusage (CPU and peak RSS).
            _, status, ru = os.wait4(proc.pid, 0)
            errf.seek(0)
            err = errf.read()
        proc.returncode = os.waitstatus_to_exitcode(status)
        wall = time.monotonic() - start
        if proc.returncode != 0:
            sys.exit(f"run_bench: {' '.join(argv)} failed ({proc.returncode}):\n{err[-3000:]}")
        lines = [l for l in out.splitlines() if l.startswith("{")]
        if not lines:
            sys.exit(f"run_bench: {' '.join(argv)} printed no result:\n{out[-2000:]}")
        result = json.loads(lines[-1])
        result.update(wall=wall, cpu=ru.ru_utime + ru.ru_stime, user=ru.ru_utime, sys=ru.ru_stime,
                      rss_mb=ru.ru_maxrss / 1024.0)
        return result


def fresh_path(path):
    """`path`, or when a results file of that name exists already (an earlier run the same day),
    the first free `<stem>-2.md`, `<stem>-3.md`, ...: a default path never overwrites a result."""
    stem, ext = os.path.splitext(path)
    n = 2
    while os.path.exists(path):
        path = f"{stem}-{n}{ext}"
        n += 1
    return path


def finish_report(out, lines, loads, commands, note, heading="Commands:"):
    """Ends a results file of the side benchmarks (thread_scaling.py, read_limits.py,
    plan_bench.py, scale_bench.py): the load averages, the commands run, the note; writes it."""
    lines += ["", "Load averages (1, 5, 15 min): " +
              "; ".join(f"{what}: {l}" for what, l in loads), "", heading, ""]
    for _, cmd in sorted(commands.items(), key=str):
        lines.append(f"    {cmd}")
    if note:
        lines += ["", note]
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def fmt(x, digits=2):
    if x is None:
        return "n/a"
    if x >= 100:
        return f"{x:,.0f}"
    return f"{x:.{digits}f}"


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--rows", type=int, default=10_000_000)
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--commits", type=int, default=10_000)
    p.add_argument("--block", type=int, default=1000)
    p.add_argument("--reps", type=int, default=2)
    p.add_argument("--workloads", default=",".join(w[0] for w in WORKLOADS))
    p.add_argument("--build-dir", default="build/bench")
    p.add_argument("--jar", default="interop/java/target/fjord-oracle.jar")
    p.add_argument("--java-opts", default="")
    p.add_argument("--scratch", default="/tmp/fjord-bench")
    p.add_argument("--out", help="results file (default bench/results/<date>.md)")
    p.add_argument("--docs", default="docs/performance.md", help="summary to update ('' = none)")
    p.add_argument("--note", default="", help="free text for the results file")
    p.add_argument("--quick", action="store_true", help="1M rows, 100k keys, 1,000 commits")
    p.add_argument("--raw", default="/tmp/fjord-bench-raw.json",
                   help="every measurement is saved here as it is made")
    p.add_argument("--report-only", action="store_true",
                   help="write the report from --raw without measuring")
    args = p.parse_args()
    if args.quick or os.environ.get("BENCH_QUICK") == "1":
        for k, v in QUICK.items():
            if p.get_default(k) == getattr(args, k):
                setattr(args, k, v)
    chosen = args.workloads.split(",")
    unknown = set(chosen) - {w[0] for w in ALL_WORKLOADS}
    if unknown:
        sys.exit(f"run_bench: unknown workloads {', '.join(sorted(unknown))}")
    workloads = [w for w in ALL_WORKLOADS if w[0] in chosen]
    r = Runner(args)
    if args.report_only:
        raw = json.load(open(args.raw))
        results = {tuple(k.split("|")): v for k, v in raw["results"].items()}
        r.commands = {tuple(k.split("|")): v for k, v in raw["commands"].items()}
        started = datetime.datetime.fromisoformat(raw["started"])
        r.git = raw.get("git", r.git)
        r.orchestrator_argv = raw.get("argv")
        return write_results(args, r, workloads, results, raw["loads"], started)
    results = {}  # (workload, engine) -> [result per rep]
    loads = []
    started = datetime.datetime.now(datetime.timezone.utc)

    def save():
        with open(args.raw, "w") as fh:
            json.dump({"results": {"|".join(k): v for k, v in results.items()},
                       "commands": {"|".join(k): v for k, v in r.commands.items()},
                       "loads": loads, "started": started.isoformat(), "git": r.git,
                       "argv": sys.argv}, fh)

    for rep in range(args.reps):
        order = ENGINES[rep % 3:] + ENGINES[:rep % 3]
        shutil.rmtree(args.scratch, ignore_errors=True)
        dirs = {e: os.path.join(args.scratch, e) for e in ENGINES}
        loads.append(("start of repetition %d" % (rep + 1), load()))
        res = r.run("java", "noop", dirs["java"])  # JVM start-up, for scale
        results.setdefault(("jvm-start", "java"), []).append(res)
        for name, workload, _ in workloads:
            for engine in order:
                if engine == "limit" and name in NO_LIMIT:
                    continue
                if name in NEEDS_WRITE and NEEDS_WRITE[name] not in chosen:
                    sys.exit(f"run_bench: {name} needs {NEEDS_WRITE[name]}")
                if engine == "limit" and name in ("read-filtered", "read-mor", "compact") and \
                        not os.path.exists(os.path.join(dirs["limit"], "final.parquet")):
                    r.run("limit", "prepare", dirs["limit"])  # untimed set-up
                res = r.run(engine, LIMIT_WORKLOAD.get(name, workload) if engine == "limit"
                            else workload, dirs[engine])
                if name.startswith("pk-write-"):
                    res["disk"] = table_files(dirs[engine], "pk_" + name[len("pk-write-"):])
                results.setdefault((name, engine), []).append(res)
                print(f"rep {rep + 1} {name:15s} {engine:6s} {res['wall']:8.2f} s wall "
                      f"{res['cpu']:8.2f} s cpu {res['rss_mb']:8.0f} MB  load {load()}",
                      flush=True)
                save()
            check(name, rep, results)
    loads.append(("end", load()))
    save()
    shutil.rmtree(args.scratch, ignore_errors=True)
    write_results(args, r, workloads, results, loads, started)


def table_files(root, table):
    """What a write left in the table's folder: data, changelog and index (deletion vector) files
    and their bytes (every snapshot's files: nothing is expired in 5 commits)."""
    counts = {"data": 0, "changelog": 0, "index": 0, "bytes": 0}
    for d, _, names in os.walk(os.path.join(root, "bench.db", table)):
        for n in names:
            kind = n.split("-", 1)[0]
            if kind in ("data", "changelog") or os.path.basename(d) == "index":
                counts[kind if kind in ("data", "changelog") else "index"] += 1
                counts["bytes"] += os.path.getsize(os.path.join(d, n))
    return counts


def check(name, rep, results):
    """Reads must return the same rows on every engine; compactions must read the same rows."""
    if name not in READS and name != "compact":
        return
    got = {e: results[(name, e)][rep] for e in ENGINES
           if (name, e) in results and not (e == "limit" and name in LIMIT_WORKLOAD)}
    keys = ("rows", "checksum") if name in READS else ("rows",)
    seen = {tuple(v.get(k) for k in keys) for v in got.values()}
    if len(seen) != 1:
        sys.exit(f"run_bench: engines disagree on {name}: " +
                 ", ".join(f"{e}: {tuple(v.get(k) for k in keys)}" for e, v in got.items()))


def summarise(res):
    """Median over repetitions of wall, CPU, RSS; rows and bytes as reported."""
    med = lambda k: statistics.median(x[k] for x in res)
    s = {k: med(k) for k in ("wall", "cpu", "rss_mb")}
    s["rows"], s["bytes"] = res[0]["rows"], res[0]["bytes"]
    if "commit_ms_total" in res[0]:
        s["commit_ms"] = med("commit_ms_total") / res[0]["commits"]
    return s


def write_results(args, r, workloads, results, loads, started):
    today = started.strftime("%Y-%m-%d")
    out = args.out or fresh_path(os.path.join("bench", "results", f"{today}.md"))
    git = r.git
    java_v = sh("java -version 2>&1 | head -1")
    paimon = re.search(r"paimon-bundle</artifactId>\s*<version>([^<]+)", open("interop/java/pom.xml").read())
    arrow_v = json.loads(sh(f"{r.arrow} version"))["arrow"]
    cpu = sh("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2").strip()
    mem = int(sh("grep MemTotal /proc/meminfo | awk '{print $2}'") or 0) / 1024 / 1024
    osname = sh(". /etc/os-release && echo $PRETTY_NAME")
    rows = []  # summary table rows
    detail = []
    for name, workload, desc in workloads:
        s = {e: summarise(results[(name, e)]) for e in ENGINES if (name, e) in results}
        for e, v in s.items():
            v["rows_s"] = v["rows"] / v["wall"]
            v["mb_s"] = v["bytes"] / 1e6 / v["wall"]
        f, j, l = s.get("fjord"), s.get("java"), s.get("limit")
        if name == "commits":
            fj = j["commit_ms"] / f["commit_ms"]
            fl = None
        else:
            fj = j["wall"] / f["wall"]
            fl = l["wall"] / f["wall"] if l else None
        cj = j["cpu"] / f["cpu"]
        cl = l["cpu"] / f["cpu"] if l else None
        rows.append((name, f, j, l, fj, fl, cj, cl))
        detail.append((name, desc, s))
    lookup_only = all(name in LOOKUP_NAMES for name, _, _ in workloads)
    lines = [f"# `make bench{'-lookup' if lookup_only else ''}`, {today}", ""]
    if lookup_only:
        lines += [f"Scale: {args.rows:,} rows of upserts over {args.keys:,} keys, in 5 commits.", ""]
    elif args.rows != 10_000_000 or args.keys != 1_000_000 or args.commits != 10_000:
        lines += [f"**Reduced scale**: {args.rows:,} rows, {args.keys:,} keys, {args.commits:,} "
                  "commits (the issue's scale is 10,000,000 rows, 1,000,000 keys, 10,000 commits; "
                  "`make bench` defaults to it).", ""]
    if args.note:
        lines += [args.note, ""]
    lines += [
        "## Machine and versions", "",
        f"- CPU: {cpu}, {os.cpu_count()} cores; RAM {mem:.0f} GiB; {osname}, kernel {platform.release()}",
        "- Load average (1, 5, 15 min) " +
        "; ".join(f"{w}: {v}" for w, v in loads),
        f"- Fjord {git} (RelWithDebInfo, `{args.build_dir}`); Java Paimon "
        f"{paimon.group(1) if paimon else '?'} ({java_v}); Arrow C++ {arrow_v}",
        f"- Started {started.strftime('%Y-%m-%d %H:%M')} UTC; {args.reps} repetitions, engines "
        "interleaved per workload (order rotating per repetition); figures are medians.",
        "", "## Summary", "",
        "Throughput ratios: Fjord/Java = Java's wall time / Fjord's (above 1: Fjord faster); "
        "Fjord/limit = the limit's wall time / Fjord's (1 = at the limit); the CPU columns are "
        "the same ratios of CPU seconds (less sensitive to the machine's load). Commits: ratio "
        "of mean commit-call latency (and of the process's CPU). MB = 10^6 bytes of raw rows (4 per INT, the strings' bytes). "
        "Wall, CPU and RSS are the whole process (start-up, JVM and JIT included).", "",
    ]
    lines += summary_table(rows)
    lines += ["", "## Per engine", "",
              "| workload | engine | rows | wall s | rows/s | MB/s | CPU s | peak RSS MB | all walls s |",
              "|---|---|---|---|---|---|---|---|---|"]
    for name, desc, s in detail:
        for e, v in s.items():
            walls = ", ".join(f"{x['wall']:.2f}" for x in results[(name, e)])
            lines.append(f"| {name} | {e} | {v['rows']:,} | {fmt(v['wall'])} | {fmt(v['rows_s'])} | "
                         f"{fmt(v['mb_s'])} | {fmt(v['cpu'])} | {fmt(v['rss_mb'])} | {walls} |")
    extra = []
    for name, desc, s in detail:
        res = {e: results[(name, e)][-1] for e in s}
        parts = []
        for e, x in res.items():
            kv = ", ".join(f"{k} {v}" for k, v in x.items()
                           if k in ("files", "files_in", "files_out", "checksum",
                                    "compacted_commits"))
            if "disk" in x:
                dk = x["disk"]
                kv += (f"; on disk {dk['data']} data, {dk['changelog']} changelog, "
                       f"{dk['index']} index files, {dk['bytes'] / 1e6:.1f} MB")
            if kv:
                parts.append(f"{e}: {kv}")
        extra.append(f"- **{name}**: {desc}." + (" " + "; ".join(parts) if parts else ""))
    jvm = [x["wall"] for x in results.get(("jvm-start", "java"), [])]
    if jvm:
        extra.append("- **JVM start-up** (`bench noop`: start the JVM, open the catalog, list "
                     "databases; part of every Java figure above): wall " +
                     ", ".join(f"{w:.2f}" for w in jvm) + " s, CPU " + ", ".join(
                         f"{x['cpu']:.2f}" for x in results[("jvm-start", "java")]) + " s")
    lines += ["", "## Workloads", ""] + extra
    lines += baseline_ratios(detail)
    if any(n == "commits" for n, _, _ in workloads):
        lines += ["", "## Commit latency per block (last repetition)", "",
                  "| commits | Fjord p50 ms | Fjord p99 ms | Java p50 ms | Java p99 ms |",
                  "|---|---|---|---|---|"]
        fb = results[("commits", "fjord")][-1]["blocks"]
        jb = results[("commits", "java")][-1]["blocks"]
        for a, b in zip(fb, jb):
            lines.append(f"| {a[0]:,} | {a[1]:.2f} | {a[2]:.2f} | {b[1]:.2f} | {b[2]:.2f} |")
    lines += ["", "## Commands", "", "`$DIR` is a scratch folder per engine, emptied per repetition.", ""]
    for (e, w), c in r.commands.items():
        lines.append(f"- {e} {w}: `{c}`")
    lines.append("")
    lines.append(f"Orchestrator: `{' '.join(['python3'] + (getattr(r, 'orchestrator_argv', None) or sys.argv))}`")
    os.makedirs(os.path.dirname(out) or ".", exist_ok=True)
    with open(out, "w") as fh:
        fh.write("\n".join(lines) + "\n")
    print(f"wrote {out}")
    # The summary of docs/performance.md is `make bench`'s; `make bench-lookup` has its own section.
    if args.docs and not any(name in LOOKUP_NAMES for name, _, _ in workloads):
        update_docs(args.docs, out, summary_table(rows))


def baseline_ratios(detail):
    """Deletion vectors and the lookup producer against the same table without them, per engine:
    ratios of medians (above 1: costs more than the baseline)."""
    s = {name: v for name, _, v in detail}
    pairs = [(w, b) for w, b in (("pk-write-dv", "pk-write-compacting"),
                                  ("pk-write-lookup", "pk-write-compacting"),
                                  ("read-dv", "read-compacting"),
                                  ("read-lookup", "read-compacting")) if w in s and b in s]
    if not pairs:
        return []
    t = ["", "## Against the table without deletion vectors", "",
         "Each engine's median for the workload / its median for the baseline (pk-write-compacting "
         "or read-compacting) in the same run: above 1 costs more than the plain table.", "",
         "| workload | Fjord wall | Fjord CPU | Fjord RSS | Java wall | Java CPU | Java RSS |",
         "|---|---|---|---|---|---|---|"]
    for w, b in pairs:
        cells = []
        for e in ("fjord", "java"):
            for k in ("wall", "cpu", "rss_mb"):
                cells.append(f"{s[w][e][k] / s[b][e][k]:.2f}")
        t.append(f"| {w} / {b} | " + " | ".join(cells) + " |")
    return t


def summary_table(rows):
    t = ["| workload | Fjord rows/s | Fjord MB/s | Fjord CPU s | Fjord RSS MB | Java rows/s | "
         "Java CPU s | Java RSS MB | limit rows/s | Fjord/Java | Fjord/limit | CPU: Fjord/Java | "
         "CPU: Fjord/limit |",
         "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, f, j, l, fj, fl, cj, cl in rows:
        if name == "commits":
            t.append(f"| commits (mean ms per commit) | {f['commit_ms']:.2f} ms | | {fmt(f['cpu'])} | "
                     f"{fmt(f['rss_mb'])} | {j['commit_ms']:.2f} ms | {fmt(j['cpu'])} | "
                     f"{fmt(j['rss_mb'])} | n/a | {fj:.2f} | n/a | {cj:.2f} | n/a |")
            continue
        t.append(f"| {name} | {fmt(f['rows_s'])} | {fmt(f['mb_s'])} | {fmt(f['cpu'])} | "
                 f"{fmt(f['rss_mb'])} | {fmt(j['rows_s'])} | {fmt(j['cpu'])} | {fmt(j['rss_mb'])} | "
                 f"{fmt(l['rows_s']) if l else 'n/a'} | {fj:.2f} | {fmt(fl) if fl else 'n/a'} | "
                 f"{cj:.2f} | {fmt(cl) if cl else 'n/a'} |")
    return t


def update_docs(path, results_file, table):
    begin, end = "<!-- bench-summary:begin -->", "<!-- bench-summary:end -->"
    text = open(path).read() if os.path.exists(path) else f"# Performance\n\n{begin}\n{end}\n"
    link = os.path.relpath(results_file, os.path.dirname(os.path.abspath(path)))
    block = "\n".join([begin, f"From [`{results_file}`]({link}):", ""] + table + [end])
    text = re.sub(re.escape(begin) + ".*?" + re.escape(end), lambda _: block, text, flags=re.S)
    with open(path, "w") as fh:
        fh.write(text)
    print(f"updated {path}")


if __name__ == "__main__":
    main()
