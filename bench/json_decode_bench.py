#!/usr/bin/env python3
"""JSON-lines ingestion (issue 20 point 5; bench/README.md, "make bench-json").

One generated file of N rows (an INT key, ten strings, a DOUBLE, a DECIMAL(12, 2) given as a string
and a TIMESTAMP(3)), written as JSON lines, CSV and Parquet. Measured, each in its own process
(wall, user + sys CPU and peak RSS from wait4), interleaved over the repetitions:

  decode   fjord       ParseJsonLines into Arrow columns of the table's types (json_lines_bench)
           simdjson    simdjson's on-demand parser alone over the same lines, every value visited
                       and nothing built: the parser's own speed
           pyarrow     pyarrow.json.read_json of the same file with the same column types
           fjord-csv   ParseCsvRows of the same rows as CSV (json_lines_bench csv)
           pyarrow-csv pyarrow.csv.read_csv of the CSV with the same column types
  write    jsonl/csv/parquet  `fjord write` of the file into a new append table (one commit)

Rows per CPU-second are the figures compared: decode against simdjson's own and pyarrow's (CSV:
pyarrow's), the JSON-lines and CSV writes against the Parquet write (decode then costs nothing).

    bench/json_decode_bench.py --fjord build/bench/tools/fjord \
        --decoder build/bench/bench/json_lines_bench --python .deps/python-venv/bin/python
"""
import argparse
import csv
import datetime
import json
import os
import platform
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

COLUMNS = ("id INT NOT NULL, s0 STRING, s1 STRING, s2 STRING, s3 STRING, s4 STRING, s5 STRING, "
           "s6 STRING, s7 STRING, s8 STRING, s9 STRING, d DOUBLE, amt DECIMAL(12, 2), "
           "ts TIMESTAMP(3)")

PYARROW_READ = """
import sys, time, pyarrow as pa, pyarrow.json as pj
types = {"id": pa.int32(), "d": pa.float64(), "amt": pa.string(), "ts": pa.timestamp("ms")}
types.update({f"s{i}": pa.string() for i in range(10)})
start = time.monotonic()
t = pj.read_json(sys.argv[1], parse_options=pj.ParseOptions(explicit_schema=pa.schema(types)))
t = t.set_column(t.schema.get_field_index("amt"), "amt",
                 t.column("amt").cast(pa.decimal128(12, 2)))
print('{"rows": %d, "seconds": %f}' % (t.num_rows, time.monotonic() - start))
"""

PYARROW_CSV = """
import sys, time, pyarrow as pa, pyarrow.csv as pc
types = {"id": pa.int32(), "d": pa.float64(), "amt": pa.decimal128(12, 2),
         "ts": pa.timestamp("ms")}
types.update({f"s{i}": pa.string() for i in range(10)})
start = time.monotonic()
t = pc.read_csv(sys.argv[1], convert_options=pc.ConvertOptions(column_types=types))
print('{"rows": %d, "seconds": %f}' % (t.num_rows, time.monotonic() - start))
"""


def generate(folder, rows, seed):
    rng = random.Random(seed)
    letters = "abcdefghijklmnopqrstuvwxyz"
    paths = {f: os.path.join(folder, "rows." + f) for f in ("jsonl", "csv")}
    with open(paths["jsonl"], "w") as fj, open(paths["csv"], "w", newline="") as fc:
        w = csv.writer(fc)
        w.writerow(["id"] + [f"s{i}" for i in range(10)] + ["d", "amt", "ts"])
        for i in range(rows):
            ss = ["".join(rng.choices(letters, k=rng.randint(4, 20))) for _ in range(10)]
            d = rng.uniform(-1e6, 1e6)
            amt = f"{rng.randint(0, 10**9) / 100:.2f}"
            ts = (datetime.datetime(2026, 1, 1) + datetime.timedelta(
                milliseconds=rng.randint(0, 10**10))).isoformat(timespec="milliseconds")
            row = {"id": i, **{f"s{k}": s for k, s in enumerate(ss)}, "d": d, "amt": amt,
                   "ts": ts}
            fj.write(json.dumps(row, separators=(",", ":")) + "\n")
            w.writerow([i] + ss + [repr(d), amt, ts])
    return paths


def run(argv):
    start = time.monotonic()
    with tempfile.TemporaryFile(mode="w+") as errf:
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=errf, text=True)
        out = proc.stdout.read()
        _, status, ru = os.wait4(proc.pid, 0)
        errf.seek(0)
        err = errf.read()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"json_decode_bench: {' '.join(argv)} failed:\n{err[-3000:]}")
    return dict(wall=time.monotonic() - start, cpu=ru.ru_utime + ru.ru_stime,
                rss_mb=ru.ru_maxrss / 1024.0, out=out)


