#include "fjord/format/evolved_file_reader.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/evolution_cast.h"

namespace fjord {

namespace {

Result<std::shared_ptr<arrow::Array>> NullColumn(const DataType& type, int64_t length) {
  FJORD_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(type));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayOfNull(arrow_type, length));
  return array;
}

int IntegerWidth(const DataType& t) {
  switch (t.root()) {
    case TypeRoot::kTinyInt:
      return 1;
    case TypeRoot::kSmallInt:
      return 2;
    case TypeRoot::kInt:
      return 4;
    case TypeRoot::kBigInt:
      return 8;
    default:
      return 0;
  }
}

// Whether the statistics of a column of type `file` bound its values once cast to `read`: the
// same type, integers widened, or strings read as VARCHAR at least as long. Narrowed integers
// wrap, cut strings may fall below the minimum and CHAR pads: their statistics are not used.
bool StatsComparable(const DataType& file, const DataType& read) {
  int wf = IntegerWidth(file), wr = IntegerWidth(read);
  if (wf > 0 && wr > 0) return wr >= wf;
  if (file.IsString() && read.root() == TypeRoot::kVarChar) return read.length() >= file.length();
  return file.root() == read.root() && file.precision() == read.precision() &&
         file.scale() == read.scale() && file.length() == read.length();
}

// Rows of a file none of whose columns are read: only its row count matters.
class CountOnlyReader : public BatchReader {
 public:
  CountOnlyReader(int64_t rows, int64_t batch_rows) : rows_(rows), batch_rows_(batch_rows) {}
  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= rows_) return std::shared_ptr<arrow::RecordBatch>();
    position_ = next_;
    int64_t n = std::min(batch_rows_, rows_ - next_);
    next_ += n;
    return arrow::RecordBatch::Make(arrow::schema(arrow::FieldVector{}), n, arrow::ArrayVector{});
  }
  int64_t position() const override { return position_; }
  int64_t rows_skipped() const override { return 0; }

 private:
  int64_t rows_;
  int64_t batch_rows_;
  int64_t next_ = 0;
  int64_t position_ = 0;
};

