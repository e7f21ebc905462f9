#include "fjord/table/read/table_read.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/util/thread_pool.h>

#include <algorithm>
#include <functional>
#include <numeric>
#include <set>

#include "fjord/common/arrow_status.h"
#include "fjord/common/recycling_pool.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/deletion_vector.h"
#include "fjord/lsm/compact_strategy.h"
#include "fjord/lsm/interval_partition.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/merge_function.h"
#include "fjord/meta/core_options.h"
#include "fjord/table/read/diff_source.h"
#include "fjord/table/read/parallel_read.h"
#include "fjord/table/read/read_parts.h"
#include "fjord/table/read/split_source.h"

namespace fjord {

namespace {

constexpr const char* kRowKindName = "_row_kind";  // as fjord/table_write.h's kRowKindColumn

// The rows whose _VALUE_KIND (`kind_column`) is +I or +U (all rows when `keep_retracts`), in
// `columns`.
Result<std::shared_ptr<arrow::RecordBatch>> SelectRows(
    const std::shared_ptr<arrow::RecordBatch>& batch, int kind_column,
    const std::vector<int>& columns, bool keep_retracts) {
  FJORD_ARROW_ASSIGN_OR_RAISE(auto values, batch->SelectColumns(columns));
  if (keep_retracts) return values;
  auto kind = batch->column(kind_column);
  FJORD_ARROW_ASSIGN_OR_RAISE(
      arrow::Datum is_insert,
      arrow::compute::CallFunction("equal", {kind, arrow::Datum(int8_t{0})}));
  FJORD_ARROW_ASSIGN_OR_RAISE(
      arrow::Datum is_update,
      arrow::compute::CallFunction("equal", {kind, arrow::Datum(int8_t{2})}));
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum mask,
                              arrow::compute::CallFunction("or", {is_insert, is_update}));
  if (mask.make_array()->null_count() == 0 &&
      std::static_pointer_cast<arrow::BooleanArray>(mask.make_array())->true_count() ==
          batch->num_rows()) {
    return values;
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum filtered, arrow::compute::Filter(values, mask));
  return filtered.record_batch();
}

// Columns 0..n-1, then `extra` if it is not negative.
std::vector<int> FirstColumns(int n, int extra) {
  std::vector<int> columns(static_cast<size_t>(n));
  std::iota(columns.begin(), columns.end(), 0);
  if (extra >= 0) columns.push_back(extra);
  return columns;
}

// `batch` with an all-+I kind column appended (append tables).
Result<std::shared_ptr<arrow::RecordBatch>> WithInsertKinds(
    const std::shared_ptr<arrow::RecordBatch>& batch) {
  FJORD_ARROW_ASSIGN_OR_RAISE(auto zeros,
                              arrow::MakeArrayFromScalar(arrow::Int8Scalar(0), batch->num_rows()));
  FJORD_ARROW_ASSIGN_OR_RAISE(
      auto out,
      batch->AddColumn(batch->num_columns(), arrow::field("_VALUE_KIND", arrow::int8()), zeros));
  return out;
}

// The kinds of `batch`'s last column (int8 _VALUE_KIND) as "+I" / "-U" / "+U" / "-D", in front
// of the other columns.
Result<std::shared_ptr<arrow::RecordBatch>> RowKindFirst(
    const std::shared_ptr<arrow::RecordBatch>& batch) {
  static const char* kNames[] = {"+I", "-U", "+U", "-D"};
  int last = batch->num_columns() - 1;
  const auto& kinds = static_cast<const arrow::Int8Array&>(*batch->column(last));
  arrow::StringBuilder names;
  FJORD_ARROW_RETURN_NOT_OK(names.Reserve(batch->num_rows()));
  FJORD_ARROW_RETURN_NOT_OK(names.ReserveData(batch->num_rows() * 2));
  for (int64_t i = 0; i < batch->num_rows(); ++i) {
    int8_t k = kinds.Value(i);
    if (k < 0 || k > 3) return Status::Corruption("invalid row kind ", int{k});
    names.UnsafeAppend(kNames[k], 2);
  }
  std::shared_ptr<arrow::Array> column;
  FJORD_ARROW_RETURN_NOT_OK(names.Finish(&column));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto rest, batch->RemoveColumn(last));
  FJORD_ARROW_ASSIGN_OR_RAISE(
      auto out, rest->AddColumn(0, arrow::field(kRowKindName, arrow::utf8(), false), column));
  return out;
}

// A chunk filter from an exact row filter over `fields` (the columns the file read returns).
ChunkFilter ChunkFilterOf(std::shared_ptr<const Predicate> filter, std::vector<DataField> fields) {
  if (!filter) return {};
  return [filter, fields = std::move(fields)](const std::vector<std::optional<ColumnStats>>& stats,
                                              int64_t rows) {
    auto lookup = [&](const std::string& name) -> const ColumnStats* {
      for (size_t i = 0; i < fields.size() && i < stats.size(); ++i) {
        if (fields[i].name == name) return stats[i] ? &*stats[i] : nullptr;
      }
      return nullptr;
    };
    return filter->MayMatch(lookup, rows);
  };
}

