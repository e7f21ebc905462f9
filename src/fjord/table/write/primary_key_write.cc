#include "fjord/table/write/primary_key_write.h"

#include <arrow/api.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <future>
#include <set>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/gather_rows.h"
#include "fjord/lsm/compact_task.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/lookup_levels.h"
#include "fjord/meta/deletion_vector_index.h"
#include "fjord/meta/partition_path.h"
#include "fjord/options.h"
#include "fjord/table/write/bucket_count_check.h"
#include "fjord/table/write/write_input.h"

namespace fjord {

struct PrimaryKeyTableWrite::BucketWriter {
  BucketWriter(KvLayout layout, SpillOptions spill, std::string dir, std::string prefix,
               std::string changelog_prefix, const std::string& extension)
      : buffer(std::move(layout), std::move(spill)),
        bucket_dir(std::move(dir)),
        namer(std::move(prefix), extension),
        changelog_namer(namer.WithPrefix(std::move(changelog_prefix))) {}

  SortBuffer buffer;
  std::string bucket_dir;
  DataFileNamer namer;
  DataFileNamer changelog_namer;  // shares namer's uuid and counter, as Java's path factory
  int64_t next_sequence = 0;
  // With lanes (threads > 1): the buffer's memory as its lane last left it, the memory of its
  // spill being written, and whether a spill of it is queued or being written (the caller reads
  // them while the lane works).
  std::atomic<int64_t> buffered_bytes{0};
  std::atomic<int64_t> spilling_bytes{0};
  // And the bytes of the shares handed to its lane but not buffered yet (their batches' bytes,
  // in proportion to their rows).
  std::atomic<int64_t> queued_bytes{0};
  std::atomic<bool> spill_queued{false};
  std::vector<DataFileMeta> flushed;    // files of early flushes, not yet committed
  std::vector<DataFileMeta> changelog;  // their changelog files (changelog-producer = input)
  std::optional<Levels> levels;         // the bucket's LSM tree: committed files + new ones
  std::vector<DataFileMeta> compact_before;
  std::vector<DataFileMeta> compact_after;
  std::vector<DataFileMeta> compact_changelog;  // changelog of full compactions (full-compaction)
  std::future<Result<CompactResult>> running;   // valid while a compaction is in flight
  std::optional<CompactStrategy> strategy;      // the bucket's picker (keeps state)
  int32_t running_output_level = 0;
  BucketCompactionMetrics metrics;  // compaction counters (the tree shape is filled on demand)
  // Tables that need lookup: the lookups of the lookup compaction (first-row: existence only), and
  // with deletion vectors the bucket's vectors (used by the compaction thread while one runs)
  // and the index file of the last compaction that changed them, not yet committed.
  std::unique_ptr<LookupLevels> lookup_levels;
  std::optional<BucketDeletionVectors> deletion_vectors;
  std::optional<IndexFileMeta> deletion_index;
};

namespace {

// Java's table validation of lookup tables.
Status CheckLookupSupported(const LookupNeeds& lookup, const CoreOptions& core) {
  if (lookup.deletion_vectors && core.merge_engine() == MergeEngine::kFirstRow) {
    return Status::Invalid(
        "merge-engine 'first-row' does not take 'deletion-vectors.enabled' = true (as Java "
        "Paimon: first-row never deletes old data)");
  }
  return Status::OK();
}

// What the lookup compaction needs from the levels above (Java's persist processors): positions
// alone for deletion vectors of a deduplicate table without sequence.field, else the record.
LookupPayload PayloadOf(const LookupNeeds& lookup, const CoreOptions& core) {
  if (!lookup.deletion_vectors) return LookupPayload::kRecord;
  if (!lookup.produce_changelog && core.merge_engine() == MergeEngine::kDeduplicate &&
      core.sequence_fields().empty()) {
    return LookupPayload::kPosition;
  }
  return LookupPayload::kRecordAndPosition;
}

// A sorted run that hands each batch of `records` to `copy` as well (the input changelog).
class TeeRunReader : public KvRunReader {
 public:
  TeeRunReader(std::unique_ptr<KvMergeReader> records, KvFileWriter* copy)
      : records_(std::move(records)), copy_(copy) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    FJORD_ASSIGN_OR_RAISE(auto batch, records_->Next());
    if (batch) FJORD_RETURN_NOT_OK(copy_->Write(batch));
    return batch;
  }

 private:
  std::unique_ptr<KvMergeReader> records_;
  KvFileWriter* copy_;
};

std::unique_ptr<KvRunReader> TeeRun(std::unique_ptr<KvMergeReader> records, KvFileWriter* copy) {
  return std::make_unique<TeeRunReader>(std::move(records), copy);
}

// The row kinds of a share's rows, from each held batch's kinds.
std::vector<int8_t> KindsOf(const std::vector<RowRef>& refs,
                            const std::vector<std::vector<int8_t>>& kinds) {
  std::vector<int8_t> out(refs.size());
  for (size_t i = 0; i < refs.size(); ++i) {
    out[i] = kinds[static_cast<size_t>(refs[i].source)][static_cast<size_t>(refs[i].row)];
  }
  return out;
}

// Java's prepareCommitWaitCompaction: lookup tables wait unless lookup-wait (or its old name
// changelog-producer.lookup-wait) is false.
bool LookupWait(const LookupNeeds& lookup, const CoreOptions& core) {
  return lookup.needed() && core.lookup_wait();
}

}  // namespace

PrimaryKeyTableWrite::PrimaryKeyTableWrite(const FileStoreTable* table) : table_(table) {}

