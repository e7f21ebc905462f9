#include "fjord/table/write/append_write.h"

#include "fjord/table/write/write_input.h"

#include <arrow/api.h>

#include <algorithm>
#include <chrono>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/column_stats.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/format/gather_rows.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/write/pending_shares.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

namespace {

std::vector<DataTypePtr> NullableTypes(const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> out;
  for (const DataField& f : fields) out.push_back(f.type->WithNullable(true));
  return out;
}

}  // namespace

Result<std::unique_ptr<AppendTableWrite>> AppendTableWrite::Create(const FileStoreTable* table,
                                                                   AppendWriteOptions options) {
  if (!table->schema().primary_keys.empty()) {
    return Status::Invalid(table->path(), " has a primary key; use PrimaryKeyTableWrite");
  }
  EnsureArrowCompute();
  std::unique_ptr<AppendTableWrite> w(new AppendTableWrite(table, options));
  const TableSchema& schema = table->schema();
  const CoreOptions& core = table->core_options();
  FJORD_ASSIGN_OR_RAISE(w->compact_options_, AppendCompactOptions::FromOptions(core));
  // Bucket-unaware tables are compacted by a dedicated job (Java's coordinator), never by the
  // writer; so are tables whose compaction Fjord does not do.
  w->compaction_ = core.bucket() > 0 && !w->compact_options_.write_only &&
                   CheckAppendCompactionSupported(core).ok();
  w->total_buckets_ = core.bucket();
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> ordered,
                        core.options().GetBool("bucket-append-ordered"));
  w->check_bucket_count_ = core.bucket() > 0 && !options.ignore_previous_files &&
                           !(core.write_only() && !ordered.value_or(true));
  if (w->check_bucket_count_) {
    w->bucket_count_ = std::make_unique<BucketCountCheck>(table, w->total_buckets_);
  }
  FJORD_ASSIGN_OR_RAISE(w->settings_, AppendFileSettings::Make(schema, core));
  // The rows written are the caller's (or a bucket's share of them): hold them, not their pages.
  w->settings_.writer_options.parquet_hold_row_group = true;
  w->settings_.writer_options.parquet_pool = w->share_pool_.get();
  int threads = options.threads > 0 ? options.threads : DefaultThreads();
  if (threads > 1) {
    w->foreground_ = std::make_unique<ThreadPool>(threads - 1);
    w->lanes_ = std::make_unique<Lanes>(threads, 2 * threads);
    // A bucket's closed row groups and rolled files are encoded beside its lane, which goes on
    // with the next rows.
    BackgroundExecutor spawn = [lanes = w->lanes_.get()](std::function<Status()> run) {
      lanes->Spawn(std::move(run));
    };
    w->settings_.writer_options.parquet_background = spawn;
    w->settings_.background = spawn;
  }
  w->namer_ = std::make_unique<DataFileNamer>(w->settings_.prefix,
                                              std::string(FileFormatName(w->settings_.format)));
  w->default_partition_ = core.partition_default_name();
  w->partition_fields_ = schema.FieldsByName(schema.partition_keys);
  w->partition_types_ = NullableTypes(w->partition_fields_);
  return w;
}

namespace {

// Writes the whole sources `refs` holds to `writer` as they are, not copied.
Status WriteWholeSources(RollingAppendFileWriter& writer,
                         const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
                         const std::vector<RowRef>& refs) {
  for (size_t i = 0; i < refs.size();) {
    const auto& source = sources[static_cast<size_t>(refs[i].source)];
    FJORD_RETURN_NOT_OK(writer.Write(*source));
    i += static_cast<size_t>(source->num_rows());
  }
  return Status::OK();
}

}  // namespace

Status AppendTableWrite::Write(const std::shared_ptr<arrow::Table>& input) {
  if (lanes_) FJORD_RETURN_NOT_OK(lanes_->error());
  const TableSchema& schema = table_->schema();
  // Columns in schema order, canonical types, NOT NULL enforced before anything is written.
  FJORD_ASSIGN_OR_RAISE(WriteInput prepared,
                        PrepareWriteInput(schema, table_->core_options(), input));
  for (size_t i = 0; i < prepared.kinds.size(); ++i) {
    if (prepared.kinds[i] != 0) {
      return Status::Invalid("append tables take only +I rows, row ", i, " has kind ",
                             static_cast<int>(prepared.kinds[i]),
                             "; nothing of this batch was written");
    }
  }
  const arrow::RecordBatch& batch = *prepared.rows;
  FJORD_ASSIGN_OR_RAISE(RowRouter router, RowRouter::Make(schema, table_->core_options()));
  FJORD_ASSIGN_OR_RAISE(auto groups, router.Route(batch));
  // Every bucket's writer first, so that a refused bucket leaves nothing of the batch pending.
  std::vector<RollingAppendFileWriter*> writers;
  writers.reserve(groups.size());
  for (const auto& [key, indices] : groups) {
    FJORD_ASSIGN_OR_RAISE(RollingAppendFileWriter * writer, WriterFor(key));
    writers.push_back(writer);
  }
  // Rows go to each bucket's rolling file writer: memory holds the open files' buffers, not the
  // commit (as Java's append writer without write-buffer-for-append). Small batches are pooled
  // first (kPendingRows, kPendingBytes), so that each bucket gets its rows in shares of a useful
  // size: every share costs a task and, in the file, a chunk of every column to encode.
  std::vector<PendingShares::Group> shares;
  shares.reserve(groups.size());
  size_t g = 0;
  for (auto& [key, indices] : groups) shares.push_back({writers[g++], &indices});
  pending_.Add(prepared.rows, shares);
  if (!pending_.full()) return Status::OK();
  return SubmitPending();
}

