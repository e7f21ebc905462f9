#!/usr/bin/env python3
"""Exactly-once of `fjord run` under SIGKILL (issue 16 points 4 and 5).

Five streaming jobs read a `files` source that a producer keeps growing (new files, and files
appended to in pieces that split lines): into a bucket-unaware append table, a fixed-bucket
append table, a primary-key aggregation table (sum), the same written write-only beside
`fjord compact --follow`, and the same with dynamic buckets. The jobs are killed with SIGKILL at
random moments (checkpoints every 50-300 ms, so kills land mid-checkpoint too; some runs widen
the gap between the persisted checkpoint and its commit so that a kill there leaves committables
to re-commit), stopped with SIGTERM now and then, and restarted; once one job resumes from the
table alone (its state directory deleted). Some runs inject faults (FJORD_TEST_FAULT_RATE):
writes of the table and checkpoints of the state directory fail at random. At the end each job
runs --bounded, and `fjord cat` must show every source row exactly once in the append tables and
the exact sums in the aggregation tables. Prints the counts of kills, restores, re-commits and
rows checked.

    runtime_kill_test.py --fjord BUILD/tools/fjord [--seconds 40] [--seed 16]
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

GROUPS = 41


def table_dir(fjord, work, name, columns):
    """work/name with an empty `in/` and a bucket-unaware append table wh/db.db/t of `columns`."""
    base = os.path.join(work, name)
    os.makedirs(os.path.join(base, "in"))
    subprocess.run([fjord, "db", "create", os.path.join(base, "wh"), "db"], check=True,
                   capture_output=True)
    subprocess.run([fjord, "table", "create", os.path.join(base, "wh"), "db.t", "--columns",
                    columns, "-o", "bucket=-1"], check=True, capture_output=True)
    return base


def ids_job(fjord, work, name, count):
    """table_dir(name) with in/a.jsonl holding ids 0..count-1 and job.yaml reading it into the
    table (checkpoints only at the end); returns (base, job file)."""
    base = table_dir(fjord, work, name, "id BIGINT")
    with open(os.path.join(base, "in", "a.jsonl"), "w") as f:
        f.write("".join(json.dumps({"id": i}) + "\n" for i in range(count)))
    job = os.path.join(base, "job.yaml")
    with open(job, "w") as f:
        f.write("source: {type: files, path: in, format: jsonl}\nsink: {table: wh/db.db/t}\n"
                "pipeline: {checkpoint-interval: 1h, state-dir: state}\n")
    return base, job


def check_stale_state_and_timeout(fjord, work, failures):
    """An older copy of the state directory is refused (its position is before committed rows);
    a checkpoint slower than checkpoint-timeout fails the run, and the next run is exact."""
    base = table_dir(fjord, work, "stale", "id BIGINT")
    job = os.path.join(base, "job.yaml")
    with open(job, "w") as f:
        f.write("source: {type: files, path: in}\nsink: {table: wh/db.db/t}\n"
                "pipeline: {checkpoint-interval: 1h, checkpoint-timeout: 300ms, state-dir: state}\n")

    def add(name, ids):
        with open(os.path.join(base, "in", name), "w") as f:
            f.write("".join(json.dumps({"id": i}) + "\n" for i in ids))

    def bounded(env=None):
        return subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True,
                              text=True, env=dict(os.environ, **(env or {})))

    add("a.jsonl", range(0, 50))
    bounded()
    subprocess.run(["cp", "-r", os.path.join(base, "state"), os.path.join(base, "old")],
                   check=True)
    add("b.jsonl", range(50, 100))
    bounded()
    slow = bounded({"FJORD_TEST_COMMIT_DELAY_MS": "1500"})
    if slow.returncode != 1 or "timed out" not in slow.stderr:
        failures.append(f"timeout: a slow checkpoint gave {slow.returncode}: {slow.stderr}")
    else:
        print("ok: a checkpoint slower than checkpoint-timeout fails the run")
    subprocess.run(["rm", "-rf", os.path.join(base, "state")], check=True)
    os.rename(os.path.join(base, "old"), os.path.join(base, "state"))
    r = bounded()
    if r.returncode != 1 or "is stale" not in r.stderr:
        failures.append(f"stale: an old state-dir gave {r.returncode}: {r.stdout} {r.stderr}")
    else:
        print("ok: an older copy of the state directory is refused")
    subprocess.run(["rm", "-rf", os.path.join(base, "state")], check=True)
    add("c.jsonl", range(100, 150))
    r = bounded()
    out = subprocess.run([fjord, "cat", os.path.join(base, "wh", "db.db", "t")],
                         capture_output=True, text=True).stdout
    ids = sorted(json.loads(l)["id"] for l in out.splitlines() if l.strip())
    if r.returncode != 0 or ids != list(range(150)):
        failures.append(f"stale: resuming from the table gave {r.returncode}, {len(ids)} rows")
    else:
        print("ok: after both, the job resumes from the table alone and holds 150 rows once")


def check_dead_letter(fjord, work, failures):
    """source.on-error: dead-letter: a record that does not fit goes to the dead-letter file with
    its file, line and error, the others to the table; a second run adds nothing twice."""
    base = table_dir(fjord, work, "dead", "id BIGINT, v INT")
    job = os.path.join(base, "job.yaml")
    with open(job, "w") as f:
        f.write("source: {type: files, path: in, on-error: dead-letter}\n"
                "sink: {table: wh/db.db/t}\npipeline: {state-dir: state}\n")
    with open(os.path.join(base, "in", "a.jsonl"), "w") as f:
        f.write('{"id": 1, "v": 1}\n{"id": 2, "v": "two"}\n{"id": 3, "v": 3}\n')
    for _ in range(2):
        subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True)
    with open(os.path.join(base, "in", "b.jsonl"), "w") as f:
        f.write('{"id": 4, "v": 99999999999}\n{"id": 5, "v": 5}\n')
    r = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True, text=True)
    out = subprocess.run([fjord, "cat", os.path.join(base, "wh", "db.db", "t")],
                         capture_output=True, text=True).stdout
    ids = sorted(json.loads(l)["id"] for l in out.splitlines() if l.strip())
    with open(os.path.join(base, "state", "dead-letter.jsonl")) as f:
        dead = [json.loads(l) for l in f if l.strip()]
    where = [(os.path.basename(d["file"]), d["line"], "'v'" in d["error"]) for d in dead]
    if r.returncode != 0 or ids != [1, 3, 5] or where != [("a.jsonl", 2, True),
                                                          ("b.jsonl", 1, True)]:
        failures.append(f"dead letter: exit {r.returncode}, rows {ids}, dead letters {dead}")
    else:
        print("ok: records that do not fit go to the dead-letter file once, naming file, line "
              "and column")


def check_metrics(fjord, work, failures):
    """`pipeline.metrics-port`: GET /metrics answers Prometheus text while the job runs, with the
    table's LSM per bucket. The job is write-only, so level-0 files pile up (one per bucket and
    checkpoint) and no compaction runs."""
    from metrics_scrape import free_port, named, scrape
    base = os.path.join(work, "metrics")
    os.makedirs(base)
    subprocess.run([fjord, "db", "create", os.path.join(base, "wh"), "db"], check=True,
                   capture_output=True)
    subprocess.run([fjord, "table", "create", os.path.join(base, "wh"), "db.t", "--columns",
                    "k INT NOT NULL, v BIGINT", "--primary-key", "k", "-o", "bucket=2"],
                   check=True, capture_output=True)
    port = free_port()
    with open(os.path.join(base, "job.yaml"), "w") as f:
        f.write("source: {type: datagen, rows-per-second: 2000, key-range: 50, update-ratio: 0.5}\n"
                "sink: {table: wh/db.db/t, options: {write-only: 'true'}}\n"
                f"pipeline: {{parallelism: 2, checkpoint-interval: 100ms, state-dir: state, "
                f"metrics-port: {port}}}\n")
    p = subprocess.Popen([fjord, "run", "job.yaml"], cwd=base, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, text=True)
    values = {}
    try:
        for _ in range(100):
            time.sleep(0.1)
            values = scrape(port) or values
            if min(named(values, "fjord_job_bucket_level0_files").values() or [0]) >= 3:
                break
    finally:
        p.send_signal(signal.SIGTERM)
        rc = p.wait(timeout=60)
    level0 = named(values, "fjord_job_bucket_level0_files")
    runs = named(values, "fjord_job_bucket_sorted_runs")
    want = {'{job="job",partition="",bucket="0"}', '{job="job",partition="",bucket="1"}'}
    if rc != 0 or values.get('fjord_job_checkpoints_completed_total{job="job"}', 0) < 2 or \
            values.get('fjord_job_records_in_total{job="job"}', 0) <= 0 or \
            'fjord_job_checkpoint_duration_seconds_sum{job="job"}' not in values or \
            set(level0) != want or min(level0.values()) < 3 or runs != level0 or \
            values.get('fjord_job_compactions_total{job="job"}') != 0 or \
            values.get('fjord_job_table_snapshots{job="job"}', 0) < 2 or \
            'fjord_job_write_stalls_total{job="job"}' not in values:
        failures.append(f"metrics: exit {rc}, {values}, {p.stderr.read()}")
    else:
        checkpoints = values['fjord_job_checkpoints_completed_total{job="job"}']
        snapshots = values['fjord_job_table_snapshots{job="job"}']
        print(f"ok: /metrics serves {len(values)} series (checkpoints {checkpoints:.0f}, level-0 "
              f"files per bucket {sorted(level0.values())} with write-only, table snapshots "
              f"{snapshots:.0f})")


def check_expired_snapshots_not_recommitted(fjord, work, failures):
    """A job stopped after its last checkpoint's commit, then every snapshot of its commit user
    expired (another writer kept committing): the restart must not commit that checkpoint again
    (the table can no longer tell; state-dir's `committed` can)."""
    base, job = ids_job(fjord, work, "expired", 50)
    table = os.path.join(base, "wh", "db.db", "t")
    first = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True,
                           text=True)
    other = os.path.join(base, "other.jsonl")
    for i in range(3):
        with open(other, "w") as f:
            f.write(json.dumps({"id": 1000 + i}) + "\n")
        subprocess.run([fjord, "write", table, "--input", other, "--format", "jsonl"], check=True,
                       capture_output=True)
    subprocess.run([fjord, "expire", table, "--retain-min", "1", "--retain-max", "1"],
                   check=True, capture_output=True)
    again = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True,
                           text=True)
    out = subprocess.run([fjord, "cat", table], capture_output=True, text=True).stdout
    ids = sorted(json.loads(l)["id"] for l in out.splitlines() if l.strip())
    if first.returncode != 0 or again.returncode != 0 or \
            ids != list(range(50)) + [1000, 1001, 1002]:
        failures.append(f"expired snapshots: exits {first.returncode} {again.returncode}, "
                        f"{len(ids)} rows: {again.stdout} {again.stderr}")
    else:
        print("ok: a checkpoint committed before all of the job's snapshots expired is not "
              "committed again at the restart")


