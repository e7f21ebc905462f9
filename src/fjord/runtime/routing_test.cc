#include <gtest/gtest.h>

#include <map>
#include <set>
#include <string>

#include "fjord/format/binary_row.h"
#include "fjord/runtime/channel.h"

namespace fjord::runtime {
namespace {

// Flink's ChannelComputer.select: (abs(partition hash) % n + bucket) % n.
TEST(RoutingTest, ChannelOfBucket) {
  std::string partition(8, '\0');  // an empty BinaryRow
  int32_t hash = HashBinaryRow(partition);
  for (int n : {1, 2, 3, 7}) {
    int start = (hash < 0 ? -hash : hash) % n;
    for (int32_t bucket = 0; bucket < 20; ++bucket) {
      EXPECT_EQ(SelectChannel(partition, bucket, n), (start + bucket) % n);
    }
  }
}

TEST(RoutingTest, BucketsSpreadOverWriters) {
  // The buckets of one partition go round the writers: each writer gets buckets/n of them.
  std::string partition = "\x01\x00\x00\x00\x00\x00\x00\x00\x05\x00\x00\x00\x00\x00\x00\x00";
  std::map<int, int> per_writer;
  for (int32_t bucket = 0; bucket < 12; ++bucket) ++per_writer[SelectChannel(partition, bucket, 3)];
  ASSERT_EQ(per_writer.size(), 3u);
  for (const auto& [writer, count] : per_writer) EXPECT_EQ(count, 4) << writer;
  // Deterministic: the same (partition, bucket) always goes to the same writer.
  for (int32_t bucket = 0; bucket < 12; ++bucket) {
    EXPECT_EQ(SelectChannel(partition, bucket, 3), SelectChannel(partition, bucket, 3));
    EXPECT_GE(SelectChannel(partition, bucket, 3), 0);
  }
}

}  // namespace
}  // namespace fjord::runtime
