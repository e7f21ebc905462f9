#include "fjord/lsm/key_value.h"

#include <arrow/api.h>

#include "fjord/format/arrow_types.h"

namespace fjord {

Result<KvLayout> KvLayout::Make(const TableSchema& schema) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  return Make(schema, options);
}

Result<KvLayout> KvLayout::Make(const TableSchema& schema, const CoreOptions& options) {
  if (schema.primary_keys.empty()) {
    return Status::Invalid("key-value layout needs a primary-key table");
  }
  KvLayout layout;
  layout.fields = schema.fields;
  std::vector<std::string> keys = schema.TrimmedPrimaryKeys();
  if (keys.empty()) keys = schema.primary_keys;
  for (const std::string& k : keys) {
    int i = schema.FieldIndex(k);
    if (i < 0) return Status::Invalid("primary key '", k, "' is not a column");
    layout.key_columns.push_back(i);
  }
  for (const std::string& s : options.sequence_fields()) {
    int i = schema.FieldIndex(s);
    if (i < 0) return Status::Invalid("option 'sequence.field': '", s, "' is not a column");
    layout.sequence_columns.push_back(i);
  }
  layout.sequence_descending = options.sequence_field_descending();
  std::vector<DataField> all = schema.fields;
  all.push_back(DataField{0, kSequenceNumberColumn, DataType::BigInt(false), {}, {}});
  all.push_back(DataField{0, kValueKindColumn, DataType::TinyInt(false), {}, {}});
  FJORD_ASSIGN_OR_RAISE(layout.schema, ToArrowSchema(all));
  return layout;
}

Result<SortKeyEncoder> KvLayout::KeyEncoder() const {
  std::vector<SortColumn> columns;
  for (int k : key_columns) columns.push_back({k, fields[static_cast<size_t>(k)].type, false});
  return SortKeyEncoder::Make(std::move(columns));
}

Result<SortKeyEncoder> KvLayout::OrderEncoder() const {
  std::vector<SortColumn> columns;
  for (int s : sequence_columns) {
    columns.push_back({s, fields[static_cast<size_t>(s)].type, sequence_descending});
  }
  columns.push_back({sequence_number_column(), DataType::BigInt(false), false});
  return SortKeyEncoder::Make(std::move(columns));
}

}  // namespace fjord