Status AppendTableWrite::SubmitPending() {
  if (pending_.empty()) return Status::OK();
  // Buckets are independent: with several threads the buckets' shares are made and written on
  // the lanes (one bucket's shares in order) while the caller goes on with its next batches.
  // Shares that are whole batches are written as they are. The others are dealt out in one pass
  // over each column of the batches, the columns spread over the threads of the shares' tasks:
  // gathering each share on its own would read every column once per bucket.
  FJORD_ASSIGN_OR_RAISE(PendingShares::Dealt dealt, pending_.Take(share_pool_.get()));
  std::vector<Lanes::Task> tasks;
  tasks.reserve(dealt.shares.size());
  for (PendingShares::Share& share : dealt.shares) {
    auto* writer = static_cast<RollingAppendFileWriter*>(share.bucket);
    if (share.dealt < 0) {
      tasks.push_back({writer, [writer, sources = dealt.sources, refs = std::move(share.refs)] {
                         return WriteWholeSources(*writer, *sources, refs);
                       }});
      continue;
    }
    tasks.push_back({writer, [writer, scatter = dealt.scatter, index = share.dealt]() -> Status {
                       FJORD_RETURN_NOT_OK(scatter->FillShared());
                       FJORD_ASSIGN_OR_RAISE(auto rows, scatter->Share(index));
                       return writer->Write(*rows);
                     }});
  }
  if (!lanes_) {
    for (Lanes::Task& t : tasks) FJORD_RETURN_NOT_OK(t.run());
    return Status::OK();
  }
  return lanes_->SubmitBatch(std::move(tasks));
}

Result<std::string> AppendTableWrite::BucketDir(const PartitionBucket& key) const {
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> pvalues,
                        DecodeStoredBinaryRow(key.first, partition_types_));
  std::string dir = table_->path();
  std::string ppath = PartitionPath(partition_fields_, pvalues, default_partition_);
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  return JoinPath(dir, "bucket-" + std::to_string(key.second));
}

Result<RollingAppendFileWriter*> AppendTableWrite::WriterFor(const PartitionBucket& key) {
  auto it = writers_.find(key);
  if (it != writers_.end()) return it->second.get();
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(key));
  FJORD_ASSIGN_OR_RAISE(int64_t first_seq, NextSequence(key.first, key.second));
  if (check_bucket_count_) FJORD_RETURN_NOT_OK(bucket_count_->Check(key));
  auto writer = std::make_unique<RollingAppendFileWriter>(
      table_->io(), &table_->schema(), &settings_, dir, namer_.get(), first_seq, kFileSourceAppend);
  // On the lanes the buckets' row groups, filled at the same pace by evenly spread rows, would
  // all close (and be encoded) at once, the caller's thread waiting meanwhile and the lanes idling
  // between: their first groups differ in size so that the encoding is spread out.
  if (lanes_) {
    writer->set_first_row_group_bytes(
        StaggeredFirstBlockSize(writers_opened_, settings_.writer_options.parquet_block_size));
  }
  ++writers_opened_;
  return writers_.emplace(key, std::move(writer)).first->second.get();
}

