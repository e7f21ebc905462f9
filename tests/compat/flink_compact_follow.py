#!/usr/bin/env python3
"""`fjord compact --follow` as the compaction service of a Flink job (issue 16 point 3).

A team with a Flink cluster writes its primary-key tables with `write-only = true` and leaves
compaction to a dedicated service. Here the service is Fjord's, the writer a real Flink 1.20 job
(local MiniCluster, Paimon's Flink connector; `interop/flink/fjord-flink ingest`, one JVM for the
whole test):

1. Flink creates three write-only tables (`ingest --create-only`): `agg` (aggregation, sums and
   last_non_null_value, partitioned, 2 buckets), `dedup` (deduplicate with deletes, 4 buckets) and
   `dedup_alone` (the rows of `dedup`, the contrast: no service);
2. `fjord compact TABLE --follow` starts on `agg` and on `dedup`;
3. the Flink job streams 40 rounds into the three tables, one checkpoint (one APPEND snapshot)
   per round, while the LSM of every bucket is sampled with `fjord stats --json`; then a second
   job (a restart) streams rounds 0..9 again: its new writers take their sequence numbers from
   the files they find, mostly the services' outputs, and the replayed rows must win;
4. once the tables are quiet the services are stopped with SIGTERM.

Checked: the Flink job finished (no commit of its failed beside the services' COMPACT snapshots);
each service exited 0, and its COMPACT snapshots are exactly the ones it reported, of commit users
that are not Flink's, and Flink committed on top of them; every APPEND snapshot is Flink's (one
commit user per table); the services expired snapshots (the tables say
`snapshot.num-retained.max = 10`; write-only writers leave expiration to the dedicated job, so
`dedup_alone` keeps every snapshot) and left no data file that no retained snapshot uses (only
Paimon's committer leaves metadata of a lost snapshot-id race behind); `fjord cat` and Flink's batch read of each
table equal the model computed here from the job's formulas (`interop/flink/.../Ingest.java`);
every bucket of the followed tables has fewer sorted runs than `num-sorted-run.stop-trigger` (8 by
default) at the end and in every sample taken while Flink wrote, while `dedup_alone` ends with
more (Flink's write-only writers never compact: one level-0 file per round and bucket); `fjord
doctor` finds nothing wrong with the followed tables, and the sorted runs and expiration not
running in the other.

    flink_compact_follow.py --fjord BUILD/tools/fjord [--keep] [--rounds N] [--restart-rounds N]
"""
import argparse
import glob
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(REPO, "interop"))
import compare_rows  # noqa: E402
from flink_batch import FlinkBatch, run  # noqa: E402

STOP_TRIGGER = 8  # num-sorted-run.stop-trigger: compaction-trigger (5) + 3, the tables' default
RETAINED = 10  # the tables' snapshot.num-retained.max
FOLLOWED = ["agg", "dedup"]
TABLES = FOLLOWED + ["dedup_alone"]


# The model: the rows Ingest.java streams, merged as the tables' merge engines do.

def agg_model(order):
    rows = {}
    for r in order:
        for i in range(60):
            key = ("a" if i % 2 == 0 else "b", (7 * i + 11 * r) % 40)
            row = rows.setdefault(key, {"p": key[0], "id": key[1], "cnt": 0, "total": 0,
                                        "last_round": None, "note": None})
            row["cnt"] += 1
            row["total"] += 100 * r + i
            if (r + i) % 3 == 0:  # last_non_null_value
                row["last_round"], row["note"] = r, f"r{r}i{i}"
    return list(rows.values())


def dedup_model(order):
    rows = {}
    for r in order:
        for i in range(50):
            key = (13 * i + 7 * r) % 64
            if (r + i) % 6 == 0:
                rows.pop(key, None)
            else:
                rows[key] = {"id": key, "v": 1000 * r + i, "s": f"r{r}-i{i}"}
    return list(rows.values())


def canon_rows(rows):
    return Counter(compare_rows.canon(compare_rows.parse_line(json.dumps(r))) for r in rows)


def canon_lines(text):
    return Counter(compare_rows.canon(compare_rows.parse_line(l))
                   for l in text.splitlines() if l.strip())


