// Batch scan planning (spec/format.md §4.8, behaviour.md §7.1): from a snapshot's manifest lists
// to the live data files, grouped into splits by (partition, bucket), with pruning.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

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

class TableScan {
 public:
  TableScan(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema)
      : io_(std::move(io)), root_(std::move(table_root)), schema_(std::move(schema)) {}

  // Resolves the selector to a snapshot (nullopt: no snapshot matches, an empty read).
  Result<std::optional<Snapshot>> ResolveSnapshot(const ScanSelector& selector) const;

  // Plans the live files of `snapshot`. `filter` (may be null) prunes partitions, buckets and
  // files by statistics; it never drops a file that could hold a matching row.
  Result<ScanPlan> Plan(const Snapshot& snapshot, const Predicate* filter = nullptr) const;

  // All live manifest entries of `snapshot`, folded (ADD minus DELETE), in manifest order.
  Result<std::vector<ManifestEntry>> LiveEntries(const Snapshot& snapshot,
                                                 const Predicate* partition_filter) const;

 private:
  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
};

}  // namespace fjord