PrimaryKeyTableWrite::~PrimaryKeyTableWrite() {
  // Buffering and spills still queued end first (their tasks use the members below).
  if (lanes_) (void)lanes_->Drain();
  lanes_.reset();
  // Let a running compaction finish; outputs never handed to a commit are deleted (an upgraded
  // file keeps its name and is not deleted).
  executor_.reset();
  for (auto& [key, w] : writers_) {
    if (!w->running.valid()) continue;
    Result<CompactResult> done = w->running.get();
    if (!done.ok()) continue;
    for (const DataFileMeta& f : done->after) {
      bool upgrade = std::any_of(done->before.begin(), done->before.end(),
                                 [&](const DataFileMeta& b) { return b.file_name == f.file_name; });
      if (!upgrade) (void)table_->io()->Delete(JoinPath(w->bucket_dir, f.file_name));
    }
    for (const DataFileMeta& f : done->changelog) {
      (void)table_->io()->Delete(JoinPath(w->bucket_dir, f.file_name));
    }
    if (done->deletion_index) DeleteIndexFile(*done->deletion_index);
  }
  // What was written since the last PrepareCommit and never handed to a commit goes too (as
  // Java's MergeTreeWriter#close): flushed files and their changelog, and compaction outputs
  // unless they are upgrades of committed files (same name as a file the compactions removed).
  for (auto& [key, w] : writers_) {
    std::set<std::string> removed;
    for (const DataFileMeta& f : w->compact_before) removed.insert(f.file_name);
    std::set<std::string> doomed;
    for (const DataFileMeta& f : w->flushed) doomed.insert(f.file_name);
    for (const DataFileMeta& f : w->changelog) doomed.insert(f.file_name);
    for (const DataFileMeta& f : w->compact_changelog) doomed.insert(f.file_name);
    for (const DataFileMeta& f : w->compact_after) {
      if (removed.count(f.file_name) == 0) doomed.insert(f.file_name);
    }
    for (const std::string& name : doomed)
      (void)table_->io()->Delete(JoinPath(w->bucket_dir, name));
    if (w->deletion_index) DeleteIndexFile(*w->deletion_index);
  }
  writers_.clear();
  if (own_spill_dir_) {
    std::error_code ec;
    std::filesystem::remove_all(spill_options_.spill_dir, ec);
  }
}

Result<std::unique_ptr<PrimaryKeyTableWrite>> PrimaryKeyTableWrite::Create(
    const FileStoreTable* table, TableWriteOptions options) {
  if (table->schema().primary_keys.empty()) {
    return Status::Invalid(table->path(), " has no primary key; use an append-table write");
  }
  std::unique_ptr<PrimaryKeyTableWrite> w(new PrimaryKeyTableWrite(table));
  w->schema_ = table->schema();
  for (const auto& [key, value] : options.dynamic_options) {
    bool replaced = false;
    for (auto& [k, v] : w->schema_.options) {
      if (k == key) {
        v = value;
        replaced = true;
      }
    }
    if (!replaced) w->schema_.options.emplace_back(key, value);
  }
  FJORD_ASSIGN_OR_RAISE(w->core_, CoreOptions::Make(w->schema_));
  FJORD_ASSIGN_OR_RAISE(RowRouter router, RowRouter::Make(w->schema_, *w->core_));
  w->router_ = std::make_unique<RowRouter>(std::move(router));
  FJORD_ASSIGN_OR_RAISE(w->layout_, KvLayout::Make(w->schema_, *w->core_));
  // Fail early on key or sequence types that cannot be ordered.
  FJORD_RETURN_NOT_OK(w->layout_.KeyEncoder().status());
  FJORD_RETURN_NOT_OK(w->layout_.OrderEncoder().status());
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<MergeFunction> merge, CreateKvMergeFunction(w->schema_));

  const CoreOptions& core = *w->core_;
  w->buffer_limit_ = core.write_buffer_size();
  w->spillable_ = core.write_buffer_spillable();
  w->spill_options_.compression = core.spill_compression();
  w->spill_options_.zstd_level = core.spill_compression_zstd_level();
  w->spill_options_.max_spill_files = std::max(2, core.local_sort_max_num_file_handles());
  w->spill_options_.sort_chunk_bytes = SortChunkBytes(w->buffer_limit_);
  w->buffer_pool_ = RecyclingPool::Make();
  w->spill_options_.pool = w->buffer_pool_.get();
  // The flush keeps each key's last record: a spill may drop the others already, unless the input
  // producer's changelog needs every record.
  w->spill_options_.last_record_wins =
      merge == nullptr && core.changelog_producer() != ChangelogProducer::kInput;
  if (w->router_->dynamic() && options.assigner) {
    w->shared_assigner_ = std::move(options.assigner);
  } else if (w->router_->dynamic()) {
    FJORD_ASSIGN_OR_RAISE(DynamicBucketOptions dynamic, DynamicBucketOptions::FromOptions(core));
    w->assigner_ = std::make_unique<DynamicBucketAssigner>(table->io(), table->path(),
                                                           core.manifest_format(), dynamic);
  }
  FJORD_ASSIGN_OR_RAISE(w->compaction_, UniversalCompactionOptions::FromOptions(core));
  w->lookup_ = LookupNeeds::FromOptions(core);
  FJORD_RETURN_NOT_OK(CheckLookupSupported(w->lookup_, core));
  FJORD_ASSIGN_OR_RAISE(w->strategy_options_, CompactStrategyOptions::FromOptions(core));
  FJORD_ASSIGN_OR_RAISE(w->full_trigger_, FullCompactionTrigger::FromOptions(core));
  if (core.merge_engine() == MergeEngine::kFirstRow &&
      (core.changelog_producer() == ChangelogProducer::kInput ||
       core.changelog_producer() == ChangelogProducer::kFullCompaction)) {
    // Java's schema validation refuses these tables (also through dynamic options).
    return Status::Invalid(
        "merge-engine 'first-row' supports only changelog-producer 'none' and "
        "'lookup' (as Java Paimon), not '",
        ChangelogProducerName(core.changelog_producer()), "'");
  }
  if (core.changelog_producer() == ChangelogProducer::kFullCompaction) {
    w->full_changelog_ = FullChangelogOptions::FromOptions(w->schema_, core);
  }
  w->lookup_wait_ = LookupWait(w->lookup_, core);
  w->ignore_delete_ = core.ignore_delete();
  w->write_only_ = core.write_only();
  w->ignore_previous_files_ = options.ignore_previous_files;
  if (!w->ignore_previous_files_) {
    w->bucket_count_ = std::make_unique<BucketCountCheck>(table, w->router_->total_buckets());
  }
  w->force_compact_ = core.commit_force_compact();
  // Java's compactionFileSize: integer 70 % of the target.
  w->compaction_file_size_ = core.target_file_size(/*has_primary_key=*/true) / 10 * 7;
  if (options.spill_dir.empty()) {
    w->spill_options_.spill_dir =
        (std::filesystem::temp_directory_path() / ("fjord-spill-" + RandomUuid())).string();
    w->own_spill_dir_ = true;
  } else {
    w->spill_options_.spill_dir = options.spill_dir;
  }
  w->threads_ = options.threads > 0 ? options.threads : DefaultThreads();
  if (w->threads_ > 1) {
    w->foreground_ = std::make_unique<ThreadPool>(w->threads_ - 1);
    w->lanes_ = std::make_unique<Lanes>(w->threads_, 2 * w->threads_);
    // Batches spread over several buckets are held until they are worth a share per bucket
    // (PendingShares), up to a 32nd of the budget (8 MB at the default 256 MB): held, and then
    // in flight on the lanes, they are memory beside the budget.
    w->pending_ =
        PendingShares(PendingShares::kRows, std::min(PendingShares::kBytes, w->buffer_limit_ / 32));
    // A bucket's full sort chunk is sorted beside its lane: sorted on the lane, it held up the
    // bucket's next records and, once the lanes' batches in flight waited for them, the caller
    // and the other thread too.
    w->spill_options_.background = [lanes = w->lanes_.get()](std::function<Status()> run) {
      lanes->Spawn(std::move(run));
    };
  }
  return w;
}

