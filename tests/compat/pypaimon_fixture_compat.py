#!/usr/bin/env python3
"""interop/python/pypaimon_dump.py prints the canonical JSON-lines form: on every Java-written
fixture table that pypaimon 1.4.2 can read, its rows equal `fjord cat`'s (as multisets, compared by
value) and its text equals `fjord-oracle dump`'s line for line (sorted), the reference of the form
(interop/java/README.md). Latest snapshot of each table, plus three tables (Parquet, ORC, Avro)
that Fjord writes with edge values of every type of the JSON form (extreme integers, subnormal /
huge / negative-zero / non-finite floats, escapes, 0001..9999 dates, TIME, TIMESTAMP(0..9), LTZ,
nested ARRAY / MAP / ROW).

The tables pypaimon cannot read, or reads differently from Java and Fjord, are listed in
KNOWN_LIMITATIONS with the evidence; each must still fail that way (so the list stays true).

    pypaimon_fixture_compat.py --fjord BUILD/tools/fjord --python .deps/pypaimon-venv/bin/python \
        --fixtures tests/fixtures/paimon-java
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

DUMP = os.path.join(wm.REPO, "interop", "python", "pypaimon_dump.py")

# Tables of the fixture set (path under the fixtures root) -> (text the failure must contain, why).
_ORC_MANIFESTS = ("avro", "manifest.format = orc: pypaimon reads manifests and manifest lists "
                  "with fastavro only (KeyError 'avro.schema' / 'cannot read header - is it an "
                  "avro file?')")
KNOWN_LIMITATIONS = {
    "append_table_with_multiple_file_format.db/append_table_with_multiple_file_format":
        _ORC_MANIFESTS,
    "orc/append_09.db/append_09": _ORC_MANIFESTS,
    "orc/append_table_with_tag.db/append_table_with_tag": _ORC_MANIFESTS,
    "orc/append_with_multiple_ts_precision_and_timezone.db/"
    "append_with_multiple_ts_precision_and_timezone": _ORC_MANIFESTS,
    "orc/multi_partition_append_table.db/multi_partition_append_table": _ORC_MANIFESTS,
    "orc/pk_09.db/pk_09": _ORC_MANIFESTS,
    "orc/pk_table_scan_and_read_dv.db/pk_table_scan_and_read_dv": _ORC_MANIFESTS,
    "orc/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor": _ORC_MANIFESTS,
    "orc/pk_table_with_total_buckets.db/pk_table_with_total_buckets": _ORC_MANIFESTS,
    "parquet/append_09.db/append_09": _ORC_MANIFESTS,
    "parquet/append_with_empty_partition.db/append_with_empty_partition": _ORC_MANIFESTS,
    "parquet/parquet_append_table.db/parquet_append_table": _ORC_MANIFESTS,
    "parquet/pk_table_nested_type.db/pk_table_nested_type": _ORC_MANIFESTS,
    # ORC manifests too; here fastavro fails earlier, decoding the ORC file's bytes as the Avro
    # magic ("UnicodeDecodeError: 'utf-8' codec can't decode byte 0xb5 in position 0").
    "parquet/append_10.db/append_10": (
        "UnicodeDecodeError", "manifest.format = orc: pypaimon reads manifests with fastavro only"),
    # Written by Paimon 0.9 / 0.8: their manifest entries have no _VALUE_STATS_COLS field, which
    # pypaimon's manifest reader indexes unconditionally (KeyError). (pk_10, written by 1.0, reads
    # alike.)
    "parquet/pk_09.db/pk_09": ("_VALUE_STATS_COLS",
                               "Paimon 0.9 manifests (no _VALUE_STATS_COLS) are not read"),
    "parquet/append_08.db/append_08": ("_VALUE_STATS_COLS",
                                       "Paimon 0.8 manifests (no _VALUE_STATS_COLS) are not read"),
    # ORC data with NULL map keys: pyarrow aborts the process ("Map array keys array should have
    # no nulls", exit 134). Java and Fjord read the table.
    "orc/nullable_map_key.db/nullable_map_key": ("Map array keys array should have no nulls",
                                                 "NULL map keys in ORC abort pyarrow"),
    # Schema evolution: schema 1 dropped a and c, renamed b->c and d->a, added d and e. Java and
    # Fjord map old files' columns by field id (old b's values show as c, old d's as a, d is
    # null); pypaimon maps them by name (old c's values show as c, old a's as a, old d's as d),
    # so the 5 rows of the first commit differ (e.g. Java {"c":2,"a":4,"d":null}, pypaimon
    # {"c":3,"a":1,"d":4}).
    "parquet/append_table_with_alter_table.db/append_table_with_alter_table": (
        "DIFFERENT", "old data files are mapped to the new schema by name, not by field id"),
    # pypaimon merges every primary-key table like merge-engine=deduplicate: for partial-update
    # it keeps the latest record of a key instead of merging its non-null fields (k0=1, k1=1:
    # Java/Fjord {"v0":1.5,"v1":true,"v2":"a"}, pypaimon {"v0":null,"v1":true,"v2":null}).
    "parquet/pk_table_partial_update.db/pk_table_partial_update": (
        "DIFFERENT", "merge-engine=partial-update merged as deduplicate"),
    # ... and for aggregation the latest record instead of the aggregate (k=1: Java/Fjord
    # total -5 (sum), hi 7 (max), names "x,z,w" (listagg), flag false (bool_or); pypaimon -20, 1,
    # "w", null).
    "parquet/pk_table_aggregation.db/pk_table_aggregation": (
        "DIFFERENT", "merge-engine=aggregation merged as deduplicate"),
    # (parquet/pk_table_scan_and_read_first_row reads alike at its latest snapshot only because
    # that snapshot is a full compaction: one record per key. pypaimon merges first-row as
    # deduplicate too, and would differ where level-0 files hold later records of a key.)
}
# Those that take the whole process down: run alone, not in the batch.
CRASHES = {"orc/nullable_map_key.db/nullable_map_key"}

def find_tables(root):
    out = []
    for d, dirs, _ in os.walk(root):
        if "schema" in dirs:
            out.append(os.path.relpath(d, root))
            dirs[:] = []
    return sorted(out)


def without_ids(path, ids):
    """A copy of a JSON-lines file without the rows whose "id" is in ids."""
    kept = path + ".filtered"
    with open(path, encoding="utf-8") as f, open(kept, "w", encoding="utf-8") as g:
        for line in f:
            if line.strip() and json.loads(line).get("id") not in ids:
                g.write(line)
    return kept


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--python", required=True, help="python of the pypaimon venv")
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    if not os.path.exists(args.python):
        print(f"no pypaimon venv python at {args.python}: run scripts/bootstrap.sh")
        print("0 passed, 1 failed")
        return 1
    started = time.monotonic()
    root = os.path.abspath(args.fixtures)
    work = tempfile.mkdtemp(prefix="fjord-pypaimon-fixtures-")
    status = {}
    location = {t: os.path.join(root, t) for t in find_tables(root)}
    tables = sorted(location)
    # Fjord-written edge tables.
    wh = os.path.join(work, "wh")
    assert wm.run([args.fjord, "db", "create", wh, "fjord-written"]).returncode == 0
    for fmt in wm.FORMATS:
        name = f"fjord-written.db/edge_{fmt}"
        location[name] = os.path.join(wh, name)
        tables.append(name)
        r = wm.run([args.fjord, "table", "create", wh, f"fjord-written.edge_{fmt}", "--columns",
                    wm.edge_columns(fmt), "-o", f"file.format={fmt}"])
        data = os.path.join(work, f"edge_{fmt}.jsonl")
        # pypaimon returns ORC CHAR values padded (pypaimon_write_compat.py, KNOWN_LIMITATIONS).
        rows = wm.edge_rows(fmt)
        wm.write_jsonl(data, wm.fill_chars(rows) if fmt == "orc" else rows)
        if r.returncode == 0:
            r = wm.fjord_write(args.fjord, location[name], data, 1)
        if r.returncode:
            status[name] = f"fjord: {r.stderr.strip()[:300]}"

    def out(rel, who):
        return os.path.join(work, rel.replace("/", "__") + f".{who}.jsonl")

    batched = [t for t in tables if t not in CRASHES and t not in status]
    py_results = wm.run_batch([args.python, DUMP, "--batch"],
                              [[location[t], "--output", out(t, "py")] for t in batched],
                              os.path.join(work, "py-batch.txt"))
    java_results = wm.run_batch([wm.ORACLE, "batch"],
                                [["dump", location[t], "--output", out(t, "java")]
                                 for t in batched],
                                os.path.join(work, "java-batch.txt"))
    for t, (ok, message), (jok, jmessage) in zip(batched, py_results, java_results):
        if not ok:
            status[t] = f"pypaimon: {message[:300]}"
            continue
        rc, err = wm.fjord_cat(args.fjord, location[t], out(t, "fjord"))
        if rc:
            status[t] = f"fjord cat: {err}"
            continue
        py_rows, fjord_rows = out(t, "py"), out(t, "fjord")
        if t.startswith("fjord-written"):
            py_rows, fjord_rows = (without_ids(py_rows, wm.FJORD_DOUBLE_TEXT_IDS),
                                   without_ids(fjord_rows, wm.FJORD_DOUBLE_TEXT_IDS))
        equal, report = wm.compare(py_rows, fjord_rows)
        if not equal:
            status[t] = f"pypaimon vs Fjord: {report}"
            continue
        if py_rows != out(t, "py") and wm.compare(out(t, "py"), out(t, "fjord"))[0]:
            print(f"note: {t}: fjord cat now prints the rows of FJORD_DOUBLE_TEXT_IDS alike: "
                  "that list can go")
        if not jok:
            status[t] = f"fjord-oracle dump: {jmessage[:300]}"
            continue
        with open(out(t, "py"), encoding="utf-8") as a, open(out(t, "java"), encoding="utf-8") as b:
            py_lines, java_lines = sorted(a.read().splitlines()), sorted(b.read().splitlines())
        if py_lines != java_lines:
            diff = [(x, y) for x, y in zip(py_lines, java_lines) if x != y][:2]
            status[t] = f"text differs from Java's dump: {diff or (len(py_lines), len(java_lines))}"
            continue
        status[t] = None
        status[t + "#rows"] = len(py_lines)
    for t in sorted(CRASHES):
        r = subprocess.run([args.python, DUMP, location[t], "--output", out(t, "py")],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        status[t] = (f"pypaimon exit {r.returncode}: {r.stderr.strip()[-300:]}" if r.returncode
                     else "read without error")

    passed = failed = known = 0
    for t in tables:
        st = status[t]
        limitation = KNOWN_LIMITATIONS.get(t)
        if limitation:
            needle, why = limitation
            if st is not None and needle in st:
                print(f"{t}: known limitation of pypaimon: {why}")
                known += 1
                passed += 1
            else:
                print(f"{t}: FAIL known limitation ({why}) no longer shows as '{needle}': "
                      f"{st or 'read correctly'}; update KNOWN_LIMITATIONS")
                failed += 1
        elif st is None:
            print(f"{t}: ok ({status[t + '#rows']} rows; equal to fjord cat, text equal to "
                  f"fjord-oracle dump)")
            passed += 1
        else:
            print(f"{t}: FAIL {st}")
            failed += 1
    print(f"{len(tables)} tables ({len(tables) - 3} fixtures, 3 Fjord-written): "
          f"{passed - known} read alike, {known} known limitations; "
          f"wall time {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work dir kept: {work}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
