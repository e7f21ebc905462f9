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
of every key, deleted keys gone), with the evolved schemas. Prints the kills and rows checked.

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
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

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
    if failures:
        print("\n".join(failures))
        print("work dir kept: " + work)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
