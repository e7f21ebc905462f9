#!/usr/bin/env python3
"""CDC ingestion: Debezium JSON from Kafka into a Paimon primary-key table, `fjord run` against
Flink with Paimon's Flink connector (issue 17 point 6; bench/README.md, "make bench-cdc").

The harness generates N Debezium change events of one PostgreSQL table (the JSON converter with
schemas, as Debezium's PostgreSQL connector writes them under REPLICA IDENTITY FULL: inserts,
updates with their before image, deletes) and produces them into a Kafka topic of 3 partitions,
each message keyed by its primary key's JSON (Java's partitioner: each key in order in one
partition), before any run starts. Then, per parallelism and engine, one bounded run reads the
whole topic into a new table:

  fjord   `fjord run --bounded` of a table-sync job (source format debezium-json, the table
          created from the first message's schema, primary key id, bucket 4; the messages
          decoded on as many threads as the parallelism, as Flink's slots)
  flink   Flink 1.20 local MiniCluster, Paimon's Flink connector: Flink SQL `INSERT INTO` the
          table from a Kafka source table with 'format' = 'debezium-json' (schema included),
          bounded at the latest offsets, with checkpoints (`interop/flink/fjord-flink bench`)

Each run is its own process, measured from outside (wall, user + sys CPU and peak RSS from wait4
through bench/rusage_run.c), and its table is read with `fjord cat` and compared with the model
(the rows the events leave) before a figure is kept.

    bench/cdc_bench.py --fjord build/relwithdebinfo/tools/fjord \
        --produce build/relwithdebinfo/tests/fjord_kafka_produce [--quick] [--events N] ...
"""
import argparse
import datetime
import json
import os
import platform
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import runtime_bench  # noqa: E402  (its Runner: Kafka broker, rusage_run, fjord helpers)
from runtime_bench import CITIES, LETTERS, MASK, median, splitmix64  # noqa: E402

PARTITIONS = 3
SERVER, DB, SCHEMA, TABLE = "bench", "shop", "public", "orders"
STATUSES = ["new", "paid", "packed", "shipped", "delivered", "returned", "cancelled"]
EPOCH = datetime.datetime(1970, 1, 1)
EPOCH_DATE = datetime.date(1970, 1, 1)

# The table: (name, Paimon type, Kafka Connect schema of the column as Debezium writes it).
# Column types are those Debezium's PostgreSQL connector gives: integer -> int32, bigint ->
# int64, numeric(10,2) -> Connect Decimal (bytes, decimal.handling.mode precise; its value a JSON
# number: the JSON converter's decimal.format = NUMERIC, which Paimon's Debezium JSON parser
# requires and Fjord's follows; the default BASE64 is refused by both), text -> string,
# date -> io.debezium.time.Date (int32 days), timestamp(6) -> io.debezium.time.MicroTimestamp
# (int64 microseconds), boolean -> boolean.
DECIMAL = {"type": "bytes", "optional": True, "name": "org.apache.kafka.connect.data.Decimal",
           "version": 1, "parameters": {"scale": "2", "connect.decimal.precision": "10"}}
COLUMNS = [
    ("id", "INT NOT NULL", {"type": "int32", "optional": False}),
    ("seq", "BIGINT", {"type": "int64", "optional": True}),
    ("qty", "INT", {"type": "int32", "optional": True}),
    ("price", "DECIMAL(10, 2)", DECIMAL),
    ("name", "STRING", {"type": "string", "optional": True}),
    ("city", "STRING", {"type": "string", "optional": True}),
    ("email", "STRING", {"type": "string", "optional": True}),
    ("note", "STRING", {"type": "string", "optional": True}),
    ("status", "STRING", {"type": "string", "optional": True}),
    ("birthday", "DATE", {"type": "int32", "optional": True, "name": "io.debezium.time.Date",
                          "version": 1}),
    ("updated_at", "TIMESTAMP(6)", {"type": "int64", "optional": True,
                                    "name": "io.debezium.time.MicroTimestamp", "version": 1}),
    ("active", "BOOLEAN", {"type": "boolean", "optional": True}),
]
NAMES = [c for c, _, _ in COLUMNS]

# Flink: the source table reads the columns as their JSON encodings, the query converts them
# (interop/flink/src/main/java/fjord/flink/ConnectTypes.java)
FLINK_SOURCE = ("`id` INT, `seq` BIGINT, `qty` INT, `price` DECIMAL(10, 2), `name` STRING, "
                "`city` STRING, `email` STRING, `note` STRING, `status` STRING, `birthday` INT, "
                "`updated_at` BIGINT, `active` BOOLEAN, PRIMARY KEY (`id`) NOT ENFORCED")
