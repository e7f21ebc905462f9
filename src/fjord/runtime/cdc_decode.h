// One message of a CDC job's files or Kafka source decoded into change records (docs/cdc.md),
// with the batch cut of CdcSource::Next and the dead-letter handling of `source.on-error`.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/runtime/cdc_source.h"

namespace fjord::runtime {

// Decodes `message` and appends its records (origin set) to `out`. False when `cut` asks one of
// them to start a batch and `out` already holds records: the message is then left for the next
// batch, whole. A message the format refuses (Invalid) fails, or with `dead_letter` goes to
// `letter(error)` and counts as taken.
Result<bool> TakeCdcMessage(cdc::CdcFormat& format, const cdc::CdcMessage& message,
                            const CdcCut& cut, bool dead_letter, std::vector<cdc::CdcRecord>* out,
                            const std::function<void(const std::string& error)>& letter);

}  // namespace fjord::runtime
