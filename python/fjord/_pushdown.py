"""Filters of other engines as Fjord filter text (docs/reading.md's syntax), for pruning.

Two front ends: the Python source of a pyarrow predicate that polars hands an IO plugin
(``Expr._pyexpr.to_pyarrow_predicate``), and the printed form of the ``pyarrow.compute.Expression``
that DuckDB hands a pyarrow dataset's ``scanner(filter=...)``. Both are read into Python's ``ast``
and translated node by node: comparisons of a column with a literal, IS [NOT] NULL, IN, AND, OR,
NOT. A conjunct that cannot be translated is left out (the filter only widens); callers always
apply the engine's own predicate to the rows Fjord returns, so the answer is exact either way."""

from __future__ import annotations

import ast
import datetime
import re
from typing import Any

_OPS = {ast.Eq: "=", ast.NotEq: "<>", ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}
_FLIP = {"=": "=", "<>": "<>", "<": ">", "<=": ">=", ">": "<", ">=": "<="}


class _Untranslatable(Exception):
    pass


class _Column:
    def __init__(self, name: str) -> None:
        self.name = name

    def text(self) -> str:
        return "`" + self.name.replace("`", "``") + "`"


def _literal_text(value: Any) -> str:
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if value != value or value in (float("inf"), float("-inf")):
            raise _Untranslatable("non-finite float")
        return repr(value)
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, datetime.datetime):
        raise _Untranslatable("timestamps are filtered after the read")
    if isinstance(value, datetime.date):
        return f"DATE '{value.isoformat()}'"
    raise _Untranslatable(f"literal {value!r}")


class _Translator:
    """ast -> Fjord filter text; the ast is either front end's (see the module doc)."""

    def __init__(self, columns: set[str]) -> None:
        self.columns = columns

    def operand(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Name):  # DuckDB's printed field reference
            if node.id in self.columns:
                return _Column(node.id)
            if node.id in ("true", "false"):
                return node.id == "true"
            raise _Untranslatable(node.id)
        if isinstance(node, ast.Call):
            name = _call_name(node)
            if name in ("field", "pa.compute.field", "pc.field") and len(node.args) == 1:
                col = self.operand_constant(node.args[0])
                if isinstance(col, str) and col in self.columns:
                    return _Column(col)
            if name == "to_py_date" and len(node.args) == 1:
                return datetime.date(1970, 1, 1) + datetime.timedelta(days=self.operand_constant(node.args[0]))
            if name == "__date" and len(node.args) == 1:
                return datetime.date.fromisoformat(self.operand_constant(node.args[0]))
            if name in ("pa.scalar", "pc.scalar", "pa.compute.scalar") and len(node.args) == 1:
                return self.operand(node.args[0])
            raise _Untranslatable(name)
        return self.operand_constant(node)

    def operand_constant(self, node: ast.AST) -> Any:
        if isinstance(node, ast.Constant) and node.value is not None:
            return node.value
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            v = self.operand_constant(node.operand)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                return -v
        raise _Untranslatable(ast.dump(node))

    def column(self, node: ast.AST) -> _Column:
        c = self.operand(node)
        if not isinstance(c, _Column):
            raise _Untranslatable("not a column")
        return c

    def predicate(self, node: ast.AST) -> str:
        if isinstance(node, ast.BoolOp):
            word = " AND " if isinstance(node.op, ast.And) else " OR "
            return "(" + word.join(self.predicate(v) for v in node.values) + ")"
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.BitAnd, ast.BitOr)):
            word = " AND " if isinstance(node.op, ast.BitAnd) else " OR "
            return f"({self.predicate(node.left)}{word}{self.predicate(node.right)})"
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Invert, ast.Not)):
            return f"(NOT ({self.predicate(node.operand)}))"
        if isinstance(node, ast.Compare) and len(node.ops) == 1:
            op = _OPS.get(type(node.ops[0]))
            if op is None:
                raise _Untranslatable("operator")
            left, right = self.operand(node.left), self.operand(node.comparators[0])
            if isinstance(left, _Column) and not isinstance(right, _Column):
                return f"{left.text()} {op} {_literal_text(right)}"
            if isinstance(right, _Column) and not isinstance(left, _Column):
                return f"{right.text()} {_FLIP[op]} {_literal_text(left)}"
            raise _Untranslatable("comparison")
        if isinstance(node, ast.Call):
            name = _call_name(node)
            # polars: (field).is_null(), (field).is_valid(), (field).isin([...])
            if isinstance(node.func, ast.Attribute) and name.split(".")[-1] in ("is_null", "is_valid", "isin"):
                method = name.split(".")[-1]
                target = self.column(node.func.value)
                if method == "is_null":
                    return f"{target.text()} IS NULL"
                if method == "is_valid":
                    return f"{target.text()} IS NOT NULL"
                return self.is_in(target, node.args[0])
            # DuckDB: is_null(x), is_valid(x), is_in(x, [...]), invert(p), if_else(c, p, None)
            if name == "is_null" and node.args:
                return f"{self.column(node.args[0]).text()} IS NULL"
            if name == "is_valid" and node.args:
                return f"{self.column(node.args[0]).text()} IS NOT NULL"
            if name == "is_in" and len(node.args) == 2:
                return self.is_in(self.column(node.args[0]), node.args[1])
            if name == "invert" and len(node.args) == 1:
                return f"(NOT ({self.predicate(node.args[0])}))"
            if name == "if_else" and len(node.args) == 3 and _is_none(node.args[2]):
                # NULL where the condition fails: a filter keeps rows where both hold.
                return f"({self.predicate(node.args[0])} AND {self.predicate(node.args[1])})"
        raise _Untranslatable(ast.dump(node)[:80])

    def is_in(self, column: _Column, values: ast.AST) -> str:
        if not isinstance(values, (ast.List, ast.Tuple, ast.Set)) or not values.elts:
            raise _Untranslatable("IN list")
        items = [_literal_text(self.operand(v)) for v in values.elts]
        return f"{column.text()} IN ({', '.join(items)})"


