"""Helpers the Java cross-checks of maintenance share: running a tool, rows as sorted JSON, the
files and snapshot ids of a table directory."""
import json
import os
import subprocess


def run(cmd, env=None):
    """Runs cmd; its stdout, or RuntimeError with its stderr when it fails."""
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    if r.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)}: {r.stderr.strip()[:500]}")
    return r.stdout


def rows_of(path_or_text, is_path=True):
    """JSON lines (a file, or text) as a sorted list of canonical JSON strings."""
    text = open(path_or_text, encoding="utf-8").read() if is_path else path_or_text
    return sorted(json.dumps(json.loads(l), sort_keys=True) for l in text.splitlines() if l.strip())


def files(root):
    """Every file under root (relative paths), hidden files left out."""
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            if not n.startswith("."):
                out.add(os.path.relpath(os.path.join(d, n), root))
    return out


def snapshots(table):
    """The ids of the snapshot files of a table, ascending."""
    d = os.path.join(table, "snapshot")
    return sorted(int(n[9:]) for n in os.listdir(d) if n.startswith("snapshot-"))
