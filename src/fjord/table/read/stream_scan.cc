#include "fjord/table/read/stream_scan.h"

#include <algorithm>
#include <ctime>
#include <utility>

namespace fjord {

namespace {

constexpr int kRangeCheckInterval = 16;  // Java's NextSnapshotFetcher.RANGE_CHECK_INTERVAL

int64_t NowMillis() {
  struct timespec ts {};
  clock_gettime(CLOCK_REALTIME, &ts);
  return static_cast<int64_t>(ts.tv_sec) * 1000 + ts.tv_nsec / 1000000;
}

}  // namespace

StreamTableScan::StreamTableScan(std::shared_ptr<FileIO> io, std::string table_root,
                                 TableSchema schema, CoreOptions core, ScanStartOptions start,
                                 std::optional<Predicate> filter,
                                 std::optional<int64_t> consumer_next)
    : io_(io),
      root_(table_root),
      schema_(schema),
      core_(std::move(core)),
      start_(std::move(start)),
      filter_(std::move(filter)),
      consumer_next_(consumer_next),
      snapshots_(io, table_root),
      changelogs_(io, table_root),
      scan_(io, table_root, schema) {}

Status StreamTableScan::Init() {
  FJORD_ASSIGN_OR_RAISE(latest_at_open_, snapshots_.LatestId());
  return Status::OK();
}

bool StreamTableScan::Ends(const Snapshot& snapshot) const {
  // Java's BoundedChecker.watermark: the first snapshot whose watermark passes the bound.
  return start_.bounded_watermark && snapshot.watermark &&
         *snapshot.watermark > *start_.bounded_watermark;
}

bool StreamTableScan::ShouldScan(const Snapshot& snapshot) const {
  if (core_.changelog_producer() == ChangelogProducer::kNone) {
    return snapshot.commit_kind == CommitKind::kAppend;  // DeltaFollowUpScanner
  }
  return snapshot.changelog_manifest_list.has_value();  // ChangelogFollowUpScanner
}

Result<StreamPlan> StreamTableScan::Splits(const Snapshot& snapshot, const PlanOptions& options,
                                           bool full) {
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan,
                        scan_.Plan(snapshot, filter_ ? &*filter_ : nullptr, options));
  StreamPlan out;
  out.kind = StreamPlan::Kind::kSplits;
  out.snapshot = snapshot;
  out.full = full;
  out.splits = std::move(plan.splits);
  return out;
}

Result<StreamPlan> StreamTableScan::Plan() {
  if (!started_) return FirstPlan();
  return NextPlan();
}

