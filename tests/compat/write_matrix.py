"""The table matrix shared by the interop tests in which Fjord writes and another implementation
reads or writes too (java_append_compat.py, pypaimon_write_compat.py).

A table is a `Spec`: its columns, primary and partition keys, options, and a list of commits, each
a list of rows in the canonical JSON-lines form (`_row_kind` = +I/-U/+U/-D on primary-key tables).
`expected(spec, n)` is what any reader must return after the first n commits: every row for an
append table; for a primary-key table (deduplicate merge engine) the last record of each key,
dropped when that record is -U or -D.

Adding a table is adding a Spec to `append_specs` or `pk_specs`. Primary-key specs are written
with `fjord write` like the others; while `fjord write` answers NotImplemented for primary-key
tables, `pk_write_unsupported` recognises the refusal and the tests print
"SKIP: fjord write does not support primary-key tables yet" for those tables instead of failing.
"""
import json
import os
import subprocess
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
COMPARE = os.path.join(REPO, "interop", "compare_rows.py")
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")

COLUMNS = ("id INT NOT NULL, name STRING, p STRING, amount DECIMAL(10, 2), big DECIMAL(30, 5), "
           "f FLOAT, d DOUBLE, b BOOLEAN, day DATE, ts3 TIMESTAMP(3), ts6 TIMESTAMP(6), "
           "ltz TIMESTAMP(3) WITH LOCAL TIME ZONE, bin BYTES, tags ARRAY<STRING>, "
           "attrs MAP<STRING, INT>, point ROW<x DOUBLE, y DOUBLE>")

# Partition values that need escaping in paths (spec/format.md §1.3), the empty string and NULL
# (both the default partition). pypaimon builds partition paths without escaping, so the pypaimon
# matrix uses PLAIN_PARTITION_VALUES (docs/status.md). Primary keys include the partition keys and
# are NOT NULL: PK_PARTITION_VALUES.
ESCAPED_PARTITION_VALUES = ["a", "b/c", "x=y:z", "", None, "ünï"]
PLAIN_PARTITION_VALUES = ["a", "b", "c2", "", None, "ünï"]
PK_PARTITION_VALUES = ["a", "b", "c2", "d_4"]
FORMATS = ("parquet", "orc", "avro")

SKIP_PK = "SKIP: fjord write does not support primary-key tables yet"


class Spec:
    def __init__(self, name, fmt, primary_key=None, partition_keys=None, options=None,
                 commits=None, columns=COLUMNS):
        self.name = name
        self.columns = columns
        self.fmt = fmt
        self.primary_key = primary_key
        self.partition_keys = partition_keys
        self.options = dict(options or {})
        self.commits = commits or []

    def create_command(self, fjord, warehouse, db):
        cmd = [fjord, "table", "create", warehouse, f"{db}.{self.name}", "--columns", self.columns,
               "-o", f"file.format={self.fmt}"]
        for k, v in self.options.items():
            cmd += ["-o", f"{k}={v}"]
        if self.primary_key:
            cmd += ["--primary-key", self.primary_key]
        if self.partition_keys:
            cmd += ["--partition-keys", self.partition_keys]
        return cmd


def row(i, fmt, partition_values, version=0):
    """Row number i; version > 0 changes its non-key values (an update of a primary-key row)."""
    v = f"-v{version}" if version else ""
    return {
        "id": i,
        "name": None if i % 7 == 0 else f"name-{i}-ü{v}",
        "p": partition_values[i % len(partition_values)],
        "amount": f"{i * 3 + version}.{i % 100:02d}",
        "big": f"{-(i * 10**13 + 1234567890123)}.12345",
        "f": i / 4 + version,
        "d": None if i % 5 == 0 else i * 1.25,
        "b": (i + version) % 2 == 0,
        "day": f"2024-0{1 + i % 9}-1{i % 10}",
        "ts3": f"2024-03-01T10:{i % 60:02d}:05.123",
        "ts6": f"1969-12-31T23:59:{i % 59:02d}.123456",
        "ltz": f"2024-06-01T00:00:{i % 60:02d}.500Z",
        "bin": "AAEC/w==",
        "tags": ["x", "", None] if i % 3 else [],
        "attrs": [["k", i + version], ["n", None]],
        "point": {"x": i * 0.5, "y": None if not version else float(version)},
    }


