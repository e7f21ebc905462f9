#!/usr/bin/env python3
"""Tags against Java Paimon 1.4 (issue 15 point 9, for point 3; one JVM for the suite).

1. Java reads the tags Fjord created (`fjord tag create`, with and without --time-retained, on
   snapshots `fjord expire --retain-max 1` then removes): Java's rows equal `fjord cat --tag`,
   before and after the expiration, and Java sees the same tags, snapshots and retentions.
2. Fjord reads the tags Java created (Table#createTag), before and after Java's own expiration
   removed their snapshots.
3. Two copies of one Fjord-written table (compactions, four tags, an expired snapshot range):
   Fjord's `fjord tag delete` on one and Java's Table#deleteTag on the other, tag by tag (a middle
   tag, the first, the last), leave exactly the same files after every step; both sides still
   read the remaining tag and the latest snapshot on both copies.
4. Automatic tags (`tag.automatic-creation` = process-time, daily and hourly with other
   formatters and zones): a table written by Fjord and one written by Java with the same options
   get the same tag names (Java's period formatter), Java reads Fjord's auto tags as Fjord does,
   and a Java commit on Fjord's table creates no second tag for the same period.
5. Rollback (issue 15 point 4): two copies of one Fjord-written table (tags, expired tagged
   snapshots, long-lived changelogs); `fjord rollback` on one and Java's Table#rollbackTo on the
   other, to a snapshot, to a time, to a tag whose snapshot expired and to an expired snapshot id
   that a tag holds: after every step both copies hold the same files with the same bytes in
   snapshot/, tag/ and changelog/, and each side reads the latest snapshot and every tag of both
   copies alike; then orphan clean-up (`fjord orphans` and Java's) removes the same files, and a
   commit on top of the rolled-back table reads alike.
6. Batch tags (`tag.automatic-creation` = batch, tag.num-retained-max counting manual tags, in
   the local zone and in a `sink.process-time-zone` whose date differs from UTC's): Fjord's
   `fjord write` and Java's batch write followed by Java's TagBatchCreation leave the same tags (batch-write-<date> on the latest snapshot, replaced at
   each write; the oldest manual tag deleted); a Java batch write on Fjord's table moves the tag.

    java_tags_compat.py --fjord BUILD/tools/fjord
"""
import argparse
import datetime
import difflib
import json
import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oracle_batch import OracleBatch  # noqa: E402
from table_files import files, rows_of, run, snapshots  # noqa: E402

