"""The Flink oracle's batch session for the Flink compatibility tests: one `fjord-flink batch -`
JVM fed JSON commands, one answer line each (interop/flink/README.md)."""
import json
import os
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FLINK = os.path.join(REPO, "interop", "flink", "fjord-flink")


class FlinkBatch:
    """One `fjord-flink batch -` JVM for a whole test; a command may be sent and its answer taken
    later (send / answer), or both at once (call)."""

    def __init__(self, log):
        self.proc = subprocess.Popen([FLINK, "batch", "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=log, text=True,
                                     encoding="utf-8")

    def send(self, *args):
        self.proc.stdin.write(json.dumps(list(args), ensure_ascii=False) + "\n")
        self.proc.stdin.flush()

    def answer(self):
        return json.loads(self.proc.stdout.readline() or '{"ok": false, "message": "ended"}')

    def __call__(self, *args):
        self.send(*args)
        answer = self.answer()
        if not answer["ok"]:
            raise RuntimeError(f"fjord-flink {' '.join(args)}: {answer['message']}")
        return answer

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=120)


def run(cmd):
    """stdout of `cmd`; RuntimeError with the end of its stderr when it fails."""
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       encoding="utf-8")
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed ({p.returncode}): {p.stderr.strip()[-2000:]}")
    return p.stdout
