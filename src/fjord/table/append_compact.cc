#include "fjord/table/append_compact.h"

#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "fjord/common/arrow_status.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/append_write.h"
#include "fjord/table/partition_path.h"
#include "fjord/table/scan.h"
#include "fjord/table/table.h"
#include "fjord/table/table_read.h"

namespace fjord {

namespace {

bool BySequence(const DataFileMeta& a, const DataFileMeta& b) {
  return a.min_sequence_number < b.min_sequence_number;
}

Result<std::string> BucketDirectory(const std::string& root, const TableSchema& schema,
                                    const std::string& partition, int32_t bucket) {
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> types;
  for (const DataField& f : partition_fields) types.push_back(f.type->WithNullable(true));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(partition, types));
  std::string dir = root;
  std::string ppath =
      PartitionPath(partition_fields, values,
                    schema.Option("partition.default-name").value_or("__DEFAULT_PARTITION__"));
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  return JoinPath(dir, "bucket-" + std::to_string(bucket));
}

bool OptionTrue(const Options& options, std::string_view key) {
  std::string v = options.GetOr(key, "false");
  std::transform(v.begin(), v.end(), v.begin(), [](unsigned char c) { return std::tolower(c); });
  return v == "true";
}

}  // namespace

Result<AppendCompactOptions> AppendCompactOptions::FromOptions(const Options& options) {
  AppendCompactOptions o;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> min_files,
                        options.GetInt("compaction.min.file-num"));
  if (min_files) o.min_file_num = static_cast<int32_t>(*min_files);
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> target, options.GetMemorySize("target-file-size"));
  if (target) o.target_file_size = *target;
  // Java's compactionFileSize: integer 70 % of the target.
  o.compaction_file_size = o.target_file_size / 10 * 7;
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> force,
                        options.GetBool("compaction.force-rewrite-all-files"));
  o.force_rewrite_all_files = force.value_or(false);
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> cost,
                        options.GetMemorySize("source.split.open-file-cost"));
  if (cost) o.open_file_cost = *cost;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> limit, options.GetInt("compaction.file-num-limit"));
  if (limit) o.file_num_limit = static_cast<int32_t>(*limit);
  if (o.min_file_num < 1 || o.file_num_limit < 1) {
    return Status::Invalid("compaction.min.file-num and compaction.file-num-limit must be >= 1");
  }
  // write-only, with Java's fallback key write.compaction-skip when write-only is not set.
  bool write_only_set =
      options.LayerOf("write-only").value_or(OptionLayer::kDefault) != OptionLayer::kDefault;
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> write_only,
                        options.GetBool(write_only_set || !options.Contains("write.compaction-skip")
                                            ? "write-only"
                                            : "write.compaction-skip"));
  o.write_only = write_only.value_or(false);
  return o;
}

Status CheckAppendCompactionSupported(const TableSchema& schema) {
  Options options = Options::FromTable(schema.EffectiveOptions());
  for (const char* key : {"deletion-vectors.enabled", "clustering.incremental",
                          "data-evolution.enabled", "row-tracking.enabled"}) {
    if (OptionTrue(options, key)) {
      return Status::NotImplemented("compacting append tables with '", key,
                                    "' = true (their index files or row ids would have to be "
                                    "rewritten too)");
    }
  }
  return Status::OK();
}

// ---- BucketCompactQueue ------------------------------------------------------------------------

BucketCompactQueue::BucketCompactQueue(AppendCompactOptions options,
                                       std::vector<DataFileMeta> restored)
    : options_(options), files_(std::move(restored)) {
  std::stable_sort(files_.begin(), files_.end(), BySequence);
}

void BucketCompactQueue::Add(DataFileMeta file) {
  auto at = std::upper_bound(files_.begin(), files_.end(), file, BySequence);
  files_.insert(at, std::move(file));
}

