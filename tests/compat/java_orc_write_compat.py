#!/usr/bin/env python3
"""Java Paimon reads the ORC data files Fjord's own ORC writer (src/fjord/format/orc/) makes
exactly as Fjord reads them.

Tables of every type Paimon writes to ORC (BOOLEAN .. BIGINT, FLOAT, DOUBLE, DECIMAL of short and
long precision, CHAR(5), VARCHAR(10), STRING, BINARY, BYTES, DATE, TIME, TIMESTAMP(0..9),
TIMESTAMP_LTZ(0..9), ARRAY, MAP, MULTISET, ROW, nested), with TIMESTAMP values before 1970 with a
fraction of a second at every precision, made by `fjord table create ... -o file.format=orc` and
`fjord write`:

* append tables, one per `file.compression` (zstd, lz4, snappy, zlib, none), two Fjord commits;
* an append table of many small stripes (orc.stripe.size 16 KiB, orc.compress.size 4 KiB);
* an append table to which Java Paimon's own writer adds the second commit (`fjord-oracle
  write`: CHAR values padded by Java's ORC writer, which both readers strip) before Fjord's third;
* a primary-key table (2 buckets): inserts, then updates (+U, -U/+U) and deletes.

At every snapshot `fjord cat` and `fjord-oracle dump` must return the same rows, and those must be
the rows written, with one documented exception: a TIMESTAMP in the last second before 1970
(-1 s < t < 0) with at least a millisecond of fraction reads back one second late, in Java for
files Java writes as well, because ORC's timestamp encoding cannot hold it (docs/writing.md).

    java_orc_write_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import write_matrix as wm  # noqa: E402

PRECISIONS = range(10)
COLUMNS = ", ".join(
    ["id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE",
     "dec5 DECIMAL(5, 2), dec18 DECIMAL(18, 4), dec38 DECIMAL(38, 10)",
     "c CHAR(5), vc VARCHAR(10), s STRING, bin BINARY(3), vb BYTES, day DATE, t0 TIME, t3 TIME(3)"]
    + [f"ts{p} TIMESTAMP({p})" for p in PRECISIONS]
    + [f"ltz{p} TIMESTAMP({p}) WITH LOCAL TIME ZONE" for p in PRECISIONS]
    + ["arr ARRAY<ARRAY<INT>>, m MAP<STRING, ROW<a INT, b STRING>>, ms MULTISET<STRING>",
       "r ROW<x INT, y ARRAY<STRING>, z ROW<w DOUBLE>>, mk MAP<INT NOT NULL, BIGINT NOT NULL>"])
CODECS = ("zstd", "lz4", "snappy", "zlib", "none")

# Seconds and fractions (9 digits, cut to each precision) the timestamps combine.
TS_BASES = ["1969-12-31T23:59:59", "1969-12-31T23:59:58", "1969-07-20T20:17:40",
            "1900-01-01T00:00:00", "1970-01-01T00:00:00", "2024-02-29T12:00:00",
            "1969-12-31T00:00:00", "2262-04-11T23:47:15"]
TS_FRACTIONS = ["100000000", "999999999", "000000001", "500000000", "000999000", "001000000",
                "123456789", "000000000", "987654321", "000001000", "999000000"]


def timestamp(i, p, ltz):
    base = TS_BASES[i % len(TS_BASES)]
    frac = TS_FRACTIONS[(i // len(TS_BASES) + i) % len(TS_FRACTIONS)][:p]
    text = base + ("." + frac if p else "")
    return text + ("Z" if ltz else "")


def row(i, version=0):
    """Row i; version > 0 changes its non-key values (an update)."""
    v = version
    out = {
        "id": i,
        "b": None if i % 9 == 4 else (i + v) % 3 == 0,
        "ti": [-128, 127, 0, -1, 5][(i + v) % 5],
        "si": None if i % 11 == 3 else (i * 37 + v) % 65536 - 32768,
        "bi": [-9223372036854775808, 9223372036854775807, 0, i * 1000003 + v][i % 4],
        "f": [1.5, -0.0, 3.4028235E+38, 1.0E-45, "NaN", "-Infinity", i / 8][(i + v) % 7],
        "d": None if i % 6 == 5 else [4.9E-324, -2.25, 1.7976931348623157E+308, i * 1.25 + v][i % 4],
        "dec5": None if i % 7 == 6 else f"{(i * 37 + v) % 1000 - 500}.{i % 100:02d}",
        "dec18": f"-{(i * 7 + v) % 997 + 1}12345678901.{i % 10000:04d}",
        "dec38": ["-1234567890123456789012345678.0123456789", "0.0000000001",
                  "9999999999999999999999999999.9999999999", f"{i + v}.5000000000"][i % 4],
        "c": [None, "ab", "é", "", "abcde", "a b", "✓✓✓"][(i + v) % 7],
        "vc": [None, "hello", "", "ééééééééé", "q\"uo\\te", "ü" * 10][(i + v) % 6],
        "s": None if i % 5 == 1 else f"s-{i}-{v}-" + "x" * (i % 17) + "é",
        "bin": ["AAEC", "////", None][i % 3],
        "vb": ["", "AAEC/w==", None, "AA=="][(i + v) % 4],
        "day": [None, "0001-01-01", "1969-12-31", "1970-01-01", "2024-02-29", "9999-12-31"][i % 6],
        "t0": [None, "00:00:00", "12:34:56", "23:59:59"][(i + v) % 4],
        "t3": [None, "00:00:00.001", "23:59:59.999", "12:00:00.500"][i % 4],
        "arr": [[[1, None], [], None], [], None, [[i, v]]][i % 4],
        "m": [[["k", {"a": i, "b": "x"}], ["n", None]], [], None, [["z", {"a": None, "b": None}]]][
            (i + v) % 4],
        "ms": [["a", "a", "b"], [], None, [f"e{i}"]][i % 4],
        "r": [{"x": i, "y": ["p", None], "z": {"w": 0.5}}, None,
              {"x": None, "y": None, "z": None}, {"x": v, "y": [], "z": {"w": None}}][i % 4],
        "mk": [[[1, 2], [3, 4]], [], None, [[i, -i]]][(i + v) % 4],
    }
    for p in PRECISIONS:
        out[f"ts{p}"] = None if (i + p) % 13 == 12 else timestamp(i + v, p, False)
        out[f"ltz{p}"] = None if (i + p) % 13 == 11 else timestamp(i + 2 * v + 1, p, True)
    return out


def read_back(value):
    """What any ORC reader returns for a timestamp text: one second late in (-1 s, 0) with at
    least a millisecond of fraction."""
    if not isinstance(value, str) or not value.startswith("1969-12-31T23:59:59."):
        return value
    frac = value[len("1969-12-31T23:59:59."):].rstrip("Z")
    if int((frac + "000")[:3]) == 0:
        return value
    return "1970-01-01T00:00:00." + value[len("1969-12-31T23:59:59."):]


def as_read(rows):
    out = []
    for r in rows:
        r = dict(r)
        for p in PRECISIONS:
            for c in (f"ts{p}", f"ltz{p}"):
                if c in r:
                    r[c] = read_back(r[c])
        out.append(r)
    return out


def normalize(path):
    """MAP entries sorted by key; MULTISET as a sorted list of elements (Java prints a list with
    repeats, `fjord cat` [element, count] pairs)."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as f:
        for r in lines:
            for c in ("m", "mk"):
                if isinstance(r.get(c), list):
                    r[c] = sorted(r[c], key=lambda kv: json.dumps(kv))
            ms = r.get("ms")
            if isinstance(ms, list):
                flat = []
                for e in ms:
                    if isinstance(e, list) and len(e) == 2 and isinstance(e[1], int):
                        flat += [e[0]] * e[1]
                    else:
                        flat.append(e)
                r["ms"] = sorted(flat, key=json.dumps)
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def specs():
    out = []
    first = [row(i) for i in range(0, 60)]
    second = [row(i) for i in range(60, 100)]
    third = [row(i) for i in range(100, 120)]
    for codec in CODECS:
        out.append(("fjord", wm.Spec(f"types_{codec}", "orc", columns=COLUMNS,
                                     options={"file.compression": codec},
                                     commits=[first, second])))
    # Small stripes and compression blocks: many of each per file.
    out.append(("fjord", wm.Spec("types_stripes", "orc", columns=COLUMNS,
                                 options={"orc.stripe.size": "16384", "orc.compress.size": "4096",
                                          "orc.rows.between.memory.checks": "50"},
                                 commits=[[row(i) for i in range(0, 700)], second])))
    out.append(("java", wm.Spec("types_java_append", "orc", columns=COLUMNS,
                                options={"bucket": "2", "bucket-key": "id"},
                                commits=[first, second, third])))

    def kind(r, k):
        return dict(r, _row_kind=k)
    pk_second = ([kind(row(i, 1), "+U") for i in range(0, 10)]
                 + [x for i in range(10, 15) for x in (kind(row(i), "-U"), kind(row(i, 1), "+U"))]
                 + [kind(row(i), "-D") for i in range(15, 20)]
                 + [kind(row(i), "+I") for i in range(60, 80)])
    out.append(("fjord", wm.Spec("types_pk", "orc", columns=COLUMNS, primary_key="id",
                                 options={"bucket": "2"},
                                 commits=[[kind(r, "+I") for r in first], pk_second])))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    fj = args.fjord
    started = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-java-orc-")
    wh = os.path.join(work, "wh")
    assert wm.run([fj, "db", "create", wh, "w"]).returncode == 0
    status, tables = {}, {}
    plan = specs()
    for second_writer, spec in plan:
        tables[spec.name] = os.path.join(wh, "w.db", spec.name)
        r = wm.run(spec.create_command(fj, wh, "w"))
        status[spec.name] = f"create: {r.stderr.strip()[:300]}" if r.returncode else None

    def path(spec, what):
        return os.path.join(work, f"{spec.name}-{what}")

    def fjord_commit(spec, n):
        data = path(spec, f"commit{n}.jsonl")
        wm.write_jsonl(data, spec.commits[n - 1])
        r = wm.fjord_write(fj, tables[spec.name], data, n)
        if r.returncode and status[spec.name] is None:
            status[spec.name] = f"fjord write {n}: {r.stderr.strip()[:300]}"

    # Commits: Fjord writes all of them, except the second commit of types_java_append (Java).
    for _, spec in plan:
        fjord_commit(spec, 1)
    java_lines = []
    for writer, spec in plan:
        if writer == "java":
            wm.write_jsonl(path(spec, "commit2.jsonl"), spec.commits[1])
            java_lines.append((spec, ["write", tables[spec.name], "--input",
                                      path(spec, "commit2.jsonl"), "--commit-user", "java"]))
        elif status[spec.name] is None:
            fjord_commit(spec, 2)
    results = wm.run_batch([wm.ORACLE, "batch"], [line for _, line in java_lines],
                           os.path.join(work, "batch-write.txt"))
    for (spec, _), (ok, message) in zip(java_lines, results):
        if not ok and status[spec.name] is None:
            status[spec.name] = f"java write: {message[:400]}"
    for _, spec in plan:
        if len(spec.commits) > 2 and status[spec.name] is None:
            fjord_commit(spec, 3)

    # Java dumps every snapshot of every table (one JVM), then Fjord reads them.
    dumps = []
    for _, spec in plan:
        if status[spec.name] is not None:
            continue
        for n in range(1, len(spec.commits) + 1):
            dumps.append((spec, ["dump", tables[spec.name], "--snapshot", str(n),
                                 "--output", path(spec, f"s{n}.java.jsonl")]))
    results = wm.run_batch([wm.ORACLE, "batch"], [line for _, line in dumps],
                           os.path.join(work, "batch-dump.txt"))
    for (spec, line), (ok, message) in zip(dumps, results):
        if not ok and status[spec.name] is None:
            status[spec.name] = f"java dump {line[3]}: {message[:400]}"
    for _, spec in plan:
        if status[spec.name] is not None:
            continue
        for n in range(1, len(spec.commits) + 1):
            java = path(spec, f"s{n}.java.jsonl")
            mine = path(spec, f"s{n}.fjord.jsonl")
            want = path(spec, f"s{n}.expected.jsonl")
            rc, err = wm.fjord_cat(fj, tables[spec.name], mine, n)
            if rc:
                status[spec.name] = f"fjord cat --snapshot {n}: {err}"
                break
            wm.write_jsonl(want, as_read(wm.expected(spec, n)))
            for p in (java, mine, want):
                normalize(p)
            ok, report = wm.compare(java, mine)
            if not ok:
                status[spec.name] = f"snapshot {n}, Java vs Fjord: {report}"
                break
            ok, report = wm.compare(java, want)
            if not ok:
                status[spec.name] = f"snapshot {n}, Java vs the rows written: {report}"
                break

    passed = failed = 0
    for writer, spec in plan:
        st = status[spec.name]
        if st is None:
            who = "fjord, java, fjord" if writer == "java" else "fjord"
            print(f"{spec.name:20s} ok ({who} commits; {len(spec.commits)} snapshots equal)")
            passed += 1
        else:
            print(f"{spec.name:20s} FAIL {st}")
            failed += 1
    print(f"wall time {time.monotonic() - started:.1f} s")
    if failed == 0:
        shutil.rmtree(work, ignore_errors=True)
    else:
        print(f"work dir kept: {work}")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