FLINK_SELECT = ("`id`, `seq`, `qty`, `price`, `name`, `city`, `email`, "
                "`note`, `status`, DEBEZIUM_DATE(`birthday`), DEBEZIUM_MICRO_TIMESTAMP("
                "`updated_at`), `active`")


def envelope_schema():
    """The value schema of the topic's messages (Debezium 3.6's PostgreSQL envelope, as in
    tests/fixtures/debezium/postgres-schemas.jsonl)."""
    def field(name, schema):
        return dict(schema, field=name)
    value = [field(n, s) for n, _, s in COLUMNS]
    row = f"{SERVER}.{SCHEMA}.{TABLE}.Value"
    source = [field("version", {"type": "string", "optional": False}),
              field("connector", {"type": "string", "optional": False}),
              field("name", {"type": "string", "optional": False}),
              field("ts_ms", {"type": "int64", "optional": False}),
              field("snapshot", {"type": "string", "optional": True,
                                 "name": "io.debezium.data.Enum", "version": 1,
                                 "parameters": {"allowed": "true,first,first_in_data_collection,"
                                                "last_in_data_collection,last,false,incremental"},
                                 "default": "false"}),
              field("db", {"type": "string", "optional": False}),
              field("sequence", {"type": "string", "optional": True}),
              field("ts_us", {"type": "int64", "optional": True}),
              field("ts_ns", {"type": "int64", "optional": True}),
              field("schema", {"type": "string", "optional": False}),
              field("table", {"type": "string", "optional": False}),
              field("txId", {"type": "int64", "optional": True}),
              field("lsn", {"type": "int64", "optional": True}),
              field("xmin", {"type": "int64", "optional": True}),
              field("origin", {"type": "string", "optional": True}),
              field("origin_lsn", {"type": "int64", "optional": True})]
    transaction = [field("id", {"type": "string", "optional": False}),
                   field("total_order", {"type": "int64", "optional": False}),
                   field("data_collection_order", {"type": "int64", "optional": False})]
    return {"type": "struct", "fields": [
        {"type": "struct", "fields": value, "optional": True, "name": row, "field": "before"},
        {"type": "struct", "fields": value, "optional": True, "name": row, "field": "after"},
        {"type": "struct", "fields": source, "optional": False,
         "name": "io.debezium.connector.postgresql.Source", "version": 1, "field": "source"},
        {"type": "struct", "fields": transaction, "optional": True, "name": "event.block",
         "version": 1, "field": "transaction"},
        {"type": "string", "optional": False, "field": "op"},
        {"type": "int64", "optional": True, "field": "ts_ms"},
        {"type": "int64", "optional": True, "field": "ts_us"},
        {"type": "int64", "optional": True, "field": "ts_ns"}],
        "optional": False, "name": f"{SERVER}.{SCHEMA}.{TABLE}.Envelope", "version": 2}


def compact(obj):
    return json.dumps(obj, separators=(",", ":"))


VALUE_PREFIX = '{"schema":' + compact(envelope_schema()) + ',"payload":'
KEY_PREFIX = '{"schema":' + compact({
    "type": "struct", "fields": [{"type": "int32", "optional": False, "field": "id"}],
    "optional": False, "name": f"{SERVER}.{SCHEMA}.{TABLE}.Key"}) + ',"payload":{"id":'


def version(i, key):
    """The row that event i writes for `key`: (canonical values as `fjord cat` prints them,
    the row's Debezium JSON)."""
    h = splitmix64(i ^ 0xCDC)
    qty = h % 1000
    cents = (h >> 10) % 20_000_000 - 10_000_000  # -100000.00 .. 99999.99
    name = "".join(LETTERS[(h >> (5 * j)) & 31] for j in range(6 + (h >> 61)))
    city = CITIES[(h >> 40) % len(CITIES)]
    email = f"{name}.{key}@example.com"
    note = f"event {i} of order {key}"
    status = STATUSES[(h >> 44) % len(STATUSES)]
    days = 3650 + (h >> 20) % 20000
    micros = 1_700_000_000_000_000 + i * 1_000_003 + h % 1000
    active = bool(h >> 63)
    sign = "-" if cents < 0 else ""
    price = f"{sign}{abs(cents) // 100}.{abs(cents) % 100:02d}"
    canon = (key, i, qty, price, name, city, email, note, status,
             (EPOCH_DATE + datetime.timedelta(days=days)).isoformat(),
             (EPOCH + datetime.timedelta(microseconds=micros)).strftime("%Y-%m-%dT%H:%M:%S.%f"),
             active)
    # every string is [A-Za-z0-9 .@]: no escaping needed
    js = (f'{{"id":{key},"seq":{i},"qty":{qty},"price":{price},'
          f'"name":"{name}","city":"{city}","email":"{email}","note":"{note}",'
          f'"status":"{status}","birthday":{days},"updated_at":{micros},'
          f'"active":{"true" if active else "false"}}}')
    return canon, js


