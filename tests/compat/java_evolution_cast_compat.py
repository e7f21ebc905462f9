#!/usr/bin/env python3
"""Schema-evolution casts: after ALTER TABLE changes a column's type, Fjord reads the files
written under the old type exactly as Java Paimon 1.4.2 does (issue 13, point 2).

1. Java lists which type changes its ALTER TABLE accepts among the types of TYPES (27 atomic,
   5 nested) (`fjord-oracle cast-pairs`: SchemaManager's check, DataTypeCasts.supportsCast with
   explicit casts allowed and with `disable-explicit-type-casting`, and a CastExecutors rule);
   the list must equal `tests/fixtures/java_cast_pairs.tsv`, which the unit test of Fjord's ALTER
   (`CatalogTest.AlterColumnTypeAllowsExactlyJavasPairs`) reads.
2. For every source type, in each file format (Parquet, ORC, Avro; fewer where a format cannot
   hold the type), Java Paimon creates a table `id INT, c0 FROM, c1 FROM, ...` with one column per
   target type Java accepts, writes the edge values of FROM (NULL, zero, extremes, fractions,
   times before 1970, text that parses and text that does not), alters every column to its
   target in one ALTER (`fjord-oracle alter`: Catalog.alterTable with
   SchemaChange.updateColumnType) and reads the table back (`fjord-oracle dump`); `fjord cat
   --format jsonl` must return the same rows. A column holds only the values Java's cast of its
   pair accepts (found in advance with `fjord-oracle cast-probe`, Java's CastExecutors applied in
   memory), NULL in the other rows.
3. Up to THROW_SAMPLES values per pair on which Java's cast throws are each written to a table of
   their own, which Java then fails to read: Fjord must fail too, with an error naming the data
   file and the column.
4. Type changes inside nested columns (NESTED_CHANGES: Java's nested field paths `v.element`,
   `v.value`, `v.b`), each value Java's element cast accepts in a row of its own, one it throws
   on in a table of its own.
5. A result Fjord's canonical TIMESTAMP cannot hold (KNOWN_LIMIT, docs/reading.md) makes Fjord
   fail: that pair is then read again, halving its values down to the ones concerned, which are
   listed (not failures).

One JVM (`fjord-oracle batch -`, fed line by line) serves the whole suite.

    java_evolution_cast_compat.py --fjord BUILD/tools/fjord [--only TYPE-substring] [--keep DIR]
        [--verbose]
"""
import argparse
import json
import math
import os
import random
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "interop"))
import compare_rows  # noqa: E402

ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")
GOLDEN_PAIRS = os.path.join(REPO, "tests", "fixtures", "java_cast_pairs.tsv")

TYPES = [
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE",
    "DECIMAL(5, 0)", "DECIMAL(10, 2)", "DECIMAL(20, 4)", "DECIMAL(38, 18)",
    "CHAR(5)", "VARCHAR(5)", "VARCHAR(40)", "STRING",
    "BINARY(4)", "VARBINARY(6)", "BYTES",
    "DATE", "TIME(0)", "TIME(3)",
    "TIMESTAMP(0)", "TIMESTAMP(3)", "TIMESTAMP(6)", "TIMESTAMP(9)",
    "TIMESTAMP(3) WITH LOCAL TIME ZONE", "TIMESTAMP(6) WITH LOCAL TIME ZONE",
    "ARRAY<DOUBLE>", "ARRAY<ARRAY<INT>>", "MAP<STRING, DECIMAL(10, 2)>",
    "ROW<a INT, b TIMESTAMP(3), c BYTES>", "MULTISET<INT>",
]

# Text that the string casts parse (or refuse): spaces, signs, fractions, exponents, words.
SHORT_TEXT = ["", "0", "1", "-1", "12", " 12", "+7", "-0", "1.5", "-2.5", ".5", "12.", "1e2",
              "abc", "t", "T", "y", "yes", "no", "N", "f", "true", "FALSE", "TRUE", "on", "NaN",
              "null", "é✓", "  ", "2023", "1:2:3", "0x10", "1.5f", "-", "2e-3", "99999"]