// The exact row filter as a file reader's late materialization (FileReadOptions::row_filter) over
// `fields` (the columns the file read returns): empty when one of its columns is not read.
RowFilter RowFilterOf(std::shared_ptr<const Predicate> filter,
                      const std::vector<DataField>& fields) {
  if (!filter) return {};
  RowFilter out;
  for (const std::string& name : filter->Columns()) {
    auto it = std::find_if(fields.begin(), fields.end(),
                           [&](const DataField& f) { return f.name == name; });
    if (it == fields.end()) return {};
    const int c = static_cast<int>(it - fields.begin());
    if (std::find(out.columns.begin(), out.columns.end(), c) == out.columns.end()) {
      out.columns.push_back(c);  // a column named twice is read once
    }
  }
  out.keep = [filter](const arrow::RecordBatch& batch, int64_t) -> Result<std::vector<uint8_t>> {
    FJORD_ASSIGN_OR_RAISE(auto mask, filter->Evaluate(batch));
    const auto& keep = static_cast<const arrow::BooleanArray&>(*mask);
    std::vector<uint8_t> rows(static_cast<size_t>(keep.length()));
    for (int64_t i = 0; i < keep.length(); ++i) {
      rows[static_cast<size_t>(i)] = keep.IsValid(i) && keep.Value(i);
    }
    return rows;
  };
  return out;
}

// `batch` with its last column (the int8 kind) set to `kind` in every row.
Result<std::shared_ptr<arrow::RecordBatch>> WithLastColumn(
    const std::shared_ptr<arrow::RecordBatch>& batch, int8_t kind) {
  int last = batch->num_columns() - 1;
  FJORD_ARROW_ASSIGN_OR_RAISE(
      auto kinds, arrow::MakeArrayFromScalar(arrow::Int8Scalar(kind), batch->num_rows()));
  FJORD_ARROW_ASSIGN_OR_RAISE(
      auto out, batch->SetColumn(last, batch->schema()->field(last), std::move(kinds)));
  return out;
}

// Files read one after another without merging: append tables, primary-key tables read
// without merging (deletion vectors, first-row: level 0 skipped, retractions dropped) and
// streaming splits (every record kept).
class FileSequenceSource : public SplitSource {
 public:
  using OpenFn = std::function<Result<std::unique_ptr<BatchReader>>(const DataFileMeta&)>;
  // `insert_kinds` (empty, or one per file): the files whose rows come out as +I whatever kind
  // they hold (Java's raw read, see RawReadSections).
  FileSequenceSource(std::vector<DataFileMeta> files, OpenFn open, bool kv, int values,
                     bool keep_retracts, bool with_kind, std::vector<bool> insert_kinds = {})
      : files_(std::move(files)),
        open_(std::move(open)),
        kv_(kv),
        values_(values),
        keep_retracts_(keep_retracts),
        with_kind_(with_kind),
        columns_(FirstColumns(values, with_kind ? values + 1 : -1)),
        insert_kinds_(std::move(insert_kinds)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      if (!current_) {
        if (next_ >= files_.size()) return std::shared_ptr<arrow::RecordBatch>();
        FJORD_ASSIGN_OR_RAISE(current_, open_(files_[next_++]));
      }
      FJORD_ASSIGN_OR_RAISE(auto batch, current_->Next());
      if (!batch) {
        current_.reset();
        continue;
      }
      if (kv_) {
        FJORD_ASSIGN_OR_RAISE(batch, SelectRows(batch, values_ + 1, columns_, keep_retracts_));
        if (batch->num_rows() == 0) continue;
        if (with_kind_ && !insert_kinds_.empty() && insert_kinds_[next_ - 1]) {
          FJORD_ASSIGN_OR_RAISE(batch, WithLastColumn(batch, 0));
        }
      } else if (with_kind_) {
        FJORD_ASSIGN_OR_RAISE(batch, WithInsertKinds(batch));
      }
      return batch;
    }
  }

 private:
  std::vector<DataFileMeta> files_;
  OpenFn open_;
  bool kv_;
  int values_;
  bool keep_retracts_;
  bool with_kind_;
  std::vector<int> columns_;
  std::vector<bool> insert_kinds_;
  size_t next_ = 0;  // the file after the current one
  std::unique_ptr<BatchReader> current_;
};

// Which sections of a merged read Java reads raw, so that their rows come out as +I whatever
// kind the files hold (MergeTreeSplitGenerator#splitForBatch and the raw-file read of
// raw-convertible splits): every section when all files are above level 0 without delete rows
// and in one level (in any levels when `any_levels`: deletion-vector and first-row tables);
// otherwise the sections packed alone into a split (ordered packing by max(size, open-file
// cost) up to the target split size) that are one file without delete rows.
std::vector<bool> RawReadSections(const std::vector<DataFileMeta>& files,
                                  const std::vector<Section>& sections, int64_t target,
                                  int64_t open_cost, bool any_levels = false) {
  auto no_deletes = [](const DataFileMeta& f) {
    return f.delete_row_count.has_value() && *f.delete_row_count == 0;
  };
  bool convertible = !files.empty();
  std::set<int32_t> levels;
  for (const DataFileMeta& f : files) {
    convertible = convertible && f.level != 0 && no_deletes(f);
    levels.insert(f.level);
  }
  if (convertible && (any_levels || levels.size() == 1)) {
    return std::vector<bool>(sections.size(), true);
  }
  std::vector<bool> out(sections.size(), false);
  size_t bin_start = 0;
  int64_t bin_weight = 0;
  std::vector<size_t> bin_files;
  auto close = [&](size_t end) {
    if (bin_files.size() == 1 && no_deletes(files[bin_files[0]])) {
      for (size_t k = bin_start; k < end; ++k) out[k] = true;
    }
  };
  for (size_t k = 0; k < sections.size(); ++k) {
    int64_t weight = 0;
    std::vector<size_t> section_files;
    for (const FileRun& run : sections[k]) {
      for (size_t f : run) {
        weight += std::max(files[f].file_size, open_cost);
        section_files.push_back(f);
      }
    }
    if (!bin_files.empty() && bin_weight + weight > target) {
      close(k);
      bin_start = k;
      bin_weight = 0;
      bin_files.clear();
    }
    bin_weight += weight;
    bin_files.insert(bin_files.end(), section_files.begin(), section_files.end());
  }
  close(sections.size());
  return out;
}

