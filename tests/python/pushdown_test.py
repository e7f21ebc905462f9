#!/usr/bin/env python3
"""DuckDB and polars over Fjord with pushdown (issue 18, point 3), run by package_test.py in the
venv where the wheel is installed. Each case checks the answer against one computed from the data
written, and that the pushdown happened: the scan Fjord was asked for (seen through ``on_scan``)
read fewer columns, planned fewer files and returned fewer rows than the table holds."""

import os
import tempfile
import unittest

import duckdb
import polars as pl
import pyarrow as pa

import fjord
import fjord.polars

DAYS = 5
PER_DAY = 100


class PushdownTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="fjord-pushdown-")
        self.wh = os.path.join(self.tmp.name, "wh")
        self.cat = fjord.Catalog(self.wh)
        self.cat.create_database("db")
        schema = pa.schema([("id", pa.int64()), ("v", pa.string()), ("payload", pa.string()),
                            ("day", pa.string())])
        self.t = self.cat.create_table("db.events", schema, partition_keys=["day"])
        # One commit (one data file) per partition d0..d4; ids d*100 .. d*100+99.
        self.rows = []
        for d in range(DAYS):
            ids = list(range(d * PER_DAY, (d + 1) * PER_DAY))
            part = {"id": ids, "v": [f"v{i % 7}" for i in ids], "payload": ["x" * 50] * PER_DAY,
                    "day": [f"d{d}"] * PER_DAY}
            self.t.write(part)
            self.rows += [dict(zip(part, vals)) for vals in zip(*part.values())]
        self.all_files = len(self.t.scan().plan()["files"])
        self.assertEqual(self.all_files, DAYS)
        self.scans = []

    def tearDown(self):
        self.tmp.cleanup()

    def last(self):
        self.assertTrue(self.scans, "no Fjord scan was opened")
        return self.scans[-1]

    def test_duckdb_pushes_columns_and_filter(self):
        d = fjord.dataset(self.t, on_scan=self.scans.append)
        got = duckdb.sql("SELECT id FROM d WHERE day = 'd3' AND id >= 350 ORDER BY id").fetchall()
        self.assertEqual([r[0] for r in got], list(range(350, 400)))
        scan = self.last()
        self.assertEqual(scan.columns, ["id", "day"])  # payload and v were not read
        self.assertIn("`day` = 'd3'", scan.filter)
        self.assertIn("`id` >= 350", scan.filter)
        self.assertEqual({f["partition"] for f in scan.plan()["files"]}, {"day=d3"})  # 1 of 5 files
        self.assertEqual(scan.rows_read, 50)  # Fjord filtered the rows itself

    def test_duckdb_in_or_null_and_untranslatable(self):
        d = fjord.dataset(self.t, on_scan=self.scans.append)
        got = duckdb.sql("SELECT count(*) FROM d WHERE day IN ('d1', 'd2') AND v LIKE '%3'").fetchall()
        want = sum(1 for r in self.rows if r["day"] in ("d1", "d2") and r["v"].endswith("3"))
        self.assertEqual(got, [(want,)])
        self.assertEqual(len(self.last().plan()["files"]), 2)
        got = duckdb.sql("SELECT count(*) FROM d WHERE id < 10 OR id > 489").fetchall()
        self.assertEqual(got, [(20,)])
        self.assertEqual({f["partition"] for f in self.last().plan()["files"]}, {"day=d0", "day=d4"})
        self.assertEqual(duckdb.sql("SELECT count(*) FROM d WHERE v IS NULL").fetchall(), [(0,)])

    def test_duckdb_time_travel(self):
        d = fjord.dataset(self.t, snapshot_id=2)
        self.assertEqual(duckdb.sql("SELECT count(*), max(id) FROM d").fetchall(), [(200, 199)])

    def test_polars_pushes_columns_filter_and_limit(self):
        lf = fjord.polars.scan_table(self.t, on_scan=self.scans.append)
        df = lf.filter((pl.col("day") == "d1") & (pl.col("id") < 150)).select("v").collect()
        self.assertEqual(df["v"].to_list(), [f"v{i % 7}" for i in range(100, 150)])
        scan = self.last()
        self.assertNotIn("payload", scan.columns)
        self.assertIn("`day` = 'd1'", scan.filter)
        self.assertEqual({f["partition"] for f in scan.plan()["files"]}, {"day=d1"})
        self.assertEqual(scan.rows_read, 50)
        # The limit stops the read after the first batch of 10 rows.
        small = fjord.polars.scan_table(self.t, batch_rows=10, on_scan=self.scans.append)
        self.assertEqual(small.head(5).collect().height, 5)
        self.assertEqual(self.last().rows_read, 10)

    def test_polars_untranslatable_predicate_is_still_exact(self):
        lf = fjord.polars.scan_table(self.t.path, on_scan=self.scans.append)
        got = lf.filter(pl.col("v").str.starts_with("v6") & (pl.col("id") % 2 == 0)).select("id").collect()
        want = [r["id"] for r in self.rows if r["v"] == "v6" and r["id"] % 2 == 0]
        self.assertEqual(sorted(got["id"].to_list()), want)

    def test_sql_over_the_catalog(self):
        users = self.cat.create_table("db.users", pa.schema([("id", pa.int64()), ("name", pa.string())]),
                                      primary_key=["id"], options={"bucket": "2"})
        users.write({"id": [101, 205, 499], "name": ["ann", "bo", "cy"]})
        result = fjord.sql(
            "SELECT u.name, e.day FROM db.events e JOIN db.users u ON e.id = u.id "
            "WHERE e.day <> 'd4' ORDER BY u.name",
            warehouse=self.wh, on_scan=self.scans.append)
        self.assertEqual(result.to_pylist(), [{"name": "ann", "day": "d1"}, {"name": "bo", "day": "d2"}])
        events_scan = [s for s in self.scans if s.table.path.endswith("events")][-1]
        self.assertNotIn("payload", events_scan.columns)
        self.assertNotIn("day=d4", {f["partition"] for f in events_scan.plan()["files"]})


if __name__ == "__main__":
    unittest.main()
