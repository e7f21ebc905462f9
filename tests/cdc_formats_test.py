#!/usr/bin/env python3
"""Every CDC format through `fjord run` (issue 17): one table-sync job per format over a files
source, no services. Run by `cdc.files` (cdc_files_test.py calls run()) or alone.

The same change history of a source table `shop.items` (inserts, updates, deletes, a deleted
key inserted again, a NULL value) is written as `canal-json` (typed by `mysqlType`, two rows in
one message, a DDL message between the changes, updates carrying only the changed columns in
`old`), `maxwell-json` (updates with `old`), `ogg-json` (upper-case names, `SCHEMA.TABLE`),
`debezium-json` without the schema envelope (a snapshot read `r`, updates with `before`, deletes
followed by tombstones) and `json` (every message a whole row: upserts only). Each job writes a
table with `changelog-producer: input`, so the table's changelog holds the records the format
made of every message, in order per key. Checked against a model of Java Paimon's parsers
(docs/cdc.md, "Formats"): `fjord cat` gives the last image of every key (deleted keys gone); the
changelog (`fjord tail` from snapshot 1) gives per key +I for an insert, -D of the before image
(`old` set over the after image for canal and maxwell) then +I for an update, -D for a delete,
nothing for a tombstone or a DDL message; the primary keys come from the messages (canal
`pkNames`, maxwell `primary_key_columns`, ogg `primary_keys`) or the job (debezium, json); a
JSON null is the text "null" except in canal, where it is NULL, and canal's columns get their
MySQL types.

    cdc_formats_test.py --fjord BUILD/tools/fjord
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

# (op, id, values): the history of shop.items; "upd" gives the changed columns only.
HISTORY = [
    ("ins", 1, {"name": "a", "qty": 1}),
    ("ins", 2, {"name": "b", "qty": 2}),
    ("ins", 3, {"name": None, "qty": 3}),
    ("upd", 1, {"name": "a2"}),
    ("del", 2, None),
    ("upd", 3, {"name": "c", "qty": 30}),
    ("ins", 2, {"name": "b 'é'", "qty": 22}),
    ("upd", 2, {"qty": 23}),
    ("del", 1, None),
    ("ins", 4, {"name": "d", "qty": 4}),
]


def changes():
    """(op, before, after, changed) per step, the rows as {"id", "name", "qty"}."""
    rows, out = {}, []
    for op, key, values in HISTORY:
        before = rows.get(key)
        if op == "ins":
            after = dict(values, id=key)
        elif op == "upd":
            after = dict(before, **values)
        else:
            after = None
        if after is None:
            rows.pop(key)
        else:
            rows[key] = after
        out.append((op, before, after, values if op == "upd" else None))
    return out, rows


def untyped(row, upper=False):
    """A row as formats without types give it: Java's Objects.toString of each value."""
    def text(v):
        return "null" if v is None else str(v)
    return {(k.upper() if upper else k): text(v) for k, v in row.items()}


def canal_text(row):
    return {k: None if v is None else str(v) for k, v in row.items()}


def canal(steps):
    base = {"database": "shop", "table": "items", "pkNames": ["id"], "isDdl": False, "es": 1,
            "ts": 2, "mysqlType": {"id": "int", "name": "varchar(20)", "qty": "int"},
            "sqlType": {"id": 4, "name": 12, "qty": 4}}
    out = []
    # The first two inserts in one message (canal batches the rows of a statement).
    out.append(dict(base, type="INSERT", old=None,
                    data=[canal_text(steps[0][2]), canal_text(steps[1][2])]))
    out.append({"database": "shop", "table": "items", "type": "ALTER", "isDdl": True,
                "sql": "ALTER TABLE items COMMENT 'x'", "data": None, "es": 1, "ts": 2})
    for op, before, after, changed in steps[2:]:
        if op == "ins":
            out.append(dict(base, type="INSERT", old=None, data=[canal_text(after)]))
        elif op == "upd":
            old = {k: before[k] for k in changed}
            out.append(dict(base, type="UPDATE", data=[canal_text(after)], old=[canal_text(old)]))
        else:
            out.append(dict(base, type="DELETE", old=None, data=[canal_text(before)]))
    return [json.dumps(m) for m in out]


def maxwell(steps):
    out = []
    for op, before, after, changed in steps:
        m = {"database": "shop", "table": "items", "ts": 1, "xid": 7, "commit": True,
             "primary_key_columns": ["id"]}
        if op == "ins":
            m.update(type="insert", data=after)
        elif op == "upd":
            m.update(type="update", data=after, old={k: before[k] for k in changed})
        else:
            m.update(type="delete", data=before)
        out.append(json.dumps(m))
    return out


def ogg(steps):
    def up(row):
        return {k.upper(): v for k, v in row.items()}
    out = []
    for op, before, after, _ in steps:
        m = {"table": "SHOP.ITEMS", "op_ts": "2024-01-01 00:00:00.000000",
             "current_ts": "2024-01-01T00:00:01.000000", "pos": "00000000000000001234",
             "primary_keys": ["ID"]}
        if op == "ins":
            m.update(op_type="I", after=up(after))
        elif op == "upd":
            m.update(op_type="U", before=up(before), after=up(after))
        else:
            m.update(op_type="D", before=up(before))
        out.append(json.dumps(m))
    return out


def debezium(steps):
    out = []
    for i, (op, before, after, _) in enumerate(steps):
        m = {"before": before, "after": after, "ts_ms": 1,
             "source": {"db": "shop", "schema": "public", "table": "items"},
             "op": {"ins": "r" if i == 0 else "c", "upd": "u", "del": "d"}[op]}
        out.append(json.dumps(m))
        if op == "del":
            out.append("null")  # the tombstone after a delete
    return out


