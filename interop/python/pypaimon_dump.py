#!/usr/bin/env python3
"""Reads a Paimon table with pypaimon (the Python Paimon implementation) and prints its rows in
Fjord's canonical JSON-lines form (interop/java/README.md), like `fjord cat` and `fjord-oracle dump`.

    pypaimon_dump.py TABLE_DIR [--snapshot N | --tag NAME] [--output FILE]
    pypaimon_dump.py --batch FILE      one JSON array of the arguments above per line; for each
                                       line a JSON object {"line", "ok", "message"} on stdout

Runs under the venv that scripts/bootstrap.sh makes (.deps/pypaimon-venv, pinned by
scripts/pypaimon.lock). The table is opened through pypaimon's filesystem catalog: the warehouse is
the table directory's grandparent, the identifier `<db>.<table>` from `<db>.db/<table>`.

Time travel: pypaimon 1.4.2 reads tags (`scan.tag-name`) but has no `scan.snapshot-id`, so
--snapshot N plans the scan from snapshot N's manifest list through pypaimon's own FileScanner (its
internal API, pinned by the lock file); the latest schema is used for every snapshot.

Exit status: 0 success, 1 error (message on stderr), 2 usage error; --batch: 0 when every line
succeeded, 3 otherwise.
"""
import base64
import datetime
import decimal
import json
import math
import os
import sys

import numpy
import pyarrow

from pypaimon import CatalogFactory
from pypaimon.schema.data_types import ArrayType, AtomicType, MapType, MultisetType, RowType


class UsageError(Exception):
    pass


_EXACT = decimal.Context(prec=1000)
_EPOCH = datetime.datetime(1970, 1, 1)


def open_table(table_dir):
    table_dir = os.path.abspath(table_dir)
    if not os.path.isdir(os.path.join(table_dir, "schema")):
        raise ValueError(f"not a Paimon table directory (no schema/): {table_dir}")
    db_dir = os.path.dirname(table_dir)
    if not db_dir.endswith(".db"):
        raise ValueError(f"table directory is not inside a <db>.db directory: {table_dir}")
    warehouse = os.path.dirname(db_dir)
    catalog = CatalogFactory.create({"warehouse": warehouse})
    db = os.path.basename(db_dir)[:-len(".db")]
    return catalog.get_table(f"{db}.{os.path.basename(table_dir)}")


# --- numbers ---------------------------------------------------------------------------------

def _number_text(shortest: decimal.Decimal, negative_zero: bool) -> str:
    """Plain notation when the leading digit's exponent is in [-7, 20], else scientific (1.5E+30)."""
    if shortest.is_zero():
        return "-0.0" if negative_zero else "0.0"
    shortest = shortest.normalize(_EXACT)
    adjusted = shortest.adjusted()
    if -7 <= adjusted <= 20:
        plain = format(shortest, "f")
        return plain if "." in plain else plain + ".0"
    sign, digits, _ = shortest.as_tuple()
    mantissa = str(digits[0]) + ("." + "".join(map(str, digits[1:])) if len(digits) > 1 else "")
    return ("-" if sign else "") + mantissa + "E" + ("+" if adjusted >= 0 else "-") + str(abs(adjusted))


def _non_finite(x: float):
    if math.isnan(x):
        return '"NaN"'
    if math.isinf(x):
        return '"Infinity"' if x > 0 else '"-Infinity"'
    return None


def double_json(x: float) -> str:
    special = _non_finite(x)
    if special:
        return special
    # repr gives the shortest digits that read back as the same double (nearest on a tie).
    return _number_text(decimal.Decimal(repr(x)), x == 0 and math.copysign(1, x) < 0)


def float_json(x: float) -> str:
    special = _non_finite(x)
    if special:
        return special
    # numpy's Dragon4 in unique mode: the shortest digits that identify this float32.
    text = numpy.format_float_scientific(numpy.float32(x), unique=True, trim="-")
    return _number_text(decimal.Decimal(text), x == 0 and math.copysign(1, x) < 0)


# --- values ----------------------------------------------------------------------------------

def _string(s: str) -> str:
    """As the Java oracle: only '"', '\\' and control characters (as \\uXXXX) are escaped."""
    out = s.replace("\\", "\\\\").replace('"', '\\"')
    if any(c < " " for c in out):
        out = "".join(f"\\u{ord(c):04X}" if c < " " else c for c in out)
    return '"' + out + '"'



