#!/usr/bin/env python3
"""changelog-producer = full-compaction (issue 14 point 1) against Java Paimon, in one JVM.

Fjord-written tables: random upserts, retractions and NULLs in several `fjord write` commits to
primary-key tables with `changelog-producer = full-compaction` (full compactions in the writer
every commit or every 2 commits, row-deduplicate, partial-update, partitions; and a write-only
table compacted by `fjord compact`). For every snapshot, Java's incremental read in changelog mode
(`fjord-oracle changes --between s-1,s`) must return exactly the rows of Fjord's changelog files
of that snapshot (read by `fjord_changelog_dump`): the same multiset, and for each key the same
kinds and rows in the same order.

Java-written tables: Java's batch writer with a full compaction of every written bucket before
each commit (`fjord-oracle write --compact full`); Fjord must read Java's changelog files as Java
returns them, the same way.

Both: the changelog of all snapshots, applied in order to an empty table, must equal the table
(Java's `dump`) after the last full compaction; changelog files are listed only by COMPACT
snapshots, named changelog-<uuid>-<n>.<format>, at the max level (num-levels - 1 = 5) with file
source APPEND (0), whoever wrote them.

    java_full_compaction_changelog_compat.py --fjord BUILD/tools/fjord \
        --dump BUILD/tests/fjord_changelog_dump
"""
import argparse
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter, defaultdict

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")

PK = ["--columns", "id INT NOT NULL, v STRING, n BIGINT", "--primary-key", "id"]
PART = ["--columns", "p STRING NOT NULL, id INT NOT NULL, v STRING, n BIGINT",
        "--primary-key", "p,id", "--partition-keys", "p"]

# name, create flags, writer ("fjord", "fjord-compact-job" or "java"), retraction kinds
TABLES = [
    ("every_commit", PK + ["-o", "bucket=2"], "fjord", ["-D", "-U"]),
    ("every_2_dedup", PART + ["-o", "bucket=2", "-o", "full-compaction.delta-commits=2",
                              "-o", "changelog-producer.row-deduplicate=true"],
     "fjord", ["-D", "-U"]),
    ("ignore_n", PK + ["-o", "bucket=1", "-o", "changelog-producer.row-deduplicate=true",
                       "-o", "changelog-producer.row-deduplicate-ignore-fields=n"],
     "fjord", ["-D"]),
    ("partial_update", PK + ["-o", "bucket=1", "-o", "merge-engine=partial-update",
                             "-o", "partial-update.remove-record-on-delete=true"],
     "fjord", ["-D"]),
    ("compact_job", PART + ["-o", "bucket=2", "-o", "write-only=true"], "fjord-compact-job",
     ["-D", "-U"]),
    ("java_written", PK + ["-o", "bucket=2"], "java", ["-D", "-U"]),
    ("java_partitioned_dedup", PART + ["-o", "bucket=1",
                                       "-o", "changelog-producer.row-deduplicate=true"],
     "java", ["-D"]),
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


def commit_rows(rng, partitioned, retract, live, partial):
    """One commit's input rows (with _row_kind); `live` tracks the rows written as a whole."""
    rows = []
    for _ in range(rng.randint(5, 40)):
        key = {"id": rng.randint(1, 25)}
        if partitioned:
            key["p"] = rng.choice(["a", "b", "c/d"])
        k = tuple(sorted(key.items()))
        row = dict(key, v=rng.choice(["x", "y", None, "\u00e9t\u00e9"]),
                   n=rng.choice([None, rng.randint(-5, 3), 10**12]))
        if k in live and rng.random() < 0.3:
            old = live[k]
            kind = rng.choice(retract)
            if kind == "-D":
                rows.append(dict(old, _row_kind="-D"))
                del live[k]
            else:
                rows.append(dict(old, _row_kind="-U"))
                rows.append(dict(row, _row_kind="+U"))
                live[k] = row
        else:
            rows.append(dict(row, _row_kind=rng.choice(["+I", "+U"])))
            # partial-update keeps old non-NULL values; the model only says the key lives
            live[k] = row if not partial else dict(live.get(k, {}), **row)
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


def snapshot_ids(table):
    names = os.listdir(os.path.join(table, "snapshot"))
    return sorted(int(n[len("snapshot-"):]) for n in names if n.startswith("snapshot-"))


def fjord_changes(dump, table):
    out = defaultdict(list)
    for line in run([dump, table]).splitlines():
        snapshot, row = line.split("\t", 1)
        out[int(snapshot)].append(json.loads(row))
    return out


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(l) for l in f if l.strip()]


