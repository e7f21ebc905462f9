#include "fjord/table/commit/manifest_merge.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <utility>

#include "fjord/common/ids.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/commit/file_entry.h"

namespace fjord {

Result<ManifestMergeOptions> ManifestMergeOptions::FromOptions(const CoreOptions& options) {
  ManifestMergeOptions out;
  out.target_file_size = options.manifest_target_file_size();
  out.merge_min_count = options.manifest_merge_min_count();
  out.full_compaction_threshold_size = options.manifest_full_compaction_threshold_size();
  if (out.target_file_size <= 0) {
    return Status::Invalid("manifest.target-file-size must be positive, got ",
                           out.target_file_size);
  }
  if (out.full_compaction_threshold_size <= 0) {
    return Status::Invalid("manifest.full-compaction-threshold-size must be positive, got ",
                           out.full_compaction_threshold_size);
  }
  return out;
}

ManifestFileWriter::ManifestFileWriter(std::shared_ptr<FileIO> io, TablePaths paths,
                                       const TableSchema& schema,
                                       ManifestWriterOptions writer_options, std::string format,
                                       int64_t target_file_size)
    : io_(std::move(io)),
      paths_(std::move(paths)),
      writer_options_(std::move(writer_options)),
      format_(std::move(format)),
      target_file_size_(target_file_size) {
  for (const DataField& f : schema.FieldsByName(schema.partition_keys)) {
    partition_types_.push_back(f.type->WithNullable(true));
  }
}

Result<ManifestFileMeta> ManifestFileWriter::Describe(const std::vector<ManifestEntry>& entries,
                                                      size_t begin, size_t end) const {
  ManifestFileMeta meta;
  const std::vector<DataTypePtr>& types = partition_types_;
  std::vector<Value> mins(types.size()), maxs(types.size());
  std::vector<std::optional<int64_t>> nulls(types.size(), int64_t{0});
  bool all_row_ids = begin < end;
  int64_t min_row_id = INT64_MAX, max_row_id = INT64_MIN;
  for (size_t k = begin; k < end; ++k) {
    const ManifestEntry& e = entries[k];
    (e.kind == FileKind::kAdd ? meta.num_added_files : meta.num_deleted_files)++;
    meta.schema_id = std::max(meta.schema_id, e.file.schema_id);
    meta.min_bucket = meta.min_bucket ? std::min(*meta.min_bucket, e.bucket) : e.bucket;
    meta.max_bucket = meta.max_bucket ? std::max(*meta.max_bucket, e.bucket) : e.bucket;
    meta.min_level = meta.min_level ? std::min(*meta.min_level, e.file.level) : e.file.level;
    meta.max_level = meta.max_level ? std::max(*meta.max_level, e.file.level) : e.file.level;
    if (e.file.first_row_id) {
      min_row_id = std::min(min_row_id, *e.file.first_row_id);
      max_row_id = std::max(max_row_id, *e.file.first_row_id + e.file.row_count - 1);
    } else {
      all_row_ids = false;
    }
    if (types.empty()) continue;
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(e.partition, types));
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_null()) {
        ++*nulls[i];
        continue;
      }
      if (mins[i].is_null() || CompareValues(values[i], mins[i], *types[i]) < 0) {
        mins[i] = values[i];
      }
      if (maxs[i].is_null() || CompareValues(values[i], maxs[i], *types[i]) > 0) {
        maxs[i] = values[i];
      }
    }
  }
  if (all_row_ids) {
    meta.min_row_id = min_row_id;
    meta.max_row_id = max_row_id;
  }
  FJORD_ASSIGN_OR_RAISE(meta.partition_stats.min_values, EncodeStoredBinaryRow(mins, types));
  FJORD_ASSIGN_OR_RAISE(meta.partition_stats.max_values, EncodeStoredBinaryRow(maxs, types));
  meta.partition_stats.null_counts = nulls;
  return meta;
}

