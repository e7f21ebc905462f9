// The `kafka` source of `fjord run` (docs/streaming.md), through librdkafka: the partitions of
// one or more topics, each message value one JSON object. The position is the next offset of
// every partition (the checkpoint is the truth; a consumer group only gets copies for
// monitoring).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>

#include "fjord/result.h"
#include "fjord/runtime/job_spec.h"
#include "fjord/schema.h"

namespace fjord::runtime {

class Source;

// (topic, partition) -> the offset of the next message to read.
using KafkaOffsets = std::map<std::pair<std::string, int32_t>, int64_t>;

struct KafkaPosition {
  KafkaOffsets offsets;
  int64_t dead_letter_bytes = -1;  // -1: no dead-letter file
};

// {"offsets": {"<topic>": {"<partition>": <next offset>, ...}, ...}[, "dead-letter-bytes": n]}
std::string FormatKafkaPosition(const KafkaPosition& position);
Result<KafkaPosition> ParseKafkaPosition(const std::string& text);

// A librdkafka consumer property of `source.properties`: known to librdkafka with a valid value,
// and not one Fjord sets itself (bootstrap.servers, group.id, the offset handling).
Status CheckKafkaProperty(const std::string& key, const std::string& value);

Result<std::unique_ptr<Source>> MakeKafkaSource(const SourceSpec& spec, const TableSchema& schema);

}  // namespace fjord::runtime
