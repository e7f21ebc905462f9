#!/usr/bin/env python3
"""CDC jobs over a files source of Debezium JSON (issue 17 points 2 and 3), under SIGKILL.

A producer writes Debezium change events (with the schema envelope) of a small shop database to
files: inserts, updates (before and after images), deletes of two source tables, `orders` and
`customers` (the latter split over two source databases, merged into one table), plus a third
table the job excludes. Mid-stream `orders` gets a new column `note`
(used in the same batch as it appears) and its `qty` widens from int32 to int64 (values beyond
INT follow); later a narrowing of `qty` back to int32 is ignored (logged), and `customers`
drops `vip` and renames `name` to `fullname` (as in Paimon: the dropped column stays, NULL in
rows written after; the renamed one is a new column, the old one NULL after). A database-sync job
(`sink.warehouse` + `sink.database`, table prefix `ods_`, excluding `audit`) runs with 100 ms
checkpoints and is killed with SIGKILL at random moments and restarted; a table-sync job reads
the `orders` events alone (another folder) into one table (`sink.table`, created from the first
message) with a computed column. At the end both run --bounded
and `fjord cat` must show exactly the rows of a model of the source database (the last image
of every key, deleted keys gone), with the evolved schemas and the keys and options the jobs
gave the tables they created. Prints the kills and rows checked.

Then a database-sync job of sharded sources runs without kills (`shards`, see run_shards):
same-named tables of two source databases with overlapping ids kept apart by Java's metadata
column `database_name` in the primary key, Java's routing options (table-prefix-db,
table-mapping, including / excluding tables and dbs, table-suffix), partition keys of the job
and of one table, primary keys from the messages, a table appearing mid-stream created by the
running process, and the counters of what was skipped, missing or ignored read from its
Prometheus endpoint.

Sentinels: the first event of each schema change (note added, qty widened, customers renamed) is
an insert of a key no later event touches, setting the new or widened column, and the next file
starts with a second such key; each must read back with its value. Right after the first
sentinel's change, once the database-sync job logged the ALTER, it is killed (before its next
checkpoint, mostly) and restarted. The database-sync job's first process runs with
FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS=1: it kills itself after the first table of the first
checkpoint holding rows of two tables was committed; the test checks that one table holds that
checkpoint and the other does not, restarts the job, and the end state must still be exact.

    cdc_files_test.py --fjord BUILD/tools/fjord [--seconds 20] [--seed 17]
"""
import argparse
import glob
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from metrics_scrape import free_port, named, scrape  # noqa: E402
import cdc_formats_test  # every format through fjord run, checked here too


def field(name, kind, optional=True, logical=None, params=None):
    f = {"type": kind, "optional": optional, "field": name}
    if logical:
        f["name"] = logical
    if params:
        f["parameters"] = params
    return f


