#include "fjord/table/read/table_read.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <numeric>

#include "fjord/common/arrow_status.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/deletion_vector.h"
#include "fjord/lsm/interval_partition.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/merge_function.h"
#include "fjord/options.h"

namespace fjord {

namespace {

bool OptionIsTrue(const TableSchema& schema, const std::string& key) {
  auto v = schema.Option(key);
  if (!v) return false;
  auto b = ParseBoolean(*v);
  return b.ok() && *b;
}

Result<std::shared_ptr<arrow::Array>> NullArray(const DataType& type, int64_t length) {
  FJORD_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(type));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto array, arrow::MakeArrayOfNull(arrow_type, length));
  return array;
}

Result<std::shared_ptr<arrow::Array>> Combined(const std::shared_ptr<arrow::ChunkedArray>& c) {
  if (c->num_chunks() == 1) return c->chunk(0);
  FJORD_ARROW_ASSIGN_OR_RAISE(auto array, arrow::Concatenate(c->chunks()));
  return array;
}

}  // namespace

TableRead::TableRead(std::shared_ptr<FileIO> io, std::string table_root, TableSchema read_schema)
    : io_(io), root_(table_root), schema_(std::move(read_schema)), snapshots_(io, table_root) {
  EnsureArrowCompute();
}

Result<const TableSchema*> TableRead::SchemaOf(int64_t schema_id) {
  if (schema_id == schema_.id) return &schema_;
  auto it = schema_cache_.find(schema_id);
  if (it == schema_cache_.end()) {
    FJORD_ASSIGN_OR_RAISE(TableSchema s, snapshots_.LoadSchema(schema_id));
    it = schema_cache_.emplace(schema_id, std::move(s)).first;
  }
  return &it->second;
}

Result<std::shared_ptr<arrow::Table>> TableRead::ReadFile(const DataSplit& split,
                                                          const DataFileMeta& file,
                                                          bool with_system_columns) {
  FJORD_ASSIGN_OR_RAISE(const TableSchema* file_schema, SchemaOf(file.schema_id));
  std::string path =
      file.external_path ? *file.external_path : JoinPath(split.bucket_path, file.file_name);
  FJORD_ASSIGN_OR_RAISE(FileFormat format, FileFormatOfPath(file.file_name));

  // Physical columns to read: the file-schema fields that the read schema still has (by id).
  std::vector<DataField> physical;
  std::vector<int> read_to_physical(schema_.fields.size(), -1);
  for (size_t i = 0; i < schema_.fields.size(); ++i) {
    for (const DataField& ff : file_schema->fields) {
      if (ff.id == schema_.fields[i].id) {
        read_to_physical[i] = static_cast<int>(physical.size());
        physical.push_back(ff);
        break;
      }
    }
  }
  if (with_system_columns) {
    physical.push_back(DataField{0, kSequenceNumberColumn, DataType::BigInt(false), {}, {}});
    physical.push_back(DataField{0, kValueKindColumn, DataType::TinyInt(false), {}, {}});
  }
  Result<std::shared_ptr<arrow::Table>> read = ReadDataFile(io_.get(), path, format, physical);
  if (!read.ok()) {
    if (read.status().IsNotFound()) {
      return Status::NotFound("data file ", path, " listed by the snapshot is missing");
    }
    return read.status();
  }
  std::shared_ptr<arrow::Table> table = *read;
  if (table->num_rows() != file.row_count) {
    return Status::Corruption(path, ": has ", table->num_rows(), " rows, manifest says ",
                              file.row_count);
  }

  // Deletion vector: keep the positions not deleted.
  auto dv_it = split.deletion_files.find(file.file_name);
  if (dv_it != split.deletion_files.end()) {
    const DeletionFile& df = dv_it->second;
    auto cached = index_file_cache_.find(df.index_path);
    if (cached == index_file_cache_.end()) {
      FJORD_ASSIGN_OR_RAISE(std::string bytes, io_->ReadFile(df.index_path));
      cached = index_file_cache_.emplace(df.index_path, std::move(bytes)).first;
    }
    FJORD_ASSIGN_OR_RAISE(DeletionVector dv, DeletionVector::Decode(cached->second, df.offset,
                                                                    df.length, df.index_path));
    arrow::BooleanBuilder keep;
    FJORD_ARROW_RETURN_NOT_OK(keep.Reserve(table->num_rows()));
    const auto& deleted = dv.positions();
    size_t d = 0;
    for (int64_t r = 0; r < table->num_rows(); ++r) {
      while (d < deleted.size() && deleted[d] < r) ++d;
      keep.UnsafeAppend(!(d < deleted.size() && deleted[d] == r));
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto mask, keep.Finish());
    FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum filtered, arrow::compute::Filter(table, mask));
    table = filtered.table();
  }

  // Evolve to the read schema.
  int64_t n = table->num_rows();
  arrow::FieldVector fields;
  arrow::ArrayVector columns;
  for (size_t i = 0; i < schema_.fields.size(); ++i) {
    const DataField& rf = schema_.fields[i];
    FJORD_ASSIGN_OR_RAISE(auto field, ToArrowField(rf));
    std::shared_ptr<arrow::Array> column;
    if (read_to_physical[i] < 0) {
      FJORD_ASSIGN_OR_RAISE(column, NullArray(*rf.type, n));
    } else {
      FJORD_ASSIGN_OR_RAISE(column, Combined(table->column(read_to_physical[i])));
      Result<std::shared_ptr<arrow::Array>> cast = ToCanonical(column, *rf.type);
      if (!cast.ok()) return cast.status().WithContext(path, ": column '", rf.name, "'");
      column = *cast;
    }
    fields.push_back(arrow::field(rf.name, column->type(), true));
    columns.push_back(column);
  }
  if (with_system_columns) {
    int base = static_cast<int>(physical.size()) - 2;
    for (int k = 0; k < 2; ++k) {
      FJORD_ASSIGN_OR_RAISE(auto column, Combined(table->column(base + k)));
      fields.push_back(
          arrow::field(physical[static_cast<size_t>(base + k)].name, column->type(), false));
      columns.push_back(column);
    }
  }
  return arrow::Table::Make(arrow::schema(fields), columns, n);
}

