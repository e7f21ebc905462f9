#!/usr/bin/env python3
"""The kafka source of `fjord run` against a real broker (issue 16 point 2).

One Apache Kafka broker (tests/kafka/broker.py: Kafka's own jars, KRaft mode, loopback) serves
every check. First the refusals: a message that does not fit the table stops a --bounded run
naming its topic, partition and offset; with on-error: dead-letter it goes to the dead-letter
file with those fields and the other messages to the table; the same for debezium-json messages
a CDC job refuses (malformed, an unknown op, not JSON); a topic that does not exist is an
error. Then the exactly-once run: a producer keeps writing to a topic of 3 partitions (grown to 4
half way, so the jobs must pick up a new partition) while two jobs consume it, one into a
bucket-unaware append table (copying its offsets to a consumer group), one into a primary-key
aggregation table (sums); both are killed with SIGKILL at random moments (sometimes stopped with
SIGTERM) and restarted; at the end each runs --bounded. `fjord cat` must show every message
exactly once in the append table and exact sums and counts in the aggregation table. Prints the
counts of kills, restores and messages.

    runtime_kafka_test.py --fjord BUILD/tools/fjord --produce BUILD/tests/fjord_kafka_produce
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
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from broker import Broker  # noqa: E402
from metrics_scrape import free_port, named, scrape  # noqa: E402

GROUPS = 41


def kafka_millis(text):
    """Epoch milliseconds of a TIMESTAMP_LTZ(3) as `fjord cat` prints it."""
    import datetime
    t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00").replace(" ", "T"))
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return round(t.timestamp() * 1000)


def dead_letters(work, job):
    """The dead letters `fjord run` wrote for `job` under `work`, none if it wrote no file."""
    path = os.path.join(work, "state", job, "dead-letter.jsonl")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--produce", required=True)
    ap.add_argument("--seconds", type=float, default=25)
    ap.add_argument("--seed", type=int, default=16)
    args = ap.parse_args()
    fjord, produce = os.path.abspath(args.fjord), os.path.abspath(args.produce)
    rnd = random.Random(args.seed)
    failures = []
    started = time.time()

    def run(*a, ok=True, cwd=None):
        p = subprocess.run([fjord, *a], capture_output=True, text=True, cwd=cwd)
        if ok and p.returncode != 0:
            sys.exit(f"fjord {' '.join(a)} failed:\n{p.stdout}\n{p.stderr}")
        return p

    def cat(table):
        out = run("cat", table).stdout
        return [json.loads(line) for line in out.splitlines() if line.strip()]

    with tempfile.TemporaryDirectory(prefix="fjord-runtime-kafka-") as work, Broker(work) as kafka:
        print(f"broker up at {kafka.bootstrap} after {time.time() - started:.1f}s")

        def admin(op, topic, partitions):
            for _ in range(60):  # the broker may still be electing its controller
                p = subprocess.run([produce, kafka.bootstrap, op, topic, str(partitions)],
                                   capture_output=True, text=True)
                if p.returncode == 0:
                    return
                time.sleep(0.5)
            sys.exit(f"{op} {topic}: {p.stderr}")

        def send(topic, lines):
            text = "".join(f"{part}\t{json.dumps(v)}\n" for part, v in lines)
            subprocess.run([produce, kafka.bootstrap, "produce", topic], input=text, check=True,
                           capture_output=True, text=True)

        def send_raw(topic, lines):
            text = "".join(f"{part}\t{value}\n" for part, value in lines)
            subprocess.run([produce, kafka.bootstrap, "produce", topic], input=text, check=True,
                           capture_output=True, text=True)

        wh = os.path.join(work, "wh")
        run("db", "create", wh, "db")
        cols = "id BIGINT, g INT, v BIGINT, n BIGINT"
        run("table", "create", wh, "db.bad", "--columns", cols, "-o", "bucket=-1")
        run("table", "create", wh, "db.letters", "--columns", cols, "-o", "bucket=-1")
        run("table", "create", wh, "db.app", "--columns", cols, "-o", "bucket=-1")
        run("table", "create", wh, "db.agg", "--columns", "id BIGINT, g INT NOT NULL, v BIGINT, "
            "n BIGINT", "--primary-key", "g", "-o", "bucket=2", "-o", "merge-engine=aggregation",
            "-o", "fields.v.aggregate-function=sum", "-o", "fields.n.aggregate-function=sum")

        def job(name, table, topic, extra="", pipeline=""):
            path = os.path.join(work, name + ".yaml")
            with open(path, "w") as f:
                f.write(f"source: {{type: kafka, bootstrap-servers: '{kafka.bootstrap}', "
                        f"topic: {topic}{extra}}}\nsink: {{table: wh/db.db/{table}}}\n"
                        f"pipeline: {{state-dir: state/{name}{pipeline}}}\n")
            return path

        # --- refusals --------------------------------------------------------------------------
        admin("create", "bad", 1)
        send("bad", [(0, {"id": 1, "g": 1, "v": 1, "n": 1}), (0, {"id": "x", "g": 1}),
                     (0, {"id": 3, "g": 1, "v": 3, "n": 1})])
        r = run("run", job("bad", "bad", "bad"), "--bounded", ok=False, cwd=work)
        if r.returncode != 1 or "kafka topic bad partition 0 offset 1" not in r.stderr:
            failures.append(f"a bad message gave {r.returncode}: {r.stdout} {r.stderr}")
        else:
            print("ok: a message that does not fit stops the job naming topic, partition, offset")
        r = run("run", job("letters", "letters", "bad", ", on-error: dead-letter"), "--bounded",
                ok=False, cwd=work)
        letters = dead_letters(work, "letters")
        ids = sorted(row["id"] for row in cat(os.path.join(wh, "db.db", "letters")))
        if (r.returncode != 0 or ids != [1, 3] or len(letters) != 1
                or (letters[0]["topic"], letters[0]["partition"], letters[0]["offset"])
                != ("bad", 0, 1)):
            failures.append(f"dead-letter: exit {r.returncode}, rows {ids}, letters {letters}: "
                            f"{r.stderr}")
        else:
            print("ok: with on-error: dead-letter the message goes to the dead-letter file "
                  "with topic, partition and offset")
        r = run("run", job("nope", "bad", "nope"), "--bounded", ok=False, cwd=work)
        if r.returncode != 1 or "topic 'nope'" not in r.stderr:
            failures.append(f"a missing topic gave {r.returncode}: {r.stderr}")
        else:
            print("ok: a topic that does not exist is an error")

        # --- CDC refusals: debezium-json messages the format refuses ---------------------------
        # Table sync from Debezium payloads (no schema envelope): a malformed message (an update
        # without 'before'), an unknown op and a message that is not JSON. on-error: fail stops
        # the run at the first naming topic, partition and offset, and nothing after it reaches
        # the table (a second run fails at the same offset); dead-letter writes each to the
        # dead-letter file with those fields and applies the changes around them.
        def dbz(op, before, after):
            return json.dumps({"before": before, "after": after, "op": op, "ts_ms": 1,
                               "source": {"db": "shop", "table": "t"}})

        cdc_messages = [
            dbz("c", None, {"id": 1, "v": "a"}),                       # 0
            dbz("c", None, {"id": 2, "v": "b"}),                       # 1
            json.dumps({"after": {"id": 3, "v": "c"}, "op": "u",       # 2: no 'before'
                        "source": {"db": "shop", "table": "t"}}),
            dbz("c", None, {"id": 4, "v": "d"}),                       # 3
            dbz("x", None, {"id": 5, "v": "e"}),                       # 4: unknown op
            dbz("c", None, {"id": 6, "v": "f"}),                       # 5
            '{"before": null, "after": {"id": 7',                      # 6: not JSON
            dbz("u", {"id": 1, "v": "a"}, {"id": 1, "v": "a2"}),       # 7
            dbz("d", {"id": 2, "v": "b"}, None),                       # 8
        ]
        admin("create", "cdcbad", 1)
        admin("create", "cdcop", 1)
        send_raw("cdcbad", [(0, m) for m in cdc_messages])
        send_raw("cdcop", [(0, cdc_messages[0]), (0, cdc_messages[4]), (0, cdc_messages[5])])

        def cdc_job(name, topic, extra=""):
            path = os.path.join(work, name + ".yaml")
            with open(path, "w") as f:
                f.write(f"source: {{type: kafka, bootstrap-servers: '{kafka.bootstrap}', "
                        f"topic: {topic}, format: debezium-json, decode-threads: 2{extra}}}\n"
                        f"sink: {{table: wh/cdc.db/{name}, primary-key: [id]}}\n"
                        f"pipeline: {{state-dir: state/{name}}}\n")
            return path

        def cdc_rows(name):
            if not os.path.isdir(os.path.join(wh, "cdc.db", name)):
                return {}
            return {row["id"]: row["v"] for row in cat(os.path.join(wh, "cdc.db", name))}

        for name, topic, offset, what in (("cdcfail", "cdcbad", 2, "missing 'before'"),
                                          ("cdcopfail", "cdcop", 1, "unknown record operation")):
            runs = [run("run", cdc_job(name, topic), "--bounded", ok=False, cwd=work)
                    for _ in range(2)]
            rows = cdc_rows(name)
            where = f"kafka topic {topic} partition 0 offset {offset}"
            allowed = {"1": "a", "2": "b"} if offset == 2 else {"1": "a"}
            if any(r.returncode != 1 or f"{where}: Invalid debezium-json format" not in r.stderr
                   or what not in r.stderr for r in runs) or \
                    any(allowed.get(k) != v for k, v in rows.items()):
                failures.append(f"cdc on-error fail ({topic}): exits "
                                f"{[r.returncode for r in runs]}, rows {rows}: "
                                f"{[r.stderr[-800:] for r in runs]}")
            else:
                print(f"ok: a debezium-json message refused ({what}) stops the job naming "
                      f"{where}; nothing after it committed ({len(rows)} rows before it)")
        r = run("run", cdc_job("cdcletters", "cdcbad", ", on-error: dead-letter"), "--bounded",
                ok=False, cwd=work)
        letters = dead_letters(work, "cdcletters")
        rows = cdc_rows("cdcletters")
        got = [(x["topic"], x["partition"], x["offset"], x["record"]) for x in letters]
        want = [("cdcbad", 0, i, cdc_messages[i]) for i in (2, 4, 6)]
        errors_named = len(letters) == 3 and all(
            f"kafka topic cdcbad partition 0 offset {x['offset']}: Invalid debezium-json format"
            in x["error"] for x in letters) and \
            "missing 'before'" in letters[0]["error"] and \
            "unknown record operation 'x'" in letters[1]["error"]
        if r.returncode != 0 or got != want or not errors_named or \
                rows != {"1": "a2", "4": "d", "6": "f"}:
            failures.append(f"cdc dead-letter: exit {r.returncode}, rows {rows}, letters "
                            f"{letters}: {r.stderr[-2000:]}")
        else:
            print("ok: with on-error: dead-letter the refused debezium-json messages go to the "
                  "dead-letter file (topic, partition, offset, error, message) and the job goes "
                  "on: updates and deletes after them applied")

        # A topic created a moment ago (its partition may not have a leader yet) is waited for.
        admin("create", "fresh", 1)
        run("table", "create", wh, "db.fresh", "--columns", cols, "-o", "bucket=-1")
        r = run("run", job("fresh", "fresh", "fresh"), "--bounded", ok=False, cwd=work)
        if r.returncode != 0:
            failures.append(f"a topic just created: exit {r.returncode}: {r.stderr}")
        else:
            print("ok: a job on a topic created a moment ago starts")

        # A CDC job with Java's Kafka metadata columns (prefixed): each row says where its
        # message was read; the offset is part of the key, so no two messages collapse.
        with open(os.path.join(work, "meta.yaml"), "w") as f:
            f.write(f"source: {{type: kafka, bootstrap-servers: '{kafka.bootstrap}', "
                    "topic: bad, format: json}\n"
                    "sink: {table: wh/cdc.db/meta, primary-key: [k_partition, k_offset],\n"
                    "       metadata-columns: [topic, partition, offset, timestamp, "
                    "timestamp_type],\n       metadata-column-prefix: k_}\n"
                    "pipeline: {state-dir: state/meta}\n")
        before_meta = int(time.time() * 1000)
        r = run("run", "meta.yaml", "--bounded", ok=False, cwd=work)
        rows = sorted(cat(os.path.join(wh, "cdc.db", "meta")), key=lambda row: row["k_offset"])
        got = [(row["id"], row["k_topic"], row["k_partition"], row["k_offset"],
                row["k_timestamp_type"]) for row in rows]
        want = [(v, "bad", 0, o, "CreateTime") for o, v in enumerate(["1", "x", "3"])]
        stamps_ok = all(started * 1000 - 60000 < kafka_millis(row["k_timestamp"]) <= before_meta
                        for row in rows)
        if r.returncode != 0 or got != want or not stamps_ok:
            failures.append(f"metadata columns: exit {r.returncode}, rows {rows}, want {want}: "
                            f"{r.stderr}")
        else:
            print("ok: Kafka metadata columns (topic, partition, offset, timestamp, "
                  "timestamp_type) fill each row")

        # start: latest is resolved once, at the first start, and then kept in the checkpoint.
        run("table", "create", wh, "db.late", "--columns", cols, "-o", "bucket=-1")
        late = job("late", "late", "bad", ", start: latest")
        r1 = run("run", late, "--bounded", ok=False, cwd=work)
        time.sleep(0.05)
        since = int(time.time() * 1000)
        send("bad", [(0, {"id": 4, "g": 1, "v": 4, "n": 1})])
        r2 = run("run", late, "--bounded", ok=False, cwd=work)
        ids = sorted(row["id"] for row in cat(os.path.join(wh, "db.db", "late")))
        if r1.returncode != 0 or r2.returncode != 0 or ids != [4]:
            failures.append(f"start: latest: exits {r1.returncode} {r2.returncode}, rows {ids}: "
                            f"{r1.stderr} {r2.stderr}")
        else:
            print("ok: start: latest skips what was there at the first start, and only that")
        run("table", "create", wh, "db.since", "--columns", cols, "-o", "bucket=-1")
        r = run("run", job("since", "since", "bad", f", start: 'timestamp:{since}'"), "--bounded",
                ok=False, cwd=work)
        ids = sorted(row["id"] for row in cat(os.path.join(wh, "db.db", "since")))
        if r.returncode != 0 or ids != [4]:
            failures.append(f"start: timestamp: exit {r.returncode}, rows {ids}: {r.stderr}")
        else:
            print("ok: start: timestamp:<ms> starts at the first message at or after it")

        # Messages deleted (retention) before a job's position: the run fails at the fetch naming
        # the partition, and no checkpoint moves past the gap while the source reports the
        # error; the next run fails the same way (nothing skipped), the table unchanged.
        admin("create", "gone", 1)
        send("gone", [(0, {"id": i, "g": 1, "v": 1, "n": 1}) for i in range(10)])
        run("table", "create", wh, "db.gone", "--columns", cols, "-o", "bucket=-1")
        gone = job("gone", "gone", "gone", pipeline=", checkpoint-interval: 100ms")
        r0 = run("run", gone, "--bounded", ok=False, cwd=work)
        send("gone", [(0, {"id": i, "g": 1, "v": 1, "n": 1}) for i in range(10, 20)])
        subprocess.run([produce, kafka.bootstrap, "truncate", "gone", "15"], check=True,
                       capture_output=True, text=True)
        runs = []
        for _ in range(2):
            p = subprocess.Popen([fjord, "run", gone], cwd=work, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
            try:
                out, err = p.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                p.kill()
                out, err = p.communicate()
            runs.append((p.returncode, out + err))
        ids = sorted(row["id"] for row in cat(os.path.join(wh, "db.db", "gone")))
        if r0.returncode != 0 or ids != list(range(10)) or any(
                rc != 1 or "kafka topic gone partition 0" not in text for rc, text in runs):
            failures.append(f"retention: first run {r0.returncode}, rows {ids}, then {runs}")
        else:
            print("ok: messages deleted before the position fail the run naming the partition, "
                  "twice (no checkpoint passed the gap): "
                  + runs[0][1].strip().splitlines()[-1])

        # --- source lag on /metrics ---------------------------------------------------------
        # 3,000 messages over 2 partitions, read 100 at a time with a pause after each batch
        # (test hook), so the job stays behind for a few seconds: the lag per partition is
        # reported while it does, never more than the partition holds, and 0 at the end.
        admin("create", "lagging", 2)
        send("lagging", [(i % 2, {"id": i, "g": 1, "v": 1, "n": 1}) for i in range(3000)])
        run("table", "create", wh, "db.lagging", "--columns", cols, "-o", "bucket=-1")
        port = free_port()
        env = dict(os.environ, FJORD_TEST_SOURCE_DELAY_MS="100")
        p = subprocess.Popen([fjord, "run", job("lagging", "lagging", "lagging", ", batch-rows: 100",
                                                f", metrics-port: {port}")],
                             cwd=work, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                             text=True)
        seen, last = [], {}
        try:
            for _ in range(300):
                time.sleep(0.1)
                values = scrape(port)
                if values is None:
                    continue
                last = values
                lag = named(values, "fjord_job_source_lag_records")
                if lag:
                    seen.append(lag)
                if values.get('fjord_job_records_in_total{job="lagging"}') == 3000 and lag and \
                        not any(lag.values()):
                    break
        finally:
            p.send_signal(signal.SIGTERM)
            rc = p.wait(timeout=60)
        parts = {'{job="lagging",topic="lagging",partition="0"}',
                 '{job="lagging",topic="lagging",partition="1"}'}
        behind = [sum(lag.values()) for lag in seen]
        if (rc != 0 or not seen or any(set(lag) != parts for lag in seen)
                or max(behind) <= 0 or any(v > 1500 for lag in seen for v in lag.values())
                or any(named(last, "fjord_job_source_lag_records").values())
                or last.get('fjord_job_records_in_total{job="lagging"}') != 3000):
            failures.append(f"lag: exit {rc}, lags seen {seen}, last {last}: {p.stderr.read()}")
        else:
            print(f"ok: /metrics reports the source lag per partition (up to {max(behind):.0f} "
                  f"messages behind, 0 at the end)")

        # --- exactly once under SIGKILL ----------------------------------------------------------
        admin("create", "events", 3)
        sent = {"n": 0, "partitions": 3, "error": None}
        producer = subprocess.Popen([produce, kafka.bootstrap, "produce", "events"],
                                    stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                    stderr=subprocess.PIPE, text=True)
        stop_producing = threading.Event()

        def feed():
            prnd = random.Random(args.seed + 1)
            grown = False
            begin = time.time()
            try:
                while not stop_producing.is_set():
                    if not grown and time.time() - begin > args.seconds / 2:
                        admin("grow", "events", 4)
                        sent["partitions"] = 4
                        grown = True
                    burst = []
                    for _ in range(prnd.randint(5, 60)):
                        i = sent["n"]
                        value = {"id": i, "g": i % GROUPS, "v": (i * 7919) % 1000 - 300, "n": 1}
                        burst.append(f"{prnd.randrange(sent['partitions'])}\t{json.dumps(value)}\n")
                        sent["n"] += 1
                    producer.stdin.write("".join(burst) + "\n")
                    producer.stdin.flush()
                    time.sleep(prnd.uniform(0.01, 0.08))
            except Exception as e:  # noqa: BLE001 - reported below
                sent["error"] = repr(e)

        feeder = threading.Thread(target=feed)
        feeder.start()
        jobs = {
            "app": {"yaml": job("app", "app", "events", ", group-id: fjord-app, "
                                "discovery-interval: 300ms, batch-rows: 200",
                                ", parallelism: 2, checkpoint-interval: 150ms")},
            "agg": {"yaml": job("agg", "agg", "events", ", discovery-interval: 300ms",
                                ", parallelism: 2, checkpoint-interval: 250ms")},
        }
        counts = {"kills": 0, "terms": 0, "starts": 0, "restores": 0, "table_resumes": 0,
                  "broker_restarts": 0}

        def start(name):
            j = jobs[name]
            j["out"] = tempfile.TemporaryFile(mode="w+")
            j["proc"] = subprocess.Popen([fjord, "run", j["yaml"]], cwd=work, stdout=j["out"],
                                         stderr=subprocess.STDOUT, text=True)
            j["until"] = time.time() + rnd.uniform(0.3, 2.5)
            counts["starts"] += 1

        def stop(name, sig):
            j = jobs[name]
            p = j["proc"]
            early = p.poll() is not None
            if not early:
                p.send_signal(sig)
            rc = p.wait(timeout=60)
            j["out"].seek(0)
            text = j["out"].read()
            j["out"].close()
            counts["restores"] += len(re.findall(r"restored checkpoint", text))
            counts["table_resumes"] += text.count("resuming job")
            if early:
                failures.append(f"{name} exited early ({rc}):\n{text[-2000:]}")
            elif sig == signal.SIGTERM:
                counts["terms"] += 1
                if rc == -signal.SIGTERM and not text:
                    counts["kills"] += 1  # before main installed its handler: as a crash
                elif rc != 0 or "stopped after checkpoint" not in text:
                    failures.append(f"{name}: SIGTERM gave exit {rc}:\n{text[-2000:]}")
            else:
                counts["kills"] += 1

        for name in jobs:
            start(name)
        deadline = time.time() + args.seconds
        lose_state_at = time.time() + args.seconds * 0.6
        restart_broker_at = time.time() + args.seconds * 0.35
        while time.time() < deadline and not failures:
            if restart_broker_at and time.time() > restart_broker_at:
                # The broker goes down for 2 s under the producer and the running jobs: they
                # must ride it out (librdkafka retries), no message lost or doubled.
                kafka.restart(down_seconds=2)
                restart_broker_at = None
                counts["broker_restarts"] += 1
            for name, j in jobs.items():
                if j["proc"].poll() is not None or time.time() >= j["until"]:
                    stop(name, signal.SIGTERM if rnd.random() < 0.2 else signal.SIGKILL)
                    if name == "agg" and lose_state_at and time.time() > lose_state_at:
                        # The state directory lost: resume from the snapshot's offsets alone.
                        subprocess.run(["rm", "-rf", os.path.join(work, "state", "agg")],
                                       check=True)
                        lose_state_at = None
                    start(name)
            time.sleep(0.05)
        stop_producing.set()
        feeder.join()
        try:
            producer.stdin.close()
        except BrokenPipeError:
            pass
        if producer.wait(timeout=60) != 0 or sent["error"]:
            sys.exit(f"the producer failed: {sent['error']} {producer.stderr.read()}")
        for name in jobs:
            stop(name, signal.SIGKILL)
        for name, j in jobs.items():
            r = subprocess.run([fjord, "run", j["yaml"], "--bounded"], cwd=work,
                               capture_output=True, text=True)
            counts["restores"] += len(re.findall(r"restored checkpoint", r.stdout + r.stderr))
            if r.returncode != 0:
                failures.append(f"{name} --bounded exit {r.returncode}:\n{r.stderr[-2000:]}")

        if counts["broker_restarts"] != 1:
            failures.append("the broker was not restarted during the run")
        if counts["table_resumes"] != 1:
            failures.append(f"agg resumed from the table {counts['table_resumes']} times, not once")
        n = sent["n"]
        ids = sorted(row["id"] for row in cat(os.path.join(wh, "db.db", "app")))
        if ids != list(range(n)):
            dup = len(ids) - len(set(ids))
            failures.append(f"app: {len(ids)} rows for {n} messages ({dup} twice, "
                            f"{len(set(range(n)) - set(ids))} missing)")
        want = {}
        for i in range(n):
            s = want.setdefault(i % GROUPS, [0, 0])
            s[0] += (i * 7919) % 1000 - 300
            s[1] += 1
        got = {row["g"]: [row["v"], row["n"]] for row in cat(os.path.join(wh, "db.db", "agg"))}
        if got != want:
            bad = sorted(g for g in set(want) | set(got) if want.get(g) != got.get(g))
            failures.append(f"agg: the sums of groups {bad[:10]} differ")
        # The group got the final checkpoint's offsets: one message per offset, from 0.
        r = subprocess.run([produce, kafka.bootstrap, "committed", "events", "fjord-app"],
                           capture_output=True, text=True)
        if r.returncode != 0 or r.stdout.strip() != str(n):
            failures.append(f"group fjord-app committed {r.stdout.strip()} {r.stderr} "
                            f"offsets in all, not {n}")
        else:
            print(f"ok: the consumer group holds the last checkpoint's offsets ({n} in all)")
        print(f"kafka: {n} messages over {sent['partitions']} partitions; {counts['starts']} starts, "
              f"{counts['kills']} kills, {counts['terms']} SIGTERMs, {counts['restores']} restores, "
              f"{counts['table_resumes']} from the table alone, {counts['broker_restarts']} broker "
              f"restart; "
              f"app {len(ids)} rows, agg {len(got)} groups; {time.time() - started:.1f}s")

    for f in failures:
        print("FAIL:", f)
    print(f"{0 if failures else 1} passed, {len(failures)} failed")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
