"""The PostgreSQL change stream of the CDC tests, shared by cdc_postgres_test.py (ctest) and
cdc_soak.py (`make soak-cdc`): a shop workload on a tests/pg server (inserts, updates, deletes,
transactions over two tables, schema changes on a schedule), the path from PostgreSQL to a
`fjord run` database-sync job (Debezium embedded -> a tests/kafka broker -> source type kafka,
or the job's own `type: postgres` source), the job's process (start, SIGKILL, SIGTERM), broker
outages, the final drain and the exactness check: Java Paimon reads, table by table, exactly
the rows PostgreSQL holds.

    with CdcRun(work, fjord, rng, direct=False) as run:   # PostgreSQL (+ Kafka + Debezium)
        run.load.step(); run.start_job(); run.kill_job(); run.broker_outage(...)
        run.finish(failures)                               # SIGTERM, --bounded, Java compares
"""
import contextlib
import datetime
import decimal
import json
import os
import re
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("pg", "kafka", "debezium", "compat"):
    sys.path.insert(0, os.path.join(HERE, sub))

from broker import Broker  # noqa: E402
from oracle_batch import OracleBatch  # noqa: E402
from postgres import Postgres  # noqa: E402
from runner import Debezium  # noqa: E402

TABLES = {
    "orders": "id int PRIMARY KEY, customer int NOT NULL, qty int, amount numeric(10,2), "
              "placed timestamp(6), day date, note text, paid boolean",
    # (name is renamed mid-stream: NOT NULL there would make every later row fail, in Java too)
    "customers": "id int PRIMARY KEY, name varchar(20), vip boolean",
    "marker": "id int PRIMARY KEY",  # written last: once Kafka has it, it has everything
}

KINDS = {"orders": {"id": "int", "customer": "int", "qty": "int", "amount": "decimal",
                    "placed": "timestamp", "day": "date", "note": "text", "paid": "bool",
                    "region": "text", "tags": "intarray"},
         "customers": {"id": "int", "name": "text", "vip": "bool", "tier": "int",
                       "fullname": "text"},
         "items": {"id": "int", "sku": "text", "n": "int"}}

# A job rides through a broker outage: its checkpoints go on at most this far apart, and a
# SIGTERM stops it within this (a look for new topics waits at most 2 s, 500 ms once the
# brokers are known to be down; librdkafka's reconnect backoff reaches 10 s).
STOP_SECONDS = 3

# The schema changes, applied in this order by Workload.evolve ({name}: the customers' name
# column, `name` or, once renamed, `fullname`). The ctest runs some; the soak all of them.
CHANGES = {
    "region": "ALTER TABLE orders ADD COLUMN region text",
    "items": "CREATE TABLE items (id int PRIMARY KEY, sku text, n int); "
             "ALTER TABLE items REPLICA IDENTITY FULL",
    "wide": "ALTER TABLE orders ALTER COLUMN qty TYPE bigint",
    "tier": "ALTER TABLE customers ADD COLUMN tier int",
    "long_names": "ALTER TABLE customers ALTER COLUMN {name} TYPE varchar(40)",
    # A nested type change (the direct path): the job alters the table's `tags.element`, as
    # Java's CDC sink does.
    "tags": "ALTER TABLE orders ADD COLUMN tags int[]",
    "tags_wide": "ALTER TABLE orders ALTER COLUMN tags TYPE bigint[]",
    # As in Java's CDC sink, a dropped column stays in the Paimon table (NULL in the rows written
    # after), and a renamed one is a new column (the old one NULL in the rows written after).
    "drop_vip": "ALTER TABLE customers DROP COLUMN vip",
    "rename_name": "ALTER TABLE customers RENAME COLUMN name TO fullname",
}

# The table each change alters and the Paimon column whose ALTER the job logs (None: no ALTER).
CHANGED = {"region": ("orders", "region"), "items": ("items", None), "wide": ("orders", "qty"),
           "tier": ("customers", "tier"), "long_names": ("customers", "{name}"),
           "tags": ("orders", "tags"), "tags_wide": ("orders", "tags"),
           "drop_vip": ("customers", None), "rename_name": ("customers", "fullname")}


def sql_literal(v):
    if isinstance(v, list):
        return "'{" + ",".join("NULL" if x is None else str(x) for x in v) + "}'"
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, decimal.Decimal)):
        return str(v)
    return "'" + str(v).replace("'", "''") + "'"


