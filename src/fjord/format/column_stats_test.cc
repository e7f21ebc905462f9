#include "fjord/format/column_stats.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include "fjord/format/binary_row.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

TEST(StatsModeTest, Parse) {
  EXPECT_EQ(*StatsMode::Parse("none"), StatsMode::None());
  EXPECT_EQ(*StatsMode::Parse("COUNTS"), StatsMode::Counts());
  EXPECT_EQ(*StatsMode::Parse("Full"), StatsMode::Full());
  EXPECT_EQ(*StatsMode::Parse("truncate(16)"), StatsMode::Truncate(16));
  EXPECT_EQ(*StatsMode::Parse("TRUNCATE(128)"), StatsMode::Truncate(128));
  EXPECT_FALSE(StatsMode::Parse("truncate(0)").ok());
  EXPECT_FALSE(StatsMode::Parse("truncate()").ok());
  EXPECT_FALSE(StatsMode::Parse("truncate(-1)").ok());
  EXPECT_FALSE(StatsMode::Parse("partial").ok());
  EXPECT_EQ(StatsMode::Truncate(7).ToString(), "truncate(7)");
}

TEST(StatsModeTest, ModesForColumns) {
  std::vector<std::string> names = {"_KEY_k", "_SEQUENCE_NUMBER", "_VALUE_KIND", "k", "v", "w"};
  ASSERT_OK_AND_ASSIGN(auto modes, StatsModesFor(names, Options(), FileFormat::kParquet));
  EXPECT_EQ(modes, (std::vector<StatsMode>{StatsMode::Truncate(128), StatsMode::Truncate(128),
                                           StatsMode::Truncate(128), StatsMode::Truncate(16),
                                           StatsMode::Truncate(16), StatsMode::Truncate(16)}));
  ASSERT_OK_AND_ASSIGN(auto avro, StatsModesFor(names, Options(), FileFormat::kAvro));
  EXPECT_EQ(avro[0], StatsMode::Truncate(16));

  Options o = Options::FromTable({{"metadata.stats-mode", "counts"},
                                  {"fields.v.stats-mode", "full"},
                                  {"fields._VALUE_KIND.stats-mode", "none"},
                                  {"metadata.stats-keep-first-n-columns", "2"}});
  ASSERT_OK_AND_ASSIGN(auto m2, StatsModesFor(names, o, FileFormat::kOrc));
  // System fields are not counted against keep-first-n (except one with its own mode).
  EXPECT_EQ(m2, (std::vector<StatsMode>{StatsMode::Truncate(128), StatsMode::Truncate(128),
                                        StatsMode::None(), StatsMode::Counts(), StatsMode::Full(),
                                        StatsMode::None()}));
  ASSERT_OK_AND_ASSIGN(auto m3, StatsModesFor(names, o, FileFormat::kAvro));
  EXPECT_EQ(m3, (std::vector<StatsMode>{StatsMode::Counts(), StatsMode::Counts(), StatsMode::None(),
                                        StatsMode::None(), StatsMode::Full(), StatsMode::None()}));
  Options bad = Options::FromTable({{"metadata.stats-mode", "truncate(x)"}});
  EXPECT_FALSE(StatsModesFor(names, bad, FileFormat::kParquet).ok());
}

TEST(TruncateTest, Strings) {
  EXPECT_EQ(TruncateStringMin("Two roads diverged", 16), "Two roads diverg");
  EXPECT_EQ(*TruncateStringMax("Two roads diverged", 16), "Two roads diverh");
  EXPECT_EQ(*TruncateStringMax("short", 16), "short");
  EXPECT_EQ(*TruncateStringMax("", 16), "");
  // Code points, not bytes: 4-byte UTF-8 (a surrogate pair in Java) counts as one.
  std::string emoji = "\xf0\x9f\x98\x80";  // U+1F600
  EXPECT_EQ(TruncateStringMin(emoji + emoji + "x", 2), emoji + emoji);
  EXPECT_EQ(*TruncateStringMax(emoji + emoji + "x", 2), emoji + "\xf0\x9f\x98\x81");
  EXPECT_EQ(*TruncateStringMax("日本語", 2), "日札");  // U+672C + 1 = U+672D
  // U+10FFFF cannot be incremented: the previous code point is, and the rest dropped.
  std::string max_cp = "\xf4\x8f\xbf\xbf";
  EXPECT_EQ(*TruncateStringMax("a" + max_cp + "zz", 2), "b");
  EXPECT_FALSE(TruncateStringMax(max_cp + max_cp + "z", 2).has_value());
  // Crossing an encoding length: U+007F -> U+0080, U+07FF -> U+0800, U+FFFF -> U+10000.
  EXPECT_EQ(*TruncateStringMax("\x7f"
                               "a",
                               1),
            "\xc2\x80");
  EXPECT_EQ(*TruncateStringMax("\xdf\xbf"
                               "a",
                               1),
            "\xe0\xa0\x80");
  EXPECT_EQ(*TruncateStringMax("\xef\xbf\xbf"
                               "a",
                               1),
            "\xf0\x90\x80\x80");
  // U+D7FF -> U+E000 (skips the surrogates).
  EXPECT_EQ(*TruncateStringMax("\xed\x9f\xbf"
                               "a",
                               1),
            "\xee\x80\x80");
}

