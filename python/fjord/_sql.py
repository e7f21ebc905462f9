"""SQL over a catalog's tables through DuckDB: every table ``db.t`` of the warehouse is a view
over its ``FjordDataset``, so DuckDB pushes each query's projections and filters into Fjord."""

from __future__ import annotations

from typing import Any, Callable, Mapping


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def connect(
    warehouse: Any,
    options: Mapping[str, Any] | None = None,
    connection: Any = None,
    on_scan: Callable[[Any], None] | None = None,
) -> Any:
    """A DuckDB connection (``connection`` or a new in-memory one) where each table of the
    catalog (a ``fjord.Catalog`` or a warehouse path) is the view ``db.table``. ``on_scan`` is
    called with each ``fjord.Scan`` a query opens."""
    import duckdb

    from ._dataset import FjordDataset
    from ._table import Catalog

    cat = warehouse if isinstance(warehouse, Catalog) else Catalog(str(warehouse), options)
    con = connection if connection is not None else duckdb.connect()
    for db in cat.list_databases():
        con.execute(f"CREATE SCHEMA IF NOT EXISTS {_quote(db)}")
        for name in cat.list_tables(db):
            hidden = f"__fjord__{db}__{name}"
            con.register(hidden, FjordDataset(cat.table(f"{db}.{name}"), on_scan=on_scan))
            con.execute(f"CREATE OR REPLACE VIEW {_quote(db)}.{_quote(name)} AS SELECT * FROM {_quote(hidden)}")
    return con


def sql(
    query: str,
    warehouse: Any,
    options: Mapping[str, Any] | None = None,
    on_scan: Callable[[Any], None] | None = None,
) -> Any:
    """Runs ``query`` (DuckDB's SQL; tables named ``db.table``) over the catalog's tables and
    returns the result as a ``pyarrow.Table``."""
    con = connect(warehouse, options, on_scan=on_scan)
    try:
        result = con.sql(query)
        if result is None:  # a statement without rows
            return None
        return result.to_arrow_table() if hasattr(result, "to_arrow_table") else result.arrow()
    finally:
        con.close()