// Merge-on-read: sections of overlapping files one after another, each a k-way merge.
class MergeSource : public SplitSource {
 public:
  MergeSource(KvFileReaderFactory* readers, std::string bucket_path,
              std::vector<DataFileMeta> files, TableSchema merge_schema, KvLayout layout,
              std::vector<int> needed, std::vector<Section> sections, int64_t batch_rows,
              bool by_level, std::vector<bool> insert_kinds, bool keep_retracts,
              KvFileReaderFactory::DeletionOfFn deletion_of)
      : by_level_(by_level),
        keep_retracts_(keep_retracts),
        deletion_of_(std::move(deletion_of)),
        insert_kinds_(std::move(insert_kinds)),
        readers_(readers),
        bucket_path_(std::move(bucket_path)),
        files_(std::move(files)),
        merge_schema_(std::move(merge_schema)),
        layout_(std::move(layout)),
        needed_(std::move(needed)),
        sections_(std::move(sections)),
        batch_rows_(batch_rows) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      if (!merge_) {
        if (next_ >= sections_.size()) return std::shared_ptr<arrow::RecordBatch>();
        std::vector<std::unique_ptr<KvRunReader>> runs;
        const bool alone = sections_[next_].size() == 1;  // e.g. a compacted bucket
        for (const FileRun& run : sections_[next_]) {
          std::vector<DataFileMeta> files;
          for (size_t f : run) files.push_back(files_[f]);
          FJORD_ASSIGN_OR_RAISE(auto reader, readers_->OpenRun(bucket_path_, std::move(files),
                                                               layout_, deletion_of_, alone));
          runs.push_back(std::move(reader));
        }
        ++next_;
        current_insert_kinds_ = next_ - 1 < insert_kinds_.size() && insert_kinds_[next_ - 1];
        FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(merge_schema_));
        KvMergeOptions options;
        options.drop_retracts = !keep_retracts_;
        options.runs_have_unique_keys = true;
        options.batch_rows = batch_rows_;
        if (by_level_) {
          for (const FileRun& run : sections_[next_ - 1]) {
            options.run_levels.push_back(files_[run.front()].level);
          }
        }
        FJORD_ASSIGN_OR_RAISE(
            merge_, KvMergeReader::Make(layout_, std::move(merge), std::move(runs), options));
      }
      FJORD_ASSIGN_OR_RAISE(auto batch, merge_->Next());
      if (!batch) {
        merge_.reset();
        continue;
      }
      if (batch->num_rows() == 0) continue;
      FJORD_ARROW_ASSIGN_OR_RAISE(batch, batch->SelectColumns(needed_));
      if (current_insert_kinds_) {
        FJORD_ASSIGN_OR_RAISE(batch, WithLastColumn(batch, 0));
      }
      return batch;
    }
  }

  // The later half of the sections not started yet (sections hold disjoint keys); with none
  // left, the upper keys of the section being merged when its runs are in memory.
  Result<std::unique_ptr<SplitSource>> SplitOff() override {
    const size_t left = sections_.size() - next_;
    if (left >= 2 || (left == 1 && merge_)) {
      const size_t from = next_ + left / 2;
      std::vector<Section> sections(sections_.begin() + static_cast<std::ptrdiff_t>(from),
                                    sections_.end());
      std::vector<bool> insert_kinds;
      for (size_t k = from; k < insert_kinds_.size(); ++k) insert_kinds.push_back(insert_kinds_[k]);
      sections_.resize(from);
      return std::unique_ptr<SplitSource>(Piece(std::move(sections), std::move(insert_kinds)));
    }
    if (!merge_ || left > 0) return std::unique_ptr<SplitSource>();
    FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(merge_schema_));
    FJORD_ASSIGN_OR_RAISE(auto upper, merge_->SplitOff(std::move(merge), 4 * batch_rows_));
    if (!upper) return std::unique_ptr<SplitSource>();
    std::unique_ptr<MergeSource> piece = Piece({}, {});
    piece->merge_ = std::move(upper);
    piece->current_insert_kinds_ = current_insert_kinds_;
    return std::unique_ptr<SplitSource>(std::move(piece));
  }

 private:
  std::unique_ptr<MergeSource> Piece(std::vector<Section> sections,
                                     std::vector<bool> insert_kinds) const {
    return std::make_unique<MergeSource>(readers_, bucket_path_, files_, merge_schema_, layout_,
                                         needed_, std::move(sections), batch_rows_, by_level_,
                                         std::move(insert_kinds), keep_retracts_, deletion_of_);
  }

  bool by_level_;  // runs are levels (run_levels of KvMergeOptions)
  bool keep_retracts_;
  KvFileReaderFactory::DeletionOfFn deletion_of_;  // null: no deletion vectors
  // Sections whose rows Java reads raw, as +I (the kind column is last): see RawReadSections.
  std::vector<bool> insert_kinds_;
  KvFileReaderFactory* readers_;
  std::string bucket_path_;
  std::vector<DataFileMeta> files_;
  TableSchema merge_schema_;
  KvLayout layout_;
  std::vector<int> needed_;  // the needed columns in the layout (and the kind, when asked)
  std::vector<Section> sections_;
  int64_t batch_rows_;
  size_t next_ = 0;
  std::unique_ptr<KvMergeReader> merge_;
  bool current_insert_kinds_ = false;  // insert_kinds_ of the section being merged
};

