// The summary of one column over a set of rows (a data file, a row group, a manifest), the form
// that statistics pruning reads (expr/predicate.h) and that file readers hand their row-group
// statistics over in (format/data_file_reader.h).
#pragma once

#include <cstdint>
#include <optional>

#include "fjord/value.h"

namespace fjord {

// Unknown parts are nullopt.
struct ColumnStats {
  std::optional<Value> min;  // non-null lower bound of the non-null values
  std::optional<Value> max;  // non-null upper bound of the non-null values
  std::optional<int64_t> null_count;
};

}  // namespace fjord
