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

import ctypes as _ctypes
import glob as _glob
import os as _os
import sys as _sys

# Arrow's default memory pool is chosen once, when pyarrow is first imported: jemalloc, unless
# the user chose (ARROW_DEFAULT_MEMORY_POOL) or pyarrow was imported before fjord. The pyarrow
# wheel's default, mimalloc, hands freed memory back to the kernel and faults it in again, zeroed:
# Fjord's reads took twice the time (docs/python.md, "Memory pool").
if "pyarrow" not in _sys.modules and "ARROW_DEFAULT_MEMORY_POOL" not in _os.environ:
    _os.environ["ARROW_DEFAULT_MEMORY_POOL"] = "jemalloc"

import pyarrow as _pyarrow  # noqa: E402


def _load_pyarrow_libraries() -> None:
    # libfjord.so needs these Arrow C++ libraries of pyarrow (its RUNPATH is $ORIGIN/../pyarrow,
    # which holds only when both packages sit in one site-packages). Loading them from the
    # imported pyarrow first makes libfjord bind to exactly those, wherever pyarrow is installed.
    base = _os.path.dirname(_pyarrow.__file__)
    for name in ("libarrow", "libarrow_compute", "libparquet", "libarrow_s3"):
        found = sorted(_glob.glob(_os.path.join(base, name + ".so.[0-9]*")), key=len)
        if found:
            _ctypes.CDLL(found[0], mode=_ctypes.RTLD_GLOBAL)


_load_pyarrow_libraries()

from . import _fjord  # noqa: E402
from ._table import (  # noqa: E402
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
from ._sql import connect, sql  # noqa: E402
from ._dataset import FjordDataset  # noqa: E402
from . import errors as _errors  # noqa: E402
from .errors import (  # noqa: E402
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



def dataset(table: Table, **kwargs) -> FjordDataset:
    """``table`` as a ``pyarrow.dataset.Dataset`` whose scans push columns and filters into
    Fjord (DuckDB: ``duckdb.sql("SELECT ... FROM d WHERE ...")`` with ``d = fjord.dataset(t)``).
    ``kwargs``: snapshot_id, tag, timestamp_ms, options, on_scan."""
    return FjordDataset(table, **kwargs)


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
    "dataset",
    "FjordDataset",
    "sql",
    "connect",
] + _errors.__all__