class Shop:
    """The source database and its change events."""

    def __init__(self, rng):
        self.rng = rng
        self.orders = {}  # id -> row
        self.customers = {}
        self.audit = {}
        self.note_added = False
        self.qty_wide = False
        self.narrowed = False
        self.renamed = False  # customers: vip dropped, name renamed to fullname

    def order_fields(self):
        qty = "int64" if self.qty_wide and not self.narrowed else "int32"
        fs = [field("id", "int32", False), field("customer", "int32"), field("qty", qty),
              field("price", "bytes", True, "org.apache.kafka.connect.data.Decimal",
                    {"scale": "2", "connect.decimal.precision": "10"}),
              field("day", "int32", True, "io.debezium.time.Date")]
        if self.note_added:
            fs.append(field("note", "string"))
        return fs

    def customer_fields(self):
        if self.renamed:
            return [field("id", "int32", False), field("fullname", "string")]
        return [field("id", "int32", False), field("name", "string"), field("vip", "boolean")]

    def wire_customer(self, row):
        """A row as the source sends it now (a before image of an older row too)."""
        if row is None or not self.renamed:
            return row
        return {"id": row["id"], "fullname": row.get("fullname", row.get("name"))}

    def customer_row(self, i):
        name = self.rng.choice(["ann", "bo", "cy", "dé"])
        if self.renamed:
            return {"id": i, "fullname": name}
        return {"id": i, "name": name, "vip": self.rng.choice([True, False, None])}

    @staticmethod
    def envelope(table, fields, before, after, op, ts, db="shop"):
        row = {"type": "struct", "fields": fields, "optional": True}
        schema = {"type": "struct", "name": "shop." + table + ".Envelope", "optional": False,
                  "fields": [dict(row, field="before"), dict(row, field="after"),
                             {"type": "struct", "optional": False, "field": "source",
                              "fields": [field("db", "string", False),
                                         field("table", "string", False)]},
                             field("op", "string", False), field("ts_ms", "int64")]}
        payload = {"before": before, "after": after, "source": {"db": db, "table": table},
                   "op": op, "ts_ms": ts}
        return json.dumps({"schema": schema, "payload": payload})

    @staticmethod
    def price_number(cents):
        # Java Paimon takes Decimal fields written as numbers (the JSON converter's
        # decimal.format=numeric), not Connect's base64 bytes.
        return cents / 100

    def order_row(self, oid):
        r = self.rng
        qty = r.randint(1, 50) if not (self.qty_wide and not self.narrowed) else \
            r.choice([r.randint(1, 50), 3_000_000_000 + r.randint(0, 1000)])
        row = {"id": oid, "customer": r.randint(1, 20), "qty": qty,
               "price": r.randint(0, 99999), "day": 20_000 + r.randint(0, 30)}
        if self.note_added:
            row["note"] = r.choice([None, "gift", "rush", "é ü"])
        return row

    def wire_order(self, row):
        if row is None:
            return None
        w = dict(row)
        w["price"] = self.price_number(row["price"])
        return w

    def sentinel(self, table, key, ts):
        """An insert of `key` (never touched again) setting the columns of the latest schema
        change; returns its event and the values to read back."""
        if table == "orders":
            row = self.order_row(key)
            if self.note_added:
                row["note"] = "sentinel %d" % key
            if self.qty_wide and not self.narrowed:
                row["qty"] = 4_000_000_000 + key
            self.orders[key] = row
            want = {"note": row["note"], "qty": row["qty"]} if self.note_added else {}
            return self.envelope("orders", self.order_fields(), None, self.wire_order(row), "c",
                                 ts), want
        row = {"id": key, "fullname": "sentinel %d" % key}
        self.customers[key] = row
        return self.envelope("customers", self.customer_fields(), None, row, "c", ts,
                             "shop_eu" if key % 2 else "shop"), {"fullname": row["fullname"],
                                                                  "name": None, "vip": None}

    def events(self, n, ts):
        """n change events, each a JSON line."""
        out = []
        for _ in range(n):
            r = self.rng
            pick = r.random()
            if pick < 0.6:
                table, rows, fields = "orders", self.orders, self.order_fields()
                make, wire = self.order_row, self.wire_order
            elif pick < 0.9:
                table, rows, fields = "customers", self.customers, self.customer_fields()
                make = self.customer_row
                wire = self.wire_customer
            else:
                table, rows, fields = "audit", self.audit, [
                    field("id", "int32", False), field("name", "string"), field("vip", "boolean")]
                make = lambda i: {"id": i, "name": "x", "vip": None}  # noqa
                wire = lambda x: x  # noqa
            key = r.randint(1, 60)
            # customers live in two source databases (shards): one Paimon table merges them
            db = "shop_eu" if table == "customers" and key % 2 else "shop"
            if key in rows and r.random() < 0.25:
                before = rows.pop(key)
                out.append(self.envelope(table, fields, wire(before), None, "d", ts, db))
            elif key in rows:
                before = rows[key]
                after = make(key)
                rows[key] = after
                out.append(self.envelope(table, fields, wire(before), wire(after), "u", ts, db))
            else:
                after = make(key)
                rows[key] = after
                out.append(self.envelope(table, fields, None, wire(after), "c", ts, db))
        return out


def latest_schema(table_dir):
    """The table's newest schema file, as JSON."""
    files = glob.glob(os.path.join(table_dir, "schema", "schema-*"))
    if not files:
        return None
    newest = max(files, key=lambda f: int(f.rsplit("-", 1)[1]))
    with open(newest) as f:
        return json.load(f)


def check_schema(failures, table_dir, keys, partitions, options, columns=None):
    """The created table's primary and partition keys, options (those given) and columns."""
    schema = latest_schema(table_dir)
    if schema is None:
        failures.append("no table at %s" % table_dir)
        return
    got = (schema.get("primaryKeys"), schema.get("partitionKeys"),
           {k: schema.get("options", {}).get(k) for k in options})
    if got != (keys, partitions, options):
        failures.append("%s: keys, partitions, options %s, want %s" % (
            table_dir, got, (keys, partitions, options)))
    if columns is not None:
        names = [f["name"] for f in schema["fields"]]
        if names != columns:
            failures.append("%s: columns %s, want %s" % (table_dir, names, columns))


