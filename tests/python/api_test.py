#!/usr/bin/env python3
"""The `fjord` Python API (docs/python.md), run by tests/python/package_test.py in a venv where the
wheel is installed. Expected rows follow Paimon's semantics: primary-key tables keep the last
row per key (deduplicate merge engine) and drop deleted keys; an overwrite replaces exactly the
partitions it names; a (commit user, identifier) pair commits once."""

import datetime
import decimal
import os
import tempfile
import time
import unittest

import duckdb
import pandas as pd
import polars as pl
import pyarrow as pa

import fjord


BERLIN = datetime.timezone(datetime.timedelta(hours=1))
# Every Paimon type family, with a row of values and a row of NULLs.
TYPES = pa.schema([
    pa.field("id", pa.int32(), nullable=False, metadata={"comment": "the key"}),
    ("b", pa.bool_()), ("i8", pa.int8()), ("i16", pa.int16()), ("i64", pa.int64()),
    ("f", pa.float32()), ("d", pa.float64()), ("dec", pa.decimal128(10, 2)),
    ("s", pa.string()), ("bin", pa.binary()), ("fixed", pa.binary(4)), ("day", pa.date32()),
    ("ts3", pa.timestamp("ms")), ("ts6", pa.timestamp("us")), ("ts9", pa.timestamp("ns")),
    ("ltz", pa.timestamp("us", tz="Europe/Berlin")),
    ("arr", pa.list_(pa.string())), ("m", pa.map_(pa.string(), pa.int64())),
    ("row", pa.struct([("x", pa.int32()), ("y", pa.string())])),
])
TYPE_ROWS = [
    {"id": 1, "b": True, "i8": -8, "i16": 300, "i64": 2**40, "f": 1.5, "d": 2.25,
     "dec": decimal.Decimal("12345678.90"), "s": "ä", "bin": b"\x00\x01", "fixed": b"abcd",
     "day": datetime.date(2026, 12, 1), "ts3": datetime.datetime(2026, 12, 1, 1, 2, 3, 4000),
     "ts6": datetime.datetime(2026, 12, 1, 1, 2, 3, 456789), "ts9": datetime.datetime(1900, 1, 1),
     "ltz": datetime.datetime(2026, 12, 1, 10, 0, tzinfo=BERLIN),
     "arr": ["a", None], "m": [("k", 1), ("j", None)], "row": {"x": 7, "y": None}},
    dict({name: None for name in TYPES.names}, id=2),
]


def rows(table, key="id"):
    return sorted(table.to_pylist(), key=lambda r: r[key])


class FjordTestCase(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fjord-api-")
        self.wh = os.path.join(self.tmp.name, "wh")
        self.cat = fjord.Catalog(self.wh)
        self.cat.create_database("db")

    def tearDown(self):
        self.tmp.cleanup()

    def pk_table(self, name="db.t", **kw):
        schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("day", pa.string())])
        return self.cat.create_table(name, schema, primary_key=["id", "day"], partition_keys=["day"],
                                     options={"bucket": "2"}, **kw)