std::optional<std::vector<DataFileMeta>> BucketCompactQueue::PickBestEffort() {
  size_t low = 0;  // the window is files_[low, i]
  int64_t window_size = 0;
  for (size_t i = 0; i < files_.size(); ++i) {
    window_size += files_[i].file_size;
    if (static_cast<int64_t>(i + 1 - low) >= options_.min_file_num) {
      std::vector<DataFileMeta> picked(files_.begin() + static_cast<std::ptrdiff_t>(low),
                                       files_.begin() + static_cast<std::ptrdiff_t>(i + 1));
      files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(i + 1));
      return picked;
    }
    if (window_size >= options_.target_file_size * 2) {
      window_size -= files_[low].file_size;
      ++low;
    }
  }
  // Nothing picked: the files that slid out of the window leave the queue, the rest stays.
  files_.erase(files_.begin(), files_.begin() + static_cast<std::ptrdiff_t>(low));
  return std::nullopt;
}

std::vector<DataFileMeta> BucketCompactQueue::PickFull() {
  constexpr size_t kFullCompactMinFiles = 3;  // Java's FULL_COMPACT_MIN_FILE
  if (!options_.force_rewrite_all_files && files_.size() < kFullCompactMinFiles) return {};
  std::vector<DataFileMeta> all = std::move(files_);
  files_.clear();
  if (options_.force_rewrite_all_files) return all;
  size_t first = 0;
  while (first < all.size() && all[first].file_size >= options_.compaction_file_size) ++first;
  std::vector<DataFileMeta> rest(all.begin() + static_cast<std::ptrdiff_t>(first), all.end());
  size_t big = 0;
  for (const DataFileMeta& f : rest) big += f.file_size >= options_.compaction_file_size ? 1 : 0;
  size_t small = rest.size() - big;
  if (small > big && rest.size() >= kFullCompactMinFiles) return rest;
  return {};
}

void BucketCompactQueue::Compacted(const std::vector<DataFileMeta>& after) {
  if (!after.empty() && after.back().file_size < options_.compaction_file_size) Add(after.back());
}

// ---- UnawareCompactCoordinator -----------------------------------------------------------------

void UnawareCompactCoordinator::AddFiles(const std::string& partition,
                                         const std::vector<DataFileMeta>& files) {
  Partition& p = partitions_[partition];
  p.age = 0;
  std::set<std::string> known;
  for (const DataFileMeta& f : p.files) known.insert(f.file_name);
  for (const DataFileMeta& f : files) {
    if (ShouldCompact(f) && known.insert(f.file_name).second) p.files.push_back(f);
  }
}

std::vector<std::vector<DataFileMeta>> UnawareCompactCoordinator::Pack(Partition& p,
                                                                       bool full) const {
  // Smallest first (ties in sequence, then name order, for determinism; Java's are arbitrary).
  std::vector<DataFileMeta> files = p.files;
  std::sort(files.begin(), files.end(), [](const DataFileMeta& a, const DataFileMeta& b) {
    if (a.file_size != b.file_size) return a.file_size < b.file_size;
    if (a.min_sequence_number != b.min_sequence_number) {
      return a.min_sequence_number < b.min_sequence_number;
    }
    return a.file_name < b.file_name;
  });
  std::vector<std::vector<DataFileMeta>> bins;
  std::vector<DataFileMeta> bin;
  int64_t bin_size = 0;
  for (DataFileMeta& f : files) {
    bin_size += f.file_size + options_.open_file_cost;
    bin.push_back(std::move(f));
    if (bin.size() > 1 && bin_size >= options_.target_file_size * 2) {
      bins.push_back(std::move(bin));
      bin.clear();
      bin_size = 0;
    }
  }
  // The remainder: when it has min_file_num files (and, unlike Java, never a lone file: Java's
  // task refuses one).
  if (bin.size() > 1 && (full || static_cast<int64_t>(bin.size()) >= options_.min_file_num)) {
    bins.push_back(std::move(bin));
  }
  return bins;
}

