#!/usr/bin/env python3
"""Nested schema evolution between Fjord and Java Paimon 1.4.2 (docs/reading.md, "Nested schema
evolution"). For each file format (parquet, orc, avro) and table kind (primary key, append):

1. Fjord creates a table with ROW, ARRAY and MAP<STRING, ROW> columns, writes rows, applies
   nested ALTERs (`fjord table alter`: fields added to a ROW and to the ROWs of a MAP's values, a
   ROW field widened and renamed, an ARRAY's element widened, a field of the MAP's ROWs dropped),
   writes rows under the new schema; Fjord and Java read it, then again after Fjord's full
   compaction (old files rewritten through the evolution mapping).
2. Java creates the same table, writes, applies the same changes through SchemaManager
   (`fjord-oracle alter --changes`), writes again; Fjord and Java read it, then again after
   Fjord's full compaction of Java's files.

Every read must give the rows the changes mean (EXPECTED, derived from the rules: fields matched
by id, added ones NULL in old rows, widened values cast, dropped ones gone) in both engines, and
both engines' schema files must agree on the nested field ids.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")

COLUMNS = [["id", "INT NOT NULL"], ["r", "ROW<a INT, b STRING>"], ["tags", "ARRAY<INT>"],
           ["m", "MAP<STRING, ROW<x INT, y STRING>>"], ["d", "ARRAY<ROW<p INT, q ROW<s INT>>>"]]

# Under the first schema. Maps hold one entry each (Java's Avro reader gives a MAP's entries in
# hash order).
BEFORE = [
    {"id": 1, "r": {"a": 1, "b": "one"}, "tags": [1, 2], "m": [["k", {"x": 10, "y": "p"}]],
     "d": [{"p": 1, "q": {"s": 2}}]},
    {"id": 2, "r": None, "tags": None, "m": None, "d": None},
    {"id": 3, "r": {"a": None, "b": "three"}, "tags": [None, 3], "m": [["k", None]],
     "d": [None, {"p": None, "q": None}]},
]

# (Fjord CLI arguments, Java SchemaChange) pairs, applied in this order.
CHANGES = [
    (["--add-column", "r.c BIGINT"], {"op": "add", "path": "r.c", "type": "BIGINT"}),
    (["--change-type", "r.a BIGINT"], {"op": "type", "path": "r.a", "type": "BIGINT"}),
    (["--rename-column", "r.b=bb"], {"op": "rename", "path": "r.b", "to": "bb"}),
    (["--change-type", "tags.element BIGINT"],
     {"op": "type", "path": "tags.element", "type": "BIGINT"}),
    (["--add-column", "m.value.z DOUBLE"], {"op": "add", "path": "m.value.z", "type": "DOUBLE"}),
    (["--drop-column", "m.value.y"], {"op": "drop", "path": "m.value.y"}),
    # Inside the ROWs of an ARRAY: positions, and a ROW in a ROW numbered as Java numbers it.
    (["--add-column", "d.element.q.t STRING FIRST"],
     {"op": "add", "path": "d.element.q.t", "type": "STRING", "first": True}),
    (["--change-type", "d.element.p BIGINT"],
     {"op": "type", "path": "d.element.p", "type": "BIGINT"}),
    (["--add-column", "d.element.n ROW<u INT, v ROW<w INT>> AFTER p"],
     {"op": "add", "path": "d.element.n", "type": "ROW<u INT, v ROW<w INT>>", "after": "p"}),
]

# Under the new schema (id 1 again: an update of the primary-key table).
AFTER = [
    {"id": 1, "r": {"a": 100, "bb": "uno", "c": 5}, "tags": [9], "m": [["k", {"x": 1, "z": 1.5}]],
     "d": [{"p": 5, "n": {"u": 1, "v": {"w": 2}}, "q": {"t": "x", "s": 3}}]},
    {"id": 4, "r": {"a": 4, "bb": "four", "c": None}, "tags": [], "m": [], "d": []},
]

# BEFORE as read under the new schema: c NULL (added later), a widened, b read as bb (same id),
# the elements widened, z NULL and y gone inside the map's rows.
BEFORE_EVOLVED = [
    {"id": 1, "r": {"a": 1, "bb": "one", "c": None}, "tags": [1, 2], "m": [["k", {"x": 10, "z": None}]],
     "d": [{"p": 1, "n": None, "q": {"t": None, "s": 2}}]},
    {"id": 2, "r": None, "tags": None, "m": None, "d": None},
    {"id": 3, "r": {"a": None, "bb": "three", "c": None}, "tags": [None, 3], "m": [["k", None]],
     "d": [None, {"p": None, "n": None, "q": None}]},
]


def expected(kind):
    if kind == "pk":
        after_ids = {r["id"] for r in AFTER}
        return [r for r in BEFORE_EVOLVED if r["id"] not in after_ids] + AFTER
    return BEFORE_EVOLVED + AFTER


def canonical(rows):
    return sorted(json.dumps(r, sort_keys=True) for r in rows)


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def write_jsonl(path, rows):
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r) + "\n")


def nested_ids(table_dir):
    """{field path: id} of the latest schema file."""
    schema_dir = os.path.join(table_dir, "schema")
    latest = max(int(n.split("-")[1]) for n in os.listdir(schema_dir))
    with open(os.path.join(schema_dir, f"schema-{latest}"), encoding="utf-8") as f:
        schema = json.load(f)
    out = {}

    def walk(t, prefix):
        if not isinstance(t, dict):
            return
        if t.get("type", "").startswith("ROW"):
            for field in t["fields"]:
                out[prefix + "." + field["name"]] = field["id"]
                walk(field["type"], prefix + "." + field["name"])
        for k in ("element", "value"):
            if k in t:
                walk(t[k], prefix + "." + k)

    for field in schema["fields"]:
        out[field["name"]] = field["id"]
        walk(field["type"], field["name"])
    return out, schema["highestFieldId"]


class Java:
    def __init__(self):
        self.proc = subprocess.Popen([ORACLE, "batch", "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def __call__(self, *args):
        self.proc.stdin.write(json.dumps(list(args)) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the Java oracle ended early")
        answer = json.loads(line)
        if not answer["ok"]:
            raise RuntimeError(f"fjord-oracle {args[0]}: {answer['message']}")
        return answer["message"]

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--fjord", required=True)
    p.add_argument("--keep", action="store_true")
    args = p.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-nested-evolution-")
    wh = os.path.join(work, "wh")
    failures = []
    java = Java()

    def fjord(*cmd):
        r = subprocess.run([args.fjord, *cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if r.returncode != 0:
            raise RuntimeError(f"fjord {' '.join(cmd)}: {r.stderr.strip()}")
        return r.stdout

    def check_reads(name, table_dir, kind, when):
        want = canonical(expected(kind))
        fout = os.path.join(work, f"{name}.{when}.fjord.jsonl")
        with open(fout, "w", encoding="utf-8") as f:
            f.write(fjord("cat", table_dir, "--format", "jsonl"))
        jout = os.path.join(work, f"{name}.{when}.java.jsonl")
        java("dump", table_dir, "--output", jout)
        for engine, path in (("Fjord", fout), ("Java", jout)):
            got = canonical(read_jsonl(path))
            if got != want:
                failures.append(f"{name} ({when}): {engine} read\n  " + "\n  ".join(got) +
                                "\n expected\n  " + "\n  ".join(want))

    try:
        fjord("db", "create", wh, "db")
        tables = 0
        ids = {}
        for fmt in ("parquet", "orc", "avro"):
            for kind in ("pk", "append"):
                options = {"file.format": fmt, "bucket": "1" if kind == "pk" else "-1"}
                before = os.path.join(work, "before.jsonl")
                after = os.path.join(work, "after.jsonl")
                write_jsonl(before, BEFORE)
                write_jsonl(after, AFTER)

                # 1. Written and altered by Fjord.
                name = f"fjord_{fmt}_{kind}"
                d = os.path.join(wh, "db.db", name)
                cols = ", ".join(f"{n} {t}" for n, t in COLUMNS)
                create = ["table", "create", wh, f"db.{name}", "--columns", cols]
                if kind == "pk":
                    create += ["--primary-key", "id"]
                for k, v in options.items():
                    create += ["-o", f"{k}={v}"]
                fjord(*create)
                fjord("write", d, "--input", before)
                alter = ["table", "alter", wh, f"db.{name}"]
                for cli, _ in CHANGES:
                    alter += cli
                fjord(*alter)
                fjord("write", d, "--input", after)
                check_reads(name, d, kind, "written")
                fjord("compact", d, "--full")
                check_reads(name, d, kind, "compacted")
                ids[name] = nested_ids(d)
                tables += 1

                # 2. Written and altered by Java.
                name = f"java_{fmt}_{kind}"
                d = os.path.join(wh, "db.db", name)
                jopts = dict(options)
                if kind == "pk":
                    jopts["primary-key"] = "id"
                java("create", d, "--columns", json.dumps(COLUMNS), "--options", json.dumps(jopts))
                java("write", d, "--input", before)
                java("alter", d, "--changes", json.dumps([c for _, c in CHANGES]))
                java("write", d, "--input", after)
                check_reads(name, d, kind, "written")
                fjord("compact", d, "--full")
                check_reads(name, d, kind, "compacted by Fjord")
                ids[name] = nested_ids(d)
                tables += 1
        # Both catalogs number the nested fields alike.
        for fmt in ("parquet", "orc", "avro"):
            for kind in ("pk", "append"):
                f, j = ids[f"fjord_{fmt}_{kind}"], ids[f"java_{fmt}_{kind}"]
                if f != j:
                    failures.append(f"{fmt} {kind}: field ids differ: Fjord {f}, Java {j}")
    finally:
        java.close()
    if failures:
        print("FAILED:\n" + "\n".join(failures))
        print(f"(work directory kept: {work})")
        return 1
    print(f"nested schema evolution: {tables} tables (3 formats x pk/append x Fjord/Java "
          "writer and ALTER), each read by both engines before and after Fjord's full compaction")
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