Result<std::shared_ptr<arrow::Table>> TableRead::DropRetracts(std::shared_ptr<arrow::Table> rows) {
  auto kind = rows->GetColumnByName(kValueKindColumn);
  FJORD_ARROW_ASSIGN_OR_RAISE(
      arrow::Datum keep_insert,
      arrow::compute::CallFunction("equal", {kind, arrow::Datum(int8_t{0})}));
  FJORD_ARROW_ASSIGN_OR_RAISE(
      arrow::Datum keep_update,
      arrow::compute::CallFunction("equal", {kind, arrow::Datum(int8_t{2})}));
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum keep,
                              arrow::compute::CallFunction("or", {keep_insert, keep_update}));
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum filtered, arrow::compute::Filter(rows, keep));
  return filtered.table();
}

// The files of one sorted run, read one after another as key-value batches.
class TableRead::FileRunReader : public KvRunReader {
 public:
  FileRunReader(TableRead* read, std::shared_ptr<const DataSplit> split,
                std::vector<DataFileMeta> files, std::shared_ptr<arrow::Schema> schema)
      : read_(read),
        split_(std::move(split)),
        files_(std::move(files)),
        schema_(std::move(schema)) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= files_.size()) return std::shared_ptr<arrow::RecordBatch>();
    FJORD_ASSIGN_OR_RAISE(auto table, read_->ReadFile(*split_, files_[next_++], true));
    FJORD_ARROW_ASSIGN_OR_RAISE(table, table->CombineChunks());
    arrow::ArrayVector columns;
    for (int c = 0; c < table->num_columns(); ++c) {
      FJORD_ASSIGN_OR_RAISE(auto column, Combined(table->column(c)));
      columns.push_back(column);
    }
    // The layout's names, but each column's own type: a MAP column that may hold NULL keys comes
    // as a list of entries (arrow_types.h), which a map-typed field must not claim.
    arrow::FieldVector fields;
    for (size_t c = 0; c < columns.size(); ++c) {
      const auto& f = schema_->field(static_cast<int>(c));
      fields.push_back(arrow::field(f->name(), columns[c]->type(), f->nullable()));
    }
    return arrow::RecordBatch::Make(arrow::schema(fields), table->num_rows(), columns);
  }

 private:
  TableRead* read_;
  std::shared_ptr<const DataSplit> split_;
  std::vector<DataFileMeta> files_;
  size_t next_ = 0;
  std::shared_ptr<arrow::Schema> schema_;
};

Result<std::unique_ptr<KvRunReader>> TableRead::OpenKvRun(const std::string& bucket_path,
                                                          std::vector<DataFileMeta> files) {
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema_));
  auto split = std::make_shared<DataSplit>();
  split->bucket_path = bucket_path;
  return std::unique_ptr<KvRunReader>(
      new FileRunReader(this, std::move(split), std::move(files), layout.schema));
}