Status PrimaryKeyTableWrite::LoadRestoreInfo() {
  if (restore_loaded_) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table_->snapshots().Latest());
  std::map<PartitionBucket, int32_t> totals;
  if (latest && !ignore_previous_files_) {
    TableScan scan(table_->io(), table_->path(), table_->schema());
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
    for (const ManifestEntry& e : entries) {
      PartitionBucket key{e.partition, e.bucket};
      int64_t& next = restored_next_sequence_[key];
      next = std::max(next, e.file.max_sequence_number + 1);
      totals[key] = e.total_buckets;
      restored_files_[key].push_back(e.file);
    }
    if (lookup_.deletion_vectors && latest->index_manifest) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<IndexManifestEntry> index,
          ReadIndexManifest(table_->io().get(),
                            TablePaths{table_->path()}.ManifestFile(*latest->index_manifest),
                            core_->manifest_format()));
      for (const IndexManifestEntry& ie : index) {
        if (ie.kind == FileKind::kAdd && ie.index_type == kDeletionVectorsIndexType) {
          restored_deletion_index_[{ie.partition, ie.bucket}].push_back(IndexFileOf(ie));
        }
      }
    }
  }
  if (bucket_count_) {
    bucket_count_->Restored(latest ? std::optional<int64_t>(latest->id) : std::nullopt,
                            std::move(totals));
  }
  restore_loaded_ = true;
  return Status::OK();
}

Result<PrimaryKeyTableWrite::BucketWriter*> PrimaryKeyTableWrite::WriterFor(
    const PartitionBucket& key) {
  auto it = writers_.find(key);
  if (it != writers_.end()) return it->second.get();
  FJORD_RETURN_NOT_OK(LoadRestoreInfo());
  if (bucket_count_) FJORD_RETURN_NOT_OK(bucket_count_->Check(key));
  FJORD_ASSIGN_OR_RAISE(FileFormat format, core_->file_format());
  std::vector<DataField> partition_fields = schema_.FieldsByName(schema_.partition_keys);
  std::vector<DataTypePtr> partition_types;
  for (const DataField& f : partition_fields) partition_types.push_back(f.type->WithNullable(true));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> pvalues,
                        DecodeStoredBinaryRow(key.first, partition_types));
  std::string dir = table_->path();
  std::string ppath = PartitionPath(partition_fields, pvalues, core_->partition_default_name());
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  dir = JoinPath(dir, "bucket-" + std::to_string(key.second));
  auto writer = std::make_unique<BucketWriter>(
      layout_, spill_options_, dir, core_->data_file_prefix(), core_->changelog_file_prefix(),
      std::string(FileFormatName(format)));
  auto seq = restored_next_sequence_.find(key);
  writer->next_sequence = seq == restored_next_sequence_.end() ? 0 : seq->second;
  if (lookup_.deletion_vectors) {
    auto index = restored_deletion_index_.find(key);
    FJORD_ASSIGN_OR_RAISE(BucketDeletionVectors vectors,
                          BucketDeletionVectors::Restore(
                              table_->io(), TablePaths{table_->path()}, &index_namer_,
                              core_->deletion_vectors_bitmap64(),
                              index == restored_deletion_index_.end() ? std::vector<IndexFileMeta>{}
                                                                      : index->second));
    writer->deletion_vectors.emplace(std::move(vectors));
  }
  std::vector<DataTypePtr> key_types;
  for (int k : layout_.key_columns)
    key_types.push_back(schema_.fields[static_cast<size_t>(k)].type);
  auto files = restored_files_.find(key);
  FJORD_ASSIGN_OR_RAISE(
      writer->levels,
      Levels::Make(key_types, compaction_.num_levels,
                   files == restored_files_.end() ? std::vector<DataFileMeta>{} : files->second));
  writer->strategy.emplace(strategy_options_);
  BucketWriter* raw = writer.get();
  writers_.emplace(key, std::move(writer));
  return raw;
}

Status PrimaryKeyTableWrite::Write(const std::shared_ptr<arrow::Table>& rows,
                                   const std::vector<int8_t>& kinds) {
  if (lanes_) FJORD_RETURN_NOT_OK(lanes_->error());
  FJORD_ASSIGN_OR_RAISE(WriteInput input, PrepareWriteInput(schema_, *core_, rows, kinds));
  metrics_.records_dropped += input.dropped;
  FJORD_ASSIGN_OR_RAISE(
      auto groups,
      router_->Route(*input.rows, shared_assigner_ ? shared_assigner_.get() : assigner_.get()));
  // Every bucket's writer first, so that a refused bucket leaves nothing of the batch behind.
  std::vector<BucketWriter*> writers;
  writers.reserve(groups.size());
  for (auto& [key, indices] : groups) {
    FJORD_ASSIGN_OR_RAISE(BucketWriter * writer, WriterFor(key));
    if (full_trigger_) full_trigger_->Touch(key);
    writers.push_back(writer);
  }
  std::vector<PendingShares::Group> shares;
  shares.reserve(groups.size());
  size_t g = 0;
  for (auto& [key, indices] : groups) shares.push_back({writers[g++], &indices});
  if (lanes_) {
    metrics_.records_written += input.rows->num_rows();
    // Batches spread over several buckets are held until together they are worth a share per
    // bucket (PendingShares), then dealt out to the buckets' lanes at once: dealt out batch by
    // batch, 8,192 rows into four buckets made shares of 2,000 rows, a task and hand-overs
    // between threads each. A batch all of one bucket is its share as it is, handed over at
    // once (after the rows held before it).
    const bool whole = groups.size() == 1 && static_cast<int64_t>(groups.begin()->second.size()) ==
                                                 input.rows->num_rows();
    if (whole) FJORD_RETURN_NOT_OK(SubmitPending());
    pending_.Add(input.rows, shares);
    pending_kinds_.push_back(std::move(input.kinds));
    if (!whole && !pending_.full()) return Status::OK();
    return SubmitPending();
  }
  // One thread: every group's records are built before any is buffered, so an error keeps
  // nothing of `rows`. The buckets' shares are dealt out in one pass over each column; a batch
  // all in one bucket is its share as it is. Shares come from the buffer's pool, whose pages the
  // buffer recycles.
  PendingShares batch;
  batch.Add(input.rows, shares);
  FJORD_ASSIGN_OR_RAISE(PendingShares::Dealt dealt, batch.Take(buffer_pool_.get()));
  if (dealt.scatter) FJORD_RETURN_NOT_OK(dealt.scatter->FillShared());
  const std::vector<std::vector<int8_t>> kinds_of = {std::move(input.kinds)};
  std::vector<std::shared_ptr<arrow::RecordBatch>> records(dealt.shares.size());
  for (size_t i = 0; i < dealt.shares.size(); ++i) {
    const PendingShares::Share& share = dealt.shares[i];
    std::shared_ptr<arrow::RecordBatch> rows = input.rows;
    if (share.dealt >= 0) {
      FJORD_ASSIGN_OR_RAISE(rows, dealt.scatter->Share(share.dealt));
    }
    const std::vector<int8_t> share_kinds = KindsOf(share.refs, kinds_of);
    auto* w = static_cast<BucketWriter*>(share.bucket);
    FJORD_ASSIGN_OR_RAISE(records[i], BucketRecords(rows, share_kinds.data(), w->next_sequence));
  }
  metrics_.records_written += input.rows->num_rows();
  for (size_t i = 0; i < dealt.shares.size(); ++i) {
    auto* w = static_cast<BucketWriter*>(dealt.shares[i].bucket);
    w->next_sequence += records[i]->num_rows();
    FJORD_RETURN_NOT_OK(w->buffer.Add(std::move(records[i])));
  }
  return EnforceMemoryBudget();
}

