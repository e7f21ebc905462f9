// Batch scan planning (spec/format.md §4.8, behaviour.md §7.1): from a snapshot's manifest lists
// to the live data files, grouped into splits by (partition, bucket), with pruning.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/common/local_time.h"
#include "fjord/expr/predicate.h"
#include "fjord/file_io.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot.h"
#include "fjord/schema.h"
#include "fjord/value.h"

namespace fjord {

// A deletion vector of one data file: where its bitmap lives inside an index file.
struct DeletionFile {
  std::string index_path;
  int32_t offset = 0;
  int32_t length = 0;
  std::optional<int64_t> cardinality;
};

// The live files of one (partition, bucket) at one snapshot.
struct DataSplit {
  std::string partition;  // stored BinaryRow
  std::vector<Value> partition_values;
  int32_t bucket = 0;
  int32_t total_buckets = 0;
  std::string bucket_path;  // directory of the data files
  std::vector<DataFileMeta> files;
  std::map<std::string, DeletionFile> deletion_files;  // by data file name
  // The changes of one snapshot (a delta or changelog plan, Java's `isStreaming` splits): the
  // files are read one after another, unmerged, every record with its own row kind.
  bool streaming = false;
  // A streaming split of an OVERWRITE snapshot's changes (Java's readChanges): the files the
  // snapshot deleted, read merged with the row kinds reversed before `files` are read merged.
  std::vector<DataFileMeta> before_files;
  std::map<std::string, DeletionFile> before_deletion_files;
  bool overwrite_changes = false;
  // A split of an incremental diff (Java's IncrementalSplit of a batch read): `before_files` and
  // `files` are the two sides, each read merged with its retractions kept; keys whose merged
  // records differ come out as the after's record, keys only before as -D (diff_source.h). Of
  // an append table only `files` are read, as +I.
  bool diff = false;
};

// Which files of a snapshot a plan lists (Java's ScanMode).
enum class ScanKind : unsigned char {
  kAll,        // the live files (base and delta manifest lists)
  kDelta,      // the files the snapshot added (its delta manifest list), as streaming splits
  kChangelog,  // the snapshot's changelog files (changelog manifest list), as streaming splits
};

struct PlanOptions {
  ScanKind kind = ScanKind::kAll;
  // Only files of these levels (inclusive bounds); unset = all.
  std::optional<int32_t> min_level;
  std::optional<int32_t> max_level;
  // Only files created at or after this instant (Java's creationTimeEpochMillis).
  std::optional<int64_t> min_creation_millis;
  // kDelta only: also the files the snapshot deleted, as `before_files` of its splits, and the
  // deletion vectors of both sides (Java's SnapshotReader#readChanges, for OVERWRITE snapshots).
  bool changes = false;
};

struct ScanPlan {
  std::optional<Snapshot> snapshot;  // none for a table without snapshots
  std::vector<DataSplit> splits;
};

// Where to read from. At most one of the selectors is set; none means the latest snapshot.
struct ScanSelector {
  std::optional<int64_t> snapshot_id;
  std::optional<int64_t> timestamp_millis;
  std::optional<std::string> tag;
};

// When `file` was created, in epoch milliseconds (its stored local time placed in the process's
// time zone, as Java places it in the JVM's); 0 when the file does not say.
int64_t CreationEpochMillis(const DataFileMeta& file);

class TableScan {
 public:
  TableScan(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema)
      : io_(std::move(io)), root_(std::move(table_root)), schema_(std::move(schema)) {}

  // Resolves the selector to a snapshot (nullopt: no snapshot matches, an empty read).
  Result<std::optional<Snapshot>> ResolveSnapshot(const ScanSelector& selector) const;

  // Plans the live files of `snapshot`. `filter` (may be null) prunes partitions, buckets and
  // files by statistics; it never drops a file that could hold a matching row.
  Result<ScanPlan> Plan(const Snapshot& snapshot, const Predicate* filter = nullptr) const;
  // The same for the files `options` select: a delta or changelog plan holds the added files
  // of the snapshot's delta or changelog manifests, in manifest order, one streaming split per
  // (partition, bucket).
  Result<ScanPlan> Plan(const Snapshot& snapshot, const Predicate* filter,
                        const PlanOptions& options) const;

  // All live manifest entries of `snapshot`, folded (ADD minus DELETE), in manifest order.
  Result<std::vector<ManifestEntry>> LiveEntries(const Snapshot& snapshot,
                                                 const Predicate* partition_filter) const;
  // The deletion vectors of `snapshot`, by (partition, bucket) and data file name.
  Result<std::map<std::pair<std::string, int32_t>, std::map<std::string, DeletionFile>>>
  DeletionFiles(const Snapshot& snapshot) const;
  // The same over the manifest lists `kind` names; the DELETE entries left after folding go to
  // `deleted` when it is not null.
  Result<std::vector<ManifestEntry>> LiveEntries(
      const Snapshot& snapshot, const Predicate* partition_filter, ScanKind kind,
      std::vector<ManifestEntry>* deleted = nullptr) const;

 private:
  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
};

}  // namespace fjord
