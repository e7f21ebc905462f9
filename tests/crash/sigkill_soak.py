#!/usr/bin/env python3
"""Real processes killed with SIGKILL at random moments while they write and commit.

    sigkill_soak.py --fjord BUILD/tools/fjord [--ids N] [--seed S] [--java] [--work DIR]
                    [--max-seconds T] [--keep]

For each table (an append table, partitioned with 2 buckets; a primary-key table, partitioned
with 2 buckets; ORC, Parquet and Avro files), commit identifiers 1..N are written in order by one
commit user. Each identifier is written either in one go (`fjord write --commit-user U
--commit-id i`) or in two phases (`fjord write --prepare-to F`, then `fjord commit --messages F
--commit-user U --commit-id i`). Every process is killed with SIGKILL after a random delay
(up to a bit more than a clean run takes; some run to the end), and the step is retried until it
exits on its own: a killed prepare is redone, a killed commit is retried with the same messages.
After each kill the table must read (`fjord cat`) as either all identifiers before i or all up
to i. At the end: the rows equal the model (every append row exactly once; the primary-key table
holds the last write of each key), each identifier has exactly one data snapshot, and (with
--java) Java Paimon reads the same rows (`interop/java/fjord-oracle`).

Prints counts (processes, kills, kills after the commit had landed) and "N passed, M failed".
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMPARE = os.path.join(REPO, "interop", "compare_rows.py")
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")
USER = "soak-user"

TABLES = [
    # name, create arguments, primary key?
    ("events", ["--partition-keys", "p", "-o", "bucket=2", "-o", "bucket-key=id",
                "-o", "file.format=orc"], False),
    ("users", ["--primary-key", "id,p", "--partition-keys", "p", "-o", "bucket=2",
               "-o", "file.format=parquet"], True),
    ("logs", ["-o", "file.format=avro"], False),
]


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def canon_rows(lines):
    return sorted(json.dumps(json.loads(x), sort_keys=True) for x in lines if x.strip())


class Soak:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.processes = 0
        self.kills = 0
        self.landed_kills = 0
        self.failures = []
        self.clean_seconds = 0.15  # a first guess; replaced by measured clean runs
        self.next_id = 0

    def fjord(self, *a):
        return run([self.args.fjord, *a])

    def cat(self, table):
        r = self.fjord("cat", table, "--format", "jsonl")
        if r.returncode != 0:
            return None, r.stderr.strip()
        return canon_rows(r.stdout.splitlines()), ""

    def data_snapshots(self, table):
        """(identifier -> count of APPEND/OVERWRITE snapshots by USER), all snapshot ids."""
        d = os.path.join(table, "snapshot")
        counts, ids = {}, []
        for name in os.listdir(d) if os.path.isdir(d) else []:
            if not name.startswith("snapshot-"):
                continue
            ids.append(int(name[len("snapshot-"):]))
            with open(os.path.join(d, name)) as f:
                s = json.load(f)
            if s["commitUser"] == USER and s["commitKind"] != "COMPACT":
                counts[s["commitIdentifier"]] = counts.get(s["commitIdentifier"], 0) + 1
        return counts, sorted(ids)

    def batch(self, pk):
        rows = []
        for _ in range(self.rng.randint(1, 60)):
            if pk:
                r = {"id": self.rng.randint(0, 80), "p": self.rng.choice("abc"),
                     "v": self.rng.randint(-10**12, 10**12),
                     "s": self.rng.choice([None, "x", "ü", "long " * 5])}
                r["_row_kind"] = self.rng.choice(["+I"] * 6 + ["+U"] * 2 + ["-D"] * 2)
            else:
                self.next_id += 1
                r = {"id": self.next_id, "p": self.rng.choice("abc"),
                     "v": self.rng.randint(-10**12, 10**12),
                     "s": self.rng.choice([None, "x", "ü", "long " * 5])}
            rows.append(r)
        return rows

    def step(self, cmd, table, before_rows, after_rows, label):
        """Runs cmd until it exits on its own, killing it at random moments. After each kill the
        table must read as before_rows or after_rows (None: do not check)."""
        while True:
            self.processes += 1
            start = time.monotonic()
            p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            kill = self.rng.random() < 0.8
            delay = self.rng.uniform(0, self.clean_seconds * 1.2)
            killed = False
            if kill:
                try:
                    p.wait(timeout=delay)
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGKILL)
                    killed = True
            out, err = p.communicate()
            if killed and p.returncode == -signal.SIGKILL:
                self.kills += 1
                if before_rows is not None:
                    rows, error = self.cat(table)
                    if rows is None:
                        self.failures.append(f"{label}: table unreadable after a kill: {error}")
                        return False
                    if rows == after_rows and rows != before_rows:
                        self.landed_kills += 1
                    elif rows != before_rows:
                        self.failures.append(
                            f"{label}: after a kill the table has {len(rows)} rows, neither the "
                            f"{len(before_rows)} before nor the {len(after_rows)} after")
                        return False
                continue
            if p.returncode != 0:
                self.failures.append(f"{label}: {' '.join(cmd[1:3])} exited {p.returncode}: "
                                     f"{err.strip()[:500]}")
                return False
            # A clean run: keep the kill window near what a run takes.
            took = time.monotonic() - start
            self.clean_seconds = 0.8 * self.clean_seconds + 0.2 * took
            return True

    def run_table(self, wh, name, create_args, pk):
        table = os.path.join(wh, "db.db", name)
        r = self.fjord("table", "create", wh, f"db.{name}", "--columns",
                       "id INT NOT NULL, p STRING NOT NULL, v BIGINT, s STRING", *create_args)
        if r.returncode != 0:
            self.failures.append(f"{name}: create failed: {r.stderr}")
            return None
        work = os.path.join(self.args.work, name)
        os.makedirs(work, exist_ok=True)
        model = {} if pk else []
        expected = []
        for i in range(1, self.args.ids + 1):
            if self.args.deadline and time.monotonic() > self.args.deadline:
                break
            rows = self.batch(pk)
            path = os.path.join(work, f"in-{i}.jsonl")
            with open(path, "w", encoding="utf-8") as f:
                for r in rows:
                    f.write(json.dumps(r, ensure_ascii=False) + "\n")
            before = expected
            if pk:
                for r in rows:
                    key = (r["id"], r["p"])
                    if r["_row_kind"] == "-D":
                        model.pop(key, None)
                    else:
                        model[key] = {k: v for k, v in r.items() if k != "_row_kind"}
                after = canon_rows(json.dumps(v) for v in model.values())
            else:
                model.extend(rows)
                after = canon_rows(json.dumps(v) for v in model)
            label = f"{name} id {i}"
            if self.rng.random() < 0.5:
                ok = self.step([self.args.fjord, "write", table, "--input", path, "--commit-user",
                                USER, "--commit-id", str(i)], table, before, after, label)
            else:
                messages = os.path.join(work, f"messages-{i}.bin")
                ok = (self.step([self.args.fjord, "write", table, "--input", path,
                                 "--prepare-to", messages], table, before, before,
                                label + " prepare")
                      and self.step([self.args.fjord, "commit", table, "--messages", messages,
                                     "--commit-user", USER, "--commit-id", str(i)], table, before,
                                    after, label + " commit"))
            if not ok:
                return None
            expected = after
            self.committed += 1
        return table, expected

    def main(self):
        wh = os.path.join(self.args.work, "wh")
        r = self.fjord("db", "create", wh, "db")
        if r.returncode != 0:
            print(r.stderr)
            return 1
        self.committed = 0
        results = []
        for name, create_args, pk in TABLES:
            out = self.run_table(wh, name, create_args, pk)
            if out is None:
                break
            table, expected = out
            rows, error = self.cat(table)
            if rows != expected:
                self.failures.append(f"{name}: final rows: fjord cat gives "
                                     f"{'an error ' + error if rows is None else len(rows)}, "
                                     f"expected {len(expected)}")
            counts, ids = self.data_snapshots(table)
            n = max(counts) if counts else 0
            bad = {i: c for i, c in counts.items() if c != 1}
            if bad or sorted(counts) != list(range(1, n + 1)):
                self.failures.append(f"{name}: identifiers not committed exactly once: {bad}")
            if ids != list(range(1, len(ids) + 1)):
                self.failures.append(f"{name}: snapshot ids not contiguous: {ids}")
            print(f"{name}: {n} identifiers committed, {len(ids)} snapshots, "
                  f"{len(expected)} rows")
            results.append((name, table, expected))
        if self.args.java and not self.failures:
            self.java_check(results)
        print(f"sigkill soak: {self.processes} processes, {self.kills} killed, "
              f"{self.landed_kills} killed after their commit had landed, {self.committed} "
              f"identifiers committed, seed {self.args.seed}")
        for f in self.failures:
            print(f"FAIL {f}")
        passed = len(results) - len({f.split(':')[0].split(' ')[0] for f in self.failures})
        print(f"{max(passed, 0)} passed, {len(self.failures)} failed")
        return 0 if not self.failures else 1

    def java_check(self, results):
        lines = []
        outs = []
        for name, table, expected in results:
            out = os.path.join(self.args.work, f"java-{name}.jsonl")
            lines.append(["dump", table, "--output", out])
            outs.append((name, out, expected))
        batch = os.path.join(self.args.work, "java-batch.txt")
        with open(batch, "w") as f:
            for args in lines:
                f.write(json.dumps(args) + "\n")
        r = run([ORACLE, "batch", batch])
        for name, out, expected in outs:
            if not os.path.exists(out):
                self.failures.append(f"{name}: Java could not read the table: "
                                     f"{(r.stdout + r.stderr).strip()[-500:]}")
                continue
            with open(out, encoding="utf-8") as f:
                rows = canon_rows(f.read().splitlines())
            if rows != expected:
                self.failures.append(f"{name}: Java reads {len(rows)} rows, expected "
                                     f"{len(expected)}")
            else:
                print(f"{name}: Java reads the same {len(rows)} rows")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--ids", type=int, default=40, help="commit identifiers per table")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--java", action="store_true", help="also read the final tables with Java")
    ap.add_argument("--work", help="work directory (default: a fresh temp directory)")
    ap.add_argument("--max-seconds", type=float, default=0,
                    help="stop starting new identifiers after this long")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    args = ap.parse_args()
    own = args.work is None
    if own:
        args.work = tempfile.mkdtemp(prefix="fjord-sigkill-")
    args.deadline = time.monotonic() + args.max_seconds if args.max_seconds else 0
    try:
        rc = Soak(args).main()
    finally:
        if own and not args.keep:
            shutil.rmtree(args.work, ignore_errors=True)
        else:
            print(f"work directory: {args.work}")
    return rc


if __name__ == "__main__":
    sys.exit(main())