TEST(ConvertStatsTest, Modes) {
  auto str = DataType::String();
  DataColumnStats src{"aaaaaaaaaaaaaaaaaaaa", "zzzzzzzzzzzzzzzzzzzz", 3};
  EXPECT_EQ(ConvertStats(src, StatsMode::None(), *str), DataColumnStats{});
  EXPECT_EQ(ConvertStats(src, StatsMode::Counts(), *str), (DataColumnStats{Value(), Value(), 3}));
  EXPECT_EQ(ConvertStats(src, StatsMode::Full(), *str), src);
  EXPECT_EQ(ConvertStats(src, StatsMode::Truncate(4), *str), (DataColumnStats{"aaaa", "zzz{", 3}));
  // Max cannot be made: both bounds unknown, null count kept.
  std::string m = "\xf4\x8f\xbf\xbf";
  DataColumnStats hi{"a", m + m + m, 0};
  EXPECT_EQ(ConvertStats(hi, StatsMode::Truncate(2), *str), (DataColumnStats{Value(), Value(), 0}));
  // Binary is truncated by bytes, incrementing the last non-0xFF byte.
  auto bin = DataType::Bytes();
  DataColumnStats b{std::string("\x01\x02\x03", 3), std::string("\x01\xff\xff", 3), 0};
  EXPECT_EQ(ConvertStats(b, StatsMode::Truncate(2), *bin),
            (DataColumnStats{std::string("\x01\x02", 2), std::string("\x02", 1), 0}));
  // Non-strings are kept.
  DataColumnStats i{int64_t{-5}, int64_t{7}, 1};
  EXPECT_EQ(ConvertStats(i, StatsMode::Truncate(1), *DataType::BigInt()), i);
}

TEST(CollectorTest, RowByRowLikeJava) {
  ColumnStatsCollector c(StatsMode::Truncate(3), DataType::String());
  for (const char* s : {"banana", "apple", "cherry"}) c.Collect(Value(s));
  c.Collect(Value());
  EXPECT_EQ(c.Finish(), (DataColumnStats{"app", "chf", 1}));

  // Once a max cannot be made the collector has failed for good.
  std::string m = "\xf4\x8f\xbf\xbf";
  ColumnStatsCollector f(StatsMode::Truncate(1), DataType::String());
  f.Collect(Value("a"));
  f.Collect(Value(m + "x"));
  f.Collect(Value());
  EXPECT_EQ(f.Finish(), (DataColumnStats{Value(), Value(), 1}));

  ColumnStatsCollector full(StatsMode::Full(), DataType::Double());
  for (double d : {1.0, -0.0, 0.0, 3.0}) full.Collect(Value(d));
  auto r = full.Finish();
  EXPECT_EQ(r.min, Value(-0.0));
  EXPECT_EQ(r.max, Value(3.0));

  ColumnStatsCollector counts(StatsMode::Counts(), DataType::Int());
  counts.Collect(Value(int32_t{1}));
  counts.Collect(Value());
  EXPECT_EQ(counts.Finish(), (DataColumnStats{Value(), Value(), 1}));

  ColumnStatsCollector none(StatsMode::None(), DataType::Int());
  none.Collect(Value());
  EXPECT_EQ(none.Finish(), DataColumnStats{});

  ColumnStatsCollector nested(StatsMode::Full(), DataType::Array(DataType::Int()));
  nested.Collect(Value::List({int32_t{1}}));
  nested.Collect(Value());
  EXPECT_EQ(nested.Finish(), (DataColumnStats{Value(), Value(), 1}));
}

TEST(FooterStatsTest, NaNAndAllNull) {
  arrow::DoubleBuilder b;
  ASSERT_TRUE(b.Append(1.0).ok());
  ASSERT_TRUE(b.Append(std::nan("")).ok());
  ASSERT_TRUE(b.AppendNull().ok());
  arrow::ChunkedArray col(*b.Finish());
  ASSERT_OK_AND_ASSIGN(auto s, FooterStats(col, *DataType::Double(), FileFormat::kParquet));
  EXPECT_EQ(s, (DataColumnStats{Value(), Value(), 1}));

  arrow::Int32Builder n;
  ASSERT_TRUE(n.AppendNulls(2).ok());
  arrow::ChunkedArray nulls(*n.Finish());
  ASSERT_OK_AND_ASSIGN(auto s2, FooterStats(nulls, *DataType::Int(), FileFormat::kOrc));
  EXPECT_EQ(s2, (DataColumnStats{Value(), Value(), 2}));
}