def snapshots(table):
    out = []
    for path in glob.glob(os.path.join(table, "snapshot", "snapshot-*")):
        with open(path, encoding="utf-8") as f:
            out.append(json.load(f))
    return sorted(out, key=lambda s: s["id"])


def latest_id(table):
    try:
        with open(os.path.join(table, "snapshot", "LATEST")) as f:
            return int(f.read().strip())
    except (OSError, ValueError):
        return None


def runs_per_bucket(fjord, table):
    """{(partition, bucket): (sorted runs, level-0 files)} of the latest snapshot."""
    stats = json.loads(run([fjord, "stats", table, "--json"]))
    return {(b["partition"], b["bucket"]): (b["sortedRuns"], b["level0FileCount"])
            for b in stats["buckets"]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    ap.add_argument("--rounds", type=int, default=40, help="rounds of the first Flink job")
    ap.add_argument("--restart-rounds", type=int, default=10,
                    help="rounds of the second job (its rounds 0..N-1 again), 0 for none")
    args = ap.parse_args()
    jobs = [args.rounds] + ([args.restart_rounds] if args.restart_rounds else [])
    # the rounds in the order the tables got them: each job starts at round 0
    order = [r for rounds in jobs for r in range(rounds)]
    start = time.monotonic()
    work = tempfile.mkdtemp(prefix="fjord-flink-follow-")
    wh = os.path.join(work, "wh")
    path = {name: os.path.join(wh, "db.db", name) for name in TABLES}
    passed = failed = 0

    def check(name, problems):
        nonlocal passed, failed
        ok = not problems
        passed += ok
        failed += not ok
        print(f"{name}: {'ok' if ok else 'FAIL'}")
        for p in problems[:5]:
            print("  " + p)

    log = open(os.path.join(work, "flink.log"), "w")
    flink = FlinkBatch(log)
    services = {}
    completed = False
    try:
        print(f"Flink: {flink('ingest', wh, '--create-only')['message']}")
        for name in FOLLOWED:
            out = open(os.path.join(work, f"{name}.compact.log"), "w")
            services[name] = (subprocess.Popen(
                [args.fjord, "compact", path[name], "--follow", "--interval-ms", "200"],
                stdout=out, stderr=subprocess.STDOUT), out)

        # The Flink jobs, one after the other, while the LSM of every bucket is sampled. The
        # second is a restart: new writers, whose sequence numbers continue from the files they
        # find, most of them the services' outputs.
        peak = {name: 0 for name in TABLES}
        t = time.monotonic()
        for job, rounds in enumerate(jobs):
            started = time.monotonic()
            flink.send("ingest", wh, "--rounds", str(rounds), "--checkpoint-ms", "500")
            samples = 0
            sel = selectors.DefaultSelector()
            sel.register(flink.proc.stdout, selectors.EVENT_READ)
            while not sel.select(timeout=0.5):
                if time.monotonic() - started > 240:
                    raise RuntimeError("Flink's ingest job did not finish in 240 s")
                for name in TABLES:
                    if latest_id(path[name]) is not None:
                        runs = runs_per_bucket(args.fjord, path[name])
                        peak[name] = max([peak[name]] + [r for r, _ in runs.values()])
                samples += 1
            sel.close()
            answer = flink.answer()
            print(f"Flink: {answer['message']} ({time.monotonic() - started:.1f} s, {samples} "
                  f"samples of fjord stats)")
            check(f"Flink job {job + 1} ({rounds} rounds, write-only) beside the services finished",
                  [] if answer["ok"] else [answer["message"]])

        # Let the services catch up: no new snapshot for 2 s (they look every 200 ms)
        quiet_since, last, waited = time.monotonic(), None, time.monotonic()
        while time.monotonic() - quiet_since < 2 and time.monotonic() - waited < 60:
            now = tuple(latest_id(path[n]) for n in FOLLOWED)
            if now != last:
                quiet_since, last = time.monotonic(), now
            time.sleep(0.1)
        reported = {}
        for name, (proc, out) in services.items():
            proc.send_signal(signal.SIGTERM)
            try:
                rc = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                rc = "killed after 30 s"
            out.close()
            with open(out.name, encoding="utf-8") as f:
                text = f.read()
            lines = text.splitlines()
            reported[name] = {int(l.rsplit(" ", 1)[1]) for l in lines
                              if l.startswith("compacted ") and " as snapshot " in l}
            conflicts = [l for l in lines if l.startswith("conflict")]
            print(f"fjord compact --follow {name}: exit {rc}; {lines[-1] if lines else ''}; "
                  f"{len(reported[name])} COMPACT snapshots, {len(conflicts)} conflicts")
            check(f"{name}: the service stopped by SIGTERM exited 0",
                  [] if rc == 0 else [f"exit {rc}: {text[-1500:]}"])
        services = {}

        # Snapshots: Flink's APPENDs, the services' COMPACTs. The services also expire (the
        # tables keep at most RETAINED snapshots): each id not reported by a service is Flink's
        for name in TABLES:
            snaps = snapshots(path[name])
            kinds = Counter(s["commitKind"] for s in snaps)
            appends = {s["commitUser"] for s in snaps if s["commitKind"] == "APPEND"}
            compacts = {s["id"] for s in snaps if s["commitKind"] == "COMPACT"}
            first, last = snaps[0]["id"], snaps[-1]["id"]
            print(f"{name}: snapshots {first}..{last} retained {dict(sorted(kinds.items()))}")
            problems = []
            if set(kinds) - {"APPEND", "COMPACT"}:
                problems.append(f"unexpected kinds {kinds}")
            if not 1 <= len(appends) <= len(jobs):
                problems.append(f"APPEND snapshots of {len(appends)} commit users for "
                                f"{len(jobs)} Flink jobs")
            if [s["id"] for s in snaps] != list(range(first, last + 1)):
                problems.append("the retained snapshots are not consecutive")
            mine = reported.get(name, set())
            if last - len(mine) < len(order):
                problems.append(f"{last - len(mine)} APPEND snapshots for {len(order)} rounds")
            if name in FOLLOWED:
                if not mine:
                    problems.append("no COMPACT snapshot")
                if compacts != {i for i in mine if i >= first} or max(mine, default=0) > last:
                    problems.append(f"retained COMPACT snapshots {sorted(compacts)}, the service "
                                    f"reported {sorted(mine)}")
                if {s["commitUser"] for s in snaps if s["commitKind"] == "COMPACT"} & appends:
                    problems.append("a COMPACT snapshot of Flink's commit user")
                # Flink went on committing on top of the services' snapshots
                last_append = max(s["id"] for s in snaps if s["commitKind"] == "APPEND")
                before = sum(1 for i in mine if i < last_append)
                if not before:
                    problems.append("no COMPACT snapshot before Flink's last APPEND")
                check(f"{name}: every APPEND is Flink's ({last - len(mine)}), every COMPACT the "
                      f"service's ({len(mine)}, {before} of them before Flink's last APPEND)",
                      problems)
                check(f"{name}: the service expired snapshots 1..{first - 1}, {len(snaps)} "
                      f"retained (snapshot.num-retained.max {RETAINED})",
                      [] if first > 1 and len(snaps) <= RETAINED else
                      [f"snapshots {first}..{last} retained"])
            else:
                if compacts:
                    problems.append(f"{len(compacts)} COMPACT snapshots in the contrast table")
                # write-only writers do not expire: every snapshot is still there
                if first != 1:
                    problems.append(f"snapshots before {first} expired without a service")
                check(f"{name}: only Flink's APPEND snapshots, none expired ({len(snaps)})",
                      problems)

        # What expiration deleted beside Flink is exactly what no retained snapshot uses: no data
        # file on disk is left unused. Metadata may be: when Flink's commit loses a snapshot id to
        # a service's, Paimon's committer (1.3.1, FileStoreCommitImpl) retries with new manifests
        # and deletes only the base manifest list of the lost attempt, not its delta manifest
        # list and manifests (Fjord's committer deletes all of its lost attempt's files). So at
        # most one such manifest list per COMPACT snapshot of the service.
        time.sleep(1.5)  # every writer has stopped: all files are older than a second
        leftovers = {}
        for name in FOLLOWED:
            p = subprocess.run([args.fjord, "orphans", path[name], "--older-than", "1s",
                                "--dry-run"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True, encoding="utf-8")
            lines = p.stdout.strip().splitlines()
            files = [os.path.relpath(l.split("\t", 1)[1], path[name]) for l in lines
                     if "\t" in l]
            data = [f for f in files if not f.startswith("manifest" + os.sep)]
            lists = [f for f in files if os.path.basename(f).startswith("manifest-list-")]
            leftovers[name] = files
            check(f"{name}: every data file on disk is used by a retained snapshot; unused "
                  f"metadata: {len(lists)} manifest lists, {len(files) - len(lists)} manifests "
                  f"(Flink's lost attempts)",
                  [] if p.returncode == 0 and not data and len(lists) <= len(reported[name])
                  else [f"exit {p.returncode}: {p.stdout[-1500:]}"])

        # What `fjord doctor` tells the team: nothing with the service (but the leftovers above,
        # for `fjord orphans`); without it, the sorted runs (error at the stop trigger) and
        # expiration not running
        for name in TABLES:
            report = json.loads(run([args.fjord, "doctor", path[name], "--json"]))
            codes = sorted({f["code"] for f in report["findings"]})
            if name in FOLLOWED:
                allowed = {"orphan-files"} if leftovers[name] else set()
                check(f"{name}: fjord doctor has no finding{' but orphan-files' if allowed else ''}",
                      [f"findings {codes}"] if set(codes) - allowed else [])
            else:
                want = {"sorted-runs", "expiration-not-running"}
                check(f"{name}: fjord doctor finds {codes}",
                      [] if want <= set(codes) else [f"expected {sorted(want)}"])

        # Content: fjord cat and Flink's batch read against the model
        model = {"agg": canon_rows(agg_model(order)),
                 "dedup": canon_rows(dedup_model(order)),
                 "dedup_alone": canon_rows(dedup_model(order))}
        cmd = ["read"]
        for name in TABLES:
            cmd += [path[name], "--output", os.path.join(work, f"{name}.flink.jsonl")]
        flink(*cmd)
        for name in TABLES:
            want = model[name]
            mine = canon_lines(run([args.fjord, "cat", path[name], "--format", "jsonl"]))
            with open(os.path.join(work, f"{name}.flink.jsonl"), encoding="utf-8") as f:
                theirs = canon_lines(f.read())
            for who, got in (("fjord cat", mine), ("Flink's batch read", theirs)):
                check(f"{name}: {who} = the model ({sum(want.values())} rows)",
                      [] if got == want else
                      [f"{sum(got.values())} rows; missing {list((want - got).elements())[:3]}, "
                       f"unexpected {list((got - want).elements())[:3]}"])

        # The LSM: bounded with the service, not without
        for name in TABLES:
            runs = runs_per_bucket(args.fjord, path[name])
            top = max(r for r, _ in runs.values())
            level0 = max(z for _, z in runs.values())
            what = (f"{name}: at the end at most {top} sorted runs and {level0} level-0 files in a "
                    f"bucket ({len(runs)} buckets; peak seen while Flink wrote {peak[name]})")
            if name in FOLLOWED:
                # Flink's own writers would stall at the stop trigger; with the service the table
                # stays below it all along (the service compacts after every snapshot)
                check(what + f", below the stop trigger {STOP_TRIGGER}",
                      [] if max(top, peak[name]) < STOP_TRIGGER else
                      [f"{top} sorted runs, {peak[name]} at the peak"])
            else:
                check(what + f": without the service above the stop trigger {STOP_TRIGGER}",
                      [] if top > STOP_TRIGGER else [f"only {top} sorted runs"])
        completed = True
    finally:
        for proc, out in services.values():
            proc.kill()
            proc.wait()
            out.close()
        flink.close()
        log.close()
        if args.keep or failed or not completed:
            print(f"work folder kept: {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{time.monotonic() - start:.1f} s")
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and completed else 1


if __name__ == "__main__":
    sys.exit(main())
