// Column changes given by a field path, as Java Paimon 1.4.2's SchemaManager applies them
// (generateTableSchema with its NestedColumnModifier): a path names a column, then a field per
// ROW level; each ARRAY (its element) and MAP (its value) on the way takes one step of the path
// whatever its name ("element" / "value" by convention). Used by ApplySchemaChanges for every
// ADD COLUMN and for DROP / RENAME / type / comment changes of nested fields (docs/reading.md,
// "Nested schema evolution").
#pragma once

#include <string>
#include <vector>

#include "fjord/catalog.h"
#include "fjord/data_type.h"
#include "fjord/status.h"

namespace fjord {

// What the checks of a change read from the table.
struct NestedChangeContext {
  bool null_to_not_null_disabled = true;  // alter-column-null-to-not-null.disabled
  bool explicit_casts = true;             // !disable-explicit-type-casting
};

// `path` joined with dots: "v.element.x".
std::string JoinFieldPath(const std::vector<std::string>& path);

// Applies `change` (kAddColumn, kDropColumn, kRenameColumn, kUpdateColumnType or
// kUpdateColumnComment) at change.FieldPath() inside `fields`. An added field takes the next id
// after `*highest_field_id` and the fields inside its type the ids after that (Java's
// ReassignFieldId); `*highest_field_id` ends at the last id given. Invalid, naming the path and
// the types, where Java's SchemaManager refuses the change. Partition and primary-key checks of
// top-level columns are the caller's.
Status ApplyFieldPathChange(const SchemaChange& change, const NestedChangeContext& context,
                            std::vector<DataField>* fields, int32_t* highest_field_id);

// Whether ALTER TABLE may change a type `from` into `to` (one found at a path): Java's
// DataTypeCasts.supportsCast and a CastExecutors rule. No rule casts one ARRAY, MAP, MULTISET
// or ROW into another (not even into an equal one), so such a change is refused; inside them
// only the types of fields, elements and values change (each by its own path).
bool AlterTypeAllowedAsJava(const DataType& from, const DataType& to, bool explicit_casts);

}  // namespace fjord
