#!/usr/bin/env python3
"""`make soak-cdc`: a long run of the CDC paths under SIGKILL (issue 17). For each path in turn
(tests/cdc_pg_harness.py: the shop workload on PostgreSQL, a database-sync job, Java as the
judge):

- debezium: PostgreSQL -> Debezium embedded -> Kafka -> `fjord run` (format debezium-json);
  the broker now and then stopped (SIGTERM) or killed (SIGKILL) for a few seconds under the
  job, the Debezium runner now and then killed (it sends again from its last offsets);
- direct: the job's own `type: postgres` source (pgoutput);
- files: tests/cdc_files_test.py for its share of the time (Debezium JSON files, its own model).

The job is killed with SIGKILL at random moments (every 0.3-3 s; one stop in ten is a SIGTERM,
which must end in a final checkpoint and exit 0) and started again, while the workload runs
with schema changes spread over the run: orders ADD COLUMN region, a new table items, qty int ->
bigint, customers ADD COLUMN tier, name varchar(20) -> varchar(40) (longer names follow),
orders tags int[] -> bigint[], customers DROP COLUMN vip and RENAME COLUMN name TO fullname
(each with sentinel rows, tests/cdc_pg_harness.py). At the
end of each path the job runs --bounded and Java Paimon must read exactly PostgreSQL's rows,
table by table. Prints the figures and writes them to --out (markdown).

    cdc_soak.py --fjord BUILD/tools/fjord [--seconds 600] [--seed 1] [--paths debezium,direct,files]
                [--out bench/results/DATE-cdc-soak.md]
"""
import argparse
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time

from cdc_pg_harness import CHANGES, CdcRun

HERE = os.path.dirname(os.path.abspath(__file__))
KEYS = 2000  # keys per table: the tables grow through the run
SHARE = {"debezium": 0.45, "direct": 0.4, "files": 0.15}


def soak_postgres(fjord, seconds, rng, direct, failures):
    """One PostgreSQL path for `seconds`; returns its figures."""
    work = tempfile.mkdtemp(prefix="fjord-cdc-soak-")
    began = time.time()
    with CdcRun(work, fjord, rng, direct=direct, name="soak", keys=KEYS) as run:
        run.start_job()
        run.load.plan(list(CHANGES), seconds)
        next_stop = time.time() + rng.uniform(0.3, 3)
        next_outage = time.time() + rng.uniform(30, 90)
        dbz_kills = 0
        start = time.time()
        while time.time() - start < seconds and not failures:
            run.load.due(time.time() - start)
            run.load.step()
            time.sleep(rng.uniform(0.005, 0.05))
            run.check_alive()
            if time.time() >= next_stop:
                if rng.random() < 0.1:
                    run.term_job(failures)
                else:
                    run.kill_job()
                run.start_job()
                next_stop = time.time() + rng.uniform(0.3, 3)
            if run.dbz and time.time() >= next_outage:
                paused = time.time()
                run.broker_outage(rng.choice([signal.SIGTERM, signal.SIGKILL]),
                                  rng.uniform(2, 15), failures, stop_job=rng.random() < 0.3)
                start += time.time() - paused  # the outage's time is not the workload's
                next_outage = time.time() + rng.uniform(30, 90)
            if run.dbz and rng.random() < 0.002:
                run.dbz.kill()
                run.dbz.start()
                dbz_kills += 1
        rows = run.finish(failures)
        tables = sum(1 for t in ("orders", "customers", "items")
                     if os.path.isdir(os.path.join(work, "wh", "ods.db", t)))
        figures = dict(run.counts, statements=run.load.statements, rows=rows, tables=tables,
                       changes=len(run.load.done), debezium_kills=dbz_kills,
                       seconds=round(time.time() - began))
    if not failures:
        subprocess.run(["rm", "-rf", work])
    else:
        print("work dir kept:", work)
    return figures


def soak_files(fjord, seconds, seed, failures):
    began = time.time()
    p = subprocess.run([sys.executable, os.path.join(HERE, "cdc_files_test.py"), "--fjord", fjord,
                        "--seconds", str(seconds), "--seed", str(seed)],
                       capture_output=True, text=True)
    print(p.stdout, end="")
    m = re.search(r"cdc files: (\d+) kills, (\d+) restarts; (\d+) orders, (\d+) customers", p.stdout)
    if p.returncode != 0 or not m:
        failures.append(f"cdc_files_test.py failed ({p.returncode}): {p.stdout[-2000:]} "
                        f"{p.stderr[-2000:]}")
        return {"seconds": round(time.time() - began)}
    return {"kills": int(m.group(1)), "starts": int(m.group(2)) + 2,
            "rows": int(m.group(3)) + int(m.group(4)), "tables": 3, "changes": 4,
            "seconds": round(time.time() - began)}


def write_results(path, args, results, failures):
    cols = [("seconds", "s"), ("statements", "statements"), ("kills", "SIGKILLs of fjord run"),
            ("terms", "SIGTERMs"), ("starts", "starts"), ("broker_outages", "broker outages"),
            ("start_failures", "starts failed (broker down)"),
            ("debezium_kills", "Debezium runner kills"), ("changes", "schema changes"),
            ("tables", "tables"), ("rows", "rows compared")]
    lines = [f"# `make soak-cdc` ({time.strftime('%Y-%m-%d', time.gmtime())})", "",
             f"SOAK_SECONDS={args.seconds:g}, seed {args.seed}, paths {args.paths}. "
             "tests/cdc_soak.py: SIGKILLs of `fjord run` every 0.3-3 s (one stop in ten a "
             "SIGTERM), schema changes spread over each path, then Java Paimon compared with "
             "PostgreSQL table by table (files: `fjord cat` against the test's model).", "",
             "| path | " + " | ".join(c[1] for c in cols) + " | result |",
             "|---|" + "---|" * (len(cols) + 1)]
    for name, figures in results.items():
        cells = [str(figures.get(c[0], "")) for c in cols]
        ok = "FAIL" if any(f.startswith(name + ":") for f in failures) else "exact"
        lines.append(f"| {name} | " + " | ".join(cells) + f" | {ok} |")
    if failures:
        lines += ["", "Failures:", ""] + [f"- {f[:500]}" for f in failures]
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    print("results in", path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--seconds", type=float, default=600)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--paths", default="debezium,direct,files")
    ap.add_argument("--out")
    args = ap.parse_args()
    fjord = os.path.abspath(args.fjord)
    paths = args.paths.split(",")
    total = sum(SHARE[p] for p in paths)
    results, failures = {}, []
    for i, path in enumerate(paths):
        seconds = args.seconds * SHARE[path] / total
        print(f"--- {path}: {seconds:.0f} s")
        mine = []
        rng = random.Random(args.seed * 100 + i)
        try:
            if path == "files":
                results[path] = soak_files(fjord, seconds, args.seed, mine)
            else:
                results[path] = soak_postgres(fjord, seconds, rng, path == "direct", mine)
        except SystemExit as e:  # the harness gives up (a job exited by itself): recorded
            mine.append(str(e.code)[-2000:])
            results[path] = {}
        print(f"{path}: {results[path]}")
        failures += [f"{path}: {f}" for f in mine]
    if args.out:
        write_results(args.out, args, results, failures)
    for f in failures:
        print("FAIL:", f)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
