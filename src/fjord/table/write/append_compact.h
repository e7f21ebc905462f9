// Small-file compaction of append (no primary key) tables, as Java Paimon 1.4 does it
// (behaviour.md §2.8):
//  * fixed-bucket tables compact in the writer (BucketedAppendCompactManager): each bucket keeps
//    its files in a queue ordered by sequence number, and a sliding window over that queue picks
//    `compaction.min.file-num` consecutive files, dropping the oldest file of the window while
//    the window holds 2 x `target-file-size` or more. The picked files are rewritten in sequence
//    order into files rolled at target-file-size, the rows numbered from the first file's
//    minimum sequence number on, so the output covers the same contiguous sequence range;
//  * bucket-unaware tables (`bucket = -1`) are compacted by a dedicated job
//    (AppendCompactCoordinator): the files smaller than 70 % of target-file-size are collected per
//    partition, sorted by size and packed into bins that are compacted once they hold more than one
//    file and 2 x target-file-size (counting `source.split.open-file-cost` per file); a remainder
//    of at least `compaction.min.file-num` files is compacted too, and a partition whose files
//    stay unpacked for more than 5 planning rounds has them all compacted anyway.
// Version differences (Java): 1.0 compacted a bucket's window once it reached target-file-size
// with min.file-num files, or `compaction.max.file-num` (default 5 bucketed, 50 unaware) files
// whatever their size; 1.1 dropped max.file-num; 1.4 moved the window limit to 2 x target and
// the "small file" limits (requeue, full compaction) from target to 70 % of target. Fjord follows
// 1.4 and ignores `compaction.max.file-num`.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/meta/manifest.h"
#include "fjord/options.h"
#include "fjord/schema.h"
#include "fjord/table/commit/commit.h"

namespace fjord {

class FileStoreTable;
class KvFileReaderFactory;

struct AppendCompactOptions {
  int32_t min_file_num = 5;                             // compaction.min.file-num
  int64_t target_file_size = int64_t{256} << 20;        // target-file-size (append default)
  int64_t compaction_file_size = (256 << 20) / 10 * 7;  // files below this are "small"
  bool force_rewrite_all_files = false;                 // compaction.force-rewrite-all-files
  int64_t open_file_cost = int64_t{4} << 20;            // source.split.open-file-cost
  int32_t file_num_limit = 100000;                      // compaction.file-num-limit
  bool write_only = false;                              // write-only (write.compaction-skip)

  // Invalid when compaction.min.file-num or compaction.file-num-limit is below 1.
  static Result<AppendCompactOptions> FromOptions(const CoreOptions& options);
};

// NotImplemented when the table has a feature whose compaction Fjord does not do (deletion
// vectors, incremental clustering, data evolution, row tracking): those need index files or row
// ids rewritten too.
Status CheckAppendCompactionSupported(const CoreOptions& options);

// The files of one bucket of a fixed-bucket append table waiting for compaction: Java's
// BucketedAppendCompactManager, without its executor (the caller runs what is picked).
class BucketCompactQueue {
 public:
  BucketCompactQueue(AppendCompactOptions options, std::vector<DataFileMeta> restored);

  void Add(DataFileMeta file);
  // Java's pickCompactBefore: files in sequence order enter a window; as soon as it holds
  // min_file_num files they are picked (and leave the queue); while it holds 2 x target_file_size
  // or more its oldest file drops out of the window and of the queue (Java's queue forgets it
  // until the writer restarts). nullopt: nothing to compact yet.
  std::optional<std::vector<DataFileMeta>> PickBestEffort();
  // Java's full compaction (triggerFullCompaction + FullCompactTask): needs at least 3 queued
  // files; leading files (in sequence order) of at least compaction_file_size are skipped; the
  // rest is picked when small files outnumber big ones and at least 3 remain. With
  // force_rewrite_all_files every queued file is picked. Picked or not, the queue is emptied, as
  // Java's is (a full compaction is the end of a dedicated job). Empty: nothing to do.
  std::vector<DataFileMeta> PickFull();
  // After a compaction: the last output file goes back into the queue when it is still small
  // (< compaction_file_size), as Java requeues it.
  void Compacted(const std::vector<DataFileMeta>& after);

  // Queued files in sequence order.
  const std::vector<DataFileMeta>& files() const { return files_; }

 private:
  AppendCompactOptions options_;
  std::vector<DataFileMeta> files_;  // ordered by min_sequence_number (stable)
};

struct AppendCompactMetrics {
  int64_t scanned = 0;  // buckets (fixed) or partitions (bucket-unaware) looked at
  int64_t compactions = 0;
  int64_t files_in = 0;
  int64_t files_out = 0;
  int64_t bytes_in = 0;   // bytes of the files rewritten
  int64_t bytes_out = 0;  // bytes of the files written
  int64_t millis = 0;
};

// Rewrites files of one (partition, bucket) of an append table into new files in the table's
// current schema (older files evolved), rolled at target-file-size, with file source COMPACT.
class AppendCompactRewriter {
 public:
  // `schema`: the schema to write (the table's, with any dynamic options), `options` its parsed
  // options. `namer` names the new files and must outlive the rewriter.
  AppendCompactRewriter(std::shared_ptr<FileIO> io, std::string table_root, TableSchema schema,
                        CoreOptions options, DataFileNamer* namer);
  ~AppendCompactRewriter();

  // Reads `files` one after another, in the given order, and writes their rows in that order,
  // numbered from files[0].min_sequence_number on (Java's compactRewrite). On error every file
  // written is deleted and nothing is returned.
  Result<std::vector<DataFileMeta>> Rewrite(const std::string& partition, int32_t bucket,
                                            const std::vector<DataFileMeta>& files);

  const AppendCompactMetrics& metrics() const { return metrics_; }

 private:
  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
  CoreOptions options_;
  DataFileNamer* namer_;
  std::unique_ptr<KvFileReaderFactory> readers_;
  AppendCompactMetrics metrics_;
};

}  // namespace fjord
