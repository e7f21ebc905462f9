#!/usr/bin/env python3
"""A real PostgreSQL -> Debezium -> Kafka change stream (issue 17 point 4): the harnesses the CDC
ingestion tests build on, checked end to end.

PostgreSQL 15 (tests/pg/postgres.py), one Kafka broker (tests/kafka/broker.py) and Debezium
3.6.1's embedded engine (tests/debezium/runner.py), one JVM of Debezium at a time.

Phase 1, schemas on, a topic per table: rows present before the start arrive as snapshot reads
("r"); then inserts, updates, deletes (each followed by a tombstone), one transaction over both
tables, ALTER TABLE ADD COLUMN and a widened type (int -> bigint). The op sequence per table, the
keys, the values of the numeric / timestamp / date / bytea / bool columns as Debezium's documented
types encode them, and the schema before and after each ALTER are checked.

Phase 2, schemas off, one topic for both tables, a new slot: the snapshot of what phase 1 left,
changes, a SIGKILL of the runner in the middle of 300 one-row transactions, changes while it is
down, a restart from its offsets file: every change arrives (some perhaps twice, never lost), bare
payloads without a schema.

The messages go to WORKDIR/messages-schemas.jsonl and WORKDIR/messages-plain.jsonl (one Kafka
message a line: topic, partition, offset, key, value); --workdir keeps them.

    debezium_smoke_test.py [--workdir DIR]
"""
import argparse
import base64
import datetime
import json
import os
import shutil
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [HERE, os.path.join(HERE, "..", "pg"), os.path.join(HERE, "..", "kafka")]
from broker import Broker  # noqa: E402
from postgres import Postgres  # noqa: E402
from runner import Debezium  # noqa: E402

failures = []


