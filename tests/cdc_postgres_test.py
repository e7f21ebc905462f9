#!/usr/bin/env python3
"""A real change stream into Paimon tables (issue 17 point 4): PostgreSQL 15 (tests/pg) ->
Debezium's PostgreSQL connector, embedded (tests/debezium) -> a Kafka broker (tests/kafka) ->
`fjord run` (a database-sync job, format debezium-json) -> Paimon tables, read back by Java Paimon.

A workload runs on PostgreSQL while the job runs: inserts, updates and deletes of two tables,
transactions touching both, `ALTER TABLE orders ADD COLUMN region` and
`ALTER TABLE orders ALTER COLUMN qty TYPE bigint` (values beyond INT follow) and a new table
`items` mid-stream (its topic found by the job's topic-pattern, the table created, no restart). The job
is killed with SIGKILL at random moments and restarted (`--kills 0` for none). At the end the
job runs --bounded and Java Paimon must read, table by table, exactly the rows PostgreSQL holds,
with the evolved schema. Prints what it checked.

With --direct the same runs without Kafka and Debezium (issue 17 point 5), and the workload also
adds an `int[]` column to `orders` and later widens it to `bigint[]` (a nested type change:
the job alters the table's `tags.element`, as Java's CDC sink does): the job's source is
`type: postgres`, Fjord reading PostgreSQL's logical replication stream itself (pgoutput through
libpq), an initial snapshot then the changes, the slot confirmed only up to committed
checkpoints. `items`, created mid-stream, is found by the source: with `tables` patterns
(the default) the publication lists its tables and the source adds `items` to it and reads it
from a snapshot; with --direct-schema (no patterns) the publication is FOR TABLES IN SCHEMA public
and the stream carries `items` from its CREATE on.

    cdc_postgres_test.py --fjord BUILD/tools/fjord [--seconds 20] [--kills 4] [--seed 17]
                         [--direct [--direct-schema]]
"""
import contextlib
import argparse
import datetime
import decimal
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
for sub in ("pg", "kafka", "debezium", "compat"):
    sys.path.insert(0, os.path.join(HERE, sub))

from broker import Broker  # noqa: E402
from oracle_batch import OracleBatch  # noqa: E402
from postgres import Postgres  # noqa: E402
from runner import Debezium  # noqa: E402

TABLES = {
    "orders": "id int PRIMARY KEY, customer int, qty int, amount numeric(10,2), "
              "placed timestamp(6), day date, note text, paid boolean",
    "customers": "id int PRIMARY KEY, name varchar(20), vip boolean",
    "marker": "id int PRIMARY KEY",  # written last: once Kafka has it, it has everything
}


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
    def __init__(self, pg, rng):
        self.pg, self.rng = pg, rng
        self.region = False
        self.wide = False
        self.items = False
        self.tags = False       # orders.tags int[] added (--direct)
        self.tags_wide = False  # ... and widened to bigint[]
        self.statements = 0

    def order_values(self, oid):
        r = self.rng
        qty = r.randint(1, 100)
        if self.wide and r.random() < 0.5:
            qty = 5_000_000_000 + r.randint(0, 999)
        vals = {"id": oid, "customer": r.randint(1, 30), "qty": qty,
                "amount": decimal.Decimal(r.randint(-99999, 9999999)) / 100,
                "placed": "2026-%02d-%02d %02d:%02d:%02d.%06d" % (
                    r.randint(1, 12), r.randint(1, 28), r.randint(0, 23), r.randint(0, 59),
                    r.randint(0, 59), r.randint(0, 999999)),
                "day": "2026-%02d-%02d" % (r.randint(1, 12), r.randint(1, 28)),
                "note": r.choice([None, "gift", "rush", "dé jà", "a'b"]),
                "paid": r.choice([True, False, None])}
        if self.region:
            vals["region"] = r.choice([None, "north", "south"])
        if self.tags:
            big = 6_000_000_000 if self.tags_wide else 0
            vals["tags"] = r.choice([None, [], [r.randint(-9, 9) + big, None, 3]])
        return vals

    def customer_values(self, cid):
        r = self.rng
        return {"id": cid, "name": r.choice(["ann", "bo", "cy", "dé"]),
                "vip": r.choice([True, False, None])}

    def change(self, table):
        r = self.rng
        key = r.randint(1, 80)
        values = self.order_values(key) if table == "orders" else self.customer_values(key)
        pick = r.random()
        if pick < 0.2:
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
        if self.items and r.random() < 0.3:
            self.pg.sql(self.item())
        if r.random() < 0.3:
            # One transaction touching both tables.
            stmts = [self.change("orders"), self.change("customers"), self.change("orders")]
            self.pg.sql("BEGIN; " + "; ".join(stmts) + "; COMMIT")
        else:
            self.pg.sql(self.change(r.choice(["orders", "orders", "customers"])))
        self.statements += 1


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


