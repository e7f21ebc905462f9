"""polars over Fjord: ``fjord.polars.scan_table(table)`` is a LazyFrame whose projection,
predicate and row limit go into Fjord's scan (an IO plugin, ``polars.io.plugins.register_io_source``).
The predicate is translated into Fjord's filter where it can be (``_pushdown``) for pruning, and
always applied by polars to the rows Fjord returns."""

from __future__ import annotations

from typing import Any, Callable, Iterator, Mapping

import polars as pl
from polars.io.plugins import register_io_source

from ._pushdown import from_polars


def scan_table(
    table: Any,
    *,
    snapshot_id: int | None = None,
    tag: str | None = None,
    timestamp_ms: int | None = None,
    options: Mapping[str, Any] | None = None,
    batch_rows: int | None = None,
    on_scan: Callable[[Any], None] | None = None,
) -> pl.LazyFrame:
    """A LazyFrame over ``table`` (a ``fjord.Table`` or a table directory). ``on_scan`` is called
    with each ``fjord.Scan`` opened (to see what was pushed down)."""
    from ._table import Table, open_table

    if not isinstance(table, Table):
        table = open_table(str(table))
    names = table.schema.names
    schema = pl.from_arrow(table.schema.empty_table()).schema

    def source(
        with_columns: list[str] | None, predicate: pl.Expr | None, n_rows: int | None, batch_size: int | None
    ) -> Iterator[pl.DataFrame]:
        read = list(with_columns) if with_columns is not None else list(names)
        fjord_filter = None
        if predicate is not None:
            try:
                source_text = predicate._pyexpr.to_pyarrow_predicate(schema)
            except Exception:  # polars could not express it for pyarrow: filter after the read
                source_text = None
            fjord_filter = from_polars(source_text, set(names))
            roots = set(predicate.meta.root_names())
            read = [c for c in names if c in set(read) | roots]
        scan = table.scan(
            columns=read or names[:1],
            filter=fjord_filter,
            snapshot_id=snapshot_id,
            tag=tag,
            timestamp_ms=timestamp_ms,
            options=options,
            batch_rows=batch_rows or batch_size,
        )
        if on_scan is not None:
            on_scan(scan)
        left = n_rows
        for batch in scan.to_batches():
            df = pl.from_arrow(batch)
            assert isinstance(df, pl.DataFrame)
            if predicate is not None:
                df = df.filter(predicate)
            if with_columns is not None:
                df = df.select(with_columns)
            if left is not None:
                df = df.head(left)
                left -= df.height
            yield df
            if left is not None and left <= 0:
                return

    return register_io_source(source, schema=schema, explain_name="fjord")
