"""One `fjord-oracle batch -` JVM serving many commands (the Java oracle, interop/java): each
command writes its output to a file of its own, whose path `call` returns."""
import json
import os
import subprocess

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ORACLE = os.path.join(REPO, "interop", "java", "fjord-oracle")


class OracleBatch:
    def __init__(self, work):
        self.work = work
        self.n = 0
        self.proc = subprocess.Popen([ORACLE, "batch", "-"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, encoding="utf-8")

    def call(self, *cmd):
        """Runs one command (`--output FILE` added); RuntimeError with Java's message if it fails."""
        return self.call_message(*cmd)[0]

    def call_message(self, *cmd):
        """As `call`, returning (output file, Java's message)."""
        self.n += 1
        out = os.path.join(self.work, f"oracle-{self.n}.out")
        line = [*cmd, "--output", out]
        self.proc.stdin.write(json.dumps(line) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline() or '{"ok": false, "message": "ended"}')
        if not answer["ok"]:
            raise RuntimeError(f"fjord-oracle {' '.join(line)}: {answer['message']}")
        return out, answer.get("message", "")

    def message(self, *cmd):
        """Runs one command without `--output` (write, expire); returns Java's message."""
        self.proc.stdin.write(json.dumps(list(cmd)) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline() or '{"ok": false, "message": "ended"}')
        if not answer["ok"]:
            raise RuntimeError(f"fjord-oracle {' '.join(cmd)}: {answer['message']}")
        return answer.get("message", "")

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)
