#!/usr/bin/env python3
"""changelog-producer = input (issue 14 point 1): Java Paimon reads the changelog Fjord writes.

Fjord writes random upserts and retractions, with explicit row kinds, in several commits to
primary-key tables with `changelog-producer = input` (2 buckets; partitioned; `ignore-delete`);
Java's incremental read in changelog mode (`fjord-oracle changes --between i-1,i`) must return,
for every snapshot, exactly the records the commit was given (after the row-kind filter): the same
multiset, and for each key the same kinds and values in the order they were written.

    java_input_changelog_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")

TABLES = [
    # name, create flags, ignore-delete
    ("plain", ["--columns", "id INT NOT NULL, v STRING, n BIGINT", "--primary-key", "id",
               "-o", "bucket=2"], False),
    ("partitioned", ["--columns", "p STRING NOT NULL, id INT NOT NULL, v STRING, n BIGINT",
                     "--primary-key", "p,id", "--partition-keys", "p", "-o", "bucket=2"], False),
    ("ignore_delete", ["--columns", "id INT NOT NULL, v STRING, n BIGINT", "--primary-key", "id",
                       "-o", "bucket=1", "-o", "ignore-delete=true"], True),
]


class Java:
    """One `fjord-oracle batch -` JVM for the suite, fed one command at a time."""

    def __init__(self):
        self.proc = subprocess.Popen([ORACLE, "batch", "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def __call__(self, *args):
        self.proc.stdin.write(json.dumps(list(args), ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline() or '{"ok": false, "message": "ended"}')
        if not answer["ok"]:
            raise RuntimeError(f"fjord-oracle {' '.join(args)}: {answer['message']}")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def run(cmd, **kw):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def commit_rows(rng, name, live):
    """One commit's input rows (with _row_kind) and the model of live keys it leaves."""
    rows = []
    for _ in range(rng.randint(5, 40)):
        key = {"id": rng.randint(1, 25)}
        if name == "partitioned":
            key["p"] = rng.choice(["a", "b", "c/d"])
        k = tuple(sorted(key.items()))
        row = dict(key, v=rng.choice(["x", "y", "", None, "\u00e9t\u00e9"]), n=rng.randint(-5, 10**12))
        if k in live and rng.random() < 0.3:
            old = live.pop(k)
            if rng.random() < 0.5:
                rows.append(dict(old, _row_kind="-D"))
            else:
                rows.append(dict(old, _row_kind="-U"))
                rows.append(dict(row, _row_kind="+U"))
                live[k] = row
        else:
            rows.append(dict(row, _row_kind=rng.choice(["+I", "+U"])))
            live[k] = row
    return rows


def key_of(row):
    return tuple(sorted((c, row[c]) for c in ("p", "id") if c in row))


def canonical(row):
    return json.dumps({c: row.get(c) for c in sorted(row)}, sort_keys=True, ensure_ascii=False)


def by_key(rows):
    out = defaultdict(list)
    for r in rows:
        out[key_of(r)].append(canonical(r))
    return dict(out)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--commits", type=int, default=5)
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-input-changelog-")
    passed = failed = 0
    java = Java()
    try:
        wh = os.path.join(work, "wh")
        run([args.fjord, "db", "create", wh, "db"])
        for name, flags, ignore_delete in TABLES:
            rng = random.Random(f"{args.seed}-{name}")
            run([args.fjord, "table", "create", wh, f"db.{name}", *flags,
                 "-o", "changelog-producer=input"])
            table = os.path.join(wh, "db.db", name)
            live, expected = {}, []
            for c in range(1, args.commits + 1):
                rows = commit_rows(rng, name, live)
                path = os.path.join(work, f"{name}-{c}.jsonl")
                with open(path, "w") as f:
                    f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
                run([args.fjord, "write", table, "--input", path])
                kept = [r for r in rows if not (ignore_delete and r["_row_kind"] in ("-D", "-U"))]
                expected.append(kept)
            for c in range(1, args.commits + 1):
                out = os.path.join(work, f"{name}-{c}.changes")
                java("changes", table, "--between", f"{c - 1},{c}", "--output", out)
                with open(out, encoding="utf-8") as f:
                    got = [json.loads(l) for l in f if l.strip()]
                want = expected[c - 1]
                same_multiset = Counter(map(canonical, got)) == Counter(map(canonical, want))
                same_order = by_key(got) == by_key(want)
                ok = same_multiset and same_order
                passed += ok
                failed += not ok
                print(f"{name} snapshot {c}: {'ok' if ok else 'FAIL'} ({len(got)} changes read "
                      f"by Java, {len(want)} written)")
                if not ok:
                    print("  java:    " + " | ".join(map(canonical, got))[:3000])
                    print("  written: " + " | ".join(map(canonical, want))[:3000])
    finally:
        java.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
