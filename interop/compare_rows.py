#!/usr/bin/env python3
"""Compare two canonical JSON-lines row dumps as multisets of rows.

    compare_rows.py A.jsonl B.jsonl     exit 0 when both hold the same rows (any order), else 1
    compare_rows.py --self-test         check the normalisation on built-in examples

Each line is one JSON object (one row), as printed by interop/java/fjord-oracle and by Fjord's C++
reader. Rows are compared after normalisation:

* numbers (integers and floats alike) compare by exact decimal value: 1.10 == 1.1, 1E+1 == 10,
  -0.0 == 0; they never equal a string or a boolean ("1" != 1, true != 1);
* strings, booleans and null compare exactly (so the "NaN"/"Infinity" strings for non-finite
  floats and the DECIMAL strings compare as text);
* lists compare element by element, in order;
* objects compare by their set of keys and values; the key order does not matter, but a duplicated
  key is an error.

Exit status: 0 equal, 1 different, 2 usage or input error. Python 3.11, standard library only.
"""

from __future__ import annotations

import collections
import decimal
import json
import sys
from typing import Any, Iterable

MAX_SHOWN = 10

# Exact arithmetic for normalisation: Decimal.normalize() rounds to the context precision.
_CTX = decimal.Context(prec=100_000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


class InputError(Exception):
    pass


def _no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise ValueError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _reject_constant(name: str) -> Any:
    # json accepts bare NaN/Infinity by default; they are not JSON and not our canonical form
    raise ValueError(f"non-JSON constant {name}")


def parse_line(text: str) -> Any:
    return json.loads(
        text,
        parse_float=decimal.Decimal,
        parse_int=decimal.Decimal,
        parse_constant=_reject_constant,
        object_pairs_hook=_no_duplicate_keys,
    )


def canon(value: Any) -> Any:
    """A hashable form in which equal values (by the rules above) are equal."""
    if value is None:
        return ("null",)
    if isinstance(value, bool):  # before numbers: bool is not a number here
        return ("bool", value)
    if isinstance(value, decimal.Decimal):
        if not value.is_finite():
            raise ValueError(f"non-finite number {value}")
        if value.is_zero():
            return ("num", "0")
        n = value.normalize(_CTX)
        return ("num", format(n, "E"))  # e.g. 1.1E+0 -- unique text for each value
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, list):
        return ("list", tuple(canon(v) for v in value))
    if isinstance(value, dict):
        return ("obj", tuple(sorted((k, canon(v)) for k, v in value.items())))
    raise ValueError(f"unexpected JSON value {value!r}")


def load_rows(path: str) -> tuple[collections.Counter, dict[Any, str]]:
    """Counter of canonical rows, and the first original line seen for each."""
    counts: collections.Counter = collections.Counter()
    first_text: dict[Any, str] = {}
    try:
        with open(path, encoding="utf-8") as f:
            for lineno, line in enumerate(f, 1):
                text = line.rstrip("\n").rstrip("\r")
                if not text.strip():
                    continue
                try:
                    value = parse_line(text)
                    if not isinstance(value, dict):
                        raise ValueError("a row must be a JSON object")
                    key = canon(value)
                except ValueError as e:
                    raise InputError(f"{path}:{lineno}: {e}") from None
                counts[key] += 1
                first_text.setdefault(key, text)
    except OSError as e:
        raise InputError(f"{path}: {e.strerror or e}") from None
    return counts, first_text


def _show(title: str, diff: collections.Counter, texts: dict[Any, str]) -> None:
    total = sum(diff.values())
    print(f"{title}: {total} row(s)")
    for shown, (key, n) in enumerate(sorted(diff.items(), key=lambda kv: texts[kv[0]])):
        if shown >= MAX_SHOWN:
            print(f"  ... and {len(diff) - MAX_SHOWN} more distinct row(s)")
            break
        times = f"  (x{n})" if n > 1 else ""
        print(f"  {texts[key]}{times}")


