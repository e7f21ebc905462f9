// Streaming scans (behaviour.md §7.2, Java's DataTableStreamScan): a starting plan chosen by
// `scan.mode` (a full read of one snapshot, or none), then the snapshots after it one by one,
// each planned by the follow-up rule of the table's changelog producer: the files an APPEND
// snapshot added for `none`, the changelog files of every snapshot that has them otherwise.
// OVERWRITE snapshots are skipped unless `streaming-read-overwrite` (primary-key tables: the old
// merged rows as -D/-U, then the new ones) or `streaming-read-append-overwrite` (append tables:
// the new files). The position is the id of the next snapshot to plan (`checkpoint()`). A
// snapshot that expired but lives on as a long-lived changelog (changelog/changelog-<id>) is read
// from there, and a stream positioned before the earliest snapshot starts at the earliest
// long-lived changelog (Java reads them only when its own options make the changelog decoupled;
// Fjord reads whatever changelog/ holds).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/expr/predicate.h"
#include "fjord/file_io.h"
#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/read/scan_start.h"

namespace fjord {

struct StreamPlan {
  enum class Kind : unsigned char {
    kSplits,  // `splits` to read: the starting full read or one snapshot's changes
    kWait,    // no snapshot to plan yet: plan again later
    kEnd,     // a bounded stream (scan.bounded.watermark) reached its end
  };
  Kind kind = Kind::kWait;
  std::optional<Snapshot> snapshot;  // the snapshot planned (kSplits)
  bool full = false;                 // the starting full read (splits are merged reads)
  std::vector<DataSplit> splits;
};

class StreamTableScan {
 public:
  // `consumer_next` is the next snapshot a consumer recorded (consumer-id, unless
  // consumer.ignore-progress): the stream starts there whatever scan.mode says.
  StreamTableScan(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema,
                  CoreOptions core, ScanStartOptions start, std::optional<Predicate> filter,
                  std::optional<int64_t> consumer_next = std::nullopt);

  // Reads what the starting scanner fixes when the stream opens (the latest snapshot).
  Status Init();

  // The next plan. Errors: a snapshot that expired before it was read ("has expired"), and a
  // next id far beyond the latest (the table was re-created), checked every 16 misses as Java.
  Result<StreamPlan> Plan();

  // The id of the next snapshot to plan; nullopt before the starting plan.
  std::optional<int64_t> checkpoint() const { return next_snapshot_; }
  // Continues from `next_snapshot` (a checkpoint()); nullopt starts over.
  void Restore(std::optional<int64_t> next_snapshot) { next_snapshot_ = next_snapshot; }

 private:
  Result<StreamPlan> FirstPlan();
  Result<StreamPlan> NextPlan();
  // The snapshot `id` if it exists, else nullopt after the range check.
  Result<std::optional<Snapshot>> NextSnapshot(int64_t id);
  Result<StreamPlan> Splits(const Snapshot& snapshot, const PlanOptions& options, bool full);
  Result<StreamPlan> OverwritePlan(const Snapshot& snapshot);
  bool ShouldScan(const Snapshot& snapshot) const;
  Result<bool> Exists(int64_t id) const;
  // The earliest long-lived changelog, else the earliest snapshot.
  Result<std::optional<int64_t>> EarliestReadable() const;
  Result<std::optional<int64_t>> EarlierThan(int64_t millis, bool null_if_too_early) const;
  bool Ends(const Snapshot& snapshot) const;

  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
  CoreOptions core_;
  ScanStartOptions start_;
  std::optional<Predicate> filter_;
  std::optional<int64_t> consumer_next_;
  SnapshotManager snapshots_;
  ChangelogManager changelogs_;
  TableScan scan_;
  std::optional<int64_t> next_snapshot_;
  std::optional<int64_t> latest_at_open_;
  bool started_ = false;
  bool full_phase_end_ = false;
  int misses_ = 0;
};

}  // namespace fjord