LONG_TEXT = ["  12 ", "12.7", "-12.9", "2147483647", "2147483648", "-2147483648",
             "9223372036854775807", "9223372036854775808", "-9223372036854775809", "1e5",
             "Infinity", "-Infinity", "+Infinity", "3.4028235E38", "3.5E38", "1.4E-45",
             "4.9E-324", "1.7976931348623157E308", "0.1", "123456.789", "99999.995",
             "-99999.995", "12345678.994", "12345678.995", "0.000000000000000001",
             "-0.0000000000000000005", "1.23456789012345678901234567890E+19", " 2.5 ", "0x1p3",
             "1.5d", "12,5", "1_000", "2023-01-15", "2023-1-5", " 2023-01-15", "2023-02-30",
             "2024-02-29", "2023-13-01", "2023-01-15 10:20:30", "2023-01-15 10:20:30.123456789",
             "2023-01-15 10:20:30.1234567891", "2023-01-15T10:20:30", "2023-01-15 1:2:3.5",
             "2023-01-15 24:00:00", "2023-01-15 10:20", "2023-01-15 10:20:", "2023-04-31",
             "0001-01-01", "9999-12-31 23:59:59.999", "1969-12-31 23:59:59.999999",
             "10:20:30", "10:20:30.5", "10:20:30.1239", "10:20", "23:59:59.999", "25:00:00",
             "1700000000", "-86401", "20000", "1700000000123",
             "the quick brown fox jumps over the lazy dog"]

VALUES = {
    "BOOLEAN": [True, False, None],
    "TINYINT": [0, 1, -1, 127, -128, 100, None],
    "SMALLINT": [0, -1, 32767, -32768, 300, 12345, None],
    "INT": [0, 1, -1, 2147483647, -2147483648, 383, 100000, 1700000000, -86401, None],
    "BIGINT": [0, -1, 9223372036854775807, -9223372036854775808, 2147483648, 4102444800,
               -86401, 1234567890123, 9007199254740993, None],
    "FLOAT": [0.0, -0.0, 1.5, -1.5, 2.5, -2.5, 0.1, 3.4028235e38, -3.4028235e38, 1.4e-45,
              1e-5, 1e10, 123456.79, 99999.5, 16777217.0, 3e9, "NaN", "Infinity", "-Infinity",
              None],
    "DOUBLE": [0.0, -0.0, 0.5, -0.5, 2.5, 0.1, 1.7976931348623157e308, 4.9e-324, 1e21, 1e-7,
               123.456, 99999.995, 1e7, 1.0000001, 3e9, -9.3e18, 1e19, 0.3333333333333333,
               "NaN", "-Infinity", None],
    "DECIMAL(5, 0)": ["0", "99999", "-99999", "128", "-129", "42", "1", None],
    "DECIMAL(10, 2)": ["0.00", "12345678.99", "-12345678.99", "0.05", "-0.05", "1.45", "2.50",
                       "-2.50", "127.99", "0.10", None],
    "DECIMAL(20, 4)": ["9999999999999999.9999", "-0.0001", "-1.5000", "0.0000", "3000000000.5555",
                       "1234567890123456.7890", "0.5000", None],
    "DECIMAL(38, 18)": ["12345678901234567890.123456789012345678", "-0.000000000000000001",
                        "99999999999999999999.999999999999999999", "0.500000000000000000",
                        "-0.500000000000000000", "1.000000000000000000",
                        "-9223372036854775809.000000000000000000", None],
    "CHAR(5)": [s for s in SHORT_TEXT if len(s) <= 5] + [None],
    "VARCHAR(5)": [s for s in SHORT_TEXT if len(s) <= 5] + [None],
    "VARCHAR(40)": SHORT_TEXT + [s for s in LONG_TEXT if len(s) <= 40] + [None],
    "STRING": SHORT_TEXT + LONG_TEXT + [None],
    # base64: "\0\1\2\3", "hell", "1234", "true"
    "BINARY(4)": ["AAECAw==", "aGVsbA==", "MTIzNA==", "dHJ1ZQ==", None],
    # "", "hi", "hello!", "123", "true", "é"
    "VARBINARY(6)": ["", "aGk=", "aGVsbG8h", "MTIz", "dHJ1ZQ==", "w6k=", None],
    # also "hello world" (longer than 6 and than 4)
    "BYTES": ["", "aGk=", "aGVsbG8h", "MTIz", "aGVsbG8gd29ybGQ=", "w6k=", None],
    "DATE": ["1970-01-01", "2023-01-15", "1969-12-31", "0001-01-01", "9999-12-31",
             "2024-02-29", "1900-03-01", None],
    "TIME(0)": ["00:00:00", "23:59:59", "12:34:56", None],
    "ARRAY<DOUBLE>": [[1.5, None, -0.0, 1e21, 0.1, "NaN"], [], None, [4.9e-324]],
    "ARRAY<ARRAY<INT>>": [[[1, 2], [], None, [None]], [], None],
    "MAP<STRING, DECIMAL(10, 2)>": [[["a", "1.50"], ["b", None], ["", "-0.05"]], [], None],
    "ROW<a INT, b TIMESTAMP(3), c BYTES>": [{"a": 1, "b": "2023-01-15T10:20:30.100", "c": "aGk="},
                                            {"a": None, "b": None, "c": None}, None],
    "MULTISET<INT>": [[1, 1, 2], None],
    "TIME(3)": ["00:00:00.000", "23:59:59.999", "12:34:56.789", "01:02:03.100", None],
}

