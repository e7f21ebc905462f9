#!/usr/bin/env python3
"""Deletion vectors and changelog-producer = lookup (issue 19 points 2, 3, 5) against Java Paimon,
in one JVM.

Tables with `deletion-vectors.enabled`, `changelog-producer = lookup` or both, for the
deduplicate, partial-update and aggregation merge engines, get random upserts, updates and deletes
in several commits written by Fjord (`fjord write`, compaction in the writer), by Fjord's
dedicated compaction (`fjord compact` after write-only commits), by Java (`fjord-oracle write`,
Java's batch writer with its lookup compaction), or by both in turn. After every commit:

  * Java Paimon's batch read of the latest snapshot (`fjord-oracle dump`) equals `fjord cat`, and
    for deduplicate tables the model of the rows written;
  * tables with deletion vectors have no level-0 file left after a commit that waited for
    compaction (lookup-wait), so that Java's read, which skips level 0, sees every row.

And for lookup-changelog tables, at the end: every snapshot's changes as Java's incremental read
in changelog mode returns them (`fjord-oracle changes --between s-1,s`) equal Fjord's reading of
the changelog files of that snapshot (`fjord_changelog_dump`), and the whole changelog, replayed,
gives the table.

    java_lookup_compat.py --fjord BUILD/tools/fjord --dump BUILD/tests/fjord_changelog_dump
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
sys.path.insert(0, os.path.join(REPO, "interop"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import compare_rows  # noqa: E402
from oracle_batch import OracleBatch  # noqa: E402

PK = ["--columns", "id INT NOT NULL, v STRING, n BIGINT", "--primary-key", "id"]
PART = ["--columns", "p STRING NOT NULL, id INT NOT NULL, v STRING, n BIGINT",
        "--primary-key", "p,id", "--partition-keys", "p"]
DV = ["-o", "deletion-vectors.enabled=true"]
LOOKUP = ["-o", "changelog-producer=lookup"]
PARTIAL = ["-o", "merge-engine=partial-update", "-o", "partial-update.remove-record-on-delete=true"]
AGG = ["-o", "merge-engine=aggregation", "-o", "fields.n.aggregate-function=sum",
       "-o", "fields.v.aggregate-function=last_non_null_value"]

# name, create flags, writers (one letter per commit: f = fjord write, w = fjord write (of a
# write-only table) then `fjord compact`, j = Java), retraction kinds the input uses
TABLES = [
    ("dv_dedup", PART + DV + ["-o", "bucket=2"], "ffffff", ["-D", "-U"]),
    ("dv_partial", PK + DV + PARTIAL + ["-o", "bucket=1"], "ffffff", ["-D"]),
    ("dv_agg", PK + DV + AGG + ["-o", "bucket=2"], "ffffff", []),
    ("dv_compact_job", PART + DV + ["-o", "bucket=2", "-o", "write-only=true"], "wwwwww",
     ["-D", "-U"]),
    ("lookup_dedup", PART + LOOKUP + ["-o", "bucket=2",
                                      "-o", "changelog-producer.row-deduplicate=true"],
     "ffffff", ["-D", "-U"]),
    ("lookup_dv", PK + LOOKUP + DV + ["-o", "bucket=2"], "ffffff", ["-D", "-U"]),
    ("lookup_agg", PK + LOOKUP + AGG + ["-o", "bucket=1"], "ffffff", []),
    ("lookup_partial", PK + LOOKUP + PARTIAL + ["-o", "bucket=1"], "ffffff", ["-D"]),
    ("lookup_nowait", PK + LOOKUP + ["-o", "bucket=1", "-o", "lookup-wait=false"], "ffffff",
     ["-D", "-U"]),
    ("mixed_dv", PART + DV + ["-o", "bucket=2"], "jfjfjf", ["-D", "-U"]),
    ("mixed_lookup_agg", PK + LOOKUP + AGG + ["-o", "bucket=1"], "fjfjfj", []),
    ("java_lookup_dv", PK + LOOKUP + DV + ["-o", "bucket=2"], "jjjfff", ["-D", "-U"]),
]


def run(cmd):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout


def key_of(row):
    return tuple(sorted((c, row[c]) for c in ("p", "id") if c in row))


def commit_rows(rng, partitioned, retract, live):
    """One commit's rows with _row_kind; `live` is the deduplicate model (key -> row)."""
    rows = []
    for _ in range(rng.randint(5, 40)):
        key = {"id": rng.randint(1, 25)}
        if partitioned:
            key["p"] = rng.choice(["a", "b"])
        k = key_of(key)
        row = dict(key, v=rng.choice(["x", "y", None, "\u00e9t\u00e9"]),
                   n=rng.choice([None, rng.randint(-5, 3), 10**12]))
        if k in live and retract and rng.random() < 0.3:
            old = live[k]
            if rng.choice(retract) == "-D":
                rows.append(dict(old, _row_kind="-D"))
                del live[k]
            else:
                rows.append(dict(old, _row_kind="-U"))
                rows.append(dict(row, _row_kind="+U"))
                live[k] = row
        else:
            rows.append(dict(row, _row_kind=rng.choice(["+I", "+U"])))
            live[k] = row
    return rows