class Workload:
    """Random changes of orders, customers (and items once created); `done` holds the schema
    changes applied so far (names of CHANGES)."""

    def __init__(self, pg, rng, keys=80):
        self.pg, self.rng, self.keys = pg, rng, keys
        self.done = set()
        self.order = []  # the changes applied, in order
        self.planned = []  # (seconds into the workload, change)
        self.statements = 0
        self.name_col = "name"  # the customers' name column (renamed: fullname)
        # A dropped or renamed-away column keeps, in Paimon, the value it had at the change in
        # the rows not written since (Java's CDC sink writes NULL for a column a record lacks).
        self.frozen = {}  # change -> {id: value of the column at the change}
        self.touched = {}  # change -> ids of customers written since
        # Sentinels: a key beyond `keys` (never touched again), inserted in the change's own
        # transaction and in the next one, setting the new or widened column.
        self.sentinels = []  # (table, id, change, {column: value})
        self.next_sentinel = keys + 1000

    def plan(self, names, seconds):
        """Schema changes `names` spread evenly over `seconds` of workload (see due)."""
        self.planned = [((i + 1) * seconds / (len(names) + 1), n) for i, n in enumerate(names)]

    def due(self, elapsed):
        """Applies the planned changes due `elapsed` seconds into the workload; returns them."""
        applied = []
        while self.planned and elapsed > self.planned[0][0]:
            name = self.planned.pop(0)[1]
            if self.evolve(name):
                applied.append(name)
        return applied

    def evolve(self, name):
        """Applies schema change `name` once, with a sentinel insert in the same transaction and
        another in the next one; the changed table is written right away. True if applied."""
        if name in self.done:
            return False
        sql = CHANGES[name].format(name=self.name_col)
        if name in ("drop_vip", "rename_name"):
            column = "vip" if name == "drop_vip" else self.name_col
            self.frozen[name] = {int(i): v for i, v in
                                 self.pg.sql(f"SELECT id, {column} FROM customers")}
            self.touched[name] = set()
        self.done.add(name)
        self.order.append(name)
        if name == "rename_name":
            self.name_col = "fullname"
        table = CHANGED[name][0]
        if table == "items":
            # Created with a row in its CREATE's transaction: the job creates the table from it.
            self.next_sentinel += 1
            self.sentinels.append(("items", self.next_sentinel, "items, its CREATE's transaction",
                                   {"sku": "sentinel"}))
            self.pg.sql(f"BEGIN; {sql}; INSERT INTO items VALUES ({self.next_sentinel}, "
                        "'sentinel', 1); COMMIT")
            return True
        self.pg.sql(f"BEGIN; {sql}; {self.sentinel(table, name, 'same transaction')}; COMMIT")
        self.pg.sql(self.sentinel(table, name, "next transaction"))
        if name == "region":
            self.step()  # the new column used right away
        elif table == "customers":
            self.pg.sql(self.change("customers"))
        return True

    def sentinel(self, table, name, when):
        """The insert of a new sentinel row of `table` for change `name`."""
        self.next_sentinel += 1
        key = self.next_sentinel
        vals = self.order_values(key) if table == "orders" else self.customer_values(key)
        focus = {"region": {"region": f"sentinel {key}"}, "wide": {"qty": 5_000_000_000 + key},
                 "tags": {"tags": [key, None, 3]}, "tags_wide": {"tags": [6_000_000_000 + key]},
                 "tier": {"tier": 3}, "long_names": {self.name_col: f"a sentinel name, {key:08d}"},
                 "drop_vip": {"vip": None},
                 "rename_name": {"fullname": f"sentinel {key}", "name": None}}[name]
        for c, v in focus.items():
            if c in vals:
                vals[c] = v
        self.sentinels.append((table, key, f"{name}, {when}", focus))
        if table == "customers":
            for change in self.touched:
                self.touched[change].add(key)
        cols = ", ".join(vals)
        return (f"INSERT INTO {table} ({cols}) VALUES "
                f"({', '.join(sql_literal(v) for v in vals.values())})")

    def order_values(self, oid):
        r = self.rng
        qty = r.randint(1, 100)
        if "wide" in self.done and r.random() < 0.5:
            qty = 5_000_000_000 + r.randint(0, 999)
        vals = {"id": oid, "customer": r.randint(1, 30), "qty": qty,
                "amount": decimal.Decimal(r.randint(-99999, 9999999)) / 100,
                "placed": "2026-%02d-%02d %02d:%02d:%02d.%06d" % (
                    r.randint(1, 12), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
                    r.randint(0, 59), r.randint(0, 999999)),
                "day": "2026-%02d-%02d" % (r.randint(1, 12), r.randint(1, 28)),
                "note": r.choice([None, "gift", "rush", "dé jà", "a'b"]),
                "paid": r.choice([True, False, None])}
        if "region" in self.done:
            vals["region"] = r.choice([None, "north", "south"])
        if "tags" in self.done:
            big = 6_000_000_000 if "tags_wide" in self.done else 0
            vals["tags"] = r.choice([None, [], [r.randint(-9, 9) + big, None, 3]])
        return vals

    def customer_values(self, cid):
        r = self.rng
        names = ["ann", "bo", "cy", "dé"]
        if "long_names" in self.done:
            names += ["a customer name past twenty", "dé jà vu, a longer name too"]
        vals = {"id": cid, self.name_col: r.choice(names)}
        if "drop_vip" not in self.done:
            vals["vip"] = r.choice([True, False, None])
        if "tier" in self.done:
            vals["tier"] = r.choice([None, 1, 2, 3])
        return vals

    def change(self, table):
        r = self.rng
        key = r.randint(1, self.keys)
        values = self.order_values(key) if table == "orders" else self.customer_values(key)
        if table == "customers":
            for change in self.touched:
                self.touched[change].add(key)
        if r.random() < 0.2:
            return f"DELETE FROM {table} WHERE id = {key}"
        cols = ", ".join(values)
        vals = ", ".join(sql_literal(v) for v in values.values())
        sets = ", ".join(f"{c} = EXCLUDED.{c}" for c in values if c != "id")
        return (f"INSERT INTO {table} ({cols}) VALUES ({vals}) "
                f"ON CONFLICT (id) DO UPDATE SET {sets}")

    def item(self):
        r = self.rng
        key = r.randint(1, 30)
        if r.random() < 0.2:
            return f"DELETE FROM items WHERE id = {key}"
        return (f"INSERT INTO items VALUES ({key}, {sql_literal(r.choice(['a', 'b', None]))}, "
                f"{r.randint(0, 9)}) ON CONFLICT (id) DO UPDATE SET sku = EXCLUDED.sku, "
                "n = EXCLUDED.n")

    def step(self):
        r = self.rng
        if "items" in self.done and r.random() < 0.3:
            self.pg.sql(self.item())
        if r.random() < 0.3:
            # One transaction touching both tables.
            stmts = [self.change("orders"), self.change("customers"), self.change("orders")]
            self.pg.sql("BEGIN; " + "; ".join(stmts) + "; COMMIT")
        else:
            self.pg.sql(self.change(r.choice(["orders", "orders", "customers"])))
        self.statements += 1


