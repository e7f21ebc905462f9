"""Debezium's PostgreSQL connector feeding a real Kafka broker, for the CDC tests: the embedded
engine of Debezium 3.6.1.Final (tests/debezium/src, built by tests/debezium/build.sh) reads a
tests/pg/postgres.py server through pgoutput and produces Debezium's JSON change events to a
tests/kafka/broker.py broker (topic `<prefix>.<schema>.<table>`, or one topic for all).

    with Postgres(work) as pg, Broker(work) as kafka:
        with Debezium(work, pg, kafka, "shop", schemas=True) as dbz:
            dbz.wait_streaming()                    # the replication slot is being read
            pg.sql("INSERT ...")
            dbz.wait_for({"shop.public.t": 3})      # Kafka holds (at least) these counts
            msgs = dbz.dump(["shop.public.t"])      # [{"topic","partition","offset","key","value"}]

Keys are Debezium's key JSON, values its envelope (None for the tombstone after a delete); with
schemas=False both are the bare payload. Offsets go to a file in the workdir and are committed only
after Kafka acknowledged the batch (acks=all, idempotent producer), so kill() then start() sends
some events twice but loses none.
"""
import json
import os
import signal
import subprocess
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
JAVA = ["java", "-Xms64m", "-Xmx384m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
        "-Dorg.slf4j.simpleLogger.log.org.apache.kafka=warn"]


def classpath():
    return subprocess.run([os.path.join(HERE, "build.sh")], check=True, capture_output=True,
                          text=True).stdout.strip()


class Debezium:
    def __init__(self, workdir, pg, broker, topic_prefix, schemas=True, slot=None,
                 publication=None, topic=None, partitions=1, tables=None, props=None):
        """`topic`: one topic for every table instead of Debezium's per-table names;
        `tables`: Debezium's table.include.list (then the publication holds only those);
        `props`: further Debezium properties {name: value}."""
        self.dir = os.path.join(workdir, f"debezium-{topic_prefix}")
        self.pg, self.broker = pg, broker
        self.prefix = topic_prefix
        self.slot = slot or f"fjord_{topic_prefix}".replace("-", "_").lower()
        self.publication = publication or f"{self.slot}_pub"
        self.offsets = os.path.join(self.dir, "offsets.dat")
        self.args = ["--pg-port", str(pg.port), "--pg-user", pg.user, "--pg-db", pg.dbname,
                     "--slot", self.slot, "--publication", self.publication,
                     "--topic-prefix", topic_prefix, "--offsets", self.offsets,
                     "--bootstrap", broker.bootstrap, "--schemas", "true" if schemas else "false",
                     "--partitions", str(partitions)]
        if topic:
            self.args += ["--topic", topic]
        if tables:
            self.args += ["--tables", ",".join(tables)]
        for k, v in (props or {}).items():
            self.args += ["--set", f"{k}={v}"]
        self.proc = None
        self.sent = {}  # topic -> messages produced (and acknowledged) so far, this process
        self.total = 0
        self.cond = threading.Condition()
        self.starts = 0

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self):
        self.cp = classpath()
        os.makedirs(self.dir, exist_ok=True)
        self.starts += 1
        self.log = open(os.path.join(self.dir, f"runner-{self.starts}.log"), "w")
        with self.cond:
            self.sent, self.total = {}, 0
        self.proc = subprocess.Popen(JAVA + ["-cp", self.cp, "fjord.debezium.Runner"] + self.args,
                                     stdout=subprocess.PIPE, stderr=self.log, text=True)
        self.reader = threading.Thread(target=self._read, args=(self.proc,), daemon=True)
        self.reader.start()

    def _read(self, proc):
        # "sent TOTAL TOPIC=N ..." after every batch Kafka acknowledged
        for line in proc.stdout:
            parts = line.split()
            if parts and parts[0] == "sent":
                with self.cond:
                    self.total = int(parts[1])
                    self.sent = dict((t, int(n)) for t, n in (p.rsplit("=", 1) for p in parts[2:]))
                    self.cond.notify_all()
        with self.cond:
            self.cond.notify_all()

    def _check_alive(self):
        if self.proc is None or self.proc.poll() is not None:
            raise RuntimeError(f"the Debezium runner exited ({self.proc and self.proc.returncode}):"
                               f" {self.tail()}")

    def wait_streaming(self, timeout=60):
        """Until the connector reads its replication slot (done with the snapshot, if any):
        every change committed from then on arrives as a c/u/d event, not in a snapshot."""
        deadline = time.time() + timeout
        while True:
            self._check_alive()
            rows = self.pg.sql("SELECT active FROM pg_replication_slots WHERE slot_name = "
                               f"'{self.slot}'")
            if rows == [("t",)]:
                return
            if time.time() > deadline:
                raise RuntimeError(f"slot {self.slot} not streaming after {timeout}s: "
                                   + self.tail())
            time.sleep(0.2)

    def wait_for(self, counts=None, total=None, timeout=60):
        """Until this runner process has produced at least `counts` {topic: n} (tombstones
        count) and/or `total` messages; returns the counts so far."""
        deadline = time.time() + timeout
        with self.cond:
            while not ((total is None or self.total >= total) and
                       all(self.sent.get(t, 0) >= n for t, n in (counts or {}).items())):
                left = deadline - time.time()
                if left <= 0:
                    raise RuntimeError(f"Debezium produced {self.sent}, waited for {counts} / "
                                       f"total {total}: {self.tail()}")
                if self.proc.poll() is not None:
                    self._check_alive()
                self.cond.wait(min(left, 0.5))
            return dict(self.sent)

    def dump(self, topics):
        """Every message of `topics` now in Kafka, in offset order per partition."""
        p = subprocess.run(JAVA + ["-cp", self.cp, "fjord.debezium.Dump", self.broker.bootstrap]
                           + list(topics), capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"dumping {topics} failed: {p.stderr[-3000:]}")
        return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]

    def tail(self):
        try:
            with open(os.path.join(self.dir, f"runner-{self.starts}.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def kill(self):
        """SIGKILL: no offset commit beyond what was already committed."""
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()
        self._join()

    def stop(self, timeout=30):
        """SIGTERM: the engine stops, commits its offsets and exits."""
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self._join()

    def _join(self):
        # the last "sent" lines the process printed are counted before kill() / stop() return
        if self.proc:
            self.reader.join(timeout=10)
        self.proc = None

