// Schema evolution of CDC ingestion (docs/cdc.md), Java Paimon's rules exactly
// (UpdatedDataFieldsProcessFunctionBase): which type changes a table follows (its canConvert
// matrix) and the schema changes a change record asks of a table: columns it names that the
// table lacks are added (nullable, at the end); a column whose type differs is altered when the
// change widens it (CONVERT), left as it is when it narrows it (IGNORE) and an error otherwise
// (EXCEPTION); DECIMAL columns are never altered with `decimal-no-change`; columns the record
// lacks are kept (DROP COLUMN is not followed, as in Java); a changed column or table comment is
// applied.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/cdc/cdc_record.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

enum class ConvertAction { kConvert, kIgnore, kException };

// Java's canConvert(oldType, newType, typeMapping).
ConvertAction CanConvert(const DataType& old_type, const DataType& new_type,
                         const TypeMapping& mapping);

struct ColumnTypeChange {
  std::string column;
  DataTypePtr from;  // the table's type
  DataTypePtr to;    // the record's type
};

// What a record asks of a table.
struct SchemaChangePlan {
  std::vector<DataField> add_columns;         // with the record's type and description
  std::vector<ColumnTypeChange> alter_types;  // CONVERT: the table's column becomes `to`
  std::vector<ColumnTypeChange> ignored;      // IGNORE: narrowing, the table keeps `from`
  std::vector<std::pair<std::string, std::string>> column_comments;  // column, new comment
  std::optional<std::string> table_comment;                          // a new table comment

  bool empty() const {
    return add_columns.empty() && alter_types.empty() && column_comments.empty() && !table_comment;
  }
};

// The changes `record` asks of a table with `fields` and `comment`. `case_sensitive` false:
// record column names are matched lower-cased (a catalog that is not case-sensitive). A type
// change that cannot be followed (EXCEPTION) is Invalid: "Cannot convert field F from type A to
// B of Paimon table T" with `table` naming it.
Result<SchemaChangePlan> PlanSchemaChange(const std::vector<DataField>& fields,
                                          const std::optional<std::string>& comment,
                                          const CdcRecord& record, const TypeMapping& mapping,
                                          bool case_sensitive, const std::string& table);

}  // namespace fjord::cdc