Result<StreamPlan> StreamTableScan::FirstPlan() {
  // A restored position wins over everything (Java's restore()).
  if (next_snapshot_) {
    started_ = true;
    return NextPlan();
  }
  PlanOptions full;
  // Level 0 of lookup tables will produce changelog later; full-compaction tables hand out
  // only what the last full compaction wrote (DataTableStreamScan#tryFirstPlan).
  if (core_.changelog_producer() == ChangelogProducer::kLookup) {
    full.min_level = 1;
  } else if (core_.changelog_producer() == ChangelogProducer::kFullCompaction) {
    full.min_level = core_.num_levels() - 1;
    full.max_level = core_.num_levels() - 1;
  }
  std::optional<Snapshot> starting;  // a full read of this snapshot
  std::optional<int64_t> next;       // else: start with the changes of this snapshot
  bool no_snapshot = false;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots_.EarliestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots_.LatestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest_readable, EarliestReadable());
  if (consumer_next_) {
    // ContinuousFromSnapshotStartingScanner over the consumer's next snapshot.
    if (!earliest) {
      no_snapshot = true;
    } else {
      next = std::max(*consumer_next_, *earliest_readable);
    }
  } else {
    switch (start_.mode) {
      case StartupMode::kLatestFull:
        if (!latest) {
          no_snapshot = true;
        } else {
          // FullStartingScanner: the latest snapshot when the stream opened.
          FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots_.Load(latest_at_open_.value_or(*latest)));
          starting = std::move(s);
        }
        break;
      case StartupMode::kLatest:
        if (!latest) {
          no_snapshot = true;
        } else {
          // ContinuousLatestStartingScanner: the snapshot after the latest at open; a table that
          // had none at open starts with snapshot 1.
          next = latest_at_open_ ? *latest_at_open_ + 1 : 1;
        }
        break;
      case StartupMode::kCompactedFull: {
        FJORD_ASSIGN_OR_RAISE(starting, CompactedFullSnapshot(snapshots_, core_));
        no_snapshot = !starting.has_value();
        break;
      }
      case StartupMode::kFromTimestamp: {
        // ContinuousFromTimestampStartingScanner: after the latest snapshot older than the time.
        FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> before,
                              EarlierThan(*start_.timestamp_millis, false));
        if (!before) {
          no_snapshot = true;
        } else {
          next = *before + 1;
        }
        break;
      }
      case StartupMode::kFromSnapshot:
        if (!start_.snapshot_id) {
          return Status::Invalid(start_.tag_name ? "scan.tag-name" : "scan.watermark",
                                 " cannot start a streaming read (batch reads only, as Java)");
        }
        if (!earliest) {
          no_snapshot = true;
        } else {
          next = std::max(*start_.snapshot_id, *earliest_readable);
        }
        break;
      case StartupMode::kFromSnapshotFull:
        if (!earliest) {
          no_snapshot = true;
        } else {
          FJORD_ASSIGN_OR_RAISE(Snapshot s,
                                snapshots_.Load(std::max(*start_.snapshot_id, *earliest)));
          starting = std::move(s);
        }
        break;
      case StartupMode::kFromFileCreationTime:
        if (!latest) {
          no_snapshot = true;
        } else {
          FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots_.Load(*latest));
          starting = std::move(s);
          full.min_creation_millis = start_.file_creation_millis;
        }
        break;
      case StartupMode::kFromCreationTimestamp: {
        FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> before,
                              EarlierThan(*start_.creation_millis, true));
        std::optional<int64_t> first;
        if (before) {
          FJORD_ASSIGN_OR_RAISE(bool exists, Exists(*before + 1));
          if (exists) first = *before + 1;
        }
        if (first) {
          next = std::max(*first, earliest.value_or(*first));
        } else if (!latest) {
          no_snapshot = true;
        } else {
          FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots_.Load(*latest));
          starting = std::move(s);
          full.min_creation_millis = start_.creation_millis;
        }
        break;
      }
      case StartupMode::kIncremental:
        return Status::Invalid("incremental reads are batch reads; a streaming read cannot use ",
                               "scan.mode 'incremental' or incremental-between*");
    }
  }
  if (no_snapshot) return StreamPlan{};
  started_ = true;
  if (starting) {
    next_snapshot_ = starting->id + 1;
    full_phase_end_ = Ends(*starting);
    return Splits(*starting, full, true);
  }
  next_snapshot_ = *next;
  if (*next > 1) {
    FJORD_ASSIGN_OR_RAISE(bool exists, Exists(*next - 1));
    if (exists) {
      FJORD_ASSIGN_OR_RAISE(Snapshot before, snapshots_.Load(*next - 1));
      full_phase_end_ = Ends(before);
    }
  }
  return StreamPlan{};
}

Result<bool> StreamTableScan::Exists(int64_t id) const {
  return io_->Exists(snapshots_.paths().SnapshotFile(id));
}

Result<std::optional<int64_t>> StreamTableScan::EarlierThan(int64_t millis,
                                                            bool null_if_too_early) const {
  // Java's TimeTravelUtil#earlierThanTimeMills: the latest snapshot older than `millis`; the
  // one before the earliest when all are at or after it (or nullopt if `null_if_too_early`).
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots_.LatestId());
  if (!latest) return std::optional<int64_t>();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest_id, snapshots_.EarliestId());
  if (!earliest_id) return std::optional<int64_t>(*latest - 1);
  FJORD_ASSIGN_OR_RAISE(Snapshot first, snapshots_.Load(*earliest_id));
  if (first.time_millis >= millis) {
    if (null_if_too_early) return std::optional<int64_t>();
    return std::optional<int64_t>(first.id - 1);
  }
  int64_t lo = first.id, hi = *latest;
  while (lo < hi) {
    int64_t mid = (lo + hi + 1) / 2;
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots_.Load(mid));
    if (s.time_millis < millis) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return std::optional<int64_t>(lo);
}

