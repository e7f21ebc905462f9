// Schema-evolution casts exactly as Java Paimon 1.4.2 computes them. When a data file written
// under an older schema is read after ALTER TABLE changed a column's type, Java reads the file in
// its own type and converts each value with the executor of `CastExecutors.resolve(file type,
// table type)` (paimon-common `casting/*CastRule.java`); these functions do the same on Arrow
// columns in Fjord's canonical form (format/arrow_types.h). What each rule computes, with its Java
// source, is in docs/reading.md, "Schema evolution casts". Time zones: the reading JVM's default
// zone, which Fjord takes to be UTC (as `fjord-oracle` runs), so TIMESTAMP and TIMESTAMP WITH
// LOCAL TIME ZONE convert into each other unchanged.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>

#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord {

// Java's `DataTypeCasts.supportsCast(from, to, allow_explicit)`: whether the type roots allow the
// change (implicit casts, plus explicit ones when `allow_explicit`). Lengths, precisions and
// scales do not matter; a nullable `from` never casts to a NOT NULL `to` implicitly.
bool SupportsCast(const DataType& from, const DataType& to, bool allow_explicit);

// Whether Java's `CastExecutors.resolve(from, to)` yields an executor that Fjord implements
// (nullability ignored). Equal types always do, and so do ARRAY, MAP and ROW to strings. Java
// also has executors for types changed inside ARRAY, MAP and ROW; Fjord has not (false).
bool HasEvolutionCast(const DataType& from, const DataType& to);

// Whether ALTER TABLE may change a column of type `from` to `to`, as Java's SchemaManager
// decides it (without the nullability and key checks): SupportsCast and a resolvable executor.
// `allow_explicit` is false when the table sets `disable-explicit-type-casting`.
inline bool AlterTypeAllowed(const DataType& from, const DataType& to, bool allow_explicit) {
  return SupportsCast(from, to, allow_explicit) && HasEvolutionCast(from, to);
}

// `column`, in the canonical Arrow form of `from`, as a column of `to` in its canonical form,
// each value converted as Java's executor converts it (NULL stays NULL; a DECIMAL that does not
// fit becomes NULL, as in Java). Invalid, naming the row and the value, where Java's executor
// throws (e.g. the string 'abc' to INT), or where the result does not fit Fjord's canonical
// form (a TIMESTAMP(7..9) beyond the years 1677..2262). NotImplemented when !HasEvolutionCast.
Result<std::shared_ptr<arrow::Array>> EvolutionCast(const std::shared_ptr<arrow::Array>& column,
                                                    const DataType& from, const DataType& to);

// A nested column whose inner types were changed (Java's ALTER TABLE ... MODIFY on a nested path,
// `col.element`, `col.value`, `col.field`: SchemaEvolutionUtil casts each element): ARRAY
// elements, MAP values (map form) and ROW fields (matched by field id: renamed, dropped and
// added fields too) cast by EvolutionCast, recursively. Anything else goes to ToCanonical.
Result<std::shared_ptr<arrow::Array>> EvolveNestedColumn(
    const std::shared_ptr<arrow::Array>& column, const DataType& from, const DataType& to);

}  // namespace fjord