def check_missing_files_refused(fjord, work, failures):
    """A checkpoint persisted but not committed whose data file is gone: the restart refuses to
    commit a snapshot naming it, with an error naming the file; nothing is committed."""
    base, job = ids_job(fjord, work, "gone", 100)
    env = dict(os.environ, FJORD_TEST_COMMIT_DELAY_MS="20000")
    p = subprocess.Popen([fjord, "run", job, "--bounded"], cwd=base, env=env,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    checkpoint = os.path.join(base, "state", "checkpoints", "checkpoint-1")
    for _ in range(500):
        if os.path.exists(checkpoint):
            break
        time.sleep(0.02)
    p.kill()
    p.wait()
    table = os.path.join(base, "wh", "db.db", "t")
    data = [os.path.join(d, f) for d, _, fs in os.walk(table) for f in fs
            if f.startswith("data-")]
    if not os.path.exists(checkpoint) or not data or os.path.exists(
            os.path.join(table, "snapshot", "snapshot-1")):
        failures.append("gone: the checkpoint was not left uncommitted")
        return
    os.remove(data[0])
    r = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True, text=True)
    name = os.path.basename(data[0])
    if r.returncode != 1 or name not in r.stderr or "is gone" not in r.stderr or \
            os.path.exists(os.path.join(table, "snapshot", "snapshot-1")):
        failures.append(f"gone: restart with a missing file gave {r.returncode}: {r.stderr}")
    else:
        print(f"ok: a checkpointed commit whose file is gone is refused naming {name}")


