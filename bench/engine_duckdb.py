#!/usr/bin/env python3
"""The second limit of the reads (bench/read_limits.py): DuckDB's read_parquet over given Parquet
files, the table's own data files, with a thread count.

    engine_duckdb.py WORKLOAD --dir DIR --paths FILE [--keys K] [--threads T]

WORKLOAD: read (every row), read-filtered (rows with k < keys / 10), noop (import and connect
only: the start-up cost, for scale). FILE holds a JSON list of paths relative to DIR. Prints one
JSON line as the C++ engines do: rows, bytes, the light checksum (bench_rows.h: the wrapping sum
of k plus the strings' byte lengths, computed by DuckDB in SQL) and the query's own wall and CPU
seconds (`query_wall`, `query_cpu`), beside which the orchestrator measures the whole process.
"""

import argparse
import json
import os
import time

STRINGS = 20


def main():
    p = argparse.ArgumentParser()
    p.add_argument("workload")
    p.add_argument("--dir", required=True)
    p.add_argument("--paths")
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--threads", type=int, default=os.cpu_count())
    a = p.parse_args()
    import duckdb

    con = duckdb.connect()
    con.execute(f"SET threads = {a.threads}")
    if a.workload == "noop":
        print(json.dumps({"rows": 0, "bytes": 0, "duckdb": duckdb.__version__}))
        return
    if a.workload not in ("read", "read-filtered"):
        raise SystemExit(f"engine_duckdb: unknown workload {a.workload}")
    files = [os.path.join(a.dir, f) for f in json.load(open(a.paths))]
    lengths = " + ".join(f"strlen(s{j})" for j in range(STRINGS))
    where = f" WHERE k < {a.keys // 10}" if a.workload == "read-filtered" else ""
    listed = ", ".join("'" + f.replace("'", "''") + "'" for f in files)
    sql = (f"SELECT count(*), coalesce(sum(k), 0) + coalesce(sum({lengths}), 0) "
           f"FROM read_parquet([{listed}]){where}")
    wall0, cpu0 = time.monotonic(), time.process_time()
    rows, total = con.execute(sql).fetchone()
    wall, cpu = time.monotonic() - wall0, time.process_time() - cpu0
    print(json.dumps({"rows": rows, "bytes": rows * (4 + STRINGS * 10),
                      "checksum": f"{int(total) % (1 << 64):016x}", "files": len(files),
                      "query_wall": wall, "query_cpu": cpu}))


if __name__ == "__main__":
    main()