class Events:
    """N change events over a growing key space: ~60 % inserts of a new id, ~30 % updates and
    ~10 % deletes of a live id chosen at random, in one sequence as a database's log would have
    them. `messages()` yields the Kafka messages; `model` is (count, checksum) of the rows left."""

    def __init__(self, n, seed=17):
        self.n, self.seed = n, seed
        self.counts = {"c": 0, "u": 0, "d": 0}

    def messages(self):
        """Yields (key, value) of each event, in order; sets self.model at the end."""
        rng = random.Random(self.seed)
        live = {}    # id -> (canonical row, row JSON)
        ids = []     # the live ids, for a uniform pick
        where = {}   # id -> its index in ids
        next_id = 1
        lsn = 30_000_000
        ts_ms = 1_796_000_000_000
        for i in range(self.n):
            r = rng.random()
            op = "c" if r < 0.6 or not ids else ("u" if r < 0.9 else "d")
            if op == "c":
                key = next_id
                next_id += 1
                before = None
                canon, after = version(i, key)
                live[key] = (canon, after)
                where[key] = len(ids)
                ids.append(key)
            else:
                key = ids[rng.randrange(len(ids))]
                before = live[key][1]
                if op == "u":
                    canon, after = version(i, key)
                    live[key] = (canon, after)
                else:
                    after = None
                    del live[key]
                    j = where.pop(key)
                    last = ids.pop()
                    if last != key:
                        ids[j] = last
                        where[last] = j
            self.counts[op] += 1
            lsn += 184
            if i % 7 == 0:
                ts_ms += 1
            tx = 1000 + i
            value = (VALUE_PREFIX + '{"before":' + (before or "null") + ',"after":'
                     + (after or "null") + ',"source":{"version":"3.6.1.Final","connector":'
                     f'"postgresql","name":"{SERVER}","ts_ms":{ts_ms},"snapshot":"false","db":'
                     f'"{DB}","sequence":"[\\"{lsn - 184}\\",\\"{lsn}\\"]","ts_us":{ts_ms * 1000},'
                     f'"ts_ns":{ts_ms * 1000000},"schema":"{SCHEMA}","table":"{TABLE}","txId":'
                     f'{tx},"lsn":{lsn},"xmin":null,"origin":null,"origin_lsn":null}},'
                     f'"transaction":null,"op":"{op}","ts_ms":{ts_ms + 150},"ts_us":'
                     f'{(ts_ms + 150) * 1000},"ts_ns":{(ts_ms + 150) * 1000000}}}}}')
            yield KEY_PREFIX + f"{key}}}}}", value
        s = 0
        for canon, _ in live.values():
            s = (s + hash(canon)) & MASK
        self.model = (len(live), s)
        self.keys = next_id - 1


