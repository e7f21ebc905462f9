// Writing into a primary-key table with fixed buckets (behaviour.md §1): rows get their kind
// (write_input.h), are routed to one writer per (partition, bucket), numbered with sequence
// numbers that continue from the bucket's files, and buffered in a SortBuffer. All buffers share
// one memory budget, `write-buffer-size`: when it is exceeded the largest buffer spills a sorted
// run to local disk (`write-buffer-spillable`, default true) or, when spilling is off, is flushed
// into level-0 files. PrepareCommit flushes every buffer — merging its runs with the table's
// merge function — into level-0 data files rolled at `target-file-size`, then (unless
// `write-only`) runs the compaction Java's picker chooses for the bucket (behaviour.md §2,
// lsm/compact_strategy.h), and returns one commit message per (partition, bucket) with the new
// files and the compaction's before/after files. `full-compaction.delta-commits` schedules full
// compactions by commit identifier (table/full_compaction_trigger.h). Tables whose merge needs
// lookup (first-row, deletion vectors, `changelog-producer` = lookup, `force-lookup`) compact
// with Java's lookup compaction and prepare-commit waits for it (`lookup-wait`). Changelog:
// `input` writes each flush's records to level-0 changelog files (the data increment);
// `full-compaction` has every compaction into the max level write the changes it makes
// (lsm/full_changelog.h) to changelog files of the compact increment, `lookup` every
// compaction of level-0 files. Buckets work in parallel (TableWriteOptions::threads): sorting
// the records of one Write, flushing at PrepareCommit, and compacting.
//
// Dynamic-bucket tables (`bucket = -1`, all partition keys in the primary key): a
// DynamicBucketAssigner (dynamic_bucket.h) picks each key's bucket from the table's hash index,
// and PrepareCommit also writes the hash index files of the buckets that got new keys; commit
// messages then carry `_TOTAL_BUCKETS` -1, as Java writes it. A Write that fails after routing
// may leave its keys in the index (they then only count towards their bucket's size).
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/common/lanes.h"
#include "fjord/common/recycling_pool.h"
#include "fjord/lsm/compact_strategy.h"
#include "fjord/lsm/compact_task.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/lsm/levels.h"
#include "fjord/lsm/lookup_levels.h"
#include "fjord/lsm/universal_compaction.h"
#include "fjord/lsm/write_buffer.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/index_file_namer.h"
#include "fjord/meta/snapshot.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/bucket_count_check.h"
#include "fjord/table/write/compaction_metrics.h"
#include "fjord/table/write/dynamic_bucket.h"
#include "fjord/table/write/full_compaction_trigger.h"
#include "fjord/table/write/pending_shares.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

struct TableWriteOptions {
  // Local directory for spill files; empty = a fresh folder under the system temp directory.
  std::string spill_dir;
  // Options that override the table's for this write only (dynamic options).
  std::map<std::string, std::string> dynamic_options;
  // The rows will be committed as an overwrite: the files already in the table are neither
  // restored (sequence numbers start at 0, nothing of them is compacted) nor checked against the
  // bucket count, as Java's writer withIgnorePreviousFiles.
  bool ignore_previous_files = false;
  // Dynamic-bucket tables: buckets come from this assigner, shared with the caller, who assigned
  // every key before handing the rows over (so the writer only looks them up) and writes the
  // hash index files itself (`fjord run`: one assigner for all writer threads, as a Flink job
  // with one assigner). Without it the writer assigns and writes the index itself.
  std::shared_ptr<BucketAssigner> assigner;
  // Threads: buckets sort their records, flush and compact at once on up to this many (0: one
  // per core; 1: sorting and flushing on the caller, compaction on one background thread, as
  // Java's writer). A bucket's records keep their order whatever the number.
  int threads = 0;
};

struct TableWriteMetrics {
  int64_t records_written = 0;  // accepted by Write
  int64_t records_dropped = 0;  // by ignore-delete / ignore-update-before
  int64_t spills = 0;
  int64_t spilled_bytes = 0;
  int64_t buffer_flushes = 0;  // buffers flushed early because they could not spill
  int64_t files_written = 0;
  int64_t peak_buffer_bytes = 0;
  int64_t compactions = 0;
  int64_t compaction_bytes_in = 0;   // bytes of files rewritten
  int64_t compaction_bytes_out = 0;  // bytes of files written by compaction
  int64_t compaction_millis = 0;
  int64_t compaction_waits = 0;        // times a flush or prepare-commit waited for a compaction
  int64_t compaction_wait_millis = 0;  // and how long, in all
};

