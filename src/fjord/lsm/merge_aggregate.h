// The aggregation merge engine (spec/behaviour.md §3.4; Java: AggregateMergeFunction).
#pragma once

#include <memory>

#include "fjord/lsm/merge_function.h"
#include "fjord/result.h"

namespace fjord {

// One field aggregator per column (aggregators.h): key columns keep the key, sequence fields the
// newest value, others fields.<col>.aggregate-function or fields.default-aggregate-function.
Result<std::unique_ptr<MergeFunction>> CreateAggregateMergeFunction(const MergeContext& context);

}  // namespace fjord
