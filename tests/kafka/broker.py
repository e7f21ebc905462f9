"""A one-node Apache Kafka broker for tests, in KRaft mode on loopback (broker and controller in
one JVM), from Apache Kafka's own jars (tests/kafka/build.sh fetches them from Maven Central).

    with Broker(workdir) as broker:      # formats the storage, starts kafka.Kafka, waits
        broker.bootstrap                 # "127.0.0.1:PORT"
"""
import base64
import glob
import os
import socket
import subprocess
import time
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Broker:
    def __init__(self, workdir, partitions=3):
        self.dir = os.path.join(workdir, "kafka")
        self.partitions = partitions
        self.proc = None
        self.port = None

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop()

    def start(self, timeout=90):
        lib = subprocess.run([os.path.join(HERE, "build.sh")], check=True, capture_output=True,
                             text=True).stdout.strip()
        classpath = ":".join(sorted(glob.glob(os.path.join(lib, "*.jar"))))
        os.makedirs(self.dir, exist_ok=True)
        self.port, controller = free_port(), free_port()
        props = os.path.join(self.dir, "server.properties")
        with open(props, "w") as f:
            f.write("\n".join([
                "process.roles=broker,controller",
                "node.id=1",
                f"controller.quorum.voters=1@127.0.0.1:{controller}",
                f"listeners=PLAINTEXT://127.0.0.1:{self.port},CONTROLLER://127.0.0.1:{controller}",
                f"advertised.listeners=PLAINTEXT://127.0.0.1:{self.port}",
                "controller.listener.names=CONTROLLER",
                "inter.broker.listener.name=PLAINTEXT",
                "listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT",
                f"log.dirs={os.path.join(self.dir, 'data')}",
                f"num.partitions={self.partitions}",
                "auto.create.topics.enable=false",
                "offsets.topic.replication.factor=1",
                "offsets.topic.num.partitions=1",
                "transaction.state.log.replication.factor=1",
                "transaction.state.log.min.isr=1",
                "group.initial.rebalance.delay.ms=0",
                "", ]))
        java = ["java", "-Xms128m", "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                "-cp", classpath]
        # A cluster id starting with '-' would be taken for an option by StorageTool's parser.
        cluster = "-"
        while cluster.startswith("-"):
            cluster = base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")
        subprocess.run(java + ["kafka.tools.StorageTool", "format", "-t", cluster, "-c", props],
                       check=True, capture_output=True, text=True)
        self.command = java + ["kafka.Kafka", props]
        self.log = open(os.path.join(self.dir, "broker.log"), "w")
        self.launch(timeout)

    def restart(self, down_seconds=1.0, timeout=90):
        """Stops the broker (SIGTERM, a clean shutdown) and starts it again on the same ports
        and log directory after `down_seconds`: the topics and their messages stay."""
        self.stop()
        time.sleep(down_seconds)
        self.launch(timeout)

    def launch(self, timeout):
        self.proc = subprocess.Popen(self.command, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + timeout
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"the Kafka broker exited ({self.proc.returncode}): "
                                   + self.tail())
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return
            except OSError:
                time.sleep(0.2)
        self.stop()
        raise RuntimeError("the Kafka broker did not start in time: " + self.tail())

    @property
    def bootstrap(self):
        return f"127.0.0.1:{self.port}"

    def tail(self):
        try:
            with open(os.path.join(self.dir, "broker.log")) as f:
                return f.read()[-3000:]
        except OSError:
            return ""

    def kill(self):
        """SIGKILL: no clean shutdown (start again with launch(), as after a crash)."""
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self.proc = None

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None
