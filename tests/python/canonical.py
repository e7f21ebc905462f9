"""Rows read by the `fjord` Python package in Fjord's canonical JSON form (docs/reading.md,
"--format jsonl"), the form `fjord-oracle dump` (Java Paimon) and interop/python/pypaimon_dump.py
print, so that the three can be compared. Values are converted from the Arrow arrays, driven by
each column's Paimon type (Table.paimon_types), and compared as parsed JSON."""

import base64
import datetime
import decimal
import json
import math
import re

import numpy as np
import pyarrow as pa

_TOKEN = re.compile(r"\s*(`(?:[^`]|``)*`|'(?:[^']|'')*'|[A-Za-z_][A-Za-z_0-9]*|\d+|[<>(),])")


def parse_type(text):
    """Paimon type text -> (ROOT, [numbers], children); ROW children are (name, type)."""
    tokens = _TOKEN.findall(text)
    pos = [0]

    def peek(k=0):
        return tokens[pos[0] + k].upper() if pos[0] + k < len(tokens) else None

    def take():
        pos[0] += 1
        return tokens[pos[0] - 1]

    def one():
        root = take().upper()
        nums = []
        if peek() == "(":
            take()
            while peek() != ")":
                tok = take()
                if tok != ",":
                    nums.append(int(tok))
            take()
        children = []
        if root in ("TIMESTAMP", "TIME") and peek() == "WITH":
            for _ in range(4):
                take()
            root = "TIMESTAMP_LTZ"
        if peek() == "<":
            take()
            while peek() != ">":
                if root == "ROW":
                    name = take()
                    name = name[1:-1].replace("``", "`") if name.startswith("`") else name
                    children.append((name, one()))
                    if peek() and peek().startswith("'"):
                        take()
                else:
                    children.append(one())
                if peek() == ",":
                    take()
            take()
        while peek() in ("NOT", "NULL"):
            take()
        return (root, nums, children)

    return one()


def _float32(x):
    return float(np.format_float_positional(np.float32(x), unique=True, trim="0"))


def _scalar(v, t):
    root, nums, _ = t
    if v is None:
        return None
    if root in ("FLOAT", "DOUBLE"):
        if math.isnan(v):
            return "NaN"
        if math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return _float32(v) if root == "FLOAT" else v
    if root == "DECIMAL":
        scale = nums[1] if len(nums) > 1 else 0
        return format(decimal.Decimal(v), f".{scale}f")
    if root in ("BINARY", "VARBINARY", "BYTES"):
        return base64.b64encode(v).decode()
    if root == "DATE":
        return v.isoformat()
    if root == "TIME":
        p = nums[0] if nums else 0
        text = f"{v.hour:02d}:{v.minute:02d}:{v.second:02d}"
        return text + f".{v.microsecond // 1000:03d}" if p > 0 else text
    return v


_PER_SECOND = {"s": 1, "ms": 1000, "us": 1000_000, "ns": 1000_000_000}


def _timestamps(arr, t):
    root, nums, _ = t
    p = nums[0] if nums else 6
    per = _PER_SECOND[arr.type.unit]
    out = []
    for v in arr.cast(pa.int64()).to_pylist():
        if v is None:
            out.append(None)
            continue
        seconds, frac = divmod(v, per)
        nanos = frac * (1_000_000_000 // per)
        text = (datetime.datetime(1970, 1, 1) + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%S")
        if p > 0:
            text += "." + f"{nanos:09d}"[:p]
        out.append(text + ("Z" if root == "TIMESTAMP_LTZ" else ""))
    return out


def values(arr, t):
    """The canonical values of an Arrow array (or chunked array) of Paimon type ``t``."""
    if isinstance(arr, pa.ChunkedArray):
        return [v for chunk in arr.chunks for v in values(chunk, t)]
    root, _, children = t
    nulls = arr.is_null().to_pylist()
    if root in ("TIMESTAMP", "TIMESTAMP_LTZ"):
        return _timestamps(arr, t)
    if root in ("ARRAY", "VECTOR"):
        offsets = arr.offsets.to_pylist()
        items = values(arr.values, children[0])
        return [None if nulls[i] else items[offsets[i]:offsets[i + 1]] for i in range(len(arr))]
    if root in ("MAP", "MULTISET"):
        offsets = arr.offsets.to_pylist()
        if pa.types.is_map(arr.type):
            keys, items = arr.keys, arr.items
        else:  # the list form of a map with NULL keys
            keys, items = arr.values.field(0), arr.values.field(1)
        key_type = children[0]
        item_type = children[1] if root == "MAP" else ("INT", [], [])
        k, v = values(keys, key_type), values(items, item_type)
        return [None if nulls[i] else [[k[j], v[j]] for j in range(offsets[i], offsets[i + 1])]
                for i in range(len(arr))]
    if root == "ROW":
        cols = [(name, values(arr.field(i), ft)) for i, (name, ft) in enumerate(children)]
        return [None if nulls[i] else {name: col[i] for name, col in cols} for i in range(len(arr))]
    return [_scalar(v, t) for v in arr.to_pylist()]


def rows(table, paimon_types):
    """The rows of an Arrow table as canonical JSON texts (sorted keys), in a sorted list."""
    cols = [(name, values(table.column(name), parse_type(paimon_types[name]))) for name in table.column_names]
    out = [json.dumps({name: col[i] for name, col in cols}, sort_keys=True, ensure_ascii=False)
           for i in range(table.num_rows)]
    return sorted(out)


def parse_jsonl(text):
    """JSON lines (an oracle's output) as canonical JSON texts, in a sorted list."""
    return sorted(json.dumps(json.loads(line), sort_keys=True, ensure_ascii=False)
                  for line in text.splitlines() if line.strip())