def plain_json(steps):
    return [json.dumps(dict(after, attrs={"n": after["id"]}))
            for op, _, after, _ in steps if op != "del"]


def expected_changelog(steps, render):
    """{id text: [(kind, row)]}: the records of each key in order."""
    per_key = {}
    for op, before, after, _ in steps:
        key = (before or after)["id"]
        if op in ("upd", "del"):
            per_key.setdefault(key, []).append(("-D", render(before)))
        if op in ("ins", "upd"):
            per_key.setdefault(key, []).append(("+I", render(after)))
    return per_key


FORMATS = {
    # format: (messages, job's primary key, key column, render, schema checks)
    "canal-json": (canal, None, "id", dict,
                   {"id": "INT NOT NULL", "name": "VARCHAR(20)", "qty": "INT"}),
    "maxwell-json": (maxwell, None, "id", untyped,
                     {"id": "STRING NOT NULL", "name": "STRING", "qty": "STRING"}),
    "ogg-json": (ogg, None, "ID", lambda r: untyped(r, upper=True),
                 {"ID": "STRING NOT NULL", "NAME": "STRING", "QTY": "STRING"}),
    "debezium-json": (debezium, "id", "id", untyped,
                      {"id": "STRING NOT NULL", "name": "STRING", "qty": "STRING"}),
}


def run(fjord, work):
    """The checks; returns the failures (empty when all pass)."""
    failures = []
    steps, final = changes()
    for fmt, (make, job_key, key_col, render, types) in list(FORMATS.items()) + [
            ("json", (plain_json, "id", "id", None, None))]:
        name = fmt.replace("-", "_")
        os.makedirs(os.path.join(work, "in_" + name))
        with open(os.path.join(work, "in_" + name, "changes.jsonl"), "w") as f:
            f.write("".join(line + "\n" for line in make(steps)))
        pk = f", primary-key: [{job_key}]" if job_key else ""
        with open(os.path.join(work, name + ".yaml"), "w") as f:
            f.write(f"source: {{type: files, path: in_{name}, format: {fmt}}}\n"
                    f"sink: {{table: wh/fmt.db/{name}{pk},\n"
                    f"       table-options: {{bucket: 1, changelog-producer: input}}}}\n"
                    f"pipeline: {{state-dir: state_{name}}}\n")
        r = subprocess.run([fjord, "run", name + ".yaml", "--bounded"], cwd=work,
                           capture_output=True, text=True)
        if r.returncode != 0:
            failures.append(f"{fmt}: the job failed: {r.stdout[-1000:]}{r.stderr[-2000:]}")
            continue
        table = os.path.join(work, "wh", "fmt.db", name)

        def read(*args):
            p = subprocess.run([fjord, *args], capture_output=True, text=True)
            if p.returncode != 0:
                failures.append(f"{fmt}: fjord {' '.join(args)}: {p.stderr}")
                return []
            return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]

        rows = read("cat", table, "--format", "jsonl")
        changelog = read("tail", table, "-o", "scan.mode=from-snapshot", "-o",
                         "scan.snapshot-id=1", "--format", "jsonl")
        schema = json.loads(subprocess.run([fjord, "schema", table], capture_output=True,
                                           text=True).stdout or "{}")
        if fmt == "json":
            # Every message a whole row, inserted: the last one of each key wins; no deletes.
            last, want_log = {}, {}
            for line in make(steps):
                m = json.loads(line)
                row = untyped({k: v for k, v in m.items() if k != "attrs"})
                row["attrs"] = json.dumps(m["attrs"], separators=(",", ":"))
                last[row["id"]] = row
                want_log.setdefault(row["id"], []).append(("+I", row))
            want_rows = sorted(last.values(), key=lambda r: r["id"])
        else:
            want_rows = sorted((render(r) for r in final.values()),
                               key=lambda r: str(r[key_col]))
            want_log = {render({"id": k})[key_col]: v
                        for k, v in expected_changelog(steps, render).items()}
        got_rows = sorted(rows, key=lambda r: str(r[key_col]))
        got_log = {}
        for rec in changelog:
            kind = rec.pop("_row_kind")
            got_log.setdefault(rec[key_col], []).append((kind, rec))
        if got_rows != want_rows:
            failures.append(f"{fmt}: fjord cat gave {got_rows}, want {want_rows}")
        if got_log != want_log:
            failures.append(f"{fmt}: the changelog per key is {got_log}, want {want_log}")
        if schema.get("primaryKeys") != [key_col]:
            failures.append(f"{fmt}: primary keys {schema.get('primaryKeys')}, want [{key_col}]")
        got_types = {f["name"]: f["type"] for f in schema.get("fields", [])}
        if types and got_types != types:
            failures.append(f"{fmt}: columns {got_types}, want {types}")
        if not any(f.startswith(fmt + ":") for f in failures):
            print(f"ok: {fmt}: {len(got_rows)} rows and {len(changelog)} changelog records as "
                  f"Java's parser makes them")
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    args = ap.parse_args()
    work = tempfile.mkdtemp(prefix="fjord-cdc-formats-")
    failures = run(os.path.abspath(args.fjord), work)
    for f in failures:
        print("FAIL:", f)
    if failures:
        print("work dir kept: " + work)
        sys.exit(1)
    shutil.rmtree(work)


if __name__ == "__main__":
    main()
