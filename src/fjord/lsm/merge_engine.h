// The factory of merge functions: the one place that knows every merge engine (deduplicate,
// first-row in merge_deduplicate.h, partial-update, aggregation). Engines include
// merge_function.h and merge_options.h, never this header.
#pragma once

#include <memory>

#include "fjord/lsm/merge_function.h"
#include "fjord/result.h"

namespace fjord {

// The function of the table's `merge-engine` (deduplicate, partial-update, aggregation,
// first-row) with its options (ignore-delete, sequence groups, aggregate functions,
// ignore-retract, remove-record-on-delete, ...). Invalid option combinations are Invalid errors.
Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const MergeContext& context);

}  // namespace fjord