std::vector<UnawareCompactCoordinator::Task> UnawareCompactCoordinator::Plan(bool full) {
  std::vector<Task> tasks;
  for (auto& [partition, p] : partitions_) {
    std::vector<std::vector<DataFileMeta>> bins = Pack(p, full);
    if (bins.empty() && ++p.age > kCompactAge && p.files.size() > 1) {
      bins.push_back(std::move(p.files));
      p.files.clear();
    }
    for (std::vector<DataFileMeta>& bin : bins) {
      std::set<std::string> taken;
      for (const DataFileMeta& f : bin) taken.insert(f.file_name);
      std::erase_if(p.files, [&](const DataFileMeta& f) { return taken.count(f.file_name) > 0; });
      tasks.push_back(Task{partition, std::move(bin)});
    }
  }
  std::erase_if(partitions_, [](const auto& entry) {
    return entry.second.files.empty() || entry.second.age > kRemoveAge;
  });
  return tasks;
}

std::map<std::string, std::vector<DataFileMeta>> UnawareCompactCoordinator::Waiting() const {
  std::map<std::string, std::vector<DataFileMeta>> out;
  for (const auto& [partition, p] : partitions_) out[partition] = p.files;
  return out;
}

// ---- AppendCompactRewriter ---------------------------------------------------------------------

AppendCompactRewriter::AppendCompactRewriter(std::shared_ptr<FileIO> io, std::string table_root,
                                             TableSchema schema, DataFileNamer* namer)
    : io_(std::move(io)), root_(std::move(table_root)), schema_(std::move(schema)), namer_(namer) {}

AppendCompactRewriter::~AppendCompactRewriter() = default;

Result<std::vector<DataFileMeta>> AppendCompactRewriter::Rewrite(
    const std::string& partition, int32_t bucket, const std::vector<DataFileMeta>& files) {
  if (files.empty()) return std::vector<DataFileMeta>{};
  auto started = std::chrono::steady_clock::now();
  if (!reader_) reader_ = std::make_unique<TableRead>(io_, root_, schema_);
  FJORD_ASSIGN_OR_RAISE(AppendFileSettings settings, AppendFileSettings::FromSchema(schema_));
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDirectory(root_, schema_, partition, bucket));
  RollingAppendFileWriter writer(io_, &schema_, &settings, dir, namer_,
                                 files.front().min_sequence_number, kFileSourceCompact);
  int64_t bytes_in = 0;
  for (const DataFileMeta& f : files) {
    // One input file in memory at a time.
    DataSplit split;
    split.partition = partition;
    split.bucket = bucket;
    split.bucket_path = dir;
    split.files = {f};
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> rows, reader_->Read(split));
    FJORD_ARROW_ASSIGN_OR_RAISE(auto batches, arrow::TableBatchReader(*rows).ToRecordBatches());
    for (const auto& batch : batches) FJORD_RETURN_NOT_OK(writer.Write(*batch));
    bytes_in += f.file_size;
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> after, writer.Finish());
  metrics_.compactions++;
  metrics_.files_in += static_cast<int64_t>(files.size());
  metrics_.files_out += static_cast<int64_t>(after.size());
  metrics_.bytes_in += bytes_in;
  for (const DataFileMeta& f : after) metrics_.bytes_out += f.file_size;
  metrics_.millis += std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - started)
                         .count();
  return after;
}

// ---- Dedicated compaction ----------------------------------------------------------------------

