// The partial-update merge engine (spec/behaviour.md §3.4; Java: PartialUpdateMergeFunction).
#pragma once

#include <memory>

#include "fjord/lsm/merge_function.h"
#include "fjord/result.h"

namespace fjord {

// Sequence groups, per-column aggregate functions inside groups, ignore-delete and the
// remove-record options; conflicting options are Invalid.
Result<std::unique_ptr<MergeFunction>> CreatePartialUpdateMergeFunction(
    const MergeContext& context);

}  // namespace fjord