def shard_event(db, table, row, op, ts, before=None, keys=None):
    """A Debezium event (schema envelope) of `db`.`table` with source.ts_ms; all columns are
    int64 but `name`, `note`, `region` (strings); `qty` is int32 when `narrow`."""
    def fields(r):
        return [field(k, "string" if k in ("name", "note", "region") else
                      ("int32" if k == "qty" and r.get("_narrow") else "int64"),
                      k not in ("id", "uid")) for k in r if not k.startswith("_")]
    shown = row if row is not None else before
    struct = {"type": "struct", "fields": fields(shown), "optional": True}
    clean = (lambda r: None if r is None else {k: v for k, v in r.items()
                                                if not k.startswith("_")})
    schema = {"type": "struct", "name": "%s.%s.Envelope" % (db, table), "optional": False,
              "fields": [dict(struct, field="before"), dict(struct, field="after"),
                         {"type": "struct", "optional": False, "field": "source",
                          "fields": [field("db", "string", False),
                                     field("table", "string", False),
                                     field("ts_ms", "int64", False)]},
                         field("op", "string", False)]}
    payload = {"before": clean(before), "after": clean(row),
               "source": {"db": db, "table": table, "ts_ms": ts}, "op": op}
    if keys:
        payload["pkNames"] = keys
    return json.dumps({"schema": schema, "payload": payload})


