"""Side cases of the PostgreSQL CDC tests (cdc_postgres_test.py), each a job of its own on the
suite's PostgreSQL (and broker) once the main workload is checked:

- incompatible_change: a column changed in a way Java's CDC sink refuses (text -> int: its
  canConvert answers EXCEPTION for STRING -> INT). The bounded job must fail naming the table,
  the column and the change, commit nothing of the change's record or after it, and fail again
  at the same message when run again (as a Java job failing and restarting from its checkpoint).
"""
import json
import os
import subprocess


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
