#include "fjord/lsm/interval_partition.h"

#include <random>
#include <set>

#include "fjord/format/binary_row.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::string Key(int v) {
  // Big-endian with the sign flipped: memcmp order = numeric order, like sort_key.h.
  uint32_t u = static_cast<uint32_t>(v) ^ 0x80000000u;
  std::string s(4, '\0');
  for (int i = 3; i >= 0; --i, u >>= 8) s[static_cast<size_t>(i)] = static_cast<char>(u & 0xff);
  return s;
}

TEST(IntervalPartitionTest, SectionsAreDisjointAndRunsAreSorted) {
  std::mt19937_64 rng(9);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::pair<int, int>> ints;
    std::vector<KeyRange> ranges;
    int n = 1 + static_cast<int>(rng() % 20);
    for (int i = 0; i < n; ++i) {
      int a = static_cast<int>(rng() % 200) - 100;
      int b = a + static_cast<int>(rng() % 30);
      ints.emplace_back(a, b);
      ranges.push_back({Key(a), Key(b)});
    }
    std::vector<Section> sections = PartitionIntervals(ranges);
    std::set<size_t> seen;
    int previous_max = INT32_MIN;
    for (const Section& section : sections) {
      int lo = INT32_MAX, hi = INT32_MIN;
      for (const FileRun& run : section) {
        for (size_t i = 0; i < run.size(); ++i) {
          EXPECT_TRUE(seen.insert(run[i]).second);
          lo = std::min(lo, ints[run[i]].first);
          hi = std::max(hi, ints[run[i]].second);
          if (i > 0) {
            EXPECT_LT(ints[run[i - 1]].second, ints[run[i]].first);
          }
        }
      }
      EXPECT_GT(lo, previous_max) << "sections overlap";
      previous_max = hi;
      // A section's runs are needed: as many as the deepest overlap of its files.
      int depth = 0;
      for (int x = lo; x <= hi; ++x) {
        int d = 0;
        for (const FileRun& run : section) {
          for (size_t f : run) d += ints[f].first <= x && x <= ints[f].second;
        }
        depth = std::max(depth, d);
      }
      EXPECT_EQ(static_cast<int>(section.size()), depth);
    }
    EXPECT_EQ(seen.size(), ranges.size());
  }
}

TEST(IntervalPartitionTest, KeyRangesComeFromTheFilesMinAndMaxKeys) {
  std::vector<DataTypePtr> types = {DataType::String(false), DataType::Int(false)};
  auto file = [&](std::string a, int b, std::string c, int d) {
    DataFileMeta f;
    f.min_key = EncodeStoredBinaryRow({Value(a), Value(int32_t{b})}, types).value();
    f.max_key = EncodeStoredBinaryRow({Value(c), Value(int32_t{d})}, types).value();
    return f;
  };
  std::vector<DataFileMeta> files = {file("b", 1, "c", 0), file("a", 5, "b", 0),
                                     file("c", 1, "d", 9)};
  ASSERT_OK_AND_ASSIGN(auto ranges, FileKeyRanges(files, types));
  auto sections = PartitionIntervals(ranges);
  // [a5..b0] overlaps nothing ("b",0 < "b",1); [b1..c0] and [c1..d9] are disjoint too.
  ASSERT_EQ(sections.size(), 3u);
  EXPECT_EQ(sections[0], Section{{1}});
  EXPECT_EQ(sections[1], Section{{0}});
  EXPECT_EQ(sections[2], Section{{2}});
  files.push_back(file("b", 0, "b", 5));
  ASSERT_OK_AND_ASSIGN(ranges, FileKeyRanges(files, types));
  sections = PartitionIntervals(ranges);
  ASSERT_EQ(sections.size(), 2u);
  EXPECT_EQ(sections[0].size(), 2u);  // [a5..b0], [b0..b5] overlap at (b,0), with [b1..c0]
}

}  // namespace
}  // namespace fjord
