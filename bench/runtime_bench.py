#!/usr/bin/env python3
"""`fjord run` against Flink with Paimon's Flink connector (issue 16 point 8; bench/README.md).

The same rows go into the same tables, with the same table options and checkpoint interval, once
through Fjord's streaming runtime (`fjord run JOB.yaml`) and once through Flink 1.20 in local mode
(`interop/flink/fjord-flink bench`: Flink SQL `INSERT INTO` a Paimon table from a `filesystem`
JSON source or a `kafka` JSON source). Every run is its own process, measured from outside
(wall, user + sys CPU and peak RSS from wait4), and its table is checked against the rows
generated before a figure is kept.

Two modes per (source, table, parallelism):
  bulk       every row is there before the start; bounded runs (`fjord run --bounded`, a Flink
             job whose source ends) until the final checkpoint: rows/s and rows per CPU-second.
  throttled  rows become available at a fixed rate while the job runs: one batch every 100 ms,
             a file renamed into the directory or a Kafka produce acknowledged by the broker;
             latency of a row = timeMillis of the first snapshot holding it - the time its batch
             became available.

    bench/runtime_bench.py --fjord build/relwithdebinfo/tools/fjord \
        --produce build/relwithdebinfo/tests/fjord_kafka_produce [--quick] [--reps N] ...
"""
import argparse
import datetime
import json
import os
import platform
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "tests", "kafka"))

COLUMNS = [("id", "BIGINT NOT NULL"), ("k", "INT"), ("name", "STRING"), ("city", "STRING"),
           ("amount", "BIGINT"), ("note", "STRING")]
NAMES = [c for c, _ in COLUMNS]
FLINK_COLUMNS = ", ".join(f"`{c}` {t.replace(' NOT NULL', '')}" for c, t in COLUMNS)
CITIES = ["Bergen", "Oslo", "Tromso", "Stavanger", "Alesund", "Bodo", "Narvik", "Molde",
          "Hamar", "Lillehammer", "Kristiansand", "Drammen", "Arendal", "Harstad", "Alta",
          "Kirkenes"]
LETTERS = "abcdefghijklmnopqrstuvwxyz234567"
FILES = 8        # bulk input files; file j holds the rows of keys j mod 8
PARTITIONS = 4   # Kafka partitions; partition j holds the rows of keys j mod 4
TICK = 0.1       # throttled runs: one batch every TICK seconds
MASK = (1 << 64) - 1