def compare(path_a: str, path_b: str) -> int:
    a, text_a = load_rows(path_a)
    b, text_b = load_rows(path_b)
    only_a = a - b
    only_b = b - a
    if not only_a and not only_b:
        print(f"equal: {sum(a.values())} row(s)")
        return 0
    print(f"DIFFERENT: {path_a} has {sum(a.values())} row(s), {path_b} has {sum(b.values())}")
    if only_a:
        _show(f"only in {path_a} (missing from {path_b})", only_a, text_a)
    if only_b:
        _show(f"only in {path_b} (extra)", only_b, text_b)
    return 1


def _rows_equal(lines_a: Iterable[str], lines_b: Iterable[str]) -> bool:
    ca = collections.Counter(canon(parse_line(t)) for t in lines_a)
    cb = collections.Counter(canon(parse_line(t)) for t in lines_b)
    return ca == cb


def self_test() -> int:
    same = [
        ('{"x":1.10}', '{"x":1.1}'),
        ('{"x":1E+1}', '{"x":10}'),
        ('{"x":10.0}', '{"x":10}'),
        ('{"x":1.5E+30}', '{"x":1500000000000000000000000000000}'),
        ('{"x":0.001}', '{"x":1e-3}'),
        ('{"x":-0.0}', '{"x":0}'),
        ('{"x":0E-7}', '{"x":0.0}'),
        ('{"a":1,"b":2}', '{"b":2,"a":1}'),
        ('{"x":[1.0,[2.50,{"y":3e0}]]}', '{"x":[1,[2.5,{"y":3}]]}'),
        ('{"x":"\\u00e9\\/"}', '{"x":"\u00e9/"}'),
        ('{"x":123456789012345678901234567890.123456789}',
         '{"x":1.23456789012345678901234567890123456789E+29}'),
    ]
    different = [
        ('{"x":1}', '{"x":"1"}'),
        ('{"x":1}', '{"x":true}'),
        ('{"x":0}', '{"x":false}'),
        ('{"x":0}', '{"x":null}'),
        ('{"x":"NaN"}', '{"x":"nan"}'),
        ('{"x":"1.10"}', '{"x":"1.1"}'),  # DECIMAL strings are text: the scale matters
        ('{"x":9223372036854775807}', '{"x":9223372036854775806}'),
        ('{"x":0.30000000000000004}', '{"x":0.3}'),
        ('{"x":[1,2]}', '{"x":[2,1]}'),
        ('{"x":[[1,2]]}', '{"x":[1,2]}'),
        ('{"a":1}', '{"a":1,"b":null}'),
        ('{"a":{"b":1}}', '{"a":{"c":1}}'),
    ]
    failures = 0
    for a, b in same:
        if canon(parse_line(a)) != canon(parse_line(b)):
            print(f"FAIL: expected equal: {a}  vs  {b}")
            failures += 1
    for a, b in different:
        if canon(parse_line(a)) == canon(parse_line(b)):
            print(f"FAIL: expected different: {a}  vs  {b}")
            failures += 1
    # multisets: order free, multiplicity counts
    checks = [
        (['{"a":1}', '{"a":2}'], ['{"a":2.0}', '{"a":1}'], True),
        (['{"a":1}', '{"a":1}'], ['{"a":1}'], False),
        (['{"a":1}', '{"a":1}', '{"a":2}'], ['{"a":1}', '{"a":2}', '{"a":2}'], False),
        ([], [], True),
    ]
    for la, lb, expect in checks:
        if _rows_equal(la, lb) != expect:
            print(f"FAIL: multiset {la} vs {lb}: expected {'equal' if expect else 'different'}")
            failures += 1
    for bad in ['{"x":NaN}', '{"x":1,"x":2}', '{"x":Infinity}']:
        try:
            canon(parse_line(bad))
        except ValueError:
            continue
        print(f"FAIL: expected rejection of {bad}")
        failures += 1
    total = len(same) + len(different) + len(checks) + 3
    print(f"self-test: {total - failures} passed, {failures} failed")
    return 0 if failures == 0 else 1


def main(argv: list[str]) -> int:
    if argv == ["--self-test"]:
        return self_test()
    if len(argv) != 2 or argv[0].startswith("-") or argv[1].startswith("-"):
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        print(__doc__.strip().splitlines()[3], file=sys.stderr)
        return 2
    try:
        return compare(argv[0], argv[1])
    except InputError as e:
        print(f"compare_rows.py: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
