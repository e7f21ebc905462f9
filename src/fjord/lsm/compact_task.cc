#include "fjord/lsm/compact_task.h"

#include <arrow/api.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace fjord {

namespace {

// Passes a run's batches through and remembers their keys: for first-row compaction, the keys
// of which some record comes from a level above 0 (Java's containsHighLevel). The merge reads
// every run past a key before it emits that key, so the keys of a merged batch are all seen.
class KeyTee : public KvRunReader {
 public:
  KeyTee(std::unique_ptr<KvRunReader> run, const SortKeyEncoder* encoder,
         std::set<std::string>* seen)
      : run_(std::move(run)), encoder_(encoder), seen_(seen) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    FJORD_ASSIGN_OR_RAISE(auto batch, run_->Next());
    if (!batch) return batch;
    FJORD_ASSIGN_OR_RAISE(EncodedRows keys, encoder_->Encode(*batch));
    for (int64_t r = 0; r < keys.size(); ++r) seen_->emplace(keys[r]);
    return batch;
  }

 private:
  std::unique_ptr<KvRunReader> run_;
  const SortKeyEncoder* encoder_;
  std::set<std::string>* seen_;
};

class Task {
 public:
  Task(const CompactUnit& unit, bool drop_delete, const CompactContext& context)
      : unit_(unit), drop_delete_(drop_delete), ctx_(context) {}

  Result<CompactResult> Run() {
    Status st = RunSections();
    if (!st.ok()) {
      DeleteChangelog();
      return st;
    }
    return std::move(result_);
  }

 private:
  Status RunSections() {
    FJORD_ASSIGN_OR_RAISE(layout_, KvLayout::Make(ctx_.schema));
    std::vector<DataTypePtr> key_types;
    for (int k : layout_.key_columns) {
      key_types.push_back(ctx_.schema.fields[static_cast<size_t>(k)].type);
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges(unit_.files, key_types));
    changelog_ = ctx_.full_changelog.has_value() && unit_.output_level == ctx_.max_level;
    if (changelog_ && !ctx_.changelog_namer) {
      return Status::Invalid("full-compaction changelog needs a changelog namer");
    }
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
    return Flush(&pending);
  }