// Every record of `inner` (whose last column is the kind) turned into a -D: the old rows of an
// OVERWRITE (Java's ReverseReader over a merged read, which returns only adds).
class RetractSource : public SplitSource {
 public:
  explicit RetractSource(std::unique_ptr<SplitSource> inner) : inner_(std::move(inner)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    FJORD_ASSIGN_OR_RAISE(auto batch, inner_->Next());
    if (!batch) return batch;
    int last = batch->num_columns() - 1;
    FJORD_ARROW_ASSIGN_OR_RAISE(
        auto deletes, arrow::MakeArrayFromScalar(arrow::Int8Scalar(3), batch->num_rows()));
    FJORD_ARROW_ASSIGN_OR_RAISE(
        batch, batch->SetColumn(last, batch->schema()->field(last), std::move(deletes)));
    return batch;
  }

 private:
  std::unique_ptr<SplitSource> inner_;
};

// One source after the other.
class ConcatSource : public SplitSource {
 public:
  explicit ConcatSource(std::vector<std::unique_ptr<SplitSource>> parts)
      : parts_(std::move(parts)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (next_ < parts_.size()) {
      FJORD_ASSIGN_OR_RAISE(auto batch, parts_[next_]->Next());
      if (batch) return batch;
      parts_[next_++].reset();
    }
    return std::shared_ptr<arrow::RecordBatch>();
  }

 private:
  std::vector<std::unique_ptr<SplitSource>> parts_;
  size_t next_ = 0;
};

}  // namespace

class TableRead::SplitReader : public RowBatchReader {
 public:
  // Reads splits [first, last) of `splits`.
  SplitReader(TableRead* read, const std::vector<DataSplit>* splits, size_t first, size_t last,
              SplitReadOptions options, std::shared_ptr<arrow::Schema> schema)
      : read_(read),
        splits_(splits),
        options_(std::move(options)),
        schema_(std::move(schema)),
        next_split_(first),
        last_split_(last) {}

