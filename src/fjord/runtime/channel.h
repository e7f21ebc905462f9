// Which writer gets a (partition, bucket): Flink's ChannelComputer.select of Paimon's sink, the
// partition's BinaryRow hash picking a start channel and the bucket added to it, so that the
// buckets of one partition spread over the writers and every bucket has exactly one writer.
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/format/bucket.h"

namespace fjord::runtime {

inline int SelectChannel(std::string_view partition, int32_t bucket, int channels) {
  int32_t hash = HashBinaryRow(partition);
  if (hash == INT32_MIN) hash = INT32_MAX;
  int32_t start = (hash < 0 ? -hash : hash) % channels;
  return static_cast<int>((static_cast<int64_t>(start) + bucket) % channels);
}

}  // namespace fjord::runtime