def append_commits(fmt, partition_values, sizes=((0, 13), (13, 11), (24, 6))):
    return [[row(i, fmt, partition_values) for i in range(first, first + count)]
            for first, count in sizes]


def pk_commits(fmt, partition_values):
    """Three commits on a primary-key table: inserts; then updates (as +U alone and as -U/+U
    pairs), deletes and new inserts; then updates and deletes of rows the second commit wrote, a
    delete of a key that does not exist and a re-insert of a deleted key."""
    def r(i, version, kind):
        out = row(i, fmt, partition_values, version)
        out["_row_kind"] = kind
        return out
    first = [r(i, 0, "+I") for i in range(0, 20)]
    second = ([r(i, 1, "+U") for i in range(0, 5)]
              + [x for i in range(5, 8) for x in (r(i, 0, "-U"), r(i, 1, "+U"))]
              + [r(i, 0, "-D") for i in range(8, 11)]
              + [r(i, 0, "+I") for i in range(20, 26)])
    third = ([r(i, 2, "+U") for i in (0, 5, 20)]
             + [r(i, 1, "-D") for i in (1, 6)] + [r(21, 0, "-D")]
             + [r(900, 0, "-D")]  # no such key
             + [r(8, 3, "+I")]    # deleted in the second commit, inserted again
             + [r(i, 0, "+I") for i in range(26, 30)])
    return [first, second, third]


def append_specs(partition_values, formats=FORMATS):
    specs = []
    for fmt in formats:
        specs.append(Spec(f"t_{fmt}_plain", fmt, commits=append_commits(fmt, partition_values)))
        specs.append(Spec(f"t_{fmt}_partitioned", fmt, partition_keys="p",
                          commits=append_commits(fmt, partition_values)))
        specs.append(Spec(f"t_{fmt}_bucketed", fmt, partition_keys="p",
                          options={"bucket": "3", "bucket-key": "id"},
                          commits=append_commits(fmt, partition_values)))
    return specs


def pk_specs(formats=FORMATS):
    """Primary-key tables (deduplicate). A primary key includes the partition keys, whose columns
    become NOT NULL, so partitioned primary-key tables use plain, non-NULL partition values.
    Fixed buckets only: Java's batch writer cannot write dynamic-bucket (bucket = -1) tables
    without a bucket assigner."""
    specs = []
    for fmt in formats:
        values = PK_PARTITION_VALUES
        specs.append(Spec(f"pk_{fmt}_plain", fmt, primary_key="id", options={"bucket": "1"},
                          commits=pk_commits(fmt, values)))
        specs.append(Spec(f"pk_{fmt}_partitioned", fmt, primary_key="id,p", partition_keys="p",
                          options={"bucket": "2"}, commits=pk_commits(fmt, values)))
        specs.append(Spec(f"pk_{fmt}_bucketed", fmt, primary_key="id", options={"bucket": "3"},
                          commits=pk_commits(fmt, values)))
    return specs


# Edge values of every type of the JSON form, in every file format.
def edge_columns(fmt):
    # Paimon's Avro format has no TIMESTAMP with more than 6 fractional digits.
    return ("id INT NOT NULL, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
            "dec38 DECIMAL(38, 10), dec5 DECIMAL(5, 0), c CHAR(5), vc VARCHAR(10), s STRING, "
            "bin BINARY(3), vb VARBINARY(10), day DATE, t0 TIME, t3 TIME(3), ts0 TIMESTAMP(0), "
            f"ts9 TIMESTAMP({6 if fmt == 'avro' else 9}), "
            "ltz6 TIMESTAMP(6) WITH LOCAL TIME ZONE, ltz0 TIMESTAMP(0) WITH LOCAL TIME ZONE, "
            "arr ARRAY<ARRAY<INT>>, m MAP<INT, ROW<a STRING, b DOUBLE>>, "
            "r ROW<x ROW<y FLOAT>, z ARRAY<STRING>>")


def edge_rows(fmt):
    rows = _edge_rows(fmt)
    if fmt == "avro":
        for r in rows:
            if r.get("ts9"):
                r["ts9"] = r["ts9"][:-3]  # TIMESTAMP(6)
    return rows