// A share's queued bytes, no longer counted once its task ends, buffered or failed.
struct PrimaryKeyTableWrite::Unqueue {
  BucketWriter* writer;
  int64_t bytes;
  ~Unqueue() { writer->queued_bytes -= bytes; }
};

Status PrimaryKeyTableWrite::SubmitPending() {
  if (pending_.empty()) return Status::OK();
  // Each bucket's share is built and buffered (sorting a chunk when one is full) on its lane
  // while the caller goes on; the budget is kept by spills queued on the lanes. The shares that
  // are not whole batches are dealt out in one pass over each column of the batches by whichever
  // of their tasks run (RowScatter), into the buffer's pool. Sequence numbers are given here, in
  // the caller's order, whatever thread buffers the rows.
  const int64_t pending_rows = pending_.rows();
  const int64_t pending_bytes = pending_.bytes();
  FJORD_ASSIGN_OR_RAISE(PendingShares::Dealt dealt, pending_.Take(buffer_pool_.get()));
  auto kinds = std::make_shared<const std::vector<std::vector<int8_t>>>(std::move(pending_kinds_));
  pending_kinds_.clear();
  std::vector<Lanes::Task> tasks;
  tasks.reserve(dealt.shares.size());
  for (PendingShares::Share& share : dealt.shares) {
    auto* w = static_cast<BucketWriter*>(share.bucket);
    const int64_t first_sequence = w->next_sequence;
    w->next_sequence += static_cast<int64_t>(share.refs.size());
    // Counted against the budget until buffered (QueueSpills).
    const int64_t queued =
        pending_rows == 0 ? 0
                          : pending_bytes * static_cast<int64_t>(share.refs.size()) / pending_rows;
    w->queued_bytes += queued;
    if (share.dealt < 0) {
      tasks.push_back({w,
                       [this, w, first_sequence, queued, kinds, sources = dealt.sources,
                        refs = std::move(share.refs)]() -> Status {
                         Unqueue unqueue{w, queued};
                         int64_t seq = first_sequence;
                         for (size_t i = 0; i < refs.size();) {
                           const auto source = static_cast<size_t>(refs[i].source);
                           const std::shared_ptr<arrow::RecordBatch>& rows = (*sources)[source];
                           FJORD_ASSIGN_OR_RAISE(auto records,
                                                 BucketRecords(rows, (*kinds)[source].data(), seq));
                           FJORD_RETURN_NOT_OK(w->buffer.Add(std::move(records)));
                           seq += rows->num_rows();
                           i += static_cast<size_t>(rows->num_rows());
                         }
                         w->buffered_bytes.store(w->buffer.memory_bytes());
                         return Status::OK();
                       }});
      continue;
    }
    std::vector<int8_t> share_kinds = KindsOf(share.refs, *kinds);
    tasks.push_back({w,
                     [this, w, first_sequence, queued, scatter = dealt.scatter, index = share.dealt,
                      share_kinds = std::move(share_kinds)]() -> Status {
                       Unqueue unqueue{w, queued};
                       FJORD_RETURN_NOT_OK(scatter->FillShared());
                       FJORD_ASSIGN_OR_RAISE(auto rows, scatter->Share(index));
                       FJORD_ASSIGN_OR_RAISE(
                           auto records, BucketRecords(rows, share_kinds.data(), first_sequence));
                       FJORD_RETURN_NOT_OK(w->buffer.Add(std::move(records)));
                       w->buffered_bytes.store(w->buffer.memory_bytes());
                       return Status::OK();
                     }});
  }
  FJORD_RETURN_NOT_OK(lanes_->SubmitBatch(std::move(tasks)));
  return QueueSpills();
}

Status PrimaryKeyTableWrite::DrainLanes() {
  FJORD_RETURN_NOT_OK(SubmitPending());
  return lanes_->Drain();
}

Result<std::shared_ptr<arrow::RecordBatch>> PrimaryKeyTableWrite::BucketRecords(
    const std::shared_ptr<arrow::RecordBatch>& rows, const int8_t* kinds,
    int64_t first_sequence) const {
  const int64_t n = rows->num_rows();
  arrow::Int64Builder seq(buffer_pool_.get());
  arrow::Int8Builder kind(buffer_pool_.get());
  FJORD_ARROW_RETURN_NOT_OK(seq.Reserve(n));
  FJORD_ARROW_RETURN_NOT_OK(kind.AppendValues(kinds, n));
  for (int64_t i = 0; i < n; ++i) seq.UnsafeAppend(first_sequence + i);
  FJORD_ARROW_ASSIGN_OR_RAISE(auto seq_array, seq.Finish());
  FJORD_ARROW_ASSIGN_OR_RAISE(auto kind_array, kind.Finish());
  arrow::ArrayVector columns = rows->columns();
  columns.push_back(seq_array);
  columns.push_back(kind_array);
  return arrow::RecordBatch::Make(layout_.schema, rows->num_rows(), columns);
}