def check_partial_checkpoint_completed(fjord, work, failures):
    """A checkpoint whose APPEND snapshot landed but whose COMPACT snapshot did not (the process
    died between the two) gets its compaction committed at the restart, under its checkpoint id:
    later checkpoints of the same writers were prepared on top of it. Made here by removing the
    COMPACT snapshot of a job whose every checkpoint runs a full compaction, and the state's
    `committed` marker."""
    base = os.path.join(work, "partial")
    os.makedirs(os.path.join(base, "in"))
    wh = os.path.join(base, "wh")
    subprocess.run([fjord, "db", "create", wh, "db"], check=True, capture_output=True)
    subprocess.run([fjord, "table", "create", wh, "db.t", "--columns", "g INT NOT NULL, v BIGINT",
                    "--primary-key", "g", "-o", "bucket=1", "-o", "merge-engine=aggregation",
                    "-o", "fields.v.aggregate-function=sum", "-o", "full-compaction.delta-commits=1"],
                   check=True, capture_output=True)
    with open(os.path.join(base, "in", "a.jsonl"), "w") as f:
        f.write("".join(json.dumps({"g": i % 5, "v": i}) + "\n" for i in range(20)))
    job = os.path.join(base, "job.yaml")
    with open(job, "w") as f:
        f.write("source: {type: files, path: in, format: jsonl}\nsink: {table: wh/db.db/t}\n"
                "pipeline: {checkpoint-interval: 1h, state-dir: state}\n")
    table = os.path.join(wh, "db.db", "t")

    def kinds():
        out = subprocess.run([fjord, "snapshots", table], capture_output=True, text=True).stdout
        return [tuple(l.split()[2:3] + l.split()[6:7]) for l in out.splitlines()[1:] if l.strip()]

    first = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True,
                           text=True)
    if first.returncode != 0 or kinds() != [("APPEND", "1"), ("COMPACT", "1")]:
        failures.append(f"partial: the first run gave {first.returncode}, snapshots {kinds()}: "
                        f"{first.stdout} {first.stderr}")
        return
    os.remove(os.path.join(table, "snapshot", "snapshot-2"))
    with open(os.path.join(table, "snapshot", "LATEST"), "w") as f:
        f.write("1")
    os.remove(os.path.join(base, "state", "committed"))
    again = subprocess.run([fjord, "run", job, "--bounded"], cwd=base, capture_output=True,
                           text=True)
    files = subprocess.run([fjord, "files", table], capture_output=True, text=True).stdout
    levels = [l.split()[2] for l in files.splitlines() if "data-" in l]
    out = subprocess.run([fjord, "cat", table], capture_output=True, text=True).stdout
    sums = {json.loads(l)["g"]: json.loads(l)["v"] for l in out.splitlines() if l.strip()}
    want = {g: sum(i for i in range(20) if i % 5 == g) for g in range(5)}
    if again.returncode != 0 or "1 pending: 1 re-committed, 0 already committed" not in \
            again.stdout or kinds() != [("APPEND", "1"), ("COMPACT", "1"), ("APPEND", "2")] or \
            levels != ["5"] or sums != want:
        failures.append(f"partial: the restart gave {again.returncode}, snapshots {kinds()}, "
                        f"levels {levels}, sums {sums}: {again.stdout} {again.stderr}")
    else:
        print("ok: a checkpoint whose COMPACT snapshot was lost gets it at the restart")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--seconds", type=float, default=40)
    ap.add_argument("--seed", type=int, default=16)
    ap.add_argument("--rows-per-file", type=int, default=400)
    ap.add_argument("--java", action="store_true",
                    help="also read the tables with Java Paimon (one fjord-oracle JVM)")
    args = ap.parse_args()
    rnd = random.Random(args.seed)
    fjord = os.path.abspath(args.fjord)
    failures = []

    def run(*a, ok=True):
        p = subprocess.run([fjord, *a], capture_output=True, text=True)
        if ok and p.returncode != 0:
            sys.exit(f"fjord {' '.join(a)} failed:\n{p.stdout}\n{p.stderr}")
        return p

    with tempfile.TemporaryDirectory(prefix="fjord-runtime-kill-") as work:
        wh = os.path.join(work, "wh")
        src = os.path.join(work, "in")
        os.makedirs(src)
        run("db", "create", wh, "db")
        run("table", "create", wh, "db.app", "--columns", "id BIGINT, g INT, v BIGINT",
            "-o", "bucket=-1")
        run("table", "create", wh, "db.fixed", "--columns", "id BIGINT, g INT, v BIGINT",
            "-o", "bucket=3", "-o", "bucket-key=id")
        run("table", "create", wh, "db.agg", "--columns", "id BIGINT, g INT NOT NULL, v BIGINT",
            "--primary-key", "g", "-o", "bucket=4", "-o", "merge-engine=aggregation",
            "-o", "fields.v.aggregate-function=sum", "-o", "num-sorted-run.compaction-trigger=3")
        # The same written with write-only = true, compacted by `fjord compact --follow` beside it.
        run("table", "create", wh, "db.aggw", "--columns", "id BIGINT, g INT NOT NULL, v BIGINT",
            "--primary-key", "g", "-o", "bucket=4", "-o", "merge-engine=aggregation",
            "-o", "fields.v.aggregate-function=sum", "-o", "num-sorted-run.compaction-trigger=3")
        # Dynamic buckets (bucket = -1 with a primary key): the job's one key-to-bucket assigner
        # spreads the 41 groups over 6 buckets of at most 8 keys; a key assigned twice would show
        # as two rows of its group.
        run("table", "create", wh, "db.dyn", "--columns", "id BIGINT, g INT NOT NULL, v BIGINT",
            "--primary-key", "g", "-o", "bucket=-1", "-o", "dynamic-bucket.target-row-num=8",
            "-o", "merge-engine=aggregation", "-o", "fields.v.aggregate-function=sum")
        check_missing_files_refused(fjord, work, failures)
        check_partial_checkpoint_completed(fjord, work, failures)
        check_expired_snapshots_not_recommitted(fjord, work, failures)
        check_stale_state_and_timeout(fjord, work, failures)
        check_metrics(fjord, work, failures)
        check_dead_letter(fjord, work, failures)
        jobs = {}
        for name, parallelism in (("app", 2), ("fixed", 2), ("agg", 2), ("aggw", 2),
                                  ("dyn", 2)):
            path = os.path.join(work, f"{name}.yaml")
            interval = rnd.choice([50, 100, 300])
            sink_options = ", options: {write-only: 'true'}" if name == "aggw" else ""
            with open(path, "w") as f:
                f.write(f"source: {{type: files, path: in, format: jsonl, batch-rows: 97,"
                        f" poll-interval: 20ms}}\n"
                        f"sink: {{table: wh/db.db/{name}{sink_options}}}\n"
                        f"pipeline: {{parallelism: {parallelism}, checkpoint-interval:"
                        f" {interval}ms, state-dir: state-{name}}}\n")
            jobs[name] = {"yaml": path, "proc": None, "log": ""}

        # The producer: files in name order, each written in a few pieces cut anywhere.
        next_id = [0]
        file_no = [0]
        pending_text = [""]
        current = [None]

        def produce():
            if not pending_text[0]:
                rows = "".join(json.dumps({"id": i, "g": i % GROUPS, "v": i * 7 - 3}) + "\n"
                               for i in range(next_id[0], next_id[0] + args.rows_per_file))
                next_id[0] += args.rows_per_file
                current[0] = os.path.join(src, f"part-{file_no[0]:05d}.jsonl")
                file_no[0] += 1
                pending_text[0] = rows
            cut = rnd.randint(1, len(pending_text[0]))
            with open(current[0], "a") as f:
                f.write(pending_text[0][:cut])
            pending_text[0] = pending_text[0][cut:]

        counts = {"kills": 0, "terms": 0, "starts": 0, "restores": 0, "recommitted": 0,
                  "already": 0, "table_resumes": 0, "fault_exits": 0, "commit_failures": 0,
                  "checkpoint_failures": 0,
                  "faulty_runs": 0}

        def start(name, delay=False, faults=False):
            env = dict(os.environ)
            if delay:
                env["FJORD_TEST_COMMIT_DELAY_MS"] = str(rnd.choice([30, 80]))
            if faults:
                env["FJORD_TEST_FAULT_RATE"] = "0.05"
                counts["faulty_runs"] += 1
            j = jobs[name]
            j["out"] = tempfile.TemporaryFile(mode="w+")
            j["proc"] = subprocess.Popen([fjord, "run", j["yaml"]], cwd=work, env=env,
                                         stdout=j["out"], stderr=subprocess.STDOUT, text=True)
            counts["starts"] += 1

        def collect(name):
            j = jobs[name]
            j["out"].seek(0)
            text = j["out"].read()
            j["out"].close()
            j["log"] += text
            for m in re.finditer(r"restored checkpoint \d+ \(\d+ pending: (\d+) re-committed, "
                                 r"(\d+) already committed\)", text):
                counts["restores"] += 1
                counts["recommitted"] += int(m.group(1))
                counts["already"] += int(m.group(2))
            counts["table_resumes"] += text.count("resuming job")
            counts["commit_failures"] += text.count("commit failed, kept pending")
            counts["checkpoint_failures"] += text.count("failed, its committables stay pending")
            return text

        def stop(name, sig):
            j = jobs[name]
            p = j["proc"]
            if p.poll() is not None:
                text = collect(name)
                if p.returncode == 1 and "injected fault" in text:
                    counts["fault_exits"] += 1  # a writer or restore hit an injected fault
                else:
                    failures.append(f"{name} exited early ({p.returncode}):\n{text[-2000:]}")
                j["proc"] = None
                return
            p.send_signal(sig)
            rc = p.wait(timeout=60)
            text = collect(name)
            if sig == signal.SIGTERM:
                counts["terms"] += 1
                if rc == 1 and "injected fault" in text:
                    counts["fault_exits"] += 1
                elif rc == -signal.SIGTERM and not text:
                    counts["kills"] += 1  # before main installed the handler: as a crash
                elif rc != 0 or "stopped after checkpoint" not in text:
                    failures.append(f"{name}: SIGTERM gave exit {rc}:\n{text[-2000:]}")
            else:
                counts["kills"] += 1
            j["proc"] = None

        compactor = {"proc": None, "kills": 0, "out": None, "log": ""}

        def start_compactor():
            compactor["out"] = tempfile.TemporaryFile(mode="w+")
            compactor["proc"] = subprocess.Popen(
                [fjord, "compact", os.path.join(wh, "db.db", "aggw"), "--follow",
                 "--interval-ms", "100"], stdout=compactor["out"], stderr=subprocess.STDOUT,
                text=True)

        def stop_compactor(sig):
            p = compactor["proc"]
            early = p.poll() is not None
            if not early:
                p.send_signal(sig)
            rc = p.wait(timeout=60)
            compactor["out"].seek(0)
            text = compactor["out"].read()
            compactor["out"].close()
            compactor["log"] += text
            if early or (sig == signal.SIGTERM and (rc != 0 or "stopped after" not in text)):
                failures.append(f"compact --follow: exit {rc}:\n{text[-2000:]}")
            if sig == signal.SIGKILL:
                compactor["kills"] += 1

        start_compactor()
        for name in jobs:
            start(name)
        deadline = time.time() + args.seconds
        table_resume_done = False
        while time.time() < deadline and not failures:
            for _ in range(rnd.randint(1, 4)):
                produce()
            time.sleep(rnd.uniform(0.02, 0.4))
            name = rnd.choice(list(jobs))
            sig = signal.SIGTERM if rnd.random() < 0.15 else signal.SIGKILL
            stop(name, sig)
            if (not table_resume_done and name == "app" and sig == signal.SIGKILL
                    and time.time() > deadline - args.seconds / 2):
                # Lost checkpoints (the commit user kept): the job resumes from its snapshots'
                # properties. (check_stale_state_and_timeout loses the whole directory.)
                subprocess.run(["rm", "-rf", os.path.join(work, "state-app", "checkpoints")],
                               check=True)
                table_resume_done = True
            start(name, delay=rnd.random() < 0.4, faults=rnd.random() < 0.3)
            if rnd.random() < 0.1:
                stop_compactor(signal.SIGKILL)
                start_compactor()
        for name in jobs:
            if jobs[name]["proc"] is not None:
                stop(name, signal.SIGKILL)
        time.sleep(0.5)  # the compactor's signal handler is installed by now
        stop_compactor(signal.SIGTERM)
        while pending_text[0]:
            produce()
        total = next_id[0]

        # The bounded runs consume the rest and stop with a final checkpoint.
        for name, j in jobs.items():
            p = subprocess.run([fjord, "run", j["yaml"], "--bounded"], cwd=work,
                               capture_output=True, text=True, timeout=120)
            j["log"] += p.stdout
            m = re.search(r"restored checkpoint \d+ \(\d+ pending: (\d+) re-committed, "
                          r"(\d+) already committed\)", p.stdout)
            if m:
                counts["restores"] += 1
                counts["recommitted"] += int(m.group(1))
                counts["already"] += int(m.group(2))
            if p.returncode != 0:
                failures.append(f"{name} --bounded failed:\n{p.stdout[-2000:]}\n{p.stderr}")

        def rows_of(table):
            out = run("cat", os.path.join(wh, "db.db", table), "--format", "jsonl").stdout
            return [json.loads(l) for l in out.splitlines() if l.strip()]

        checked = 0
        for table in ("app", "fixed"):
            ids = sorted(r["id"] for r in rows_of(table))
            checked += len(ids)
            if ids != list(range(total)):
                dup = len(ids) - len(set(ids))
                missing = len(set(range(total)) - set(ids))
                failures.append(f"{table}: {len(ids)} rows for {total} source rows "
                                f"({dup} duplicates, {missing} missing)")
            else:
                print(f"ok: {table} holds each of the {total} source rows exactly once")
        sums = {}
        for i in range(total):
            sums[i % GROUPS] = sums.get(i % GROUPS, 0) + i * 7 - 3
        for table in ("agg", "aggw", "dyn"):
            rows = rows_of(table)
            agg = {r["g"]: r["v"] for r in rows}
            checked += len(agg)
            if agg != sums or len(rows) != len(sums):
                bad = [g for g in sums if agg.get(g) != sums[g]]
                failures.append(f"{table}: wrong sums for groups {bad[:5]}, {len(rows)} rows")
            else:
                print(f"ok: {table} holds the exact sums of {GROUPS} groups over {total} rows")
        snaps = run("snapshots", os.path.join(wh, "db.db", "aggw")).stdout
        compacts = snaps.count("COMPACT")
        live = len([l for l in run("files", os.path.join(wh, "db.db", "aggw")).stdout.splitlines()
                    if "data-" in l])
        if compacts == 0:
            failures.append("aggw: fjord compact --follow made no COMPACT snapshot")
        else:
            print(f"ok: beside the write-only job, compact --follow made {compacts} COMPACT "
                  f"snapshots ({compactor['kills']} SIGKILLs of it, "
                  f"{compactor['log'].count('conflict, retried')} conflicts); {live} live files")
        if counts["table_resumes"] == 0 and table_resume_done:
            failures.append("the job whose state-dir was deleted did not resume from the table")
        print(f"counts: {counts['kills']} SIGKILLs, {counts['terms']} SIGTERMs, "
              f"{counts['starts']} starts, {counts['restores']} restores from state-dir, "
              f"{counts['table_resumes']} from the table alone, {counts['recommitted']} "
              f"re-committed, {counts['already']} found already committed, "
              f"{counts['faulty_runs']} runs with injected write faults ("
              f"{counts['commit_failures']} commits failed and kept pending, "
              f"{counts['checkpoint_failures']} checkpoints failed, "
              f"{counts['fault_exits']} runs failed), {checked} rows checked, "
              f"{total} source rows")
        if args.java:
            # The same checks on what Java Paimon reads (fjord-oracle dump, one JVM).
            sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "compat"))
            from oracle_batch import OracleBatch
            oracle = OracleBatch(work)
            try:
                def java_rows(table):
                    out = oracle.call("dump", os.path.join(wh, "db.db", table))
                    with open(out) as f:
                        return [json.loads(l) for l in f if l.strip()]
                for table in ("app", "fixed"):
                    ids = sorted(r["id"] for r in java_rows(table))
                    if ids != list(range(total)):
                        failures.append(f"Java reads {len(ids)} rows of {table} for {total}")
                    else:
                        print(f"ok: Java reads each of the {total} rows of {table} exactly once")
                for table in ("agg", "aggw", "dyn"):
                    rows = java_rows(table)
                    java_agg = {r["g"]: r["v"] for r in rows}
                    if java_agg != sums or len(rows) != len(sums):
                        failures.append(f"Java reads other sums from {table}")
                    else:
                        print(f"ok: Java reads the exact sums from {table}")
            finally:
                oracle.close()
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