class EvolvedReader : public BatchReader {
 public:
  EvolvedReader(std::string path, EvolvedReadSpec spec, std::vector<int> read_to_physical,
                std::vector<DataTypePtr> physical_types, std::unique_ptr<BatchReader> file)
      : path_(std::move(path)),
        spec_(std::move(spec)),
        read_to_physical_(std::move(read_to_physical)),
        physical_types_(std::move(physical_types)),
        file_(std::move(file)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, file_->Next());
      if (!batch) {
        if (spec_.expected_rows >= 0 && file_->rows_skipped() == 0 &&
            rows_read_ + file_->rows_filtered() != spec_.expected_rows) {
          return Status::Corruption(path_, ": has ", rows_read_ + file_->rows_filtered(),
                                    " rows, manifest says ", spec_.expected_rows);
        }
        return batch;
      }
      rows_read_ += batch->num_rows();
      position_ = file_->position();
      if (spec_.deletion && !file_->applies_row_filter()) {
        FJORD_ASSIGN_OR_RAISE(batch, DropDeleted(batch, position_));
        if (batch->num_rows() == 0) continue;
      }
      return Evolve(batch);
    }
  }
  int64_t position() const override { return position_; }
  int64_t rows_skipped() const override { return file_->rows_skipped(); }
  int64_t row_groups_read_whole() const override { return file_->row_groups_read_whole(); }
  bool applies_row_filter() const override { return file_->applies_row_filter(); }
  int64_t rows_filtered() const override { return file_->rows_filtered(); }
  bool decoded_to_end() const override { return file_->decoded_to_end(); }

 private:
  // `batch` (rows from `first` on) without the rows the deletion vector holds.
  Result<std::shared_ptr<arrow::RecordBatch>> DropDeleted(
      const std::shared_ptr<arrow::RecordBatch>& batch, int64_t first) {
    const std::vector<int64_t>& deleted = spec_.deletion->positions();
    int64_t end = first + batch->num_rows();
    auto lo = std::lower_bound(deleted.begin(), deleted.end(), first);
    auto hi = std::lower_bound(lo, deleted.end(), end);
    if (lo == hi) return batch;
    arrow::BooleanBuilder keep;
    FJORD_ARROW_RETURN_NOT_OK(keep.Reserve(batch->num_rows()));
    auto d = lo;
    for (int64_t r = first; r < end; ++r) {
      bool gone = d != hi && *d == r;
      if (gone) ++d;
      keep.UnsafeAppend(!gone);
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
    if (batch->num_columns() == 0) {
      int64_t left = batch->num_rows() - (hi - lo);
      return arrow::RecordBatch::Make(batch->schema(), left, arrow::ArrayVector{});
    }
    EnsureArrowCompute();
    FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum filtered, arrow::compute::Filter(batch, mask));
    return filtered.record_batch();
  }

  Result<std::shared_ptr<arrow::RecordBatch>> Evolve(
      const std::shared_ptr<arrow::RecordBatch>& in) {
    int64_t n = in->num_rows();
    arrow::FieldVector fields;
    arrow::ArrayVector columns;
    for (size_t i = 0; i < spec_.read_fields.size(); ++i) {
      const DataField& rf = spec_.read_fields[i];
      std::shared_ptr<arrow::Array> column;
      if (read_to_physical_[i] < 0) {
        FJORD_ASSIGN_OR_RAISE(column, NullColumn(*rf.type, n));
      } else {
        column = in->column(read_to_physical_[i]);
        const DataType& file_type = *physical_types_[static_cast<size_t>(read_to_physical_[i])];
        // A changed type converts as Java's schema evolution does (evolution_cast.h), also the
        // elements of ARRAY and the values of MAP columns changed inside.
        bool java_cast = !file_type.EqualsIgnoreNullable(*rf.type) &&
                         !(file_type.IsNested() && file_type.root() == rf.type->root());
        Result<std::shared_ptr<arrow::Array>> cast =
            java_cast ? EvolutionCast(column, file_type, *rf.type)
            : file_type.EqualsIgnoreNullable(*rf.type)
                ? ToCanonical(column, *rf.type)
                : EvolveNestedColumn(column, file_type, *rf.type);
        if (!cast.ok()) {
          return cast.status().WithContext(
              path_, ": column '", rf.name, "' (", file_type.ToString(), " in the file, ",
              rf.type->ToString(), " now), in the batch from row ", position_, " of the file",
              spec_.deletion ? " (deleted rows left out)" : "");
        }
        column = *cast;
      }
      fields.push_back(arrow::field(rf.name, column->type(), true));
      columns.push_back(std::move(column));
    }
    int base = in->num_columns() - static_cast<int>(spec_.system_fields.size());
    for (size_t k = 0; k < spec_.system_fields.size(); ++k) {
      auto column = in->column(base + static_cast<int>(k));
      fields.push_back(arrow::field(spec_.system_fields[k].name, column->type(), false));
      columns.push_back(std::move(column));
    }
    return arrow::RecordBatch::Make(arrow::schema(fields), n, columns);
  }

  std::string path_;
  EvolvedReadSpec spec_;
  std::vector<int> read_to_physical_;
  std::vector<DataTypePtr> physical_types_;  // the file's type of each physical column
  std::unique_ptr<BatchReader> file_;
  int64_t rows_read_ = 0;
  int64_t position_ = 0;
};

