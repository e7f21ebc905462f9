"""What the end-to-end CLI tests share: running `fjord`, recording named checks, listing files."""
import os
import subprocess


class CliChecks:
    def __init__(self, fjord):
        self.fjord = fjord
        self.failures = []

    def check(self, what, ok, detail=""):
        """Prints `ok` or `FAIL` with `what`; a failure is remembered with `detail` shown."""
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {detail}"))
        if not ok:
            self.failures.append(what)

    def run(self, *args, ok=True):
        """Runs `fjord ARGS`; raises when it fails and `ok` says it must not."""
        p = subprocess.run([self.fjord, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           text=True)
        if ok and p.returncode != 0:
            raise RuntimeError(f"fjord {' '.join(args)}: {p.stderr}")
        return p

    def summary(self):
        """Prints the count of failures; the exit code of the test."""
        print(f"{'FAILED' if self.failures else 'all ok'}: {len(self.failures)} failures")
        return 1 if self.failures else 0


def files_under(root):
    """Every file below `root`, as paths relative to it."""
    out = set()
    for d, _, names in os.walk(root):
        for n in names:
            out.add(os.path.relpath(os.path.join(d, n), root))
    return out