Result<std::vector<ManifestFileMeta>> ManifestFileWriter::Write(
    const std::vector<ManifestEntry>& entries) const {
  std::vector<ManifestFileMeta> out;
  if (entries.empty()) return out;
  // Rolled as Java's rolling writer does: a file is closed once it reaches the target size, so
  // every file but the last is at least that big. (Files split evenly below the target would be
  // merged again by the next commit's minor compaction, and again, forever.) Java checks the size
  // while writing; here a part is encoded whole and grown until it reaches the target.
  std::vector<std::pair<size_t, size_t>> ranges;  // [begin, end)
  std::vector<std::string> encoded;
  FJORD_ASSIGN_OR_RAISE(std::string whole, EncodeManifestFile(entries, writer_options_));
  const size_t n = entries.size();
  if (static_cast<int64_t>(whole.size()) <= target_file_size_ || n == 1) {
    ranges.emplace_back(0, n);
    encoded.push_back(std::move(whole));
  } else {
    double per_entry = static_cast<double>(whole.size()) / static_cast<double>(n);
    whole.clear();
    size_t guess = std::max<size_t>(
        1, static_cast<size_t>(std::ceil(static_cast<double>(target_file_size_) / per_entry)));
    for (size_t begin = 0; begin < n;) {
      size_t count = std::min(n - begin, guess);
      std::string part;
      while (true) {
        std::vector<ManifestEntry> slice(entries.begin() + begin, entries.begin() + begin + count);
        FJORD_ASSIGN_OR_RAISE(part, EncodeManifestFile(slice, writer_options_));
        if (static_cast<int64_t>(part.size()) >= target_file_size_ || begin + count == n) break;
        count = std::min(n - begin, count + std::max<size_t>(1, count / 8));
      }
      ranges.emplace_back(begin, begin + count);
      encoded.push_back(std::move(part));
      begin += count;
    }
  }
  std::string prefix = "manifest-" + RandomUuid() + "-";
  for (size_t i = 0; i < ranges.size(); ++i) {
    Result<ManifestFileMeta> meta = Describe(entries, ranges[i].first, ranges[i].second);
    Status st = meta.status();
    if (st.ok()) {
      meta->file_name = prefix + std::to_string(i);
      meta->file_size = static_cast<int64_t>(encoded[i].size());
      st = io_->CreateIfAbsent(paths_.ManifestFile(meta->file_name), encoded[i]);
    }
    if (!st.ok()) {
      DeleteQuietly(out);
      return st;
    }
    out.push_back(std::move(*meta));
  }
  return out;
}

Result<ManifestFileMeta> ManifestFileWriter::Combine(const ManifestFileMeta& a,
                                                     const ManifestFileMeta& b) const {
  ManifestFileMeta out;
  out.num_added_files = a.num_added_files + b.num_added_files;
  out.num_deleted_files = a.num_deleted_files + b.num_deleted_files;
  out.schema_id = std::max(a.schema_id, b.schema_id);
  auto lo = [](std::optional<int32_t> x, std::optional<int32_t> y) -> std::optional<int32_t> {
    if (!x || !y) return x ? x : y;
    return std::min(*x, *y);
  };
  auto hi = [](std::optional<int32_t> x, std::optional<int32_t> y) -> std::optional<int32_t> {
    if (!x || !y) return x ? x : y;
    return std::max(*x, *y);
  };
  out.min_bucket = lo(a.min_bucket, b.min_bucket);
  out.max_bucket = hi(a.max_bucket, b.max_bucket);
  out.min_level = lo(a.min_level, b.min_level);
  out.max_level = hi(a.max_level, b.max_level);
  if (a.min_row_id && b.min_row_id && a.max_row_id && b.max_row_id) {
    out.min_row_id = std::min(*a.min_row_id, *b.min_row_id);
    out.max_row_id = std::max(*a.max_row_id, *b.max_row_id);
  }
  const std::vector<DataTypePtr>& types = partition_types_;
  FJORD_ASSIGN_OR_RAISE(auto a_min, DecodeStoredBinaryRow(a.partition_stats.min_values, types));
  FJORD_ASSIGN_OR_RAISE(auto a_max, DecodeStoredBinaryRow(a.partition_stats.max_values, types));
  FJORD_ASSIGN_OR_RAISE(auto b_min, DecodeStoredBinaryRow(b.partition_stats.min_values, types));
  FJORD_ASSIGN_OR_RAISE(auto b_max, DecodeStoredBinaryRow(b.partition_stats.max_values, types));
  std::vector<std::optional<int64_t>> nulls(types.size());
  for (size_t i = 0; i < types.size(); ++i) {
    // A null bound means no non-null value: the other side's bound wins.
    if (a_min[i].is_null() ||
        (!b_min[i].is_null() && CompareValues(b_min[i], a_min[i], *types[i]) < 0)) {
      a_min[i] = b_min[i];
    }
    if (a_max[i].is_null() ||
        (!b_max[i].is_null() && CompareValues(b_max[i], a_max[i], *types[i]) > 0)) {
      a_max[i] = b_max[i];
    }
    const auto& an = a.partition_stats.null_counts;
    const auto& bn = b.partition_stats.null_counts;
    if (an && bn && i < an->size() && i < bn->size() && (*an)[i] && (*bn)[i]) {
      nulls[i] = *(*an)[i] + *(*bn)[i];
    }
  }
  FJORD_ASSIGN_OR_RAISE(out.partition_stats.min_values, EncodeStoredBinaryRow(a_min, types));
  FJORD_ASSIGN_OR_RAISE(out.partition_stats.max_values, EncodeStoredBinaryRow(a_max, types));
  out.partition_stats.null_counts = nulls;
  return out;
}