  // Moves a file to the output level without rewriting it, unless it would carry retractions
  // into the max level (then it is rewritten alone, dropping them).
  Status Upgrade(size_t f) {
    const DataFileMeta& file = unit_.files[f];
    if (file.level == unit_.output_level) return Status::OK();
    bool no_deletes = file.delete_row_count.has_value() && *file.delete_row_count == 0;
    // First-row: a level-0 file going below the max level is rewritten through the lookup.
    bool lookup_rewrite = ctx_.first_row_lookup && file.level == 0 &&
                          unit_.output_level != ctx_.max_level && unit_.output_level != 0;
    if (!lookup_rewrite && (unit_.output_level != ctx_.max_level || no_deletes)) {
      // Java's CHANGELOG_NO_REWRITE: the file's records read through the changelog merge.
      if (changelog_) FJORD_RETURN_NOT_OK(UpgradeChangelog(f));
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
    lookup_ = false;
    if (ctx_.first_row_lookup && unit_.output_level != 0) {
      for (const Section& section : sections) {
        for (const FileRun& run : section) {
          for (size_t f : run) lookup_ = lookup_ || unit_.files[f].level == 0;
        }
      }
    }
    keys_above0_.clear();
    if (lookup_) {
      FJORD_RETURN_NOT_OK(PrepareLookup());
    }
    FJORD_ASSIGN_OR_RAISE(
        auto writer, KvFileWriter::Make(ctx_.io, ctx_.schema, ctx_.bucket_dir, unit_.output_level,
                                        ctx_.namer, kFileSourceCompact));
    std::unique_ptr<KvFileWriter> changelog;
    if (changelog_) {
      FJORD_ASSIGN_OR_RAISE(changelog, MakeChangelogWriter());
    }
    Status st = WriteSections(sections, writer.get(), changelog.get());
    if (st.ok() && changelog) st = FinishChangelog(changelog.get());
    if (!st.ok()) {
      writer->Abort();
      if (changelog) changelog->Abort();
      return st;
    }
    Result<std::vector<DataFileMeta>> written = writer->Finish();
    if (!written.ok()) {
      DeleteChangelog();
      return written.status();
    }
    std::vector<DataFileMeta> files = std::move(*written);
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

  Result<std::unique_ptr<KvFileWriter>> MakeChangelogWriter() {
    return KvFileWriter::Make(ctx_.io, ctx_.schema, ctx_.bucket_dir, ctx_.max_level,
                              ctx_.changelog_namer, kFileSourceAppend);
  }

  Status FinishChangelog(KvFileWriter* changelog) {
    FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> files, changelog->Finish());
    result_.changelog.insert(result_.changelog.end(), files.begin(), files.end());
    return Status::OK();
  }

  // After a failure: the changelog files this task wrote go (data files are the caller's).
  void DeleteChangelog() {
    for (const DataFileMeta& f : result_.changelog) {
      (void)ctx_.io->Delete(JoinPath(ctx_.bucket_dir, f.file_name));
    }
    result_.changelog.clear();
  }

  // The changelog of a file upgraded into the max level: its records, each alone (+I for adds).
  Status UpgradeChangelog(size_t f) {
    FJORD_ASSIGN_OR_RAISE(auto changelog, MakeChangelogWriter());
    std::vector<Section> alone = {Section{FileRun{f}}};
    Status st = WriteSections(alone, nullptr, changelog.get());
    if (st.ok()) st = FinishChangelog(changelog.get());
    if (!st.ok()) changelog->Abort();
    return st;
  }

  // Merges each section and writes the results to `writer` (may be null: changelog only) and,
  // when `changelog`, the section's full-compaction changelog.
  Status WriteSections(const std::vector<Section>& sections, KvFileWriter* writer,
                       KvFileWriter* changelog) {
    for (const Section& section : sections) {
      std::vector<std::unique_ptr<KvRunReader>> runs;
      std::vector<bool> max_level_runs;
      std::vector<int32_t> run_levels;
      for (const FileRun& run : section) {
        // For the changelog, a run's max-level files and its other files are read as two runs;
        // for the lookup rule, its files of each level as one run (each still sorted and
        // disjoint), so that every record's origin is known.
        std::map<int32_t, std::vector<DataFileMeta>> parts;
        for (size_t f : run) {
          const DataFileMeta& file = unit_.files[f];
          int32_t part = 0;
          if (ctx_.lookup_merge || lookup_) {
            part = file.level;
          } else if (changelog && file.level == ctx_.max_level) {
            part = ctx_.max_level;
          }
          parts[part].push_back(file);
        }
        for (auto& [level, files] : parts) {
          FJORD_ASSIGN_OR_RAISE(std::unique_ptr<KvRunReader> reader,
                                ctx_.readers->OpenRun(ctx_.bucket_dir, std::move(files)));
          if (lookup_ && level > 0) {
            reader = std::make_unique<KeyTee>(std::move(reader), key_encoder_.get(), &keys_above0_);
          }
          runs.push_back(std::move(reader));
          max_level_runs.push_back(changelog && level == ctx_.max_level);
          run_levels.push_back(level);
        }
      }
      FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(ctx_.schema));
      KvMergeOptions options;
      if (ctx_.lookup_merge) options.run_levels = std::move(run_levels);
      // The first-row filter sees retractions first (Java's wrapper fails on them before any
      // drop-delete).
      options.drop_retracts = drop_delete_ && !lookup_;
      options.runs_have_unique_keys = true;
      if (changelog) {
        options.full_changelog = *ctx_.full_changelog;
        options.full_changelog->max_level_runs = std::move(max_level_runs);
      }
      FJORD_ASSIGN_OR_RAISE(
          auto reader, KvMergeReader::Make(layout_, std::move(merge), std::move(runs), options));
      while (true) {
        FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
        if (!batch) break;
        if (changelog) {
          std::shared_ptr<arrow::RecordBatch> changes = reader->TakeChangelog();
          if (changes && changes->num_rows() > 0) FJORD_RETURN_NOT_OK(changelog->Write(changes));
        }
        if (!writer) continue;
        if (lookup_) {
          FJORD_ASSIGN_OR_RAISE(batch, FirstRowFilter(batch));
        }
        if (batch->num_rows() > 0) FJORD_RETURN_NOT_OK(writer->Write(batch));
      }
    }
    return Status::OK();
  }

