// The deduplicate and first-row merge engines (spec/behaviour.md §3.4; Java:
// DeduplicateMergeFunction, FirstRowMergeFunction).
#pragma once

#include <memory>

#include "fjord/lsm/merge_function.h"
#include "fjord/result.h"

namespace fjord {

// The last record wins, retracts included; with ignore-delete retracts are skipped.
Result<std::unique_ptr<MergeFunction>> CreateDeduplicateMergeFunction(const MergeContext& context);
// The first insert wins; a retract is an error unless ignore-delete is set.
Result<std::unique_ptr<MergeFunction>> CreateFirstRowMergeFunction(const MergeContext& context);

}  // namespace fjord