def _type_name(t: AtomicType) -> str:
    name = t.type.upper()
    return name[:-len(" NOT NULL")] if name.endswith(" NOT NULL") else name


def _precision(name: str, default: int) -> int:
    if "(" in name:
        return int(name[name.index("(") + 1:name.index(")")])
    return default


def _date(days: int) -> str:
    d = datetime.date(1970, 1, 1) + datetime.timedelta(days=days)
    return f"{d.year:04d}-{d.month:02d}-{d.day:02d}"


def _timestamp(value: int, unit: str, precision: int) -> str:
    per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[unit]
    seconds, sub = divmod(value, per_second)  # floor: sub is always >= 0
    nanos = sub * (1_000_000_000 // per_second)
    t = _EPOCH + datetime.timedelta(seconds=seconds)
    out = f"{t.year:04d}-{t.month:02d}-{t.day:02d}T{t.hour:02d}:{t.minute:02d}:{t.second:02d}"
    if precision > 0:
        out += "." + f"{nanos:09d}"[:precision]
    return out


def _integers(arr: pyarrow.Array) -> list:
    """The raw integer storage of a date/time/timestamp array (None for null)."""
    storage = {4: pyarrow.int32(), 8: pyarrow.int64()}[arr.type.bit_width // 8]
    return arr.view(storage).to_pylist()


def render(arr: pyarrow.Array, ptype) -> list:
    """JSON text of every element of arr, whose Paimon type is ptype; None stands for null."""
    valid = arr.is_valid().to_pylist() if arr.null_count else [True] * len(arr)

    def masked(texts):
        return [t if ok else "null" for t, ok in zip(texts, valid)]

    if isinstance(ptype, RowType):
        children = arr.flatten()
        columns = [render(c, f.type) for c, f in zip(children, ptype.fields)]
        texts = []
        for i in range(len(arr)):
            texts.append("{" + ",".join(_string(f.name) + ":" + col[i]
                                        for f, col in zip(ptype.fields, columns)) + "}")
        return masked(texts)
    if isinstance(ptype, ArrayType):
        offsets = arr.offsets.to_pylist()
        values = render(arr.values, ptype.element)
        return masked(["[" + ",".join(values[offsets[i]:offsets[i + 1]]) + "]"
                       for i in range(len(arr))])
    if isinstance(ptype, MapType):
        offsets = arr.offsets.to_pylist()
        keys = render(arr.keys, ptype.key)
        items = render(arr.items, ptype.value)
        return masked(["[" + ",".join(f"[{keys[j]},{items[j]}]"
                                      for j in range(offsets[i], offsets[i + 1])) + "]"
                       for i in range(len(arr))])
    if isinstance(ptype, MultisetType):
        raise ValueError(f"type not supported by pypaimon: {ptype}")
    name = _type_name(ptype)
    base = name.split("(")[0].split(" ")[0]
    if base in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        ltz = base == "TIMESTAMP_LTZ" or "WITH LOCAL TIME ZONE" in name
        precision = _precision(name, 6)
        texts = ['"' + _timestamp(v, arr.type.unit, precision) + ('Z"' if ltz else '"')
                 if v is not None else "null" for v in _integers(arr)]
        return texts
    if base == "DATE":
        return ['"' + _date(v) + '"' if v is not None else "null" for v in _integers(arr)]
    if base == "TIME":
        precision = _precision(name, 0)
        per_second = {"s": 1, "ms": 1000, "us": 1_000_000, "ns": 1_000_000_000}[arr.type.unit]
        texts = []
        for v in _integers(arr):
            if v is None:
                texts.append("null")
                continue
            millis = v * 1000 // per_second
            s, ms = divmod(millis, 1000)
            text = f"{s // 3600:02d}:{s // 60 % 60:02d}:{s % 60:02d}"
            texts.append('"' + text + (f".{ms:03d}" if precision > 0 else "") + '"')
        return texts
    values = arr.to_pylist()
    if base == "BOOLEAN":
        fmt = lambda v: "true" if v else "false"  # noqa: E731
    elif base in ("TINYINT", "SMALLINT", "INT", "INTEGER", "BIGINT"):
        fmt = str
    elif base == "FLOAT":
        fmt = float_json
    elif base == "DOUBLE":
        fmt = double_json
    elif base == "DECIMAL":
        scale = int(name[name.index(",") + 1:name.index(")")]) if "," in name else 0
        quantum = decimal.Decimal(1).scaleb(-scale)
        fmt = lambda v: '"' + format(v.quantize(quantum, context=_EXACT), "f") + '"'  # noqa: E731
    elif base in ("CHAR", "VARCHAR", "STRING"):
        fmt = _string
    elif base in ("BINARY", "VARBINARY", "BYTES"):
        fmt = lambda v: '"' + base64.b64encode(v).decode("ascii") + '"'  # noqa: E731
    else:
        raise ValueError(f"type not supported by the JSON form: {name}")
    return ["null" if v is None else fmt(v) for v in values]


# --- reading ---------------------------------------------------------------------------------

def read_arrow(table, snapshot=None):
    rb = table.new_read_builder()
    scan = rb.new_scan()
    if snapshot is not None:
        from pypaimon.manifest.manifest_list_manager import ManifestListManager
        from pypaimon.read.scanner.file_scanner import FileScanner
        from pypaimon.snapshot.snapshot_manager import SnapshotManager
        snap = SnapshotManager(table).get_snapshot_by_id(snapshot)
        if snap is None:
            raise ValueError(f"snapshot {snapshot} does not exist")
        manifests = ManifestListManager(table)
        scan.file_scanner = FileScanner(table, lambda: (manifests.read_all(snap), snap))
    splits = scan.plan().splits()
    return rb.new_read().to_arrow(splits), rb.read_type()


def dump(table_dir, out, snapshot=None, tag=None):
    table = open_table(table_dir)
    if tag is not None:
        table = table.copy({"scan.tag-name": tag})
    data, fields = read_arrow(table, snapshot)
    data = data.combine_chunks()
    columns = [render(data.column(i).chunk(0) if data.column(i).num_chunks else
                      pyarrow.array([], type=data.schema.field(i).type), f.type)
               for i, f in enumerate(fields)]
    names = [_string(f.name) for f in fields]
    for r in range(data.num_rows):
        out.write("{" + ",".join(n + ":" + c[r] for n, c in zip(names, columns)) + "}\n")
    return data.num_rows


def run(args):
    if not args or args[0].startswith("--"):
        raise UsageError("missing TABLE_DIR")
    table_dir, snapshot, tag, output = args[0], None, None, None
    rest = args[1:]
    if len(rest) % 2:
        raise UsageError(f"option {rest[-1]} needs a value")
    for flag, value in zip(rest[::2], rest[1::2]):
        if flag == "--snapshot":
            snapshot = int(value)
        elif flag == "--tag":
            tag = value
        elif flag == "--output":
            output = value
        else:
            raise UsageError(f"unknown option {flag}")
    if snapshot is not None and tag is not None:
        raise UsageError("at most one of --snapshot, --tag")
    if output is None:
        return dump(table_dir, sys.stdout, snapshot, tag)
    with open(output, "w", encoding="utf-8", newline="\n") as out:
        return dump(table_dir, out, snapshot, tag)


def batch(path):
    failures = 0
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            args = json.loads(line)
            if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
                raise UsageError("a batch line must be a JSON array of strings")
            if "--output" not in args:
                raise UsageError("a batch line needs --output FILE")
            rows = run(args)
            result = {"line": n, "ok": True, "message": f"{rows} rows"}
        except Exception as e:  # noqa: BLE001 -- reported per line
            failures += 1
            result = {"line": n, "ok": False, "message": f"{type(e).__name__}: {e}"}
        print(json.dumps(result, ensure_ascii=False), flush=True)
    return 0 if failures == 0 else 3


def main(argv):
    try:
        if argv[:1] == ["--batch"]:
            if len(argv) != 2:
                raise UsageError("--batch takes one FILE")
            return batch(argv[1])
        if argv[:1] in (["-h"], ["--help"]):
            print(__doc__)
            return 0
        run(argv)
        return 0
    except UsageError as e:
        print(f"pypaimon_dump.py: {e}", file=sys.stderr)
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    except Exception as e:  # noqa: BLE001
        print(f"pypaimon_dump.py: error: {type(e).__name__}: {e}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