def canon_rows(lines):
    return Counter(compare_rows.canon(compare_rows.parse_line(l)) for l in lines if l.strip())


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l for l in f if l.strip()]


def snapshot_ids(table):
    names = os.listdir(os.path.join(table, "snapshot"))
    return sorted(int(n[len("snapshot-"):]) for n in names if n.startswith("snapshot-"))


def level0_files(java, table):
    out = java.call("files", table)
    return [json.loads(l)["file"] for l in read_lines(out) if json.loads(l)["level"] == 0]


def fjord_changes(dump, table):
    out = defaultdict(list)
    for line in run([dump, table]).splitlines():
        snapshot, row = line.split("\t", 1)
        out[int(snapshot)].append(row)
    return out


def replay(changes):
    live = {}
    for line in changes:
        r = compare_rows.parse_line(line)
        kind = r.pop("_row_kind")
        k = key_of(json.loads(line))
        c = compare_rows.canon(r)
        if kind in ("-U", "-D"):
            if live.get(k) != c:
                raise AssertionError(f"{kind} of {line.strip()} but the table holds {live.get(k)}")
            del live[k]
        else:
            live[k] = c
    return Counter(live.values())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--dump", required=True)
    ap.add_argument("--commits", type=int, default=6)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--only", help="run only this table")
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-lookup-compat-")
    passed = failed = 0
    dv_tables = dv_indexed = 0
    java = OracleBatch(work)
    try:
        wh = os.path.join(work, "wh")
        run([args.fjord, "db", "create", wh, "db"])
        for name, flags, writers, retract in TABLES:
            if args.only and name != args.only:
                continue
            problems = []
            rng = random.Random(f"{args.seed}-{name}")
            run([args.fjord, "table", "create", wh, f"db.{name}", *flags])
            table = os.path.join(wh, "db.db", name)
            live = {}
            partitioned = "--partition-keys" in flags
            dedup = "merge-engine" not in " ".join(flags)
            dv = "deletion-vectors.enabled=true" in flags
            waits = "lookup-wait=false" not in flags
            for c, writer in enumerate(writers[:args.commits], start=1):
                rows = commit_rows(rng, partitioned, retract, live)
                path = os.path.join(work, f"{name}-{c}.jsonl")
                with open(path, "w", encoding="utf-8") as f:
                    f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
                if writer == "j":
                    java.message("write", table, "--input", path)
                elif writer == "w":
                    run([args.fjord, "write", table, "--input", path])
                    run([args.fjord, "compact", table])
                else:
                    run([args.fjord, "write", table, "--input", path])
                out = java.call("dump", table)
                java_rows = canon_rows(read_lines(out))
                fjord_rows = canon_rows(run([args.fjord, "cat", table, "--format", "jsonl"])
                                        .splitlines())
                if java_rows != fjord_rows:
                    problems.append(f"commit {c} ({writer}): Java reads {sum(java_rows.values())} "
                                    f"rows, fjord cat {sum(fjord_rows.values())}")
                if dedup and waits:
                    model = Counter(compare_rows.canon(compare_rows.parse_line(json.dumps(r)))
                                    for r in live.values())
                    if java_rows != model:
                        problems.append(f"commit {c} ({writer}): Java's read is not the model")
                if dv and waits and level0_files(java, table):
                    problems.append(f"commit {c} ({writer}): level-0 files left")
            index_dir = os.path.join(table, "index")
            if dv:
                dv_tables += 1
                # Small tables often compact fully (the size-ratio rule), with nothing to look up.
                dv_indexed += bool(os.path.isdir(index_dir) and os.listdir(index_dir))
            kinds = Counter()
            if "changelog-producer=lookup" in flags:
                if not waits:
                    # The last commit's level 0 is compacted by a later one: full compaction.
                    run([args.fjord, "compact", table, "--full"])
                mine = fjord_changes(args.dump, table)
                everything = []
                for s in snapshot_ids(table):
                    out = java.call("changes", table, "--between", f"{s - 1},{s}")
                    got = read_lines(out)
                    everything.extend(got)
                    if canon_rows(got) != canon_rows(mine.get(s, [])):
                        problems.append(f"snapshot {s}: Java reads {len(got)} changes, Fjord "
                                        f"{len(mine.get(s, []))}")
                kinds = Counter(json.loads(l)["_row_kind"] for l in everything)
                out = java.call("dump", table)
                try:
                    if replay(everything) != canon_rows(read_lines(out)):
                        problems.append("the changelog does not replay the table")
                except AssertionError as e:
                    problems.append(f"replay: {e}")
                if not everything:
                    problems.append("no changelog")
            ok = not problems
            passed += ok
            failed += not ok
            print(f"{name} ({writers}): {'ok' if ok else 'FAIL'}"
                  + (" (changes: " + ", ".join(f"{k} {kinds[k]}" for k in ("+I", "-U", "+U", "-D"))
                     + ")" if kinds else ""))
            for p in problems:
                print(f"  {p}")
    finally:
        java.close()
        shutil.rmtree(work, ignore_errors=True)
    print(f"{passed} passed, {failed} failed; {dv_indexed} of {dv_tables} deletion-vector tables "
          "got index files")
    if dv_tables and dv_indexed * 2 < dv_tables:
        print("FAIL: most deletion-vector tables never marked a row deleted")
        return 1
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