class CatalogTest(FjordTestCase):
    def test_databases_and_tables(self):
        self.cat.create_database("db", ignore_if_exists=True)
        with self.assertRaises(fjord.AlreadyExistsError):
            self.cat.create_database("db")
        self.pk_table()
        self.assertEqual(self.cat.list_databases(), ["db"])
        self.assertEqual(self.cat.list_tables("db"), ["t"])
        self.assertEqual(self.cat.table_path("db.t"), os.path.join(self.wh, "db.db", "t"))
        with self.assertRaises(fjord.AlreadyExistsError) as e:
            self.pk_table()
        self.assertIn("db.t", str(e.exception))
        with self.assertRaises(fjord.NotFoundError) as e:
            self.cat.table("db.missing")
        self.assertIsInstance(e.exception, LookupError)
        self.assertEqual(e.exception.code, "NotFound")
        self.cat.drop_table("db.t")
        self.assertEqual(self.cat.list_tables("db"), [])

    def test_schema_types_both_ways(self):
        t = self.cat.create_table("db.types", TYPES, primary_key=["id"], options={"bucket": "1"})
        types = t.paimon_types
        # Paimon's spelling of each Arrow type (Java's DataTypes); a time zone makes it LTZ.
        self.assertEqual(types["id"], "INT NOT NULL")
        self.assertEqual(types["dec"], "DECIMAL(10, 2)")
        self.assertEqual(types["s"], "STRING")
        self.assertEqual(types["bin"], "BYTES")
        self.assertEqual(types["fixed"], "BINARY(4)")
        self.assertEqual(types["ts3"], "TIMESTAMP(3)")
        self.assertEqual(types["ts9"], "TIMESTAMP(9)")
        self.assertEqual(types["ltz"], "TIMESTAMP(6) WITH LOCAL TIME ZONE")
        self.assertEqual(types["arr"], "ARRAY<STRING>")
        self.assertEqual(types["m"], "MAP<STRING NOT NULL, BIGINT>")
        self.assertEqual(types["row"], "ROW<`x` INT, `y` STRING>")
        self.assertEqual(t.schema.field("id").metadata, {b"comment": b"the key"})
        # Reads return the schema's Arrow types; LTZ reads as UTC instants.
        self.assertEqual(t.schema.field("ltz").type, pa.timestamp("us", tz="UTC"))
        t.write(pa.Table.from_pylist(TYPE_ROWS, schema=TYPES))
        got = t.scan().to_arrow()
        self.assertEqual(got.schema, t.schema)
        got_rows = rows(got)
        self.assertEqual(got_rows[1], TYPE_ROWS[1])
        utc = datetime.datetime(2026, 12, 1, 9, 0, tzinfo=datetime.timezone.utc)
        self.assertEqual(got_rows[0], dict(TYPE_ROWS[0], ltz=utc))

    def test_unsupported_arrow_type_names_the_column(self):
        with self.assertRaises(fjord.InvalidError) as e:
            self.cat.create_table("db.u", pa.schema([("n", pa.uint32())]))
        self.assertIn("'n'", str(e.exception))


class RoundTripTest(FjordTestCase):
    """Every type read into pandas / polars and written back from there reads back the same."""

    def setUp(self):
        super().setUp()
        self.src = self.cat.create_table("db.src", TYPES, primary_key=["id"], options={"bucket": "1"})
        self.src.write(pa.Table.from_pylist(TYPE_ROWS, schema=TYPES))
        self.want = self.src.scan().to_arrow().sort_by("id")

    def check(self, name, frame):
        t = self.cat.create_table(f"db.{name}", TYPES, primary_key=["id"], options={"bucket": "1"})
        t.write(frame)
        got = t.scan().to_arrow().sort_by("id")
        for column in self.want.column_names:
            self.assertEqual(got[column].to_pylist(), self.want[column].to_pylist(), f"{name}: {column}")
        self.assertTrue(got.equals(self.want))

    def test_pandas(self):
        self.check("pandas", self.src.scan().to_pandas())

    def test_pandas_arrow_dtypes(self):
        self.check("pandas_arrow", self.src.scan().to_pandas(types_mapper=pd.ArrowDtype))

    def test_polars(self):
        self.check("polars", self.src.scan().to_polars())