Status PrimaryKeyTableWrite::QueueSpills() {
  // The buffers as their lanes last left them, with the spills being written (batches still
  // queued are not counted: at most the lanes' batches in flight more).
  auto buffered = [this] {
    int64_t total = 0;
    for (auto& [key, w] : writers_) {
      total += w->buffered_bytes.load() + w->spilling_bytes.load() + w->queued_bytes.load();
    }
    return total;
  };
  const int64_t total = buffered();
  {
    std::lock_guard<std::mutex> lock(metrics_mu_);
    metrics_.peak_buffer_bytes = std::max(metrics_.peak_buffer_bytes, total);
  }
  if (!spillable_) {
    if (total <= buffer_limit_) return Status::OK();
    // Flushing hands new files to the bucket's compaction, which the caller's thread drives:
    // the lanes stop first and the budget is kept as with one thread.
    FJORD_RETURN_NOT_OK(DrainLanes());
    for (auto& [key, w] : writers_) w->buffered_bytes.store(w->buffer.memory_bytes());
    return EnforceMemoryBudget();
  }
  // A spill is taken out of its buffer on the buffer's lane, in order with its records, and
  // written on another thread while the lanes go on: a lane that wrote its spill itself held up
  // every batch behind it, and the caller with them, with one core idle. Over the budget, the
  // largest buffers not being spilled are spilled until the rest (what is neither being spilled
  // nor queued) fits it; while spills are written, new records fill fresh buffers, and at half
  // the budget over it the caller waits for a spill to end.
  const int64_t hard_limit = buffer_limit_ + buffer_limit_ / 2;
  int64_t left = total;
  while (true) {
    while (left > buffer_limit_) {
      BucketWriter* largest = nullptr;
      int64_t largest_bytes = 0;
      for (auto& [key, w] : writers_) {
        int64_t bytes = w->buffered_bytes.load();
        if (!w->spill_queued.load() && bytes > largest_bytes)
          largest = w.get(), largest_bytes = bytes;
      }
      if (!largest) break;
      largest->spill_queued.store(true);
      left -= largest_bytes;
      FJORD_RETURN_NOT_OK(QueueSpill(*largest));
    }
    // Checked under the lock that a spill's end takes before it notifies: no wake-up is lost.
    std::unique_lock<std::mutex> lock(spill_mu_);
    left = buffered();
    if (left <= hard_limit) return Status::OK();
    FJORD_RETURN_NOT_OK(lanes_->error());  // a failed lane ends no spill
    spill_done_.wait_for(lock, std::chrono::milliseconds(100));
    left = buffered();
  }
}

Status PrimaryKeyTableWrite::QueueSpill(BucketWriter& writer) {
  BucketWriter* w = &writer;
  // The task holds the lanes itself: while the writer is destroyed, lanes_ is already null (the
  // Lanes object waits for its tasks in its destructor).
  Lanes* lanes = lanes_.get();
  return lanes->Submit(w, [this, w, lanes]() -> Status {
    Result<std::unique_ptr<SpillJob>> taken = w->buffer.TakeSpill();
    if (!taken.ok() || !*taken) {
      w->buffered_bytes.store(w->buffer.memory_bytes());
      w->spill_queued.store(false);
      SpillEnded();
      return taken.status();
    }
    std::shared_ptr<SpillJob> job = std::move(*taken);
    // Counted as spilling before the buffer drops it: the budget sees the bytes throughout.
    w->spilling_bytes.store(job->memory_bytes());
    w->buffered_bytes.store(w->buffer.memory_bytes());
    lanes->Spawn([this, w, job]() mutable -> Status {
      Status st = job->Write();
      const int64_t file_bytes = job->file_bytes();
      job.reset();  // the chunks' memory
      arrow::default_memory_pool()->ReleaseUnused();
      {
        std::lock_guard<std::mutex> lock(metrics_mu_);
        metrics_.spills++;
        metrics_.spilled_bytes += file_bytes;
      }
      w->spilling_bytes.store(0);
      w->spill_queued.store(false);
      SpillEnded();
      return st;
    });
    return Status::OK();
  });
}

void PrimaryKeyTableWrite::SpillEnded() {
  { std::lock_guard<std::mutex> lock(spill_mu_); }  // a waiter is checking or waiting, not between
  spill_done_.notify_all();
}

Status PrimaryKeyTableWrite::SpillBuffer(BucketWriter& writer) {
  int64_t before = writer.buffer.spilled_bytes();
  FJORD_RETURN_NOT_OK(writer.buffer.Spill());
  // Hand the freed buffer back to the system: allocators that keep freed pages (mimalloc,
  // Arrow's default) would otherwise hold the peak for the rest of the write.
  arrow::default_memory_pool()->ReleaseUnused();
  std::lock_guard<std::mutex> lock(metrics_mu_);
  metrics_.spills++;
  metrics_.spilled_bytes += writer.buffer.spilled_bytes() - before;
  return Status::OK();
}

Status PrimaryKeyTableWrite::EnforceMemoryBudget() {
  while (true) {
    int64_t total = 0;
    BucketWriter* largest = nullptr;
    for (auto& [key, w] : writers_) {
      total += w->buffer.memory_bytes();
      if (!largest || w->buffer.memory_bytes() > largest->buffer.memory_bytes()) {
        largest = w.get();
      }
    }
    metrics_.peak_buffer_bytes = std::max(metrics_.peak_buffer_bytes, total);
    if (total <= buffer_limit_ || !largest || largest->buffer.memory_bytes() == 0) {
      return Status::OK();
    }
    if (spillable_) {
      FJORD_RETURN_NOT_OK(SpillBuffer(*largest));
    } else {
      FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> files, Flush(*largest));
      largest->flushed.insert(largest->flushed.end(), files.begin(), files.end());
      metrics_.buffer_flushes++;
      FJORD_RETURN_NOT_OK(AfterFlush(*largest, files));
    }
  }
}