def main():
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--fjord", required=True)
    p.add_argument("--decoder", required=True, help="json_lines_bench")
    p.add_argument("--python", required=True, help="a Python with pyarrow")
    p.add_argument("--rows", type=int, default=1_000_000)
    p.add_argument("--reps", type=int, default=3)
    p.add_argument("--seed", type=int, default=20)
    p.add_argument("--scratch", default=None)
    p.add_argument("--out", default=None)
    args = p.parse_args()
    scratch = tempfile.mkdtemp(prefix="fjord-json-bench-", dir=args.scratch)
    try:
        paths = generate(scratch, args.rows, args.seed)
        wh = os.path.join(scratch, "wh")
        subprocess.run([args.fjord, "db", "create", wh, "db"], check=True, capture_output=True)
        subprocess.run([args.fjord, "table", "create", wh, "db.schema_probe", "--columns", COLUMNS,
                        "-o", "bucket=-1"], check=True, capture_output=True)
        schema_file = os.path.join(wh, "db.db", "schema_probe", "schema", "schema-0")
        # Parquet input: the CSV read by pyarrow with the table's types (untimed).
        parquet = os.path.join(scratch, "rows.parquet")
        subprocess.run([args.python, "-c", (
            "import sys, pyarrow as pa, pyarrow.csv as c, pyarrow.parquet as pq\n"
            "t = c.read_csv(sys.argv[1], convert_options=c.ConvertOptions(column_types={"
            "'id': pa.int32(), 'amt': pa.decimal128(12, 2), 'ts': pa.timestamp('ms')}))\n"
            "fields = [pa.field('id', pa.int32(), False)] + list(t.schema)[1:]\n"
            "pq.write_table(t.cast(pa.schema(fields)), sys.argv[2])\n"),
            paths["csv"], parquet], check=True)
        paths["parquet"] = parquet
        cases = [
            ("decode", "fjord", lambda: [args.decoder, "fjord", paths["jsonl"], schema_file]),
            ("decode", "simdjson", lambda: [args.decoder, "simdjson", paths["jsonl"]]),
            ("decode", "pyarrow", lambda: [args.python, "-c", PYARROW_READ, paths["jsonl"]]),
            ("decode", "fjord-csv", lambda: [args.decoder, "csv", paths["csv"], schema_file]),
            ("decode", "pyarrow-csv", lambda: [args.python, "-c", PYARROW_CSV, paths["csv"]]),
        ]
        table_no = [0]

        def write_case(fmt):
            def argv():
                table_no[0] += 1
                name = f"t{table_no[0]}"
                subprocess.run([args.fjord, "table", "create", wh, "db." + name, "--columns",
                                COLUMNS, "-o", "bucket=-1"], check=True, capture_output=True)
                return [args.fjord, "write", os.path.join(wh, "db.db", name), "--input",
                        paths[fmt], "--format", fmt]
            return argv

        cases += [("write", fmt, write_case(fmt)) for fmt in ("jsonl", "csv", "parquet")]
        results = {}
        for rep in range(args.reps):
            order = cases[rep % len(cases):] + cases[:rep % len(cases)]
            for group, name, argv in order:
                r = run(argv())
                if group == "decode":
                    got = json.loads(r["out"].strip().splitlines()[-1])
                    if got["rows"] != args.rows:
                        sys.exit(f"json_decode_bench: {name} decoded {got['rows']} rows")
                results.setdefault((group, name), []).append(r)
                print(f"rep {rep + 1} {group:6s} {name:9s} {r['wall']:7.2f} s wall "
                      f"{r['cpu']:7.2f} s cpu {r['rss_mb']:6.0f} MB", flush=True)
        report(args, paths, results)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def report(args, paths, results):
    med = {k: {m: statistics.median(x[m] for x in v) for m in ("wall", "cpu", "rss_mb")}
           for k, v in results.items()}
    mb = os.path.getsize(paths["jsonl"]) / 1e6
    # The input each case reads, for its MB per CPU-second.
    inputs = {"fjord": "jsonl", "simdjson": "jsonl", "pyarrow": "jsonl", "fjord-csv": "csv",
              "pyarrow-csv": "csv", "jsonl": "jsonl", "csv": "csv", "parquet": "parquet"}
    today = datetime.date.today().isoformat()
    cpu = subprocess.run("grep -m1 'model name' /proc/cpuinfo | cut -d: -f2", shell=True,
                         capture_output=True, text=True).stdout.strip()
    lines = [f"# `make bench-json`, {today}", "",
             f"{args.rows:,} rows, {mb:.0f} MB of JSON lines "
             f"({os.path.getsize(paths['csv']) / 1e6:.0f} MB of CSV); median of {args.reps} "
             f"repetitions; {cpu}, {os.cpu_count()} cores, kernel {platform.release()}; "
             f"load average at the end {open('/proc/loadavg').read().split()[:3]}.", "",
             "| group | case | wall s | CPU s | rows per CPU-s | MB/CPU-s | peak RSS MB |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for (group, name), m in med.items():
        case_mb = os.path.getsize(paths[inputs[name]]) / 1e6
        lines.append(f"| {group} | {name} | {m['wall']:.2f} | {m['cpu']:.2f} | "
                     f"{args.rows / m['cpu']:,.0f} | {case_mb / m['cpu']:,.0f} | "
                     f"{m['rss_mb']:,.0f} |")
    f = med[("decode", "fjord")]["cpu"]
    lines += ["",
              f"- Fjord's decode per CPU-second: {med[('decode', 'simdjson')]['cpu'] / f:.2f} of "
              f"simdjson's parse alone, {med[('decode', 'pyarrow')]['cpu'] / f:.2f}x "
              "pyarrow.json.read_json's (process start and pyarrow's import included in its figure).",
              f"- Fjord's CSV decode per CPU-second: "
              f"{med[('decode', 'pyarrow-csv')]['cpu'] / med[('decode', 'fjord-csv')]['cpu']:.2f}x "
              "pyarrow.csv.read_csv's (the same), "
              f"{f / med[('decode', 'fjord-csv')]['cpu']:.2f}x Fjord's JSON-lines decode.",
              f"- `fjord write` of JSON lines: "
              f"{med[('write', 'parquet')]['cpu'] / med[('write', 'jsonl')]['cpu']:.2f} of the "
              "Parquet-input write's rows per CPU-second (CSV: "
              f"{med[('write', 'parquet')]['cpu'] / med[('write', 'csv')]['cpu']:.2f})."]
    text = "\n".join(lines) + "\n"
    print(text)
    out = args.out or os.path.join("bench", "results", f"{today}-json.md")
    with open(out, "w") as fh:
        fh.write(text)


if __name__ == "__main__":
    main()