class WriteTest(FjordTestCase):
    def test_upsert_delete_and_row_kinds(self):
        t = self.pk_table()
        t.write(pd.DataFrame({"id": [1, 2, 3], "v": ["a", "b", "c"], "day": ["d1", "d1", "d2"]}))
        t.write(pl.DataFrame({"id": [2], "v": ["B"], "day": ["d1"]}))  # same key: replaces
        t.write({"id": [1], "v": [None], "day": ["d1"]}, row_kind="-D")
        t.write({"id": [3, 4], "v": ["C", "x"], "day": ["d2", "d2"], "_row_kind": ["+U", "+I"]})
        t.write({"id": [4, 5], "v": [None, "y"], "day": ["d2", "d2"]}, row_kind=["-D", "+I"])
        self.assertEqual(rows(t.scan().to_arrow()), [
            {"id": 2, "v": "B", "day": "d1"}, {"id": 3, "v": "C", "day": "d2"},
            {"id": 5, "v": "y", "day": "d2"}])
        self.assertEqual([s.commit_kind for s in t.snapshots()], ["APPEND"] * 5)
        self.assertEqual([s.id for s in t.snapshots()], [1, 2, 3, 4, 5])

    def test_append_table_from_every_source(self):
        schema = pa.schema([("id", pa.int64()), ("name", pa.string()), ("tags", pa.list_(pa.string()))])
        t = self.cat.create_table("db.a", schema)
        t.write(pa.table({"id": [1], "name": ["a"], "tags": [["x"]]}))
        t.write(pd.DataFrame({"id": [2], "name": ["b"], "tags": [["y", "z"]]}))
        t.write(pl.DataFrame({"id": [3], "name": ["c"], "tags": [[]]}))  # string views, large lists
        t.write(duckdb.sql("SELECT 4::BIGINT AS id, 'd' AS name, ['w'] AS tags"))
        t.write([{"id": 5, "name": None, "tags": None}])
        t.write(pa.record_batch({"id": [6], "name": ["f"], "tags": [["v"]]}))
        self.assertEqual(rows(t.scan().to_arrow()), [
            {"id": 1, "name": "a", "tags": ["x"]}, {"id": 2, "name": "b", "tags": ["y", "z"]},
            {"id": 3, "name": "c", "tags": []}, {"id": 4, "name": "d", "tags": ["w"]},
            {"id": 5, "name": None, "tags": None}, {"id": 6, "name": "f", "tags": ["v"]}])
        with self.assertRaises(fjord.InvalidError):
            t.write({"id": [7]}, row_kind="-D")  # an append table takes +I rows only
        with self.assertRaises(fjord.InvalidError):
            t.write(object())

    def test_overwrite_static_and_dynamic(self):
        t = self.pk_table()
        t.write({"id": [1, 2, 3], "v": ["a", "b", "c"], "day": ["d1", "d2", "d3"]})
        # Static: exactly day=d2 is replaced, even by nothing from d2 in the new rows.
        r = t.write({"id": [20], "v": ["n"], "day": ["d2"]}, mode="overwrite", partition={"day": "d2"})
        self.assertEqual(t.snapshots()[-1].commit_kind, "OVERWRITE")
        self.assertEqual(r.snapshot_id, 2)
        self.assertEqual([x["id"] for x in rows(t.scan().to_arrow())], [1, 3, 20])
        # Rows outside the named partition are refused and nothing is committed.
        with self.assertRaises(fjord.InvalidError):
            t.write({"id": [9], "v": ["x"], "day": ["d1"]}, mode="overwrite", partition={"day": "d2"})
        self.assertEqual(len(t.snapshots()), 2)
        # Dynamic (no partition=): only the partitions the new rows are in.
        t.write({"id": [30], "v": ["m"], "day": ["d3"]}, mode="overwrite")
        self.assertEqual([x["id"] for x in rows(t.scan().to_arrow())], [1, 20, 30])
        with self.assertRaises(fjord.InvalidError):
            t.write({"id": [1], "v": ["a"], "day": ["d1"]}, partition={"day": "d1"})

    def test_idempotent_commit(self):
        t = self.pk_table()
        data = {"id": [1], "v": ["a"], "day": ["d1"]}
        first = t.write(data, commit_user="job-7", commit_identifier=42)
        again = t.write(data, commit_user="job-7", commit_identifier=42)
        self.assertEqual(first.snapshot_id, 1)
        self.assertFalse(first.already_committed)
        self.assertTrue(again.already_committed)
        self.assertIsNone(again.snapshot_id)
        self.assertEqual(len(t.snapshots()), 1)
        s = t.snapshots()[0]
        self.assertEqual((s.commit_user, s.commit_identifier), ("job-7", 42))
        with self.assertRaises(fjord.InvalidError):
            t.write(data, commit_user="job-7")

    def test_two_phase(self):
        t = self.pk_table()
        w1, w2 = t.new_write(), t.new_write()
        w1.write({"id": [1], "v": ["a"], "day": ["d1"]})
        w2.write({"id": [2], "v": ["b"], "day": ["d2"]})
        self.assertEqual(w1.records_written, 1)
        m = w1.prepare_commit(5)
        shipped = w2.prepare_commit(5).serialize()  # e.g. sent to the committing process
        self.assertIsInstance(shipped, bytes)
        m.append(fjord.CommitMessages.deserialize(shipped, "from w2"))
        self.assertEqual((len(m), m.new_row_count), (2, 2))
        with self.assertRaises(fjord.FjordError) as e:
            fjord.CommitMessages.deserialize(shipped[:-3], "truncated.bin")
        self.assertIn("truncated.bin", str(e.exception))
        self.assertEqual(t.scan().count(), 0)  # nothing visible before the commit
        with t.new_commit("committer") as c:
            self.assertEqual(c.commit(m, 5).snapshots, [1])
            self.assertTrue(c.commit(m, 5).already_committed)
        self.assertEqual(t.scan().count(), 2)

    def test_null_in_not_null_column_names_column(self):
        t = self.pk_table()
        with self.assertRaises(fjord.InvalidError) as e:
            t.write({"id": [1, None], "v": ["a", "b"], "day": ["d1", "d1"]})
        self.assertIn("'id'", str(e.exception))
        self.assertIn("row 2", str(e.exception))  # rows counted from 1
        self.assertEqual(t.snapshots(), [])


