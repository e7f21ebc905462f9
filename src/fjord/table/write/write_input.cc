#include "fjord/table/write/write_input.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/format/input_columns.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/merge_function.h"

namespace fjord {

namespace {

Result<std::vector<int8_t>> KindsFromColumn(const arrow::Array& array, const std::string& name) {
  std::vector<int8_t> kinds(static_cast<size_t>(array.length()));
  if (array.null_count() > 0) {
    return Status::Invalid("row kind column '", name, "' holds ", array.null_count(),
                           " NULLs; every row needs a kind (+I, -U, +U, -D)");
  }
  if (array.type_id() == arrow::Type::INT8) {
    const auto& a = static_cast<const arrow::Int8Array&>(array);
    for (int64_t r = 0; r < a.length(); ++r) {
      int8_t k = a.Value(r);
      if (k < 0 || k > 3) {
        return Status::Invalid("row kind column '", name, "', row ", r + 1, ": ", int{k},
                               " is not a row kind byte (0..3)");
      }
      kinds[static_cast<size_t>(r)] = k;
    }
    return kinds;
  }
  if (array.type_id() == arrow::Type::STRING) {
    const auto& a = static_cast<const arrow::StringArray&>(array);
    for (int64_t r = 0; r < a.length(); ++r) {
      Result<RowKind> k = ParseRowKind(a.GetView(r));
      if (!k.ok()) return k.status().WithContext("row kind column '", name, "', row ", r + 1);
      kinds[static_cast<size_t>(r)] = static_cast<int8_t>(*k);
    }
    return kinds;
  }
  return Status::Invalid("row kind column '", name, "' must be int8 or string, not ",
                         array.type()->ToString());
}

}  // namespace

Result<WriteInput> PrepareWriteInput(const TableSchema& schema, const CoreOptions& options,
                                     const std::shared_ptr<arrow::Table>& input,
                                     const std::vector<int8_t>& explicit_kinds) {
  // Checked conversion of every column (format/input_columns.h): nothing wraps or truncates.
  FJORD_ASSIGN_OR_RAISE(auto converted, InputToTableColumns(input, schema.fields, "the batch"));
  int64_t n = converted->num_rows();
  auto num_fields = static_cast<int>(schema.fields.size());
  arrow::FieldVector fields(converted->schema()->fields().begin(),
                            converted->schema()->fields().begin() + num_fields);
  arrow::ArrayVector columns(converted->columns().begin(),
                             converted->columns().begin() + num_fields);
  WriteInput out;
  out.rows = arrow::RecordBatch::Make(arrow::schema(fields), n, columns);

  if (!explicit_kinds.empty()) {
    if (static_cast<int64_t>(explicit_kinds.size()) != n) {
      return Status::Invalid("got ", explicit_kinds.size(), " row kinds for ", n, " rows");
    }
    out.kinds = explicit_kinds;
  } else if (converted->num_columns() > num_fields) {
    FJORD_ASSIGN_OR_RAISE(out.kinds,
                          KindsFromColumn(*converted->column(num_fields), kRowKindInputColumn));
  } else if (const std::optional<std::string>& field = options.rowkind_field()) {
    int i = schema.FieldIndex(*field);
    if (i < 0) return Status::Invalid("option 'rowkind.field': '", *field, "' is not a column");
    FJORD_ASSIGN_OR_RAISE(out.kinds, KindsFromColumn(*columns[static_cast<size_t>(i)], *field));
  }
  if (out.kinds.empty()) out.kinds.assign(static_cast<size_t>(n), 0);

  // RowKindFilter: ignore-delete drops -U and -D, ignore-update-before drops -U.
  bool ignore_delete = options.ignore_delete();
  bool ignore_update_before = options.ignore_update_before();
  if (ignore_delete || ignore_update_before) {
    std::vector<int64_t> keep;
    std::vector<int8_t> kept_kinds;
    for (int64_t r = 0; r < n; ++r) {
      int8_t k = out.kinds[static_cast<size_t>(r)];
      bool drop = (ignore_delete && (k == 1 || k == 3)) || (ignore_update_before && k == 1);
      if (!drop) {
        keep.push_back(r);
        kept_kinds.push_back(k);
      }
    }
    if (static_cast<int64_t>(keep.size()) != n) {
      out.dropped = n - static_cast<int64_t>(keep.size());
      FJORD_ASSIGN_OR_RAISE(out.rows, TakeRows(out.rows, keep));
      out.kinds = std::move(kept_kinds);
    }
  }
  return out;
}

}  // namespace fjord
