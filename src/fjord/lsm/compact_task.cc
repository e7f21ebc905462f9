#include "fjord/lsm/compact_task.h"

#include <arrow/api.h>

#include <chrono>
#include <string>
#include <unordered_set>

namespace fjord {

namespace {

class Task {
 public:
  Task(const CompactUnit& unit, bool drop_delete, const CompactContext& context)
      : unit_(unit), drop_delete_(drop_delete), ctx_(context) {}

  Result<CompactResult> Run() {
    FJORD_ASSIGN_OR_RAISE(layout_, KvLayout::Make(ctx_.schema));
    std::vector<DataTypePtr> key_types;
    for (int k : layout_.key_columns) {
      key_types.push_back(ctx_.schema.fields[static_cast<size_t>(k)].type);
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges(unit_.files, key_types));
    FJORD_RETURN_NOT_OK(LoadHigherKeys());
    std::vector<Section> pending;
    for (const Section& section : PartitionIntervals(ranges)) {
      if (section.size() > 1) {
        pending.push_back(section);
        continue;
      }
      for (size_t f : section[0]) {
        const DataFileMeta& file = unit_.files[f];
        if (file.file_size < ctx_.compaction_file_size) {
          pending.push_back(Section{FileRun{f}});
        } else {
          FJORD_RETURN_NOT_OK(Flush(&pending));
          FJORD_RETURN_NOT_OK(Upgrade(f));
        }
      }
    }
    FJORD_RETURN_NOT_OK(Flush(&pending));
    return std::move(result_);
  }

 private:
  // First-row below the max level: the keys of the runs above the output level.
  Status LoadHigherKeys() {
    bool has_level0 = false;
    for (const DataFileMeta& f : unit_.files) has_level0 |= f.level == 0;
    if (!ctx_.first_row || !has_level0 || unit_.output_level >= ctx_.max_level) {
      return Status::OK();
    }
    filter_higher_keys_ = true;
    FJORD_ASSIGN_OR_RAISE(key_encoder_, layout_.KeyEncoder());
    for (const auto& run : ctx_.higher_runs) {
      if (run.empty()) continue;
      FJORD_ASSIGN_OR_RAISE(auto reader, ctx_.open_run(run));
      while (true) {
        FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
        if (!batch) break;
        FJORD_ASSIGN_OR_RAISE(EncodedRows keys, key_encoder_.Encode(*batch));
        for (int64_t r = 0; r < keys.size(); ++r) higher_keys_.emplace(keys[r]);
      }
    }
    return Status::OK();
  }

  // Drops the rows whose key a higher level holds (first-row, see LoadHigherKeys).
  Result<std::shared_ptr<arrow::RecordBatch>> FilterHigherKeys(
      const std::shared_ptr<arrow::RecordBatch>& batch) const {
    if (higher_keys_.empty()) return batch;
    FJORD_ASSIGN_OR_RAISE(EncodedRows keys, key_encoder_.Encode(*batch));
    std::vector<int64_t> keep;
    for (int64_t r = 0; r < keys.size(); ++r) {
      if (!higher_keys_.count(std::string(keys[r]))) keep.push_back(r);
    }
    if (keep.size() == static_cast<size_t>(batch->num_rows())) return batch;
    return TakeRows(batch, keep);
  }

  // Moves a file to the output level without rewriting it, unless it would carry retractions
  // into the max level, or is a first-row level-0 file whose keys must be checked against
  // higher levels (then it is rewritten alone).
  Status Upgrade(size_t f) {
    const DataFileMeta& file = unit_.files[f];
    if (file.level == unit_.output_level) return Status::OK();
    if (filter_higher_keys_ && file.level == 0) {
      std::vector<Section> alone = {Section{FileRun{f}}};
      return Rewrite(alone);
    }
    bool no_deletes = file.delete_row_count.has_value() && *file.delete_row_count == 0;
    if (unit_.output_level != ctx_.max_level || no_deletes) {
      DataFileMeta moved = file;
      moved.level = unit_.output_level;
      result_.before.push_back(file);
      result_.after.push_back(std::move(moved));
      result_.upgraded_files++;
      return Status::OK();
    }
    std::vector<Section> alone = {Section{FileRun{f}}};
    return Rewrite(alone);
  }

  Status Flush(std::vector<Section>* pending) {
    if (pending->empty()) return Status::OK();
    std::vector<Section> batch = std::move(*pending);
    pending->clear();
    if (batch.size() == 1 && batch[0].size() == 1) {
      for (size_t f : batch[0][0]) FJORD_RETURN_NOT_OK(Upgrade(f));
      return Status::OK();
    }
    return Rewrite(batch);
  }

  Status Rewrite(const std::vector<Section>& sections) {
    FJORD_ASSIGN_OR_RAISE(
        auto writer, KvFileWriter::Make(ctx_.io, ctx_.schema, ctx_.bucket_dir, unit_.output_level,
                                        ctx_.namer, kFileSourceCompact));
    Status st = WriteSections(sections, writer.get());
    if (!st.ok()) {
      writer->Abort();
      return st;
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> files, writer->Finish());
    for (const Section& section : sections) {
      for (const FileRun& run : section) {
        for (size_t f : run) {
          result_.before.push_back(unit_.files[f]);
          result_.rewritten_bytes += unit_.files[f].file_size;
        }
      }
    }
    for (DataFileMeta& f : files) {
      result_.written_bytes += f.file_size;
      result_.after.push_back(std::move(f));
    }
    return Status::OK();
  }

  Status WriteSections(const std::vector<Section>& sections, KvFileWriter* writer) {
    for (const Section& section : sections) {
      std::vector<std::unique_ptr<KvRunReader>> runs;
      for (const FileRun& run : section) {
        std::vector<DataFileMeta> files;
        for (size_t f : run) files.push_back(unit_.files[f]);
        FJORD_ASSIGN_OR_RAISE(auto reader, ctx_.open_run(std::move(files)));
        runs.push_back(std::move(reader));
      }
      FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(ctx_.schema));
      KvMergeOptions options;
      options.drop_retracts = drop_delete_;
      options.runs_have_unique_keys = true;
      FJORD_ASSIGN_OR_RAISE(
          auto reader, KvMergeReader::Make(layout_, std::move(merge), std::move(runs), options));
      while (true) {
        FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
        if (!batch) break;
        if (filter_higher_keys_) {
          FJORD_ASSIGN_OR_RAISE(batch, FilterHigherKeys(batch));
          if (batch->num_rows() == 0) continue;
        }
        FJORD_RETURN_NOT_OK(writer->Write(batch));
      }
    }
    return Status::OK();
  }

  const CompactUnit& unit_;
  bool drop_delete_;
  const CompactContext& ctx_;
  KvLayout layout_;
  CompactResult result_;
  bool filter_higher_keys_ = false;
  SortKeyEncoder key_encoder_;
  std::unordered_set<std::string> higher_keys_;
};

}  // namespace

Result<CompactResult> RunCompaction(const CompactUnit& unit, bool drop_delete,
                                    const CompactContext& context) {
  if (!context.open_run || !context.namer) {
    return Status::Invalid("compaction context needs open_run and namer");
  }
  auto started = std::chrono::steady_clock::now();
  Task task(unit, drop_delete, context);
  FJORD_ASSIGN_OR_RAISE(CompactResult result, task.Run());
  result.duration_millis = std::chrono::duration_cast<std::chrono::milliseconds>(
                               std::chrono::steady_clock::now() - started)
                               .count();
  return result;
}

}  // namespace fjord