class PrimaryKeyTableWrite {
 public:
  // `table` must outlive the writer. NotImplemented for postponed-bucket tables and for
  // dynamic-bucket tables whose primary key lacks a partition key (cross-partition upsert);
  // Invalid for first-row tables with deletion vectors (as Java).
  static Result<std::unique_ptr<PrimaryKeyTableWrite>> Create(const FileStoreTable* table,
                                                              TableWriteOptions options = {});
  ~PrimaryKeyTableWrite();

  // Buffers `rows` (write_input.h); `kinds` optionally gives each row's kind. A refused batch
  // (bad input) keeps nothing of `rows`. Not thread-safe. With several threads small batches are
  // held (PendingShares::kRows, kBytes) and handed over with the next ones, or by PrepareCommit;
  // each bucket's share is buffered on a background lane after Write returns (rows keep their
  // order per bucket); an error there (a spill's I/O) comes back from the next Write or
  // PrepareCommit, and the writer must then be discarded.
  Status Write(const std::shared_ptr<arrow::Table>& rows, const std::vector<int8_t>& kinds = {});
  // Flushes every buffer into data files and returns their commit messages, with the results of
  // the compactions finished so far. `wait_compaction` waits for running compactions first (batch
  // writes and checkpoints that must see them, as Java's prepareCommit(true)); without it a
  // compaction still running is picked up by a later PrepareCommit, unless `commit.force-compact`
  // or more than num-sorted-run.stop-trigger + 1 sorted runs make it wait; tables that need lookup
  // (first-row) wait unless `lookup-wait` = false. `commit_identifier` is the identifier the
  // messages will be committed with (a checkpoint id; the batch identifier by default): with
  // `full-compaction.delta-commits`, it decides whether the written buckets are fully compacted.
  Result<std::vector<CommitMessage>> PrepareCommit(
      bool wait_compaction = true, int64_t commit_identifier = Snapshot::kBatchCommitIdentifier);

  // Dedicated compaction (`fjord compact`): the (partition, bucket)s holding files in the latest
  // snapshot, and compacting one of them now — universal picking, or every file into the max
  // level when `full`. The results come out of the next PrepareCommit.
  Result<std::vector<PartitionBucket>> LiveBuckets();
  Status CompactBucket(const PartitionBucket& bucket, bool full);
  // The same for several buckets, their compactions running at once on the writer's threads.
  Status CompactBuckets(const std::vector<PartitionBucket>& buckets, bool full);

  const TableWriteMetrics& metrics() const { return metrics_; }
  // Compaction metrics of every bucket this writer holds: the tree as the writer sees it
  // (committed files, new files, finished compactions) and its compactions so far. Not
  // thread-safe (call between other calls).
  std::map<PartitionBucket, BucketCompactionMetrics> BucketMetrics() const;

 private:
  struct BucketWriter;
  explicit PrimaryKeyTableWrite(const FileStoreTable* table);
  Result<BucketWriter*> WriterFor(const PartitionBucket& key);
  Status LoadRestoreInfo();
  Status EnforceMemoryBudget();
  // Threads > 1: the budget kept by spills taken out on the largest buffers' lanes and written
  // beside them (the caller waits at 1.5x the budget for one to end), or, without spilling, by
  // flushes once the lanes are drained.
  Status QueueSpills();
  // Queues the spill of `writer`'s buffer on its lane (its spill_queued set by the caller).
  Status QueueSpill(BucketWriter& writer);
  // Wakes the caller waiting in QueueSpills (a spill ended).
  void SpillEnded();
  Status SpillBuffer(BucketWriter& writer);
  // A bucket's share of rows, `rows`, with its sequence numbers (from `first_sequence`) and
  // kinds (`kinds`: one per row of `rows`).
  Result<std::shared_ptr<arrow::RecordBatch>> BucketRecords(
      const std::shared_ptr<arrow::RecordBatch>& rows, const int8_t* kinds,
      int64_t first_sequence) const;
  // Threads > 1: the held batches dealt out to their buckets' lanes (PendingShares), then the
  // budget kept (QueueSpills).
  Status SubmitPending();
  // Threads > 1: the held batches submitted and every lane's work done.
  Status DrainLanes();
  struct Unqueue;
  // `read_ahead`: spill files read ahead on threads of their own (SortBuffer::TakeRuns).
  Result<std::vector<DataFileMeta>> Flush(BucketWriter& writer, bool read_ahead = false);
  // Compaction runs on a pool of background threads shared by all buckets, one at a time per
  // bucket.
  // Trigger picks a unit (universal, or everything when `full`) and submits it; Collect applies a
  // finished one (waiting for it when `block`).
  Status TriggerCompaction(BucketWriter& writer, bool full);
  Status CollectCompaction(BucketWriter& writer, bool block);
  // New level-0 files: register them, collect the running compaction (waiting when `wait` or by
  // the stall rule), trigger the next one (everything when `full`), as Java's flushWriteBuffer.
  Status AfterFlush(BucketWriter& writer, const std::vector<DataFileMeta>& files, bool wait = false,
                    bool full = false);
  // Java's writer compact(full): flush the bucket's buffer, wait, start a full compaction.
  Status FullCompactInWriter(const PartitionBucket& bucket);
  // Deletion vectors: the full compaction of a bucket already in one max-level run.
  std::optional<CompactUnit> PickVectorRewrite(BucketWriter& writer,
                                               const std::vector<LevelSortedRun>& runs);
  // Tables whose merge needs lookup (but first-row): the lookup compaction's context.
  Status SetUpLookup(BucketWriter& writer, CompactContext* ctx);
  Status EnsureLookupCache();
  void DeleteIndexFile(const IndexFileMeta& file);

