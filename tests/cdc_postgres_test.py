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
with the evolved schema. Prints what it checked. (tests/cdc_pg_harness.py holds the workload, the
job and the comparison, shared with `make soak-cdc`.)

With --broker-outages the Kafka broker goes down twice under the running job while PostgreSQL
keeps changing (12 s each: librdkafka's reconnect backoff grows to seconds): once stopped with
SIGTERM, once killed with SIGKILL, each time started again on the same port and data directory.
The running job must ride through the first outage (no exit, its 200 ms checkpoints go on while
the broker is away, never 3 s apart, and the same process commits the rows written meanwhile
once it is back). 9 s into the second the job gets a SIGTERM and must stop within 3 s; started
again while the broker is down it either waits for the broker or fails naming the bootstrap
servers, and is then started again.

With --direct the same runs without Kafka and Debezium (issue 17 point 5), and the workload also
adds an `int[]` column to `orders` and later widens it to `bigint[]` (a nested type change: the
job alters the table's `tags.element`, as Java's CDC sink does): the job's source is
`type: postgres`, Fjord reading PostgreSQL's logical replication stream itself (pgoutput through
libpq), an initial snapshot then the changes, the slot confirmed only up to committed
checkpoints. `items`, created mid-stream, is found by the source: with `tables` patterns
(the default) the publication lists its tables and the source adds `items` to it and reads it
from a snapshot; with --direct-schema (no patterns) the publication is FOR TABLES IN SCHEMA public
and the stream carries `items` from its CREATE on.

    cdc_postgres_test.py --fjord BUILD/tools/fjord [--seconds 20] [--kills 4] [--seed 17]
                         [--broker-outages | --direct [--direct-schema]]
"""
import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time

from cdc_pg_harness import CdcRun
from cdc_pg_cases import incompatible_change, no_primary_key


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--seconds", type=float, default=20)
    ap.add_argument("--kills", type=int, default=4)
    ap.add_argument("--seed", type=int, default=17)
    ap.add_argument("--broker-outages", action="store_true")
    ap.add_argument("--direct", action="store_true")
    ap.add_argument("--direct-schema", action="store_true",
                    help="--direct without table patterns: a FOR TABLES IN SCHEMA publication")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="fjord-cdc-pg-")
    failures = []
    with CdcRun(work, os.path.abspath(args.fjord), rng, direct=args.direct,
                direct_schema=args.direct_schema) as run:
        run.start_job()
        began = time.time()
        kill_at = sorted(rng.uniform(1, args.seconds) for _ in range(args.kills))
        # ADD COLUMN, the new table and the widening spread over the time; --direct also adds an
        # int[] column and widens it to bigint[] (a nested type change).
        # Then a column dropped and one renamed (kept in Paimon, as Java's CDC sink keeps them).
        # The job is SIGKILLed right after each change.
        run.load.plan(["region", "tags", "items", "wide", "tags_wide", "drop_vip", "rename_name"]
                      if args.direct else ["region", "items", "wide", "drop_vip", "rename_name"],
                      args.seconds)
        outages = [(args.seconds * 0.25, signal.SIGTERM), (args.seconds * 0.6, signal.SIGKILL)] \
            if args.broker_outages else []
        while time.time() - began < args.seconds:
            elapsed = time.time() - began
            since = run.log_size()
            for name in run.load.due(elapsed):
                run.kill_after_change(name, since, failures)
            run.load.step()
            time.sleep(rng.uniform(0.01, 0.05))
            if outages and elapsed > outages[0][0]:
                sig = outages.pop(0)[1]
                run.broker_outage(sig, 12, failures, stop_job=sig == signal.SIGKILL)
                began += time.time() - began - elapsed  # the outage's time is not the workload's
            if kill_at and elapsed > kill_at[0]:
                kill_at.pop(0)
                run.kill_job()
                run.start_job()
            run.check_alive()
        run.finish(failures)
        if args.direct:
            # NOT NULL stays NOT NULL, as in Java's postgres_sync_table (no to-nullable).
            schema = subprocess.run([args.fjord, "schema", os.path.join(work, "wh", "ods.db",
                                                                        "orders")],
                                    capture_output=True, text=True).stdout
            types = {f["name"]: f["type"] for f in json.loads(schema or "{}").get("fields", [])}
            if types.get("customer") != "INT NOT NULL" or types.get("note") != "STRING":
                failures.append(f"orders' columns are {types}: customer is NOT NULL in PostgreSQL")
        # Jobs of their own on the same servers (tests/cdc_pg_cases.py).
        incompatible_change(run, failures)
        if args.direct and not args.direct_schema:
            no_primary_key(run, failures)
        mode = (" direct, schema publication" if args.direct_schema else " direct") \
            if args.direct else ""
        outages = f", {run.counts['broker_outages']} broker outages" if args.broker_outages else ""
        print(f"cdc postgres{mode}: {run.load.statements} statements, "
              f"{run.counts['kills']} SIGKILLs of fjord run{outages}")
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("work dir kept:", work)
        sys.exit(1)
    subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
