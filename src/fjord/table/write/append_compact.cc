#include "fjord/table/write/append_compact.h"

#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <set>

#include "fjord/common/arrow_status.h"
#include "fjord/format/binary_row.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/write/append_file_writer.h"

namespace fjord {

namespace {

bool BySequence(const DataFileMeta& a, const DataFileMeta& b) {
  return a.min_sequence_number < b.min_sequence_number;
}

}  // namespace

Result<AppendCompactOptions> AppendCompactOptions::FromOptions(const CoreOptions& options) {
  AppendCompactOptions o;
  o.min_file_num = options.compaction_min_file_num();
  o.target_file_size = options.target_file_size(/*has_primary_key=*/false);
  // Java's compactionFileSize: integer 70 % of the target.
  o.compaction_file_size = o.target_file_size / 10 * 7;
  o.force_rewrite_all_files = options.compaction_force_rewrite_all_files();
  o.open_file_cost = options.source_split_open_file_cost();
  o.file_num_limit = options.compaction_file_num_limit();
  if (o.min_file_num < 1 || o.file_num_limit < 1) {
    return Status::Invalid("compaction.min.file-num and compaction.file-num-limit must be >= 1");
  }
  o.write_only = options.write_only();
  return o;
}

Status CheckAppendCompactionSupported(const CoreOptions& options) {
  const std::pair<const char*, bool> features[] = {
      {"deletion-vectors.enabled", options.deletion_vectors_enabled()},
      {"clustering.incremental", options.clustering_incremental()},
      {"data-evolution.enabled", options.data_evolution_enabled()},
      {"row-tracking.enabled", options.row_tracking_enabled()}};
  for (const auto& [key, enabled] : features) {
    if (enabled) {
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

AppendCompactRewriter::AppendCompactRewriter(std::shared_ptr<FileIO> io, std::string table_root,
                                             TableSchema schema, CoreOptions options,
                                             DataFileNamer* namer)
    : io_(std::move(io)),
      root_(std::move(table_root)),
      schema_(std::move(schema)),
      options_(std::move(options)),
      namer_(namer) {}

AppendCompactRewriter::~AppendCompactRewriter() = default;

Result<std::vector<DataFileMeta>> AppendCompactRewriter::Rewrite(
    const std::string& partition, int32_t bucket, const std::vector<DataFileMeta>& files) {
  if (files.empty()) return std::vector<DataFileMeta>{};
  auto started = std::chrono::steady_clock::now();
  if (!readers_) readers_ = std::make_unique<KvFileReaderFactory>(io_, root_, schema_);
  FJORD_ASSIGN_OR_RAISE(AppendFileSettings settings, AppendFileSettings::Make(schema_, options_));
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketPath(root_, schema_, options_, partition, bucket));
  RollingAppendFileWriter writer(io_, &schema_, &settings, dir, namer_,
                                 files.front().min_sequence_number, kFileSourceCompact);
  int64_t bytes_in = 0;
  for (const DataFileMeta& f : files) {
    // One batch of one input file in memory at a time.
    FJORD_ASSIGN_OR_RAISE(auto reader, readers_->OpenFile(dir, f, schema_.fields, false));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
      if (!batch) break;
      FJORD_RETURN_NOT_OK(writer.Write(*batch));
    }
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

}  // namespace fjord
