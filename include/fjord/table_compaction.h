// A dedicated compaction of a table (Paimon's compact action), for tables written with
// `write-only = true` or to force a full compaction. Primary-key tables: each bucket with files
// is compacted as Java's writer would (universal picking), or with `full` every file of the
// bucket into the highest level. Append tables: small files rewritten into larger ones, per
// bucket with fixed buckets, per partition when bucket-unaware. The result is committed as a
// COMPACT snapshot, checked for conflicts, so it may run while writers commit.
//
// Thread safety: not thread-safe; one compaction per thread.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fjord/partition.h"
#include "fjord/result.h"

namespace fjord {

struct CompactionOptions {
  // Only the partitions matching this (some or all partition columns); empty = every partition.
  PartitionSpec partition;
  // Full compaction: primary keys, every file of each bucket into the highest level; fixed-bucket
  // append tables, Java's full compaction; bucket-unaware append tables, also partitions with
  // fewer than compaction.min.file-num small files (at least two).
  bool full = false;
  // Options overriding the table's for this job.
  std::map<std::string, std::string> dynamic_options;
  // Buckets (append tables without buckets: rewrite tasks) compacted at once (0: one per core).
  int threads = 0;
};

struct CompactionResult {
  int64_t units_scanned = 0;  // buckets (fixed buckets) or partitions (bucket-unaware) looked at
  bool buckets = true;        // whether units are buckets (false: partitions)
  int64_t units_compacted = 0;
  int64_t compactions = 0;
  int64_t files_in = 0;
  int64_t files_out = 0;
  int64_t bytes_in = 0;
  int64_t bytes_out = 0;
  std::optional<int64_t> snapshot_id;  // the COMPACT snapshot; nullopt if nothing was compacted
};

class TableCompaction {
 public:
  virtual ~TableCompaction() = default;
  // Compacts and commits (as a fresh commit user). A partition spec naming a column that is not a
  // partition column is Invalid; a spec that matches no files is NotFound. A conflict with a
  // concurrent compaction is Status::Conflict and nothing is committed. Then the post-commit
  // maintenance the table's options ask for (snapshot and partition expiration, tags), also when
  // the table is `write-only`: its writers leave that to this job, as to Java's compact action.
  virtual Result<CompactionResult> Run() = 0;
};

}  // namespace fjord
