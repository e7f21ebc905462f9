#!/usr/bin/env python3
"""Checks the layers and rooms of docs/architecture.md from the #include lines.

Production code under src/fjord/<room>/ may include only the public headers (include/fjord/) and
the rooms below its own (ALLOWED); code outside src/ (tools, bench, examples, python/src) only the public
headers. Unit tests and component benchmarks beside the code (*_test.cc, *_bench.cc,
*test_util.h) and src/fjord/testing/ are exempt: they may build fixtures with any room. Prints every violation and exits 1 when there is one."""

import os
import re
import sys

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), ".."))

# room -> rooms it may include (besides itself and the public headers)
BASE = {"common"}
ALLOWED = {
    "common": set(),
    "io": BASE,
    "format/avro": BASE,
    # Fjord's ORC reader and writer (format/orc/) use the Arrow type mapping of format/ and nothing
    # else of it: format/ uses orc/, never the reverse.
    "format/arrow_types": BASE,
    "format/orc": BASE | {"format/arrow_types"},
    "expr": BASE,
    # CDC records and formats (docs/cdc.md): decoding only, no table.
    "cdc": BASE,
    "format": BASE | {"io", "format/avro", "format/arrow_types", "format/orc"},
    "meta": BASE | {"io", "format", "format/avro"},
    "lsm": BASE | {"io", "format", "format/avro", "meta"},
    "table/read": BASE | {"io", "format", "format/avro", "meta", "lsm", "expr"},
    "table/commit": BASE | {"io", "format", "format/avro", "meta", "expr"},
    "table": BASE | {"io", "format", "meta", "lsm", "expr", "table/read"},
    "table/write": BASE | {"io", "format", "format/avro", "meta", "lsm", "expr", "table/read",
                           "table", "table/commit"},
    "table/compact": BASE | {"io", "format", "meta", "lsm", "expr", "table/read", "table",
                             "table/commit", "table/write"},
    "table/catalog": BASE | {"io", "format", "meta", "expr", "table/read", "table"},
    # Maintenance: expiration, tags, rollback, orphan clean-up; commits through table/commit.
    "table/maintain": BASE | {"io", "format", "format/avro", "meta", "lsm", "expr", "table/read",
                              "table", "table/commit"},
}
# A room that may use format/ may use all of it.
for _room in list(ALLOWED):
    if "format" in ALLOWED[_room]:
        ALLOWED[_room] = ALLOWED[_room] | {"format/arrow_types", "format/orc"}
ALLOWED["api"] = set(ALLOWED) - {"api"}
# The streaming runtime (`fjord run`): over the public API and every room below it.
ALLOWED["runtime"] = set(ALLOWED)

INCLUDE = re.compile(r'^\s*#\s*include\s+"(fjord/[^"]+)"', re.M)


def room_of_src(rel):
    """Room of a path relative to src/fjord/."""
    parts = rel.split("/")
    if parts[0] == "format" and len(parts) > 2 and parts[1] in ("avro", "orc"):
        return "format/" + parts[1]
    if rel == "format/arrow_types.h" or rel == "format/arrow_types.cc":
        return "format/arrow_types"
    if parts[0] == "format":
        return "format"
    if parts[0] == "table" and len(parts) > 2:
        return "table/" + parts[1]
    return parts[0]


def target_room(inc):
    if os.path.exists(os.path.join(ROOT, "include", inc)):
        return "public"
    if os.path.exists(os.path.join(ROOT, "src", inc)):
        return room_of_src(inc[len("fjord/"):])
    return "missing"


def is_test(path):
    name = os.path.basename(path)
    return (name.endswith("_test.cc") or name.endswith("_bench.cc") or name.endswith("test_util.h")
            or "/testing/" in path)


def main():
    problems = []
    checked = 0
    for top in ("src/fjord", "include/fjord", "tools", "bench", "examples", "python/src"):
        for dirpath, _, files in os.walk(os.path.join(ROOT, top)):
            for f in files:
                if not f.endswith((".cc", ".h", ".inc")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, ROOT)
                if is_test(rel):
                    continue
                text = open(path, encoding="utf-8", errors="replace").read()
                for inc in INCLUDE.findall(text):
                    checked += 1
                    t = target_room(inc)
                    if t == "missing":
                        problems.append(f"{rel}: includes {inc}, which does not exist")
                        continue
                    if top != "src/fjord":
                        if t != "public":
                            problems.append(f"{rel}: includes the private header {inc} "
                                            "(only include/fjord/ outside src/)")
                        continue
                    room = room_of_src(os.path.relpath(path, os.path.join(ROOT, "src/fjord")))
                    if t in ("public", room):
                        continue
                    if room not in ALLOWED:
                        problems.append(f"{rel}: room '{room}' is not in the layer map")
                    elif t not in ALLOWED[room]:
                        problems.append(f"{rel}: room '{room}' includes {inc} of room '{t}', "
                                        "which is not below it")
    for p in problems:
        print(p)
    print(f"{checked} includes checked, {len(problems)} violations")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
