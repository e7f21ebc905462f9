"""Fjord: Apache Paimon tables from Python, through Fjord's C++ engine.

    import fjord, pyarrow as pa
    cat = fjord.Catalog("/tmp/warehouse")
    cat.create_database("db", ignore_if_exists=True)
    t = cat.create_table("db.t", pa.schema([("id", pa.int64()), ("v", pa.string())]),
                         primary_key=["id"], options={"bucket": "2"})
    t.write(pa.table({"id": [1, 2], "v": ["a", "b"]}))
    t.scan(filter="id > 1").to_arrow()

Rows cross between Fjord and pyarrow through the Arrow C stream interface, zero-copy: the native
module uses the Arrow C++ library of the installed pyarrow. docs/python.md has the whole API."""

import pyarrow as _pyarrow  # noqa: F401  (loads the libarrow that libfjord.so uses)

from . import _fjord
from ._table import (
    BATCH_COMMIT_IDENTIFIER,
    Catalog,
    CommitMessages,
    CommitResult,
    Scan,
    Snapshot,
    Table,
    TableCommit,
    TableWrite,
    open_table,
)
from .errors import (
    AlreadyExistsError,
    CancelledError,
    ConflictError,
    CorruptionError,
    FjordError,
    FjordIOError,
    InternalError,
    InvalidError,
    NotFoundError,
    NotSupportedError,
)

__version__ = "0.1.0"
fjord_version: str = _fjord.__fjord_version__

__all__ = [
    "BATCH_COMMIT_IDENTIFIER",
    "Catalog",
    "CommitMessages",
    "CommitResult",
    "Scan",
    "Snapshot",
    "Table",
    "TableCommit",
    "TableWrite",
    "open_table",
    "FjordError",
    "InvalidError",
    "NotFoundError",
    "AlreadyExistsError",
    "FjordIOError",
    "CorruptionError",
    "NotSupportedError",
    "ConflictError",
    "CancelledError",
    "InternalError",
]