  Status Init() {
    const TableSchema& schema = read_->schema();
    if (options_.projection.empty()) {
      options_.projection.resize(schema.fields.size());
      std::iota(options_.projection.begin(), options_.projection.end(), 0);
    }
    // The columns read: projected and filtered ones, in schema order.
    std::vector<bool> need(schema.fields.size(), false);
    for (int i : options_.projection) need[static_cast<size_t>(i)] = true;
    if (options_.filter) {
      for (const std::string& c : options_.filter->Columns()) {
        int i = schema.FieldIndex(c);
        if (i >= 0) need[static_cast<size_t>(i)] = true;
      }
    }
    for (size_t i = 0; i < need.size(); ++i) {
      if (need[i]) needed_.push_back(static_cast<int>(i));
    }
    for (int i : needed_) needed_fields_.push_back(schema.fields[static_cast<size_t>(i)]);
    for (int p : options_.projection) {
      output_.push_back(
          static_cast<int>(std::find(needed_.begin(), needed_.end(), p) - needed_.begin()));
    }
    // The kind travels as the last column until it is put first.
    if (options_.with_row_kind) output_.push_back(static_cast<int>(needed_.size()));
    bool identity = output_.size() == needed_.size() + (options_.with_row_kind ? 1 : 0);
    for (size_t i = 0; identity && i < output_.size(); ++i) identity = output_[i] == int(i);
    project_ = !identity;
    FJORD_ASSIGN_OR_RAISE(CoreOptions core, CoreOptions::Make(schema));
    // Deletion-vector and first-row tables are read without merging: batch readers skip level 0
    // and trust that higher levels hold each key once (spec/format.md §7.3).
    read_without_merging_ =
        core.deletion_vectors_enabled() || core.merge_engine() == MergeEngine::kFirstRow;
    lookup_levels_ = LookupNeeds::FromOptions(core).merges_by_level();
    split_open_file_cost_ = core.source_split_open_file_cost();
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> target,
                          core.options().GetMemorySize("source.split.target-size"));
    split_target_size_ = target.value_or(int64_t{128} << 20);
    return Status::OK();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      if (!source_) {
        if (next_split_ >= last_split_) return std::shared_ptr<arrow::RecordBatch>();
        FJORD_ASSIGN_OR_RAISE(source_, OpenSource((*splits_)[next_split_++]));
      }
      FJORD_ASSIGN_OR_RAISE(auto batch, source_->Next());
      if (!batch) {
        source_.reset();
        continue;
      }
      if (options_.filter) {
        FJORD_ASSIGN_OR_RAISE(auto mask, options_.filter->Evaluate(*batch));
        FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum kept, arrow::compute::Filter(batch, mask));
        batch = kept.record_batch();
        if (batch->num_rows() == 0) continue;
      }
      if (project_) {
        FJORD_ARROW_ASSIGN_OR_RAISE(batch, batch->SelectColumns(output_));
      }
      if (options_.with_row_kind) {
        FJORD_ASSIGN_OR_RAISE(batch, RowKindFirst(batch));
      }
      return ConformToSchema(batch, schema_);
    }
  }

  // A part of the split being read (SplitSource::SplitOff), read the same way.
  Result<std::unique_ptr<RowBatchReader>> SplitOff() override {
    if (!source_) return std::unique_ptr<RowBatchReader>();
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<SplitSource> piece, source_->SplitOff());
    if (!piece) return std::unique_ptr<RowBatchReader>();
    auto reader =
        std::make_unique<SplitReader>(read_, splits_, last_split_, last_split_, options_, schema_);
    FJORD_RETURN_NOT_OK(reader->Init());
    reader->source_ = std::move(piece);
    return std::unique_ptr<RowBatchReader>(std::move(reader));
  }

 private:
  Result<std::unique_ptr<SplitSource>> OpenSource(const DataSplit& split) {
    FilesRead read;
    read.needed = &needed_;
    read.with_kind = options_.with_row_kind;
    if (split.diff) return OpenDiff(split);
    if (split.overwrite_changes) {
      // The old rows of the overwritten buckets retracted, then the new rows.
      std::vector<std::unique_ptr<SplitSource>> parts;
      FJORD_ASSIGN_OR_RAISE(auto before, OpenFiles(split.bucket_path, split.before_files,
                                                   &split.before_deletion_files, read));
      parts.push_back(std::make_unique<RetractSource>(std::move(before)));
      FJORD_ASSIGN_OR_RAISE(auto after,
                            OpenFiles(split.bucket_path, split.files, &split.deletion_files, read));
      parts.push_back(std::move(after));
      return std::unique_ptr<SplitSource>(new ConcatSource(std::move(parts)));
    }
    read.streaming = split.streaming;
    return OpenFiles(split.bucket_path, split.files, &split.deletion_files, read);
  }

  // A diff split: both sides merged in every column with their retractions and deletion
  // vectors, compared key by key (diff_source.h); of an append table, the after side's rows.
  Result<std::unique_ptr<SplitSource>> OpenDiff(const DataSplit& split) {
    const TableSchema& schema = read_->schema();
    if (schema.primary_keys.empty()) {
      // Append tables: the rows of the files only the after side holds, as Java's raw read of an
      // incremental split (which ignores the before files).
      FilesRead read;
      read.needed = &needed_;
      read.with_kind = options_.with_row_kind;
      return OpenFiles(split.bucket_path, split.files, &split.deletion_files, read);
    }
    std::vector<int> all(schema.fields.size());
    std::iota(all.begin(), all.end(), 0);
    FilesRead read;
    read.needed = &all;
    read.with_kind = true;
    read.merge_all = true;
    read.keep_retracts = true;
    FJORD_ASSIGN_OR_RAISE(auto before, OpenFiles(split.bucket_path, split.before_files,
                                                 &split.before_deletion_files, read));
    FJORD_ASSIGN_OR_RAISE(auto after,
                          OpenFiles(split.bucket_path, split.files, &split.deletion_files, read));
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
    FJORD_ASSIGN_OR_RAISE(SortKeyEncoder keys, layout.KeyEncoder());
    int kind = static_cast<int>(schema.fields.size());
    std::vector<int> output = needed_;
    if (options_.with_row_kind) output.push_back(kind);
    return MakeDiffSource(std::move(before), std::move(after), std::move(keys), kind,
                          std::move(output), options_.batch_rows);
  }

  // How OpenFiles reads: the columns (read-schema indices, in order), the kind last or not,
  // unmerged with every record (streaming), or merged even where batch reads skip merging
  // (deletion-vector and first-row tables) and with retractions kept.
  struct FilesRead {
    const std::vector<int>* needed = nullptr;
    bool with_kind = false;
    bool streaming = false;
    bool merge_all = false;
    bool keep_retracts = false;
  };

  // The rows of `files` (one bucket): unmerged with every record when `streaming`, else as a
  // batch read sees them. The kind column is last when the read asks for it.
  Result<std::unique_ptr<SplitSource>> OpenFiles(
      const std::string& bucket_path, const std::vector<DataFileMeta>& all_files,
      const std::map<std::string, DeletionFile>* deletion_files, const FilesRead& how) {
    const TableSchema& schema = read_->schema();
    const std::vector<int>& needed = *how.needed;
    bool streaming = how.streaming;
    bool pk = !schema.primary_keys.empty();
    bool no_merge = pk && read_without_merging_ && !streaming && !how.merge_all;
    bool with_kind = how.with_kind;
    if (!pk || no_merge || streaming) {
      std::vector<DataFileMeta> files;
      for (const DataFileMeta& f : all_files) {
        if (no_merge && f.level == 0) continue;
        files.push_back(f);
      }
      ChunkFilter chunks = ChunkFilterOf(options_.filter, needed_fields_);
      // The filter's columns decoded first and the others only at the rows it keeps, where the
      // file reader can; Next filters every batch again either way.
      RowFilter rows = RowFilterOf(options_.filter, needed_fields_);
      TableRead* read = read_;
      auto open = [read, bucket_path, deletion_files, fields = needed_fields_, pk, chunks,
                   rows](const DataFileMeta& f) -> Result<std::unique_ptr<BatchReader>> {
        FJORD_ASSIGN_OR_RAISE(auto deletion, read->DeletionOf(*deletion_files, f));
        return read->readers_.OpenFile(bucket_path, f, fields, pk, deletion, chunks,
                                       /*alone=*/false, rows);
      };
      std::vector<bool> insert_kinds;
      if (no_merge && with_kind) {
        FJORD_ASSIGN_OR_RAISE(insert_kinds, UnmergedInsertKinds(files));
      }
      return std::unique_ptr<SplitSource>(new FileSequenceSource(
          std::move(files), std::move(open), pk, static_cast<int>(needed_fields_.size()), streaming,
          with_kind, std::move(insert_kinds)));
    }
    KvFileReaderFactory::DeletionOfFn deletion_of;
    if (!deletion_files->empty()) {
      TableRead* read = read_;
      deletion_of = [read, deletion_files](const DataFileMeta& f) {
        return read->DeletionOf(*deletion_files, f);
      };
    }
    // Merge-on-read. With "the last record wins" (no merge function) only the key and sequence
    // columns are read besides the needed ones; other engines combine whole rows.
    FJORD_ASSIGN_OR_RAISE(KvLayout full, KvLayout::Make(schema));
    FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(schema));
    TableSchema merge_schema = schema;
    std::vector<int> kept(schema.fields.size());
    std::iota(kept.begin(), kept.end(), 0);
    if (!merge) {
      std::vector<bool> keep(schema.fields.size(), false);
      for (int i : needed) keep[static_cast<size_t>(i)] = true;
      for (int i : full.key_columns) keep[static_cast<size_t>(i)] = true;
      for (int i : full.sequence_columns) keep[static_cast<size_t>(i)] = true;
      kept.clear();
      merge_schema.fields.clear();
      for (size_t i = 0; i < keep.size(); ++i) {
        if (!keep[i]) continue;
        kept.push_back(static_cast<int>(i));
        merge_schema.fields.push_back(schema.fields[i]);
      }
    }
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(merge_schema));
    std::vector<int> needed_in_layout;
    for (int i : needed) {
      needed_in_layout.push_back(
          static_cast<int>(std::find(kept.begin(), kept.end(), i) - kept.begin()));
    }
    if (with_kind) needed_in_layout.push_back(layout.value_kind_column());
    std::vector<DataTypePtr> key_types;
    for (int k : full.key_columns) key_types.push_back(schema.fields[static_cast<size_t>(k)].type);
    std::vector<Section> sections;
    bool by_level = lookup_levels_ && merge != nullptr;
    FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges(all_files, key_types));
    if (by_level) {
      // One section whose runs are the levels: each level-0 file, then each level above, whose
      // files hold every key once, so that a key's records carry their level.
      Section section;
      std::map<int32_t, FileRun> upper;
      for (size_t f = 0; f < all_files.size(); ++f) {
        if (all_files[f].level == 0) {
          section.push_back(FileRun{f});
        } else {
          upper[all_files[f].level].push_back(f);
        }
      }
      for (auto& [level, run] : upper) {
        std::sort(run.begin(), run.end(),
                  [&](size_t a, size_t b) { return ranges[a].min < ranges[b].min; });
        section.push_back(std::move(run));
      }
      sections.push_back(std::move(section));
    } else {
      sections = PartitionIntervals(ranges);
    }
    std::vector<bool> insert_kinds;
    if (with_kind && !by_level && !how.merge_all) {
      insert_kinds =
          RawReadSections(all_files, sections, split_target_size_, split_open_file_cost_);
    }
    return std::unique_ptr<SplitSource>(new MergeSource(
        &read_->readers_, bucket_path, all_files, std::move(merge_schema), std::move(layout),
        std::move(needed_in_layout), std::move(sections), options_.batch_rows, by_level,
        std::move(insert_kinds), how.keep_retracts, std::move(deletion_of)));
  }

  // Per file of a bucket read without merging (deletion vectors, first-row; level 0 skipped):
  // whether Java reads it raw, its rows as +I. Java merges the other sections; their files hold
  // each key once, so the merge changes no row and keeps each record's kind.
  Result<std::vector<bool>> UnmergedInsertKinds(const std::vector<DataFileMeta>& files) {
    const TableSchema& schema = read_->schema();
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
    std::vector<DataTypePtr> key_types;
    for (int k : layout.key_columns) {
      key_types.push_back(schema.fields[static_cast<size_t>(k)].type);
    }
    FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges(files, key_types));
    std::vector<Section> sections = PartitionIntervals(ranges);
    std::vector<bool> raw = RawReadSections(files, sections, split_target_size_,
                                            split_open_file_cost_, /*any_levels=*/true);
    std::vector<bool> out(files.size(), false);
    for (size_t k = 0; k < sections.size(); ++k) {
      for (const FileRun& run : sections[k]) {
        for (size_t f : run) out[f] = raw[k];
      }
    }
    return out;
  }

  TableRead* read_;
  const std::vector<DataSplit>* splits_;
  SplitReadOptions options_;
  std::shared_ptr<arrow::Schema> schema_;
  std::vector<int> needed_;  // read-schema indices of the columns read
  std::vector<DataField> needed_fields_;
  std::vector<int> output_;  // projection, as indices into needed_ (then the kind)
  bool project_ = false;
  bool read_without_merging_ = false;
  bool lookup_levels_ = false;  // merge as Java's LookupMergeFunction (kv_merge.h run_levels)
  int64_t split_target_size_ = 0;
  int64_t split_open_file_cost_ = 0;
  size_t next_split_;
  size_t last_split_;
  std::unique_ptr<SplitSource> source_;
};