Result<std::vector<DataFileMeta>> PrimaryKeyTableWrite::Flush(BucketWriter& writer,
                                                              bool read_ahead) {
  if (writer.buffer.empty()) return std::vector<DataFileMeta>{};
  if (spillable_ && writer.buffer.spill_file_count() > 0 && writer.buffer.memory_bytes() > 0) {
    // The merge below holds every in-memory chunk until its end, next to the file writer's
    // buffered row group; once there are spill files, spilling the rest first keeps the flush
    // within the budget.
    FJORD_RETURN_NOT_OK(writer.buffer.Spill());
    arrow::default_memory_pool()->ReleaseUnused();
    std::lock_guard<std::mutex> lock(metrics_mu_);
    metrics_.spills++;
  }
  FJORD_ASSIGN_OR_RAISE(auto runs, writer.buffer.TakeRuns(read_ahead));
  FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(schema_));
  std::unique_ptr<KvFileWriter> changelog_writer;
  if (core_->changelog_producer() == ChangelogProducer::kInput) {
    // Java's input producer: every buffered record, in key and sequence order and not merged,
    // also goes to level-0 changelog files of this flush.
    FJORD_ASSIGN_OR_RAISE(changelog_writer,
                          KvFileWriter::Make(table_->io(), schema_, *core_, writer.bucket_dir, 0,
                                             &writer.changelog_namer));
    KvMergeOptions all;
    all.keep_all_records = true;
    all.pool = buffer_pool_.get();
    FJORD_ASSIGN_OR_RAISE(auto records,
                          KvMergeReader::Make(layout_, nullptr, std::move(runs), all));
    runs.clear();
    runs.push_back(TeeRun(std::move(records), changelog_writer.get()));
  }
  KvMergeOptions merge_options;
  merge_options.pool = buffer_pool_.get();
  FJORD_ASSIGN_OR_RAISE(
      auto reader, KvMergeReader::Make(layout_, std::move(merge), std::move(runs), merge_options));
  FJORD_ASSIGN_OR_RAISE(auto file_writer, KvFileWriter::Make(table_->io(), schema_, *core_,
                                                             writer.bucket_dir, 0, &writer.namer));
  while (true) {
    Result<std::shared_ptr<arrow::RecordBatch>> batch = reader->Next();
    Status st = batch.status();
    if (st.ok() && !*batch) break;
    if (st.ok()) st = file_writer->Write(*batch);
    if (!st.ok()) {
      file_writer->Abort();
      if (changelog_writer) changelog_writer->Abort();
      return st;
    }
  }
  if (changelog_writer) {
    Result<std::vector<DataFileMeta>> changelog = changelog_writer->Finish();
    if (!changelog.ok()) {
      file_writer->Abort();
      return changelog.status();
    }
    writer.changelog.insert(writer.changelog.end(), changelog->begin(), changelog->end());
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> files, file_writer->Finish());
  arrow::default_memory_pool()->ReleaseUnused();
  std::lock_guard<std::mutex> lock(metrics_mu_);
  metrics_.files_written += static_cast<int64_t>(files.size());
  return files;
}

Status PrimaryKeyTableWrite::TriggerCompaction(BucketWriter& writer, bool full) {
  if (writer.running.valid()) return Status::OK();  // one compaction per bucket at a time
  Levels& levels = *writer.levels;
  std::vector<LevelSortedRun> runs = levels.SortedRuns();
  std::optional<CompactUnit> unit =
      full ? PickFull(runs, levels.MaxLevel()) : writer.strategy->Pick(runs, levels.MaxLevel());
  if (!unit && full && writer.deletion_vectors) unit = PickVectorRewrite(writer, runs);
  if (!unit) return Status::OK();
  // Retractions can go when nothing older lies below the output; with deletion vectors always
  // above level 0 (Java: older records there are marked deleted instead).
  bool drop_delete =
      unit->output_level != 0 &&
      (unit->output_level >= levels.NonEmptyHighestLevel() || writer.deletion_vectors);
  if (!readers_) {
    readers_ = std::make_unique<KvFileReaderFactory>(table_->io(), table_->path(), schema_);
    // A compaction holds the current row group of every run it merges until its end: the larger
    // ones streamed, not decoded whole (a full compaction of five 37 MB runs: peak RSS 479 ->
    // 268 MB; docs/performance.md, "Compaction inputs streamed").
    readers_->set_whole_row_group_bytes_per_column(kWholeRowGroupBytesAlone);
    compact_read_pool_ = std::shared_ptr<RecyclingPool>(
        RecyclingPool::Make(arrow::default_memory_pool(), /*arenas_per_thread=*/true).release(),
        RecyclingPool::Closer{});
    readers_->set_pool(compact_read_pool_);
  }
  if (!executor_) executor_ = std::make_unique<ThreadPool>(threads_);
  CompactContext ctx;
  ctx.io = table_->io();
  ctx.schema = schema_;
  ctx.bucket_dir = writer.bucket_dir;
  ctx.namer = &writer.namer;
  ctx.max_level = levels.MaxLevel();
  ctx.compaction_file_size = compaction_file_size_;
  if (full_changelog_) {
    ctx.full_changelog = full_changelog_;
    ctx.changelog_namer = &writer.changelog_namer;
  }
  ctx.lookup_merge = lookup_.merges_by_level();
  if (lookup_.first_row) {
    ctx.first_row_lookup = true;
    ctx.ignore_delete = ignore_delete_;
    if (!writer.lookup_levels) {
      FJORD_RETURN_NOT_OK(EnsureLookupCache());
      FJORD_ASSIGN_OR_RAISE(writer.lookup_levels,
                            LookupLevels::Make(lookup_cache_, readers_.get(), writer.bucket_dir,
                                               layout_, LookupPayload::kExistence, {}));
    }
    FJORD_RETURN_NOT_OK(writer.lookup_levels->SetFiles(levels.AllFiles()));
    ctx.lookup_levels = writer.lookup_levels.get();
    if (lookup_.produce_changelog) {
      ctx.first_row_changelog = true;
      ctx.changelog_namer = &writer.changelog_namer;
    }
  }
  if (lookup_.merges_by_level()) FJORD_RETURN_NOT_OK(SetUpLookup(writer, &ctx));
  writer.running_output_level = unit->output_level;
  ctx.readers = readers_.get();
  if (threads_ > 1) {
    ctx.spare_threads = [this] {
      return compacting_buckets_.load(std::memory_order_relaxed) && executor_->idle() > 0;
    };
  }
  writer.running = executor_->Submit(
      [unit = *unit, drop_delete, ctx]() { return RunCompaction(unit, drop_delete, ctx); });
  ++compactions_running_;
  return Status::OK();
}