def run_shards(fjord, work, failures):
    """The shards job (see the module's doc); appends what is wrong to `failures`."""
    folder = os.path.join(work, "in_shards")
    os.makedirs(folder)
    port = free_port()
    with open(os.path.join(work, "shards.yaml"), "w") as f:
        f.write("source: {type: files, path: in_shards, format: debezium-json}\n"
                "sink: {warehouse: wh, database: shards, primary-key: [database_name, id],\n"
                "       partition-keys: [database_name],"
                " multiple-table-partition-keys: {users: [region]},\n"
                "       metadata-columns: [database_name, table_name, op_ts],\n"
                "       including-tables: \"items|users|orders|audit\", excluding-tables: audit,\n"
                "       excluding-dbs: scratch, table-prefix-db: {legacy: old_},\n"
                "       table-suffix: _s, table-mapping: {users: people},"
                " table-options: {bucket: 2}}\n"
                "pipeline: {name: shards, checkpoint-interval: 200ms, state-dir: state-shards,\n"
                "           metrics-port: %d}\n" % port)
    seq = [0]

    def write(lines):
        seq[0] += 1
        tmp = os.path.join(folder, ".part")
        with open(tmp, "w") as f:
            f.write("".join(line + "\n" for line in lines))
        os.rename(tmp, os.path.join(folder, "s%03d.jsonl" % seq[0]))

    ts = 1700000000000
    item = (lambda i, name, qty=10, note="n": {"id": i, "name": name, "qty": qty, "note": note})
    # Both shards hold ids 1-3: with database_name in the key, both rows of each id stay.
    write([shard_event("shop1", "items", item(i, "a%d" % i), "c", ts + i) for i in (1, 2, 3)] +
          [shard_event("shop2", "items", item(i, "b%d" % i), "c", ts + 10 + i) for i in (1, 2, 3)] +
          [shard_event("legacy", "items", item(1, "old"), "c", ts + 20),
           shard_event("shop1", "users", {"uid": 1, "region": "eu", "name": "ann"}, "c", ts + 21,
                       keys=["uid", "region"]),
           shard_event("shop1", "audit", item(1, "x"), "c", ts + 22),  # excluding-tables
           shard_event("shop1", "audit", item(2, "x"), "c", ts + 23),
           shard_event("scratch", "items", item(9, "x"), "c", ts + 24),  # excluding-dbs
           shard_event("shop1", "misc", item(1, "x"), "c", ts + 25),  # including-tables
           shard_event("shop1", "items", item(2, "a2*"), "u", ts + 26, before=item(2, "a2")),
           shard_event("shop2", "items", None, "d", ts + 27, before=item(3, "b3"))])
    # A record without `note` (NULL in its row, logged and counted once) and one narrowing qty
    # to int32 (ignored, logged and counted once).
    write([shard_event("shop2", "items", {"id": 4, "name": "b4", "qty": 4}, "c", ts + 30),
           shard_event("shop2", "items", {"id": 5, "name": "b5", "qty": 5}, "c", ts + 31),
           shard_event("shop1", "items", dict(item(5, "a5", 7), _narrow=True), "c", ts + 32)])
    log_path = os.path.join(work, "shards.log")
    log = open(log_path, "a")
    proc = subprocess.Popen([fjord, "run", "shards.yaml"], cwd=work, stdout=log,
                            stderr=subprocess.STDOUT)

    def wait_for(what, seconds=30):
        deadline = time.time() + seconds
        while time.time() < deadline:
            if proc.poll() is not None:
                return False
            if what():
                return True
            time.sleep(0.1)
        return False

    def logged(text):
        return lambda: text in open(log_path).read()

    expected = {"fjord_job_cdc_tables_created_total": 4,
                "fjord_job_cdc_records_excluded_total": 4,
                "fjord_job_cdc_columns_missing_total": 1,
                "fjord_job_cdc_schema_changes_ignored_total": 1}
    got = {}

    def counters():
        values = scrape(port)
        got.clear()
        for name in expected:
            series = named(values, name)
            got[name] = series.get('{job="shards"}')
        return got == expected

    try:
        if not wait_for(logged("created table shards.items_s ")):
            failures.append("shards: items_s not created: " + open(log_path).read()[-2000:])
            return
        # A table appearing mid-stream: created by this same process, no restart.
        write([shard_event("shop1", "orders", {"id": 1, "qty": 3}, "c", ts + 40)])
        if not wait_for(logged("created table shards.orders_s ")):
            failures.append("shards: the running job (pid %d) did not create orders_s: %s" % (
                proc.pid, open(log_path).read()[-2000:]))
        if not wait_for(counters, 20):
            failures.append("shards: counters %s, want %s" % (got, expected))
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            code = proc.wait(timeout=60)
        else:
            code = proc.returncode
        log.close()
    text = open(log_path).read()
    if code != 0 or text.count("stopped after checkpoint") != 1:
        failures.append("shards: one run expected (exit %s): %s" % (code, text[-2000:]))
    for line in ("source table shop1.audit is not synchronized (excluding-tables 'audit' "
                 "matches it)",
                 "source table scratch.items is not synchronized (excluding-dbs 'scratch' "
                 "matches its database)",
                 "source table shop1.misc is not synchronized (including-tables "
                 "'items|users|orders|audit' does not match it)",
                 "table shards.items_s: column note is missing from",
                 "table shards.items_s: column qty stays BIGINT, the narrower INT"):
        if text.count(line) != 1:
            failures.append("shards: %d log lines '%s'" % (text.count(line), line))

    def rows(table):
        r = subprocess.run([fjord, "cat", os.path.join(work, "wh", "shards.db", table),
                            "--format", "jsonl"], capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("cat %s: %s" % (table, r.stderr))
            return []
        return sorted((json.loads(line) for line in r.stdout.splitlines()),
                      key=lambda row: (row["database_name"], row.get("id", 0)))

    def op_ts(ms):  # `fjord cat`'s TIMESTAMP_LTZ(3): the instant in UTC
        import datetime
        t = datetime.datetime.fromtimestamp(ms / 1000, datetime.timezone.utc)
        return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (ms % 1000)

    # Both rows of ids 1 and 2 (and 5) stay, each with its source table and change time.
    items = rows("items_s")
    want = [("shop1", 1, "a1", "n", 1), ("shop1", 2, "a2*", "n", 26), ("shop1", 3, "a3", "n", 3),
            ("shop1", 5, "a5", "n", 32), ("shop2", 1, "b1", "n", 11), ("shop2", 2, "b2", "n", 12),
            ("shop2", 4, "b4", None, 30), ("shop2", 5, "b5", None, 31)]
    want = [w[:4] + ("items", op_ts(ts + w[4])) for w in want]
    got = [(r["database_name"], r["id"], r["name"], r["note"], r["table_name"], r["op_ts"])
           for r in items]
    if got != want:
        failures.append("shards: items_s rows %s, want %s" % (got, want))
    if [r["name"] for r in rows("old_items_s")] != ["old"]:
        failures.append("shards: old_items_s rows %s" % rows("old_items_s"))
    people = rows("people")
    if [(r["uid"], r["region"], r["database_name"]) for r in people] != [(1, "eu", "shop1")]:
        failures.append("shards: people rows %s" % people)
    for table in ("audit_s", "misc_s", "items"):
        if os.path.exists(os.path.join(work, "wh", "shards.db", table)):
            failures.append("shards: the skipped table %s was created" % table)
    meta = ["database_name", "table_name", "op_ts"]
    shards = os.path.join(work, "wh", "shards.db")
    check_schema(failures, os.path.join(shards, "items_s"), ["database_name", "id"],
                 ["database_name"], {"bucket": "2"}, ["id", "name", "qty", "note"] + meta)
    check_schema(failures, os.path.join(shards, "orders_s"), ["database_name", "id"],
                 ["database_name"], {"bucket": "2"}, ["id", "qty"] + meta)
    # No `id`: the message's keys; its own partition keys.
    check_schema(failures, os.path.join(shards, "people"), ["uid", "region"], ["region"],
                 {"bucket": "2"}, ["uid", "region", "name"] + meta)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--seed", type=int, default=17)
    args = ap.parse_args()
    fjord = os.path.abspath(args.fjord)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="fjord-cdc-files-")
    os.makedirs(os.path.join(work, "in"))
    os.makedirs(os.path.join(work, "in_orders"))  # the orders events alone, for table sync
    shop = Shop(rng)

    jobs = {
        "db": "source: {type: files, path: in, format: debezium-json}\n"
              "sink: {warehouse: wh, database: ods, table-prefix: ods_, excluding-tables: audit,\n"
              "       primary-key: [id], table-options: {bucket: 2}}\n"
              "pipeline: {name: dbsync, parallelism: 2, checkpoint-interval: 100ms,"
              " state-dir: state-db}\n",
        "orders": "source: {type: files, path: in_orders, format: debezium-json}\n"
                  "sink: {table: wh/one.db/orders, primary-key: [id],\n"
                  "       computed-columns: [\"month=month(day)\"], table-options: {bucket: 1}}\n"
                  "pipeline: {name: ordersync, checkpoint-interval: 150ms, state-dir: state-one}\n",
    }
    for name, text in jobs.items():
        with open(os.path.join(work, name + ".yaml"), "w") as f:
            f.write(text)

    seq = [0]

    def write_file(lines):
        seq[0] += 1
        orders = [line for line in lines if '"table": "orders"' in line]
        for folder, part in (("in", lines), ("in_orders", orders)):
            tmp = os.path.join(work, folder, ".part")
            with open(tmp, "w") as f:
                f.write("".join(line + "\n" for line in part))
            os.rename(tmp, os.path.join(work, folder, "e%06d.jsonl" % seq[0]))

    procs = {}
    kills = 0
    restarts = 0
    logs = {name: open(os.path.join(work, name + ".log"), "a") for name in jobs}
    failures = []

    crash_checked = [False]

    def start(name):
        # The db job dies between the commits of its first two-table checkpoint (until it did).
        env = dict(os.environ)
        if name == "db" and not crash_checked[0]:
            env["FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS"] = "1"
        procs[name] = subprocess.Popen([fjord, "run", name + ".yaml"], cwd=work,
                                       stdout=logs[name], stderr=subprocess.STDOUT, env=env)

    def log_text(name):
        logs[name].flush()
        with open(os.path.join(work, name + ".log"), errors="replace") as f:
            return f.read()

    def snapshot_checkpoints(table):
        """The fjord.checkpoint property of every snapshot of wh/ods.db/`table`."""
        folder = os.path.join(work, "wh", "ods.db", table, "snapshot")
        out = []
        for name in os.listdir(folder) if os.path.isdir(folder) else []:
            if name.startswith("snapshot-"):
                with open(os.path.join(folder, name)) as f:
                    snap = json.load(f)
                props = snap.get("properties") or {}
                if "fjord.checkpoint" in props and snap.get("commitKind") == "APPEND":
                    out.append(int(props["fjord.checkpoint"]))
        return sorted(out)

    def check_crash_between_commits(code):
        """The db job's first process killed itself between two tables' commits: one table has
        the checkpoint, the other not; the restarted job must commit it there."""
        m = re.search(r"FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS: checkpoint (\d+) committed "
                      r"table ods\.(\w+), not ods\.(\w+)", log_text("db"))
        if code != -signal.SIGKILL or not m:
            print(log_text("db")[-3000:])
            sys.exit("db job exited with %d, not killed between two tables' commits" % code)
        cp, done, left = int(m.group(1)), m.group(2), m.group(3)
        if cp not in snapshot_checkpoints(done) or cp in snapshot_checkpoints(left):
            failures.append("crash between the commits of checkpoint %d: %s holds %s, %s holds %s"
                            % (cp, done, sorted(snapshot_checkpoints(done)), left,
                               sorted(snapshot_checkpoints(left))))
        crash_checked[0] = (cp, done, left)
        start("db")

    def kill_after_alter(column):
        """Once the db job logged the ALTER for `column`, SIGKILL and restart it."""
        deadline = time.time() + 20
        while time.time() < deadline and procs["db"].poll() is None:
            if re.search(r"table ods\.ods_\w+ altered for .*column %s" % column,
                         log_text("db")):
                procs["db"].send_signal(signal.SIGKILL)
                procs["db"].wait()
                start("db")
                print("ok: the db job killed right after its ALTER for column %s" % column)
                return 1
            time.sleep(0.01)
        return 0

    for name in jobs:
        start(name)
    deadline = time.time() + args.seconds
    phase_times = [args.seconds * 0.3, args.seconds * 0.55, args.seconds * 0.8, args.seconds * 0.65]
    began = time.time()
    sentinels = []  # (table, key, {column: value}, what)
    next_sentinel = [1001]  # keys beyond the random ones (1..60): never touched again
    second = []  # the sentinel of the file after a schema change: (table, what)

    def add_sentinel(table, what, lines):
        key = next_sentinel[0]
        next_sentinel[0] += 1
        line, want = shop.sentinel(table, key, int(time.time() * 1000))
        lines.append(line)
        sentinels.append((table, key, want, what))

    while time.time() < deadline:
        elapsed = time.time() - began
        lines, changed = [], None
        for table, what in second:
            add_sentinel(table, what + ", in the next file", lines)
        second = []
        if not shop.note_added and elapsed > phase_times[0]:
            shop.note_added = True
            changed = ("orders", "note", "column note added")
        if not shop.qty_wide and elapsed > phase_times[1]:
            shop.qty_wide = True
            changed = ("orders", "qty", "qty widened to int64")
        if not shop.narrowed and elapsed > phase_times[2]:
            shop.narrowed = True
        if not shop.renamed and elapsed > phase_times[3]:
            shop.renamed = True
            changed = ("customers", "fullname", "name renamed to fullname, vip dropped")
        if changed:
            # The first event of the new schema sets the new column, of a key no later event
            # touches.
            add_sentinel(changed[0], changed[2] + ", its first event", lines)
            second.append((changed[0], changed[2]))
        write_file(lines + shop.events(rng.randint(5, 40), int(time.time() * 1000)))
        if changed:
            kills += kill_after_alter(changed[1])
        time.sleep(rng.uniform(0.02, 0.15))
        for name, p in list(procs.items()):
            code = p.poll()
            if code is not None and name == "db" and not crash_checked[0]:
                check_crash_between_commits(code)
                continue
            if code is not None:
                print(open(os.path.join(work, name + ".log")).read()[-3000:])
                sys.exit("job %s exited with %d" % (name, code))
            if rng.random() < 0.08:
                p.send_signal(signal.SIGKILL)
                p.wait()
                kills += 1
                start(name)
                restarts += 1
    time.sleep(1.0)  # a job restarted a moment ago has its SIGTERM handler by then
    for name, p in procs.items():
        p.send_signal(signal.SIGTERM)
        code = p.wait(timeout=60)
        if code != 0:
            print(open(os.path.join(work, name + ".log")).read()[-3000:])
            sys.exit("job %s failed on SIGTERM (exit %d); work dir %s" % (name, code, work))
        r = subprocess.run([fjord, "run", name + ".yaml", "--bounded"], cwd=work,
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("bounded run of %s failed: %s%s" % (name, r.stdout, r.stderr))

    def cat(table):
        r = subprocess.run([fjord, "cat", os.path.join(work, "wh", table), "--format", "jsonl"],
                           capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("cat %s: %s" % (table, r.stderr))
        return {row["id"]: row for row in map(json.loads, r.stdout.splitlines())}

    def days(d):
        import datetime
        return (datetime.date(1970, 1, 1) + datetime.timedelta(days=d)).isoformat()

    def expect_order(row, computed=False):
        e = {"id": row["id"], "customer": row["customer"], "qty": row["qty"],
             "price": "%d.%02d" % divmod(row["price"], 100), "day": days(row["day"]),
             "note": row.get("note")}
        if computed:
            e["month"] = int(days(row["day"])[5:7])
        return e

    def compare(table, got, want):
        if got != want:
            missing = sorted(set(want) - set(got))[:5]
            extra = sorted(set(got) - set(want))[:5]
            diff = [k for k in want if k in got and got[k] != want[k]][:3]
            failures.append("%s: %d rows, want %d; missing %s extra %s differing %s" % (
                table, len(got), len(want), missing, extra,
                [(got[k], want[k]) for k in diff]))

    tables = {t: cat(t) for t in ("ods.db/ods_orders", "ods.db/ods_customers", "one.db/orders")}
    compare("ods.db/ods_orders", tables["ods.db/ods_orders"],
            {k: expect_order(v) for k, v in shop.orders.items()})
    customer_columns = ["id", "name", "vip"] + (["fullname"] if shop.renamed else [])
    compare("ods.db/ods_customers", tables["ods.db/ods_customers"],
            {k: {c: v.get(c) for c in customer_columns} for k, v in shop.customers.items()})
    compare("one.db/orders", tables["one.db/orders"],
            {k: expect_order(v, True) for k, v in shop.orders.items()})
    # Each sentinel by name: its new or widened column as written in the change's message.
    for table, key, want, what in sentinels:
        homes = ["ods.db/ods_" + table] + (["one.db/orders"] if table == "orders" else [])
        for home in homes:
            row = tables[home].get(key)
            got = {c: row.get(c) for c in want} if row else None
            if got != want:
                failures.append("sentinel %s id=%d (%s): reads %s, want %s"
                                % (home, key, what, got, want))
    if sentinels and not any(f.startswith("sentinel") for f in failures):
        print("ok: %d sentinels (the first message of each schema change and the next file's) "
              "read back with their new columns" % len(sentinels))
    if not crash_checked[0]:
        failures.append("the db job never had a checkpoint with rows of two tables")
    else:
        # Each table holds the checkpoint's rows once: committed before the crash, or by the
        # restarted job's restore (never twice).
        cp, done, left = crash_checked[0]
        counts = {t: snapshot_checkpoints(t).count(cp) for t in (done, left)}
        if counts != {done: 1, left: 1}:
            failures.append("crash between the commits of checkpoint %d: APPEND snapshots of it "
                            "after the restart %s, want one in each table" % (cp, counts))
        else:
            print("ok: killed between the commits of checkpoint %d (%s committed, %s not); the "
                  "restarted job committed it to %s, each table holds it once" % (cp, done, left,
                                                                                   left))
    if os.path.exists(os.path.join(work, "wh", "ods.db", "ods_audit")):
        failures.append("the excluded table audit was created")
    # The tables the jobs created: the job's keys and table options (database sync: every table).
    check_schema(failures, os.path.join(work, "wh", "ods.db", "ods_orders"), ["id"], [],
                 {"bucket": "2"})
    check_schema(failures, os.path.join(work, "wh", "ods.db", "ods_customers"), ["id"], [],
                 {"bucket": "2"})
    check_schema(failures, os.path.join(work, "wh", "one.db", "orders"), ["id"], [],
                 {"bucket": "1"}, ["id", "customer", "qty", "price", "day", "month", "note"])
    schema = subprocess.run([fjord, "schema", os.path.join(work, "wh", "ods.db", "ods_orders")],
                            capture_output=True, text=True).stdout
    if "qty" not in schema or "BIGINT" not in schema or "note" not in schema:
        failures.append("ods_orders schema did not evolve: " + schema)
    log = open(os.path.join(work, "db.log")).read()
    if "is ignored" not in log:
        failures.append("the narrowing of qty was not logged")
    failures += cdc_formats_test.run(fjord, os.path.join(work, "formats"))
    print("cdc files: %d kills, %d restarts; %d orders, %d customers checked in 3 tables" % (
        kills, restarts, len(shop.orders), len(shop.customers)))
    run_shards(fjord, work, failures)
    if failures:
        print("\n".join(failures))
        print("work dir kept: " + work)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
