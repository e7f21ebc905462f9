#include "fjord/format/gather_rows.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api_vector.h>
#include <arrow/json/from_string.h>
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <thread>

#include "fjord/format/arrow_types.h"

namespace fjord {
namespace {

// One column per kind of copy GatherRows does (fixed widths 1-16, bits, both offset widths) and
// two that go through Take (nested).
std::shared_ptr<arrow::Schema> TestSchema() {
  return arrow::schema({
      arrow::field("i8", arrow::int8()),
      arrow::field("i32", arrow::int32(), /*nullable=*/false),
      arrow::field("i64", arrow::int64()),
      arrow::field("f64", arrow::float64()),
      arrow::field("b", arrow::boolean()),
      arrow::field("d", arrow::decimal128(20, 2)),
      arrow::field("fsb", arrow::fixed_size_binary(3)),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MICRO)),
      arrow::field("s", arrow::utf8()),
      arrow::field("lb", arrow::large_binary()),
      arrow::field("l", arrow::list(arrow::int32())),
      arrow::field("st", arrow::struct_({arrow::field("x", arrow::int32()),
                                         arrow::field("y", arrow::utf8())})),
  });
}

// A JSON value of `type`'s column `c` (null at about `null_share`).
std::string RandomValue(int c, bool nullable, std::mt19937* rng, double null_share) {
  std::uniform_real_distribution<double> u(0, 1);
  if (nullable && u(*rng) < null_share) return "null";
  auto n = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(*rng); };
  auto text = [&](int max_len) {
    std::string s = "\"";
    for (int i = n(0, max_len); i > 0; --i) s += static_cast<char>('a' + n(0, 25));
    return s + "\"";
  };
  switch (c) {
    case 0:
      return std::to_string(n(-128, 127));
    case 1:
      return std::to_string(n(-1000000, 1000000));
    case 2:
      return std::to_string(static_cast<int64_t>(n(-1000000, 1000000)) * 1000003);
    case 3:
      return std::to_string(n(-1000, 1000)) + ".25";
    case 4:
      return n(0, 1) ? "true" : "false";
    case 5:
      return "\"" + std::to_string(n(-99999, 99999)) + ".0" + std::to_string(n(0, 9)) + "\"";
    case 6:
      return "\"" + std::string(1, static_cast<char>('a' + n(0, 25))) + "bc\"";
    case 7:
      return std::to_string(static_cast<int64_t>(n(0, 1000000)) * 1000000);
    case 8:
      return text(20);
    case 9:
      return text(40);
    case 10: {
      std::string s = "[";
      for (int i = n(0, 4); i > 0; --i) s += std::to_string(n(-5, 5)) + (i > 1 ? "," : "");
      return s + "]";
    }
    default:
      return "{\"x\": " + std::to_string(n(0, 9)) + ", \"y\": " + text(5) + "}";
  }
}

std::shared_ptr<arrow::RecordBatch> RandomBatch(const std::shared_ptr<arrow::Schema>& schema,
                                                int64_t rows, double null_share,
                                                std::mt19937* rng) {
  arrow::ArrayVector columns;
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::string json = "[";
    for (int64_t r = 0; r < rows; ++r) {
      json += (r ? "," : "") + RandomValue(c, schema->field(c)->nullable(), rng, null_share);
    }
    json += "]";
    auto array = arrow::json::ArrayFromJSONString(schema->field(c)->type(), json);
    EXPECT_TRUE(array.ok()) << array.status().ToString() << " " << json.substr(0, 200);
    columns.push_back(*array);
  }
  return arrow::RecordBatch::Make(schema, rows, columns);
}

// The reference: every source concatenated whole, then Arrow's Take.
std::shared_ptr<arrow::RecordBatch> ByTake(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
    const std::vector<RowRef>& refs) {
  auto combined = arrow::ConcatenateRecordBatches(sources).ValueOrDie();
  std::vector<int64_t> base(sources.size(), 0);
  for (size_t s = 1; s < sources.size(); ++s) base[s] = base[s - 1] + sources[s - 1]->num_rows();
  arrow::Int64Builder b;
  for (const RowRef& r : refs)
    EXPECT_TRUE(b.Append(base[static_cast<size_t>(r.source)] + r.row).ok());
  auto idx = b.Finish().ValueOrDie();
  EnsureArrowCompute();
  return arrow::compute::Take(arrow::Datum(combined), arrow::Datum(idx))
      .ValueOrDie()
      .record_batch();
}

