// Schema evolution of CDC ingestion (docs/cdc.md), Java Paimon's rules exactly
// (UpdatedDataFieldsProcessFunctionBase): which type changes a table follows (its canConvert
// matrix) and the schema changes a change record asks of a table: columns it names that the
// table lacks are added (at the end; a NOT NULL one is refused, as Java's SchemaManager refuses
// it); a column whose type differs is altered when the change widens it (CONVERT), left as it is
// when it narrows it (IGNORE) and an error otherwise (EXCEPTION); DECIMAL columns are never
// altered with `decimal-no-change`; columns the record lacks are kept (DROP COLUMN is not
// followed, as in Java); a changed column or table comment is applied. Nested columns (ROW,
// ARRAY, MAP, MULTISET) change as Java's NestedSchemaUtils splits the change, each step decided
// by canConvert of the whole column; a step Java's CDC sink cannot apply (dropping a nested
// field, changing a nullability) is an error, as the Java job fails on it.
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

// One schema change Java's CDC sink applies for a changed column (NestedSchemaUtils' split of
// it), on a field path: the column, then a field name per ROW level, "element" / "value" through
// ARRAY and MAP.
struct ColumnStep {
  enum Kind { kUpdateType, kAddField, kComment } kind;
  std::vector<std::string> path;
  DataTypePtr type;                        // kUpdateType, kAddField
  std::optional<std::string> description;  // kAddField, kComment
  std::optional<std::string> after;        // kAddField: the sibling it follows; nullopt: first
};

struct ColumnTypeChange {
  std::string column;
  DataTypePtr from;  // the table's type
  // alter_types: the column's new type (a nested column: the table's type with the steps Java
  // applies, existing nested fields keeping their ids, new nested fields with id -1 for the
  // catalog to number). ignored: the record's type.
  DataTypePtr to;
  // alter_types: the changes that make `from` into `to`, in Java's order (a top-level type
  // change: one kUpdateType of path {column}).
  std::vector<ColumnStep> steps;
};

// What a record asks of a table.
struct SchemaChangePlan {
  std::vector<DataField> add_columns;         // with the record's type and description
  std::vector<ColumnTypeChange> alter_types;  // CONVERT: the table's column becomes `to`
  std::vector<ColumnTypeChange> ignored;      // IGNORE: narrowing, the table keeps `from`
  std::vector<std::pair<std::string, std::string>> column_comments;  // column, new comment
  std::optional<std::string> table_comment;                          // a new table comment
  // The table's columns the record does not name: kept, their values NULL (not a change).
  std::vector<std::string> missing_columns;

  bool empty() const {
    return add_columns.empty() && alter_types.empty() && column_comments.empty() && !table_comment;
  }
};

// The changes `record` asks of a table with `fields` and `comment`. `case_sensitive` false:
// record column names are matched lower-cased (a catalog that is not case-sensitive; Java's
// FileSystemCatalog is case-sensitive unless its `case-sensitive` option is false). A type
// change that cannot be followed (EXCEPTION) is Invalid: "Cannot convert field F from type A to
// B of Paimon table T" with `table` naming it; the other changes Java's job fails on are
// Invalid too, naming field and table. Java applies the changes before the failing one; a
// record's plan here is all or nothing.
Result<SchemaChangePlan> PlanSchemaChange(const std::vector<DataField>& fields,
                                          const std::optional<std::string>& comment,
                                          const CdcRecord& record, const TypeMapping& mapping,
                                          bool case_sensitive, const std::string& table);

}  // namespace fjord::cdc
