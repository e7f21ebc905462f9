#include "fjord/table/table_read.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/deletion_vector.h"
#include "fjord/lsm/merge_function.h"
#include "fjord/options.h"

namespace fjord {

namespace {

constexpr const char* kSequenceColumn = "_SEQUENCE_NUMBER";
constexpr const char* kValueKindColumn = "_VALUE_KIND";

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
    physical.push_back(DataField{0, kSequenceColumn, DataType::BigInt(false), {}, {}});
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

Result<std::shared_ptr<arrow::Table>> TableRead::MergeOnRead(std::shared_ptr<arrow::Table> rows) {
  int64_t n = rows->num_rows();
  if (n == 0) return rows;
  // Merge order: key, then user sequence fields, then the system sequence number.
  std::vector<std::string> keys = schema_.TrimmedPrimaryKeys();
  if (keys.empty()) keys = schema_.primary_keys;
  std::vector<arrow::compute::SortKey> sort_keys;
  const auto first = arrow::compute::NullPlacement::AtStart;
  for (const std::string& k : keys) {
    sort_keys.emplace_back(k, arrow::compute::SortOrder::Ascending, first);
  }
  auto seq_fields = SplitCommaList(schema_.Option("sequence.field").value_or(""));
  bool descending =
      schema_.Option("sequence.field.sort-order").value_or("ascending") == "descending";
  for (const std::string& s : seq_fields) {
    sort_keys.emplace_back(
        s,
        descending ? arrow::compute::SortOrder::Descending : arrow::compute::SortOrder::Ascending,
        first);
  }
  sort_keys.emplace_back(kSequenceColumn, arrow::compute::SortOrder::Ascending, first);
  arrow::compute::SortOptions sort_options(sort_keys);
  FJORD_ARROW_ASSIGN_OR_RAISE(auto order,
                              arrow::compute::SortIndices(arrow::Datum(rows), sort_options));
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum sorted_datum, arrow::compute::Take(rows, order));
  std::shared_ptr<arrow::Table> sorted = sorted_datum.table();
  FJORD_ARROW_ASSIGN_OR_RAISE(sorted, sorted->CombineChunks());

  // Group starts: a row starts a group when any key column differs from the previous row.
  std::vector<bool> starts(static_cast<size_t>(n), false);
  starts[0] = true;
  for (const std::string& k : keys) {
    FJORD_ASSIGN_OR_RAISE(auto column, Combined(sorted->GetColumnByName(k)));
    FJORD_ARROW_ASSIGN_OR_RAISE(
        arrow::Datum differs,
        arrow::compute::CallFunction("not_equal", {column->Slice(0, n - 1), column->Slice(1)}));
    auto diff = std::static_pointer_cast<arrow::BooleanArray>(differs.make_array());
    for (int64_t i = 0; i + 1 < n; ++i) {
      if (diff->IsValid(i) && diff->Value(i)) starts[static_cast<size_t>(i + 1)] = true;
    }
  }

  FJORD_ASSIGN_OR_RAISE(auto kinds_array, Combined(sorted->GetColumnByName(kValueKindColumn)));
  FJORD_ASSIGN_OR_RAISE(auto seq_array, Combined(sorted->GetColumnByName(kSequenceColumn)));
  const auto& kinds = static_cast<const arrow::Int8Array&>(*kinds_array);
  const auto& seqs = static_cast<const arrow::Int64Array&>(*seq_array);
  auto is_retract = [&](int64_t i) { return kinds.Value(i) == 1 || kinds.Value(i) == 3; };

  std::string engine = schema_.Option("merge-engine").value_or("deduplicate");
  bool fast_dedup = engine == "deduplicate" && !OptionIsTrue(schema_, "ignore-delete") &&
                    !OptionIsTrue(schema_, "deduplicate.ignore-delete");
  std::unique_ptr<MergeFunction> merge;
  if (!fast_dedup) {
    MergeContext ctx{schema_.fields, schema_.primary_keys, schema_.EffectiveOptions()};
    FJORD_ASSIGN_OR_RAISE(merge, CreateMergeFunction(ctx));
  }
  std::vector<std::shared_ptr<arrow::Array>> value_columns;
  for (size_t f = 0; f < schema_.fields.size(); ++f) {
    FJORD_ASSIGN_OR_RAISE(auto c, Combined(sorted->column(static_cast<int>(f))));
    value_columns.push_back(c);
  }