// The read's row filter over the file's columns (`physical`, read field i being physical column
// read_to_physical[i]), with the deletion vector's rows dropped too: when every column it reads
// is in the file with its read type (no cast), else none (the rows are then filtered after the
// read, as they are evolved).
RowFilter PhysicalRowFilter(const EvolvedReadSpec& spec, const std::vector<DataField>& physical,
                            const std::vector<int>& read_to_physical) {
  const RowFilter& wanted = spec.options.row_filter;
  if (!wanted) return {};
  RowFilter out;
  std::vector<std::string> names;  // the read names of the filter's columns
  for (int c : wanted.columns) {
    int p = read_to_physical[static_cast<size_t>(c)];
    const DataField& rf = spec.read_fields[static_cast<size_t>(c)];
    if (p < 0 || !physical[static_cast<size_t>(p)].type->EqualsIgnoreNullable(*rf.type)) return {};
    out.columns.push_back(p);
    names.push_back(rf.name);
  }
  out.keep = [keep = wanted.keep, names, deletion = spec.deletion](
                 const arrow::RecordBatch& batch, int64_t first) -> Result<std::vector<uint8_t>> {
    arrow::FieldVector fields;
    for (int c = 0; c < batch.num_columns(); ++c) {
      fields.push_back(batch.schema()->field(c)->WithName(names[static_cast<size_t>(c)]));
    }
    auto renamed =
        arrow::RecordBatch::Make(arrow::schema(fields), batch.num_rows(), batch.columns());
    FJORD_ASSIGN_OR_RAISE(std::vector<uint8_t> rows, keep(*renamed, first));
    if (deletion) {
      const std::vector<int64_t>& deleted = deletion->positions();
      const int64_t end = first + static_cast<int64_t>(rows.size());
      for (auto d = std::lower_bound(deleted.begin(), deleted.end(), first);
           d != deleted.end() && *d < end; ++d) {
        rows[static_cast<size_t>(*d - first)] = 0;
      }
    }
    return rows;
  };
  return out;
}

}  // namespace

Result<std::unique_ptr<BatchReader>> OpenEvolvedFile(FileIO* io, const std::string& path,
                                                     FileFormat format, EvolvedReadSpec spec) {
  // Physical columns to read: the file-schema fields that the read fields still have (by id).
  std::vector<DataField> physical;
  std::vector<int> read_to_physical(spec.read_fields.size(), -1);
  for (size_t i = 0; i < spec.read_fields.size(); ++i) {
    for (const DataField& ff : spec.file_fields) {
      if (ff.id == spec.read_fields[i].id) {
        read_to_physical[i] = static_cast<int>(physical.size());
        physical.push_back(ff);
        break;
      }
    }
  }
  FileReadOptions options = spec.options;
  if (options.chunk_filter) {
    // Statistics of the physical columns, presented in read-field order.
    std::vector<bool> comparable;
    for (size_t i = 0; i < spec.read_fields.size(); ++i) {
      int p = read_to_physical[i];
      comparable.push_back(p >= 0 && StatsComparable(*physical[static_cast<size_t>(p)].type,
                                                     *spec.read_fields[i].type));
    }
    ChunkFilter wanted = spec.options.chunk_filter;
    options.chunk_filter = [wanted, read_to_physical, comparable](
                               const std::vector<std::optional<ColumnStats>>& file_stats,
                               int64_t rows) {
      std::vector<std::optional<ColumnStats>> stats;
      for (size_t i = 0; i < read_to_physical.size(); ++i) {
        int p = read_to_physical[i];
        if (p < 0) {
          stats.push_back(ColumnStats{std::nullopt, std::nullopt, rows});
        } else if (comparable[i] && static_cast<size_t>(p) < file_stats.size()) {
          stats.push_back(file_stats[static_cast<size_t>(p)]);
        } else {
          stats.push_back(std::nullopt);
        }
      }
      return wanted(stats, rows);
    };
  }
  options.row_filter = PhysicalRowFilter(spec, physical, read_to_physical);
  physical.insert(physical.end(), spec.system_fields.begin(), spec.system_fields.end());
  std::vector<DataTypePtr> physical_types;
  for (const DataField& f : physical) physical_types.push_back(f.type);
  std::unique_ptr<BatchReader> file;
  if (physical.empty() && spec.expected_rows >= 0) {
    if (!io->Exists(path).ValueOr(true)) return Status::NotFound(path, ": no such file");
    file = std::make_unique<CountOnlyReader>(spec.expected_rows,
                                             std::max<int64_t>(1, options.batch_rows));
  } else {
    FJORD_ASSIGN_OR_RAISE(file, OpenDataFile(io, path, format, physical, options));
  }
  return std::unique_ptr<BatchReader>(
      std::make_unique<EvolvedReader>(path, std::move(spec), std::move(read_to_physical),
                                      std::move(physical_types), std::move(file)));
}

}  // namespace fjord