TableRead::TableRead(std::shared_ptr<FileIO> io, std::string table_root, TableSchema read_schema,
                     int64_t batch_rows)
    : io_(io), readers_(io, std::move(table_root), std::move(read_schema), batch_rows) {
  EnsureArrowCompute();
  // A read decodes batch after batch of about the same size: the pages of the ones consumed
  // serve the next instead of fresh ones (recycling_pool.h; docs/performance.md, "Recycled pages
  // for reads"), each reading thread in arenas of its own.
  readers_.set_pool(std::shared_ptr<RecyclingPool>(
      RecyclingPool::Make(arrow::default_memory_pool(), /*arenas_per_thread=*/true).release(),
      RecyclingPool::Closer{}));
}

Result<std::shared_ptr<const DeletionVector>> TableRead::DeletionOf(
    const std::map<std::string, DeletionFile>& deletion_files, const DataFileMeta& file) {
  auto it = deletion_files.find(file.file_name);
  if (it == deletion_files.end()) return std::shared_ptr<const DeletionVector>();
  const DeletionFile& df = it->second;
  // Splits may be read on several threads (parallel_read.h).
  std::unique_lock<std::mutex> lock(*index_files_mu_);
  auto cached = index_files_.find(df.index_path);
  if (cached == index_files_.end()) {
    lock.unlock();
    FJORD_ASSIGN_OR_RAISE(std::string bytes, io_->ReadFile(df.index_path));
    lock.lock();
    cached = index_files_.emplace(df.index_path, std::move(bytes)).first;
  }
  lock.unlock();  // map nodes stay where they are
  FJORD_ASSIGN_OR_RAISE(DeletionVector dv, DeletionVector::Decode(cached->second, df.offset,
                                                                  df.length, df.index_path));
  return std::make_shared<const DeletionVector>(std::move(dv));
}