std::optional<CompactUnit> PrimaryKeyTableWrite::PickVectorRewrite(
    BucketWriter& writer, const std::vector<LevelSortedRun>& runs) {
  // Java's pickFullCompaction: a bucket already in one max-level run still rewrites the files
  // that have deletion vectors, each alone.
  if (runs.size() != 1 || runs[0].level != writer.levels->MaxLevel()) return std::nullopt;
  CompactUnit unit{writer.levels->MaxLevel(), {}, /*file_rewrite=*/true};
  for (const DataFileMeta& f : runs[0].files) {
    if (writer.deletion_vectors->VectorOf(f.file_name)) unit.files.push_back(f);
  }
  if (unit.files.empty()) return std::nullopt;
  return unit;
}

Status PrimaryKeyTableWrite::EnsureLookupCache() {
  if (lookup_cache_) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(LookupCacheOptions options, LookupCacheOptions::FromOptions(*core_));
  lookup_cache_ = LookupCache::Shared(options);
  return Status::OK();
}

Status PrimaryKeyTableWrite::SetUpLookup(BucketWriter& writer, CompactContext* ctx) {
  FJORD_RETURN_NOT_OK(EnsureLookupCache());
  BucketDeletionVectors* vectors = writer.deletion_vectors ? &*writer.deletion_vectors : nullptr;
  KvFileReaderFactory::DeletionOfFn deletion_of;
  if (vectors) {
    deletion_of =
        [vectors](const DataFileMeta& f) -> Result<std::shared_ptr<const DeletionVector>> {
      return vectors->VectorOf(f.file_name);
    };
  }
  if (!writer.lookup_levels) {
    FJORD_ASSIGN_OR_RAISE(writer.lookup_levels,
                          LookupLevels::Make(lookup_cache_, readers_.get(), writer.bucket_dir,
                                             layout_, PayloadOf(lookup_, *core_), deletion_of));
  }
  std::vector<DataFileMeta> upper;
  for (const DataFileMeta& f : writer.levels->AllFiles()) {
    if (f.level > 0) upper.push_back(f);
  }
  FJORD_RETURN_NOT_OK(writer.lookup_levels->SetFiles(upper));
  LookupLevels* levels = writer.lookup_levels.get();
  LookupCompaction lookup;
  lookup.lookup = [levels](std::string_view key,
                           int32_t start) -> Result<std::optional<KvLookupHit>> {
    FJORD_ASSIGN_OR_RAISE(std::optional<LookupHit> hit, levels->Lookup(key, start));
    if (!hit) return std::optional<KvLookupHit>();
    return std::optional<KvLookupHit>(
        KvLookupHit{std::move(hit->file_name), hit->position, std::move(hit->record)});
  };
  if (vectors) {
    lookup.deletion_vectors = true;
    lookup.on_deletion = [vectors](const std::string& file, int64_t position) {
      return vectors->NotifyDeletion(file, position);
    };
    lookup.on_rewritten = [vectors](const std::string& file) { vectors->RemoveVectorOf(file); };
    lookup.write_index = [vectors]() { return vectors->WriteIfModified(); };
    ctx->deletion_of = deletion_of;
  }
  if (lookup_.produce_changelog) {
    lookup.produce_changelog = true;
    FullChangelogOptions dedup = FullChangelogOptions::FromOptions(schema_, *core_);
    lookup.row_deduplicate = dedup.row_deduplicate;
    lookup.compared_fields = dedup.compared_fields;
    ctx->changelog_namer = &writer.changelog_namer;
  }
  lookup.deduplicate_without_sequence =
      core_->merge_engine() == MergeEngine::kDeduplicate && core_->sequence_fields().empty();
  ctx->lookup = std::move(lookup);
  return Status::OK();
}

Status PrimaryKeyTableWrite::CollectCompaction(BucketWriter& writer, bool block) {
  if (!writer.running.valid()) return Status::OK();
  if (!block && writer.running.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    return Status::OK();
  }
  bool stall =
      block && writer.running.wait_for(std::chrono::seconds(0)) != std::future_status::ready;
  auto wait_started = std::chrono::steady_clock::now();
  Result<CompactResult> done = writer.running.get();
  if (compactions_running_.fetch_sub(1) == 1) compact_read_pool_->ReleaseUnused();
  if (stall) {
    metrics_.compaction_waits++;
    metrics_.compaction_wait_millis += std::chrono::duration_cast<std::chrono::milliseconds>(
                                           std::chrono::steady_clock::now() - wait_started)
                                           .count();
  }
  if (!done.ok()) return done.status().WithContext("compaction of ", writer.bucket_dir);
  const CompactResult& result = *done;
  FJORD_RETURN_NOT_OK(writer.levels->Update(result.before, result.after));
  metrics_.compactions++;
  metrics_.compaction_bytes_in += result.rewritten_bytes;
  metrics_.compaction_bytes_out += result.written_bytes;
  metrics_.compaction_millis += result.duration_millis;
  AddCompaction(result, writer.running_output_level, writer.levels->MaxLevel(), &writer.metrics);
  // Java's bookkeeping of uncommitted compactions: a file produced by an earlier compaction of
  // this commit and consumed again is dropped from the results (and deleted unless it is an
  // upgrade of a committed file); anything else consumed is a file to remove.
  for (const DataFileMeta& f : result.before) {
    auto produced = std::find_if(
        writer.compact_after.begin(), writer.compact_after.end(),
        [&](const DataFileMeta& a) { return a.file_name == f.file_name && a.level == f.level; });
    if (produced != writer.compact_after.end()) {
      writer.compact_after.erase(produced);
      bool upgrade_of_committed =
          std::any_of(writer.compact_before.begin(), writer.compact_before.end(),
                      [&](const DataFileMeta& b) { return b.file_name == f.file_name; });
      bool still_used =
          std::any_of(result.after.begin(), result.after.end(),
                      [&](const DataFileMeta& a) { return a.file_name == f.file_name; });
      if (!upgrade_of_committed && !still_used) {
        (void)table_->io()->Delete(JoinPath(writer.bucket_dir, f.file_name));
      }
    } else {
      writer.compact_before.push_back(f);
    }
  }
  writer.compact_after.insert(writer.compact_after.end(), result.after.begin(), result.after.end());
  writer.compact_changelog.insert(writer.compact_changelog.end(), result.changelog.begin(),
                                  result.changelog.end());
  if (result.deletion_index) {
    // Java's GeneratedDeletionFile#mergeOldFile: the newer index file replaces an uncommitted
    // older one, which goes.
    if (writer.deletion_index) DeleteIndexFile(*writer.deletion_index);
    writer.deletion_index = result.deletion_index;
  }
  return Status::OK();
}

void PrimaryKeyTableWrite::DeleteIndexFile(const IndexFileMeta& file) {
  (void)table_->io()->Delete(TablePaths{table_->path()}.IndexFile(file.file_name));
}

