"""Side cases of the PostgreSQL CDC tests (cdc_postgres_test.py), each a job of its own on the
suite's PostgreSQL (and broker) once the main workload is checked:

- incompatible_change: a column changed in a way Java's CDC sink refuses (text -> int: its
  canConvert answers EXCEPTION for STRING -> INT). The bounded job must fail naming the table,
  the column and the change, commit nothing of the change's record or after it, and fail again
  at the same message when run again (as a Java job failing and restarting from its checkpoint).
- no_primary_key (the direct source): a table without a primary key must be refused naming it
  and the way out, before a slot or publication is made (as Java's postgres_sync_table refuses
  it). A source that took it instead would hand its snapshot rows out twice after a SIGKILL
  inside the snapshot: the case then kills the job there and compares Java's rows with
  PostgreSQL's as multisets (counts per row), which shows those repeats.
"""
import collections
import json
import os
import re
import signal
import subprocess
import time

from oracle_batch import OracleBatch


def run_bounded(run, job):
    return subprocess.run([run.fjord, "run", job, "--bounded"], cwd=run.work,
                          capture_output=True, text=True, timeout=180)


def error_line(r):
    """The error a failed `fjord run` printed (its last line naming an error)."""
    lines = [ln for ln in (r.stdout + r.stderr).splitlines() if "fjord:" in ln or "Error" in ln
             or "Invalid" in ln]
    return lines[-1] if lines else (r.stdout + r.stderr)[-500:]


def snapshots(path):
    folder = os.path.join(path, "snapshot")
    return sorted(n for n in os.listdir(folder) if n.startswith("snapshot-")) \
        if os.path.isdir(folder) else []


def cat_ids(run, path):
    r = subprocess.run([run.fjord, "cat", path, "--format", "jsonl"], capture_output=True,
                       text=True)
    if r.returncode != 0:
        return None
    return sorted(json.loads(line)["id"] for line in r.stdout.splitlines() if line.strip())


def incompatible_change(run, failures):
    pg = run.pg
    pg.sql("CREATE TABLE gauges (id int PRIMARY KEY, code text);"
           "ALTER TABLE gauges REPLICA IDENTITY FULL;"
           "INSERT INTO gauges VALUES (1, '10'), (2, '20')")
    topic = f"{run.name}.public.gauges"
    if run.direct:
        source = (f"source: {{type: postgres, port: {run.pg.port}, user: {run.pg.user},"
                  f" database: {run.pg.dbname}, tables: [gauges], slot: fjord_gauges,"
                  " publication: fjord_gauges}\n")
    else:
        run.dbz.wait_for({topic: 2}, timeout=120)
        source = (f"source: {{type: kafka, bootstrap-servers: \"{run.kafka.bootstrap}\","
                  f" topic: {topic}, format: debezium-json}}\n")
    job = os.path.join(run.work, "gauges.yaml")
    with open(job, "w") as f:
        f.write(source + "sink: {warehouse: wh, database: side, primary-key: [id]}\n"
                "pipeline: {name: gauges, checkpoint-interval: 200ms, state-dir: state-gauges}\n")
    table = os.path.join(run.work, "wh", "side.db", "gauges")
    r = run_bounded(run, job)
    if r.returncode != 0 or cat_ids(run, table) != [1, 2]:
        failures.append(f"gauges before the change: exit {r.returncode}, rows "
                        f"{cat_ids(run, table)}: {r.stdout[-1000:]} {r.stderr[-1000:]}")
        return
    # Row 3 before the change; the change's own transaction writes row 4; row 5 after it.
    pg.sql("INSERT INTO gauges VALUES (3, '30');"
           "BEGIN; ALTER TABLE gauges ALTER COLUMN code TYPE int USING code::int;"
           "INSERT INTO gauges VALUES (4, 40); COMMIT;"
           "INSERT INTO gauges VALUES (5, 50)")
    if run.dbz:
        run.dbz.wait_for({topic: 5}, timeout=120)
    errors = []
    for attempt in (1, 2):
        before = snapshots(table)
        r = run_bounded(run, job)
        errors.append(error_line(r))
        ids = cat_ids(run, table)
        schema = subprocess.run([run.fjord, "schema", table], capture_output=True, text=True)
        code_type = {f["name"]: f["type"] for f in json.loads(schema.stdout)["fields"]}["code"]
        wanted = ("Cannot convert field code from type STRING to INT of Paimon table "
                  "side.gauges")
        if r.returncode == 0 or wanted not in errors[-1]:
            failures.append(f"gauges, run {attempt} after text -> int: exit {r.returncode}, "
                            f"wanted an error with '{wanted}': {errors[-1]}")
        elif ids is None or 4 in ids or 5 in ids or code_type != "STRING":
            failures.append(f"gauges, run {attempt} after text -> int: rows {ids}, code "
                            f"{code_type}: the change's record or a later one was committed")
        elif attempt == 2 and (snapshots(table) != before or errors[0] != errors[1]):
            failures.append(f"gauges, run 2: snapshots {before} -> {snapshots(table)}, error "
                            f"{errors[1]} (run 1: {errors[0]})")
    if not any(f.startswith("gauges") for f in failures):
        print(f"ok: text -> int fails the job twice at the same message ({errors[0].strip()}), "
              f"the table at rows {ids} and code STRING, nothing committed by the second run")