Result<std::optional<int64_t>> StreamTableScan::EarliestReadable() const {
  // Java's ContinuousFromSnapshotStartingScanner: with long-lived changelogs the earliest of
  // them, else the earliest snapshot.
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> changelog, changelogs_.EarliestId());
  if (changelog) return changelog;
  return snapshots_.EarliestId();
}

Result<std::optional<Snapshot>> StreamTableScan::NextSnapshot(int64_t id) {
  Result<Snapshot> loaded = snapshots_.Load(id);
  if (loaded.ok()) {
    misses_ = 0;
    return std::optional<Snapshot>(std::move(*loaded));
  }
  if (!loaded.status().IsNotFound()) return loaded.status();
  // Expired, but kept as a long-lived changelog (changelog/changelog-<id>): its changelog (or,
  // with changelog-producer none, its delta) is still there to read.
  Result<Snapshot> changelog = changelogs_.Load(id);
  if (changelog.ok()) {
    misses_ = 0;
    return std::optional<Snapshot>(std::move(*changelog));
  }
  if (!changelog.status().IsNotFound()) return changelog.status();
  if (++misses_ % kRangeCheckInterval != 0) return std::optional<Snapshot>();
  // Java's NextSnapshotFetcher#rangeCheck.
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots_.EarliestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots_.LatestId());
  if (!earliest || *earliest <= id) {
    if ((!earliest && id > 1) || (latest && id > *latest + 1)) {
      return Status::Invalid("the next snapshot to read, ", id, ", is beyond the latest (",
                             latest ? std::to_string(*latest) : std::string("none"),
                             "): the table was probably re-created");
    }
    return std::optional<Snapshot>();
  }
  return Status::NotFound("snapshot ", id, " has expired before it was read (the earliest is ",
                          *earliest, ", the latest ", latest ? std::to_string(*latest) : "none",
                          "); keep snapshots longer or read with a consumer-id, which protects ",
                          "the snapshots it has not read from expiration");
}

Result<StreamPlan> StreamTableScan::OverwritePlan(const Snapshot& snapshot) {
  PlanOptions options;
  options.kind = ScanKind::kDelta;
  // Primary-key tables: the old merged rows retracted, then the new ones (readChanges);
  // append tables: the new files.
  options.changes = !schema_.primary_keys.empty();
  return Splits(snapshot, options, false);
}

Result<StreamPlan> StreamTableScan::NextPlan() {
  while (true) {
    if (full_phase_end_) return StreamPlan{StreamPlan::Kind::kEnd, std::nullopt, false, {}};
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> snapshot, NextSnapshot(*next_snapshot_));
    if (!snapshot) return StreamPlan{};
    if (Ends(*snapshot)) return StreamPlan{StreamPlan::Kind::kEnd, std::nullopt, false, {}};
    if (start_.snapshot_delay_millis &&
        snapshot->time_millis > NowMillis() - *start_.snapshot_delay_millis) {
      return StreamPlan{};
    }
    if (snapshot->commit_kind == CommitKind::kOverwrite && start_.read_overwrite) {
      FJORD_ASSIGN_OR_RAISE(StreamPlan plan, OverwritePlan(*snapshot));
      ++*next_snapshot_;
      if (plan.splits.empty()) continue;
      return plan;
    }
    if (ShouldScan(*snapshot)) {
      PlanOptions options;
      options.kind = core_.changelog_producer() == ChangelogProducer::kNone ? ScanKind::kDelta
                                                                            : ScanKind::kChangelog;
      FJORD_ASSIGN_OR_RAISE(StreamPlan plan, Splits(*snapshot, options, false));
      ++*next_snapshot_;
      if (plan.splits.empty()) continue;
      return plan;
    }
    ++*next_snapshot_;
  }
}

}  // namespace fjord