Result<std::vector<CommitMessage>> CompactAppendTable(
    const Table& table, const std::function<bool(const std::string&)>& partition_filter, bool full,
    AppendCompactMetrics* metrics) {
  const TableSchema& schema = table.schema();
  if (!schema.primary_keys.empty()) {
    return Status::Invalid(table.path(), " has a primary key; not an append table");
  }
  FJORD_RETURN_NOT_OK(CheckAppendCompactionSupported(schema));
  Options options = Options::FromTable(schema.EffectiveOptions());
  FJORD_ASSIGN_OR_RAISE(AppendCompactOptions compact, AppendCompactOptions::FromOptions(options));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> bucket_option, options.GetInt("bucket"));
  const int32_t buckets = static_cast<int32_t>(bucket_option.value_or(-1));
  std::vector<CommitMessage> messages;
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table.snapshots().Latest());
  if (!latest) return messages;
  TableScan scan(table.io(), table.path(), schema);
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
  if (partition_filter) {
    std::erase_if(entries, [&](const ManifestEntry& e) { return !partition_filter(e.partition); });
  }

  FJORD_ASSIGN_OR_RAISE(AppendFileSettings settings, AppendFileSettings::FromSchema(schema));
  DataFileNamer namer(settings.prefix, std::string(FileFormatName(settings.format)));
  AppendCompactRewriter rewriter(table.io(), table.path(), schema, &namer);
  AppendCompactMetrics local;
  if (!metrics) metrics = &local;
  // On failure the files this job wrote go again.
  auto rewrite = [&](const std::string& partition, int32_t bucket, int32_t total_buckets,
                     std::vector<DataFileMeta> before) -> Status {
    Result<std::vector<DataFileMeta>> after = rewriter.Rewrite(partition, bucket, before);
    if (!after.ok()) {
      for (const CommitMessage& m : messages) {
        Result<std::string> dir = BucketDirectory(table.path(), schema, m.partition, m.bucket);
        if (!dir.ok()) continue;
        for (const DataFileMeta& f : m.compact_after) {
          (void)table.io()->Delete(JoinPath(*dir, f.file_name));
        }
      }
      messages.clear();
      return after.status();
    }
    CommitMessage m{partition, bucket, total_buckets, {}, {}};
    m.compact_before = std::move(before);
    m.compact_after = std::move(*after);
    messages.push_back(std::move(m));
    return Status::OK();
  };

  if (buckets > 0) {
    std::map<PartitionBucket, std::vector<DataFileMeta>> by_bucket;
    for (ManifestEntry& e : entries) {
      by_bucket[{e.partition, e.bucket}].push_back(std::move(e.file));
    }
    metrics->scanned += static_cast<int64_t>(by_bucket.size());
    for (auto& [key, files] : by_bucket) {
      BucketCompactQueue queue(compact, std::move(files));
      std::vector<DataFileMeta> picked;
      if (full) {
        picked = queue.PickFull();
      } else if (std::optional<std::vector<DataFileMeta>> p = queue.PickBestEffort()) {
        picked = std::move(*p);
      }
      if (picked.empty()) continue;
      FJORD_RETURN_NOT_OK(rewrite(key.first, key.second, buckets, std::move(picked)));
    }
  } else {
    // Java's batch coordinator: scan the small files compaction.file-num-limit at a time and plan
    // after each batch; whatever a batch leaves stays for the next plan.
    UnawareCompactCoordinator coordinator(compact);
    std::vector<const ManifestEntry*> small;
    std::set<std::string> partitions;
    for (const ManifestEntry& e : entries) {
      if (coordinator.ShouldCompact(e.file)) {
        small.push_back(&e);
        partitions.insert(e.partition);
      }
    }
    metrics->scanned += static_cast<int64_t>(partitions.size());
    for (size_t begin = 0; begin < small.size();
         begin += static_cast<size_t>(compact.file_num_limit)) {
      size_t end = std::min(small.size(), begin + static_cast<size_t>(compact.file_num_limit));
      std::map<std::string, std::vector<DataFileMeta>> batch;
      for (size_t i = begin; i < end; ++i) batch[small[i]->partition].push_back(small[i]->file);
      for (const auto& [partition, files] : batch) coordinator.AddFiles(partition, files);
      for (UnawareCompactCoordinator::Task& task : coordinator.Plan(full)) {
        FJORD_RETURN_NOT_OK(rewrite(task.partition, 0, -1, std::move(task.files)));
      }
    }
  }
  const AppendCompactMetrics& m = rewriter.metrics();
  metrics->compactions += m.compactions;
  metrics->files_in += m.files_in;
  metrics->files_out += m.files_out;
  metrics->bytes_in += m.bytes_in;
  metrics->bytes_out += m.bytes_out;
  metrics->millis += m.millis;
  return messages;
}

}  // namespace fjord
