#include "fjord/table/maintain/doctor.h"

#include <algorithm>

#include "fjord/meta/consumer.h"
#include "fjord/table/maintain/doctor_findings.h"
#include "fjord/table/maintain/doctor_retention.h"
#include "fjord/table/maintain/doctor_scan.h"
#include "fjord/table/maintain/expire_config.h"
#include "fjord/table/maintain/orphan_files.h"
#include "fjord/table/maintain/snapshot_expire.h"

namespace fjord {

namespace {

constexpr int64_t kOrphanAgeMillis = 24LL * 3600 * 1000;  // Java's remove_orphan_files default

Result<DoctorSettings> SettingsOf(const FileStoreTable& table, const ExpireConfig& config) {
  const CoreOptions& o = table.core_options();
  DoctorSettings s;
  s.primary_key = !table.schema().primary_keys.empty();
  s.bucket = o.bucket();
  s.target_file_size = o.target_file_size(s.primary_key);
  s.small_file_size = s.target_file_size / 10 * 7;  // Java's compactionFileSize
  s.compaction_min_file_num = o.compaction_min_file_num();
  s.compaction_trigger = o.num_sorted_run_compaction_trigger();
  // Java's numSortedRunStopTrigger: never below the compaction trigger.
  s.stop_trigger = std::max(o.num_sorted_run_stop_trigger(), s.compaction_trigger);
  s.write_only = o.write_only();
  s.retain_min = config.snapshot_retain_min;
  s.retain_max = config.snapshot_retain_max;
  s.time_retained_millis = config.snapshot_time_retain_millis;
  s.expire_limit = config.snapshot_max_deletes;
  s.consumer_changelog_only = config.consumer_changelog_only;
  FJORD_ASSIGN_OR_RAISE(s.consumer_expiration_millis,
                        o.options().GetDurationMillis("consumer.expiration-time"));
  s.orphan_age_millis = kOrphanAgeMillis;
  return s;
}

}  // namespace

Result<DoctorReport> Diagnose(const FileStoreTable& table, int64_t now_millis) {
  FJORD_ASSIGN_OR_RAISE(ExpireConfig config, ExpireConfig::FromOptions(table.core_options()));
  DoctorReport report;
  report.table_path = table.path();
  report.now_millis = now_millis;
  FJORD_ASSIGN_OR_RAISE(report.settings, SettingsOf(table, config));

  FJORD_ASSIGN_OR_RAISE(DoctorScan scan, ScanForDoctor(table));
  report.buckets = std::move(scan.buckets);
  report.snapshots = std::move(scan.snapshots);
  report.tags = std::move(scan.tags);
  report.tag_only_bytes = scan.tag_only_bytes;
  if (!report.snapshots.empty()) {
    report.earliest_snapshot = report.snapshots.front().id;
    report.latest_snapshot = report.snapshots.back().id;
  }

  ConsumerManager consumers(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(auto listed, consumers.List());
  for (const auto& [id, next] : listed) {
    DoctorConsumer c{id, next, 0};
    Result<FileStatus> status = table.io()->GetStatus(consumers.PathOf(id));
    if (status.ok()) c.modified_millis = status->mtime_millis;
    report.consumers.push_back(std::move(c));
  }

  // What expiration keeps and why.
  RetentionInput in;
  for (const DoctorSnapshot& s : report.snapshots) in.snapshots.emplace_back(s.id, s.time_millis);
  in.retain_min = config.snapshot_retain_min;
  in.retain_max = config.snapshot_retain_max;
  in.time_retained_millis = config.snapshot_time_retain_millis;
  in.expire_limit = config.snapshot_max_deletes;
  if (!config.consumer_changelog_only) {
    for (const DoctorConsumer& c : report.consumers) {
      if (!in.consumer || c.next_snapshot < in.consumer->second) {
        in.consumer = std::make_pair(c.id, c.next_snapshot);
      }
    }
  }
  ExpirationFacts facts;
  if (!report.snapshots.empty()) {
    for (DoctorSnapshot& s : report.snapshots) s.kept_by = KeptBy(in, now_millis, s.id);
    const int64_t earliest = *report.earliest_snapshot;
    const int64_t at_commit = ExpirationEnd(in, report.snapshots.back().time_millis);
    facts.missed_snapshots = at_commit - earliest;
    facts.missed_bytes = scan.FreedBelow(at_commit);
    const int64_t end_free = ExpirationEnd(in, now_millis, /*with_consumer=*/false);
    // Each consumer alone: what it holds back (the smallest one binds; the others are just as
    // far behind when they hold back something too).
    if (!config.consumer_changelog_only) {
      for (const DoctorConsumer& c : report.consumers) {
        RetentionInput alone = in;
        alone.consumer = std::make_pair(c.id, c.next_snapshot);
        const int64_t end_alone = ExpirationEnd(alone, now_millis);
        if (end_free > end_alone) {
          facts.consumer_pins.push_back(
              {c.id, end_free - end_alone, scan.FreedBelow(end_free) - scan.FreedBelow(end_alone)});
        }
      }
    }
    // Expiration's own dry run at now: what `fjord expire` would delete.
    ExpireRunOptions run;
    run.dry_run = true;
    run.now_millis = now_millis;
    FJORD_ASSIGN_OR_RAISE(ExpireReport dry, ExpireSnapshots(table, config, run));
    report.expirable_snapshots = dry.expired;
    for (const DeletedFile& f : dry.deleted) report.expirable_bytes += std::max<int64_t>(f.size, 0);
  }

  // Orphans: every unused file, and those older than the default age of `fjord orphans`.
  Result<OrphanCleanResult> orphans = CleanOrphanFiles(table, now_millis, /*dry_run=*/true);
  if (orphans.ok()) {
    for (const OrphanFile& f : orphans->files) {
      report.orphan_files++;
      report.orphan_bytes += f.size;
      if (f.mtime_millis < now_millis - kOrphanAgeMillis) {
        report.old_orphan_files++;
        report.old_orphan_bytes += f.size;
      }
    }
  } else if (orphans.status().code() == StatusCode::kNotImplemented) {
    report.notes.push_back("orphan files not examined: " + orphans.status().ToString());
  } else {
    return orphans.status();
  }

  AddDoctorFindings(facts, &report);
  return report;
}

}  // namespace fjord
