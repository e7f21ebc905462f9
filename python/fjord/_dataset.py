"""A Fjord table as a ``pyarrow.dataset.Dataset`` (as Lance does): DuckDB (and anything else
that scans pyarrow datasets) calls ``scanner(columns=..., filter=...)``, and the projection and the
filter go into Fjord's scan, which skips partitions, buckets, files, row groups and stripes. The
filter is also applied exactly to what Fjord returns (``_pushdown``)."""

from __future__ import annotations

from typing import Any, Callable, Mapping

import pyarrow as pa
import pyarrow.dataset as ds

from ._pushdown import arrow_expression_columns, from_arrow_expression


class FjordDataset(ds.Dataset):
    """``fjord.dataset(table)``: the table (at the latest snapshot, or at ``snapshot_id`` /
    ``tag`` / ``timestamp_ms``) as a pyarrow Dataset. ``on_scan`` is called with each
    ``fjord.Scan`` the dataset opens (to see what was pushed down)."""

    def __init__(
        self,
        table: Any,
        *,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
        options: Mapping[str, Any] | None = None,
        on_scan: Callable[[Any], None] | None = None,
    ) -> None:
        # pyarrow's Dataset is a C++ object this class does not build; every method DuckDB and
        # users call is defined here.
        self._table = table
        self._at = dict(snapshot_id=snapshot_id, tag=tag, timestamp_ms=timestamp_ms)
        self._options = dict(options or {})
        self._on_scan = on_scan

    @property
    def schema(self) -> pa.Schema:
        return self._table.schema

    @property
    def table(self) -> Any:
        return self._table

    def scanner(
        self,
        columns: list[str] | None = None,
        filter: Any = None,
        batch_size: int | None = None,
        **_ignored: Any,
    ) -> ds.Scanner:
        names = self._table.schema.names
        if isinstance(columns, dict):
            raise NotImplementedError("computed columns in a Fjord dataset scan")
        wanted = list(columns) if columns is not None else names
        needed = arrow_expression_columns(filter, names)
        if needed is None:
            read = names
        else:
            read = [c for c in names if c in set(wanted) | set(needed)] or names[:1]
        scan = self._table.scan(
            columns=read,
            filter=from_arrow_expression(filter, set(names)),
            options=self._options,
            batch_rows=batch_size,
            **self._at,
        )
        if self._on_scan is not None:
            self._on_scan(scan)
        reader = scan.to_reader()
        return ds.Scanner.from_batches(reader, columns=wanted, filter=filter)

    def to_table(self, columns: list[str] | None = None, filter: Any = None, **kw: Any) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kw).to_table()

    def to_batches(self, columns: list[str] | None = None, filter: Any = None, **kw: Any):
        return self.scanner(columns=columns, filter=filter, **kw).to_batches()

    def to_reader(self, columns: list[str] | None = None, filter: Any = None, **kw: Any) -> pa.RecordBatchReader:
        return self.scanner(columns=columns, filter=filter, **kw).to_reader()

    def count_rows(self, filter: Any = None, **kw: Any) -> int:
        return self.scanner(columns=[], filter=filter, **kw).count_rows()

    def head(self, num_rows: int, columns: list[str] | None = None, filter: Any = None, **kw: Any) -> pa.Table:
        return self.scanner(columns=columns, filter=filter, **kw).head(num_rows)

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        return self.to_reader().__arrow_c_stream__(requested_schema)

    def __repr__(self) -> str:
        return f"fjord.FjordDataset({self._table.path!r})"
