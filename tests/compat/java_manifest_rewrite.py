#!/usr/bin/env python3
"""Java Paimon reads manifests written by Fjord: copies every fixture table whose manifest.format
is avro, rewrites all its manifest lists, manifest files and index manifests with Fjord's writers
(same names, re-encoding what Fjord's readers read; the helper fjord_rewrite_manifests), fixes the
manifest-list sizes recorded in snapshot, tag and changelog files, and has the Java oracle read
every snapshot and tag of the copy. The rows must equal the oracle's rows of the original tables.

    java_manifest_rewrite.py --rewriter BUILD/tests/fjord_rewrite_manifests [--fixtures DIR]
                             [--work DIR]

Prints one line per table and ends with "N passed, M failed" (one per snapshot or tag). A target
Java cannot read in the original (none in tests/fixtures today) passes
when it cannot read the rewritten copy either.
"""
import argparse
import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
CODEC_OPTIONS = ("manifest.compression", "avro.codec", "file.compression.zstd-level")
SIZE_FIELDS = (("baseManifestList", "baseManifestListSize"),
               ("deltaManifestList", "deltaManifestListSize"),
               ("changelogManifestList", "changelogManifestListSize"))


def latest_schema_options(table):
    schema_dir = os.path.join(table, "schema")
    ids = [int(n.split("-", 1)[1]) for n in os.listdir(schema_dir) if n.startswith("schema-")]
    with open(os.path.join(schema_dir, f"schema-{max(ids)}"), encoding="utf-8") as f:
        return json.load(f).get("options", {})


def find_tables(root):
    out = []
    for dirpath, dirnames, _ in os.walk(root):
        dirnames.sort()
        if "schema" in dirnames:
            out.append(os.path.relpath(dirpath, root))
            dirnames[:] = []
    return sorted(out)


def make_writable(path):
    for dirpath, dirnames, filenames in os.walk(path):
        os.chmod(dirpath, os.stat(dirpath).st_mode | stat.S_IWUSR | stat.S_IRUSR | stat.S_IXUSR)
        for n in filenames:
            p = os.path.join(dirpath, n)
            os.chmod(p, os.stat(p).st_mode | stat.S_IWUSR | stat.S_IRUSR)


def fix_sizes(table, sizes):
    """Sets the *ManifestListSize fields of every snapshot, tag and changelog file that has them."""
    fixed = 0
    for sub, prefix in (("snapshot", "snapshot-"), ("tag", "tag-"), ("changelog", "changelog-")):
        d = os.path.join(table, sub)
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            if not name.startswith(prefix):
                continue
            path = os.path.join(d, name)
            with open(path, encoding="utf-8") as f:
                snap = json.load(f)
            changed = False
            for list_key, size_key in SIZE_FIELDS:
                lst = snap.get(list_key)
                if size_key in snap and lst in sizes and snap[size_key] != sizes[lst]:
                    snap[size_key] = sizes[lst]
                    changed = True
            if changed:
                with open(path, "w", encoding="utf-8") as f:
                    json.dump(snap, f, indent=2)
                fixed += 1
    return fixed


def dump(out, root):
    rc = subprocess.run([os.path.join(REPO, "interop", "java", "dump_all.sh"), out, root]).returncode
    return rc in (0, 3)


def targets(dump_dir, rel):
    d = os.path.join(dump_dir, rel)
    if not os.path.isdir(d):
        return {}
    return {os.path.splitext(n)[0]: os.path.join(d, n) for n in os.listdir(d)
            if n.endswith(".jsonl") or n.endswith(".error")}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rewriter", required=True)
    ap.add_argument("--fixtures", default=os.path.join(REPO, "tests", "fixtures", "paimon-java"))
    ap.add_argument("--work", default=None)
    args = ap.parse_args()
    fixtures = os.path.abspath(args.fixtures)
    work = args.work or tempfile.mkdtemp(prefix="fjord-manifest-rewrite-")
    copy_root = os.path.join(work, "tables")
    shutil.rmtree(copy_root, ignore_errors=True)

    passed = failed = 0
    lines = []
    chosen = []
    for rel in find_tables(fixtures):
        fmt = latest_schema_options(os.path.join(fixtures, rel)).get("manifest.format", "avro")
        if fmt != "avro":
            lines.append(f"{rel:60s} skipped (manifest.format={fmt})")
            continue
        src = os.path.join(fixtures, rel)
        dst = os.path.join(copy_root, rel)
        shutil.copytree(src, dst, copy_function=shutil.copyfile)
        make_writable(dst)
        opts = latest_schema_options(src)
        cmd = [args.rewriter, dst] + [f"{k}={opts[k]}" for k in CODEC_OPTIONS if k in opts]
        proc = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        if proc.returncode != 0:
            lines.append(f"{rel:60s} REWRITE FAILED: {proc.stderr.strip()[:300]}")
            failed += 1
            continue
        sizes = {}
        for line in proc.stdout.splitlines():
            name, size = line.split("\t")
            sizes[name] = int(size)
        fixed = fix_sizes(dst, sizes)
        n_files = len(os.listdir(os.path.join(dst, "manifest")))
        chosen.append((rel, n_files, fixed))

    java_orig = os.path.join(work, "java-original")
    java_new = os.path.join(work, "java-rewritten")
    if not dump(java_orig, fixtures) or not dump(java_new, copy_root):
        print("java oracle failed")
        print(f"{passed} passed, {failed + 1} failed")
        return 1

    compare = os.path.join(REPO, "interop", "compare_rows.py")
    for rel, n_files, fixed in chosen:
        orig = targets(java_orig, rel)
        new = targets(java_new, rel)
        results = []
        for name in sorted(set(orig) | set(new)):
            a, b = orig.get(name), new.get(name)
            if a is None or b is None:
                ok, detail = False, "missing in the " + ("original" if a is None else "rewritten") + " dump"
            elif a.endswith(".error") or b.endswith(".error"):
                ok = a.endswith(".error") and b.endswith(".error")
                if ok:
                    detail = "both fail"
                else:
                    with open(a if a.endswith(".error") else b, encoding="utf-8") as f:
                        detail = ("original" if a.endswith(".error") else "rewritten") + \
                                 " unreadable: " + f.read().strip()[:300]
            else:
                cmp = subprocess.run([sys.executable, compare, a, b], stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
                ok, detail = cmp.returncode == 0, cmp.stdout.strip()[:600]
            results.append((name, ok, detail))
            passed += ok
            failed += not ok
        if not results:
            failed += 1
            results.append(("(no targets)", False, "the oracle dumped nothing"))
        marks = " ".join(f"{n}:{'ok' if ok else 'FAIL'}" for n, ok, _ in results)
        good = sum(ok for _, ok, _ in results)
        lines.append(f"{rel:60s} {n_files} manifest files, {fixed} snapshot/tag files fixed, "
                     f"{good}/{len(results)}  {marks}")
        for n, ok, detail in results:
            if not ok or detail == "both fail":
                lines.append(f"    {n}: {detail}")
    print("\n".join(lines))
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
