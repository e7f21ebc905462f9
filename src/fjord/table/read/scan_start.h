// Where a scan starts (behaviour.md §7.2): `scan.mode` and the scan.* options that go with it,
// parsed and checked as Java's CoreOptions#startupMode and SchemaValidation do, and the snapshot
// a batch read of them reads (Java's static starting scanners).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fjord/meta/core_options.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/options.h"
#include "fjord/table/read/scan.h"

namespace fjord {

// Java's CoreOptions.StartupMode, `default` and `full` resolved.
enum class StartupMode : unsigned char {
  kLatestFull,
  kLatest,
  kCompactedFull,
  kFromTimestamp,
  kFromSnapshot,
  kFromSnapshotFull,
  kFromFileCreationTime,
  kFromCreationTimestamp,
  kIncremental,
};

std::string_view StartupModeName(StartupMode mode);

// The scan options of a read, parsed and checked as Java's SchemaValidation checks them.
struct ScanStartOptions {
  StartupMode mode = StartupMode::kLatestFull;
  std::optional<int64_t> timestamp_millis;  // scan.timestamp-millis, or scan.timestamp parsed
  std::optional<int64_t> snapshot_id;
  std::optional<std::string> tag_name;
  std::optional<int64_t> watermark;
  std::optional<int64_t> file_creation_millis;
  std::optional<int64_t> creation_millis;
  std::optional<int64_t> bounded_watermark;
  std::optional<int64_t> snapshot_delay_millis;
  bool read_overwrite = false;  // streaming-read-overwrite (primary key) / -append-overwrite

  // Invalid naming the options when they contradict each other or the mode lacks its option.
  static Result<ScanStartOptions> Make(const Options& options, const CoreOptions& core,
                                       bool primary_key);
};

// The snapshot compacted-full starts with: the latest COMPACT snapshot (with the
// full-compaction producer or full-compaction.delta-commits, one whose commit identifier is a
// multiple of delta-commits), else the latest; nullopt for a table without snapshots.
Result<std::optional<Snapshot>> CompactedFullSnapshot(const SnapshotManager& snapshots,
                                                      const CoreOptions& core);

// What a batch read of `start` reads: the snapshot (nullopt: nothing to read) and which of its
// files. kIncremental is not resolved here.
struct BatchStart {
  std::optional<Snapshot> snapshot;
  PlanOptions plan;
};
Result<BatchStart> ResolveBatchStart(const SnapshotManager& snapshots,
                                     const ScanStartOptions& start, const CoreOptions& core);

}  // namespace fjord