  arrow::Int64Builder keep;
  std::vector<MergeRecord> merged;
  int64_t start = 0;
  while (start < n) {
    int64_t end = start + 1;
    while (end < n && !starts[static_cast<size_t>(end)]) ++end;
    if (end - start == 1) {
      if (!is_retract(start)) FJORD_ARROW_RETURN_NOT_OK(keep.Append(start));
    } else if (fast_dedup) {
      if (!is_retract(end - 1)) FJORD_ARROW_RETURN_NOT_OK(keep.Append(end - 1));
    } else {
      merge->Reset();
      for (int64_t i = start; i < end; ++i) {
        MergeRecord record;
        record.kind = static_cast<RowKind>(kinds.Value(i));
        record.sequence_number = seqs.Value(i);
        for (size_t f = 0; f < schema_.fields.size(); ++f) {
          FJORD_ASSIGN_OR_RAISE(Value v,
                                ValueFromArrow(*value_columns[f], i, *schema_.fields[f].type));
          record.row.push_back(std::move(v));
        }
        FJORD_RETURN_NOT_OK(merge->Add(record));
      }
      FJORD_ASSIGN_OR_RAISE(std::optional<MergeRecord> result, merge->GetResult());
      if (result && !IsRetract(result->kind)) merged.push_back(std::move(*result));
    }
    start = end;
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto keep_indices, keep.Finish());
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum kept, arrow::compute::Take(sorted, keep_indices));
  std::shared_ptr<arrow::Table> out = kept.table();
  // Only the value columns leave the merge.
  std::vector<int> value_indices;
  for (size_t f = 0; f < schema_.fields.size(); ++f) value_indices.push_back(static_cast<int>(f));
  FJORD_ARROW_ASSIGN_OR_RAISE(out, out->SelectColumns(value_indices));
  if (!merged.empty()) {
    arrow::ArrayVector built;
    for (size_t f = 0; f < schema_.fields.size(); ++f) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      FJORD_ARROW_RETURN_NOT_OK(
          arrow::MakeBuilder(arrow::default_memory_pool(),
                             out->schema()->field(static_cast<int>(f))->type(), &builder));
      for (const MergeRecord& r : merged) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(builder.get(), r.row[f], *schema_.fields[f].type));
      }
      FJORD_ARROW_ASSIGN_OR_RAISE(auto array, builder->Finish());
      built.push_back(array);
    }
    auto extra = arrow::Table::Make(out->schema(), built, static_cast<int64_t>(merged.size()));
    FJORD_ARROW_ASSIGN_OR_RAISE(out, arrow::ConcatenateTables({out, extra}));
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> TableRead::Read(const DataSplit& split) {
  bool pk = !schema_.primary_keys.empty();
  std::string engine = schema_.Option("merge-engine").value_or("deduplicate");
  bool dv = OptionIsTrue(schema_, "deletion-vectors.enabled");
  // Deletion-vector and first-row tables are read without merging: batch readers skip level 0
  // and trust that higher levels hold each key once (spec/format.md §7.3).
  bool no_merge = pk && (dv || engine == "first-row");
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (const DataFileMeta& file : split.files) {
    if (no_merge && file.level == 0) continue;
    FJORD_ASSIGN_OR_RAISE(auto t, ReadFile(split, file, pk));
    parts.push_back(t);
  }
  std::shared_ptr<arrow::Table> rows;
  if (parts.empty()) {
    std::vector<DataField> fields = schema_.fields;
    if (pk) {
      fields.push_back(DataField{0, kSequenceColumn, DataType::BigInt(false), {}, {}});
      fields.push_back(DataField{0, kValueKindColumn, DataType::TinyInt(false), {}, {}});
    }
    FJORD_ASSIGN_OR_RAISE(auto arrow_schema, ToArrowSchema(fields));
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::Table::MakeEmpty(arrow_schema));
  } else {
    arrow::ConcatenateTablesOptions opts;
    opts.unify_schemas = false;
    FJORD_ARROW_ASSIGN_OR_RAISE(rows, arrow::ConcatenateTables(parts, opts));
  }
  if (!pk) return rows;
  if (no_merge) {
    FJORD_ASSIGN_OR_RAISE(rows, DropRetracts(rows));
  } else {
    return MergeOnRead(rows);
  }
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
  FJORD_ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts));
  return all;
}

}  // namespace fjord
