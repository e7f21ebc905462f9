#include "fjord/lsm/merge_engine.h"

#include <string>

#include "fjord/common/strings.h"
#include "fjord/lsm/merge_aggregate.h"
#include "fjord/lsm/merge_deduplicate.h"
#include "fjord/lsm/merge_options.h"
#include "fjord/lsm/merge_partial_update.h"

namespace fjord {

Result<std::unique_ptr<MergeFunction>> CreateMergeFunction(const MergeContext& context) {
  MergeOptions options(context.options);
  std::string text = options.GetString(kMergeEngineOption);
  std::string engine = Lower(text);
  if (engine == "deduplicate") return CreateDeduplicateMergeFunction(context);
  if (engine == "first-row") return CreateFirstRowMergeFunction(context);
  if (engine == "partial-update") return CreatePartialUpdateMergeFunction(context);
  if (engine == "aggregation") return CreateAggregateMergeFunction(context);
  return Status::Invalid("option 'merge-engine': unknown merge engine '", text,
                         "'; expected deduplicate, partial-update, aggregation or first-row");
}

}  // namespace fjord