Result<std::optional<ManifestFileMeta>> ManifestFileWriter::WriteAfter(
    const ManifestFileMeta& base, const std::vector<ManifestEntry>& entries) const {
  using Out = std::optional<ManifestFileMeta>;
  if (format_ != "avro" || writer_options_.format != ManifestFormat::kAvro || entries.empty()) {
    return Out();
  }
  const std::string base_path = paths_.ManifestFile(base.file_name);
  FJORD_ASSIGN_OR_RAISE(std::string bytes, io_->ReadFile(base_path));
  if (static_cast<int64_t>(bytes.size()) != base.file_size) return Out();
  FJORD_ASSIGN_OR_RAISE(auto reader, avro::ContainerReader::Open(bytes, base_path));
  // Blocks written with the base's sync marker fit after its own; the rest of the header (schema,
  // codec, metadata) must be exactly what this writer writes, or the copied blocks would be read
  // with another schema or codec.
  ManifestWriterOptions options = writer_options_;
  options.sync_marker = reader->sync_marker();
  FJORD_ASSIGN_OR_RAISE(std::string header, EncodeManifestFile({}, options));
  if (bytes.size() < header.size() || bytes.compare(0, header.size(), header) != 0) return Out();
  FJORD_ASSIGN_OR_RAISE(std::string tail, EncodeManifestFile(entries, options));
  if (tail.compare(0, header.size(), header) != 0) {
    return Status::Internal("manifest encoding does not start with its empty encoding");
  }
  bytes.append(tail, header.size(), std::string::npos);

  FJORD_ASSIGN_OR_RAISE(ManifestFileMeta added, Describe(entries, 0, entries.size()));
  FJORD_ASSIGN_OR_RAISE(ManifestFileMeta meta, Combine(base, added));
  meta.file_name = "manifest-" + RandomUuid() + "-0";
  meta.file_size = static_cast<int64_t>(bytes.size());
  FJORD_RETURN_NOT_OK(io_->CreateIfAbsent(paths_.ManifestFile(meta.file_name), bytes));
  return Out(std::move(meta));
}

Result<std::vector<ManifestEntry>> ManifestFileWriter::Read(const ManifestFileMeta& m) const {
  return ReadManifestFile(io_.get(), paths_.ManifestFile(m.file_name), format_);
}

void ManifestFileWriter::DeleteQuietly(const std::vector<ManifestFileMeta>& metas) const {
  for (const ManifestFileMeta& m : metas) (void)io_->Delete(paths_.ManifestFile(m.file_name));
}

namespace {

// Merges `candidates` into `result`: a lone manifest is kept as it is, several are read, folded
// (ADD/DELETE pairs cancel) and rewritten.
Status MergeCandidates(const std::vector<ManifestFileMeta>& candidates,
                       const ManifestFileWriter& writer, const ManifestMergeOptions& options,
                       std::vector<ManifestFileMeta>* result,
                       std::vector<ManifestFileMeta>* written) {
  if (candidates.size() == 1) {
    result->push_back(candidates[0]);
    return Status::OK();
  }
  const ManifestFileMeta& first = candidates[0];
  bool later_deletes =
      std::any_of(candidates.begin() + 1, candidates.end(),
                  [](const ManifestFileMeta& m) { return m.num_deleted_files > 0; });
  if (first.file_size >= std::min(kCopyMergeMinSize, options.target_file_size / 2) &&
      !later_deletes) {
    // Nothing after the first manifest deletes, so none of its entries can be cancelled.
    EntryMerger rest;
    for (size_t i = 1; i < candidates.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, writer.Read(candidates[i]));
      FJORD_RETURN_NOT_OK(
          rest.AddAll(std::move(entries), writer.paths().ManifestFile(candidates[i].file_name)));
    }
    FJORD_ASSIGN_OR_RAISE(std::optional<ManifestFileMeta> merged,
                          writer.WriteAfter(first, rest.Take()));
    if (merged) {
      written->push_back(*merged);
      result->push_back(std::move(*merged));
      return Status::OK();
    }
  }
  EntryMerger merger;
  for (const ManifestFileMeta& m : candidates) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, writer.Read(m));
    FJORD_RETURN_NOT_OK(
        merger.AddAll(std::move(entries), writer.paths().ManifestFile(m.file_name)));
  }
  if (merger.size() == 0) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> merged, writer.Write(merger.Take()));
  written->insert(written->end(), merged.begin(), merged.end());
  result->insert(result->end(), merged.begin(), merged.end());
  return Status::OK();
}