class CdcRunner(runtime_bench.Runner):
    """runtime_bench's Runner (the Kafka broker, rusage_run, the Flink command, fjord helpers)
    with the CDC runs."""

    columns = NAMES

    def new_topic(self):
        self.seq += 1
        topic = f"{SERVER}.{SCHEMA}.{TABLE}.{self.seq}"
        self.admin("create", topic, str(PARTITIONS))
        time.sleep(3)  # let the partitions get their leader (see runtime_bench.new_topic)
        return topic

    def load(self, events):
        """Produces every event into a new topic; returns the topic."""
        topic = self.new_topic()
        p = subprocess.Popen([self.produce, self.kafka(), "produce-keyed", topic],
                             stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True,
                             bufsize=1 << 20)
        self.value_bytes = 0
        for key, value in events.messages():
            p.stdin.write(f"-1\t{key}\t{value}\n")
            self.value_bytes += len(value)
        p.stdin.close()
        if p.wait() != 0:
            raise RuntimeError("producing the events failed")
        return topic

    def warehouse(self):
        self.seq += 1
        wh = os.path.join(self.work, f"wh{self.seq}")
        self.fj("db", "create", wh, DB)
        return wh, os.path.join(wh, f"{DB}.db", TABLE)

    def table_options(self):
        return {"bucket": str(self.args.bucket), "file.format": "parquet",
                "write-buffer-size": self.args.write_buffer}

    def cdc_command(self, engine, table, par, topic):
        ckpt = self.args.checkpoint_ms
        if engine == "flink":
            # Flink writes into a table the harness creates with the schema Debezium's messages
            # give (Fjord's job creates its own from the first message)
            cols = ", ".join(f"{c} {t}" for c, t, _ in COLUMNS)
            opts = [a for k, v in self.table_options().items() for a in ("-o", f"{k}={v}")]
            self.fj("table", "create", os.path.dirname(os.path.dirname(table)), f"{DB}.{TABLE}",
                    "--columns", cols, "--primary-key", "id", *opts)
            return self.java + ["--table", table, "--columns", FLINK_SOURCE, "--select",
                                FLINK_SELECT, "--format", "debezium-json", "--parallelism",
                                str(par), "--checkpoint-ms", str(ckpt), "--kafka", self.kafka(),
                                "--topic", topic]
        self.seq += 1
        job = os.path.join(self.work, f"job{self.seq}.yaml")
        with open(job, "w") as f:  # JSON is YAML
            json.dump({"source": {"type": "kafka", "bootstrap-servers": self.kafka(),
                                  "topic": topic, "start": "earliest",
                                  "format": "debezium-json",
                                  "decode-threads": self.args.decode_threads or par},
                       "sink": {"table": table, "primary-key": ["id"],
                                "table-options": self.table_options()},
                       "pipeline": {"name": "cdc-bench", "parallelism": par,
                                    "checkpoint-interval": f"{ckpt}ms",
                                    "state-dir": os.path.join(self.work, f"state{self.seq}")}},
                      f)
        return [self.fjord, "run", job, "--bounded"]

    def schema(self, table):
        d = os.path.join(table, "schema")
        latest = max(int(n[7:]) for n in os.listdir(d) if re.fullmatch(r"schema-\d+", n))
        with open(os.path.join(d, f"schema-{latest}")) as f:
            s = json.load(f)
        return {"fields": [f"{fl['name']} {fl['type']}" for fl in s["fields"]],
                "primary_keys": s.get("primaryKeys"), "options": s.get("options")}

    def run_cdc(self, engine, par, topic, events):
        wh, table = self.warehouse()
        cmd = self.cdc_command(engine, table, par, topic)
        started = time.time()
        proc, log = self.start(cmd)
        m = self.wait(proc, started)
        log.seek(0)
        text = log.read()
        if proc.returncode != 0:
            raise RuntimeError(f"{engine} p{par} failed ({proc.returncode}): {text[-3000:]}")
        job = re.search(r"job_ms=(\d+)", text)
        m["job_s"] = int(job.group(1)) / 1000.0 if job else m["wall_s"]
        if engine == "flink":
            m["plan"] = [op for op in ("ChangelogNormalize", "SinkUpsertMaterializer",
                                       "DropUpdateBefore") if op in text]
        got = self.digest(self.table_rows(table))
        if got != events.model:
            raise RuntimeError(f"{engine} p{par}: table has {got[0]} rows (checksum {got[1]:x}), "
                               f"the model {events.model[0]} ({events.model[1]:x}); {table}; "
                               f"{text[-2000:]}")
        m.update(self.files_per_bucket(table))
        m["schema"] = self.schema(table)
        m["events"] = events.n
        m["rows"] = events.model[0]
        m["events_per_s"] = events.n / m["wall_s"]
        m["events_per_cpu_s"] = events.n / m["cpu_s"]
        m["events_per_job_s"] = events.n / m["job_s"]
        m["snapshots"] = len(self.snapshots(table))
        shutil.rmtree(wh)
        return m

    @staticmethod
    def digest(rows):
        n, s = 0, 0
        for r in rows:
            n, s = n + 1, (s + hash(r)) & MASK
        return n, s


PAIMON_BAR = 7_600  # rows/s per slot: the figure of Paimon's CDC ingestion demo (issue 17)