def _edge_rows(fmt):
    # ORC cannot hold a TIMESTAMP in the last second before 1970 with a fraction of at least a
    # millisecond (every reader, Java's included, returns it one second late; docs/writing.md):
    # ORC tables get values a second earlier.
    last = "58" if fmt == "orc" else "59"
    return [
        {"id": 1, "ti": -128, "si": 32767, "bi": -9223372036854775808, "f": 1.0E-45,
         "d": 4.9E-324, "dec38": "-1234567890123456789012345678.0123456789", "dec5": "99999",
         "c": "ab", "vc": 'q"uo\\te', "s": "line\nfeed\ttab\u0001ctl é ✓ 𝄞", "bin": "AAEC",
         "vb": "", "day": "0001-01-01", "t0": "00:00:00", "t3": "23:59:59.999",
         "ts0": "1900-01-01T00:00:00",
         "ts9": f"1969-12-31T23:59:{last}.999999999",
         "ltz6": "1970-01-01T00:00:00.000001Z", "ltz0": "2038-01-19T03:14:08Z",
         "arr": [[1, None], [], None], "m": [[1, {"a": "x", "b": "NaN"}], [2, None]],
         "r": {"x": {"y": "-Infinity"}, "z": []}},
        {"id": 2, "ti": 127, "si": -32768, "bi": 9223372036854775807, "f": 3.4028235E+38,
         "d": 1.7976931348623157E+308, "dec38": "0.0000000001", "dec5": "-1", "c": "abcde",
         "vc": "", "s": "", "bin": "////", "vb": "AA==", "day": "9999-12-31", "t0": "12:34:56",
         "t3": "00:00:00.001", "ts0": "2262-04-11T23:47:16",
         "ts9": "2024-02-29T12:00:00.000000001",
         "ltz6": f"1969-12-31T23:59:{last}.999999Z",
         "ltz0": "1901-12-13T20:45:52Z", "arr": [], "m": [], "r": {"x": None, "z": [None, ""]}},
        {"id": 3, "f": -0.0, "d": -0.0, "dec38": "0.0000000000",
         "r": {"x": {"y": 0.1}, "z": None}},
        {"id": 4, "f": "NaN", "d": "Infinity", "s": '"\\/'},
        {"id": 5, "f": 1.5E+30, "d": 1.0E-10},
        {"id": 6, "f": 123456.79, "d": 1.0E21},
        {"id": 7, "f": 1.0E-7, "d": 9.999999999999999E20},
        {"id": 8, "f": 16777216.0, "d": 0.30000000000000004},
        {"id": 9, "f": 1.1754944E-38, "d": 2.2250738585072014E-308},
        {"id": 10, "f": 0.001, "d": 100.0},
        {"id": 11, "f": 1.2345679E+17, "d": 1.2345678901234567E+19},
        {"id": 12, "f": 3.0E+10, "d": 5.0E+15},
    ]


# Rows of edge_rows that `fjord cat` prints as a different number (Fjord's divergence, not
# pypaimon's): std::to_chars without a format picks fixed notation when it is not longer, and
# then prints a double's exact integer value instead of its shortest digits:
# 9.999999999999999E20 -> 999999999999999868928 (Java, pypaimon: 999999999999999900000.0),
# 1.2345678901234567E19 -> 12345678901234567168 (12345678901234567000.0). compare_rows.py
# compares numbers by exact decimal value, so these rows differ; pypaimon's text is still checked
# against Java's (pypaimon_fixture_compat.py). (src/fjord/format/row_json.cc)
FJORD_DOUBLE_TEXT_IDS = {7, 11}


def fill_chars(rows):
    """The rows with their CHAR(5) values filled to 5 characters. ORC stores CHAR(5) values padded
    with blanks to 5 characters (Java's writer and Fjord's); Java's and Fjord's readers strip
    them, pypaimon's (pyarrow.orc) returns them (pypaimon_write_compat.py, KNOWN_LIMITATIONS)."""
    return [dict(r, c=r["c"].ljust(5, "z")) if r.get("c") else r for r in rows]


