#!/usr/bin/env python3
"""Issue 18's Python speed comparison (not a test): the `fjord` package against pypaimon 1.4.2 and
against the limit (pyarrow / DuckDB on the same Parquet data files, no table logic).

Workloads, each timed inside a fresh worker process after its input is loaded (untimed):

  append-write   fjord `t.write(table)` / pypaimon batch write, into an append table
                 (limit: pyarrow.parquet.write_table of the same rows, zstd)
  append-read    `t.scan().to_arrow()` / pypaimon `to_arrow(splits)` of that table
                 (limits: pyarrow.parquet.read_table and DuckDB read_parquet of its data files)
  pk-write       the same rows into a primary-key table (bucket 4): sort and dedup per bucket
  pk-read        merge-on-read of the primary-key table

The rows: k = i * 2654435761 mod N (int64, the key), p = k mod 10, 20 strings s0..s19 of 10
characters, generated once into input.parquet. Each figure is the median of --reps runs;
ratios are pypaimon / fjord (> 1: fjord faster) and fjord / limit (> 1: fjord slower than the
limit).

    python3 bench/python_bench.py --fjord-python V/bin/python --pypaimon-python \\
        .deps/pypaimon-venv/bin/python --rows 1000000 --scratch /tmp/pybench
V is a venv with the fjord wheel installed (docs/python.md)."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

STRINGS = 20


def gen(path, rows):
    import numpy as np
    import pyarrow as pa
    import pyarrow.parquet as pq

    i = np.arange(rows, dtype=np.uint64)
    k = ((i * np.uint64(2654435761)) % np.uint64(max(rows, 1))).astype(np.int64)
    cols = {"k": pa.array(k), "p": pa.array((k % 10).astype(np.int32))}
    alphabet = np.frombuffer(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_", dtype=np.uint8)
    rng = np.random.default_rng(7)
    for j in range(STRINGS):
        chars = alphabet[rng.integers(0, 64, size=(rows, 10))]
        data = pa.py_buffer(chars.tobytes())
        offsets = pa.py_buffer((np.arange(rows + 1, dtype=np.int32) * 10).tobytes())
        cols[f"s{j}"] = pa.Array.from_buffers(pa.string(), rows, [None, offsets, data])
    pq.write_table(pa.table(cols), path)


def schema_of(pa, pk):
    fields = [pa.field("k", pa.int64(), nullable=not pk), pa.field("p", pa.int32())]
    fields += [pa.field(f"s{j}", pa.string()) for j in range(STRINGS)]
    return pa.schema(fields)


def worker(engine, workload, scratch):
    """Runs one measurement in this process; prints {"seconds", "rows"}."""
    if engine == "fjord":
        import fjord  # noqa: F401  (first, as docs/python.md says: it picks Arrow's memory pool)
    import pyarrow as pa
    import pyarrow.parquet as pq

    pk = workload.startswith("pk")
    name = "pk" if pk else "append"
    wh = os.path.join(scratch, f"wh-{engine}")
    options = {"bucket": "4", "file.compression": "zstd"} if pk else {"file.compression": "zstd"}
    data = pq.read_table(os.path.join(scratch, "input.parquet")) if workload.endswith("write") else None
    if engine == "fjord":
        import fjord

        cat = fjord.Catalog(wh)
        if workload.endswith("write"):
            cat.create_database("db", ignore_if_exists=True)
            cat.drop_table(f"db.{name}", ignore_if_not_exists=True)
            t = cat.create_table(f"db.{name}", schema_of(pa, pk), primary_key=["k"] if pk else None,
                                 options=options)
            start = time.perf_counter()
            t.write(data)
            rows = data.num_rows
        else:
            t = cat.table(f"db.{name}")
            start = time.perf_counter()
            rows = t.scan().to_arrow().num_rows
    elif engine == "pypaimon":
        from pypaimon import CatalogFactory, Schema

        cat = CatalogFactory.create({"warehouse": wh})
        if workload.endswith("write"):
            cat.create_database("db", True)
            try:
                cat.drop_table(f"db.{name}", True)
            except Exception:
                shutil.rmtree(os.path.join(wh, "db.db", name), ignore_errors=True)
            cat.create_table(f"db.{name}", Schema.from_pyarrow_schema(
                schema_of(pa, pk), primary_keys=["k"] if pk else None, options=options), False)
            t = cat.get_table(f"db.{name}")
            start = time.perf_counter()
            builder = t.new_batch_write_builder()
            w = builder.new_write()
            w.write_arrow(data)
            c = builder.new_commit()
            c.commit(w.prepare_commit())
            w.close()
            c.close()
            rows = data.num_rows
        else:
            t = cat.get_table(f"db.{name}")
            start = time.perf_counter()
            rb = t.new_read_builder()
            rows = rb.new_read().to_arrow(rb.new_scan().plan().splits()).num_rows
    elif engine == "pyarrow":
        files = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(scratch, "wh-fjord", "db.db", name))
                       for f in fs if f.startswith("data-"))
        if workload.endswith("write"):
            out = os.path.join(scratch, "limit.parquet")
            start = time.perf_counter()
            pq.write_table(data, out, compression="zstd")
            rows = data.num_rows
        else:
            start = time.perf_counter()
            rows = sum(pq.read_table(f).num_rows for f in files)
    elif engine == "duckdb":
        import duckdb

        files = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(scratch, "wh-fjord", "db.db", name))
                       for f in fs if f.startswith("data-"))
        start = time.perf_counter()
        rows = duckdb.sql(f"SELECT * FROM read_parquet({files!r})").to_arrow_table().num_rows
    else:
        raise SystemExit(f"unknown engine {engine}")
    print(json.dumps({"seconds": time.perf_counter() - start, "rows": rows}))


PLAN = [
    ("append-write", ["fjord", "pypaimon", "pyarrow"]),
    ("append-read", ["fjord", "pypaimon", "pyarrow", "duckdb"]),
    ("pk-write", ["fjord", "pypaimon"]),
    ("pk-read", ["fjord", "pypaimon"]),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord-python", required=True)
    ap.add_argument("--pypaimon-python", required=True)
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--scratch", default="/tmp/fjord-python-bench")
    ap.add_argument("--worker", nargs=2, metavar=("ENGINE", "WORKLOAD"))
    args = ap.parse_args()
    if args.worker:
        worker(*args.worker, args.scratch)
        return
    shutil.rmtree(args.scratch, ignore_errors=True)
    os.makedirs(args.scratch)
    me = os.path.abspath(__file__)
    subprocess.run([args.fjord_python, "-c", f"import runpy; m = runpy.run_path({me!r}); "
                    f"m['gen']({os.path.join(args.scratch, 'input.parquet')!r}, {args.rows})"], check=True)
    results = {}
    for workload, engines in PLAN:
        for rep in range(args.reps):
            for engine in engines[rep % len(engines):] + engines[:rep % len(engines)]:
                python = args.pypaimon_python if engine == "pypaimon" else args.fjord_python
                out = subprocess.run([python, me, "--fjord-python", "-", "--pypaimon-python", "-",
                                      "--scratch", args.scratch, "--worker", engine, workload],
                                     check=True, capture_output=True, text=True).stdout
                r = json.loads(out.strip().splitlines()[-1])
                assert r["rows"] == args.rows or workload.startswith("pk"), (engine, workload, r)
                results.setdefault((workload, engine), []).append(r["seconds"])
    print(f"| workload ({args.rows:,} rows) | fjord s | pypaimon s | pypaimon / fjord | limit | fjord / limit |")
    print("|---|---|---|---|---|---|")
    for workload, engines in PLAN:
        med = {e: statistics.median(results[(workload, e)]) for e in engines}
        limits = [e for e in engines if e not in ("fjord", "pypaimon")]
        limit_text = ", ".join(f"{e} {med[e]:.2f} s" for e in limits) or "-"
        ratio_limit = ", ".join(f"{med['fjord'] / med[e]:.2f} ({e})" for e in limits) or "-"
        print(f"| {workload} | {med['fjord']:.2f} | {med['pypaimon']:.2f} | {med['pypaimon'] / med['fjord']:.2f} "
              f"| {limit_text} | {ratio_limit} |")


if __name__ == "__main__":
    sys.exit(main())