def paimon_columns(load, table):
    """The columns of `table` in PostgreSQL and the Paimon-only ones (dropped or renamed away)."""
    kinds = KINDS[table]
    pg = [c for c in kinds if (c not in CHANGES or c in load.done) and c != "fullname"
          and not (c == "vip" and "drop_vip" in load.done)]
    if table == "customers" and "rename_name" in load.done:
        pg = [("fullname" if c == "name" else c) for c in pg]
    only = []
    if table == "customers":
        only = [c for c, change in (("vip", "drop_vip"), ("name", "rename_name"))
                if change in load.done]
    return pg, only


def expected_paimon_row(load, table, values):
    """A row of PostgreSQL (normalized, by column) as Paimon must hold it: a dropped column
    keeps its value at the drop unless the row was written since; a renamed one likewise, and
    its new name is NULL in the rows not written since the rename."""
    row = dict(values)
    if table != "customers":
        return row
    key = row["id"]
    for change, old in (("drop_vip", "vip"), ("rename_name", "name")):
        if change not in load.done:
            continue
        written = key in load.touched[change] or key not in load.frozen[change]
        row[old] = None if written else normalize(load.frozen[change][key], KINDS[table][old])
        if change == "rename_name" and not written:
            row["fullname"] = None
    return row


def normalize(value, kind):
    """A value of `kind` from Java's JSON rows or from psql text, in one comparable form."""
    if value is None:
        return None
    if kind == "bool":
        return value if isinstance(value, bool) else value == "t"
    if kind == "int":
        return int(value)
    if kind == "decimal":
        return decimal.Decimal(str(value)).quantize(decimal.Decimal("0.01"))
    if kind == "timestamp":
        text = str(value).replace("T", " ")
        return datetime.datetime.fromisoformat(text)
    if kind == "date":
        return datetime.date.fromisoformat(str(value))
    if kind == "intarray":
        if isinstance(value, str):  # psql's text: {1,NULL,3}
            inner = value.strip("{}")
            return [None if x == "NULL" else int(x) for x in inner.split(",")] if inner else []
        return [None if x is None else int(x) for x in value]
    return str(value)