def edge_specs(formats=FORMATS, fill_orc_chars=False):
    """Append tables of edge values written in three commits (ids +0, +100, +200); without the
    rows that `fjord cat` prints as a different number (FJORD_DOUBLE_TEXT_IDS). With
    fill_orc_chars, the ORC table's CHAR(5) values fill all 5 characters (fill_chars)."""
    specs = []
    for fmt in formats:
        base = [r for r in edge_rows(fmt) if r["id"] not in FJORD_DOUBLE_TEXT_IDS]
        if fmt == "orc" and fill_orc_chars:
            base = fill_chars(base)
        commits = [[dict(r, id=r["id"] + offset) for r in base] for offset in (0, 100, 200)]
        specs.append(Spec(f"edge_{fmt}", fmt, columns=edge_columns(fmt), commits=commits))
    return specs


def column_names(columns):
    """The top-level column names of a --columns text."""
    names, depth, start = [], 0, 0
    for i, c in enumerate(columns + ","):
        if c in "<(":
            depth += 1
        elif c in ">)":
            depth -= 1
        elif c == "," and depth == 0:
            names.append(columns[start:i].split()[0])
            start = i + 1
    return names


def expected(spec, n):
    """The rows any reader must see after the first n commits of spec (no _row_kind; a column
    the input leaves out is NULL)."""
    names = column_names(spec.columns)
    return [{c: r.get(c) for c in names} for r in _expected(spec, n)]


def _expected(spec, n):
    if not spec.primary_key:
        return [dict(r) for commit in spec.commits[:n] for r in commit]
    keys = spec.primary_key.split(",")
    state = {}
    for commit in spec.commits[:n]:
        for r in commit:
            key = json.dumps([r[k] for k in keys])
            state.pop(key, None)  # re-inserted keys go to the end, like a new row
            if r.get("_row_kind", "+I") in ("+I", "+U"):
                state[key] = {k: v for k, v in r.items() if k != "_row_kind"}
    return list(state.values())


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def run(cmd, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def pk_write_unsupported(spec, result):
    """True when `fjord write` refused a primary-key table with its NotImplemented error."""
    return (bool(spec.primary_key) and result.returncode != 0
            and "NotImplemented" in result.stderr)


def fjord_write(fjord, table_dir, path, commit_id):
    return run([fjord, "write", table_dir, "--input", path, "--commit-user", "fjord-compat",
                "--commit-id", str(commit_id)])


def normalize_maps(path, map_columns=("attrs", "m")):
    """MAP entries have no order (Java's Avro reader yields hash order): sort them by key."""
    with open(path, encoding="utf-8") as f:
        lines = [json.loads(line) for line in f if line.strip()]
    with open(path, "w", encoding="utf-8") as f:
        for r in lines:
            for c in map_columns:
                if isinstance(r.get(c), list):
                    r[c] = sorted(r[c], key=lambda kv: json.dumps(kv))
            f.write(json.dumps(r, ensure_ascii=False) + "\n")


def compare(a, b):
    """(equal, first lines of compare_rows.py's report)."""
    r = run([sys.executable, COMPARE, a, b])
    return r.returncode == 0, (r.stdout + r.stderr).strip()[:800]


def fjord_cat(fjord, table_dir, out_path, snapshot=None):
    cmd = [fjord, "cat", table_dir, "--format", "jsonl"]
    if snapshot is not None:
        cmd += ["--snapshot", str(snapshot)]
    with open(out_path, "w", encoding="utf-8") as out:
        r = subprocess.run(cmd, stdout=out, stderr=subprocess.PIPE, text=True)
    return r.returncode, r.stderr.strip()[:300]


def run_batch(cmd, lines, batch_path):
    """Runs a batch program (fjord-oracle batch, pypaimon_dump.py --batch) over JSON-array command
    lines; returns one (ok, message) per line, in order."""
    with open(batch_path, "w", encoding="utf-8") as f:
        for args in lines:
            f.write(json.dumps(args, ensure_ascii=False) + "\n")
    r = run(cmd + [batch_path])
    results = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    by_line = {x["line"]: (x["ok"], x["message"]) for x in results}
    missing = (False, f"no result (exit {r.returncode}): {r.stderr.strip()[-500:]}")
    return [by_line.get(i + 1, missing) for i in range(len(lines))]