def _call_name(node: ast.Call) -> str:
    parts = []
    f = node.func
    while isinstance(f, ast.Attribute):
        parts.append(f.attr)
        f = f.value
    if isinstance(f, ast.Name):
        parts.append(f.id)
    elif isinstance(f, ast.Call):
        parts.append(_call_name(f))
    return ".".join(reversed(parts))


def _is_none(node: ast.AST) -> bool:
    return isinstance(node, ast.Constant) and node.value is None


def _conjuncts(node: ast.AST) -> list[ast.AST]:
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
        return [c for v in node.values for c in _conjuncts(v)]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd):
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _translate(tree: ast.AST, columns: set[str]) -> str | None:
    t = _Translator(columns)
    parts = []
    for conjunct in _conjuncts(tree):
        try:
            parts.append(t.predicate(conjunct))
        except (_Untranslatable, ValueError, TypeError, KeyError):
            continue  # left to the engine's own filter
    return " AND ".join(parts) if parts else None


def from_polars(predicate_source: str | None, columns: set[str]) -> str | None:
    """Fjord filter text for polars' pyarrow predicate source, or None."""
    if not predicate_source:
        return None
    try:
        tree = ast.parse(predicate_source, mode="eval").body
    except SyntaxError:
        return None
    return _translate(tree, columns)


_STRING = r'"(?:[^"\\]|\\.)*"'
_PIECES = re.compile(_STRING + r"|[^\"]+")
_OPTIONS = re.compile(r",\s*\{(?:nan_is_null|null_handling)=[^{}]*\}")
_VALUE_SET = re.compile(r",\s*\{value_set=[a-z0-9_\[\]]+:\[(.*?)\],\s*null_matching_behavior=\w+\}", re.S)
_TYPED_NULL = re.compile(r"\bnull\[[a-z0-9_]+\]|\bnull\b")
_TIMESTAMP = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d+)?\b")
_DATE = re.compile(r"\b(\d{4}-\d{2}-\d{2})\b")


def _python_form(printed: str) -> str:
    out = []
    for piece in _PIECES.findall(printed):
        if piece.startswith('"'):
            out.append(piece)
            continue
        piece = _OPTIONS.sub("", piece)
        piece = _TYPED_NULL.sub("None", piece)
        piece = _TIMESTAMP.sub("__timestamp()", piece)  # untranslatable on purpose
        piece = _DATE.sub(r'__date("\1")', piece)
        out.append(piece)
    text = "".join(out)
    return _VALUE_SET.sub(lambda m: ", [" + m.group(1).replace("\n", " ") + "]", text)


def from_arrow_expression(expression: Any, columns: set[str]) -> str | None:
    """Fjord filter text for a ``pyarrow.compute.Expression`` as DuckDB builds them, or None."""
    if expression is None:
        return None
    try:
        tree = ast.parse(_python_form(str(expression)), mode="eval").body
    except SyntaxError:
        return None
    return _translate(tree, columns)


def arrow_expression_columns(expression: Any, columns: list[str]) -> list[str] | None:
    """The columns a ``pyarrow.compute.Expression`` refers to (of ``columns``, in their order),
    or None when its printed form cannot be read (then every column is needed)."""
    if expression is None:
        return []
    try:
        tree = ast.parse(_python_form(str(expression)), mode="eval")
    except SyntaxError:
        return None
    names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    names |= {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}
    return [c for c in columns if c in names]
