"""A private PostgreSQL 15 server for tests (Debian's postgresql-15 binaries), on 127.0.0.1 at a
free port, with logical decoding on (wal_level=logical) so Debezium can stream its changes.

    with Postgres(workdir) as pg:            # initdb + pg_ctl start, waits until it answers
        pg.port, pg.dsn                       # the TCP port; "host=127.0.0.1 port=... user=postgres"
        pg.sql("CREATE TABLE t (id int)")     # through psql; returns the rows as tuples of str
        pg.sql("SELECT id, name FROM t")      # -> [("1", "a"), ...]; NULL comes back as None

The cluster lives in its own temporary directory (unix socket inside it, trust authentication,
superuser `postgres`). PostgreSQL refuses to run as root, so when we are root the directory is
given to the `postgres` user and initdb / pg_ctl run through `runuser -u postgres`; the directory
is made in the system temp dir, not under `workdir`, because a test's workdir is usually private
to root. The server log is copied to `workdir/postgres.log` when the server stops.
"""
import os
import shutil
import socket
import subprocess
import tempfile
import time

BIN = os.environ.get("FJORD_PG_BIN", "/usr/lib/postgresql/15/bin")
SEP = "\x1f"  # psql's field separator: a byte no test value holds
NULL = "<fjord:null>"  # psql's text for NULL (psql drops control characters here)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Postgres:
    def __init__(self, workdir, dbname="postgres", user="postgres"):
        self.workdir = workdir
        self.dbname = dbname
        self.user = user
        self.dir = None
        self.port = None
        self.running = False

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, *exc):
        self.stop(mode="immediate")

    @property
    def dsn(self):
        return f"host=127.0.0.1 port={self.port} user={self.user} dbname={self.dbname}"

    def _as_owner(self, argv):
        """argv run as the cluster's owner: `postgres` when we are root, else ourselves."""
        if os.geteuid() == 0:
            return ["runuser", "-u", "postgres", "--"] + argv
        return argv

    def _run(self, argv, timeout=120):
        p = subprocess.run(self._as_owner(argv), capture_output=True, text=True, timeout=timeout)
        if p.returncode != 0:
            raise RuntimeError(f"{os.path.basename(argv[0])} failed ({p.returncode}): "
                               f"{p.stdout}{p.stderr}{self.tail()}")
        return p

    def start(self, timeout=60):
        if not os.path.exists(os.path.join(BIN, "initdb")):
            raise RuntimeError(f"no PostgreSQL binaries in {BIN} (apt-get install postgresql-15)")
        os.makedirs(self.workdir, exist_ok=True)
        self.dir = tempfile.mkdtemp(prefix="fjord-pg-")
        if os.geteuid() == 0:
            shutil.chown(self.dir, "postgres", "postgres")
        data = os.path.join(self.dir, "data")
        try:
            self._run([os.path.join(BIN, "initdb"), "-D", data, "-U", self.user, "--auth=trust",
                       "-E", "UTF8", "--no-locale", "--no-sync"])
            # A free port may be taken by someone else before the server binds it: try again.
            for attempt in range(3):
                self.port = free_port()
                with open(os.path.join(data, "postgresql.auto.conf"), "a") as f:
                    f.write("\n".join([
                        "listen_addresses = '127.0.0.1'",
                        f"port = {self.port}",
                        f"unix_socket_directories = '{self.dir}'",
                        "wal_level = logical",
                        "max_replication_slots = 10",
                        "max_wal_senders = 10",
                        "max_connections = 50",
                        "shared_buffers = 32MB",
                        # a test server: durability traded for speed
                        "fsync = off",
                        "synchronous_commit = off",
                        "full_page_writes = off",
                        "", ]))
                p = subprocess.run(self._as_owner(
                    [os.path.join(BIN, "pg_ctl"), "-D", data, "-l", self.log_path, "-w", "-t",
                     str(timeout), "start"]), capture_output=True, text=True, timeout=timeout + 10)
                if p.returncode == 0:
                    self.running = True
                    break
                if attempt == 2 or "could not bind" not in self.tail():
                    raise RuntimeError(f"pg_ctl start failed ({p.returncode}): {p.stdout}"
                                       f"{p.stderr}{self.tail()}")
            self._wait_ready(timeout)
        except BaseException:
            self.stop(mode="immediate")
            raise

    def _wait_ready(self, timeout):
        deadline = time.time() + timeout
        while True:
            p = subprocess.run([os.path.join(BIN, "pg_isready"), "-h", "127.0.0.1", "-p",
                                str(self.port), "-U", self.user, "-d", self.dbname],
                               capture_output=True, text=True)
            if p.returncode == 0:
                return
            if time.time() > deadline:
                raise RuntimeError("PostgreSQL did not accept connections in time: " + self.tail())
            time.sleep(0.1)

    @property
    def log_path(self):
        return os.path.join(self.dir, "server.log")

    def tail(self):
        try:
            with open(self.log_path) as f:
                return f.read()[-3000:]
        except (OSError, TypeError):
            return ""

    def sql(self, text, db=None):
        """Runs `text` (one or more statements, stopping at the first error) through psql and
        returns the rows every statement printed, as tuples of str (None for NULL). A value
        holding a newline would split its row: tests keep such values out of results."""
        p = subprocess.run(
            [os.path.join(BIN, "psql"), "-X", "-q", "-t", "-A", "-F", SEP, "-P", f"null={NULL}",
             "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(self.port), "-U", self.user,
             "-d", db or self.dbname, "-f", "-"],
            input=text, capture_output=True, text=True, timeout=120)
        if p.returncode != 0:
            raise RuntimeError(f"psql failed ({p.returncode}) on:\n{text}\n{p.stderr}")
        return [tuple(None if v == NULL else v for v in line.split(SEP))
                for line in p.stdout.splitlines() if line != ""]

    def stop(self, mode="fast"):
        """Stops the server (pg_ctl -m fast, or immediate: no checkpoint, fine at the end of a
        test) and removes its directory, keeping a copy of the log in the workdir."""
        if self.dir is None:
            return
        data = os.path.join(self.dir, "data")
        if self.running:
            p = subprocess.run(self._as_owner([os.path.join(BIN, "pg_ctl"), "-D", data, "-m",
                                               mode, "-w", "-t", "30", "stop"]),
                               capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                self._kill_postmaster(data)
            self.running = False
        try:
            shutil.copyfile(self.log_path, os.path.join(self.workdir, "postgres.log"))
        except OSError:
            pass
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = None

    @staticmethod
    def _kill_postmaster(data):
        """pg_ctl could not stop it: SIGKILL the postmaster named in postmaster.pid (its
        children exit when they see it gone)."""
        try:
            with open(os.path.join(data, "postmaster.pid")) as f:
                pid = int(f.readline())
            os.kill(pid, 9)
            time.sleep(0.5)
        except (OSError, ValueError):
            pass
