"""Arrow types <-> Paimon types.

``to_paimon`` spells an Arrow field as Paimon's type text (what ``CREATE TABLE`` takes);
``to_arrow`` reads Paimon's type text back into the Arrow type Fjord's reads produce (its
canonical form, format/arrow_types.h): CHAR/VARCHAR utf8, BINARY/VARBINARY binary, DATE date32,
TIME time32[ms], TIMESTAMP(p) timestamp[ms|us|ns] by p, TIMESTAMP WITH LOCAL TIME ZONE the same
with time zone UTC, ARRAY list, MAP map, MULTISET map<element, int32>, ROW struct."""

from __future__ import annotations

import re

import pyarrow as pa

from .errors import InvalidError

_UNIT_PRECISION = {"s": 0, "ms": 3, "us": 6, "ns": 9}


def _quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _type_text(t: pa.DataType, where: str) -> str:
    if pa.types.is_boolean(t):
        return "BOOLEAN"
    simple = {
        pa.int8(): "TINYINT",
        pa.int16(): "SMALLINT",
        pa.int32(): "INT",
        pa.int64(): "BIGINT",
        pa.float32(): "FLOAT",
        pa.float64(): "DOUBLE",
        pa.date32(): "DATE",
    }
    if t in simple:
        return simple[t]
    if pa.types.is_decimal(t):
        return f"DECIMAL({t.precision}, {t.scale})"
    if pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return "STRING"
    if pa.types.is_binary(t) or pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return "BYTES"
    if pa.types.is_fixed_size_binary(t):
        return f"BINARY({t.byte_width})"
    if pa.types.is_date64(t):
        return "DATE"
    if pa.types.is_time(t):
        return f"TIME({_UNIT_PRECISION[t.unit]})"
    if pa.types.is_timestamp(t):
        p = _UNIT_PRECISION[t.unit]
        return f"TIMESTAMP({p}) WITH LOCAL TIME ZONE" if t.tz else f"TIMESTAMP({p})"
    if pa.types.is_dictionary(t):
        return _type_text(t.value_type, where)
    if pa.types.is_map(t):
        key = to_paimon(pa.field("key", t.key_type, False), where + " key")
        value = to_paimon(t.item_field, where + " value")
        return f"MAP<{key}, {value}>"
    if (
        pa.types.is_list(t)
        or pa.types.is_large_list(t)
        or pa.types.is_list_view(t)
        or pa.types.is_large_list_view(t)
        or pa.types.is_fixed_size_list(t)
    ):
        return f"ARRAY<{to_paimon(t.value_field, where + ' element')}>"
    if pa.types.is_struct(t):
        parts = []
        for i in range(t.num_fields):
            f = t.field(i)
            parts.append(f"{_quote(f.name)} {to_paimon(f, where + '.' + f.name)}")
        return "ROW<" + ", ".join(parts) + ">"
    raise InvalidError(f"column '{where}': Arrow type {t} has no Paimon type", "Invalid")


def to_paimon(field: pa.Field, where: str | None = None) -> str:
    """Paimon's type text of an Arrow field: "INT NOT NULL", "ARRAY<STRING>", ..."""
    text = _type_text(field.type, where or field.name)
    return text if field.nullable else text + " NOT NULL"


