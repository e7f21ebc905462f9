// The in-memory layout of key-value records inside the LSM layer: an Arrow record batch holding
// every table column in schema order, then _SEQUENCE_NUMBER (int64) and _VALUE_KIND (int8, the
// RowKind byte). Keys are not stored separately; the key columns are located by index. This is
// the layout the write buffer sorts, the merge reader merges and the data-file writer turns into
// the physical layout of spec/format.md §7.2.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/lsm/sort_key.h"
#include "fjord/meta/core_options.h"
#include "fjord/schema.h"

namespace fjord {

inline constexpr const char* kSequenceNumberColumn = "_SEQUENCE_NUMBER";
inline constexpr const char* kValueKindColumn = "_VALUE_KIND";

struct KvLayout {
  std::vector<DataField> fields;          // table columns, schema order
  std::vector<int> key_columns;           // the trimmed primary key (indices into fields)
  std::vector<int> sequence_columns;      // `sequence.field` columns, in the listed order
  bool sequence_descending = false;       // `sequence.field.sort-order` = descending
  std::shared_ptr<arrow::Schema> schema;  // fields, _SEQUENCE_NUMBER, _VALUE_KIND

  int sequence_number_column() const { return static_cast<int>(fields.size()); }
  int value_kind_column() const { return static_cast<int>(fields.size()) + 1; }

  // From a primary-key table schema and its parsed options; Invalid for append tables or unknown
  // sequence fields.
  static Result<KvLayout> Make(const TableSchema& schema, const CoreOptions& options);
  // The same, parsing the schema's options first.
  static Result<KvLayout> Make(const TableSchema& schema);

  // Encodes the key columns: equal encodings = same key.
  Result<SortKeyEncoder> KeyEncoder() const;
  // Encodes the order of records of one key: sequence fields, then _SEQUENCE_NUMBER.
  Result<SortKeyEncoder> OrderEncoder() const;
};

}  // namespace fjord
