"""The Python API over fjord._fjord: Catalog, Table, Scan, and the two phases of a write."""

from __future__ import annotations

import dataclasses
import datetime
import time
from typing import Any, Iterator, Mapping, Sequence

import pyarrow as pa

from . import _fjord
from ._data import to_stream
from ._types import to_arrow, to_paimon
from .errors import InvalidError

BATCH_COMMIT_IDENTIFIER: int = _fjord.BATCH_COMMIT_IDENTIFIER
_TO_ARROW_BATCH_ROWS = 65536
CommitMessages = _fjord.CommitMessages


@dataclasses.dataclass(frozen=True)
class Snapshot:
    """One snapshot of a table (snapshot/snapshot-N)."""

    id: int
    schema_id: int
    commit_kind: str
    commit_user: str
    commit_identifier: int
    time_millis: int
    total_record_count: int | None
    delta_record_count: int | None
    changelog_record_count: int | None
    watermark: int | None


@dataclasses.dataclass(frozen=True)
class CommitResult:
    """What a commit did: the last snapshot it created (None when none), all of them, whether the
    (commit user, identifier) pair had been committed before, and the attempts it took."""

    snapshot_id: int | None
    snapshots: list[int]
    already_committed: bool
    attempts: int


def _str_map(options: Mapping[str, Any] | None, what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for k, v in (options or {}).items():
        if not isinstance(k, str):
            raise InvalidError(f"{what}: key {k!r} is not a string", "Invalid")
        out[k] = ("true" if v else "false") if isinstance(v, bool) else str(v)
    return out


def _partition_value(v: Any) -> str:
    if v is None:
        return "__DEFAULT_PARTITION__"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (datetime.date, datetime.datetime, datetime.time)):
        return v.isoformat()
    return str(v).replace("%", "%25").replace(",", "%2C").replace("=", "%3D")


def _partition_spec(partition: Mapping[str, Any] | None) -> dict[str, str]:
    return {k: _partition_value(v) for k, v in (partition or {}).items()}


class _Capsule:
    """Hands one "arrow_array_stream" capsule to a consumer of __arrow_c_stream__."""

    def __init__(self, capsule: Any) -> None:
        self._capsule = capsule

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        capsule, self._capsule = self._capsule, None
        if capsule is None:
            raise InvalidError("this Arrow stream was already consumed", "Invalid")
        return capsule


class Catalog:
    """A Paimon filesystem catalog: a warehouse directory (local or ``s3://``) holding databases
    (``<name>.db/``) holding tables, as Java Paimon lays them out.

    ``options`` are the catalog's own: ``table-default.<key>`` gives new tables a default for
    ``<key>``; ``s3.*`` configure the object store (docs/options.md)."""

    def __init__(self, warehouse: str, options: Mapping[str, Any] | None = None) -> None:
        self._c = _fjord.Catalog.open(str(warehouse), _str_map(options, "catalog options"))

    @property
    def warehouse(self) -> str:
        return self._c.warehouse

    def create_database(self, name: str, ignore_if_exists: bool = False) -> None:
        """Creates database ``name``; AlreadyExistsError unless ``ignore_if_exists``."""
        self._c.create_database(name, ignore_if_exists)

    def list_databases(self) -> list[str]:
        return self._c.list_databases()

    def drop_database(self, name: str, ignore_if_not_exists: bool = False, cascade: bool = False) -> None:
        """Drops a database; one that still has tables only with ``cascade``."""
        self._c.drop_database(name, ignore_if_not_exists, cascade)

    def create_table(
        self,
        name: str,
        schema: pa.Schema,
        *,
        primary_key: Sequence[str] | None = None,
        partition_keys: Sequence[str] | None = None,
        options: Mapping[str, Any] | None = None,
        comment: str | None = None,
        ignore_if_exists: bool = False,
    ) -> Table:
        """Creates table ``"db.table"`` with the columns of the Arrow ``schema`` (each Arrow type
        as its Paimon type: docs/python.md) and returns it. Primary-key columns become NOT NULL
        as in Java Paimon. A field's ``comment`` metadata becomes the column comment."""
        if not isinstance(schema, pa.Schema):
            schema = pa.schema(schema)
        columns = []
        for field in schema:
            meta = field.metadata or {}
            note = meta.get(b"comment")
            columns.append((field.name, to_paimon(field), note.decode() if note is not None else None))
        self._c.create_table(
            name,
            columns,
            list(partition_keys or []),
            list(primary_key or []),
            list(_str_map(options, "table options").items()),
            comment,
            ignore_if_exists,
        )
        return self.table(name)

    def list_tables(self, database: str) -> list[str]:
        return self._c.list_tables(database)

    def drop_table(self, name: str, ignore_if_not_exists: bool = False) -> None:
        self._c.drop_table(name, ignore_if_not_exists)

    def table(self, name: str) -> Table:
        """Opens table ``"db.table"`` at its latest schema; NotFoundError when it does not exist."""
        return Table(self._c.get_table(name))

    def table_path(self, name: str) -> str:
        """Where table ``"db.table"`` lives."""
        return self._c.table_path(name)

    def set_table_options(
        self, name: str, set: Mapping[str, Any] | None = None, remove: Sequence[str] = ()
    ) -> None:
        """ALTER TABLE ... SET / RESET options, as one new schema version."""
        self._c.set_options(name, _str_map(set, "options"), list(remove))

    def __repr__(self) -> str:
        return f"fjord.Catalog({self.warehouse!r})"