class ReadTest(FjordTestCase):
    def setUp(self):
        super().setUp()
        self.t = self.pk_table()
        self.t.write({"id": [1, 2, 3], "v": ["a", "b", "c"], "day": ["d1", "d1", "d2"]})
        time.sleep(0.01)  # the snapshots' commit times differ, for timestamp_ms travel
        self.t.write({"id": [11, 12], "v": ["k", "l"], "day": ["d2", "d3"]})

    def test_columns_filter_and_outputs(self):
        s = self.t.scan(columns=["v", "id"], filter="id > 2 AND day = 'd2'")
        got = s.to_arrow()
        self.assertEqual(got.schema.names, ["v", "id"])
        self.assertEqual(rows(got), [{"v": "c", "id": 3}, {"v": "k", "id": 11}])
        self.assertEqual(sorted(s.to_pandas()["id"]), [3, 11])
        self.assertEqual(sorted(s.to_polars()["id"].to_list()), [3, 11])
        self.assertEqual(sum(b.num_rows for b in s.to_batches()), 2)
        self.assertEqual(pa.table(s).num_rows, 2)  # __arrow_c_stream__
        self.assertEqual(duckdb.sql("SELECT sum(id) FROM s").fetchall(), [(14,)])

    def test_filter_prunes_partitions(self):
        every = self.t.scan().plan()
        some = self.t.scan(filter="day = 'd3'").plan()
        self.assertEqual({f["partition"] for f in every["files"]}, {"day=d1", "day=d2", "day=d3"})
        self.assertEqual({f["partition"] for f in some["files"]}, {"day=d3"})
        self.assertEqual(self.t.scan(partition={"day": "d1"}).count(), 2)

    def test_time_travel(self):
        first = self.t.snapshots()[0]
        self.assertEqual(self.t.scan(snapshot_id=1).count(), 3)
        self.assertEqual(self.t.scan().count(), 5)
        self.assertEqual(self.t.scan(timestamp_ms=first.time_millis).count(), 3)
        self.t.create_tag("v1", snapshot_id=1)
        self.assertEqual(list(self.t.tags()), ["v1"])
        self.assertEqual(self.t.scan(tag="v1").count(), 3)
        with self.assertRaises(fjord.NotFoundError):
            self.t.scan(snapshot_id=99).to_arrow()
        with self.assertRaises(fjord.NotFoundError):
            self.t.scan(tag="nope").to_arrow()
        with self.assertRaises(fjord.InvalidError):
            self.t.scan(snapshot_id=1, tag="v1")

    def test_bad_filter_and_column(self):
        with self.assertRaises(fjord.InvalidError) as e:
            self.t.scan(filter="nope > 1").to_arrow()
        self.assertIn("nope", str(e.exception))
        with self.assertRaises(fjord.InvalidError) as e:
            self.t.scan(columns=["zz"]).to_arrow()
        self.assertIn("zz", str(e.exception))

    def test_corrupt_file_is_named(self):
        snap = os.path.join(self.t.path, "snapshot", "snapshot-2")
        with open(snap, "w") as f:
            f.write("{ not json")
        with self.assertRaises(fjord.FjordError) as e:
            fjord.open_table(self.t.path).scan().to_arrow()
        self.assertIn("snapshot-2", str(e.exception))

    def test_open_table_and_metadata(self):
        t = fjord.open_table(self.t.path)
        self.assertEqual(t.primary_keys, ["id", "day"])
        self.assertEqual(t.partition_keys, ["day"])
        self.assertEqual(t.options, {"bucket": "2"})
        self.assertEqual(t.option("bucket"), "2")
        self.assertEqual(t.scan().count(), 5)
        self.assertEqual(t.latest_snapshot().id, 2)
        self.assertEqual(t.latest_snapshot().total_record_count, 5)

    def test_compact_full(self):
        self.t.write({"id": [1], "v": ["A"], "day": ["d1"]})
        before = len(self.t.scan().plan()["files"])
        result = self.t.compact(full=True)
        self.assertEqual(result["snapshot_id"], 4)
        self.assertEqual(self.t.snapshots()[-1].commit_kind, "COMPACT")
        after = self.t.scan().plan()["files"]
        self.assertLess(len(after), before)
        self.assertEqual(rows(self.t.scan().to_arrow())[0], {"id": 1, "v": "A", "day": "d1"})