def report(results, args, load, out):
    now = datetime.datetime.now(datetime.timezone.utc)
    cpu = next((ln.split(":", 1)[1].strip() for ln in open("/proc/cpuinfo")
                if ln.startswith("model name")), platform.processor())
    ev = results[0]
    lines = [f"# CDC ingestion, Debezium JSON from Kafka: `fjord run` against Flink + Paimon: "
             f"{now:%Y-%m-%d %H:%M} UTC", "",
             f"bench/cdc_bench.py {' '.join(sys.argv[1:])}", "",
             "Fjord: `fjord run --bounded` of a table-sync job (`format: debezium-json`, the table "
             "created from the first message's schema). Flink 1.20.3 local MiniCluster, Paimon's "
             "Flink connector 1.3.1, Flink SQL `INSERT INTO` from a Kafka table with `'format' = "
             "'debezium-json'` (schema included), bounded at the latest offsets (`fjord-flink "
             f"bench --format debezium-json`), JVM -Xmx{args.flink_heap}. Method: bench/README.md "
             "(`make bench-cdc`).", "",
             f"Machine: {os.cpu_count()} cores ({cpu}), "
             f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB; "
             "shared with other work while this ran, so single figures are noisy. "
             f"Load average at the end: {os.getloadavg()[0]:.1f}.", "",
             f"Input: {load['events']:,} Debezium change events (inserts {load['c']:,}, updates "
             f"with before image {load['u']:,}, deletes {load['d']:,}) over {load['keys']:,} ids, "
             f"{load['bytes'] / 1e9:.2f} GB of message values "
             f"({load['bytes'] / load['events']:,.0f} bytes a message, the schema envelope "
             f"included), in a topic of {PARTITIONS} partitions keyed by the primary key; loaded "
             f"in {load['seconds']:.0f} s before the runs. The table left holds {ev['rows']:,} "
             f"rows. Table options: bucket {args.bucket}, file.format parquet, "
             f"write-buffer-size {args.write_buffer}, Paimon's defaults otherwise; checkpoints "
             f"every {args.checkpoint_ms} ms. Every run's table was read back with `fjord cat` "
             "and equals the model (row count and checksum). Medians over the runs (column "
             "runs); engines interleaved.", "",
             "| P | engine | wall s | events/s | job s | events/job-s | CPU s | events/CPU-s | "
             "peak RSS MB | files/bucket mean (max) | snapshots | runs |",
             "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
    pars = sorted({r["par"] for r in results})
    for par in pars:
        for engine in ("fjord", "flink"):
            rs = [r for r in results if (r["par"], r["engine"]) == (par, engine)]
            if not rs:
                continue
            lines.append(f"| {par} | {engine} | {median(rs, 'wall_s'):.1f} | "
                         f"{median(rs, 'events_per_s'):,.0f} | {median(rs, 'job_s'):.1f} | "
                         f"{median(rs, 'events_per_job_s'):,.0f} | {median(rs, 'cpu_s'):.1f} | "
                         f"{median(rs, 'events_per_cpu_s'):,.0f} | {median(rs, 'rss_mb'):,.0f} | "
                         f"{median(rs, 'files_mean'):.1f} ({median(rs, 'files_max'):.0f}) | "
                         f"{median(rs, 'snapshots'):.0f} | {len(rs)} |")
    lines += ["", "## Summary", "",
              "Rows here are change events (a row of the input stream). Paimon's own CDC demo "
              f"bar is about {PAIMON_BAR:,} rows/s per slot (issue 17).", "",
              "| P | events/s Fjord | Flink | Fjord/Flink | events/CPU-s Fjord | Flink | "
              "Fjord/Flink | Flink events/s per slot / 7.6K | Fjord events/s / (7.6K x P) |",
              "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]
    for par in pars:
        f = [r for r in results if (r["par"], r["engine"]) == (par, "fjord")]
        k = [r for r in results if (r["par"], r["engine"]) == (par, "flink")]

        def ratio(a, b):
            return f"{a / b:.1f}" if a == a and b == b and b else ""
        fs, ks = median(f, "events_per_s"), median(k, "events_per_s")
        fc, kc = median(f, "events_per_cpu_s"), median(k, "events_per_cpu_s")
        num = lambda v: f"{v:,.0f}" if v == v else ""  # noqa: E731
        lines.append(f"| {par} | {num(fs)} | {num(ks)} | {ratio(fs, ks)} | {num(fc)} | "
                     f"{num(kc)} | {ratio(fc, kc)} | {ratio(ks / par, PAIMON_BAR)} | "
                     f"{ratio(fs, PAIMON_BAR * par)} |")
    plans = {tuple(r.get("plan", [])) for r in results if r["engine"] == "flink"}
    if plans:
        lines += ["", "Flink's plan: " + "; ".join(
            ", ".join(p) if p else "no ChangelogNormalize, no SinkUpsertMaterializer"
            for p in sorted(plans)) + "."]
    schemas = {json.dumps(r["schema"]["fields"]) for r in results}
    for engine in ("fjord", "flink"):
        rs = [r for r in results if r["engine"] == engine]
        if rs:
            lines += ["", f"{engine}'s table: `{', '.join(rs[0]['schema']['fields'])}`, primary "
                      f"key {rs[0]['schema']['primary_keys']}."]
    if len(schemas) > 1:
        lines += ["", "(The two engines' tables have different schemas, see above.)"]
    text = "\n".join(lines) + "\n"
    with open(out, "w") as f:
        f.write(text)
    return text


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--produce", required=True, help="fjord_kafka_produce (tests/kafka)")
    ap.add_argument("--quick", action="store_true", help="a few minutes: checks the harness")
    ap.add_argument("--events", type=int, help="change events (default 1M; quick 50k)")
    ap.add_argument("--reps", type=int, help="repetitions (default 1)")
    ap.add_argument("--parallelism", default=None, help="default 1,2 (quick: 1)")
    ap.add_argument("--engines", default="fjord,flink")
    ap.add_argument("--decode-threads", type=int, default=0,
                    help="fjord's source.decode-threads (default: the parallelism, as Flink's "
                         "slots)")
    ap.add_argument("--bucket", type=int, default=4)
    ap.add_argument("--checkpoint-ms", type=int, default=1000)
    ap.add_argument("--write-buffer", default="64 mb")
    ap.add_argument("--flink-heap", default="1g")
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--scratch", default=None, help="folder for the topic and tables (/tmp)")
    ap.add_argument("--out", default=None)
    ap.add_argument("--raw", default=None, help="append every run as a JSON line here")
    ap.add_argument("--report-from", default=None,
                    help="write the report from --raw files (comma-separated), run nothing")
    args = ap.parse_args()
    quick = args.quick
    args.events = args.events or (50_000 if quick else 1_000_000)
    args.reps = args.reps or 1
    args.parallelism = args.parallelism or ("1" if quick else "1,2")
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d")
    out = args.out or os.path.join(HERE, "results", f"{date}-cdc{'-quick' if quick else ''}.md")
    pars = [int(p) for p in args.parallelism.split(",")]
    engines = args.engines.split(",")
    if args.report_from:
        results = []
        for path in args.report_from.split(","):
            with open(path) as f:
                results += [json.loads(ln) for ln in f if ln.strip()]
        print(report(results, args, results[0]["load"], out))
        return

    with tempfile.TemporaryDirectory(prefix="fjord-cdc-bench-", dir=args.scratch) as work:
        runner = CdcRunner(args, work)
        results = []
        raw = open(args.raw, "a") if args.raw else None
        try:
            events = Events(args.events, args.seed)
            t = time.time()
            topic = runner.load(events)
            size = runner.value_bytes
            load = dict(events.counts, events=args.events, keys=events.keys,
                        seconds=time.time() - t, bytes=size)
            print(f"topic {topic}: {args.events:,} events ({events.counts}), {events.model[0]:,} "
                  f"rows left, {size / 1e9:.2f} GB of values ({load['seconds']:.0f} s)",
                  flush=True)
            for rep in range(args.reps):
                order = engines if rep % 2 == 0 else engines[::-1]
                for par in pars:
                    for engine in order:
                        t = time.time()
                        m = runner.run_cdc(engine, par, topic, events)
                        m.update(engine=engine, par=par, rep=rep)
                        results.append(m)
                        if raw:
                            raw.write(json.dumps(dict(m, load=load)) + "\n")
                            raw.flush()
                        print(f"[{rep}] p{par} {engine}: {m['events_per_s']:,.0f} events/s, "
                              f"{m['events_per_cpu_s']:,.0f} events/CPU-s, {m['rss_mb']:.0f} MB, "
                              f"{m['files_mean']:.1f} files/bucket, {m['snapshots']} snapshots"
                              f" ({time.time() - t:.0f} s)", flush=True)
        finally:
            if runner.broker:
                runner.broker.stop()
        print(report(results, args, load, out))
        print(f"written to {out}")


if __name__ == "__main__":
    main()