class CdcRun:
    """PostgreSQL with the shop tables (ids 1..`keys`) and 40 statements of history, the path
    to a database-sync job into warehouse `wh`, database `ods` (2 buckets, 200 ms checkpoints,
    parallelism 2), and the job's process. Counts in `counts`."""

    def __init__(self, work, fjord, rng, direct=False, direct_schema=False, name="shop", keys=80):
        self.work, self.fjord, self.rng, self.keys = work, fjord, rng, keys
        self.direct, self.direct_schema, self.name = direct, direct_schema, name
        self.proc = None
        self.kafka = self.dbz = None
        self.counts = {"kills": 0, "terms": 0, "starts": 0, "broker_outages": 0,
                       "start_failures": 0, "debezium_restarts": 0, "kills_after_alter_before": 0,
                       "kills_after_alter_after": 0}
        self.job = os.path.join(work, "job.yaml")
        self.log_path = os.path.join(work, "job.log")
        self.stack = contextlib.ExitStack()

    def __enter__(self):
        with self.stack as stack:
            self.pg = stack.enter_context(Postgres(self.work))
            for table, cols in TABLES.items():
                self.pg.sql(f"CREATE TABLE {table} ({cols}); "
                            f"ALTER TABLE {table} REPLICA IDENTITY FULL")
            self.load = Workload(self.pg, self.rng, self.keys)
            for _ in range(40):
                self.load.step()
            self.write_job()
            self.log = stack.enter_context(open(self.log_path, "a"))
            self.stack = stack.pop_all()
        return self

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.stack.close()

    def write_job(self):
        sink = (f"sink: {{warehouse: wh, database: ods, primary-key: [id],"
                f" excluding-tables: marker, table-options: {{bucket: 2}}}}\n"
                f"pipeline: {{name: {self.name}, parallelism: 2, checkpoint-interval: 200ms,"
                f" state-dir: state}}\n")
        if self.direct:
            tables = "" if self.direct_schema else "tables: ['orders|customers|items'], "
            source = (f"source: {{type: postgres, port: {self.pg.port}, user: {self.pg.user},"
                      f" database: {self.pg.dbname},\n"
                      f"         {tables}slot: fjord_{self.name}, publication: fjord_{self.name},"
                      " discovery-interval: 1s}\n")
        else:
            self.kafka = self.stack.enter_context(Broker(self.work, partitions=1))
            # Java Paimon reads Connect Decimals written as JSON numbers (decimal.format=numeric).
            self.dbz = self.stack.enter_context(
                Debezium(self.work, self.pg, self.kafka, self.name, schemas=True,
                         props={"converter.decimal.format": "numeric"}))
            self.dbz.wait_streaming()
            self.dbz.wait_for({f"{self.name}.public.orders": 1,
                               f"{self.name}.public.customers": 1})
            source = (f"source: {{type: kafka, bootstrap-servers: \"{self.kafka.bootstrap}\",\n"
                      f"         topic-pattern: '{self.name}[.]public[.].*',"
                      " discovery-interval: 1s,\n         format: debezium-json}\n")
        with open(self.job, "w") as f:
            f.write(source + sink)

    # --- the job's process --------------------------------------------------------------------
    def start_job(self):
        self.start_at = self.log_size()
        self.proc = subprocess.Popen([self.fjord, "run", self.job], cwd=self.work,
                                     stdout=self.log, stderr=subprocess.STDOUT)
        self.started = time.time()
        self.counts["starts"] += 1

    def log_text(self, since=0):
        with open(self.log_path, errors="replace") as f:
            f.seek(since)
            return f.read()

    def log_size(self):
        self.log.flush()
        return os.path.getsize(self.log_path)

    def kill_job(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()
        self.counts["kills"] += 1

    def kill_after_change(self, name, since, failures, timeout=30):
        """SIGKILL right after change `name` (applied when the log was `since` bytes long):
        once the job logged its ALTER (or created the table), before its next checkpoint
        (mostly: reported); at once for a change the job need not apply (a dropped column).
        Then the job is started again."""
        table, column = CHANGED[name]
        if column is None and table != "items":
            self.kill_job()
            self.start_job()
            print(f"ok: the job killed right after {name}")
            return
        column = (column or "").format(name=self.load.name_col)
        line = (re.compile(r"created table ods\.items") if table == "items" else
                re.compile(rf"table ods\.{table} altered for .*column {column}\b"))
        deadline = time.time() + timeout
        while True:
            text = self.log_text(since)
            m = line.search(text)
            if m:
                self.kill_job()
                later = self.log_text(since)[m.end():]
                before = "before" if not re.search(r"checkpoint \d+: ", later) else "after"
                self.counts["kills_after_alter_" + before] += 1
                print(f"ok: the job killed right after its ALTER for {name} ({before} its next "
                      "checkpoint)")
                self.start_job()
                return
            if self.proc.poll() is not None or time.time() > deadline:
                failures.append(f"the job did not apply {name} within {timeout} s: "
                                f"{text[-1500:]}")
                return
            time.sleep(0.005)

    def term_job(self, failures, timeout=60):
        """SIGTERM: the job must stop after a final checkpoint (exit 0) within `timeout`."""
        time.sleep(max(0.0, 1.0 - (time.time() - self.started)))  # its handler is installed
        began = time.time()
        self.proc.send_signal(signal.SIGTERM)
        try:
            rc = self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            rc = self.proc.wait()
            failures.append(f"fjord run did not stop within {timeout} s of SIGTERM")
        if rc != 0:
            failures.append(f"fjord run exited {rc} on SIGTERM: {self.log_text()[-2000:]}")
        self.counts["terms"] += 1
        return time.time() - began

    def check_alive(self):
        """Exits the test if the job exited by itself (it never should)."""
        if self.proc.poll() is not None:
            sys.exit(f"fjord run exited with {self.proc.returncode}: {self.log_text()[-3000:]}")

    def keep_debezium(self):
        """Restarts the Debezium runner if it exited (it resends from its last offsets)."""
        if self.dbz and self.dbz.proc.poll() is not None:
            self.dbz.stop()
            self.dbz.start()
            self.counts["debezium_restarts"] += 1

    # --- broker outages -----------------------------------------------------------------------
    def broker_down(self, sig):
        """Stops the broker with `sig` (SIGTERM: a clean shutdown; SIGKILL: none)."""
        if sig == signal.SIGKILL:
            self.kafka.kill()
        else:
            self.kafka.stop()
        self.counts["broker_outages"] += 1

    def broker_up(self):
        """The broker again, on its ports and data directory."""
        self.kafka.launch(90)

    def broker_outage(self, sig, down_seconds, failures, stop_job=False):
        """The broker down for `down_seconds` with `sig` while PostgreSQL keeps changing, then up
        again. SIGTERM: the running job must ride through (no exit, checkpoints go on while the
        broker is away, never more than STOP_SECONDS apart). SIGKILL: the job is killed with the broker and started while it is
        down, or with `stop_job`, three quarters into the outage, gets a SIGTERM, must stop
        within STOP_SECONDS (exit 0), and is started while the broker is down. A job started while the broker
        is down waits for it or fails naming it, and is then started again. Returns once the
        job committed rows again after the broker's return."""
        # A job that has not yet found its topics would fail at its start, not ride through:
        # the outage begins once it checkpointed (the source loop runs after the first look).
        deadline = time.time() + 60
        while not re.search(r"checkpoint \d+: ", self.log_text(self.start_at)):
            self.check_alive()
            if time.time() > deadline:
                sys.exit(f"fjord run took no checkpoint in 60 s: {self.log_text()[-3000:]}")
            self.load.step()
            time.sleep(0.05)
        rider = self.proc
        self.broker_down(sig)
        down_at = self.log_size()
        if sig == signal.SIGKILL and not stop_job:
            self.kill_job()
            self.start_job()
        began = time.time()
        # When each checkpoint line of the running job appeared: a job whose source thread
        # waits in a metadata request (librdkafka's reconnect backoff grows to 10 s in a long
        # outage) stops checkpointing, and a SIGTERM waits as long.
        seen, ticks, last_tick, gap = down_at, 0, began, 0.0
        while time.time() - began < down_seconds:
            self.load.step()
            time.sleep(0.05)
            new = self.log_text(seen)
            seen += len(new.encode())
            if self.proc is rider and re.search(r"checkpoint \d+: ", new):
                ticks += len(re.findall(r"checkpoint \d+: ", new))
                gap, last_tick = max(gap, time.time() - last_tick), time.time()
            if stop_job and self.proc is rider and time.time() - began > down_seconds * 0.75:
                took = self.term_job(failures, timeout=30)
                if took > STOP_SECONDS:
                    failures.append(f"a SIGTERM while the broker was down took {took:.1f} s")
                else:
                    print(f"ok: a SIGTERM {time.time() - began:.1f} s into a broker outage "
                          f"stopped the job in {took:.1f} s")
                self.start_job()
        gap = max(gap, time.time() - last_tick)
        if sig == signal.SIGTERM and not stop_job:
            # Checkpoints every 200 ms go on without the broker (nothing new to commit).
            if rider.poll() is not None or gap > STOP_SECONDS:
                failures.append(f"broker outage: the job exited ({rider.poll()}) or stopped "
                                f"checkpointing ({ticks} checkpoints in {down_seconds:.1f} s, "
                                f"{gap:.1f} s without one): {self.log_text(down_at)[-2000:]}")
            else:
                print(f"ok: {ticks} checkpoints in the {down_seconds:.1f} s the broker was "
                      f"down, at most {gap:.1f} s apart (SIGTERM)")
        self.broker_up()
        up_at = self.log_size()
        self.keep_debezium()
        deadline = time.time() + 90
        while time.time() < deadline:
            self.load.step()
            time.sleep(0.1)
            if self.proc.poll() is not None:
                text = self.log_text(self.start_at)
                if self.proc is not rider and self.proc.returncode == 1 and \
                        f"from {self.kafka.bootstrap}" in text:
                    print("ok: the job started while the broker was down failed naming it: "
                          + text.strip().splitlines()[-1])
                    self.counts["start_failures"] += 1
                    self.start_job()
                    continue
                sys.exit(f"fjord run exited with {self.proc.returncode} after the broker came "
                         f"back: {self.log_text()[-3000:]}")
            if checkpoints_with_rows(self.log_text(up_at)):
                how = "the same process" if self.proc is rider else "the job"
                print(f"ok: {how} commits rows again {time.time() - began - down_seconds:.1f} s "
                      f"after the broker came back ({signal.Signals(sig).name})")
                return
        failures.append(f"no rows committed within 90 s of the broker's return: "
                        f"{self.log_text(up_at)[-2000:]}")

    # --- the end ------------------------------------------------------------------------------
    def finish(self, failures):
        """The marker row written last, the job stopped (SIGTERM) once it is in Kafka (or at
        once: direct), a --bounded run, the slot checked (direct), then Java reads every table
        and must find exactly PostgreSQL's rows; then the schema of orders."""
        before_marker = self.pg.sql("SELECT pg_current_wal_insert_lsn()")[0][0]
        self.pg.sql("INSERT INTO marker VALUES (1)")
        if self.dbz:
            # Everything PostgreSQL holds is in Kafka once the marker written last is (Debezium
            # sends the changes in commit order), then the job drains what Kafka holds.
            self.keep_debezium()
            self.dbz.wait_for({f"{self.name}.public.marker": 1}, timeout=120)
        self.term_job(failures)
        # --bounded: up to the end of what Kafka holds, or PostgreSQL's WAL at its start.
        r = subprocess.run([self.fjord, "run", self.job, "--bounded"], cwd=self.work,
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append("bounded run failed: " + r.stdout[-2000:] + r.stderr[-2000:])
            return 0
        if os.path.isdir(os.path.join(self.work, "wh", "ods.db", "marker")):
            failures.append("the excluded table marker was created")
        if self.direct:
            # The slot was confirmed as far as the committed checkpoints reach: past every change
            # of the workload (the server may now drop their WAL), not beyond.
            slot = self.pg.sql("SELECT confirmed_flush_lsn, confirmed_flush_lsn >= "
                               f"'{before_marker}'::pg_lsn FROM pg_replication_slots "
                               f"WHERE slot_name = 'fjord_{self.name}'")
            if not slot or slot[0][1] != "t":
                failures.append(f"slot fjord_{self.name} confirmed {slot}, not past "
                                f"{before_marker}")
            else:
                print(f"ok: the slot is confirmed to {slot[0][0]}, past the workload's "
                      f"{before_marker}")
        rows = self.compare_with_java(failures)
        self.check_schema(failures)
        return rows

    def compare_with_java(self, failures):
        """Java Paimon's rows of each table against PostgreSQL's; returns the rows compared."""
        compared = 0
        oracle = OracleBatch(self.work)
        try:
            for table, kinds in KINDS.items():
                if table == "items" and "items" not in self.load.done:
                    continue
                pg_cols, only = paimon_columns(self.load, table)
                cols = pg_cols + only
                want = {}
                for row in self.pg.sql(f"SELECT {', '.join(pg_cols)} FROM {table}"):
                    values = {c: normalize(v, kinds[c]) for c, v in zip(pg_cols, row)}
                    want[values["id"]] = expected_paimon_row(self.load, table, values)
                path = os.path.join(self.work, "wh", "ods.db", table)
                if not os.path.isdir(path):
                    failures.append(f"no table {table} in the warehouse")
                    continue
                got = {}
                with open(oracle.call("dump", path)) as f:
                    for line in f:
                        if line.strip():
                            row = json.loads(line)
                            got[row["id"]] = {c: normalize(row.get(c), kinds[c]) for c in cols}
                compared += len(want)
                # The sentinels by name: each change's first rows, written with the new column.
                for t, key, what, focus in self.load.sentinels:
                    if t == table and got.get(key) != want.get(key):
                        failures.append(f"sentinel {table} id={key} ({what}): Java reads "
                                        f"{got.get(key)}, PostgreSQL holds {want.get(key)}")
                if got != want:
                    diff = [(got.get(k), want.get(k)) for k in sorted(set(got) | set(want))
                            if got.get(k) != want.get(k)][:3]
                    failures.append(f"{table}: Java reads {len(got)} rows, PostgreSQL holds "
                                    f"{len(want)}; first differences {diff}")
                else:
                    print(f"ok: Java reads exactly the {len(want)} rows PostgreSQL holds in "
                          f"{table}")
        finally:
            oracle.close()
        if self.load.sentinels and not any(f.startswith("sentinel") for f in failures):
            print(f"ok: Java reads the {len(self.load.sentinels)} sentinels (each change's own "
                  "transaction and the next one) with their new columns")
        return compared

    def check_schema(self, failures):
        done = self.load.done
        want = {"orders": {"region": "STRING"} if "region" in done else {},
                "customers": {"tier": "INT"} if "tier" in done else {}}
        if "drop_vip" in done:
            want["customers"]["vip"] = "BOOLEAN"  # kept
        if "rename_name" in done:
            # Both kept, whatever their type (the direct path's VARCHAR(n), Debezium's STRING).
            want["customers"]["name"] = want["customers"]["fullname"] = None
        if "wide" in self.load.done:
            want["orders"]["qty"] = "BIGINT"
        if "tags_wide" in self.load.done:
            want["orders"]["tags"] = {"type": "ARRAY", "element": "BIGINT"}
        for table, types in want.items():
            if not types:
                continue
            schema = json.loads(subprocess.run(
                [self.fjord, "schema", os.path.join(self.work, "wh", "ods.db", table)],
                capture_output=True, text=True).stdout)
            got = {f["name"]: f["type"] for f in schema["fields"]}
            if any(c not in got or t is not None and got[c] != t for c, t in types.items()):
                failures.append(f"{table} did not follow the source's schema: {got}")
            else:
                print(f"ok: {table} has the added columns and widened types, and keeps the "
                      f"dropped and renamed ones ({schema['id']} ALTERs)")


def checkpoints_with_rows(text):
    """The checkpoints in a job's log text that committed rows."""
    return [int(m.group(1)) for m in re.finditer(r"checkpoint (\d+): (\d+) rows", text)
            if int(m.group(2)) > 0]
