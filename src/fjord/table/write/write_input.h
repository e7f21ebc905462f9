// What every table write does to its input first (behaviour.md §1.1): the table's columns are
// picked by name and cast to their canonical Arrow form, NULL in a NOT NULL column is refused
// for the whole batch, and each row gets its kind — from an optional `_row_kind` column (int8
// 0..3 or the strings "+I", "-U", "+U", "-D"), else from the `rowkind.field` column, else +I.
// Rows dropped by `ignore-delete` / `ignore-update-before` are removed here.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fjord/meta/core_options.h"
#include "fjord/schema.h"

namespace fjord {

inline constexpr const char* kRowKindInputColumn = "_row_kind";

struct WriteInput {
  // The table's columns in schema order, canonical Arrow form, one chunk each.
  std::shared_ptr<arrow::RecordBatch> rows;
  // One RowKind byte per row: 0 +I, 1 -U, 2 +U, 3 -D.
  std::vector<int8_t> kinds;
  int64_t dropped = 0;  // rows removed by ignore-delete / ignore-update-before
};

// `explicit_kinds`, when not empty, gives the kind of every row of `input` (the JSON-lines
// reader returns them separately) and wins over any kind column. `options` are the schema's.
Result<WriteInput> PrepareWriteInput(const TableSchema& schema, const CoreOptions& options,
                                     const std::shared_ptr<arrow::Table>& input,
                                     const std::vector<int8_t>& explicit_kinds = {});

}  // namespace fjord