// Sources of several sizes (1 + round % 5 of them), some of them slices (non-zero offsets), the
// third empty; nulls in some sources only, so that a column mixes sources with and without a
// validity bitmap.
std::vector<std::shared_ptr<arrow::RecordBatch>> RandomSources(
    const std::shared_ptr<arrow::Schema>& schema, int round, std::mt19937* rng) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> sources;
  int count = 1 + round % 5;
  for (int s = 0; s < count; ++s) {
    int64_t rows = (s == 2) ? 0 : 1 + static_cast<int64_t>((*rng)() % 60);
    double nulls = (s + round) % 3 == 0 ? 0.0 : 0.3;
    auto batch = RandomBatch(schema, rows + 7, nulls, rng);
    sources.push_back(batch->Slice(static_cast<int64_t>((*rng)() % 7), rows));
  }
  return sources;
}

TEST(GatherRowsTest, SameRowsAsConcatenateAndTake) {
  auto schema = TestSchema();
  std::mt19937 rng(42);
  for (int round = 0; round < 30; ++round) {
    auto sources = RandomSources(schema, round, &rng);
    std::vector<RowRef> refs;
    int64_t n = static_cast<int64_t>(rng() % 200);
    for (int64_t i = 0; i < n; ++i) {
      int s = static_cast<int>(rng() % sources.size());
      if (sources[static_cast<size_t>(s)]->num_rows() == 0) continue;
      refs.push_back(
          {s, static_cast<int64_t>(rng() % sources[static_cast<size_t>(s)]->num_rows())});
    }
    auto gathered = GatherRows(schema, sources, refs);
    ASSERT_TRUE(gathered.ok()) << gathered.status().ToString();
    ASSERT_TRUE((*gathered)->ValidateFull().ok()) << (*gathered)->ValidateFull().ToString();
    auto expected = ByTake(sources, refs);
    ASSERT_TRUE((*gathered)->Equals(*expected)) << "round " << round << "\n"
                                                << (*gathered)->ToString() << "\nexpected\n"
                                                << expected->ToString();
  }
}

TEST(GatherRowsTest, NoRowsAndRowsOutOfRange) {
  auto schema = TestSchema();
  std::mt19937 rng(7);
  std::vector<std::shared_ptr<arrow::RecordBatch>> sources = {RandomBatch(schema, 3, 0.5, &rng)};
  auto none = GatherRows(schema, sources, {});
  ASSERT_TRUE(none.ok());
  EXPECT_EQ((*none)->num_rows(), 0);
  EXPECT_TRUE((*none)->ValidateFull().ok());
  EXPECT_FALSE(GatherRows(schema, sources, {{0, 3}}).ok());
  EXPECT_FALSE(GatherRows(schema, sources, {{1, 0}}).ok());
}