KINDS = {"orders": {"id": "int", "customer": "int", "qty": "int", "amount": "decimal",
                    "placed": "timestamp", "day": "date", "note": "text", "paid": "bool",
                    "region": "text", "tags": "intarray"},
         "customers": {"id": "int", "name": "text", "vip": "bool"},
         "items": {"id": "int", "sku": "text", "n": "int"}}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--direct", action="store_true")
    ap.add_argument("--direct-schema", action="store_true",
                    help="--direct without table patterns: a FOR TABLES IN SCHEMA publication")
    args = ap.parse_args()
    fjord = os.path.abspath(args.fjord)
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="fjord-cdc-pg-")
    failures = []
    with contextlib.ExitStack() as stack:
        pg = stack.enter_context(Postgres(work))
        for name, cols in TABLES.items():
            pg.sql(f"CREATE TABLE {name} ({cols}); ALTER TABLE {name} REPLICA IDENTITY FULL")
        load = Workload(pg, rng)
        for _ in range(40):
            load.step()
        job = os.path.join(work, "job.yaml")
        sink = ("sink: {warehouse: wh, database: ods, primary-key: [id],"
                " excluding-tables: marker, table-options: {bucket: 2}}\n"
                "pipeline: {name: shop, parallelism: 2, checkpoint-interval: 200ms,"
                " state-dir: state}\n")
        if args.direct:
            dbz = None
            with open(job, "w") as f:
                tables = "" if args.direct_schema else "tables: ['orders|customers|items'], "
                f.write(f"source: {{type: postgres, port: {pg.port}, user: {pg.user},"
                        f" database: {pg.dbname},\n"
                        f"         {tables}slot: fjord_shop, publication: fjord_shop,"
                        " discovery-interval: 1s}\n" + sink)
        else:
            kafka = stack.enter_context(Broker(work, partitions=1))
            # Java Paimon reads Connect Decimals written as JSON numbers (decimal.format=numeric).
            dbz = stack.enter_context(Debezium(work, pg, kafka, "shop", schemas=True,
                                               props={"converter.decimal.format": "numeric"}))
            dbz.wait_streaming()
            dbz.wait_for({"shop.public.orders": 1, "shop.public.customers": 1})
            with open(job, "w") as f:
                f.write(f"source: {{type: kafka, bootstrap-servers: \"{kafka.bootstrap}\",\n"
                        "         topic-pattern: 'shop[.]public[.].*', discovery-interval: 1s,\n"
                        "         format: debezium-json}\n" + sink)
        log = open(os.path.join(work, "job.log"), "a")

        def start():
            return subprocess.Popen([fjord, "run", job], cwd=work, stdout=log,
                                    stderr=subprocess.STDOUT)

        proc = start()
        kills = 0
        began = time.time()
        kill_at = sorted(rng.uniform(1, args.seconds) for _ in range(args.kills))
        while time.time() - began < args.seconds:
            elapsed = time.time() - began
            if not load.region and elapsed > args.seconds / 3:
                pg.sql("ALTER TABLE orders ADD COLUMN region text")
                load.region = True
                load.step()  # the new column used right away
            if not load.items and elapsed > args.seconds / 2:
                pg.sql("CREATE TABLE items (id int PRIMARY KEY, sku text, n int); "
                       "ALTER TABLE items REPLICA IDENTITY FULL")
                load.items = True
            if not load.wide and elapsed > 2 * args.seconds / 3:
                pg.sql("ALTER TABLE orders ALTER COLUMN qty TYPE bigint")
                load.wide = True
            if args.direct and not load.tags and elapsed > args.seconds / 4:
                pg.sql("ALTER TABLE orders ADD COLUMN tags int[]")
                load.tags = True
            if load.tags and not load.tags_wide and elapsed > 3 * args.seconds / 4:
                pg.sql("ALTER TABLE orders ALTER COLUMN tags TYPE bigint[]")
                load.tags_wide = True
            load.step()
            time.sleep(rng.uniform(0.01, 0.05))
            if kill_at and elapsed > kill_at[0]:
                kill_at.pop(0)
                proc.send_signal(signal.SIGKILL)
                proc.wait()
                kills += 1
                proc = start()
            if proc.poll() is not None:
                sys.exit("fjord run exited with %d: %s" % (
                    proc.returncode, open(os.path.join(work, "job.log")).read()[-3000:]))
        before_marker = pg.sql("SELECT pg_current_wal_insert_lsn()")[0][0]
        pg.sql("INSERT INTO marker VALUES (1)")
        if dbz:
            # Everything PostgreSQL holds is in Kafka once the marker written last is (Debezium
            # sends the changes in commit order), then the job drains what Kafka holds.
            dbz.wait_for({"shop.public.marker": 1})
        time.sleep(1.0)  # a job restarted a moment ago has its SIGTERM handler by then
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=60) != 0:
            failures.append("fjord run failed on SIGTERM")
        # --bounded: up to the end of what Kafka holds, or PostgreSQL's WAL at its start.
        r = subprocess.run([fjord, "run", job, "--bounded"], cwd=work, capture_output=True,
                           text=True)
        if r.returncode != 0:
            sys.exit("bounded run failed: " + r.stdout + r.stderr)
        if os.path.isdir(os.path.join(work, "wh", "ods.db", "marker")):
            failures.append("the excluded table marker was created")
        if args.direct:
            # The slot was confirmed as far as the committed checkpoints reach: past every change
            # of the workload (the server may now drop their WAL), not beyond.
            slot = pg.sql("SELECT confirmed_flush_lsn, confirmed_flush_lsn >= "
                          f"'{before_marker}'::pg_lsn FROM pg_replication_slots "
                          "WHERE slot_name = 'fjord_shop'")
            if not slot or slot[0][1] != "t":
                failures.append(f"slot fjord_shop confirmed {slot}, not past {before_marker}")
            else:
                print(f"ok: the slot is confirmed to {slot[0][0]}, past the workload's "
                      f"{before_marker}")
        oracle = OracleBatch(work)
        try:
            for table, kinds in KINDS.items():
                if table == "items" and not load.items:
                    continue
                cols = [c for c in kinds if (c != "region" or load.region) and
                        (c != "tags" or load.tags)]
                want = {}
                for row in pg.sql(f"SELECT {', '.join(cols)} FROM {table}"):
                    values = {c: normalize(v, kinds[c]) for c, v in zip(cols, row)}
                    want[values["id"]] = values
                if not os.path.isdir(os.path.join(work, "wh", "ods.db", table)):
                    failures.append(f"no table {table} in the warehouse")
                    continue
                out = oracle.call("dump", os.path.join(work, "wh", "ods.db", table))
                got = {}
                with open(out) as f:
                    for line in f:
                        if line.strip():
                            row = json.loads(line)
                            got[row["id"]] = {c: normalize(row.get(c), kinds[c]) for c in cols}
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
        schema = json.loads(subprocess.run(
            [fjord, "schema", os.path.join(work, "wh", "ods.db", "orders")],
            capture_output=True, text=True).stdout)
        types = {f["name"]: f["type"] for f in schema["fields"]}
        tags_type = {"type": "ARRAY", "element": "BIGINT"}
        if types.get("region") != "STRING" or types.get("qty") != "BIGINT" or (
                load.tags and types.get("tags") != tags_type):
            failures.append(f"orders did not follow the source's schema: {types}")
        else:
            print(f"ok: orders has the added column and the widened type"
                  f"{' and the widened ARRAY element' if load.tags else ''} "
                  f"({schema['id']} ALTERs)")
        mode = (" direct, schema publication" if args.direct_schema else " direct") \
            if args.direct else ""
        print(f"cdc postgres{mode}: {load.statements} statements, "
              f"{kills} SIGKILLs of fjord run")
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("work dir kept:", work)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