def open_table(path: str, options: Mapping[str, Any] | None = None) -> Table:
    """Opens the table in directory ``path`` (local or ``s3://``); ``options`` configure the file
    system (``s3.*``)."""
    return Table(_fjord.Table.open(str(path), _str_map(options, "options")))


class Table:
    """A Paimon table at the schema it was opened with (reopen it to see a later ALTER)."""

    def __init__(self, native: Any) -> None:
        self._t = native
        self._schema: pa.Schema | None = None

    @property
    def path(self) -> str:
        return self._t.path

    @property
    def schema(self) -> pa.Schema:
        """The columns as the Arrow types reads return; comments in field metadata."""
        if self._schema is None:
            fields = []
            for _id, name, type_text, comment in self._t.fields:
                t, nullable = to_arrow(type_text)
                meta = {"comment": comment} if comment is not None else None
                fields.append(pa.field(name, t, nullable, metadata=meta))
            self._schema = pa.schema(fields)
        return self._schema

    @property
    def paimon_types(self) -> dict[str, str]:
        """Column -> Paimon type text ("DECIMAL(10, 2) NOT NULL", ...)."""
        return {name: t for _id, name, t, _c in self._t.fields}

    @property
    def schema_id(self) -> int:
        return self._t.schema_id

    @property
    def primary_keys(self) -> list[str]:
        return self._t.primary_keys

    @property
    def partition_keys(self) -> list[str]:
        return self._t.partition_keys

    @property
    def options(self) -> dict[str, str]:
        """The options in the table's schema file."""
        return dict(self._t.options)

    @property
    def comment(self) -> str | None:
        return self._t.comment

    def option(self, key: str) -> str | None:
        """The effective value of option ``key`` (the table's, else Fjord's default)."""
        return self._t.option(key)

    def snapshots(self) -> list[Snapshot]:
        """Every snapshot present, ascending by id."""
        return [Snapshot(**s) for s in self._t.snapshots()]

    def latest_snapshot(self) -> Snapshot | None:
        s = self._t.latest_snapshot()
        return Snapshot(**s) if s is not None else None

    def tags(self) -> dict[str, Snapshot]:
        """Tag name -> the snapshot it holds."""
        return {t["name"]: Snapshot(**t["snapshot"]) for t in self._t.tags()}

    def create_tag(self, name: str, snapshot_id: int | None = None, time_retained: str | None = None) -> None:
        """Tags ``snapshot_id`` (default: the latest) as ``name``; ``time_retained`` is a duration
        ("1 d") after which the tag expires (default: the table's ``tag.default-time-retained``)."""
        self._t.create_tag(name, snapshot_id, time_retained)

    def delete_tag(self, name: str) -> bool:
        """Deletes a tag and the files only it kept; False when there was no such tag."""
        return self._t.delete_tag(name)

    # --- writes -------------------------------------------------------------------------------

    def new_write(self, options: Mapping[str, Any] | None = None, for_overwrite: bool = False) -> TableWrite:
        """A writer for two-phase use: ``write`` batches, then ``prepare_commit`` the messages
        that a ``TableCommit`` (perhaps in another process) commits."""
        w = TableWrite(_fjord.TableWrite.create(self._t, _str_map(options, "write options"), for_overwrite))
        w._schema = self.schema
        return w

    def new_commit(self, commit_user: str | None = None, options: Mapping[str, Any] | None = None) -> TableCommit:
        """A committer. A (commit user, identifier) pair is committed at most once, so a retry
        with the same pair after a crash or an unknown outcome never commits twice. Without
        ``commit_user`` a fresh random one is used (no idempotency across committers)."""
        fresh = commit_user is None
        user = _fjord.new_commit_user() if fresh else commit_user
        return TableCommit(_fjord.TableCommit.create(self._t, user, _str_map(options, "commit options"), not fresh))

    def write(
        self,
        data: Any,
        *,
        mode: str = "append",
        partition: Mapping[str, Any] | None = None,
        row_kind: str | Sequence[str] | None = None,
        commit_user: str | None = None,
        commit_identifier: int | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> CommitResult:
        """Writes ``data`` and commits it as one snapshot.

        ``data``: anything exporting an Arrow stream (pyarrow, polars, DuckDB, ...), a pandas
        DataFrame, a dict of columns or a list of row dicts; columns are matched by name. A
        ``_row_kind`` column ("+I", "-U", "+U", "-D") or ``row_kind=`` (one kind for every row,
        or one per row) makes upserts and deletes on primary-key tables.

        ``mode="overwrite"`` replaces data: with ``partition`` exactly the partitions matching it
        (``{}``: the whole table), without it the partitions the new rows are in
        (``dynamic-partition-overwrite``, default true) or the whole table.

        ``commit_user`` and ``commit_identifier`` together make the commit idempotent: a retry
        with the same pair creates nothing and says ``already_committed``."""
        if mode not in ("append", "overwrite"):
            raise InvalidError(f"mode '{mode}' is not 'append' or 'overwrite'", "Invalid")
        if partition is not None and mode != "overwrite":
            raise InvalidError("partition= applies to mode='overwrite' only", "Invalid")
        if (commit_user is None) != (commit_identifier is None):
            raise InvalidError("commit_user and commit_identifier go together", "Invalid")
        identifier = BATCH_COMMIT_IDENTIFIER if commit_identifier is None else int(commit_identifier)
        writer = self.new_write(options, for_overwrite=mode == "overwrite")
        writer.write(data, row_kind=row_kind)
        messages = writer.prepare_commit(identifier)
        committer = self.new_commit(commit_user)
        if mode == "overwrite":
            result = committer.overwrite(messages, identifier, partition)
        else:
            result = committer.commit(messages, identifier)
        committer.close()
        return result

    def truncate(self) -> CommitResult:
        """Deletes every row (an OVERWRITE snapshot of nothing)."""
        committer = self.new_commit()
        result = committer.truncate(BATCH_COMMIT_IDENTIFIER)
        committer.close()
        return result

    def compact(
        self,
        full: bool = False,
        partition: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """Compacts the table (or the partitions matching ``partition``) and commits a COMPACT
        snapshot; ``full`` rewrites every file of each bucket. Returns what it did
        (``snapshot_id`` None when nothing needed compacting)."""
        return self._t.compact(full, _partition_spec(partition), _str_map(options, "options"))

    # --- reads --------------------------------------------------------------------------------

    def scan(
        self,
        columns: Sequence[str] | None = None,
        filter: str | None = None,
        snapshot_id: int | None = None,
        tag: str | None = None,
        timestamp_ms: int | None = None,
        *,
        partition: Mapping[str, Any] | None = None,
        options: Mapping[str, Any] | None = None,
        batch_rows: int | None = None,
    ) -> Scan:
        """A read of the table: ``columns`` in this order (default all), rows matching ``filter``
        (Fjord's filter syntax, docs/reading.md: ``"id > 10 AND day = '2026-12-01'"``;
        partitions, buckets and files that cannot match are skipped), at the latest snapshot or
        at one of ``snapshot_id``, ``tag``, ``timestamp_ms``. Nothing is read until a ``to_*``
        method or ``__arrow_c_stream__`` is called."""
        chosen = [x for x in (snapshot_id, tag, timestamp_ms) if x is not None]
        if len(chosen) > 1:
            raise InvalidError("give at most one of snapshot_id, tag, timestamp_ms", "Invalid")
        return Scan(
            self,
            None if columns is None else list(columns),
            filter,
            snapshot_id,
            tag,
            timestamp_ms,
            _partition_spec(partition),
            _str_map(options, "read options"),
            batch_rows,
        )

    def tail(
        self,
        columns: Sequence[str] | None = None,
        filter: str | None = None,
        *,
        scan_mode: str | None = None,
        consumer_id: str | None = None,
        options: Mapping[str, Any] | None = None,
        idle_timeout: float | None = None,
    ) -> Iterator[pa.RecordBatch]:
        """Follows the table's changes (a streaming read, docs/reading.md "Streaming"): batches
        whose first column ``_row_kind`` is "+I", "-U", "+U" or "-D", then ``columns``. The first
        step is what ``scan_mode`` asks (default: a full read of the latest snapshot), then the
        changes of each new snapshot. With ``consumer_id`` the position is recorded in the
        table's consumer file once every batch of a snapshot has been handed out, and a later
        tail with that id continues there. Waits for new snapshots for ever, or stops after
        ``idle_timeout`` seconds without one (0: stop as soon as the table has nothing new)."""
        opts = _str_map(options, "read options")
        if scan_mode is not None:
            opts["scan.mode"] = scan_mode
        if consumer_id is not None:
            opts["consumer-id"] = consumer_id
        reader = _fjord.StreamReader.open(self._t, None if columns is None else list(columns), filter, opts)
        return _follow(reader, idle_timeout)

    def __repr__(self) -> str:
        return f"fjord.Table({self.path!r})"


def _follow(reader: Any, idle_timeout: float | None) -> Iterator[pa.RecordBatch]:
    idle_since: float | None = None
    while True:
        kind, _snapshot, _full = reader.next_step()
        if kind == "end":
            return
        if kind == "wait":
            now = time.monotonic()
            if idle_since is None:
                idle_since = now
            pause = reader.discovery_interval_ms / 1000.0
            if idle_timeout is not None:
                left = idle_timeout - (now - idle_since)
                if left <= 0:
                    return
                pause = min(pause, left)
            time.sleep(pause)
            continue
        idle_since = None
        yield from pa.RecordBatchReader.from_stream(_Capsule(reader.step_stream()))
        # Every batch of the step was handed out and the consumer asked for more.
        reader.commit_progress()


class Scan:
    """A planned read (see ``Table.scan``). Each ``to_*`` call reads the table anew."""

    def __init__(self, table: Table, columns, filter, snapshot_id, tag, timestamp_ms, partition, options, batch_rows):
        self.table = table
        self._args = (columns, filter, snapshot_id, tag, timestamp_ms, options, partition)
        self._batch_rows = batch_rows
        #: Rows handed out by ``to_reader``/``to_batches`` readers so far (the pushdown tests
        #: use it to see that a limit stopped the read early).
        self.rows_read = 0

    @property
    def columns(self) -> list[str] | None:
        """The columns read (None: all)."""
        return self._args[0]

    @property
    def filter(self) -> str | None:
        """The Fjord filter the read applies."""
        return self._args[1]

    def to_reader(self) -> pa.RecordBatchReader:
        """The rows as a RecordBatchReader (streamed: one batch in memory at a time)."""
        capsule = _fjord.scan(self.table._t, *self._args, self._batch_rows)
        reader = pa.RecordBatchReader.from_stream(_Capsule(capsule))
        return pa.RecordBatchReader.from_batches(reader.schema, self._counted(reader))

    def _counted(self, reader: pa.RecordBatchReader) -> Iterator[pa.RecordBatch]:
        for batch in reader:
            self.rows_read += batch.num_rows
            yield batch

    def __arrow_c_stream__(self, requested_schema: Any = None) -> Any:
        """The Arrow PyCapsule stream protocol: DuckDB, polars, pyarrow read a Scan directly."""
        return _fjord.scan(self.table._t, *self._args, self._batch_rows)

    def to_batches(self) -> Iterator[pa.RecordBatch]:
        return iter(self.to_reader())

    def to_arrow(self) -> pa.Table:
        # The whole result is kept anyway: larger batches cost no extra memory and cut the
        # per-batch work (about 3x faster than 8192 rows on 1M-row tables, bench/python_bench.py).
        batch_rows = self._batch_rows if self._batch_rows is not None else _TO_ARROW_BATCH_ROWS
        capsule = _fjord.scan(self.table._t, *self._args, batch_rows)
        return pa.RecordBatchReader.from_stream(_Capsule(capsule)).read_all()

    def to_pandas(self, **kwargs: Any) -> Any:
        """A pandas DataFrame (``kwargs`` go to ``pyarrow.Table.to_pandas``)."""
        return self.to_arrow().to_pandas(**kwargs)

    def to_polars(self) -> Any:
        import polars as pl

        return pl.from_arrow(self.to_arrow())

    def count(self) -> int:
        return sum(b.num_rows for b in self.to_batches())

    def plan(self) -> dict[str, Any]:
        """The files the read would visit: ``snapshot_id``, ``splits`` and ``files`` (partition,
        bucket, file_name, level, row_count, file_size, has_deletion_vector)."""
        return _fjord.plan(self.table._t, *self._args)


class TableWrite:
    """The first phase of a write (``Table.new_write``). Not thread-safe: one per thread."""

    def __init__(self, native: Any) -> None:
        self._w = native
        self._schema: pa.Schema | None = None

    def write(self, data: Any, row_kind: str | Sequence[str] | None = None) -> None:
        """Writes every batch of ``data`` (see ``Table.write``)."""
        self._w.write(to_stream(data, row_kind, self._schema).__arrow_c_stream__())

    def prepare_commit(self, commit_identifier: int = BATCH_COMMIT_IDENTIFIER) -> CommitMessages:
        """Flushes what was written into data files; the messages to commit under
        ``commit_identifier`` (serialize() them to commit elsewhere)."""
        return self._w.prepare_commit(commit_identifier)

    @property
    def records_written(self) -> int:
        return self._w.records_written


def _result(r: dict[str, Any]) -> CommitResult:
    return CommitResult(**r)


class TableCommit:
    """The second phase of a write (``Table.new_commit``)."""

    def __init__(self, native: Any) -> None:
        self._c = native

    @property
    def commit_user(self) -> str:
        return self._c.commit_user

    def commit(self, messages: CommitMessages, commit_identifier: int = BATCH_COMMIT_IDENTIFIER) -> CommitResult:
        return _result(self._c.commit(messages, commit_identifier))

    def overwrite(
        self,
        messages: CommitMessages,
        commit_identifier: int = BATCH_COMMIT_IDENTIFIER,
        partition: Mapping[str, Any] | None = None,
    ) -> CommitResult:
        """Replaces data with ``messages`` (prepared by a writer made with
        ``for_overwrite=True``); ``partition`` as in ``Table.write``."""
        spec = None if partition is None else _partition_spec(partition)
        return _result(self._c.overwrite(messages, commit_identifier, spec))

    def truncate(self, commit_identifier: int = BATCH_COMMIT_IDENTIFIER) -> CommitResult:
        return _result(self._c.truncate(commit_identifier))

    def close(self) -> None:
        """Waits for post-commit maintenance running in the background and reports its error."""
        self._c.close()

    def __enter__(self) -> TableCommit:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
