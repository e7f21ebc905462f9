#include "fjord/table/compact/append_compact_job.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <set>

#include "fjord/common/executor.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/write/row_router.h"

namespace fjord {

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

// ---- Dedicated compaction ----------------------------------------------------------------------

Result<std::vector<CommitMessage>> CompactAppendTable(
    const FileStoreTable& table, const std::function<bool(const std::string&)>& partition_filter,
    bool full, AppendCompactMetrics* metrics, int threads) {
  const TableSchema& schema = table.schema();
  if (!schema.primary_keys.empty()) {
    return Status::Invalid(table.path(), " has a primary key; not an append table");
  }
  const CoreOptions& options = table.core_options();
  FJORD_RETURN_NOT_OK(CheckAppendCompactionSupported(options));
  FJORD_ASSIGN_OR_RAISE(AppendCompactOptions compact, AppendCompactOptions::FromOptions(options));
  const int32_t buckets = options.bucket();
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table.snapshots().Latest());
  if (!latest) return std::vector<CommitMessage>{};
  TableScan scan(table.io(), table.path(), schema);
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
  if (partition_filter) {
    std::erase_if(entries, [&](const ManifestEntry& e) { return !partition_filter(e.partition); });
  }

  FJORD_ASSIGN_OR_RAISE(AppendFileSettings settings, AppendFileSettings::Make(schema, options));
  DataFileNamer namer(settings.prefix, std::string(FileFormatName(settings.format)));
  AppendCompactMetrics local;
  if (!metrics) metrics = &local;
  // What to rewrite is planned first; the rewrites then run at once, each with its own rewriter.
  struct Task {
    std::string partition;
    int32_t bucket = 0;
    int32_t total_buckets = -1;
    std::vector<DataFileMeta> before;
    std::vector<DataFileMeta> after;
    AppendCompactMetrics metrics;
  };
  std::vector<Task> tasks;
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
      tasks.push_back(Task{key.first, key.second, buckets, std::move(picked), {}, {}});
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
        tasks.push_back(Task{task.partition, 0, -1, std::move(task.files), {}, {}});
      }
    }
  }
  int workers = (threads > 0 ? threads : DefaultThreads()) - 1;
  std::unique_ptr<ThreadPool> pool;
  if (workers > 0 && tasks.size() > 1) pool = std::make_unique<ThreadPool>(workers);
  Status done = ParallelFor(pool.get(), tasks.size(), [&](size_t i) -> Status {
    Task& t = tasks[i];
    AppendCompactRewriter rewriter(table.io(), table.path(), schema, options, &namer);
    FJORD_ASSIGN_OR_RAISE(t.after, rewriter.Rewrite(t.partition, t.bucket, t.before));
    t.metrics = rewriter.metrics();
    return Status::OK();
  });
  if (!done.ok()) {
    // The files this job wrote go again.
    for (const Task& t : tasks) {
      Result<std::string> dir = BucketPath(table.path(), schema, options, t.partition, t.bucket);
      if (!dir.ok()) continue;
      for (const DataFileMeta& f : t.after) (void)table.io()->Delete(JoinPath(*dir, f.file_name));
    }
    return done;
  }
  std::vector<CommitMessage> messages;
  for (Task& t : tasks) {
    metrics->compactions += t.metrics.compactions;
    metrics->files_in += t.metrics.files_in;
    metrics->files_out += t.metrics.files_out;
    metrics->bytes_in += t.metrics.bytes_in;
    metrics->bytes_out += t.metrics.bytes_out;
    metrics->millis += t.metrics.millis;
    CommitMessage m{t.partition, t.bucket, t.total_buckets, {}, {}};
    m.compact_before = std::move(t.before);
    m.compact_after = std::move(t.after);
    messages.push_back(std::move(m));
  }
  return messages;
}

}  // namespace fjord