def replay(changes, ignore):
    """The live rows after `changes`, without the columns `ignore` (row-deduplicate-ignore-fields:
    an update of those alone is not in the changelog)."""
    live = {}
    for r in changes:
        row = {c: v for c, v in r.items() if c != "_row_kind" and c not in ignore}
        k = key_of(row)
        if r["_row_kind"] in ("-U", "-D"):
            if live.get(k) != canonical(row):
                raise AssertionError(f"{r['_row_kind']} of {canonical(row)} but the table holds "
                                     f"{live.get(k)}")
            del live[k]
        else:
            live[k] = canonical(row)
    return live


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--commits", type=int, default=6)
    ap.add_argument("--seed", type=int, default=14)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-full-changelog-")
    passed = failed = snapshots_compared = snapshots_equal = 0
    java = Java()
    try:
        wh = os.path.join(work, "wh")
        run([args.fjord, "db", "create", wh, "db"])
        for name, flags, writer, retract in TABLES:
            rng = random.Random(f"{args.seed}-{name}")
            run([args.fjord, "table", "create", wh, f"db.{name}", *flags,
                 "-o", "changelog-producer=full-compaction"])
            table = os.path.join(wh, "db.db", name)
            live = {}
            partitioned = "--partition-keys" in flags
            for c in range(1, args.commits + 1):
                rows = commit_rows(rng, partitioned, retract, live, "partial-update" in str(flags))
                path = os.path.join(work, f"{name}-{c}.jsonl")
                with open(path, "w") as f:
                    f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
                if writer == "java":
                    java("write", table, "--input", path, "--compact", "full")
                else:
                    run([args.fjord, "write", table, "--input", path,
                         "--commit-user", f"u-{name}", "--commit-id", str(c)])
                    if writer == "fjord-compact-job" and c % 3 == 0:
                        run([args.fjord, "compact", table])
            fjord = fjord_changes(args.dump, table)
            everything = []
            table_ok = True
            for line in run([args.dump, table, "--files"]).splitlines():
                snapshot, kind, file_name, level, source = line.split("\t")
                if (kind != "COMPACT" or level != "5" or source != "0"
                        or not re.fullmatch(r"changelog-[0-9a-f-]{36}-\d+\.parquet", file_name)):
                    print(f"{name} snapshot {snapshot}: unexpected changelog file {line!r}")
                    table_ok = False
            ids = snapshot_ids(table)
            for s in ids:
                out = os.path.join(work, f"{name}-{s}.changes")
                java("changes", table, "--between", f"{s - 1},{s}", "--output", out)
                got = read_jsonl(out)
                want = fjord.get(s, [])
                everything.extend(got)
                ok = (Counter(map(canonical, got)) == Counter(map(canonical, want))
                      and by_key(got) == by_key(want))
                table_ok = table_ok and ok
                snapshots_compared += 1
                snapshots_equal += ok
                if not ok:
                    print(f"{name} snapshot {s}: FAIL ({len(got)} changes read by Java, "
                          f"{len(want)} in Fjord's reading of the changelog files)")
                    print("  java:  " + " | ".join(map(canonical, got))[:3000])
                    print("  fjord: " + " | ".join(map(canonical, want))[:3000])
            # After the last full compaction the changelog replays the table.
            dump = os.path.join(work, f"{name}.dump")
            java("dump", table, "--output", dump)
            ignore = ["n"] if "changelog-producer.row-deduplicate-ignore-fields=n" in flags else []
            try:
                replayed = replay(everything, ignore)
                rows = [{c: v for c, v in r.items() if c not in ignore} for r in read_jsonl(dump)]
                same = sorted(replayed.values()) == sorted(map(canonical, rows))
            except AssertionError as e:
                print(f"{name}: replay failed: {e}")
                same = False
            if not same:
                print(f"{name}: the changelog does not replay the table")
            kinds = Counter(r["_row_kind"] for r in everything)
            ok = table_ok and same and len(everything) > 0
            passed += ok
            failed += not ok
            print(f"{name} ({writer}): {'ok' if ok else 'FAIL'} ({len(ids)} snapshots, "
                  f"{len(everything)} changes: " +
                  ", ".join(f"{k} {kinds[k]}" for k in ("+I", "-U", "+U", "-D")) + ")")
    finally:
        java.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed; snapshots read alike by Java and Fjord: "
          f"{snapshots_equal}/{snapshots_compared}")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
