"""Anything a write accepts, as one Arrow C stream: objects exporting ``__arrow_c_stream__``
(pyarrow tables, readers and batches, polars frames, DuckDB results, ...),
``__arrow_c_array__`` batches, pandas DataFrames (without their index, converted with the table's
types so that NaN / None read as NULL of the column's type), dicts of columns and lists
of row dicts. Layout variants (string views, large lists, dictionaries) are cast to the plain
layout of the same values; every other type goes to Fjord as it is, which converts it exactly or
refuses it naming the column."""

from __future__ import annotations

from typing import Any, Iterator, Sequence

import pyarrow as pa

from ._types import canonical_input
from .errors import InvalidError

ROW_KIND_COLUMN = "_row_kind"
ROW_KINDS = ("+I", "-U", "+U", "-D")


def _from_pandas(df: Any, target: pa.Schema | None) -> pa.Table:
    # pandas holds NULLs of many types as NaN or None in object columns; converting with the
    # table's types (where a column is the table's) reads them as NULLs of the right type.
    if target is not None:
        try:
            fields = []
            for name in df.columns:
                i = target.get_field_index(str(name))
                if i >= 0:
                    fields.append(target.field(i).with_nullable(True))
                else:
                    fields.append(pa.field(str(name), pa.array(df[name], from_pandas=True).type))
            return pa.Table.from_pandas(df, schema=pa.schema(fields), preserve_index=False)
        except (pa.ArrowInvalid, pa.ArrowTypeError, pa.ArrowNotImplementedError):
            pass  # let Fjord name the column and value it refuses
    return pa.Table.from_pandas(df, preserve_index=False)


def _reader(data: Any, target: pa.Schema | None) -> pa.RecordBatchReader:
    mod = type(data).__module__
    if mod.startswith("pandas") and type(data).__name__ == "DataFrame":
        return _from_pandas(data, target).to_reader()
    if isinstance(data, pa.RecordBatchReader):
        return data
    if isinstance(data, pa.Table):
        return data.to_reader()
    if isinstance(data, pa.RecordBatch):
        return pa.RecordBatchReader.from_batches(data.schema, [data])
    if hasattr(data, "__arrow_c_stream__"):
        return pa.RecordBatchReader.from_stream(data)
    if hasattr(data, "__arrow_c_array__"):
        batch = pa.record_batch(data)
        return pa.RecordBatchReader.from_batches(batch.schema, [batch])
    if isinstance(data, dict):
        return pa.Table.from_pydict(data).to_reader()
    if isinstance(data, list):
        return pa.Table.from_pylist(data).to_reader()
    raise InvalidError(
        f"cannot write a {type(data).__name__}: give an object with __arrow_c_stream__ "
        "(pyarrow, polars, pandas, DuckDB, ...), a dict of columns or a list of rows",
        "Invalid",
    )


def _row_kind_batches(reader: pa.RecordBatchReader, row_kind: Any) -> Iterator[pa.RecordBatch]:
    offset = 0
    kinds = None
    if not isinstance(row_kind, str):
        kinds = pa.array(row_kind, pa.string()) if not isinstance(row_kind, pa.Array) else row_kind
    for batch in reader:
        if kinds is None:
            column = pa.array([row_kind] * batch.num_rows, pa.string())
        else:
            column = kinds.slice(offset, batch.num_rows)
            if len(column) != batch.num_rows:
                raise InvalidError(
                    f"row_kind has {len(kinds)} values, fewer than the rows written", "Invalid"
                )
        offset += batch.num_rows
        yield pa.RecordBatch.from_arrays(
            list(batch.columns) + [column], schema=batch.schema.append(pa.field(ROW_KIND_COLUMN, column.type))
        )
    if kinds is not None and offset != len(kinds):
        raise InvalidError(f"row_kind has {len(kinds)} values for {offset} rows", "Invalid")


def to_stream(
    data: Any, row_kind: str | Sequence[str] | None = None, target: pa.Schema | None = None
) -> pa.RecordBatchReader:
    """``data`` as a RecordBatchReader ready for Fjord's TableWrite; ``target`` is the table's
    Arrow schema (used for pandas input)."""
    reader = _reader(data, target)
    if row_kind is not None:
        if ROW_KIND_COLUMN in reader.schema.names:
            raise InvalidError(f"row_kind= given and the data has a {ROW_KIND_COLUMN} column", "Invalid")
        if isinstance(row_kind, str) and row_kind not in ROW_KINDS:
            raise InvalidError(f"row_kind '{row_kind}' is not one of {', '.join(ROW_KINDS)}", "Invalid")
        schema = reader.schema.append(pa.field(ROW_KIND_COLUMN, pa.string()))
        reader = pa.RecordBatchReader.from_batches(schema, _row_kind_batches(reader, row_kind))
    target = pa.schema([f.with_type(canonical_input(f.type)) for f in reader.schema])
    if not target.equals(reader.schema):
        reader = reader.cast(target)
    return reader