Result<std::shared_ptr<arrow::Table>> TableRead::MergeOnRead(const DataSplit& split) {
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema_));
  std::vector<DataTypePtr> key_types;
  for (int k : layout.key_columns) key_types.push_back(schema_.fields[static_cast<size_t>(k)].type);
  FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges(split.files, key_types));
  // Files of older schemas may name their columns differently; the merge sees the read schema.
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const Section& section : PartitionIntervals(ranges)) {
    std::vector<std::unique_ptr<KvRunReader>> runs;
    // The split outlives the merge: share it without owning it.
    std::shared_ptr<const DataSplit> shared(std::shared_ptr<const DataSplit>(), &split);
    for (const FileRun& run : section) {
      std::vector<DataFileMeta> files;
      for (size_t f : run) files.push_back(split.files[f]);
      runs.push_back(
          std::make_unique<FileRunReader>(this, shared, std::move(files), layout.schema));
    }
    FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(schema_));
    KvMergeOptions options;
    options.drop_retracts = true;
    options.runs_have_unique_keys = true;
    FJORD_ASSIGN_OR_RAISE(auto reader,
                          KvMergeReader::Make(layout, std::move(merge), std::move(runs), options));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
      if (!batch) break;
      std::vector<int> value_indices(schema_.fields.size());
      std::iota(value_indices.begin(), value_indices.end(), 0);
      FJORD_ARROW_ASSIGN_OR_RAISE(auto values, batch->SelectColumns(value_indices));
      FJORD_ARROW_ASSIGN_OR_RAISE(auto t, arrow::Table::FromRecordBatches({values}));
      parts.push_back(t);
    }
  }
  FJORD_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(schema_.fields));
  if (parts.empty()) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(arrow_schema));
    return empty;
  }
  arrow::ConcatenateTablesOptions opts;
  opts.unify_schemas = false;
  FJORD_ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts, opts));
  return all;
}

namespace {

// `table` under `schema` when their columns have the same types (only the fields' nullability
// and metadata may differ); else `table` unchanged.
std::shared_ptr<arrow::Table> WithFieldFlagsOf(const std::shared_ptr<arrow::Table>& table,
                                               const std::shared_ptr<arrow::Schema>& schema) {
  if (table->num_columns() != schema->num_fields()) return table;
  for (int i = 0; i < schema->num_fields(); ++i) {
    if (table->schema()->field(i)->name() != schema->field(i)->name() ||
        !table->column(i)->type()->Equals(*schema->field(i)->type())) {
      return table;
    }
  }
  return arrow::Table::Make(schema, table->columns(), table->num_rows());
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> TableRead::Read(const DataSplit& split) {
  bool pk = !schema_.primary_keys.empty();
  std::string engine = schema_.Option("merge-engine").value_or("deduplicate");
  bool dv = OptionIsTrue(schema_, "deletion-vectors.enabled");
  // Deletion-vector and first-row tables are read without merging: batch readers skip level 0
  // and trust that higher levels hold each key once (spec/format.md §7.3).
  bool no_merge = pk && (dv || engine == "first-row");
  if (pk && !no_merge) return MergeOnRead(split);
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const DataFileMeta& file : split.files) {
    if (no_merge && file.level == 0) continue;
    FJORD_ASSIGN_OR_RAISE(auto t, ReadFile(split, file, pk));
    parts.push_back(t);
  }
  std::shared_ptr<arrow::Table> rows;
  std::vector<DataField> fields = schema_.fields;
  if (pk) {
    fields.push_back(DataField{0, kSequenceNumberColumn, DataType::BigInt(false), {}, {}});
    fields.push_back(DataField{0, kValueKindColumn, DataType::TinyInt(false), {}, {}});
  }
  FJORD_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(fields));
  if (parts.empty()) {
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(arrow_schema));
  } else {
    arrow::ConcatenateTablesOptions opts;
    opts.unify_schemas = false;
    FJORD_ASSIGN_OR_RAISE(parts, UnifyMapForms(parts));
    // Files need not carry the schema's NOT NULL flags (a Parquet file Fjord flushed reads back
    // with nullable key columns): give every part the schema's flags, so that parts of one split,
    // and the empty part of a split whose files are all skipped, concatenate.
    for (auto& part : parts) part = WithFieldFlagsOf(part, arrow_schema);
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::ConcatenateTables(parts, opts));
  }
  if (!pk) return rows;
  FJORD_ASSIGN_OR_RAISE(rows, DropRetracts(rows));
  std::vector<int> value_indices;
  for (size_t f = 0; f < schema_.fields.size(); ++f) value_indices.push_back(static_cast<int>(f));
  FJORD_ARROW_ASSIGN_OR_RAISE(rows, rows->SelectColumns(value_indices));
  return rows;
}

Result<std::shared_ptr<arrow::Table>> TableRead::ReadAll(const std::vector<DataSplit>& splits) {
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const DataSplit& s : splits) {
    FJORD_ASSIGN_OR_RAISE(auto t, Read(s));
    parts.push_back(t);
  }
  if (parts.empty()) {
    FJORD_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(schema_.fields));
    FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(arrow_schema));
    return empty;
  }
  FJORD_ASSIGN_OR_RAISE(parts, UnifyMapForms(parts));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts));
  return all;
}

}  // namespace fjord