  const FileStoreTable* table_;
  TableSchema schema_;               // with dynamic options applied
  std::optional<CoreOptions> core_;  // schema_'s options, parsed once
  KvLayout layout_;
  std::unique_ptr<RowRouter> router_;
  std::unique_ptr<DynamicBucketAssigner> assigner_;  // dynamic-bucket tables only
  std::shared_ptr<BucketAssigner> shared_assigner_;  // TableWriteOptions::assigner
  // The buffers' sorted chunks, the flushes' merged batches and spill files read back: kept from
  // commit to commit instead of fresh pages each time (recycling_pool.h).
  RecyclingPool::Handle buffer_pool_;
  SpillOptions spill_options_;
  bool own_spill_dir_ = false;
  int64_t buffer_limit_ = 0;
  bool spillable_ = true;
  std::map<PartitionBucket, std::unique_ptr<BucketWriter>> writers_;
  bool restore_loaded_ = false;
  bool ignore_previous_files_ = false;
  std::map<PartitionBucket, int64_t> restored_next_sequence_;
  std::unique_ptr<BucketCountCheck> bucket_count_;  // unless ignore_previous_files_
  std::map<PartitionBucket, std::vector<DataFileMeta>> restored_files_;
  // Deletion-vector tables: each bucket's index files in the latest snapshot, and the namer of
  // new ones.
  std::map<PartitionBucket, std::vector<IndexFileMeta>> restored_deletion_index_;
  IndexFileNamer index_namer_;
  std::shared_ptr<LookupCache> lookup_cache_;  // the process's cache, once a lookup is needed
  UniversalCompactionOptions compaction_;
  CompactStrategyOptions strategy_options_;
  LookupNeeds lookup_;
  bool lookup_wait_ = false;  // prepare-commit waits for compaction (lookup tables)
  bool ignore_delete_ = false;
  std::optional<FullCompactionTrigger> full_trigger_;
  // changelog-producer = full-compaction: compactions into the max level write changelog.
  std::optional<FullChangelogOptions> full_changelog_;
  bool write_only_ = false;
  bool force_compact_ = false;
  int64_t compaction_file_size_ = 0;
  // The memory of the compactions' reads: their batches' pages serve the next batches (arenas
  // per thread: each compaction reads and frees on its own thread); handed back to the system
  // whenever no compaction is left running (compactions_running_).
  std::shared_ptr<RecyclingPool> compact_read_pool_;
  std::atomic<int> compactions_running_{0};  // submitted and not collected yet
  // Reads files for compaction (thread-safe).
  std::unique_ptr<KvFileReaderFactory> readers_;
  int threads_ = 1;
  std::unique_ptr<ThreadPool> executor_;  // compactions
  // Within CompactBuckets of several buckets (the caller waits for the compactions): a
  // compaction's files encode their columns at once while executor_ has threads idle, the other
  // buckets done (CompactContext::spare_threads). Not for one bucket alone: a row group encoded
  // at once holds all its columns' pages beside its rows (a 1-bucket full compaction on 2
  // threads: peak RSS 340 -> 580 MB for 8% less wall time).
  std::atomic<bool> compacting_buckets_{false};
  std::unique_ptr<ThreadPool> foreground_;  // helps the caller sort and flush (threads_ > 1)
  std::mutex metrics_mu_;                   // metrics_ updated by parallel flushes
  std::mutex spill_mu_;                     // with spill_done_: a spill of the lanes ended
  std::condition_variable spill_done_;
  TableWriteMetrics metrics_;
  // Threads > 1: batches written but not yet handed to the buckets' lanes, each bucket's rows of
  // them, and each batch's row kinds.
  PendingShares pending_;
  std::vector<std::vector<int8_t>> pending_kinds_;
  // Threads > 1: each bucket's buffering, in the background (last: its tasks use the above).
  std::unique_ptr<Lanes> lanes_;
};

}  // namespace fjord