def no_primary_key(run, failures, rows=20000):
    pg = run.pg
    pg.sql("CREATE TABLE events (n int, body text);"
           f"INSERT INTO events SELECT g, 'event ' || g FROM generate_series(1, {rows}) g")
    job = os.path.join(run.work, "events.yaml")
    with open(job, "w") as f:
        f.write(f"source: {{type: postgres, port: {pg.port}, user: {pg.user},"
                f" database: {pg.dbname}, tables: [events], slot: fjord_events,"
                " publication: fjord_events, snapshot-fetch-rows: 100, batch-rows: 100}\n"
                "sink: {warehouse: wh, database: nopk}\n"
                "pipeline: {name: events, checkpoint-interval: 100ms, state-dir: state-events}\n")
    table = os.path.join(run.work, "wh", "nopk.db", "events")
    log_path = os.path.join(run.work, "events.log")
    wanted = "table public.events has no primary key"
    with open(log_path, "w") as log:
        # Held back (a pause after each batch of 100) so that a kill lands inside the snapshot.
        proc = subprocess.Popen([run.fjord, "run", job], cwd=run.work, stdout=log,
                                stderr=subprocess.STDOUT,
                                env=dict(os.environ, FJORD_TEST_SOURCE_DELAY_MS="20"))
        deadline = time.time() + 60
        while proc.poll() is None and time.time() < deadline:
            with open(log_path, errors="replace") as f:
                text = f.read()
            if re.search(r"checkpoint \d+: [1-9]\d* rows", text):
                break
            time.sleep(0.02)
        if proc.poll() is not None:
            with open(log_path, errors="replace") as f:
                text = f.read()
            slots = pg.sql("SELECT count(*) FROM pg_replication_slots WHERE slot_name = "
                           "'fjord_events' UNION ALL SELECT count(*) FROM pg_publication "
                           "WHERE pubname = 'fjord_events'")
            again = run_bounded(run, job)
            if proc.returncode == 0 or wanted not in text or "source.tables" not in text:
                failures.append(f"events (no primary key): exit {proc.returncode}, wanted an "
                                f"error with '{wanted}': {text[-1500:]}")
            elif slots != [("0",), ("0",)] or os.path.isdir(table):
                failures.append(f"events (no primary key) refused, but slot/publication "
                                f"{slots} or the table {os.path.isdir(table)} were made")
            elif again.returncode == 0 or wanted not in error_line(again):
                failures.append(f"events (no primary key), run again: exit {again.returncode}: "
                                f"{error_line(again)}")
            else:
                print(f"ok: a table without a primary key is refused before a slot is made, "
                      f"twice: {error_line(again).strip()}")
            return
        # Taken: killed inside its snapshot, then read to the end.
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    failures.append(f"events (no primary key): the job took the table (wanted '{wanted}')")
    r = run_bounded(run, job)
    if r.returncode != 0:
        failures.append(f"events: bounded run failed: {error_line(r)}")
        return
    want = collections.Counter((int(n), b) for n, b in pg.sql("SELECT n, body FROM events"))
    oracle = OracleBatch(run.work)
    try:
        with open(oracle.call("dump", table)) as f:
            got = collections.Counter((row["n"], row["body"]) for row in
                                      (json.loads(line) for line in f if line.strip()))
    finally:
        oracle.close()
    if got != want:
        repeats = sum((got - want).values())
        failures.append(f"events: Java reads {sum(got.values())} rows, PostgreSQL holds "
                        f"{sum(want.values())}: {repeats} repeated, {sum((want - got).values())} "
                        f"missing, e.g. {sorted((got - want).items())[:3]}")