// Integers, strings and bytes take the typed path (only the extremes become Values): the bounds
// must still be Java's, strings and bytes ordered by unsigned bytes ("\xc3\xa9" = "é" after "z",
// 0xff after 0x7f) and several arrays folded together.
TEST(FooterStatsTest, BoundsInJavaOrderAcrossArrays) {
  arrow::StringBuilder s1, s2;
  ASSERT_TRUE(s1.AppendValues({"m", "z"}).ok());
  ASSERT_TRUE(s1.AppendNull().ok());
  ASSERT_TRUE(s2.AppendValues({"\xc3\xa9t\xc3\xa9", "A", "m"}).ok());
  arrow::ChunkedArray strings({*s1.Finish(), *s2.Finish()});
  ASSERT_OK_AND_ASSIGN(auto s, FooterStats(strings, *DataType::String(), FileFormat::kParquet));
  EXPECT_EQ(s, (DataColumnStats{"A", "\xc3\xa9t\xc3\xa9", 1}));

  arrow::BinaryBuilder b;
  ASSERT_TRUE(b.AppendValues({std::string("\x7f"), std::string("\xff"), std::string("")}).ok());
  arrow::ChunkedArray bytes(*b.Finish());
  ASSERT_OK_AND_ASSIGN(auto sb, FooterStats(bytes, *DataType::Bytes(), FileFormat::kParquet));
  EXPECT_EQ(sb, (DataColumnStats{std::string(), std::string("\xff"), 0}));

  arrow::Int64Builder i1, i2;
  ASSERT_TRUE(i1.AppendValues({5, -3}).ok());
  ASSERT_TRUE(i2.AppendNull().ok());
  ASSERT_TRUE(i2.AppendValues({-7, 9, 0}).ok());
  arrow::ChunkedArray ints({*i1.Finish(), *i2.Finish()});
  ASSERT_OK_AND_ASSIGN(auto si, FooterStats(ints, *DataType::BigInt(), FileFormat::kParquet));
  EXPECT_EQ(si, (DataColumnStats{int64_t{-7}, int64_t{9}, 1}));
}

TEST(SimpleStatsTest, DenseStore) {
  std::vector<DataField> fields = {
      {0, "a", DataType::Int(false)}, {1, "b", DataType::String()}, {2, "c", DataType::BigInt()}};
  std::vector<DataColumnStats> stats = {
      {int32_t{1}, int32_t{9}, 0}, {}, {int64_t{4}, int64_t{4}, 2}};
  std::vector<StatsMode> modes = {StatsMode::Full(), StatsMode::None(), StatsMode::Full()};
  ASSERT_OK_AND_ASSIGN(auto dense, BuildSimpleStats(fields, stats, modes, true));
  ASSERT_TRUE(dense.stats_cols.has_value());
  EXPECT_EQ(*dense.stats_cols, (std::vector<std::string>{"a", "c"}));
  EXPECT_EQ(dense.types.size(), 2u);
  EXPECT_TRUE(dense.types[0]->nullable());
  ASSERT_OK_AND_ASSIGN(auto enc, EncodeSimpleStats(dense));
  ASSERT_OK_AND_ASSIGN(auto max, DecodeStoredBinaryRow(enc.max_values, dense.types));
  EXPECT_EQ(max, (std::vector<Value>{int32_t{9}, int64_t{4}}));
  EXPECT_EQ(enc.null_counts, (std::vector<std::optional<int64_t>>{0, 2}));

  ASSERT_OK_AND_ASSIGN(auto sparse, BuildSimpleStats(fields, stats, modes, false));
  EXPECT_FALSE(sparse.stats_cols.has_value());
  EXPECT_EQ(sparse.types.size(), 3u);

  std::vector<StatsMode> all_none(3, StatsMode::None());
  std::vector<DataColumnStats> empty(3);
  ASSERT_OK_AND_ASSIGN(auto nothing, BuildSimpleStats(fields, empty, all_none, true));
  ASSERT_TRUE(nothing.stats_cols.has_value());
  EXPECT_TRUE(nothing.stats_cols->empty());
  ASSERT_OK_AND_ASSIGN(auto enc0, EncodeSimpleStats(nothing));
  // Empty row: arity 0 then an 8-byte header.
  EXPECT_EQ(enc0.min_values, std::string(12, '\0'));

  EXPECT_FALSE(BuildSimpleStats(fields, empty, {StatsMode::None()}, true).ok());
}

}  // namespace
}  // namespace fjord