class Suite:
    def __init__(self, fjord, work, oracle):
        self.fjord, self.work, self.oracle = fjord, work, oracle
        self.failures = []
        self.checks = 0
        self.wh = os.path.join(work, "wh")
        self.inputs = 0
        run([fjord, "db", "create", self.wh, "db"])

    def check(self, what, ok, detail=""):
        self.checks += 1
        print(f"{'ok  ' if ok else 'FAIL'} {what}" + ("" if ok else f": {str(detail)[:1500]}"))
        if not ok:
            self.failures.append(what)

    def create(self, name, *opts):
        run([self.fjord, "table", "create", self.wh, f"db.{name}", "--columns",
             "id INT NOT NULL, v STRING", "--primary-key", "id", "-o", "bucket=2",
             "-o", "num-sorted-run.compaction-trigger=2", *opts])
        return os.path.join(self.wh, "db.db", name)

    def rows_file(self, rows):
        self.inputs += 1
        path = os.path.join(self.work, f"in-{self.inputs}.jsonl")
        with open(path, "w") as f:
            for r in rows:
                f.write(json.dumps(r) + "\n")
        return path

    def commit_rows(self, i):
        rows = [{"id": (i * 3 + k) % 7, "v": f"v{i}-{k}"} for k in range(i % 4 + 1)]
        if i % 3 == 2:
            rows.append({"_row_kind": "-D", "id": (i + 1) % 7})
        return rows

    def fjord_writes(self, table, commits):
        for i in range(commits):
            run([self.fjord, "write", table, "--input", self.rows_file(self.commit_rows(i))])

    def java_writes(self, table, commits):
        for i in range(commits):
            self.oracle.message("write", table, "--input", self.rows_file(self.commit_rows(i)))

    def fjord_rows(self, table, *how):
        return rows_of(run([self.fjord, "cat", table, *how]), False)

    def java_rows(self, table, *how):
        return rows_of(self.oracle.call("dump", table, *how))

    def fjord_tags(self, table):
        return {t["name"]: (t["snapshot"], t["time_retained_millis"])
                for t in json.loads(run([self.fjord, "tag", "list", table, "--json"]))}

    def java_tags(self, table):
        out = self.oracle.call("tags", table)
        return {t["name"]: (t["snapshot"], t["time_retained_ms"])
                for t in (json.loads(l) for l in open(out, encoding="utf-8") if l.strip())}

    def same_tags(self, label, table):
        mine, theirs = self.fjord_tags(table), self.java_tags(table)
        self.check(f"{label}: Java and Fjord list the same tags", mine == theirs,
                   {"fjord": mine, "java": theirs})
        return mine

    # 1. Java reads Fjord's tags.
    def java_reads_fjord_tags(self):
        t = self.create("f")
        self.fjord_writes(t, 6)
        run([self.fjord, "tag", "create", t, "f2", "--snapshot", "2"])
        run([self.fjord, "tag", "create", t, "f4", "--snapshot", "4", "--time-retained", "1d"])
        run([self.fjord, "tag", "create", t, "latest"])
        last = snapshots(t)[-1]  # compactions add snapshots of their own
        tags = self.same_tags("Fjord's tags", t)
        self.check("Fjord's tags: retention as given",
                   tags == {"f2": (2, None), "f4": (4, 86400000), "latest": (last, None)}, tags)
        want = {name: self.fjord_rows(t, "--tag", name) for name in tags}
        for name, rows in want.items():
            self.check(f"Fjord's tag {name}: Java reads it as Fjord does",
                       self.java_rows(t, "--tag", name) == rows)
        run([self.fjord, "expire", t, "--retain-min", "1", "--retain-max", "1"])
        self.check("Fjord's tags: expiration kept 1 snapshot", snapshots(t) == [last],
                   snapshots(t))
        self.same_tags("Fjord's tags after expiration", t)
        for name, rows in want.items():
            self.check(f"Fjord's tag {name} after expiration: Fjord reads it as before",
                       self.fjord_rows(t, "--tag", name) == rows)
            self.check(f"Fjord's tag {name} after expiration: Java reads it as before",
                       self.java_rows(t, "--tag", name) == rows)

    # 2. Fjord reads Java's tags.
    def fjord_reads_java_tags(self):
        t = self.create("j")
        self.fjord_writes(t, 3)
        self.java_writes(t, 3)
        self.oracle.message("tag", t, "--name", "j2", "--snapshot", "2")
        self.oracle.message("tag", t, "--name", "j4", "--snapshot", "4",
                            "--time-retained-ms", "7200000")
        self.oracle.message("tag", t, "--name", "jlatest")
        last = snapshots(t)[-1]
        tags = self.same_tags("Java's tags", t)
        self.check("Java's tags: retention as given",
                   tags == {"j2": (2, None), "j4": (4, 7200000), "jlatest": (last, None)}, tags)
        want = {}
        for name, (snap, _) in tags.items():
            want[name] = self.java_rows(t, "--snapshot", str(snap))
            self.check(f"Java's tag {name}: Fjord reads it as Java does",
                       self.fjord_rows(t, "--tag", name) == want[name])
        self.oracle.message("expire", t, "--retain-min", "1", "--retain-max", "1")
        self.check("Java's tags: Java's expiration kept 1 snapshot", snapshots(t) == [last],
                   snapshots(t))
        self.same_tags("Java's tags after Java's expiration", t)
        for name, rows in want.items():
            self.check(f"Java's tag {name} after Java's expiration: Fjord reads it as before",
                       self.fjord_rows(t, "--tag", name) == rows)

    # 3. Deleting tags: the same files left.
    def delete_tags(self, label, name, *opts):
        t = self.create(name, *opts)
        self.fjord_writes(t, 10)
        ids = snapshots(t)  # compactions add snapshots: tag the 2nd, 4th, 5th and 3rd-last
        tagged = {"t2": ids[1], "t4": ids[3], "t5": ids[4], "t8": ids[-3]}
        for name, s in tagged.items():
            run([self.fjord, "tag", "create", t, name, "--snapshot", str(s)])
        t5 = self.fjord_rows(t, "--tag", "t5")
        latest = self.fjord_rows(t)
        run([self.fjord, "expire", t, "--retain-min", "2", "--retain-max", "2"])
        self.check(f"{label}: the last 2 snapshots kept", snapshots(t) == ids[-2:], snapshots(t))
        java_copy = t + "-java"
        shutil.copytree(t, java_copy)
        cleaned = 0  # files deleted besides the tag files
        for name in ("t4", "t2", "t8"):
            before = files(t)
            run([self.fjord, "tag", "delete", t, name])
            self.oracle.message("delete-tag", java_copy, "--name", name)
            mine, theirs = files(t), files(java_copy)
            cleaned += len(before - mine) - 1
            self.check(f"{label}: deleting {name}, Fjord and Java leave the same files",
                       mine == theirs, {"only Fjord kept": sorted(mine - theirs),
                                        "only Java kept": sorted(theirs - mine)})
        print(f"{label}: {cleaned} files of expired tagged snapshots deleted")
        self.check(f"{label}: the deletions cleaned files of the expired snapshots", cleaned > 0)
        for copy in (t, java_copy):
            who = "Fjord's copy" if copy == t else "Java's copy"
            self.check(f"{label}, {who}: only t5 left",
                       set(self.fjord_tags(copy)) == {"t5"} == set(self.java_tags(copy)))
            self.check(f"{label}, {who}: Fjord reads t5",
                       self.fjord_rows(copy, "--tag", "t5") == t5)
            self.check(f"{label}, {who}: Java reads t5",
                       self.java_rows(copy, "--tag", "t5") == t5)
            self.check(f"{label}, {who}: Fjord reads the latest snapshot",
                       self.fjord_rows(copy) == latest)
            self.check(f"{label}, {who}: Java reads the latest snapshot",
                       self.java_rows(copy) == latest)

    # 4. Automatic tags.
    def auto_tags(self, label, *opts):
        opts = ["-o", "tag.automatic-creation=process-time", *opts]
        for attempt in range(2):  # a period boundary between the two tables' commits: retry
            n = self.inputs
            ft, jt = self.create(f"af{n}", *opts), self.create(f"aj{n}", *opts)
            self.fjord_writes(ft, 2)
            self.java_writes(jt, 2)
            mine, theirs = self.fjord_tags(ft), self.java_tags(jt)
            if set(mine) == set(theirs) or attempt == 1:
                break
        self.check(f"{label}: Fjord and Java create the same auto tags",
                   bool(mine) and set(mine) == set(theirs),
                   {"fjord": sorted(mine), "java": sorted(theirs)})
        self.same_tags(f"{label}, Fjord's table", ft)
        for name in mine:
            self.check(f"{label}: Java reads Fjord's auto tag {name} as Fjord does",
                       self.java_rows(ft, "--tag", name) == self.fjord_rows(ft, "--tag", name))
        self.java_writes(ft, 1)
        after = self.same_tags(f"{label}, Fjord's table after a Java commit", ft)
        self.check(f"{label}: a Java commit in the same period adds no auto tag",
                   set(after) == set(mine), {"before": sorted(mine), "after": sorted(after)})

    # 5. Rollback.
    def metadata(self, table):
        out = {}
        for d in ("snapshot", "tag", "changelog"):
            root = os.path.join(table, d)
            if os.path.isdir(root):
                for n in sorted(os.listdir(root)):
                    if not n.startswith("."):
                        with open(os.path.join(root, n), encoding="utf-8") as f:
                            out[f"{d}/{n}"] = f.read()
        return out

    def same_after(self, label, t, j):
        mine, theirs = files(t), files(j)
        self.check(f"{label}: Fjord and Java leave the same files", mine == theirs,
                   {"only Fjord's": sorted(mine - theirs), "only Java's": sorted(theirs - mine)})
        mm, jm = self.metadata(t), self.metadata(j)
        differ = sorted(k for k in set(mm) | set(jm) if mm.get(k) != jm.get(k))
        self.check(f"{label}: snapshot/, tag/ and changelog/ hold the same bytes", not differ,
                   {k: "".join(difflib.unified_diff(mm.get(k, "").splitlines(True),
                                                    jm.get(k, "").splitlines(True), "fjord",
                                                    "java", n=1)) for k in differ[:2]})
        latest = self.fjord_rows(t)
        for copy in (t, j):
            who = "Fjord's copy" if copy == t else "Java's copy"
            self.check(f"{label}, {who}: Fjord and Java read the latest snapshot alike",
                       self.fjord_rows(copy) == latest == self.java_rows(copy))
            for name in self.fjord_tags(copy):
                self.check(f"{label}, {who}: Fjord and Java read tag {name} alike",
                           self.fjord_rows(copy, "--tag", name) ==
                           self.java_rows(copy, "--tag", name) == self.fjord_rows(t, "--tag", name))

    def rollback(self, label, name, *opts, commit_after=True):
        t = self.create(name, *opts)
        self.fjord_writes(t, 12)
        ids = snapshots(t)
        tagged = {"r2": ids[1], "r4": ids[3], "r7": ids[6], "r9": ids[-4]}
        for tag, s in tagged.items():
            run([self.fjord, "tag", "create", t, tag, "--snapshot", str(s)])
        want = {s: self.fjord_rows(t, "--snapshot", str(s)) for s in ids}
        run([self.fjord, "expire", t, "--retain-min", "5", "--retain-max", "5"])
        j = t + "-java"
        shutil.copytree(t, j)

        def step(what, fjord_args, java_args, expect):
            run([self.fjord, "rollback", t, *fjord_args])
            self.oracle.message("rollback", j, *java_args)
            self.same_after(f"{label}: rollback {what}", t, j)
            self.check(f"{label}: rollback {what}: the latest reads as snapshot {expect} did",
                       self.fjord_rows(t) == want[expect])
            left = snapshots(t)
            bad = [s for s in left if self.java_rows(t, "--snapshot", str(s)) != want[s]]
            self.check(f"{label}: rollback {what}: Java reads each of the {len(left)} snapshots "
                       "left in Fjord's copy as it read before", not bad, bad)

        step("to the snapshot before the latest", ["--snapshot", str(ids[-2])],
             ["--snapshot", str(ids[-2])], ids[-2])
        with open(os.path.join(t, "snapshot", f"snapshot-{ids[-4]}"), encoding="utf-8") as f:
            millis = json.load(f)["timeMillis"]
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(millis // 1000))
        iso += f".{millis % 1000:03d}Z"
        step(f"to a time ({iso})", ["--timestamp", iso], ["--timestamp", str(millis)], ids[-4])
        step("to tag r7 (its snapshot expired)", ["--tag", "r7"], ["--tag", "r7"], ids[6])
        step(f"to snapshot {ids[1]} (expired, tag r2 holds it)", ["--snapshot", str(ids[1])],
             ["--snapshot", str(ids[1])], ids[1])
        time.sleep(1.5)  # what the rollbacks left must be older than the cut
        cut = int(time.time() * 1000) - 1000
        iso = time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(cut // 1000)) + f".{cut % 1000:03d}Z"
        run([self.fjord, "orphans", t, "--older-than", iso])
        self.oracle.call("remove-orphans", j, "--older-than-millis", str(cut))
        self.same_after(f"{label}: orphan clean-up after the rollbacks", t, j)
        if not commit_after:
            # Java 1.4.2's changelog expiration fails at the next commit when fewer snapshots
            # than changelog.num-retained.min remain beside long-lived changelogs (it reads
            # changelog-<negative id>; docs/status.md), so no commit follows here.
            return
        self.fjord_writes(t, 1)
        self.oracle.message("write", j, "--input", self.rows_file(self.commit_rows(0)))
        self.check(f"{label}: a commit after the rollback reads alike on both copies",
                   self.fjord_rows(t) == self.java_rows(j) == self.fjord_rows(j),
                   {"fjord": self.fjord_rows(t), "java": self.java_rows(j)})
    # 5. Batch tags.
    def batch_tags(self, label, zone, *opts):
        """Fjord's `fjord write` and Java's batch write (then Java's TagBatchCreation) on two
        tables with the same options: a manual tag after the 1st and 2nd write, so that
        tag.num-retained-max=2 (every tag counts) deletes m1 at the 3rd write; the batch tag
        batch-write-<date of the latest snapshot in `zone`> is replaced at every write."""
        opts = ["-o", "tag.automatic-creation=batch", "-o", "tag.num-retained-max=2",
                "-o", "tag.default-time-retained=1 d", *opts]

        def name_of(table, snapshot):
            with open(os.path.join(table, "snapshot", f"snapshot-{snapshot}")) as f:
                millis = json.load(f)["timeMillis"]
            day = datetime.datetime.fromtimestamp(millis / 1000, zone)
            return "batch-write-" + day.strftime("%Y-%m-%d")

        for attempt in range(2):  # midnight between the writes of one table: retry once
            n = self.inputs
            result = {}
            for who, write in (("Fjord", self.fjord_writes), ("Java", self.java_writes)):
                t = self.create(f"b{who[0].lower()}{n}", *opts)
                latest = []
                for i in range(3):
                    write(t, 1)
                    latest.append(snapshots(t)[-1])
                    if i < 2:
                        run([self.fjord, "tag", "create", t, f"m{i + 1}"])
                result[who] = (t, latest, self.fjord_tags(t))
            names = {name_of(t, s) for t, latest, _ in result.values() for s in latest}
            if len(names) == 1 or attempt == 1:
                break
        day = names.pop()
        for who, (t, latest, tags) in result.items():
            want = {"m2": (latest[1], 86400000), day: (latest[2], 86400000)}
            self.check(f"{label}: {who}'s batch writes leave {sorted(want)}", tags == want,
                       {"got": tags, "want": want})
        ft = result["Fjord"][0]
        self.same_tags(f"{label}, Fjord's table", ft)
        self.java_writes(ft, 1)
        after = self.same_tags(f"{label}, Fjord's table after a Java batch write", ft)
        self.check(f"{label}: Java's batch write moves Fjord's batch tag to its snapshot",
                   after.get(name_of(ft, snapshots(ft)[-1]), (None,))[0] == snapshots(ft)[-1],
                   after)
        for name in after:
            self.check(f"{label}: Java reads tag {name} of Fjord's table as Fjord does",
                       self.java_rows(ft, "--tag", name) == self.fjord_rows(ft, "--tag", name))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--fjord", required=True)
    fjord = ap.parse_args().fjord
    os.environ["TZ"] = "UTC"  # the oracle's JVM runs in UTC: Fjord's local zone (auto tags) matches
    with tempfile.TemporaryDirectory(prefix="fjord-java-tags-") as work:
        oracle = OracleBatch(work)
        try:
            s = Suite(fjord, work, oracle)
            s.java_reads_fjord_tags()
            s.fjord_reads_java_tags()
            s.delete_tags("tag deletion", "d1")
            s.delete_tags("tag deletion, changelog-producer input", "d2",
                          "-o", "changelog-producer=input")
            s.auto_tags("daily auto tags")
            s.auto_tags("hourly auto tags, without_dashes, +08:00",
                        "-o", "tag.creation-period=hourly",
                        "-o", "tag.period-formatter=without_dashes",
                        "-o", "sink.process-time-zone=+08:00")
            s.rollback("rollback", "r1")
            s.rollback("rollback, long-lived changelogs", "r2",
                       "-o", "changelog-producer=input", "-o", "changelog.num-retained.max=20",
                       "-o", "changelog.num-retained.min=20", commit_after=False)
            s.batch_tags("batch tags", datetime.timezone.utc)
            # A zone whose date differs from UTC's now: +12:00 in the afternoon, -12:00 before.
            east = datetime.datetime.now(datetime.timezone.utc).hour >= 12
            zone = "+12:00" if east else "-12:00"
            s.batch_tags(f"batch tags, {zone}",
                         datetime.timezone(datetime.timedelta(hours=12 if east else -12)),
                         "-o", f"sink.process-time-zone={zone}")
        finally:
            oracle.close()
    print(f"{s.checks} checks, {len(s.failures)} failed")
    if s.failures:
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