Status AppendTableWrite::LoadRestore() {
  if (restore_loaded_) return Status::OK();
  // Sequence numbers continue from the files already in each bucket; a compacting writer also
  // restores the bucket's files into its compaction queue, as Java's writer does.
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table_->snapshots().Latest());
  std::map<PartitionBucket, int32_t> totals;
  if (latest) {
    TableScan scan(table_->io(), table_->path(), table_->schema());
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
    for (ManifestEntry& e : entries) {
      int64_t& next = next_sequence_[{e.partition, e.bucket}];
      next = std::max(next, e.file.max_sequence_number + 1);
      totals[{e.partition, e.bucket}] = e.total_buckets;
      if (compaction_ && !options_.ignore_previous_files) {
        restored_files_[{e.partition, e.bucket}].push_back(std::move(e.file));
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

Result<int64_t> AppendTableWrite::NextSequence(const std::string& partition, int32_t bucket) {
  FJORD_RETURN_NOT_OK(LoadRestore());
  return next_sequence_[{partition, bucket}];
}

Result<BucketCompactQueue*> AppendTableWrite::QueueOf(const PartitionBucket& key) {
  FJORD_RETURN_NOT_OK(LoadRestore());
  auto it = queues_.find(key);
  if (it == queues_.end()) {
    auto restored = restored_files_.find(key);
    std::vector<DataFileMeta> files;
    if (restored != restored_files_.end()) {
      files = std::move(restored->second);
      restored_files_.erase(restored);
    }
    it = queues_.emplace(key, BucketCompactQueue(compact_options_, std::move(files))).first;
  }
  return &it->second;
}

Status AppendTableWrite::Compact(const PartitionBucket& key, BucketCompactQueue& queue,
                                 const std::string& bucket_dir, std::vector<DataFileMeta> new_files,
                                 DataFileNamer* namer, CommitMessage* message) {
  for (DataFileMeta& f : new_files) queue.Add(std::move(f));
  std::optional<std::vector<DataFileMeta>> picked = queue.PickBestEffort();
  if (!picked) return Status::OK();
  AppendCompactRewriter rewriter(table_->io(), table_->path(), table_->schema(),
                                 table_->core_options(), namer);
  Result<std::vector<DataFileMeta>> after = rewriter.Rewrite(key.first, key.second, *picked);
  if (!after.ok()) {
    // Nothing was rewritten: the files stay queued for the next attempt.
    for (DataFileMeta& f : *picked) queue.Add(std::move(f));
    return after.status().WithContext("compacting bucket ", key.second, " (", bucket_dir, ")");
  }
  queue.Compacted(*after);
  const AppendCompactMetrics& m = rewriter.metrics();
  std::lock_guard<std::mutex> lock(metrics_mu_);
  compact_metrics_.compactions += m.compactions;
  compact_metrics_.files_in += m.files_in;
  compact_metrics_.files_out += m.files_out;
  compact_metrics_.bytes_in += m.bytes_in;
  compact_metrics_.bytes_out += m.bytes_out;
  compact_metrics_.millis += m.millis;
  message->compact_before = std::move(*picked);
  message->compact_after = std::move(*after);
  return Status::OK();
}

Result<std::vector<CommitMessage>> AppendTableWrite::PrepareCommit() {
  FJORD_RETURN_NOT_OK(SubmitPending());
  if (lanes_) FJORD_RETURN_NOT_OK(lanes_->Drain());
  int32_t total_buckets = total_buckets_;
  // Every bucket written to now, and (compacting) every bucket written to before.
  std::map<PartitionBucket, CommitMessage> messages;
  auto writers = std::move(writers_);
  writers_.clear();
  // Every bucket's open file finished at once (with held row groups, most of the encoding), the
  // most rows first so that the threads end together.
  std::vector<RollingAppendFileWriter*> open;
  for (auto& [key, writer] : writers) open.push_back(writer.get());
  std::vector<size_t> order(open.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return open[a]->BufferedBytes() > open[b]->BufferedBytes();
  });
  std::vector<std::vector<DataFileMeta>> finished(open.size());
  FJORD_RETURN_NOT_OK(ParallelFor(foreground_.get(), order.size(), [&](size_t i) -> Status {
    FJORD_ASSIGN_OR_RAISE(finished[order[i]], open[order[i]]->Finish());
    return Status::OK();
  }));
  size_t index = 0;
  for (auto& [key, writer] : writers) {
    std::vector<DataFileMeta> files = std::move(finished[index++]);
    if (files.empty()) continue;
    next_sequence_[key] = files.back().max_sequence_number + 1;
    CommitMessage& m = messages[key];
    m = CommitMessage{key.first, key.second, total_buckets > 0 ? total_buckets : -1, {}, {}};
    m.new_files = std::move(files);
  }
  if (compaction_) {
    std::vector<PartitionBucket> buckets;
    for (const auto& [key, queue] : queues_) buckets.push_back(key);
    for (const auto& [key, m] : messages) {
      if (!queues_.count(key)) buckets.push_back(key);
    }
    // The buckets' compactions run at once; each touches only its own queue and message.
    struct Job {
      PartitionBucket key;
      BucketCompactQueue* queue;
      std::string dir;
      CommitMessage* message;  // the bucket's message, or `own` when it wrote nothing now
      CommitMessage own;
    };
    std::vector<Job> jobs(buckets.size());
    for (size_t i = 0; i < buckets.size(); ++i) {
      Job& job = jobs[i];
      job.key = buckets[i];
      FJORD_ASSIGN_OR_RAISE(job.queue, QueueOf(job.key));
      FJORD_ASSIGN_OR_RAISE(job.dir, BucketDir(job.key));
      auto found = messages.find(job.key);
      job.own = CommitMessage{job.key.first, job.key.second, total_buckets, {}, {}};
      job.message = found != messages.end() ? &found->second : &job.own;
    }
    FJORD_RETURN_NOT_OK(ParallelFor(foreground_.get(), jobs.size(), [&](size_t i) {
      Job& job = jobs[i];
      return Compact(job.key, *job.queue, job.dir, job.message->new_files, namer_.get(),
                     job.message);
    }));
    for (Job& job : jobs) {
      if (job.message == &job.own && !job.own.compact_before.empty()) {
        messages[job.key] = std::move(job.own);
      }
    }
  }
  std::vector<CommitMessage> out;
  for (auto& [key, m] : messages) out.push_back(std::move(m));
  return out;
}

}  // namespace fjord