Result<std::vector<ManifestFileMeta>> MinorCompaction(const std::vector<ManifestFileMeta>& input,
                                                      const ManifestFileWriter& writer,
                                                      const ManifestMergeOptions& options,
                                                      std::vector<ManifestFileMeta>* written) {
  std::vector<ManifestFileMeta> result, candidates;
  int64_t total = 0;
  for (const ManifestFileMeta& m : input) {
    total += m.file_size;
    candidates.push_back(m);
    if (total >= options.target_file_size) {
      FJORD_RETURN_NOT_OK(MergeCandidates(candidates, writer, options, &result, written));
      candidates.clear();
      total = 0;
    }
  }
  if (static_cast<int64_t>(candidates.size()) >= options.merge_min_count) {
    FJORD_RETURN_NOT_OK(MergeCandidates(candidates, writer, options, &result, written));
  } else {
    result.insert(result.end(), candidates.begin(), candidates.end());
  }
  return result;
}

Result<std::optional<std::vector<ManifestFileMeta>>> FullCompaction(
    const std::vector<ManifestFileMeta>& input, const ManifestFileWriter& writer,
    const TableSchema& schema, const ManifestMergeOptions& options,
    std::vector<ManifestFileMeta>* written) {
  using Out = std::optional<std::vector<ManifestFileMeta>>;
  auto must_change = [&](const ManifestFileMeta& m) {
    return m.num_deleted_files > 0 || m.file_size < options.target_file_size;
  };
  int64_t must_change_size = 0;
  for (const ManifestFileMeta& m : input) {
    if (must_change(m)) must_change_size += m.file_size;
  }
  if (must_change_size < options.full_compaction_threshold_size) return Out();

  // Every file some manifest deletes, and the partitions they live in.
  std::set<FileIdentifier> deleted;
  std::set<std::string> deleted_partitions;
  for (const ManifestFileMeta& m : input) {
    if (m.num_deleted_files == 0) continue;
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, writer.Read(m));
    for (const ManifestEntry& e : entries) {
      if (e.kind != FileKind::kDelete) continue;
      deleted.insert(IdentifierOf(e));
      deleted_partitions.insert(e.partition);
    }
  }
  // Manifests that need no change and cannot hold a deleted file stay as they are.
  std::optional<PartitionFilter> touched;  // nullopt: no manifest is touched by a delete
  if (!deleted.empty()) {
    if (schema.partition_keys.empty()) {
      touched = PartitionFilter::All();
    } else {
      FJORD_ASSIGN_OR_RAISE(touched, PartitionFilter::Of(deleted_partitions, schema));
    }
  }
  std::vector<ManifestFileMeta> result, to_merge;
  for (const ManifestFileMeta& m : input) {
    if (must_change(m)) {
      to_merge.push_back(m);
      continue;
    }
    bool may = false;
    if (touched) {
      FJORD_ASSIGN_OR_RAISE(may, touched->MayContain(m));
    }
    (may ? to_merge : result).push_back(m);
  }
  if (to_merge.size() <= 1) return Out();

  std::vector<ManifestEntry> kept;
  for (const ManifestFileMeta& m : to_merge) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, writer.Read(m));
    bool rewrite = must_change(m);
    std::vector<ManifestEntry> survivors;
    for (ManifestEntry& e : entries) {
      if (e.kind == FileKind::kDelete) continue;
      if (deleted.count(IdentifierOf(e))) {
        rewrite = true;
      } else {
        survivors.push_back(std::move(e));
      }
    }
    if (rewrite) {
      kept.insert(kept.end(), std::make_move_iterator(survivors.begin()),
                  std::make_move_iterator(survivors.end()));
    } else {
      result.push_back(m);
    }
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> merged, writer.Write(kept));
  written->insert(written->end(), merged.begin(), merged.end());
  result.insert(result.end(), merged.begin(), merged.end());
  return Out(std::move(result));
}

}  // namespace

Result<std::vector<ManifestFileMeta>> MergeManifests(const std::vector<ManifestFileMeta>& input,
                                                     const ManifestFileWriter& writer,
                                                     const TableSchema& schema,
                                                     const ManifestMergeOptions& options,
                                                     std::vector<ManifestFileMeta>* written) {
  FJORD_ASSIGN_OR_RAISE(auto full, FullCompaction(input, writer, schema, options, written));
  if (full) return std::move(*full);
  return MinorCompaction(input, writer, options, written);
}

}  // namespace fjord
