// Bucket assignment for dynamic-bucket primary-key tables (`bucket = -1`, spec/format.md §6.2 and
// §9.1, behaviour.md "Dynamic bucket"), as Java's HashBucketAssigner does with one assigner (a
// Flink job with assigner parallelism 1, the only kind a single Fjord writer can be) together
// with the writers' DynamicBucketIndexMaintainer:
//  * per partition, at its first use, the HASH index files of the latest snapshot are loaded into
//    a key hash -> bucket map and per-bucket key counts;
//  * a key hash seen before keeps its bucket (a key is never in two buckets);
//  * a new key goes to the lowest-numbered bucket still holding fewer than
//    `dynamic-bucket.target-row-num` keys (Java walks a HashMap of small integer keys, which is
//    ascending order; full buckets stop being candidates), else to a new bucket: the smallest id
//    not in use, below `dynamic-bucket.max-buckets` (-1: below 32767). With every id under the
//    cap taken, a random existing bucket; with no cap and none left, an error.
//    `dynamic-bucket.initial-buckets` only limits how many assigners a Flink job runs, so with
//    one assigner it changes nothing.
//  * PrepareCommit writes, for every bucket that received new keys, a new HASH index file with
//    all of that bucket's key hashes (the previous file's and the new ones), and reports the file
//    it replaces.
// One writer at a time: like Java, the assigner assumes no other job writes the table while it
// runs (a concurrent writer could put a new key into another bucket).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

struct DynamicBucketOptions {
  int64_t target_row_num = 2'000'000;  // dynamic-bucket.target-row-num, >= 1
  int32_t max_buckets = -1;            // dynamic-bucket.max-buckets, -1 or >= 1

  // Invalid for values out of range.
  static Result<DynamicBucketOptions> FromOptions(const CoreOptions& options);
};

// One bucket's new hash index file and the one it replaces (none for a new bucket).
struct HashIndexChange {
  std::string partition;  // stored BinaryRow
  int32_t bucket = 0;
  IndexManifestEntry new_file;
  std::optional<IndexManifestEntry> old_file;
};

// Adds each change to the message of its (partition, bucket), appending one when there is none:
// the new file as a new index file, the file it replaces as a deleted one (Java sends only the
// new file and lets the index manifest replace the slot; naming the old one too makes the
// replacement explicit and changes nothing else).
void AddHashIndexChanges(const std::vector<HashIndexChange>& changes, int32_t total_buckets,
                         std::vector<CommitMessage>* messages);

class DynamicBucketAssigner : public BucketAssigner {
 public:
  // Reads index manifests and index files of the table at `table_root` through `io`;
  // `manifest_format` is the table's `manifest.format`.
  DynamicBucketAssigner(std::shared_ptr<FileIO> io, std::string table_root,
                        std::string manifest_format, DynamicBucketOptions options);
  ~DynamicBucketAssigner() override;

  Status AssignBuckets(const std::vector<std::string>& partitions,
                       const std::vector<int32_t>& row_partition,
                       std::vector<int32_t>* buckets) override;
  // The bucket of one key hash in `partition` (stored BinaryRow).
  Result<int32_t> Assign(const std::string& partition, int32_t key_hash);

  // Writes the index files of the buckets that received new keys since the last call, in
  // (partition, bucket) order. Afterwards the new files are the buckets' current ones.
  Result<std::vector<HashIndexChange>> PrepareCommit();

  // For tests and logs: buckets and keys known in `partition` (loading it if needed).
  Result<std::map<int32_t, int64_t>> BucketKeyCounts(const std::string& partition);

 private:
  struct PartitionIndex;
  Result<PartitionIndex*> IndexOf(const std::string& partition);
  Result<int32_t> AssignIn(PartitionIndex& index, int32_t key_hash);
  // The HASH entries of the latest snapshot, by partition (re-read when a newer one exists).
  Status RefreshIndexManifest();

  std::shared_ptr<FileIO> io_;
  SnapshotManager snapshots_;
  std::string manifest_format_;
  DynamicBucketOptions options_;
  std::string file_uuid_;
  int64_t file_counter_ = 0;
  std::mt19937 random_;
  std::optional<int64_t> manifest_snapshot_;  // snapshot whose index manifest is cached
  std::map<std::string, std::vector<IndexManifestEntry>> snapshot_files_;
  std::map<std::string, std::unique_ptr<PartitionIndex>> partitions_;
};

}  // namespace fjord
