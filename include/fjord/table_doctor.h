// `fjord doctor`: one read-only report of what usually goes wrong with a Paimon table — small
// files per bucket against target-file-size, sorted runs near the stall trigger, snapshots and
// bytes expiration fails to reclaim (and why: a consumer, a tag, no expiration running), orphan
// bytes, stale consumers, skewed buckets — each finding with the option or command that fixes it,
// and the data series a chart of the table needs (docs/maintenance.md "fjord doctor").
// Nothing is written to the table.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fjord/result.h"

namespace fjord {

class Table;

enum class DoctorSeverity { kInfo = 0, kWarning = 1, kError = 2 };
// "info", "warning", "error".
const char* DoctorSeverityName(DoctorSeverity severity);

struct DoctorFinding {
  // Stable: small-files, sorted-runs, expiration-not-running, consumer-pins-snapshots,
  // tag-only-bytes, orphan-files, stale-consumer, skewed-bucket.
  std::string code;
  DoctorSeverity severity = DoctorSeverity::kWarning;
  // The subject, as far as it applies: a bucket (partition text "k=v,..." — empty when
  // unpartitioned — and bucket), a consumer or a tag.
  std::optional<std::string> partition;
  std::optional<int32_t> bucket;
  std::optional<std::string> consumer;
  std::optional<std::string> tag;
  // The numbers behind the finding, by name (e.g. "small_files", "target_file_size").
  std::map<std::string, int64_t> numbers;
  std::string message;  // for a person
  std::string fix;      // the option to set or the `fjord ...` command to run
};

// One (partition, bucket) of the latest snapshot.
struct DoctorBucket {
  std::string partition;  // "k=v,..." ("" when unpartitioned)
  int32_t bucket = 0;
  std::vector<int64_t> file_sizes;   // every live data file, by level then size
  std::vector<int32_t> file_levels;  // parallel to file_sizes
  int64_t files = 0;
  int64_t rows = 0;  // sum of the files' row counts (before merging)
  int64_t bytes = 0;
  int64_t small_files = 0;  // below the compaction file size (70 % of target-file-size)
  int64_t small_bytes = 0;
  int32_t level0_files = 0;
  int32_t sorted_runs = 0;  // primary keys: level-0 files + non-empty levels >= 1
};

// One snapshot present in snapshot/.
struct DoctorSnapshot {
  int64_t id = 0;
  int64_t time_millis = 0;
  std::string kind;               // APPEND, COMPACT, OVERWRITE, ANALYZE
  int64_t files = 0;              // live data files
  int64_t bytes = 0;              // their bytes (what a read of this snapshot reaches)
  int64_t own_bytes = 0;          // bytes of files no other snapshot and no tag holds
  std::vector<std::string> tags;  // tags on this snapshot
  // What keeps it through an expiration run now: "retain-min", "time-retained",
  // "consumer:<id>", "expire-limit"; "" when a run now would expire it.
  std::string kept_by;
};

struct DoctorTag {
  std::string name;
  int64_t snapshot_id = 0;
  int64_t time_millis = 0;        // the snapshot's commit time
  bool snapshot_present = false;  // its snapshot is still in snapshot/
  int64_t bytes = 0;              // data files its snapshot reads
  int64_t own_bytes = 0;          // of which no snapshot and no other tag holds
};

struct DoctorConsumer {
  std::string id;
  int64_t next_snapshot = 0;
  int64_t modified_millis = 0;  // the consumer file's modification time
};

// The option values the analysis used (Java Paimon 1.4's defaults where unset).
struct DoctorSettings {
  bool primary_key = false;
  int32_t bucket = 0;                    // `bucket`
  int64_t target_file_size = 0;          // target-file-size: 128 MB (primary keys) / 256 MB
  int64_t small_file_size = 0;           // Java's compaction file size: target / 10 * 7
  int32_t compaction_min_file_num = 0;   // compaction.min.file-num (5)
  int32_t compaction_trigger = 0;        // num-sorted-run.compaction-trigger (5)
  int32_t stop_trigger = 0;              // num-sorted-run.stop-trigger (trigger + 3, at least it)
  bool write_only = false;               // write-only
  int64_t retain_min = 0;                // snapshot.num-retained.min (10)
  int64_t retain_max = 0;                // snapshot.num-retained.max (infinite)
  int64_t time_retained_millis = 0;      // snapshot.time-retained (1 h)
  int64_t expire_limit = 0;              // snapshot.expire.limit (50)
  bool consumer_changelog_only = false;  // consumer.changelog-only
  std::optional<int64_t> consumer_expiration_millis;  // consumer.expiration-time (unset)
  int64_t orphan_age_millis = 0;  // what `fjord orphans` keeps by default: 1 day
};

struct DoctorReport {
  std::string table_path;
  int64_t now_millis = 0;
  DoctorSettings settings;
  std::optional<int64_t> earliest_snapshot, latest_snapshot;
  std::vector<DoctorFinding> findings;    // most severe first, then by code and subject
  std::vector<DoctorBucket> buckets;      // by partition, then bucket
  std::vector<DoctorSnapshot> snapshots;  // ascending by id
  std::vector<DoctorTag> tags;            // by name
  std::vector<DoctorConsumer> consumers;  // by id
  // What expiration would delete if it ran now (its dry run).
  int64_t expirable_snapshots = 0;
  int64_t expirable_bytes = 0;
  // Bytes of data files only tags keep (no snapshot holds them).
  int64_t tag_only_bytes = 0;
  // Files no snapshot, tag or long-lived changelog reaches (orphan clean-up's dry run).
  int64_t orphan_files = 0;
  int64_t orphan_bytes = 0;
  int64_t old_orphan_files = 0;  // of which older than `settings.orphan_age_millis`
  int64_t old_orphan_bytes = 0;
  // Parts of the analysis that could not run, and why (e.g. orphans of a table with branches).
  std::vector<std::string> notes;
};

struct DoctorOptions {
  std::optional<int64_t> now_millis;  // the clock (tests); nullopt: the system clock
};

// Reads the table's metadata (snapshots, manifests, tags, consumers, the directory listing) and
// reports; writes nothing. An error when a snapshot, tag, manifest list or manifest cannot be
// read.
Result<DoctorReport> DiagnoseTable(const Table& table, const DoctorOptions& options = {});

}  // namespace fjord