class TailTest(FjordTestCase):
    def test_full_read_then_changes_with_consumer(self):
        schema = pa.schema([("id", pa.int64()), ("v", pa.string())])
        t = self.cat.create_table("db.s", schema, primary_key=["id"],
                                  options={"bucket": "1", "changelog-producer": "input"})
        t.write({"id": [1, 2], "v": ["a", "b"]})
        got = pa.Table.from_batches(list(t.tail(scan_mode="latest-full", consumer_id="c1", idle_timeout=0)))
        self.assertEqual(got.schema.names, ["_row_kind", "id", "v"])
        self.assertEqual(rows(got), [{"_row_kind": "+I", "id": 1, "v": "a"},
                                     {"_row_kind": "+I", "id": 2, "v": "b"}])
        self.assertTrue(os.path.exists(os.path.join(t.path, "consumer", "consumer-c1")))
        # The changelog of the next snapshot (changelog-producer input: the rows as written).
        t.write({"id": [1], "v": [None]}, row_kind="-D")
        t.write({"id": [3], "v": ["c"]})
        again = pa.Table.from_batches(list(t.tail(consumer_id="c1", idle_timeout=0)), schema=got.schema)
        self.assertEqual(again.to_pylist(), [{"_row_kind": "-D", "id": 1, "v": None},
                                             {"_row_kind": "+I", "id": 3, "v": "c"}])
        self.assertEqual(list(t.tail(consumer_id="c1", idle_timeout=0)), [])


if __name__ == "__main__":
    unittest.main()
