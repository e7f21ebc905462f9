#include "fjord/table/maintain/doctor_findings.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>
#include <vector>

namespace fjord {

namespace {

std::string Bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  if (u == 0) {
    std::snprintf(buf, sizeof(buf), "%lld B", static_cast<long long>(bytes));
  } else {
    std::snprintf(buf, sizeof(buf), "%.1f %s", v, units[u]);
  }
  return buf;
}

std::string Duration(int64_t millis) {
  if (millis % (24 * 3600 * 1000LL) == 0)
    return std::to_string(millis / (24 * 3600 * 1000LL)) + " d";
  if (millis % (3600 * 1000LL) == 0) return std::to_string(millis / (3600 * 1000LL)) + " h";
  if (millis % (60 * 1000LL) == 0) return std::to_string(millis / (60 * 1000LL)) + " min";
  if (millis % 1000 == 0) return std::to_string(millis / 1000) + " s";
  return std::to_string(millis) + " ms";
}

std::string Where(const DoctorBucket& b) {
  return (b.partition.empty() ? std::string() : "partition " + b.partition + ", ") + "bucket " +
         std::to_string(b.bucket);
}

std::string PartitionArg(const DoctorBucket& b) {
  return b.partition.empty() ? std::string() : " --partition " + b.partition;
}

double Median(std::vector<int64_t> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? static_cast<double>(v[n / 2])
               : (static_cast<double>(v[n / 2 - 1]) + static_cast<double>(v[n / 2])) / 2;
}

DoctorFinding BucketFinding(std::string code, DoctorSeverity severity, const DoctorBucket& b) {
  DoctorFinding f;
  f.code = std::move(code);
  f.severity = severity;
  f.partition = b.partition;
  f.bucket = b.bucket;
  return f;
}

void BucketFindings(const DoctorReport& r, std::vector<DoctorFinding>* out) {
  const DoctorSettings& s = r.settings;
  const std::string compact = "fjord compact " + r.table_path;
  const std::string write_only_note =
      s.write_only ? "; the table has write-only=true, so writers never compact: run a dedicated "
                     "compaction regularly (fjord compact --follow keeps one running) or set "
                     "write-only=false"
                   : "";
  for (const DoctorBucket& b : r.buckets) {
    // Small files: at least compaction.min.file-num files below the compaction file size are
    // what Java's append compaction would have picked; left in place, compaction is not running
    // or behind. In a primary-key bucket each level-0 file is a sorted run (the sorted-runs
    // finding) and each level >= 1 one run whose last file may be small: only the small files
    // beyond one per level count.
    int64_t small = b.small_files;
    if (s.primary_key) {
      std::map<int32_t, int64_t> per_level;
      for (size_t i = 0; i < b.file_sizes.size() && i < b.file_levels.size(); ++i) {
        if (b.file_levels[i] > 0 && b.file_sizes[i] < s.small_file_size) {
          per_level[b.file_levels[i]]++;
        }
      }
      small = 0;
      for (const auto& [level, n] : per_level) small += n - 1;
    }
    if (small >= s.compaction_min_file_num && small >= 2) {
      DoctorFinding f = BucketFinding("small-files", DoctorSeverity::kWarning, b);
      f.numbers = {{"small_files", small},
                   {"small_bytes", b.small_bytes},
                   {"files", b.files},
                   {"target_file_size", s.target_file_size},
                   {"small_file_size", s.small_file_size},
                   {"compaction_min_file_num", s.compaction_min_file_num}};
      f.message = Where(b) + ": " + std::to_string(small) + " of " + std::to_string(b.files) +
                  " files are below " + Bytes(s.small_file_size) + " (70 % of target-file-size " +
                  Bytes(s.target_file_size) + ")" + (s.primary_key ? " beyond one per level" : "") +
                  ", " + Bytes(b.small_bytes) + " in all small files; compaction.min.file-num is " +
                  std::to_string(s.compaction_min_file_num);
      f.fix = compact + PartitionArg(b) + (s.primary_key ? " --full" : "") + write_only_note;
      out->push_back(std::move(f));
    }
    // Sorted runs: compaction starts above the trigger; writers stop and wait for compaction
    // above the stop trigger, so at the stop trigger the next flush stalls.
    if (s.primary_key && b.sorted_runs > s.compaction_trigger) {
      bool stall = b.sorted_runs >= s.stop_trigger;
      DoctorFinding f = BucketFinding("sorted-runs",
                                      stall ? DoctorSeverity::kError : DoctorSeverity::kWarning, b);
      f.numbers = {{"sorted_runs", b.sorted_runs},
                   {"level0_files", b.level0_files},
                   {"compaction_trigger", s.compaction_trigger},
                   {"stop_trigger", s.stop_trigger}};
      f.message = Where(b) + ": " + std::to_string(b.sorted_runs) + " sorted runs (" +
                  std::to_string(b.level0_files) +
                  " level-0 files); num-sorted-run.compaction-trigger is " +
                  std::to_string(s.compaction_trigger) + ", num-sorted-run.stop-trigger " +
                  std::to_string(s.stop_trigger) +
                  (stall ? (s.write_only ? ": reads merge every run (write-only writers do not "
                                           "wait for compaction)"
                                         : ": at the stop trigger writers stall, waiting for "
                                           "compaction, on their next flush")
                         : ": compaction is behind; reads merge every run");
      f.fix = compact + PartitionArg(b) + write_only_note;
      out->push_back(std::move(f));
    }
  }
  // Skew: fixed buckets only (dynamic buckets fill up to a row count, a bucket-unaware table has
  // one bucket per partition).
  if (s.bucket <= 0) return;
  std::map<std::string, std::vector<const DoctorBucket*>> partitions;
  for (const DoctorBucket& b : r.buckets) partitions[b.partition].push_back(&b);
  for (const auto& [partition, buckets] : partitions) {
    if (buckets.size() < 2) continue;
    std::vector<int64_t> rows, bytes;
    int64_t total_rows = 0;
    for (const DoctorBucket* b : buckets) {
      rows.push_back(b->rows);
      bytes.push_back(b->bytes);
      total_rows += b->rows;
    }
    if (total_rows < kSkewMinMeanRows * static_cast<int64_t>(buckets.size())) continue;
    double median_rows = Median(rows), median_bytes = Median(bytes);
    for (const DoctorBucket* b : buckets) {
      bool by_rows = static_cast<double>(b->rows) >= kSkewRatio * median_rows;
      bool by_bytes = static_cast<double>(b->bytes) >= kSkewRatio * median_bytes;
      if (!by_rows && !by_bytes) continue;
      DoctorFinding f = BucketFinding("skewed-bucket", DoctorSeverity::kWarning, *b);
      f.numbers = {{"rows", b->rows},
                   {"median_rows", static_cast<int64_t>(median_rows)},
                   {"bytes", b->bytes},
                   {"median_bytes", static_cast<int64_t>(median_bytes)},
                   {"buckets", static_cast<int64_t>(buckets.size())}};
      char ratio[32];
      std::snprintf(ratio, sizeof(ratio), "%.1fx",
                    by_rows ? (median_rows > 0 ? b->rows / median_rows : 0)
                            : (median_bytes > 0 ? b->bytes / median_bytes : 0));
      f.message = Where(*b) + " holds " + std::to_string(b->rows) + " rows and " + Bytes(b->bytes) +
                  ", " + ratio + " the median bucket of its partition (" +
                  std::to_string(static_cast<int64_t>(median_rows)) + " rows, " +
                  Bytes(static_cast<int64_t>(median_bytes)) + ")";
      if (by_rows) {
        f.fix =
            "the bucket key (bucket-key, else the primary key) hashes too many rows here: a key "
            "with more evenly spread values needs a new table; or use dynamic buckets "
            "(bucket = -1) for a primary-key table";
      } else {
        f.fix = "rows are even but bytes are not: the bucket holds uncompacted files; " + compact +
                PartitionArg(*b);
      }
      out->push_back(std::move(f));
    }
  }
}

void ExpirationFindings(const ExpirationFacts& x, const DoctorReport& r,
                        std::vector<DoctorFinding>* out) {
  const DoctorSettings& s = r.settings;
  if (x.missed_snapshots > 0) {
    DoctorFinding f;
    f.code = "expiration-not-running";
    f.severity = DoctorSeverity::kWarning;
    f.numbers = {{"snapshots", static_cast<int64_t>(r.snapshots.size())},
                 {"missed_snapshots", x.missed_snapshots},
                 {"missed_bytes", x.missed_bytes},
                 {"expirable_snapshots", r.expirable_snapshots},
                 {"expirable_bytes", r.expirable_bytes},
                 {"retain_max", s.retain_max},
                 {"time_retained_millis", s.time_retained_millis}};
    f.message = std::to_string(r.snapshots.size()) + " snapshots are retained, " +
                std::to_string(x.missed_snapshots) +
                " of which the latest commit's expiration would have deleted (older than "
                "snapshot.time-retained " +
                Duration(s.time_retained_millis) + " or beyond snapshot.num-retained.max), " +
                Bytes(x.missed_bytes) + " of data files only they hold: " +
                (s.write_only ? "the table has write-only=true, so its writers' commits never "
                                "expire"
                              : "expiration did not run after the latest commit (its writer was "
                                "write-only, or expiration is off or failing there)");
    f.fix = "fjord expire " + r.table_path +
            (s.write_only ? " (regularly: write-only writers never expire), or keep "
                            "fjord compact --follow running (a dedicated compaction expires as the "
                            "table says), or set write-only=false on one writer"
                          : "");
    out->push_back(std::move(f));
  }
  for (const ExpirationFacts::ConsumerPin& pin : x.consumer_pins) {
    if (pin.snapshots <= 0) continue;
    DoctorFinding f;
    f.code = "consumer-pins-snapshots";
    f.severity = DoctorSeverity::kWarning;
    f.consumer = pin.consumer;
    int64_t next = 0;
    for (const DoctorConsumer& c : r.consumers) {
      if (c.id == pin.consumer) next = c.next_snapshot;
    }
    f.numbers = {
        {"next_snapshot", next}, {"pinned_snapshots", pin.snapshots}, {"pinned_bytes", pin.bytes}};
    std::string behind;
    if (r.latest_snapshot) {
      f.numbers["latest_snapshot"] = *r.latest_snapshot;
      f.numbers["snapshots_behind"] = *r.latest_snapshot + 1 - next;
      behind = " (" + std::to_string(*r.latest_snapshot + 1 - next) + " behind the latest)";
    }
    f.message = "consumer '" + pin.consumer + "' continues at snapshot " + std::to_string(next) +
                behind + ", so expiration keeps " + std::to_string(pin.snapshots) +
                " snapshot(s) it would otherwise delete, " + Bytes(pin.bytes) +
                " of data files only they hold";
    f.fix = "if the reader is gone: fjord consumer reset " + r.table_path + " " + pin.consumer +
            " (deletes it); or set consumer.expiration-time so that idle consumers expire";
    out->push_back(std::move(f));
  }
  for (const DoctorTag& t : r.tags) {
    if (t.snapshot_present || t.own_bytes <= 0) continue;
    DoctorFinding f;
    f.code = "tag-only-bytes";
    // Tags are deliberate; a tag alone keeping more than the whole latest snapshot reads is
    // worth a look.
    int64_t latest_bytes = r.snapshots.empty() ? 0 : r.snapshots.back().bytes;
    f.severity = t.own_bytes > latest_bytes ? DoctorSeverity::kWarning : DoctorSeverity::kInfo;
    f.tag = t.name;
    f.numbers = {{"snapshot_id", t.snapshot_id},
                 {"own_bytes", t.own_bytes},
                 {"bytes", t.bytes},
                 {"latest_snapshot_bytes", latest_bytes},
                 {"tag_only_bytes", r.tag_only_bytes}};
    f.message = "tag '" + t.name + "' holds expired snapshot " + std::to_string(t.snapshot_id) +
                " and alone keeps " + Bytes(t.own_bytes) +
                " of data files no snapshot uses (the latest snapshot reads " +
                Bytes(latest_bytes) + ")";
    f.fix = "fjord tag delete " + r.table_path + " " + t.name +
            " when it is no longer needed; or set tag.num-retained-max or "
            "tag.default-time-retained";
    out->push_back(std::move(f));
  }
}

void OtherFindings(const DoctorReport& r, std::vector<DoctorFinding>* out) {
  const DoctorSettings& s = r.settings;
  if (r.orphan_files > 0) {
    DoctorFinding f;
    f.code = "orphan-files";
    f.severity = r.old_orphan_files > 0 ? DoctorSeverity::kWarning : DoctorSeverity::kInfo;
    f.numbers = {{"files", r.orphan_files},
                 {"bytes", r.orphan_bytes},
                 {"old_files", r.old_orphan_files},
                 {"old_bytes", r.old_orphan_bytes},
                 {"age_millis", s.orphan_age_millis}};
    f.message =
        std::to_string(r.orphan_files) + " file(s), " + Bytes(r.orphan_bytes) +
        ", are used by no snapshot, tag or changelog; " + std::to_string(r.old_orphan_files) +
        " of them (" + Bytes(r.old_orphan_bytes) + ") are older than " +
        Duration(s.orphan_age_millis) +
        (r.old_orphan_files < r.orphan_files ? " (younger ones may belong to a commit in progress)"
                                             : "");
    f.fix = "fjord orphans " + r.table_path +
            " --dry-run, then without --dry-run (it deletes "
            "the files older than 1 day)";
    out->push_back(std::move(f));
  }
  for (const DoctorConsumer& c : r.consumers) {
    DoctorFinding f;
    f.code = "stale-consumer";
    f.severity = DoctorSeverity::kWarning;
    f.consumer = c.id;
    f.numbers = {{"next_snapshot", c.next_snapshot}, {"modified_millis", c.modified_millis}};
    if (r.latest_snapshot) f.numbers["latest_snapshot"] = *r.latest_snapshot;
    if (r.earliest_snapshot) f.numbers["earliest_snapshot"] = *r.earliest_snapshot;
    std::string reset = "fjord consumer reset " + r.table_path + " " + c.id;
    if (r.latest_snapshot && c.next_snapshot > *r.latest_snapshot + 1) {
      f.message = "consumer '" + c.id + "' continues at snapshot " +
                  std::to_string(c.next_snapshot) + ", past the latest snapshot " +
                  std::to_string(*r.latest_snapshot) +
                  " + 1 (after a rollback?): its reader waits for that snapshot and skips the "
                  "ones before it";
      f.fix = reset + " --next-snapshot " + std::to_string(*r.latest_snapshot) +
              " (or without --next-snapshot to delete it)";
    } else if (r.earliest_snapshot && c.next_snapshot < *r.earliest_snapshot) {
      f.message = "consumer '" + c.id + "' continues at snapshot " +
                  std::to_string(c.next_snapshot) + ", which is gone (the earliest is " +
                  std::to_string(*r.earliest_snapshot) + "): its reader cannot resume there";
      f.fix = reset + " --next-snapshot " + std::to_string(*r.earliest_snapshot) +
              " (or without --next-snapshot to delete it)";
    } else if (s.consumer_expiration_millis &&
               c.modified_millis < r.now_millis - *s.consumer_expiration_millis) {
      f.numbers["expiration_millis"] = *s.consumer_expiration_millis;
      f.message = "consumer '" + c.id + "' was last moved " +
                  Duration((r.now_millis - c.modified_millis) / 1000 * 1000) +
                  " ago, longer than consumer.expiration-time " +
                  Duration(*s.consumer_expiration_millis) +
                  ", and is still there: no commit with maintenance ran since" +
                  (s.write_only ? " (write-only=true)" : "");
      f.fix = "fjord consumer reset " + r.table_path + " " + c.id +
              " (deletes it), or commit with a writer that is not write-only";
    } else {
      continue;
    }
    out->push_back(std::move(f));
  }
}

}  // namespace

void AddDoctorFindings(const ExpirationFacts& facts, DoctorReport* report) {
  std::vector<DoctorFinding> found;
  BucketFindings(*report, &found);
  ExpirationFindings(facts, *report, &found);
  OtherFindings(*report, &found);
  std::stable_sort(found.begin(), found.end(), [](const DoctorFinding& a, const DoctorFinding& b) {
    return static_cast<int>(a.severity) > static_cast<int>(b.severity);
  });
  for (DoctorFinding& f : found) report->findings.push_back(std::move(f));
}

}  // namespace fjord
