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
    Status st = unit_.file_rewrite ? RewriteEachFile() : RunSections();
    if (st.ok() && ctx_.lookup && ctx_.lookup->deletion_vectors && ctx_.lookup->write_index) {
      // Java's GeneratedDeletionFile: the bucket's vectors as this compaction leaves them.
      Result<std::optional<IndexFileMeta>> index = ctx_.lookup->write_index();
      if (index.ok()) {
        result_.deletion_index = std::move(*index);
      } else {
        st = index.status();
      }
    }
    if (!st.ok()) {
      DeleteChangelog();
      return st;
    }
    return std::move(result_);
  }

 private:
  Status Prepare() {
    FJORD_ASSIGN_OR_RAISE(layout_, KvLayout::Make(ctx_.schema));
    if (ctx_.lookup && !ctx_.lookup_merge) {
      return Status::Invalid("a lookup compaction needs the lookup merge rule");
    }
    return Status::OK();
  }

  // Java's FileRewriteCompactTask: every file rewritten alone (its deletion vector applied).
  Status RewriteEachFile() {
    FJORD_RETURN_NOT_OK(Prepare());
    for (size_t f = 0; f < unit_.files.size(); ++f) {
      std::vector<Section> alone = {Section{FileRun{f}}};
      FJORD_RETURN_NOT_OK(Rewrite(alone));
    }
    return Status::OK();
  }

  Status RunSections() {
    FJORD_RETURN_NOT_OK(Prepare());
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
    bool no_deletes = file.delete_row_count.has_value() && *file.delete_row_count == 0;
    if (ctx_.lookup) return LookupUpgrade(f, no_deletes);
    if (file.level == unit_.output_level) return Status::OK();
    // First-row: a level-0 file going below the max level is rewritten through the lookup.
    bool lookup_rewrite = ctx_.first_row_lookup && file.level == 0 &&
                          unit_.output_level != ctx_.max_level && unit_.output_level != 0;
    if (!lookup_rewrite && (unit_.output_level != ctx_.max_level || no_deletes)) {
      // Java's CHANGELOG_NO_REWRITE: the file's records read through the changelog merge.
      if (changelog_) FJORD_RETURN_NOT_OK(UpgradeChangelog(f));
      if (ctx_.first_row_changelog && file.level == 0 && unit_.output_level != 0) {
        FJORD_RETURN_NOT_OK(FirstRowUpgradeChangelog(f));
      }
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

  // Java's MergeTreeCompactTask#upgrade with the lookup rewriter's upgrade strategy (see
  // LookupCompaction in the header).
  Status LookupUpgrade(size_t f, bool no_deletes) {
    const DataFileMeta& file = unit_.files[f];
    std::vector<Section> alone = {Section{FileRun{f}}};
    if (unit_.output_level == ctx_.max_level && !no_deletes) return Rewrite(alone);
    if (file.level == unit_.output_level) return Status::OK();
    if (file.level != 0) {
      MoveUp(f);
      return Status::OK();
    }
    const LookupCompaction& lookup = *ctx_.lookup;
    bool rewrite = (lookup.deletion_vectors && !no_deletes) ||
                   (unit_.output_level != ctx_.max_level && !lookup.deduplicate_without_sequence);
    // Java's forceDropDelete: retractions go only with deletion vectors.
    return LookupPass(alone, rewrite, lookup.deletion_vectors);
  }

  void MoveUp(size_t f) {
    DataFileMeta moved = unit_.files[f];
    moved.level = unit_.output_level;
    result_.before.push_back(unit_.files[f]);
    result_.after.push_back(std::move(moved));
    result_.upgraded_files++;
  }

  // Whether `sections` hold a level-0 file going above level 0 (Java's rewriteLookupChangelog).
  bool NeedsLookupPass(const std::vector<Section>& sections) const {
    if (!ctx_.lookup || unit_.output_level == 0) return false;
    for (const Section& section : sections) {
      for (const FileRun& run : section) {
        for (size_t f : run) {
          if (unit_.files[f].level == 0) return true;
        }
      }
    }
    return false;
  }

  // The sections through the lookup wrapper: written to the output level when `rewrite` (dropping
  // retractions when `drop_delete`), else their files move up unchanged; the lookup changelog
  // when the table produces it.
  Status LookupPass(const std::vector<Section>& sections, bool rewrite, bool drop_delete) {
    std::unique_ptr<KvFileWriter> writer;
    if (rewrite) {
      FJORD_ASSIGN_OR_RAISE(
          writer, KvFileWriter::Make(ctx_.io, ctx_.schema, ctx_.bucket_dir, unit_.output_level,
                                     ctx_.namer, kFileSourceCompact));
      writer->set_spare_threads(ctx_.spare_threads);
    }
    std::unique_ptr<KvFileWriter> changelog;
    if (ctx_.lookup->produce_changelog) {
      if (!ctx_.changelog_namer) return Status::Invalid("lookup changelog needs a changelog namer");
      FJORD_ASSIGN_OR_RAISE(changelog, MakeChangelogWriter(unit_.output_level));
    }
    lookup_pass_ = true;
    Status st = WriteSections(sections, writer.get(), changelog.get(), drop_delete);
    lookup_pass_ = false;
    if (st.ok() && changelog) st = FinishChangelog(changelog.get());
    if (!st.ok()) {
      if (writer) writer->Abort();
      if (changelog) changelog->Abort();
      return st;
    }
    if (!writer) {
      for (const Section& section : sections) {
        for (const FileRun& run : section) {
          for (size_t f : run) MoveUp(f);
        }
      }
      return Status::OK();
    }
    return FinishRewrite(sections, writer.get());
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
    if (NeedsLookupPass(sections)) return LookupPass(sections, /*rewrite=*/true, drop_delete_);
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
    writer->set_spare_threads(ctx_.spare_threads);
    std::unique_ptr<KvFileWriter> changelog;
    if (changelog_) {
      FJORD_ASSIGN_OR_RAISE(changelog, MakeChangelogWriter(ctx_.max_level));
    } else if (lookup_ && ctx_.first_row_changelog) {
      FJORD_ASSIGN_OR_RAISE(changelog, MakeChangelogWriter(unit_.output_level));
    }
    Status st = WriteSections(sections, writer.get(), changelog.get(), drop_delete_);
    if (st.ok() && changelog) st = FinishChangelog(changelog.get());
    if (!st.ok()) {
      writer->Abort();
      if (changelog) changelog->Abort();
      return st;
    }
    return FinishRewrite(sections, writer.get());
  }

  // The rewritten files of `sections` are replaced by what `writer` wrote; their deletion vectors
  // go (Java's notifyRewriteCompactBefore).
  Status FinishRewrite(const std::vector<Section>& sections, KvFileWriter* writer) {
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
          if (ctx_.lookup && ctx_.lookup->on_rewritten) {
            ctx_.lookup->on_rewritten(unit_.files[f].file_name);
          }
        }
      }
    }
    for (DataFileMeta& f : files) {
      result_.written_bytes += f.file_size;
      result_.after.push_back(std::move(f));
    }
    return Status::OK();
  }

  Result<std::unique_ptr<KvFileWriter>> MakeChangelogWriter(int32_t level) {
    return KvFileWriter::Make(ctx_.io, ctx_.schema, ctx_.bucket_dir, level, ctx_.changelog_namer,
                              kFileSourceAppend);
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
    FJORD_ASSIGN_OR_RAISE(auto changelog, MakeChangelogWriter(ctx_.max_level));
    std::vector<Section> alone = {Section{FileRun{f}}};
    Status st = WriteSections(alone, nullptr, changelog.get(), drop_delete_);
    if (st.ok()) st = FinishChangelog(changelog.get());
    if (!st.ok()) changelog->Abort();
    return st;
  }

  // First-row with the lookup producer (Java's FirstRowMergeFunctionWrapper): a level-0 file
  // moved up unchanged still gives its new keys as changelog.
  Status FirstRowUpgradeChangelog(size_t f) {
    lookup_ = true;
    keys_above0_.clear();
    FJORD_RETURN_NOT_OK(PrepareLookup());
    FJORD_ASSIGN_OR_RAISE(auto changelog, MakeChangelogWriter(unit_.output_level));
    std::vector<Section> alone = {Section{FileRun{f}}};
    Status st = WriteSections(alone, nullptr, changelog.get(), drop_delete_);
    lookup_ = false;
    if (st.ok()) st = FinishChangelog(changelog.get());
    if (!st.ok()) changelog->Abort();
    return st;
  }

  // Merges each section and writes the results to `writer` (may be null: changelog only) and,
  // when `changelog`, the section's full-compaction (or, in a lookup pass, lookup; first-row:
  // its new keys) changelog.
  Status WriteSections(const std::vector<Section>& sections, KvFileWriter* writer,
                       KvFileWriter* changelog, bool drop_delete) {
    bool full_changelog = changelog && !lookup_pass_ && !lookup_;
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
          } else if (full_changelog && file.level == ctx_.max_level) {
            part = ctx_.max_level;
          }
          parts[part].push_back(file);
        }
        for (auto& [level, files] : parts) {
          std::unique_ptr<KvRunReader> reader;
          if (ctx_.deletion_of) {
            FJORD_ASSIGN_OR_RAISE(reader, ctx_.readers->OpenRun(ctx_.bucket_dir, std::move(files),
                                                                layout_, ctx_.deletion_of));
          } else {
            FJORD_ASSIGN_OR_RAISE(reader, ctx_.readers->OpenRun(ctx_.bucket_dir, std::move(files)));
          }
          if (lookup_ && level > 0) {
            reader = std::make_unique<KeyTee>(std::move(reader), key_encoder_.get(), &keys_above0_);
          }
          runs.push_back(std::move(reader));
          max_level_runs.push_back(full_changelog && level == ctx_.max_level);
          run_levels.push_back(level);
        }
      }
      FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(ctx_.schema));
      KvMergeOptions options;
      if (ctx_.lookup_merge) options.run_levels = std::move(run_levels);
      // The first-row filter sees retractions first (Java's wrapper fails on them before any
      // drop-delete).
      options.drop_retracts = drop_delete && !lookup_;
      options.runs_have_unique_keys = true;
      if (lookup_pass_) options.lookup = LookupMergeOptions();
      if (full_changelog) {
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
        if (lookup_) {
          std::vector<int64_t> fresh;
          FJORD_ASSIGN_OR_RAISE(auto kept, FirstRowFilter(batch, &fresh));
          if (changelog && !fresh.empty()) {
            FJORD_ASSIGN_OR_RAISE(auto changes, TakeRows(batch, fresh));
            FJORD_RETURN_NOT_OK(changelog->Write(changes));
          }
          batch = std::move(kept);
        }
        if (!writer) continue;
        if (batch->num_rows() > 0) FJORD_RETURN_NOT_OK(writer->Write(batch));
      }
    }
    return Status::OK();
  }

  KvLookupMergeOptions LookupMergeOptions() const {
    const LookupCompaction& lookup = *ctx_.lookup;
    KvLookupMergeOptions o;
    int32_t start = unit_.output_level + 1;
    o.lookup = [&lookup, start](std::string_view key) { return lookup.lookup(key, start); };
    if (lookup.deletion_vectors && lookup.on_deletion) {
      o.on_deletion = [&lookup](const KvLookupHit& hit) {
        return lookup.on_deletion(hit.file_name, hit.position);
      };
    }
    o.produce_changelog = lookup.produce_changelog;
    o.row_deduplicate = lookup.row_deduplicate;
    o.compared_fields = lookup.compared_fields;
    return o;
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
  // a level above the output holds it (lookup from output level + 1), else it is new: its row
  // index goes to `fresh` (its changelog).
  Result<std::shared_ptr<arrow::RecordBatch>> FirstRowFilter(
      const std::shared_ptr<arrow::RecordBatch>& batch, std::vector<int64_t>* fresh) {
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
        fresh->push_back(r);
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
  bool lookup_ = false;       // the rewrite under way goes through the first-row lookup
  bool lookup_pass_ = false;  // the merge under way goes through the lookup wrapper
  bool changelog_ = false;    // full-compaction changelog: the output is the max level
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
