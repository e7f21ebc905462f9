// Filters on table columns: a tree of comparisons (=, <>, <, <=, >, >=, IN, NOT IN, IS NULL,
// IS NOT NULL) joined by AND / OR / NOT. Used three ways:
//   * exactly, on values (partition pruning, row filtering of `fjord cat --where`);
//   * conservatively, on statistics (file and manifest pruning): "may match" is false only when
//     no row inside the [min, max] / null-count summary can satisfy the filter;
//   * as an Arrow boolean mask over a batch (row filtering).
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/common/value_stats.h"
#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

enum class PredicateOp : unsigned char {
  kEq,
  kNotEq,
  kLt,
  kLe,
  kGt,
  kGe,
  kIn,
  kNotIn,
  kIsNull,
  kIsNotNull,
  kAnd,
  kOr,
  kNot,
};

struct Predicate {
  PredicateOp op = PredicateOp::kAnd;
  // Leaves: the column (name and type as in the schema the predicate was bound to).
  std::string field;
  DataTypePtr type;
  std::vector<Value> literals;  // one for comparisons, several for IN / NOT IN, none otherwise
  // AND / OR: two or more children; NOT: one.
  std::vector<Predicate> children;

  bool IsLeaf() const { return op < PredicateOp::kAnd; }

  // Parses SQL-like text against `fields`:
  //   a = 5 AND (b > 'x' OR c IS NULL) AND d IN (1, 2) AND NOT e <> 2.5
  // Literals: integers, decimals, 'strings' ('' escapes a quote), TRUE/FALSE, NULL is only valid
  // with IS [NOT] NULL; DATE '2024-01-01', TIMESTAMP '2024-01-01 10:00:00.123'. Column names may
  // be `quoted`. Literals are converted to the column's type; errors name the column and text.
  // Also: TIME '10:00:00.5', X'00ff' for binaries, `5 < a` (mirrored), [NOT] BETWEEN x AND y
  // (as >= AND <=), a bare TRUE / FALSE (an empty AND / OR), and 'quoted' text for any
  // non-string column ('2024-01-01' for a DATE). A literal the column cannot hold exactly (too
  // many fractional digits for the DECIMAL scale or TIMESTAMP precision) is an error, never
  // rounded. Names match exactly, else case-insensitively when that is unambiguous.
  static Result<Predicate> Parse(std::string_view text, const std::vector<DataField>& fields);

  // Exact test on a row given as a lookup from column name to value (null Value for NULL; a
  // nullptr from `lookup` counts as NULL too). SQL three-valued logic; unknown counts as false at
  // the top. FLOAT/DOUBLE compare as IEEE numbers, as Arrow does: -0.0 = 0.0, NaN equals nothing.
  bool Test(const std::function<const Value*(const std::string&)>& lookup) const;

  // Conservative test on statistics; `stats` returns null for a column without statistics
  // (then anything may match). `row_count` is the number of rows summarised, negative when
  // unknown. NOT is pushed down to the leaves (exact in three-valued logic, except orderings on
  // FLOAT/DOUBLE, which never prune under NOT because of NaN).
  bool MayMatch(const std::function<const ColumnStats*(const std::string&)>& stats,
                int64_t row_count) const;

  // The part of this predicate that mentions only `columns` (others replaced by TRUE), so that
  // pruning on partition columns stays conservative. nullopt when nothing is left.
  std::optional<Predicate> Restrict(const std::vector<std::string>& columns) const;

  // All column names used.
  std::vector<std::string> Columns() const;

  // A boolean mask (true = keep) over `batch`, whose columns are found by name and are in the
  // canonical Arrow form (format/arrow_types.h). NULL results count as false.
  Result<std::shared_ptr<arrow::Array>> Evaluate(const arrow::RecordBatch& batch) const;

  std::string ToString() const;
};

}  // namespace fjord