Result<std::shared_ptr<arrow::Schema>> TableRead::OutputSchema(const std::vector<DataSplit>& splits,
                                                               const SplitReadOptions& options) {
  const TableSchema& schema = readers_.read_schema();
  std::vector<int> projection = options.projection;
  if (projection.empty()) {
    projection.resize(schema.fields.size());
    std::iota(projection.begin(), projection.end(), 0);
  }
  std::vector<DataField> fields;
  for (int i : projection) fields.push_back(schema.fields[static_cast<size_t>(i)]);
  FJORD_ASSIGN_OR_RAISE(auto out, ToArrowSchema(fields));
  int offset = 0;
  if (options.with_row_kind) {
    FJORD_ARROW_ASSIGN_OR_RAISE(out,
                                out->AddField(0, arrow::field(kRowKindName, arrow::utf8(), false)));
    offset = 1;
  }
  // MAP columns: in the list form when a file returns them so.
  std::vector<bool> lists(fields.size(), false);
  std::vector<std::pair<const DataSplit*, const DataFileMeta*>> files;
  for (const DataSplit& split : splits) {
    for (const DataFileMeta& f : split.files) files.emplace_back(&split, &f);
    for (const DataFileMeta& f : split.before_files) files.emplace_back(&split, &f);
  }
  for (const auto& [split_ptr, file_ptr] : files) {
    const DataSplit& split = *split_ptr;
    const DataFileMeta& f = *file_ptr;
    {
      FJORD_ASSIGN_OR_RAISE(FileFormat format, FileFormatOfPath(f.file_name));
      if (format != FileFormat::kOrc) continue;
      FJORD_ASSIGN_OR_RAISE(const TableSchema* file_schema, readers_.SchemaOf(f.schema_id));
      std::vector<DataField> physical;
      std::vector<size_t> which;
      for (size_t i = 0; i < fields.size(); ++i) {
        for (const DataField& ff : file_schema->fields) {
          if (ff.id == fields[i].id) {
            physical.push_back(ff);
            which.push_back(i);
          }
        }
      }
      std::string path =
          f.external_path ? *f.external_path : JoinPath(split.bucket_path, f.file_name);
      FJORD_ASSIGN_OR_RAISE(auto in_list, ListFormMapFields(io_.get(), path, format, physical));
      for (size_t k = 0; k < which.size(); ++k) {
        if (in_list[k]) lists[which[k]] = true;
      }
    }
  }
  for (size_t i = 0; i < lists.size(); ++i) {
    if (!lists[i]) continue;
    int c = static_cast<int>(i) + offset;
    FJORD_ARROW_ASSIGN_OR_RAISE(
        out, out->SetField(c, out->field(c)->WithType(WithListFormMaps(out->field(c)->type()))));
  }
  return out;
}

