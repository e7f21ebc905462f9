// Writing rows into an append (no primary key) table: rows are routed to (partition, bucket)
// exactly as Java routes them, each group is written as data files in the table's format with
// Java's statistics, and prepare-commit returns the commit messages for FileStoreCommit. In
// fixed-bucket tables prepare-commit also compacts small files, unless `write-only`
// (append_compact.h). Primary-key tables have their own writer (primary_key_write.h).
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/common/lanes.h"
#include "fjord/common/recycling_pool.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_compact.h"
#include "fjord/table/write/append_file_writer.h"
#include "fjord/table/write/bucket_count_check.h"
#include "fjord/table/write/pending_shares.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

struct AppendWriteOptions {
  // Java's ignorePreviousFiles, for overwrites: the files already in the table take no part in
  // compaction (they are about to be replaced) and their bucket count is not checked. Sequence
  // numbers still continue from them.
  bool ignore_previous_files = false;
  // Buckets written, finished and compacted at once on up to this many threads (0: one per
  // core). A bucket's rows keep their order whatever the number.
  int threads = 0;
};

class AppendTableWrite {
 public:
  // `table` must outlive the writer.
  static Result<std::unique_ptr<AppendTableWrite>> Create(const FileStoreTable* table,
                                                          AppendWriteOptions options = {});

  // Writes `rows` (the table's columns by name; +I rows only, from a `_row_kind` column if any)
  // into the data files of their buckets, rolled at target-file-size; a batch with a NULL in a
  // NOT NULL column or a row of another kind is refused whole. Not thread-safe. With several
  // threads the buckets' shares are written on background lanes after Write returns (the batch
  // is held until then); an error there (I/O) comes back from the next Write or PrepareCommit,
  // and the writer must then be discarded. Small batches are held (kPendingRows, kPendingBytes)
  // and written together with the next ones, or by PrepareCommit.
  Status Write(const std::shared_ptr<arrow::Table>& rows);

  // Batches are written once they hold this many rows or bytes together (or by PrepareCommit).
  static constexpr int64_t kPendingRows = PendingShares::kRows;
  static constexpr int64_t kPendingBytes = PendingShares::kBytes;
  // Closes the open data files and returns their commit messages. In fixed-bucket
  // tables, unless `write-only`, every bucket this writer has written to then runs the compaction
  // Java's writer would start (at most one per bucket and call), whose input and output files
  // are the message's compact increment. The writer assumes its messages get committed and can
  // be used again afterwards; after an error it must be discarded (files it wrote are left for
  // orphan clean-up).
  Result<std::vector<CommitMessage>> PrepareCommit();

  const AppendCompactMetrics& compact_metrics() const { return compact_metrics_; }

 private:
  AppendTableWrite(const FileStoreTable* table, AppendWriteOptions options)
      : table_(table), options_(options) {}
  Status LoadRestore();
  Result<int64_t> NextSequence(const std::string& partition, int32_t bucket);
  Result<std::string> BucketDir(const PartitionBucket& key) const;
  // The open writer of a bucket, created on first use.
  Result<RollingAppendFileWriter*> WriterFor(const PartitionBucket& key);
  // Writes (or queues on the lanes) the shares of the batches held.
  Status SubmitPending();
  // A bucket's compaction queue, created from its restored files on first use.
  Result<BucketCompactQueue*> QueueOf(const PartitionBucket& key);
  // Compacts one bucket (best effort) into `message`'s compact increment. Buckets may be
  // compacted at once.
  Status Compact(const PartitionBucket& key, BucketCompactQueue& queue,
                 const std::string& bucket_dir, std::vector<DataFileMeta> new_files,
                 DataFileNamer* namer, CommitMessage* message);

  const FileStoreTable* table_;
  AppendWriteOptions options_;
  bool compaction_ = false;  // fixed buckets, not write-only, supported
  AppendCompactOptions compact_options_;
  // Compaction queues of the buckets written to, created from the restored files.
  std::map<PartitionBucket, BucketCompactQueue> queues_;
  std::map<PartitionBucket, std::vector<DataFileMeta>> restored_files_;
  AppendCompactMetrics compact_metrics_;
  // The buckets' shares, held in their open row groups, and the Parquet encoders'
  // memory: kept for the next row groups (and commits) instead of fresh pages each time, as the
  // upsert writer's buffer pool (recycling_pool.h). Declared before the writers that use it.
  RecyclingPool::Handle share_pool_ = RecyclingPool::Make();
  AppendFileSettings settings_;
  std::unique_ptr<DataFileNamer> namer_;
  int32_t total_buckets_ = -1;
  std::string default_partition_;
  std::vector<DataField> partition_fields_;
  std::vector<DataTypePtr> partition_types_;
  // (stored partition row, bucket) -> its open rolling writer; unfinished ones delete their
  // files when destroyed (a writer discarded after an error leaves nothing behind).
  std::map<PartitionBucket, std::unique_ptr<RollingAppendFileWriter>> writers_;
  int64_t writers_opened_ = 0;              // over the writer's life, for StaggeredFirstBlockSize
  std::unique_ptr<ThreadPool> foreground_;  // helps the caller with several buckets
  std::mutex metrics_mu_;                   // compact_metrics_, updated by parallel compactions
  std::map<std::pair<std::string, int32_t>, int64_t> next_sequence_;
  // Whether a bucket that already holds files must have been written with `total_buckets_`
  // (Java checks unless the writer ignores previous files: overwrites, and write-only writers
  // of tables with `bucket-append-ordered` = false), and the check.
  bool check_bucket_count_ = false;
  std::unique_ptr<BucketCountCheck> bucket_count_;
  bool restore_loaded_ = false;
  // Batches written but not yet handed to the buckets' writers, each bucket's rows of them.
  PendingShares pending_;
  // Threads > 1: the buckets' shares of each batch, written in the background (last: its tasks
  // use the writers above, so it stops first).
  std::unique_ptr<Lanes> lanes_;
};

}  // namespace fjord
