#include "fjord/table/read/read_parts.h"

#include <algorithm>
#include <utility>

namespace fjord {

namespace {

bool PlainBatchSplit(const DataSplit& split) {
  return !split.streaming && !split.diff && !split.overwrite_changes && split.before_files.empty();
}

// A split holding `files` (and their deletion files) of `whole`'s bucket.
DataSplit PartOf(const DataSplit& whole, std::vector<DataFileMeta> files) {
  DataSplit part;
  part.partition = whole.partition;
  part.partition_values = whole.partition_values;
  part.bucket = whole.bucket;
  part.total_buckets = whole.total_buckets;
  part.bucket_path = whole.bucket_path;
  for (const DataFileMeta& f : files) {
    auto it = whole.deletion_files.find(f.file_name);
    if (it != whole.deletion_files.end()) part.deletion_files.emplace(it->first, it->second);
  }
  part.files = std::move(files);
  return part;
}

}  // namespace

std::vector<DataSplit> SplitIntoReadParts(const std::vector<DataSplit>& splits,
                                          const ReadPartOptions& options) {
  auto weight_of = [&](const DataFileMeta& f) {
    return std::max(f.file_size, options.open_file_cost);
  };
  int64_t total = 0;
  for (const DataSplit& split : splits) {
    for (const DataFileMeta& f : split.files) total += f.level == 0 ? 0 : weight_of(f);
  }
  const int64_t target =
      std::min(options.target_size,
               std::max(options.open_file_cost, total / std::max<int64_t>(1, options.threads * 4)));
  std::vector<DataSplit> parts;
  for (const DataSplit& split : splits) {
    if (!options.files_independent || !PlainBatchSplit(split)) {
      parts.push_back(split);
      continue;
    }
    size_t first = parts.size();
    std::vector<DataFileMeta> bin;
    int64_t bin_weight = 0;
    for (const DataFileMeta& f : split.files) {
      if (f.level == 0) continue;
      int64_t weight = weight_of(f);
      if (!bin.empty() && bin_weight + weight > target) {
        parts.push_back(PartOf(split, std::move(bin)));
        bin.clear();
        bin_weight = 0;
      }
      bin.push_back(f);
      bin_weight += weight;
    }
    // A split of level-0 files only stays one part, of no files.
    if (!bin.empty() || parts.size() == first) parts.push_back(PartOf(split, std::move(bin)));
  }
  if (options.largest_first) {
    auto weight = [&](const DataSplit& part) {
      int64_t w = 0;
      for (const DataFileMeta& f : part.files) w += weight_of(f);
      return w;
    };
    std::stable_sort(parts.begin(), parts.end(),
                     [&](const DataSplit& a, const DataSplit& b) { return weight(a) > weight(b); });
  }
  return parts;
}

}  // namespace fjord