_TOKEN = re.compile(r"\s*(`(?:[^`]|``)*`|'(?:[^']|'')*'|[A-Za-z_][A-Za-z_0-9]*|\d+|[<>(),])")


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = []
        pos = 0
        while pos < len(text):
            m = _TOKEN.match(text, pos)
            if not m:
                if text[pos:].strip() == "":
                    break
                raise InvalidError(f"cannot read the type '{text}' at {pos}", "Invalid")
            self.tokens.append(m.group(1))
            pos = m.end()
        self.i = 0

    def peek(self, k: int = 0) -> str | None:
        j = self.i + k
        return self.tokens[j] if j < len(self.tokens) else None

    def take(self, expected: str | None = None) -> str:
        tok = self.peek()
        if tok is None or (expected is not None and tok.upper() != expected):
            raise InvalidError(f"cannot read the type '{self.text}': expected {expected}", "Invalid")
        self.i += 1
        return tok

    def numbers(self) -> list[int]:
        out: list[int] = []
        if self.peek() == "(":
            self.take("(")
            out.append(int(self.take()))
            while self.peek() == ",":
                self.take(",")
                out.append(int(self.take()))
            self.take(")")
        return out

    def field_type(self) -> tuple[pa.DataType, bool]:
        """A type and its nullability."""
        t = self.atom()
        nullable = True
        if (self.peek() or "").upper() == "NOT" and (self.peek(1) or "").upper() == "NULL":
            self.i += 2
            nullable = False
        elif (self.peek() or "").upper() == "NULL":
            self.i += 1
        return t, nullable

    def atom(self) -> pa.DataType:
        name = self.take().upper()
        if name in ("BOOLEAN",):
            return pa.bool_()
        ints = {"TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(), "INTEGER": pa.int32(),
                "BIGINT": pa.int64(), "FLOAT": pa.float32(), "DOUBLE": pa.float64(), "DATE": pa.date32()}
        if name in ints:
            if name == "DOUBLE" and (self.peek() or "").upper() == "PRECISION":
                self.i += 1
            return ints[name]
        if name in ("DECIMAL", "NUMERIC", "DEC"):
            n = self.numbers()
            return pa.decimal128(n[0] if n else 10, n[1] if len(n) > 1 else 0)
        if name in ("CHAR", "VARCHAR", "STRING"):
            self.numbers()
            return pa.string()
        if name in ("BINARY", "VARBINARY", "BYTES", "BLOB", "VARIANT"):
            self.numbers()
            return pa.binary()
        if name == "TIME":
            self.numbers()
            return pa.time32("ms")
        if name in ("TIMESTAMP", "TIMESTAMP_LTZ"):
            n = self.numbers()
            p = n[0] if n else 6
            unit = "ms" if p <= 3 else "us" if p <= 6 else "ns"
            ltz = name == "TIMESTAMP_LTZ"
            if (self.peek() or "").upper() == "WITH":
                for word in ("WITH", "LOCAL", "TIME", "ZONE"):
                    self.take(word)
                ltz = True
            elif (self.peek() or "").upper() == "WITHOUT":
                for word in ("WITHOUT", "TIME", "ZONE"):
                    self.take(word)
            return pa.timestamp(unit, tz="UTC" if ltz else None)
        if name in ("ARRAY", "MULTISET", "VECTOR"):
            self.take("<")
            element, nullable = self.field_type()
            if name == "VECTOR" and self.peek() == ",":
                self.take(",")
                self.take()
            self.take(">")
            if name == "MULTISET":
                return pa.map_(element, pa.int32())
            return pa.list_(pa.field("element", element, nullable))
        if name == "MAP":
            self.take("<")
            key, _ = self.field_type()
            self.take(",")
            value, nullable = self.field_type()
            self.take(">")
            return pa.map_(pa.field("key", key, False), pa.field("value", value, nullable))
        if name == "ROW":
            self.take("<")
            fields = []
            while self.peek() != ">":
                raw = self.take()
                fname = raw[1:-1].replace("``", "`") if raw.startswith("`") else raw
                t, nullable = self.field_type()
                if (self.peek() or "").startswith("'"):
                    self.take()  # the field's comment
                fields.append(pa.field(fname, t, nullable))
                if self.peek() == ",":
                    self.take(",")
            self.take(">")
            return pa.struct(fields)
        raise InvalidError(f"unknown type '{name}' in '{self.text}'", "Invalid")


def to_arrow(text: str) -> tuple[pa.DataType, bool]:
    """The Arrow type Fjord reads a Paimon type text as, and whether it is nullable."""
    p = _Parser(text)
    t, nullable = p.field_type()
    if p.peek() is not None:
        raise InvalidError(f"cannot read the type '{text}': '{p.peek()}' left over", "Invalid")
    return t, nullable


def canonical_input(t: pa.DataType) -> pa.DataType:
    """``t`` with the layout variants Arrow producers use (views, large offsets, dictionaries)
    replaced by the plain layout of the same values; other types unchanged."""
    if pa.types.is_dictionary(t):
        return canonical_input(t.value_type)
    if pa.types.is_large_string(t) or pa.types.is_string_view(t):
        return pa.string()
    if pa.types.is_large_binary(t) or pa.types.is_binary_view(t):
        return pa.binary()
    if pa.types.is_large_list(t) or pa.types.is_list_view(t) or pa.types.is_large_list_view(t):
        f = t.value_field
        return pa.list_(f.with_type(canonical_input(f.type)))
    if pa.types.is_list(t):
        f = t.value_field
        return pa.list_(f.with_type(canonical_input(f.type)))
    if pa.types.is_map(t):
        return pa.map_(t.key_field.with_type(canonical_input(t.key_type)),
                       t.item_field.with_type(canonical_input(t.item_type)))
    if pa.types.is_struct(t):
        return pa.struct([t.field(i).with_type(canonical_input(t.field(i).type))
                          for i in range(t.num_fields)])
    return t