  // First-row lookups go to the bucket's lookup levels (lookup_levels.h).
  Status PrepareLookup() {
    if (!ctx_.lookup_levels) {
      return Status::Invalid("first-row compaction of ", ctx_.bucket_dir,
                             " needs the bucket's lookup levels");
    }
    if (key_encoder_) return Status::OK();
    FJORD_ASSIGN_OR_RAISE(SortKeyEncoder encoder, layout_.KeyEncoder());
    key_encoder_ = std::make_unique<SortKeyEncoder>(std::move(encoder));
    return Status::OK();
  }

  // Java's FirstRowMergeFunctionWrapper over merged results: retractions are errors (or dropped
  // with ignore-delete); a key none of whose records came from the unit's levels > 0 goes when
  // a level above the output holds it (lookup from output level + 1).
  Result<std::shared_ptr<arrow::RecordBatch>> FirstRowFilter(
      const std::shared_ptr<arrow::RecordBatch>& batch) {
    FJORD_ASSIGN_OR_RAISE(EncodedRows keys, key_encoder_->Encode(*batch));
    auto kinds =
        std::static_pointer_cast<arrow::Int8Array>(batch->column(layout_.value_kind_column()));
    std::vector<int64_t> keep;
    keep.reserve(static_cast<size_t>(batch->num_rows()));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      if (IsRetract(static_cast<RowKind>(kinds->Value(r)))) {
        if (ctx_.ignore_delete) continue;
        return Status::Invalid(
            "the first-row merge engine cannot accept DELETE/UPDATE_BEFORE records (found one "
            "while compacting ",
            ctx_.bucket_dir, "); set 'ignore-delete' = true to ignore them");
      }
      std::string key(keys[r]);
      if (!keys_above0_.count(key)) {
        FJORD_ASSIGN_OR_RAISE(std::optional<LookupHit> hit,
                              ctx_.lookup_levels->Lookup(key, unit_.output_level + 1));
        if (hit) continue;
      }
      keep.push_back(r);
    }
    // Later batches hold greater keys only.
    if (keys.size() > 0) {
      keys_above0_.erase(keys_above0_.begin(),
                         keys_above0_.upper_bound(std::string(keys[keys.size() - 1])));
    }
    if (static_cast<int64_t>(keep.size()) == batch->num_rows()) return batch;
    return TakeRows(batch, keep);
  }

  const CompactUnit& unit_;
  bool drop_delete_;
  const CompactContext& ctx_;
  KvLayout layout_;
  CompactResult result_;
  bool lookup_ = false;     // the rewrite under way goes through the first-row lookup
  bool changelog_ = false;  // full-compaction changelog: the output is the max level
  std::unique_ptr<SortKeyEncoder> key_encoder_;
  // Keys read from the unit's files above level 0 and not yet passed by the merge.
  std::set<std::string> keys_above0_;
};

}  // namespace

Result<CompactResult> RunCompaction(const CompactUnit& unit, bool drop_delete,
                                    const CompactContext& context) {
  if (!context.readers || !context.namer) {
    return Status::Invalid("compaction context needs readers and namer");
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
