// The messages of a CDC job's files or Kafka source decoded into change records (docs/cdc.md):
// a batch of messages decoded on several threads at once (`source.decode-threads`, each thread
// with its own format instance and so its own cache of Debezium schemas), then taken in order
// with the batch cut of CdcSource::Next and the dead-letter handling of `source.on-error`.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/runtime/cdc_source.h"

namespace fjord::runtime {

// What one message decoded to.
struct DecodedMessage {
  Status status;
  std::vector<cdc::CdcRecord> records;
};

class CdcDecoder {
 public:
  // `threads`: at least 1.
  static Result<std::unique_ptr<CdcDecoder>> Make(const std::string& format,
                                                  const cdc::TypeMapping& mapping, int threads);
  // (*out)[i] is what messages[i] decodes to; the messages are split into contiguous ranges, one
  // per thread (the caller's thread takes the first).
  void DecodeAll(const std::vector<cdc::CdcMessage>& messages, std::vector<DecodedMessage>* out);

 private:
  std::vector<std::unique_ptr<cdc::CdcFormat>> formats_;  // one per thread
};

// Appends the records of `decoded` (origin set from `message`) to `out`. False when `cut` asks
// one of them to start a batch and `out` already holds records: the message is then left for the
// next batch, whole. A message the format refused (Invalid) fails, or with `dead_letter` goes to
// `letter(error)` and counts as taken.
Result<bool> TakeDecoded(DecodedMessage decoded, const cdc::CdcMessage& message, const CdcCut& cut,
                         bool dead_letter, std::vector<cdc::CdcRecord>* out,
                         const std::function<void(const std::string& error)>& letter);

}  // namespace fjord::runtime