// Every row of the sources given a share at random (or none), each share's rows in order, dealt
// out by RowScatter; the reference is GatherRows of each share's references.
TEST(RowScatterTest, SharesEqualEachShareGathered) {
  auto schema = TestSchema();
  std::mt19937 rng(11);
  for (int round = 0; round < 30; ++round) {
    auto sources = RandomSources(schema, round, &rng);
    // Share `shares - 1` gets no row in some rounds: an empty share is a batch of no rows.
    const int32_t shares = 1 + static_cast<int32_t>(round % 6);
    std::vector<std::vector<int32_t>> dest(sources.size());
    std::vector<std::vector<RowRef>> refs(static_cast<size_t>(shares));
    for (size_t s = 0; s < sources.size(); ++s) {
      for (int64_t r = 0; r < sources[s]->num_rows(); ++r) {
        int32_t d = static_cast<int32_t>(rng() % static_cast<uint32_t>(shares + 1)) - 1;
        if (round % 4 == 0 && d == shares - 1) d = -1;
        dest[s].push_back(d);
        if (d >= 0) refs[static_cast<size_t>(d)].push_back({static_cast<int>(s), r});
      }
    }
    auto scatter = RowScatter::Make(schema, sources, dest, shares);
    ASSERT_TRUE(scatter.ok()) << scatter.status().ToString();
    EXPECT_FALSE((*scatter)->Share(0).ok()) << "no column filled yet";
    // The columns filled on two threads at once, as the append writer's tasks do.
    std::atomic<int> next{0};
    auto fill = [&] {
      for (int c = next++; c < (*scatter)->num_columns(); c = next++) {
        ASSERT_TRUE((*scatter)->Fill(c).ok()) << "column " << c;
      }
    };
    std::thread other(fill);
    fill();
    other.join();
    for (int32_t i = 0; i < shares; ++i) {
      auto share = (*scatter)->Share(i);
      ASSERT_TRUE(share.ok()) << share.status().ToString();
      ASSERT_TRUE((*share)->ValidateFull().ok()) << (*share)->ValidateFull().ToString();
      auto expected = GatherRows(schema, sources, refs[static_cast<size_t>(i)]);
      ASSERT_TRUE(expected.ok());
      ASSERT_TRUE((*share)->Equals(**expected)) << "round " << round << " share " << i << "\n"
                                                << (*share)->ToString() << "\nexpected\n"
                                                << (*expected)->ToString();
    }
  }
}

// Each column is filled once, and its source columns are let go as it is: a writer's batches
// in flight go as their shares fill, not once every share is taken.
TEST(RowScatterTest, EachColumnFilledOnceItsSourcesLetGo) {
  auto schema = TestSchema();
  std::mt19937 rng(5);
  auto sources = RandomSources(schema, 3, &rng);
  std::vector<std::weak_ptr<arrow::ArrayData>> held;
  std::vector<std::vector<int32_t>> dest(sources.size());
  for (size_t s = 0; s < sources.size(); ++s) {
    for (int c = 0; c < schema->num_fields(); ++c) held.push_back(sources[s]->column_data(c));
    dest[s].assign(static_cast<size_t>(sources[s]->num_rows()), 0);
  }
  auto scatter = RowScatter::Make(schema, std::move(sources), std::move(dest), 1);
  ASSERT_TRUE(scatter.ok()) << scatter.status().ToString();
  auto alive = [&] {
    size_t n = 0;
    for (const auto& w : held) n += w.expired() ? 0 : 1;
    return n;
  };
  EXPECT_EQ(alive(), held.size());
  ASSERT_TRUE((*scatter)->Fill(0).ok());
  EXPECT_EQ(alive(), held.size() - held.size() / static_cast<size_t>(schema->num_fields()));
  EXPECT_FALSE((*scatter)->Fill(0).ok()) << "column 0 filled twice";
  for (int c = 1; c < schema->num_fields(); ++c) ASSERT_TRUE((*scatter)->Fill(c).ok());
  EXPECT_EQ(alive(), 0u);
  auto share = (*scatter)->Share(0);
  ASSERT_TRUE(share.ok()) << share.status().ToString();
  EXPECT_TRUE((*share)->ValidateFull().ok());
}

TEST(RowScatterTest, RefusesDestinationsThatDoNotFit) {
  auto schema = TestSchema();
  std::mt19937 rng(3);
  std::vector<std::shared_ptr<arrow::RecordBatch>> sources = {RandomBatch(schema, 3, 0.5, &rng)};
  EXPECT_FALSE(RowScatter::Make(schema, sources, {{0, 1}}, 2).ok()) << "a row without a share";
  EXPECT_FALSE(RowScatter::Make(schema, sources, {{0, 1, 2}}, 2).ok()) << "share out of range";
  EXPECT_FALSE(RowScatter::Make(schema, sources, {}, 2).ok()) << "a source without rows' shares";
  auto scatter = RowScatter::Make(schema, sources, {{0, -1, 1}}, 2);
  ASSERT_TRUE(scatter.ok());
  EXPECT_FALSE((*scatter)->Share(2).ok());
}

}  // namespace
}  // namespace fjord
