#!/usr/bin/env python3
"""ctest python.package: the `fjord` Python package end to end (issue 18).

1. installs the Fjord build into <build>/python-prefix (cmake --install) and builds the wheel from
   python/ against it with the pinned build tools of --python (.deps/python-venv: scikit-build-core,
   nanobind), the build folder kept in <build>/python-wheel so that reruns are incremental, and
   makes it the manylinux wheel of `make wheel` (scripts/repair_wheel.py: system libraries
   bundled under fjord.libs/, Arrow C++ not);
2. makes a fresh venv holding nothing but pip and installs the wheel into it offline, pip resolving
   its pyarrow dependency from the pinned pyarrow wheel in --wheels (.deps/cache): no second Arrow,
   no build tree on any path;
3. checks that the process then holds one Arrow C++ (pyarrow's) and runs tests/python/api_test.py
   and pushdown_test.py in that venv, with pandas, polars and DuckDB seen from --python's
   site-packages;
4. with --oracle and --pypaimon, runs interop_test.py there: Java's fixture tables read from
   Python equal Java's rows; tables written from Python read the same in Java and pypaimon;
5. runs the ```python blocks of docs/python.md, in order, as one script in an empty folder.

Everything happens under a fresh temporary folder, removed at the end."""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, **kw):
    start = time.monotonic()
    print("+ " + " ".join(cmd), flush=True)
    proc = subprocess.run(cmd, text=True, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
    if proc.returncode != 0:
        sys.stdout.write(proc.stdout)
        raise SystemExit(f"failed ({proc.returncode}): {' '.join(cmd)}")
    print(f"  ({time.monotonic() - start:.1f}s)", flush=True)
    return proc.stdout


def doc_blocks(path):
    text = open(path, encoding="utf-8").read()
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.M | re.S)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True, help="Fjord's build folder (libfjord.so built)")
    ap.add_argument("--source", required=True, help="the repository")
    ap.add_argument("--python", required=True, help="python of the venv with the build tools")
    ap.add_argument("--wheels", required=True, help="folder holding the pinned pyarrow wheel")
    ap.add_argument("--oracle", help="the Java oracle command (interop/java/fjord-oracle)")
    ap.add_argument("--pypaimon", help="python of the pypaimon venv (.deps/pypaimon-venv)")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args()
    build = os.path.abspath(args.build)
    source = os.path.abspath(args.source)
    args.wheels = os.path.abspath(args.wheels)
    if args.pypaimon:
        args.pypaimon = os.path.abspath(args.pypaimon)
    if not os.path.exists(args.python):
        raise SystemExit(f"{args.python} is missing: run scripts/bootstrap.sh (scripts/python.lock)")

    work = tempfile.mkdtemp(prefix="fjord-python-")
    try:
        prefix = os.path.join(build, "python-prefix")
        run(["cmake", "--install", build, "--prefix", prefix])
        dist = os.path.join(work, "dist")
        env = dict(os.environ, FJORD_PREFIX=prefix)
        run([args.python, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
             "--disable-pip-version-check", "-w", dist, "-C",
             "build-dir=" + os.path.join(build, "python-wheel"), os.path.join(source, "python")],
            env=env)
        built = glob.glob(os.path.join(dist, "fjord-*.whl"))
        assert len(built) == 1 and built[0].endswith("-linux_x86_64.whl"), built
        # The manylinux wheel `make wheel` ships: system libraries bundled, Arrow left to pyarrow.
        run([args.python, os.path.join(source, "scripts", "repair_wheel.py"), built[0], dist,
             "--arrow-dir", os.path.join(source, ".deps", "pyarrow", "pyarrow")])
        wheels = glob.glob(os.path.join(dist, "fjord-*.whl"))
        assert len(wheels) == 1 and "-manylinux_2_" in wheels[0], wheels
        with zipfile.ZipFile(wheels[0]) as z:
            bundled = [n for n in z.namelist() if n.startswith("fjord.libs/")]
        assert any("libpq" in n for n in bundled), bundled
        assert not any("libarrow" in n or "libparquet" in n for n in bundled), bundled

        venv = os.path.join(work, "venv")
        run([sys.executable, "-m", "venv", venv])
        py = os.path.join(venv, "bin", "python")
        before = run([py, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"])
        assert "pyarrow" not in before, before
        run([py, "-m", "pip", "install", "--no-index", "--disable-pip-version-check",
             "--find-links", args.wheels, "--find-links", dist, "fjord"])
        installed = run([py, "-m", "pip", "list", "--format=freeze", "--disable-pip-version-check"])
        print(installed)
        names = {line.split("==")[0].lower() for line in installed.split()} - {"pip", "setuptools"}
        assert names == {"fjord", "pyarrow"}, names

        # One Arrow: every libarrow* / libparquet* mapped comes from the venv's pyarrow.
        probe = ("import fjord, pyarrow\n"
                 "libs = {l.split()[-1] for l in open('/proc/self/maps') "
                 "if 'libarrow' in l or 'libparquet' in l or 'libfjord' in l}\n"
                 "print('\\n'.join(sorted(libs)))\n")
        maps = subprocess.run([py, "-c", probe], cwd=work, text=True, check=True,
                              capture_output=True).stdout.split()
        site = os.path.join(venv, "lib")
        assert any("libfjord.so" in m for m in maps), maps
        assert all(m.startswith(site) for m in maps), maps
        assert not any(m.startswith(source) or m.startswith(build) for m in maps), maps

        # `import fjord` first makes jemalloc Arrow's pool; the user's choice, or a pyarrow
        # imported before, stands (docs/python.md, "Memory pool").
        def pool(code, **env):
            return subprocess.run([py, "-c", code + "; print(pyarrow.default_memory_pool().backend_name)"],
                                  cwd=work, text=True, check=True, capture_output=True,
                                  env=dict({k: v for k, v in os.environ.items()
                                            if k != "ARROW_DEFAULT_MEMORY_POOL"}, **env)).stdout.strip()
        assert pool("import fjord, pyarrow") == "jemalloc"
        assert pool("import fjord, pyarrow", ARROW_DEFAULT_MEMORY_POOL="system") == "system"
        assert pool("import pyarrow, fjord") == "mimalloc"

        # pandas, polars and DuckDB for the tests, from the tools venv, after the venv's own path.
        purelib = "import sysconfig; print(sysconfig.get_paths()['purelib'])"
        tools_site = subprocess.check_output([args.python, "-c", purelib], text=True).strip()
        own_site = subprocess.check_output([py, "-c", purelib], text=True).strip()
        with open(os.path.join(own_site, "zz_fjord_test_tools.pth"), "w") as f:
            f.write(tools_site + "\n")

        for suite in ("api_test.py", "pushdown_test.py"):
            print(run([py, os.path.join(HERE, suite), "-v"], cwd=work))
        if args.oracle and args.pypaimon:
            interop_env = dict(os.environ, FJORD_ORACLE=args.oracle, FJORD_PYPAIMON=args.pypaimon,
                               FJORD_PYPAIMON_DUMP=os.path.join(source, "interop", "python", "pypaimon_dump.py"),
                               FJORD_FIXTURES=os.path.join(source, "tests", "fixtures", "paimon-java"))
            print(run([py, os.path.join(HERE, "interop_test.py"), "-v"], cwd=work, env=interop_env))

        blocks = doc_blocks(os.path.join(source, "docs", "python.md"))
        assert len(blocks) >= 5, f"docs/python.md has {len(blocks)} python blocks"
        script = os.path.join(work, "docs_python.py")
        with open(script, "w") as f:
            for i, block in enumerate(blocks):
                f.write(f"# --- docs/python.md block {i + 1}\n{block}\n")
        docs_dir = os.path.join(work, "docs-run")
        os.mkdir(docs_dir)
        print(run([py, script], cwd=docs_dir))
        print(f"OK: wheel {os.path.basename(wheels[0])}, api_test, pushdown_test, {'interop_test, ' if args.oracle and args.pypaimon else ''}{len(blocks)} docs blocks")
    finally:
        if args.keep:
            print("kept", work)
        else:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