def _random_floats(seed, count, single):
    """Finite values from random bit patterns (all magnitudes, subnormals included), as JSON
    numbers: FLOAT and DOUBLE texts (Java's Float/Double.toString) and their DECIMAL digits."""
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        if single:
            v = struct.unpack("<f", struct.pack("<I", rng.getrandbits(32)))[0]
            text = repr(v)  # a double that is exactly the float
        else:
            v = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
            text = repr(v)
        if math.isfinite(v):
            out.append(float(text))
    return out


VALUES["FLOAT"] += _random_floats(13, 100, True)
VALUES["DOUBLE"] += _random_floats(14, 100, False)

TS_TEXT = ["1970-01-01T00:00:00.000000000", "2023-01-15T10:20:30.123456789",
           "1969-12-31T23:59:59.500000000", "1969-12-31T23:59:59.999999999",
           "1969-07-20T20:17:40.000000001", "1900-01-01T00:00:00.000000000",
           "2024-02-29T23:59:59.999999999", "1970-01-01T00:00:00.000001000",
           "1969-12-31T12:00:00.000000000", "2038-01-19T03:14:08.000000000"]


def timestamps(p, ltz):
    out = []
    for t in TS_TEXT:
        base, frac = t.split(".")
        out.append(base + ("." + frac[:p] if p else "") + ("Z" if ltz else ""))
    return out + [None]


for _p in (0, 3, 6, 9):
    VALUES[f"TIMESTAMP({_p})"] = timestamps(_p, False)
for _p in (3, 6):
    VALUES[f"TIMESTAMP({_p}) WITH LOCAL TIME ZONE"] = timestamps(_p, True)

FORMATS = ("parquet", "orc", "avro")
# Fjord's error for a result its canonical TIMESTAMP(p) cannot hold (years beyond 1677..2262 at
# p = 7..9): a documented limit, listed but not a failure.
KNOWN_LIMIT = "beyond the range of TIMESTAMP"
# Values Java's cast throws on, read end to end per pair (each needs a table of its own).
THROW_SAMPLES = 2


