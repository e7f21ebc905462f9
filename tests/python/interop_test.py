#!/usr/bin/env python3
"""Interop of the `fjord` Python package (issue 18, point 4), run by package_test.py in the venv
where the wheel is installed:

* every Java-written fixture table (tests/fixtures/paimon-java) read through `fjord` in Python
  equals Java Paimon's rows (`fjord-oracle dump`, one JVM in batch mode);
* tables written from Python with `fjord` (every type family, upserts and deletes, pandas and
  polars input, a full compaction) read the same in Java Paimon, in pypaimon
  (interop/python/pypaimon_dump.py under .deps/pypaimon-venv) and in `fjord`, and hold the rows
  the writes define.

Rows are compared as multisets of canonical JSON (canonical.py).

Environment: FJORD_ORACLE (the oracle command, e.g. interop/java/fjord-oracle), FJORD_PYPAIMON
(pypaimon's python), FJORD_PYPAIMON_DUMP (pypaimon_dump.py), FJORD_FIXTURES."""

import datetime
import decimal
import json
import os
import shlex
import subprocess
import sys
import tempfile
import unittest

import pandas as pd
import polars as pl
import pyarrow as pa

import fjord

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import canonical  # noqa: E402

ORACLE = shlex.split(os.environ["FJORD_ORACLE"])


class Oracle:
    """One `fjord-oracle batch -` JVM: each dump writes its own output file."""

    def __init__(self, work):
        self.work, self.n = work, 0
        self.proc = subprocess.Popen([*ORACLE, "batch", "-"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, encoding="utf-8")

    def dump(self, table_dir):
        self.n += 1
        out = os.path.join(self.work, f"oracle-{self.n}.jsonl")
        self.proc.stdin.write(json.dumps(["dump", table_dir, "--output", out]) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline() or '{"ok": false, "message": "ended"}')
        if not answer["ok"]:
            raise RuntimeError(f"fjord-oracle dump {table_dir}: {answer['message']}")
        with open(out, encoding="utf-8") as f:
            return canonical.parse_jsonl(f.read())

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def pypaimon_dump(table_dir):
    out = subprocess.run([os.environ["FJORD_PYPAIMON"], os.environ["FJORD_PYPAIMON_DUMP"], table_dir],
                         capture_output=True, text=True, encoding="utf-8")
    if out.returncode != 0:
        raise RuntimeError(f"pypaimon_dump {table_dir}: {out.stderr}")
    return canonical.parse_jsonl(out.stdout)


def fjord_rows(table):
    return canonical.rows(table.scan().to_arrow(), table.paimon_types)


class InteropTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory(prefix="fjord-interop-")
        cls.oracle = Oracle(cls.tmp.name)

    @classmethod
    def tearDownClass(cls):
        cls.oracle.close()
        cls.tmp.cleanup()

    def test_java_fixtures_read_from_python(self):
        root = os.environ["FJORD_FIXTURES"]
        tables = sorted(os.path.dirname(os.path.join(d, "")) for d, subdirs, _ in os.walk(root)
                        if "schema" in subdirs)
        tables = [os.path.relpath(t, root) for t in tables]
        self.assertGreaterEqual(len(tables), 20)
        compared = 0
        for rel in tables:
            with self.subTest(table=rel):
                path = os.path.join(root, rel)
                t = fjord.open_table(path)
                java = self.oracle.dump(path)
                self.assertEqual(fjord_rows(t), java)
                compared += len(java)
        print(f"\n  {len(tables)} Java fixture tables, {compared} rows equal", file=sys.stderr)

    def test_python_writes_read_by_java_and_pypaimon(self):
        cat = fjord.Catalog(os.path.join(self.tmp.name, "wh"))
        cat.create_database("db")
        schema = pa.schema([
            pa.field("id", pa.int64(), nullable=False), ("b", pa.bool_()), ("i32", pa.int32()),
            ("f", pa.float32()), ("d", pa.float64()), ("dec", pa.decimal128(12, 3)),
            ("s", pa.string()), ("bin", pa.binary()), ("day", pa.date32()),
            ("ts", pa.timestamp("us")), ("ltz", pa.timestamp("ms", tz="UTC")),
            ("arr", pa.list_(pa.int32())), ("m", pa.map_(pa.string(), pa.string())),
            ("r", pa.struct([("x", pa.int32()), ("y", pa.string())])), ("part", pa.string()),
        ])

        def row(i):
            return {"id": i, "b": i % 2 == 0, "i32": -i, "f": i / 4, "d": i * 1.25,
                    "dec": decimal.Decimal(i) / 8, "s": f"s{i}é", "bin": bytes([i % 256, 7]),
                    "day": datetime.date(2026, 1, 1) + datetime.timedelta(days=i),
                    "ts": datetime.datetime(2026, 12, 1, 3, 4, 5, i),
                    "ltz": datetime.datetime(2026, 12, 1, tzinfo=datetime.timezone.utc)
                    + datetime.timedelta(milliseconds=i),
                    "arr": [i, None], "m": {"k": str(i)}, "r": {"x": i, "y": None}, "part": f"p{i % 3}"}

        nulls = dict({n: None for n in schema.names}, id=999, part="p0")
        append = cat.create_table("db.append_types", schema, partition_keys=["part"])
        append.write(pa.Table.from_pylist([row(i) for i in range(20)] + [nulls], schema=schema))
        append.write(pd.DataFrame([row(i) for i in range(20, 30)]))
        append.write(pl.from_arrow(pa.Table.from_pylist([row(i) for i in range(30, 40)], schema=schema)))
        self.assertEqual(append.scan().count(), 41)

        pk = cat.create_table("db.pk_types", schema, primary_key=["id", "part"], partition_keys=["part"],
                              options={"bucket": "2"})
        pk.write(pa.Table.from_pylist([row(i) for i in range(30)], schema=schema))
        pk.write(pa.Table.from_pylist([dict(row(i), s="updated") for i in range(0, 30, 5)], schema=schema))
        pk.write({"id": list(range(1, 30, 7)), "part": [f"p{i % 3}" for i in range(1, 30, 7)]}, row_kind="-D")
        self.assertEqual(pk.scan().count(), 30 - len(range(1, 30, 7)))
        compacted = cat.create_table("db.pk_compacted", schema, primary_key=["id", "part"],
                                     partition_keys=["part"], options={"bucket": "2"})
        for k in range(3):
            compacted.write(pa.Table.from_pylist([dict(row(i), i32=k) for i in range(10)], schema=schema))
        compacted.compact(full=True)
        self.assertEqual({r["i32"] for r in compacted.scan(columns=["i32"]).to_arrow().to_pylist()}, {2})

        for t in (append, pk, compacted):
            with self.subTest(table=t.path):
                mine = fjord_rows(t)
                self.assertEqual(self.oracle.dump(t.path), mine, "Java Paimon")
                self.assertEqual(pypaimon_dump(t.path), mine, "pypaimon")
                print(f"\n  {os.path.basename(t.path)}: {len(mine)} rows equal in Java, pypaimon and "
                      "fjord", file=sys.stderr)


if __name__ == "__main__":
    unittest.main()
