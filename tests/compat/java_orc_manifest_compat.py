#!/usr/bin/env python3
"""Java Paimon reads ORC manifests that Fjord wrote (`manifest.format = orc`).

1. Tables created and written by the `fjord` CLI are read by Java exactly as Fjord reads them, at
   every snapshot: append tables unpartitioned, partitioned (one and two partition keys, a NULL
   and values that need escaping) and with fixed buckets, Parquet / ORC / Avro data files, and
   every ORC compression Java's manifest writer accepts (`manifest.compression` zstd, snappy,
   lz4, zlib, none; `orc.compress` overriding it). Each table gets three commits through
   `fjord write`; every file under manifest/ must be ORC.
2. With --rewriter: every Java fixture table with ORC manifests (primary-key tables, deletion
   vectors in ORC index manifests, tags) is copied and all its manifest lists, manifests and index
   manifests rewritten by Fjord's ORC writers (tests/compat/rewrite_orc_manifests_main.cc); Java
   reads every snapshot and tag of the copy as it reads the original.

    java_orc_manifest_compat.py --fjord BUILD/tools/fjord
        [--rewriter BUILD/tests/fjord_rewrite_orc_manifests --fixtures DIR] [--work DIR]

Prints one line per table and ends with "N passed, M failed".
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")
COMPARE = os.path.join(REPO, "interop", "compare_rows.py")

sys.path.insert(0, HERE)
try:  # reuse the write-compat helpers when they are there (tests/compat/java_write_compat.py)
    import java_write_compat as _jwc
except Exception:  # noqa: BLE001 - any import problem: use the local fallbacks
    _jwc = None


def _normalize_maps(path):
    """MAP entries have no order (Java's readers may yield hash order): sort them by key."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as f:
        for row in lines:
            for k, v in row.items():
                if isinstance(v, list) and v and all(isinstance(e, list) and len(e) == 2 for e in v):
                    row[k] = sorted(v, key=lambda kv: json.dumps(kv))
            f.write(json.dumps(row, ensure_ascii=False) + "\n")


normalize_maps = getattr(_jwc, "normalize_maps", None) or _normalize_maps

COLUMNS = ("id INT NOT NULL, name STRING, p STRING, k INT, amount DECIMAL(10, 2), "
           "big DECIMAL(30, 5), d DOUBLE, day DATE, ts TIMESTAMP(3), tags ARRAY<STRING>, "
           "attrs MAP<STRING, INT>")
PARTITION_VALUES = ["a", "b/c", "x=y:z", "", None, "ünï"]

# name, data file format, partition keys, extra table options
TABLES = [
    ("plain_zstd", "parquet", None, []),
    ("part_zstd", "parquet", "p", []),
    ("part2_snappy", "orc", "p,k", ["manifest.compression=snappy"]),
    ("bucket_zstd", "parquet", "p", ["bucket=3", "bucket-key=id"]),
    ("bucket_lz4", "orc", "p", ["bucket=2", "bucket-key=id,name", "manifest.compression=lz4"]),
    ("bucket_zlib", "avro", "k", ["bucket=4", "bucket-key=id", "manifest.compression=zlib"]),
    ("part_none", "parquet", "p", ["manifest.compression=none"]),
    ("part_orc_compress", "parquet", "p",
     ["manifest.compression=zstd", "orc.compress=snappy"]),
    ("bucket_zstd_level", "parquet", "p",
     ["bucket=2", "bucket-key=id", "file.compression.zstd-level=9"]),
]


def rows(first, count):
    out = []
    for i in range(first, first + count):
        out.append({
            "id": i,
            "name": None if i % 7 == 0 else f"name-{i}-ü",
            "p": PARTITION_VALUES[i % len(PARTITION_VALUES)],
            "k": None if i % 11 == 0 else i % 3,
            "amount": f"{i * 3}.{i % 100:02d}",
            "big": f"-{i}1234567890123.12345",
            "d": None if i % 5 == 0 else i * 1.25,
            "day": f"2024-0{1 + i % 9}-1{i % 10}",
            "ts": f"2024-03-01T10:{i % 60:02d}:05.123",
            "tags": ["x", "", None] if i % 3 else [],
            "attrs": [["k", i], ["n", None]],
        })
    return out


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def check_table(fj, work, wh, name, fmt, parts, options):
    cmd = [fj, "table", "create", wh, f"o.{name}", "--columns", COLUMNS,
           "-o", f"file.format={fmt}", "-o", "manifest.format=orc"]
    for o in options:
        cmd += ["-o", o]
    if parts:
        cmd += ["--partition-keys", parts]
    r = run(cmd)
    if r.returncode != 0:
        return f"create: {r.stderr.strip()[:300]}"
    table = os.path.join(wh, "o.db", name)
    expected = 0
    for commit, (first, count) in enumerate(((0, 13), (13, 11), (24, 6)), start=1):
        data = os.path.join(work, f"{name}-{commit}.jsonl")
        with open(data, "w", encoding="utf-8") as f:
            for row in rows(first, count):
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
        r = run([fj, "write", table, "--input", data])
        if r.returncode != 0:
            return f"write {commit}: {r.stderr.strip()[:300]}"
        expected += count
        not_orc = []
        manifest_dir = os.path.join(table, "manifest")
        for n in sorted(os.listdir(manifest_dir)):
            with open(os.path.join(manifest_dir, n), "rb") as f:
                if f.read(3) != b"ORC":
                    not_orc.append(n)
        if not_orc:
            return f"commit {commit}: not ORC: {not_orc[:3]}"
        java = os.path.join(work, f"{name}-{commit}.java.jsonl")
        mine = os.path.join(work, f"{name}-{commit}.fjord.jsonl")
        with open(java, "w") as out:
            jp = subprocess.run([ORACLE, "dump", table, "--snapshot", str(commit)], stdout=out,
                                stderr=subprocess.PIPE, text=True)
        with open(mine, "w") as out:
            fp = subprocess.run([fj, "cat", table, "--snapshot", str(commit), "--format", "jsonl"],
                                stdout=out, stderr=subprocess.PIPE, text=True)
        if jp.returncode or fp.returncode:
            return (f"snapshot {commit}: java {jp.stderr.strip()[-400:]} "
                    f"fjord {fp.stderr.strip()[:200]}")
        normalize_maps(java)
        normalize_maps(mine)
        cmp = run([sys.executable, COMPARE, java, mine])
        if cmp.returncode:
            return f"snapshot {commit}: {cmp.stdout.strip()[:600]}"
        with open(java, encoding="utf-8") as f:
            got = sum(1 for line in f if line.strip())
        if got != expected:
            return f"snapshot {commit}: Java read {got} rows, expected {expected}"
    return None


def check_rewrites(rewriter, fixtures, work):
    """Part 2: (target, problem or None) per snapshot/tag of each rewritten fixture table."""
    import java_manifest_rewrite as jmr  # find_tables, make_writable, fix_sizes, dump, targets
    orig_root = os.path.join(work, "fixtures-original")
    new_root = os.path.join(work, "fixtures-rewritten")
    for root in (orig_root, new_root):
        shutil.rmtree(root, ignore_errors=True)
    out = []
    chosen = []
    for rel in jmr.find_tables(fixtures):
        src = os.path.join(fixtures, rel)
        if jmr.latest_schema_options(src).get("manifest.format") != "orc":
            continue
        for root in (orig_root, new_root):
            shutil.copytree(src, os.path.join(root, rel), copy_function=shutil.copyfile)
            jmr.make_writable(os.path.join(root, rel))
        r = run([rewriter, os.path.join(new_root, rel)])
        if r.returncode != 0:
            out.append((rel, f"rewrite: {r.stderr.strip()[:300]}"))
            continue
        sizes = dict((n, int(s)) for n, s in (line.split("\t") for line in r.stdout.splitlines()))
        jmr.fix_sizes(os.path.join(new_root, rel), sizes)
        chosen.append(rel)
    if not chosen:
        return out + [("(fixtures)", "no fixture table has ORC manifests")]
    java_orig = os.path.join(work, "java-original")
    java_new = os.path.join(work, "java-rewritten")
    if not jmr.dump(java_orig, orig_root) or not jmr.dump(java_new, new_root):
        return out + [("(fixtures)", "the Java oracle failed")]
    for rel in chosen:
        orig = jmr.targets(java_orig, rel)
        new = jmr.targets(java_new, rel)
        if not orig:
            out.append((rel, "the oracle dumped nothing"))
        for name in sorted(set(orig) | set(new)):
            a, b = orig.get(name), new.get(name)
            problem = None
            if a is None or b is None:
                problem = "missing in the " + ("original" if a is None else "rewritten") + " dump"
            elif a.endswith(".error") or b.endswith(".error"):
                # Targets Java cannot read in the original (missing data files) must fail alike.
                if not (a.endswith(".error") and b.endswith(".error")):
                    with open(a if a.endswith(".error") else b, encoding="utf-8") as f:
                        problem = ("original" if a.endswith(".error") else "rewritten") + \
                            " unreadable: " + f.read().strip()[:300]
            else:
                cmp = run([sys.executable, COMPARE, a, b])
                if cmp.returncode:
                    problem = cmp.stdout.strip()[:600]
            out.append((f"{rel} {name}", problem))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--rewriter", help="fjord_rewrite_orc_manifests: also rewrite the fixtures")
    ap.add_argument("--fixtures",
                    default=os.path.join(REPO, "tests", "fixtures", "paimon-java"))
    ap.add_argument("--work", help="work directory (default: a fresh temporary one)")
    args = ap.parse_args()
    work = args.work or tempfile.mkdtemp(prefix="fjord-orc-manifests-")
    wh = os.path.join(work, "wh")
    r = run([args.fjord, "db", "create", wh, "o"])
    if r.returncode != 0:
        print(f"db create: {r.stderr.strip()}")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    for name, fmt, parts, options in TABLES:
        problem = check_table(args.fjord, work, wh, name, fmt, parts, options)
        print(f"{name:20s} {'ok' if problem is None else 'FAIL ' + problem}")
        passed += problem is None
        failed += problem is not None
    if args.rewriter:
        for name, problem in check_rewrites(args.rewriter, os.path.abspath(args.fixtures), work):
            print(f"rewritten {name:60s} {'ok' if problem is None else 'FAIL ' + problem}")
            passed += problem is None
            failed += problem is not None
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