def splitmix64(x):
    x = (x + 0x9E3779B97F4A7C15) & MASK
    x = ((x ^ (x >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    x = ((x ^ (x >> 27)) * 0x94D049BB133111EB) & MASK
    return x ^ (x >> 31)


def row(i, key):
    """Row i of the input with primary key `key`: its other columns derived from i alone."""
    h = splitmix64(i)
    name = "".join(LETTERS[(h >> (5 * j)) & 31] for j in range(8 + (h >> 60)))
    return (key, h % 100000, name, CITIES[(h >> 40) % len(CITIES)], (h >> 8) % 1000000000,
            f"order {i} of customer {key}")


def line(r):
    # every string is [A-Za-z0-9 ]: no escaping needed
    return (f'{{"id":{r[0]},"k":{r[1]},"name":"{r[2]}","city":"{r[3]}","amount":{r[4]},'
            f'"note":"{r[5]}"}}\n')


def digest(rows):
    """(count, order-free checksum) of an iterable of row tuples."""
    n, s = 0, 0
    for r in rows:
        n += 1
        s = (s + hash(r)) & MASK
    return n, s


class Input:
    """The bulk input: `rows` rows over `keys` keys (row i's key from splitmix64(i)), as FILES
    JSON-lines files by key and the expected contents of both tables."""

    def __init__(self, work, rows, keys):
        self.rows, self.keys = rows, keys
        self.dir = os.path.join(work, "input")
        os.makedirs(self.dir)
        outs = [open(os.path.join(self.dir, f"part-{j}.jsonl"), "w") for j in range(FILES)]
        last = {}
        n, s = 0, 0
        for i in range(rows):
            key = splitmix64(i ^ 0x5151) % keys
            r = row(i, key)
            outs[key % FILES].write(line(r))
            last[key] = i
            n, s = n + 1, (s + hash(r)) & MASK
        for f in outs:
            f.close()
        self.append_digest = (n, s)
        self.pk_digest = digest(row(i, key) for key, i in last.items())

    def kafka_lines(self):
        for i in range(self.rows):
            key = splitmix64(i ^ 0x5151) % self.keys
            yield f"{key % PARTITIONS}\t{line(row(i, key))}"


class Runner:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.fjord = os.path.abspath(args.fjord)
        self.produce = os.path.abspath(args.produce) if args.produce else None
        jar = subprocess.run([os.path.join(ROOT, "interop", "flink", "build.sh")], check=True,
                             capture_output=True, text=True).stdout.strip()
        opens = [f"--add-opens={p}=ALL-UNNAMED" for p in (
            "java.base/java.lang", "java.base/java.lang.reflect", "java.base/java.io",
            "java.base/java.net", "java.base/java.nio", "java.base/sun.nio.ch",
            "java.base/java.text", "java.base/java.time", "java.base/java.util",
            "java.base/java.util.concurrent", "java.base/java.util.concurrent.atomic",
            "java.base/java.util.concurrent.locks")]
        self.jvm_tmp = os.path.join(work, "jvm-tmp")
        os.makedirs(self.jvm_tmp)
        # The JVM is started directly (not through the fjord-flink launcher, whose C1-only JIT
        # and serial GC suit short tests): default GC and JIT, a 1 GB heap as the launcher's.
        self.java = ["java", "-Duser.timezone=UTC", f"-Xmx{args.flink_heap}", *opens,
                     f"-Djava.io.tmpdir={self.jvm_tmp}", "-jar", jar, "bench"]
        self.broker = None
        self.seq = 0
        self.rusage_run = os.path.join(work, "rusage_run")
        subprocess.run(["cc", "-O2", "-o", self.rusage_run, os.path.join(HERE, "rusage_run.c")],
                       check=True)

    def fj(self, *a):
        p = subprocess.run([self.fjord, *a], capture_output=True, text=True)
        if p.returncode != 0:
            raise RuntimeError(f"fjord {' '.join(a)}: {p.stderr.strip()}")
        return p.stdout

    def new_table(self, kind):
        """A fresh warehouse with table db.t of `kind` (pk or append); returns its directory."""
        self.seq += 1
        wh = os.path.join(self.work, f"wh{self.seq}")
        self.fj("db", "create", wh, "db")
        cols = ", ".join(f"{c} {t}" for c, t in COLUMNS)
        opts = ["-o", "file.format=parquet", "-o", f"write-buffer-size={self.args.write_buffer}"]
        if kind == "pk":
            opts += ["--primary-key", "id", "-o", "bucket=4", "-o", "merge-engine=deduplicate"]
        else:
            opts += ["-o", "bucket=-1"]
        self.fj("table", "create", wh, "db.t", "--columns", cols, *opts)
        return os.path.join(wh, "db.db", "t")

    # --- sources -------------------------------------------------------------------------
    def kafka(self):
        if self.broker is None:
            from broker import Broker
            self.broker = Broker(self.work, partitions=PARTITIONS)
            self.broker.start()
        return self.broker.bootstrap

    def admin(self, *a):
        for _ in range(60):  # the broker may still be electing its controller
            p = subprocess.run([self.produce, self.kafka(), *a], capture_output=True, text=True)
            if p.returncode == 0:
                return
            time.sleep(0.5)
        raise RuntimeError(f"kafka {a}: {p.stderr}")

    def new_topic(self):
        self.seq += 1
        topic = f"bench{self.seq}"
        self.admin("create", topic, str(PARTITIONS))
        # a job started right after the creation may find no partition leader yet (Fjord's kafka
        # source then fails: "no watermark offsets: Not leader for partition")
        time.sleep(3)
        return topic

    # --- engines -------------------------------------------------------------------------
    def command(self, engine, table, par, source, follow):
        """The command line of one run; source = ("files", dir) or ("kafka", topic)."""
        if engine == "flink":
            cmd = self.java + ["--table", table, "--columns", FLINK_COLUMNS, "--parallelism",
                               str(par), "--checkpoint-ms", "1000"]
            if source[0] == "files":
                cmd += ["--files", source[1], "--monitor-ms", "200"]
            else:
                cmd += ["--kafka", self.kafka(), "--topic", source[1]]
            return cmd + (["--follow"] if follow else [])
        self.seq += 1
        job = os.path.join(self.work, f"job{self.seq}.yaml")
        if source[0] == "files":
            src = {"type": "files", "path": source[1], "pattern": "*.jsonl", "format": "jsonl",
                   "poll-interval": "200ms"}
        else:
            src = {"type": "kafka", "bootstrap-servers": self.kafka(), "topic": source[1],
                   "start": "earliest"}
        with open(job, "w") as f:  # JSON is YAML
            json.dump({"source": src, "sink": {"table": table},
                       "pipeline": {"name": "bench", "parallelism": par,
                                    "checkpoint-interval": "1s",
                                    "state-dir": os.path.join(self.work, f"state{self.seq}")}}, f)
        return [self.fjord, "run", job] + ([] if follow else ["--bounded"])

    def start(self, cmd):
        """Starts cmd under rusage_run (bench/rusage_run.c: the engine's own CPU and peak RSS)."""
        log = open(os.path.join(self.work, f"run{self.seq}.log"), "w+")
        self.usage_file = os.path.join(self.work, f"run{self.seq}.rusage")
        proc = subprocess.Popen([self.rusage_run, self.usage_file, *cmd], stdout=log,
                                stderr=subprocess.STDOUT, text=True)
        return proc, log

    def wait(self, proc, started):
        proc.wait()
        wall = time.time() - started
        with open(self.usage_file) as f:
            user, system, maxrss_kb, _ = f.read().split()
        return {"wall_s": wall, "cpu_s": float(user) + float(system),
                "rss_mb": int(maxrss_kb) / 1024.0}

    # --- checks and table figures --------------------------------------------------------
    columns = NAMES  # of the rows table_rows yields; a benchmark with other tables sets its own

    def table_rows(self, table):
        # streamed: the harness stays small (its size is no engine's business, see rusage_run.c)
        p = subprocess.Popen([self.fjord, "cat", table], stdout=subprocess.PIPE, text=True)
        for ln in p.stdout:
            d = json.loads(ln)
            yield tuple(d[c] for c in self.columns)
        if p.wait() != 0:
            raise RuntimeError(f"fjord cat {table} failed")

    def files_per_bucket(self, table):
        stats = json.loads(self.fj("stats", table, "--json"))
        files = [b["files"] for b in stats["buckets"]]
        return {"buckets": len(files), "files_mean": sum(files) / max(1, len(files)),
                "files_max": max(files) if files else 0}

    def snapshots(self, table):
        d = os.path.join(table, "snapshot")
        ids = sorted(int(n[9:]) for n in os.listdir(d) if re.fullmatch(r"snapshot-\d+", n))
        out = []
        for i in ids:
            with open(os.path.join(d, f"snapshot-{i}")) as f:
                out.append(json.load(f))
        return out

    def latest_count(self, table):
        d = os.path.join(table, "snapshot")
        try:
            with open(os.path.join(d, "LATEST")) as f:
                latest = int(f.read().strip())
            with open(os.path.join(d, f"snapshot-{latest}")) as f:
                return json.load(f).get("totalRecordCount", 0)
        except (OSError, ValueError):
            return 0

    def latencies(self, table, batches, per_batch):
        """Per row: timeMillis of the first snapshot holding it - its batch's availability."""
        first_seen = {}
        low = 0  # every id below is seen already
        for snap in self.snapshots(table):
            if snap.get("commitKind") != "APPEND":
                continue
            out = self.fj("cat", table, "--snapshot", str(snap["id"]), "--columns", "id",
                          "--where", f"id >= {low}")
            for ln in out.splitlines():
                i = json.loads(ln)["id"]
                if i not in first_seen:
                    first_seen[i] = snap["timeMillis"]
            while low in first_seen:
                low += 1
        lat = []
        for b, avail_ms in enumerate(batches):
            for i in range(b * per_batch, (b + 1) * per_batch):
                if i not in first_seen:
                    raise RuntimeError(f"row {i} never became visible")
                lat.append(first_seen[i] - avail_ms)
        lat.sort()
        return {"p50_ms": lat[len(lat) // 2], "p99_ms": lat[min(len(lat) - 1, len(lat) * 99 // 100)],
                "max_ms": lat[-1]}

    # --- runs ----------------------------------------------------------------------------
    def bulk(self, engine, kind, par, source, inp):
        table = self.new_table(kind)
        cmd = self.command(engine, table, par, source, follow=False)
        started = time.time()
        proc, log = self.start(cmd)
        m = self.wait(proc, started)
        if proc.returncode != 0:
            log.seek(0)
            raise RuntimeError(f"{engine} failed ({proc.returncode}): {log.read()[-3000:]}")
        log.seek(0)
        job = re.search(r"job_ms=(\d+)", log.read())
        # Flink: submission to the end of the job (no JVM and MiniCluster start-up)
        m["job_s"] = int(job.group(1)) / 1000.0 if job else m["wall_s"]
        want = inp.pk_digest if kind == "pk" else inp.append_digest
        got = digest(self.table_rows(table))
        if got != want:
            raise RuntimeError(f"{engine} {kind} p{par} {source[0]}: table has {got[0]} rows "
                               f"(checksum {got[1]:x}), expected {want[0]} ({want[1]:x}); {table}")
        m.update(self.files_per_bucket(table))
        m["rows"] = inp.rows
        m["rows_per_s"] = inp.rows / m["wall_s"]
        m["rows_per_cpu_s"] = inp.rows / m["cpu_s"]
        m["rows_per_job_s"] = inp.rows / m["job_s"]
        m["snapshots"] = len(self.snapshots(table))
        shutil.rmtree(os.path.dirname(os.path.dirname(table)))
        return m

    def throttled(self, engine, kind, par, src_kind):
        rate, seconds = self.args.rate, self.args.seconds
        per_batch = max(1, int(rate * TICK))
        nbatches = int(seconds / TICK)
        total = per_batch * nbatches
        table = self.new_table(kind)
        self.seq += 1
        if src_kind == "files":
            d = os.path.join(self.work, f"feed{self.seq}")
            os.makedirs(d)
            source = ("files", d)
        else:
            source = ("kafka", self.new_topic())
        cmd = self.command(engine, table, par, source, follow=True)
        started = time.time()
        proc, log = self.start(cmd)
        deadline = time.time() + 120
        # The feed starts once the job's first checkpoint completed (Fjord: its first checkpoint
        # line; Flink: its REST API counts one, so every task runs): start-up is not latency.
        ready = r"^checkpoint \d+" if engine == "fjord" else r"^fjord-bench: checkpointed"
        while True:
            log.seek(0)
            if re.search(ready, log.read(), re.M):
                break
            if proc.poll() is not None or time.time() > deadline:
                log.seek(0)
                raise RuntimeError(f"{engine} did not start: {log.read()[-3000:]}")
            time.sleep(0.05)
        producer = None
        if src_kind == "kafka":
            producer = subprocess.Popen([self.produce, self.kafka(), "produce", source[1]],
                                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        batches = []
        t0 = time.time()
        for b in range(nbatches):
            pause = t0 + b * TICK - time.time()
            if pause > 0:
                time.sleep(pause)
            ids = range(b * per_batch, (b + 1) * per_batch)
            if src_kind == "files":
                tmp = os.path.join(source[1], f".b{b:06d}")
                with open(tmp, "w") as f:
                    f.writelines(line(row(i, i)) for i in ids)
                os.rename(tmp, os.path.join(source[1], f"b{b:06d}.jsonl"))
            else:
                producer.stdin.write("".join(f"{i % PARTITIONS}\t{line(row(i, i))}" for i in ids)
                                     + "\n")
                producer.stdin.flush()
                producer.stdout.readline()  # "flushed N": the broker has them
            batches.append(time.time() * 1000.0)
        lag = time.time() - t0 - nbatches * TICK
        if producer:
            producer.stdin.close()
            producer.wait()
        deadline = time.time() + 180
        while self.latest_count(table) < total:
            if proc.poll() is not None or time.time() > deadline:
                break
            time.sleep(0.1)
        proc.send_signal(signal.SIGTERM)
        m = self.wait(proc, started)
        got = digest(self.table_rows(table))
        want = digest(row(i, i) for i in range(total))
        if got != want:
            log.seek(0)
            raise RuntimeError(f"{engine} {kind} p{par} throttled {src_kind}: table has {got[0]} "
                               f"rows, expected {total}; {table}; {log.read()[-2000:]}")
        m.update(self.latencies(table, batches, per_batch))
        m.update(self.files_per_bucket(table))
        m["rows"] = total
        m["rows_per_cpu_s"] = total / m["cpu_s"]
        m["feed_lag_s"] = lag
        m["snapshots"] = len(self.snapshots(table))
        shutil.rmtree(os.path.dirname(os.path.dirname(table)))
        return m


def median(runs, key):
    vals = [r[key] for r in runs if r.get(key) is not None]
    return statistics.median(vals) if vals else float("nan")


def summary(results):
    """One line per (source, table, P): bulk speed and CPU, peak RSS and throttled latency of
    both engines, with Fjord/Flink ratios (above 1: Fjord better)."""
    def pick(mode, src, kind, par, engine):
        return [r for r in results if (r["mode"], r["source"], r["table"], r["par"],
                                       r["engine"]) == (mode, src, kind, par, engine)]
    lines = ["| input | table | P | rows/s Fjord | Flink | Fjord/Flink | rows/CPU-s Fjord | Flink "
             "| Fjord/Flink | peak RSS MB Fjord | Flink | latency p50 / p99 ms Fjord | Flink |",
             "|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for src, kind, par in sorted({(r["source"], r["table"], r["par"]) for r in results},
                                 key=lambda k: (k[0] != "files", k[1] != "pk", k[2])):
        bf, bl = pick("bulk", src, kind, par, "fjord"), pick("bulk", src, kind, par, "flink")
        tf, tl = (pick("throttled", src, kind, par, "fjord"),
                  pick("throttled", src, kind, par, "flink"))
        rss = lambda rs: median(rs, "rss_mb")  # noqa: E731
        lat = lambda rs: (f"{median(rs, 'p50_ms'):,.0f} / {median(rs, 'p99_ms'):,.0f}"  # noqa: E731
                          if rs else "")
        lines.append(
            f"| {src} | {kind} | {par} | {median(bf, 'rows_per_s'):,.0f} | "
            f"{median(bl, 'rows_per_s'):,.0f} | "
            f"{median(bf, 'rows_per_s') / median(bl, 'rows_per_s'):.1f} | "
            f"{median(bf, 'rows_per_cpu_s'):,.0f} | {median(bl, 'rows_per_cpu_s'):,.0f} | "
            f"{median(bf, 'rows_per_cpu_s') / median(bl, 'rows_per_cpu_s'):.1f} | "
            f"{rss(bf):,.0f} | {rss(bl):,.0f} | {lat(tf)} | {lat(tl)} |")
    return lines


def report(results, args, out):
    now = datetime.datetime.now(datetime.timezone.utc)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    lines = [f"# `fjord run` against Flink + Paimon: {now:%Y-%m-%d %H:%M} UTC", "",
             f"bench/runtime_bench.py {' '.join(sys.argv[1:])}", "",
             "Fjord: `fjord run JOB.yaml` (`--bounded` for bulk); Flink 1.20.3 local MiniCluster, "
             "Paimon's Flink connector 1.3.1, Flink SQL INSERT INTO (`fjord-flink bench`), JVM "
             f"-Xmx{args.flink_heap}. Method: bench/README.md.", "",
             f"Machine: {os.cpu_count()} cores ({cpu}), "
             f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
             "shared with other work (builds, tests) while this ran, so single figures are noisy.",
             f"Load average at the end: {os.getloadavg()[0]:.1f}.", "",
             f"Bulk: {args.rows:,} rows over {args.rows // 2:,} keys. Throttled: {args.rate:,} rows/s "
             f"for {args.seconds:g} s (unique keys). Checkpoints every 1 s; table options "
             f"file.format parquet, write-buffer-size {args.write_buffer}, defaults otherwise; "
             f"pk = 4 buckets deduplicate, append = bucket -1. Medians over the runs "
             "(column runs), engines interleaved. Every run's table was checked (row count and checksum) "
             "against the generated rows.", "",
             "## Bulk (bounded runs, all rows there before the start)", "",
             "| source | table | P | engine | wall s | rows/s | job s | rows/job-s | CPU s "
             "| rows/CPU-s | peak RSS MB | files/bucket mean (max) | snapshots | runs |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]

    def groups(mode):
        """(source, table, P, engine, runs) of `mode`, in report order."""
        keys = sorted({(r["source"], r["table"], r["par"]) for r in results
                       if r["mode"] == mode})
        for src, kind, par in keys:
            for engine in ("fjord", "flink"):
                rs = [r for r in results if (r["mode"], r["source"], r["table"], r["par"],
                                             r["engine"]) == (mode, src, kind, par, engine)]
                if rs:
                    yield src, kind, par, engine, rs

    for src, kind, par, engine, rs in groups("bulk"):
        lines.append(f"| {src} | {kind} | {par} | {engine} | {median(rs, 'wall_s'):.1f} | "
                     f"{median(rs, 'rows_per_s'):,.0f} | {median(rs, 'job_s'):.1f} | "
                     f"{median(rs, 'rows_per_job_s'):,.0f} | {median(rs, 'cpu_s'):.1f} | "
                     f"{median(rs, 'rows_per_cpu_s'):,.0f} | {median(rs, 'rss_mb'):,.0f} | "
                     f"{median(rs, 'files_mean'):.1f} ({median(rs, 'files_max'):.0f}) | "
                     f"{median(rs, 'snapshots'):.0f} | {len(rs)} |")
    lines += ["", "## Throttled (rows made available at a fixed rate)", "",
              "| source | table | P | engine | latency p50 ms | p99 ms | max ms | CPU s | "
              "rows/CPU-s | peak RSS MB | files/bucket mean (max) | snapshots | runs |",
              "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for src, kind, par, engine, rs in groups("throttled"):
        lines.append(f"| {src} | {kind} | {par} | {engine} | {median(rs, 'p50_ms'):,.0f} | "
                     f"{median(rs, 'p99_ms'):,.0f} | {median(rs, 'max_ms'):,.0f} | "
                     f"{median(rs, 'cpu_s'):.1f} | {median(rs, 'rows_per_cpu_s'):,.0f} | "
                     f"{median(rs, 'rss_mb'):,.0f} | {median(rs, 'files_mean'):.1f} "
                     f"({median(rs, 'files_max'):.0f}) | {median(rs, 'snapshots'):.0f} | "
                     f"{len(rs)} |")
    lines += ["", "## Summary (Fjord against Flink)", ""] + summary(results)
    text = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--produce", help="fjord_kafka_produce (tests/kafka); needed for kafka")
    ap.add_argument("--quick", action="store_true", help="a few minutes: checks the harness")
    ap.add_argument("--rows", type=int)
    ap.add_argument("--rate", type=int, help="throttled rows/s")
    ap.add_argument("--seconds", type=float, help="throttled feed duration")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--sources", default="files,kafka")
    ap.add_argument("--tables", default="pk,append")
    ap.add_argument("--parallelism", default=None, help="default 1,2 (quick: 1)")
    ap.add_argument("--modes", default="bulk,throttled")
    ap.add_argument("--write-buffer", default="64 mb")
    ap.add_argument("--flink-heap", default="1g")
    ap.add_argument("--scratch", default=None, help="folder for the tables (default: /tmp)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--raw", default=None, help="append every run as a JSON line here")
    ap.add_argument("--report-from", default=None,
                    help="write the report from --raw files (comma-separated) of earlier runs, "
                    "run nothing")
    ap.add_argument("--first-rep", type=int, default=0,
                    help="number of the first repetition (odd: Flink first)")
    args = ap.parse_args()
    quick = args.quick
    args.rows = args.rows or (100_000 if quick else 2_000_000)
    args.rate = args.rate or (5_000 if quick else 20_000)
    args.seconds = args.seconds or (5 if quick else 20)
    args.reps = args.reps or (1 if quick else 2)
    args.parallelism = args.parallelism or ("1" if quick else "1,2")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out = args.out or os.path.join(HERE, "results",
                                   f"{date}-runtime{'-quick' if quick else ''}.md")
    sources, tables = args.sources.split(","), args.tables.split(",")
    pars = [int(p) for p in args.parallelism.split(",")]
    modes = args.modes.split(",")
    if args.report_from:
        results = []
        for path in args.report_from.split(","):
            with open(path) as f:
                results += [json.loads(ln) for ln in f if ln.strip()]
        args.reps = max(r["rep"] for r in results) + 1
        print(report(results, args, out))
        return
    if "kafka" in sources and not args.produce:
        sys.exit("--produce is needed for the kafka source")

    with tempfile.TemporaryDirectory(prefix="fjord-runtime-bench-", dir=args.scratch) as work:
        runner = Runner(args, work)
        results = []
        raw = open(args.raw, "a") if args.raw else None
        try:
            t = time.time()
            inp = Input(work, args.rows, args.rows // 2) if "bulk" in modes else None
            if inp:
                print(f"input: {args.rows:,} rows, {inp.pk_digest[0]:,} keys "
                      f"({time.time() - t:.0f} s)", flush=True)
            bulk_topic = None
            if inp and "kafka" in sources:
                t = time.time()
                bulk_topic = runner.new_topic()
                p = subprocess.Popen([runner.produce, runner.kafka(), "produce", bulk_topic],
                                     stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True)
                for ln in inp.kafka_lines():
                    p.stdin.write(ln)
                p.stdin.close()
                if p.wait() != 0:
                    sys.exit("producing the bulk topic failed")
                print(f"kafka topic {bulk_topic}: {args.rows:,} messages ({time.time() - t:.0f} s)",
                      flush=True)
            for rep in range(args.first_rep, args.first_rep + args.reps):
                # A/B then B/A: drift of the machine's load falls on both engines alike
                engines = ["fjord", "flink"] if rep % 2 == 0 else ["flink", "fjord"]
                for mode in modes:
                    for src in sources:
                        for kind in tables:
                            for par in pars:
                                for engine in engines:
                                    t = time.time()
                                    if mode == "bulk":
                                        source = ("files", inp.dir) if src == "files" else (
                                            "kafka", bulk_topic)
                                        m = runner.bulk(engine, kind, par, source, inp)
                                    else:
                                        m = runner.throttled(engine, kind, par, src)
                                    m.update(mode=mode, source=src, table=kind, par=par,
                                             engine=engine, rep=rep)
                                    results.append(m)
                                    if raw:
                                        raw.write(json.dumps(m) + "\n")
                                        raw.flush()
                                    brief = (f"{m['rows_per_s']:,.0f} rows/s" if mode == "bulk"
                                             else f"p50 {m['p50_ms']:.0f} ms p99 {m['p99_ms']:.0f} ms")
                                    print(f"[{rep}] {mode} {src} {kind} p{par} {engine}: {brief}, "
                                          f"{m['rows_per_cpu_s']:,.0f} rows/CPU-s, "
                                          f"{m['rss_mb']:.0f} MB, {m['files_mean']:.1f} files/bucket"
                                          f" ({time.time() - t:.0f} s)", flush=True)
        finally:
            if runner.broker:
                runner.broker.stop()
        print(report(results, args, out))
        print(f"written to {out}")


if __name__ == "__main__":
    main()