def check(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def decode(m):
    """(key payload, value payload or None, value schema or None) of one message; the payloads
    are the bare objects whether the converter wrote schemas or not."""
    key = json.loads(m["key"]) if m["key"] is not None else None
    val = json.loads(m["value"]) if m["value"] is not None else None
    schema = None
    if key is not None and "schema" in key and "payload" in key:
        key = key["payload"]
    if val is not None and "schema" in val and "payload" in val:
        schema, val = val["schema"], val["payload"]
    return key, val, schema


def ops(msgs):
    """The op of every message, "T" for a tombstone, and the id it concerns."""
    out = []
    for m in msgs:
        key, val, _ = decode(m)
        out.append(("T" if val is None else val["op"], key["id"]))
    return out


def after_fields(schema):
    """{field name: field schema} of the envelope's `after` struct."""
    after = next(f for f in schema["fields"] if f["field"] == "after")
    return {f["field"]: f for f in after["fields"]}


def decimal_bytes(unscaled):
    """Kafka Connect's Decimal: the unscaled value, big-endian two's complement, minimal length."""
    n = (unscaled.bit_length() + 8) // 8
    return base64.b64encode(unscaled.to_bytes(n, "big", signed=True)).decode()


EPOCH = datetime.datetime(1970, 1, 1)


def micros(text):
    """io.debezium.time.MicroTimestamp: a timestamp without time zone as microseconds since the
    epoch, the wall-clock value read as if it were UTC."""
    d = datetime.datetime.fromisoformat(text) - EPOCH
    return (d.days * 86400 + d.seconds) * 1_000_000 + d.microseconds


def days(text):
    """io.debezium.time.Date: days since the epoch."""
    return (datetime.date.fromisoformat(text) - EPOCH.date()).days


def phase1(pg, kafka, work):
    pg.sql("""
        CREATE TABLE orders (id int PRIMARY KEY, amount numeric(10,2), placed_at timestamp,
                             ship_date date, note text, paid bool, blob bytea, qty int);
        CREATE TABLE customers (id int PRIMARY KEY, name text);
        -- customers keeps whole old rows in the WAL: the delete's `before` carries every column
        ALTER TABLE customers REPLICA IDENTITY FULL;
        INSERT INTO orders VALUES
          (1, 1234.50, '2026-03-01 12:34:56.789012', '2026-03-02', 'first', true, '\\x00ff10', 7),
          (2, -0.05, '1969-12-31 23:59:59', '1969-12-30', NULL, false, '', NULL);
        INSERT INTO customers VALUES (1, 'ada');
    """)
    o, c = "cdc.public.orders", "cdc.public.customers"
    with Debezium(work, pg, kafka, "cdc", schemas=True) as dbz:
        dbz.wait_streaming()
        dbz.wait_for({o: 2, c: 1})
        pg.sql("""
            INSERT INTO orders (id, amount, note) VALUES (3, 99999999.99, 'three');
            INSERT INTO orders (id, amount, paid) VALUES (4, 0, false);
            UPDATE orders SET note = 'first, changed', amount = 1.00 WHERE id = 1;
            DELETE FROM orders WHERE id = 2;
            BEGIN;
              INSERT INTO customers VALUES (2, 'grace');
              UPDATE orders SET note = 'in a transaction' WHERE id = 3;
              DELETE FROM customers WHERE id = 1;
            COMMIT;
        """)
        dbz.wait_for({o: 7, c: 4})
        pg.sql("""
            ALTER TABLE orders ADD COLUMN region text DEFAULT 'north';
            INSERT INTO orders (id, amount, region, qty) VALUES (5, 5.55, 'south', 2147483647);
            UPDATE orders SET paid = true WHERE id = 4;
        """)
        dbz.wait_for({o: 9})
        pg.sql("""
            ALTER TABLE orders ALTER COLUMN qty TYPE bigint;
            INSERT INTO orders (id, qty) VALUES (6, 5000000000);
        """)
        dbz.wait_for({o: 10})
        msgs = dbz.dump([o, c])
    with open(os.path.join(work, "messages-schemas.jsonl"), "w") as f:
        for m in msgs:
            f.write(json.dumps(m) + "\n")

    om = [m for m in msgs if m["topic"] == o]
    cm = [m for m in msgs if m["topic"] == c]
    check(ops(om) == [("r", 1), ("r", 2), ("c", 3), ("c", 4), ("u", 1), ("d", 2), ("T", 2),
                      ("u", 3), ("c", 5), ("u", 4), ("c", 6)], f"orders ops: {ops(om)}")
    check(ops(cm) == [("r", 1), ("c", 2), ("d", 1), ("T", 1)], f"customers ops: {ops(cm)}")
    for m in msgs:
        key = json.loads(m["key"])
        check(key.get("schema", {}).get("fields", [{}])[0].get("field") == "id"
              and "id" in key.get("payload", {}), f"a key with its schema and id: {m['key']}")

    by_op = {}
    for m in om:
        key, val, schema = decode(m)
        if val is not None:
            by_op.setdefault((val["op"], key["id"]), (val, schema))
            check(val["source"]["table"] == "orders" and val["source"]["schema"] == "public",
                  f"source names the table: {val['source']}")

    # The snapshot read of row 1: every type as Debezium's documented mapping encodes it.
    val, schema = by_op[("r", 1)]
    fields = after_fields(schema)
    a = val["after"]
    check(fields["amount"].get("name") == "org.apache.kafka.connect.data.Decimal"
          and fields["amount"]["parameters"].get("scale") == "2", f"amount: {fields['amount']}")
    check(a["amount"] == decimal_bytes(123450), f"1234.50 as a Decimal: {a['amount']}")
    check(by_op[("r", 2)][0]["after"]["amount"] == decimal_bytes(-5), "-0.05 as a Decimal")
    check(by_op[("c", 3)][0]["after"]["amount"] == decimal_bytes(9999999999), "99999999.99")
    check(fields["placed_at"].get("name") == "io.debezium.time.MicroTimestamp"
          and a["placed_at"] == micros("2026-03-01 12:34:56.789012"), f"placed_at: {a}")
    check(by_op[("r", 2)][0]["after"]["placed_at"] == micros("1969-12-31 23:59:59"),
          "a timestamp before the epoch is negative")
    check(fields["ship_date"].get("name") == "io.debezium.time.Date"
          and a["ship_date"] == days("2026-03-02")
          and by_op[("r", 2)][0]["after"]["ship_date"] == -2, f"ship_date: {a}")
    check(fields["blob"]["type"] == "bytes" and a["blob"] == base64.b64encode(b"\x00\xff\x10")
          .decode() and by_op[("r", 2)][0]["after"]["blob"] == "", f"blob: {a}")
    check(fields["paid"]["type"] == "boolean" and a["paid"] is True, f"paid: {a}")
    check(a["note"] == "first" and by_op[("r", 2)][0]["after"]["note"] is None, "note")
    check(fields["qty"]["type"] == "int32" and "region" not in fields, "qty int32, no region")

    # Updates and deletes under REPLICA IDENTITY DEFAULT: no old row on update, only the key on
    # delete; FULL (customers): the whole old row.
    val, _ = by_op[("u", 1)]
    check(val["before"] is None and val["after"]["note"] == "first, changed"
          and val["after"]["amount"] == decimal_bytes(100), f"update of 1: {val}")
    val, _ = by_op[("d", 2)]
    check(val["after"] is None and val["before"]["id"] == 2 and val["before"]["note"] is None,
          f"delete of 2: {val['before']}")
    cd = [decode(m)[1] for m in cm if m["value"] is not None and decode(m)[1]["op"] == "d"][0]
    check(cd["before"] == {"id": 1, "name": "ada"}, f"delete with FULL identity: {cd['before']}")

    # The transaction: the same transaction id on its three events.
    txids = {decode(m)[1]["source"]["txId"] for m in msgs if m["value"] is not None
             and (decode(m)[1]["op"], decode(m)[0]["id"]) in
             {("c", 2), ("d", 1)} and m["topic"] == c}
    txids.add(by_op[("u", 3)][0]["source"]["txId"])
    check(len(txids) == 1, f"one transaction id over both tables: {txids}")

    # After ADD COLUMN: the new column in the schema, its default in the updated old row.
    for op in [("c", 5), ("u", 4)]:
        val, schema = by_op[op]
        fields = after_fields(schema)
        check("region" in fields and fields["region"]["type"] == "string"
              and fields["qty"]["type"] == "int32", f"{op} schema: {list(fields)}")
    check(by_op[("c", 5)][0]["after"]["region"] == "south"
          and by_op[("c", 5)][0]["after"]["qty"] == 2147483647, "row 5")
    check(by_op[("u", 4)][0]["after"]["region"] == "north", "row 4 takes the column's default")
    # After int -> bigint.
    val, schema = by_op[("c", 6)]
    check(after_fields(schema)["qty"]["type"] == "int64" and val["after"]["qty"] == 5000000000,
          f"qty widened: {after_fields(schema)['qty']} {val['after']}")
    return len(msgs)


def identity(m):
    """What a message means, without the time Debezium handled it (a re-sent event has a new
    ts_ms but the same source position)."""
    key, val, _ = decode(m)
    if val is None:
        return ("T", json.dumps(key, sort_keys=True))
    return (val["op"], json.dumps(key, sort_keys=True), val["source"].get("lsn"),
            json.dumps(val["before"], sort_keys=True), json.dumps(val["after"], sort_keys=True))


def phase2(pg, kafka, work):
    topic = "plain.all"
    dbz = Debezium(work, pg, kafka, "plain", schemas=False, topic=topic)
    dbz.start()
    try:
        dbz.wait_streaming()
        dbz.wait_for({topic: 6})  # orders 1, 3, 4, 5, 6 and customer 2
        pg.sql("""
            INSERT INTO customers VALUES (3, 'edsger');
            UPDATE orders SET note = 'five' WHERE id = 5;
        """)
        dbz.wait_for({topic: 8})
        # 300 inserts, one transaction each, while the runner is SIGKILLed part way through.
        bulk = threading.Thread(target=pg.sql, args=(
            "DO $$ BEGIN FOR i IN 101..400 LOOP INSERT INTO customers VALUES (i, 'n' || i); "
            "COMMIT; END LOOP; END $$;",))
        bulk.start()
        dbz.wait_for({topic: 8 + 40})
        dbz.kill()
        acked = dbz.sent.get(topic, 0)
        bulk.join()
        pg.sql("""
            DELETE FROM orders WHERE id = 6;
            INSERT INTO orders (id, note, qty) VALUES (7, 'while down', 1);
        """)
        dbz.start()
        # everything not acknowledged before the kill: 8 + 300 + delete, tombstone, insert
        dbz.wait_for({topic: 311 - acked})
        msgs = dbz.dump([topic])
    finally:
        dbz.stop()
    with open(os.path.join(work, "messages-plain.jsonl"), "w") as f:
        for m in msgs:
            f.write(json.dumps(m) + "\n")

    seen, distinct, prev = set(), [], None
    for m in msgs:
        check(m["topic"] == topic, "one topic")
        if m["value"] is not None:
            check("schema" not in json.loads(m["value"]), "no schema in the value")
            check("schema" not in json.loads(m["key"]), "no schema in the key")
        i = identity(m)
        if i[0] == "T":  # a tombstone is identified by the delete it follows
            i = (i, prev)
        prev = i
        if i not in seen:
            seen.add(i)
            distinct.append(m)
    tables = {}
    for m in distinct:
        key, val, _ = decode(m)
        table = (val or {}).get("source", {}).get("table")
        if val is None:  # a tombstone follows its delete on the single partition
            table = tables.get("last")
        tables["last"] = table
        tables.setdefault(table, []).append(("T" if val is None else val["op"], key["id"]))
    o, c = tables.get("orders", []), tables.get("customers", [])
    check(sorted(o[:5]) == [("r", i) for i in (1, 3, 4, 5, 6)] and
          o[5:] == [("u", 5), ("d", 6), ("T", 6), ("c", 7)], f"plain orders: {o}")
    check(c == [("r", 2), ("c", 3)] + [("c", i) for i in range(101, 401)],
          f"plain customers: {c[:5]}... {c[-3:]}, {len(c)}")
    return len(msgs), len(msgs) - len(distinct), acked


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workdir", help="keep everything here (default: a temporary directory)")
    args = ap.parse_args()
    started = time.time()
    work = args.workdir or tempfile.mkdtemp(prefix="fjord-debezium-smoke-")
    os.makedirs(work, exist_ok=True)
    try:
        with Postgres(work) as pg, Broker(work, partitions=1) as kafka:
            print(f"PostgreSQL on {pg.port}, Kafka on {kafka.bootstrap} after "
                  f"{time.time() - started:.1f}s")
            n1 = phase1(pg, kafka, work)
            print(f"phase 1 (schemas): {n1} messages after {time.time() - started:.1f}s")
            n2, dup, acked = phase2(pg, kafka, work)
            print(f"phase 2 (no schemas, one topic, a SIGKILL after {acked} acknowledged): {n2}"
                  f" messages, {dup} sent twice, after {time.time() - started:.1f}s")
    finally:
        if not args.workdir:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{time.time() - started:.1f}s")
    if failures:
        print(f"0 passed, {len(failures)} failed")
        sys.exit(1)
    print("debezium smoke: all checks passed")


if __name__ == "__main__":
    main()