class Java:
    """One `fjord-oracle batch -` JVM, fed one command line at a time."""

    def __init__(self):
        self.proc = subprocess.Popen([ORACLE, "batch", "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.calls = 0

    def __call__(self, *args):
        self.calls += 1
        self.proc.stdin.write(json.dumps(list(args), ensure_ascii=False) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the Java oracle ended early")
        answer = json.loads(line)
        return answer["ok"], answer["message"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def write_rows(path, values):
    with open(path, "w", encoding="utf-8") as f:
        for i, v in values:
            f.write(json.dumps({"id": i, "v": v}, ensure_ascii=False) + "\n")


def fjord_cat(fjord, table_dir, out_path):
    with open(out_path, "w", encoding="utf-8") as out:
        r = subprocess.run([fjord, "cat", table_dir, "--format", "jsonl"], stdout=out,
                           stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stderr.strip()


def same_rows(a, b):
    rows_a, _ = compare_rows.load_rows(a)
    rows_b, _ = compare_rows.load_rows(b)
    return rows_a == rows_b


def first_lines(path, n=12):
    with open(path, encoding="utf-8") as f:
        return "".join(f.readlines()[:n])


def check_pairs_list(java, work):
    types_file = os.path.join(work, "types.txt")
    with open(types_file, "w", encoding="utf-8") as f:
        f.write("\n".join(TYPES) + "\n")
    out = os.path.join(work, "pairs.tsv")
    ok, msg = java("cast-pairs", types_file, "--output", out)
    if not ok:
        raise RuntimeError("cast-pairs failed: " + msg)
    with open(out, encoding="utf-8") as f:
        live = f.read()
    with open(GOLDEN_PAIRS, encoding="utf-8") as f:
        golden = "".join(line for line in f if not line.startswith("#"))
    pairs = [line.split("\t") for line in live.splitlines()]
    return live == golden, pairs


def formats_for(src, dst=None):
    """The file formats a table of a FROM column (altered to TO) is written in."""
    if src.startswith(("CHAR", "MAP")):
        return ["parquet"]  # ORC pads CHAR; Java's Avro reader gives MAP entries in hash order
    if "TIMESTAMP(9)" in (src, dst):
        return ["parquet", "orc"]  # Avro has no TIMESTAMP(9)
    return list(FORMATS)


class Suite:
    def __init__(self, args, work, java):
        self.args, self.work, self.java = args, work, java
        self.wh = os.path.join(work, "wh", "db.db")
        self.n = 0
        self.failures = []
        self.known = []  # Fjord's documented limits (docs/reading.md), listed, not failures
        self.counts = {"pairs": 0, "pair_formats": 0, "values": 0, "pairs_throwing": 0,
                       "java_throws": 0, "throws_read": 0, "tables": 0, "nested": 0}

    def table(self, src, fmt, columns, rows, column_name=None):
        """Java creates a table `id INT, <columns> src` in `fmt`, writes `rows`, alters each
        column to its target ({column: type}) and reads it; Fjord reads it too. Returns (java ok,
        java message, java rows file, fjord exit code, fjord stderr, fjord rows file, dir)."""
        self.n += 1
        self.counts["tables"] += 1
        d = os.path.join(self.wh, f"t{self.n}")
        rows_file = os.path.join(self.work, f"t{self.n}.in.jsonl")
        with open(rows_file, "w", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps(r, ensure_ascii=False) + "\n")
        cols = [["id", "INT"]] + ([[column_name, src]] if column_name else
                                  [[c, src] for c in columns])
        for cmd in (["create", d, "--columns", json.dumps(cols),
                     "--options", json.dumps({"file.format": fmt, "bucket": "-1"})],
                    ["write", d, "--input", rows_file],
                    ["alter", d, "--change-types", json.dumps(columns)]):
            ok, msg = self.java(*cmd)
            if not ok:
                raise RuntimeError(f"{src} ({fmt}): Java {cmd[0]} failed: {msg}")
        jout = os.path.join(self.work, f"t{self.n}.java.jsonl")
        fout = os.path.join(self.work, f"t{self.n}.fjord.jsonl")
        ok, msg = self.java("dump", d, "--output", jout)
        rc, err = fjord_cat(self.args.fjord, d, fout)
        return ok, msg, jout, rc, err, fout, d

    def probe(self, src, dst, values):
        rows = os.path.join(self.work, "probe.in.jsonl")
        write_rows(rows, values)
        out = os.path.join(self.work, "probe.out")
        ok, msg = self.java("cast-probe", src, dst, "--input", rows, "--output", out)
        if not ok:
            raise RuntimeError(f"{src} -> {dst}: cast-probe failed: {msg}")
        with open(out, encoding="utf-8") as f:
            return f.read().splitlines()

    def source(self, src, targets):
        """Every accepted change of a `src` column: one table per file format with one column
        per target type, holding the values Java's cast of that pair accepts (NULL elsewhere)."""
        values = list(enumerate(VALUES[src]))
        verdicts = {t: self.probe(src, t, values) for t in targets}
        for t in targets:
            self.counts["pairs"] += 1
            self.counts["values"] += sum(1 for v in verdicts[t] if v == "ok")
        for fmt in formats_for(src):
            pending = [t for t in targets if fmt in formats_for(src, t)]
            while pending:
                columns = {f"c{k}": t for k, t in enumerate(pending)}
                rows = [dict({"id": i}, **{c: (v if verdicts[t][i] == "ok" else None)
                                           for c, t in columns.items()}) for i, v in values]
                ok, msg, jout, rc, err, fout, d = self.table(src, fmt, columns, rows)
                label = f"{src} ({fmt})"
                if not ok:
                    self.failures.append(f"{label}: Java's read fails on values its casts "
                                         f"accept: {msg}")
                    break
                if rc != 0:
                    m = re.search(r"column '(c\d+)'", err)
                    if KNOWN_LIMIT in err and m:
                        # Beyond Fjord's TIMESTAMP range: this pair value by value, the rest again.
                        t = columns[m.group(1)]
                        pending.remove(t)
                        self.counts["pair_formats"] += 1
                        self.value_by_value(src, t, fmt, [iv for iv, r in zip(values, verdicts[t])
                                                          if r == "ok"])
                        continue
                    self.failures.append(f"{label}: Java reads, Fjord fails: {err}")
                    break
                self.counts["pair_formats"] += len(pending)
                for c, t in columns.items():
                    diff = column_diff(jout, fout, c)
                    if diff:
                        self.failures.append(f"{src} -> {t} ({fmt}): rows differ: {diff}")
                break
        # A few values Java's cast throws on, each in a table of its own: Java's read fails, so
        # must Fjord's, naming the file and the column.
        for k, t in enumerate(targets):
            bad = [(iv, r) for iv, r in zip(values, verdicts[t]) if r != "ok"]
            if not bad:
                continue
            self.counts["pairs_throwing"] += 1
            self.counts["java_throws"] += len(bad)
            step = max(1, len(bad) // THROW_SAMPLES)
            fmts = formats_for(src, t)
            for j, ((i, v), verdict) in enumerate(bad[::step][:THROW_SAMPLES]):
                self.counts["throws_read"] += 1
                fmt = fmts[(k + j) % len(fmts)]
                ok, msg, jout, rc, err, fout, d = self.table(src, fmt, {"v": t}, [{"id": i, "v": v}])
                label = f"{src} -> {t} ({fmt}) value {json.dumps(v, ensure_ascii=False)}"
                if ok:
                    self.failures.append(f"{label}: cast-probe said {verdict[:120]}, "
                                         f"but Java reads it")
                elif rc == 0:
                    self.failures.append(f"{label}: Java's cast throws ({msg[:200]}), Fjord "
                                         f"read {first_lines(fout).strip()}")
                elif "'v'" not in err or d not in err:
                    self.failures.append(f"{label}: Fjord's error names neither the column "
                                         f"nor the file: {err}")
                elif self.args.verbose:
                    print(f"  throws alike: {label}\n    java:  {msg[:160]}\n    fjord: "
                          f"{err[err.rfind(': column'):][:160]}")

    def value_by_value(self, src, t, fmt, good):
        """Reads the pair's values, halving the set while Fjord reports a result beyond its
        TIMESTAMP range, down to the single values that have one (listed as known)."""
        if not good:
            return
        ok, msg, jout, rc, err, fout, d = self.table(
            src, fmt, {"v": t}, [{"id": i, "v": v} for i, v in good])
        label = f"{src} -> {t} ({fmt})"
        if len(good) == 1:
            label += f" value {json.dumps(good[0][1], ensure_ascii=False)}"
        if ok and rc != 0 and KNOWN_LIMIT in err:
            if len(good) == 1:
                self.known.append(f"{label}: Java reads {first_lines(jout).strip()}, Fjord: "
                                  f"{err[err.find('the result'):]}")
            else:
                half = len(good) // 2
                self.value_by_value(src, t, fmt, good[:half])
                self.value_by_value(src, t, fmt, good[half:])
        elif not ok:
            self.failures.append(f"{label}: Java's read fails: {msg}")
        elif rc != 0:
            self.failures.append(f"{label}: Java reads, Fjord fails: {err}")
        elif not same_rows(jout, fout):
            self.failures.append(f"{label}: rows differ: {column_diff(jout, fout, 'v')}")


def column_diff(java_out, fjord_out, column):
    """The rows (id, column) that differ between the two reads, or ''."""
    def load(path):
        rows = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                if line.strip():
                    r = compare_rows.parse_line(line)
                    rows[int(r["id"])] = (compare_rows.canon(r[column]), json.dumps(
                        json.loads(line)[column], ensure_ascii=False))
        return rows
    a, b = load(java_out), load(fjord_out)
    bad = [i for i in sorted(set(a) | set(b)) if (a.get(i) or (None,))[0] != (b.get(i) or (None,))[0]]
    return ", ".join(f"id {i}: java {a.get(i, (0, 'missing'))[1]} fjord "
                     f"{b.get(i, (0, 'missing'))[1]}" for i in bad[:6])


# Changes inside nested columns (`fjord-oracle alter` on "v.element", "v.value", "v.b": Java's
# nested field paths): (column type, path, new inner type).
NESTED_CHANGES = [
    ("ARRAY<INT>", "element", "TINYINT"), ("ARRAY<INT>", "element", "STRING"),
    ("ARRAY<INT>", "element", "DECIMAL(5, 0)"), ("ARRAY<INT>", "element", "BOOLEAN"),
    ("ARRAY<STRING>", "element", "INT"), ("ARRAY<STRING>", "element", "DATE"),
    ("ARRAY<DOUBLE>", "element", "DECIMAL(10, 2)"), ("ARRAY<TIMESTAMP(6)>", "element", "TIMESTAMP(0)"),
    ("MAP<STRING, INT>", "value", "STRING"), ("MAP<STRING, DOUBLE>", "value", "FLOAT"),
    ("MAP<STRING, STRING>", "value", "BOOLEAN"),
    ("ROW<a INT, b STRING>", "b", "DECIMAL(10, 2)"), ("ROW<a INT, b BIGINT>", "b", "INT"),
]


def nested_changes(suite):
    """Each value Java's element cast accepts as a one-element ARRAY (or MAP entry) of its own
    row, all of them in one more row, then a NULL element and a NULL column; and one value it
    throws on, in a table of its own."""
    for column, part, inner_to in NESTED_CHANGES:
        inner_from = column[column.index("<") + 1:-1].split(", ")[-1]
        if column.startswith("ROW"):
            inner_from = inner_from.split(" ", 1)[1]
        values = [(i, v) for i, v in enumerate(VALUES[inner_from]) if v is not None]
        verdicts = suite.probe(inner_from, inner_to, values)
        good = [v for (i, v), r in zip(values, verdicts) if r == "ok"]
        bad = [v for (i, v), r in zip(values, verdicts) if r != "ok"]

        def wrap(vs):
            if column.startswith("ROW"):
                return {"a": len(vs), "b": vs[0] if vs else None}
            return [[f"k{j}", v] for j, v in enumerate(vs)] if part == "value" else vs
        rows = [{"id": i, "v": wrap([v])} for i, v in enumerate(good)]
        rows += [{"id": len(good), "v": wrap(good)}, {"id": len(good) + 1, "v": wrap([None])},
                 {"id": len(good) + 2, "v": None}]
        label = f"{column} {part} -> {inner_to}"
        suite.counts["nested"] += 1
        fmt = "parquet" if column.startswith("MAP") else FORMATS[suite.n % len(FORMATS)]
        ok, msg, jout, rc, err, fout, d = suite.table(column, fmt, {f"v.{part}": inner_to},
                                                      rows, column_name="v")
        if not ok:
            suite.failures.append(f"{label} ({fmt}): Java's read fails: {msg}")
        elif rc != 0:
            suite.failures.append(f"{label} ({fmt}): Java reads, Fjord fails: {err}")
        elif column_diff(jout, fout, "v"):
            suite.failures.append(f"{label} ({fmt}): rows differ: {column_diff(jout, fout, 'v')}")
        for v in bad[:1]:
            ok, msg, jout, rc, err, fout, d = suite.table(
                column, fmt, {f"v.{part}": inner_to}, [{"id": 0, "v": wrap([v])}], column_name="v")
            one = f"{label} ({fmt}) value {json.dumps(v, ensure_ascii=False)}"
            suite.counts["throws_read"] += 1
            if ok:
                suite.failures.append(f"{one}: cast-probe said it throws, but Java reads it")
            elif rc == 0:
                suite.failures.append(f"{one}: Java's cast throws ({msg[:200]}), Fjord read "
                                      f"{first_lines(fout).strip()}")
            elif "'v'" not in err or d not in err:
                suite.failures.append(f"{one}: Fjord's error names neither the column nor the "
                                      f"file: {err}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--only", help="only pairs whose FROM or TO type contains this text")
    ap.add_argument("--keep", help="work directory to keep (default: a temporary one)")
    ap.add_argument("--verbose", action="store_true", help="print every failure both agree on")
    args = ap.parse_args()
    work = args.keep or tempfile.mkdtemp(prefix="fjord-evolution-casts-")
    if args.keep:
        shutil.rmtree(work, ignore_errors=True)
        os.makedirs(work)
    start = time.time()
    java = Java()
    suite = Suite(args, work, java)
    try:
        golden_ok, pairs = check_pairs_list(java, work)
        if not golden_ok:
            suite.failures.append("Java's accepted type changes differ from tests/fixtures/"
                                  "java_cast_pairs.tsv (regenerate it with fjord-oracle "
                                  "cast-pairs)")
        allowed = [(f, t) for f, t, explicit, _ in pairs if explicit == "true"]
        print(f"Java's ALTER TABLE accepts {len(allowed)} of {len(pairs)} ordered pairs of "
              f"{len(TYPES)} types ({sum(1 for p in pairs if p[3] == 'true')} with "
              f"disable-explicit-type-casting)")
        if args.only:
            allowed = [(f, t) for f, t in allowed if args.only in f or args.only in t]
        by_source = {}
        for f, t in allowed:
            by_source.setdefault(f, []).append(t)
        for src, targets in by_source.items():
            suite.source(src, targets)
        if not args.only:
            nested_changes(suite)
    finally:
        java.close()
    c = suite.counts
    print(f"{c['pairs']} type pairs checked ({c['pair_formats']} pair x file format reads): "
          f"{c['values']} values read alike; {c['java_throws']} values on which Java's cast "
          f"throws ({c['pairs_throwing']} pairs), {c['throws_read']} of them read end to end, "
          f"failing in both; {c['nested']} changes inside ARRAY, MAP and ROW columns; "
          f"{c['tables']} tables, {java.calls} oracle calls, "
          f"{time.time() - start:.0f} s")
    for k in suite.known:
        print("KNOWN (Fjord's TIMESTAMP range): " + k)
    for f in suite.failures:
        print("FAIL: " + f)
    if not args.keep and not suite.failures:
        shutil.rmtree(work, ignore_errors=True)
    elif not args.keep:
        print(f"(work directory kept: {work})")
    return 1 if suite.failures else 0


if __name__ == "__main__":
    sys.exit(main())