Status PrimaryKeyTableWrite::AfterFlush(BucketWriter& writer,
                                        const std::vector<DataFileMeta>& files, bool wait,
                                        bool full) {
  for (const DataFileMeta& f : files) FJORD_RETURN_NOT_OK(writer.levels->AddLevel0(f));
  if (write_only_) return Status::OK();
  // Java's write stall: with more sorted runs than num-sorted-run.stop-trigger, wait for the
  // running compaction before going on; then start the next one.
  bool stall = writer.levels->NumberOfSortedRuns() > compaction_.stop_trigger;
  FJORD_RETURN_NOT_OK(CollectCompaction(writer, wait || stall || full));
  return TriggerCompaction(writer, full);
}

Status PrimaryKeyTableWrite::FullCompactInWriter(const PartitionBucket& bucket) {
  FJORD_ASSIGN_OR_RAISE(BucketWriter * w, WriterFor(bucket));
  FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> files, Flush(*w));
  w->flushed.insert(w->flushed.end(), files.begin(), files.end());
  return AfterFlush(*w, files, true, true);
}

std::map<PartitionBucket, BucketCompactionMetrics> PrimaryKeyTableWrite::BucketMetrics() const {
  std::map<PartitionBucket, BucketCompactionMetrics> out;
  for (const auto& [key, w] : writers_) {
    BucketCompactionMetrics m = w->metrics;
    FillLevelMetrics(*w->levels, compaction_, &m);
    m.running = w->running.valid();
    out.emplace(key, std::move(m));
  }
  return out;
}

Result<std::vector<PartitionBucket>> PrimaryKeyTableWrite::LiveBuckets() {
  FJORD_RETURN_NOT_OK(LoadRestoreInfo());
  std::vector<PartitionBucket> out;
  for (const auto& [key, files] : restored_files_) out.push_back(key);
  return out;
}

Status PrimaryKeyTableWrite::CompactBucket(const PartitionBucket& bucket, bool full) {
  return CompactBuckets({bucket}, full);
}

Status PrimaryKeyTableWrite::CompactBuckets(const std::vector<PartitionBucket>& buckets,
                                            bool full) {
  if (lanes_) FJORD_RETURN_NOT_OK(DrainLanes());
  compacting_buckets_ = buckets.size() > 1;
  struct Done {
    std::atomic<bool>* flag;
    ~Done() { *flag = false; }
  } done{&compacting_buckets_};
  std::vector<BucketWriter*> started;
  for (const PartitionBucket& bucket : buckets) {
    FJORD_ASSIGN_OR_RAISE(BucketWriter * writer, WriterFor(bucket));
    if (full_trigger_) full_trigger_->Touch(bucket);
    FJORD_RETURN_NOT_OK(CollectCompaction(*writer, true));
    FJORD_RETURN_NOT_OK(TriggerCompaction(*writer, full));
    started.push_back(writer);
  }
  for (BucketWriter* writer : started) FJORD_RETURN_NOT_OK(CollectCompaction(*writer, true));
  return Status::OK();
}

Result<std::vector<CommitMessage>> PrimaryKeyTableWrite::PrepareCommit(bool wait_compaction,
                                                                       int64_t commit_identifier) {
  if (lanes_) FJORD_RETURN_NOT_OK(DrainLanes());
  wait_compaction = wait_compaction || lookup_wait_;
  if (full_trigger_ && !write_only_) {
    // Java's GlobalFullCompactionSinkWrite: full compaction of the written buckets, waited for.
    std::set<PartitionBucket> due = full_trigger_->TakeDue(commit_identifier);
    if (!due.empty()) wait_compaction = true;
    for (const PartitionBucket& bucket : due) FJORD_RETURN_NOT_OK(FullCompactInWriter(bucket));
  }
  // Every bucket's buffer flushed at once, then each bucket's compaction handled in turn.
  std::vector<BucketWriter*> order;
  order.reserve(writers_.size());
  for (auto& [key, w] : writers_) order.push_back(w.get());
  std::vector<std::vector<DataFileMeta>> flushed(order.size());
  // Fewer buckets than threads leave cores idle: their spill files are read ahead on them.
  const bool read_ahead = static_cast<int>(order.size()) < threads_;
  Status flushes = ParallelFor(foreground_.get(), order.size(), [&](size_t i) -> Status {
    FJORD_ASSIGN_OR_RAISE(flushed[i], Flush(*order[i], read_ahead));
    return Status::OK();
  });
  // The files stay the writer's until every bucket is through, so that a failure here leaves
  // them to the destructor's clean-up.
  for (size_t i = 0; i < order.size(); ++i) {
    order[i]->flushed.insert(order[i]->flushed.end(), flushed[i].begin(), flushed[i].end());
  }
  FJORD_RETURN_NOT_OK(flushes);
  size_t index = 0;
  for (auto& [key, w] : writers_) {
    FJORD_RETURN_NOT_OK(AfterFlush(*w, flushed[index++], wait_compaction));
    bool wait = wait_compaction || force_compact_ ||
                w->levels->NumberOfSortedRuns() > compaction_.stop_trigger + 1;
    FJORD_RETURN_NOT_OK(CollectCompaction(*w, wait));
  }
  std::vector<HashIndexChange> index_changes;
  if (assigner_) {
    // Each bucket that got new keys: its new hash index file replaces the old one.
    FJORD_ASSIGN_OR_RAISE(index_changes, assigner_->PrepareCommit());
  }
  std::vector<CommitMessage> messages;
  for (auto& [key, w] : writers_) {
    std::vector<DataFileMeta> all = std::move(w->flushed);
    w->flushed.clear();
    if (all.empty() && w->compact_before.empty() && w->compact_after.empty() &&
        w->changelog.empty() && w->compact_changelog.empty() && !w->deletion_index) {
      continue;
    }
    CommitMessage m{key.first, key.second, router_->total_buckets(), std::move(all), {}};
    m.changelog_files = std::move(w->changelog);
    w->changelog.clear();
    m.compact_before = std::move(w->compact_before);
    m.compact_after = std::move(w->compact_after);
    m.compact_changelog_files = std::move(w->compact_changelog);
    w->compact_before.clear();
    w->compact_after.clear();
    w->compact_changelog.clear();
    if (w->deletion_index) {
      m.compact_new_index_files.push_back(std::move(*w->deletion_index));
      w->deletion_index.reset();
    }
    messages.push_back(std::move(m));
  }
  if (assigner_) AddHashIndexChanges(index_changes, router_->total_buckets(), &messages);
  return messages;
}

}  // namespace fjord