namespace {

// Whether every split of a primary-key table's batch read merges several sorted runs of files
// small enough to be decoded whole (FileReadOptions::whole_row_group_bytes_per_column, judged by
// their compressed size): their merges split into pieces once their runs are in memory
// (KvMergeReader::SplitOff). Read one at a time by every thread, the read holds one split's
// decoded runs instead of one per thread: fresh memory is the dearest part of the 2-thread
// merge-on-read (docs/performance.md, "One merge at a time").
bool MergesSmallFiles(const std::vector<DataSplit>& splits, const TableSchema& schema) {
  if (schema.primary_keys.empty()) return false;
  const auto columns = static_cast<int64_t>(schema.fields.size() + schema.primary_keys.size() + 2);
  const int64_t whole = FileReadOptions{}.whole_row_group_bytes_per_column;
  for (const DataSplit& split : splits) {
    if (split.streaming || split.diff || split.overwrite_changes) return false;
    int64_t level0 = 0, bytes = 0;
    std::set<int32_t> upper;
    for (const DataFileMeta& f : split.files) {
      if (f.level == 0) {
        ++level0;
      } else {
        upper.insert(f.level);
      }
      bytes += f.file_size;
    }
    if (level0 + static_cast<int64_t>(upper.size()) < 2) return false;
    if (bytes / static_cast<int64_t>(split.files.size()) / columns > whole) return false;
  }
  return true;
}

}  // namespace

Result<std::unique_ptr<RowBatchReader>> TableRead::Open(const std::vector<DataSplit>* splits,
                                                        SplitReadOptions options,
                                                        std::shared_ptr<arrow::Schema> schema) {
  const int threads = options.threads;
  // On several threads, the buckets of deletion-vector and first-row tables are cut into bins
  // of files (read_parts.h), so that one bucket is read by every thread.
  std::shared_ptr<const std::vector<DataSplit>> parts;
  bool merged = false;  // the splits' files are merged (not deletion vectors nor first-row)
  if (threads > 1) {
    FJORD_ASSIGN_OR_RAISE(CoreOptions core, CoreOptions::Make(readers_.read_schema()));
    merged = !core.deletion_vectors_enabled() && core.merge_engine() != MergeEngine::kFirstRow;
    ReadPartOptions how;
    how.files_independent =
        !readers_.read_schema().primary_keys.empty() && !options.with_row_kind &&
        (core.deletion_vectors_enabled() || core.merge_engine() == MergeEngine::kFirstRow);
    if (how.files_independent) {
      FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> target,
                            core.options().GetMemorySize("source.split.target-size"));
      if (target) how.target_size = *target;
      how.open_file_cost = core.source_split_open_file_cost();
      how.threads = threads;
      how.largest_first = !options.in_split_order;
      parts = std::make_shared<const std::vector<DataSplit>>(SplitIntoReadParts(*splits, how));
    }
  }
  const std::vector<DataSplit>* read = parts ? parts.get() : splits;
  // Threads that parts leave idle decode the columns of each batch instead: a table of one
  // bucket or one bin of append files is read by every core, as pyarrow reads a file. Not when
  // this is itself a task of Arrow's CPU pool, which the decoding would wait on.
  const bool own_threads = !arrow::internal::GetCpuThreadPool()->OwnsThisThread();
  // Splits that each merge small files: one at a time, every thread on it (its columns decoded
  // at once, its merge in pieces).
  const bool one_at_a_time = merged && !options.in_split_order && read->size() > 1 &&
                             MergesSmallFiles(*read, readers_.read_schema());
  readers_.set_parallel_columns(
      threads > 1 && (static_cast<size_t>(threads) > read->size() || one_at_a_time) && own_threads);
  // And once the last parts are being read, the threads that have none left do the same for
  // them: the read's tail is not left to one thread.
  const bool parts_at_once = threads > 1 && read->size() > 1;
  std::shared_ptr<std::atomic<bool>> out_of_parts;
  if (parts_at_once && own_threads) out_of_parts = std::make_shared<std::atomic<bool>>(false);
  readers_.set_spare_threads(out_of_parts);
  if (parts_at_once) {
    // Each part on its own reader; a reader of no splits checks the options now.
    FJORD_RETURN_NOT_OK(SplitReader(this, read, 0, 0, options, schema).Init());
    PartOpener open = [this, read, parts, options,
                       schema](size_t i) -> Result<std::unique_ptr<RowBatchReader>> {
      auto reader = std::make_unique<SplitReader>(this, read, i, i + 1, options, schema);
      FJORD_RETURN_NOT_OK(reader->Init());
      return std::unique_ptr<RowBatchReader>(std::move(reader));
    };
    return options.in_split_order
               ? OpenOrderedParallel(read->size(), std::move(open), threads, 4, out_of_parts)
               : OpenInterleavedParallel(read->size(), std::move(open), threads, 4, out_of_parts,
                                         one_at_a_time);
  }
  auto reader = std::make_unique<SplitReader>(this, splits, 0, splits->size(), std::move(options),
                                              std::move(schema));
  FJORD_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<RowBatchReader>(std::move(reader));
}

Result<std::shared_ptr<arrow::Table>> TableRead::ReadAll(const std::vector<DataSplit>& splits) {
  SplitReadOptions options;
  FJORD_ASSIGN_OR_RAISE(auto schema, OutputSchema(splits, options));
  FJORD_ASSIGN_OR_RAISE(auto reader, Open(&splits, options, schema));
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto table, arrow::Table::FromRecordBatches(schema, batches));
  return table;
}

Result<std::shared_ptr<arrow::Table>> TableRead::Read(const DataSplit& split) {
  std::vector<DataSplit> one{split};
  return ReadAll(one);
}

Result<std::unique_ptr<KvRunReader>> TableRead::OpenKvRun(const std::string& bucket_path,
                                                          std::vector<DataFileMeta> files) {
  return readers_.OpenRun(bucket_path, std::move(files));
}

}  // namespace fjord
