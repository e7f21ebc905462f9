#!/usr/bin/env python3
"""Two-phase commits and idempotency through the `fjord` program (issue 5, points 1 and 2).

    two_phase_cli_test.py --fjord BUILD/tools/fjord

* `fjord write --commit-user U --commit-id N` run twice adds the rows once (append and
  primary-key tables);
* `fjord write --prepare-to F` writes data files but no snapshot; `fjord commit --messages F` in
  another process commits them; committing the same messages again (same user and id) adds
  nothing; messages of two writers commit together as one snapshot;
* bad message files (empty, garbage, truncated, another version, damaged, for another table) are
  refused with a clear error and leave the table as it was.
Prints one line per check and "N passed, M failed".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "tests", "compat"))


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, name, ok, detail=""):
        print(f"{'ok  ' if ok else 'FAIL'} {name}" + ("" if ok else f": {detail}"))
        if ok:
            self.passed += 1
        else:
            self.failed += 1


def run(cmd):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def rows_of(fjord, table):
    r = run([fjord, "cat", table, "--format", "jsonl"])
    if r.returncode != 0:
        raise RuntimeError(f"fjord cat failed: {r.stderr}")
    return sorted(json.dumps(json.loads(x), sort_keys=True) for x in r.stdout.splitlines() if x)


def snapshot_count(table):
    d = os.path.join(table, "snapshot")
    if not os.path.isdir(d):
        return 0
    return sum(1 for n in os.listdir(d) if n.startswith("snapshot-"))


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def canon(rows):
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fjord = args.fjord
    work = tempfile.mkdtemp(prefix="fjord-two-phase-")
    wh = os.path.join(work, "wh")
    c = Checker()
    try:
        def create(name, *extra):
            r = run([fjord, "table", "create", wh, f"db.{name}", "--columns",
                     "id INT NOT NULL, p STRING NOT NULL, v BIGINT", *extra])
            if r.returncode != 0:
                raise RuntimeError(r.stderr)
            return os.path.join(wh, "db.db", name)

        r = run([fjord, "db", "create", wh, "db"])
        if r.returncode != 0:
            raise RuntimeError(r.stderr)
        t = create("events", "--partition-keys", "p", "-o", "bucket=2", "-o", "bucket-key=id")
        pk = create("users", "--primary-key", "id,p", "--partition-keys", "p", "-o", "bucket=2")
        plain = create("plain")

        rows1 = [{"id": i, "p": "ab"[i % 2], "v": i * 10} for i in range(20)]
        in1 = os.path.join(work, "in1.jsonl")
        write_jsonl(in1, rows1)

        # Idempotent one-phase writes.
        for table, label in ((t, "append"), (pk, "primary-key")):
            first = run([fjord, "write", table, "--input", in1, "--commit-user", "u1",
                         "--commit-id", "1"])
            second = run([fjord, "write", table, "--input", in1, "--commit-user", "u1",
                          "--commit-id", "1"])
            c.check(f"{label}: write twice with the same user and id adds the rows once",
                    first.returncode == 0 and second.returncode == 0
                    and "already committed" in second.stdout
                    and rows_of(fjord, table) == canon(rows1) and snapshot_count(table) == 1,
                    f"{first.stderr}{second.stdout}{second.stderr} rows={len(rows_of(fjord, table))}")
        other = run([fjord, "write", t, "--input", in1, "--commit-user", "u2", "--commit-id", "1"])
        c.check("another user with the same id commits", other.returncode == 0
                and len(rows_of(fjord, t)) == 40 and snapshot_count(t) == 2, other.stderr)
        older = run([fjord, "write", t, "--input", in1, "--commit-user", "u1", "--commit-id", "0"])
        c.check("an identifier below the user's last committed one is a no-op",
                older.returncode == 0 and "already committed" in older.stdout
                and snapshot_count(t) == 2, older.stdout + older.stderr)

        # Two phases.
        rows2 = [{"id": 100 + i, "p": "ab"[i % 2], "v": i} for i in range(7)]
        in2 = os.path.join(work, "in2.jsonl")
        write_jsonl(in2, rows2)
        m2 = os.path.join(work, "m2.bin")
        prep = run([fjord, "write", t, "--input", in2, "--prepare-to", m2])
        c.check("prepare writes messages and no snapshot",
                prep.returncode == 0 and os.path.getsize(m2) > 0 and snapshot_count(t) == 2
                and len(rows_of(fjord, t)) == 40, prep.stderr)
        com = run([fjord, "commit", t, "--messages", m2, "--commit-user", "u1", "--commit-id", "2"])
        c.check("commit in another process makes them visible",
                com.returncode == 0 and "as snapshot 3" in com.stdout
                and rows_of(fjord, t) == canon(rows1 + rows1 + rows2), com.stdout + com.stderr)
        again = run([fjord, "commit", t, "--messages", m2, "--commit-user", "u1",
                     "--commit-id", "2"])
        c.check("committing the same messages again adds nothing",
                again.returncode == 0 and "already committed" in again.stdout
                and snapshot_count(t) == 3 and len(rows_of(fjord, t)) == 47,
                again.stdout + again.stderr)

        # Two writers, one commit.
        rows3 = [{"id": 200 + i, "p": "a", "v": i} for i in range(5)]
        rows4 = [{"id": 300 + i, "p": "b", "v": i} for i in range(6)]
        in3, in4 = os.path.join(work, "in3.jsonl"), os.path.join(work, "in4.jsonl")
        write_jsonl(in3, rows3)
        write_jsonl(in4, rows4)
        m3, m4 = os.path.join(work, "m3.bin"), os.path.join(work, "m4.bin")
        p3 = run([fjord, "write", t, "--input", in3, "--prepare-to", m3])
        p4 = run([fjord, "write", t, "--input", in4, "--prepare-to", m4])
        both = run([fjord, "commit", t, "--messages", m3, "--messages", m4, "--commit-user", "u1",
                    "--commit-id", "3"])
        c.check("messages of two writers commit as one snapshot",
                p3.returncode == 0 and p4.returncode == 0 and both.returncode == 0
                and snapshot_count(t) == 4
                and rows_of(fjord, t) == canon(rows1 + rows1 + rows2 + rows3 + rows4),
                p3.stderr + p4.stderr + both.stdout + both.stderr)

        # Primary-key table, two phases.
        upd = [{"id": i, "p": "ab"[i % 2], "v": -i, "_row_kind": "+U"} for i in range(5)]
        in5 = os.path.join(work, "in5.jsonl")
        write_jsonl(in5, upd)
        m5 = os.path.join(work, "m5.bin")
        p5 = run([fjord, "write", pk, "--input", in5, "--prepare-to", m5])
        c5 = run([fjord, "commit", pk, "--messages", m5, "--commit-user", "u1", "--commit-id", "2"])
        c5b = run([fjord, "commit", pk, "--messages", m5, "--commit-user", "u1",
                   "--commit-id", "2"])
        want = {r["id"]: r for r in rows1}
        for r in upd:
            want[r["id"]] = {k: v for k, v in r.items() if k != "_row_kind"}
        c.check("primary-key table: prepare, commit, commit again",
                p5.returncode == 0 and c5.returncode == 0 and c5b.returncode == 0
                and "already committed" in c5b.stdout and snapshot_count(pk) == 2
                and rows_of(fjord, pk) == canon(want.values()),
                p5.stderr + c5.stderr + c5b.stdout + c5b.stderr)

        # Bad message files: clear errors, nothing committed.
        good = open(m2, "rb").read()
        bad_dir = os.path.join(work, "bad")
        os.makedirs(bad_dir)
        damaged = bytearray(good)
        damaged[len(good) // 2] ^= 0x40
        version = bytearray(good)
        version[9] = 9
        cases = [
            ("empty file", b"", "not a Fjord commit-message file"),
            ("garbage", b"hello, world\n" * 10, "not a Fjord commit-message file"),
            ("truncated", good[: len(good) - 9], "truncated"),
            ("header only", good[:12], "truncated"),
            ("other version", bytes(version), "format version 9 is not supported"),
            ("damaged", bytes(damaged), "checksum mismatch"),
        ]
        for name, data, expected in cases:
            path = os.path.join(bad_dir, name.replace(" ", "_") + ".bin")
            with open(path, "wb") as f:
                f.write(data)
            before = snapshot_count(t)
            r = run([fjord, "commit", t, "--messages", path, "--commit-user", "u9",
                     "--commit-id", "1"])
            c.check(f"bad messages ({name}) refused: {expected}",
                    r.returncode == 1 and expected in r.stderr and path in r.stderr
                    and snapshot_count(t) == before, r.stderr.strip())
        missing = run([fjord, "commit", t, "--messages", os.path.join(work, "nope.bin")])
        c.check("missing message file refused", missing.returncode == 1
                and "nope.bin" in missing.stderr, missing.stderr.strip())
        r = run([fjord, "commit", plain, "--messages", m2, "--commit-user", "u9",
                 "--commit-id", "1"])
        c.check("messages for another table refused",
                r.returncode == 1 and "does not fit table" in r.stderr
                and snapshot_count(plain) == 0, r.stderr.strip())
        r = run([fjord, "write", t, "--input", in1, "--prepare-to", m2, "--commit-id", "5"])
        c.check("--prepare-to with --commit-id is a usage error", r.returncode != 0
                and "excludes" in (r.stderr + r.stdout), r.stderr.strip())
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{c.passed} passed, {c.failed} failed")
    return 0 if c.failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
