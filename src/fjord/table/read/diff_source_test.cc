#include "fjord/table/read/diff_source.h"

#include <arrow/api.h>

#include <cmath>
#include <tuple>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// One record: key, double value, kind (0 +I, 1 -U, 2 +U, 3 -D).
using Rec = std::tuple<int32_t, double, int8_t>;

// Hands out `records` in batches of `per_batch` rows: columns k (int32), v (float64), kind.
class VectorSource : public SplitSource {
 public:
  VectorSource(std::vector<Rec> records, size_t per_batch)
      : records_(std::move(records)), per_batch_(per_batch) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() override {
    if (next_ >= records_.size()) return std::shared_ptr<arrow::RecordBatch>();
    arrow::Int32Builder k;
    arrow::DoubleBuilder v;
    arrow::Int8Builder kind;
    size_t start = next_, end = std::min(records_.size(), next_ + per_batch_);
    for (; next_ < end; ++next_) {
      EXPECT_TRUE(k.Append(std::get<0>(records_[next_])).ok());
      EXPECT_TRUE(v.Append(std::get<1>(records_[next_])).ok());
      EXPECT_TRUE(kind.Append(std::get<2>(records_[next_])).ok());
    }
    auto schema =
        arrow::schema({arrow::field("k", arrow::int32()), arrow::field("v", arrow::float64()),
                       arrow::field("_VALUE_KIND", arrow::int8())});
    return arrow::RecordBatch::Make(
        schema, static_cast<int64_t>(end - start),
        {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(), kind.Finish().ValueOrDie()});
  }

 private:
  std::vector<Rec> records_;
  size_t per_batch_;
  size_t next_ = 0;
};

std::vector<Rec> Diff(std::vector<Rec> before, std::vector<Rec> after, size_t per_batch,
                      int64_t batch_rows) {
  Result<SortKeyEncoder> keys = SortKeyEncoder::Make({SortColumn{0, DataType::Int(false), false}});
  EXPECT_TRUE(keys.ok());
  auto source = MakeDiffSource(std::make_unique<VectorSource>(std::move(before), per_batch),
                               std::make_unique<VectorSource>(std::move(after), per_batch),
                               std::move(*keys), 2, {0, 1, 2}, batch_rows);
  std::vector<Rec> out;
  while (true) {
    Result<std::shared_ptr<arrow::RecordBatch>> batch = source->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    EXPECT_GT((*batch)->num_rows(), 0);
    EXPECT_LE((*batch)->num_rows(), batch_rows);
    const auto& k = static_cast<const arrow::Int32Array&>(*(*batch)->column(0));
    const auto& v = static_cast<const arrow::DoubleArray&>(*(*batch)->column(1));
    const auto& kind = static_cast<const arrow::Int8Array&>(*(*batch)->column(2));
    for (int64_t i = 0; i < (*batch)->num_rows(); ++i) {
      out.emplace_back(k.Value(i), v.Value(i), kind.Value(i));
    }
  }
  return out;
}

TEST(DiffSourceTest, KeyByKeyRules) {
  std::vector<Rec> before = {{1, 1.0, 0}, {2, 2.0, 0}, {3, 3.0, 0}, {4, 4.0, 3},
                             {5, 5.0, 0}, {6, 6.0, 2}, {8, 8.0, 3}};
  std::vector<Rec> after = {{2, 2.0, 0}, {3, 3.5, 2}, {4, 4.0, 3}, {5, 5.0, 3},
                            {6, 6.0, 0}, {7, 7.0, 0}, {9, 9.0, 3}};
  std::vector<Rec> want = {
      {1, 1.0, 3},  // only before, adds: -D
      // 2: equal on both sides: nothing
      {3, 3.5, 2},  // changed: the after's record
      // 4: a retraction on both sides, equal: nothing
      {5, 5.0, 3},  // an add became a retraction: the after's -D
      // 6: +U and +I of the same values both add: nothing
      {7, 7.0, 0},  // only after
      // 8: only before, a retraction: nothing
      {9, 9.0, 3},  // only after, a retraction: kept (deletes are kept)
  };
  // Every batching of the inputs and of the output gives the same rows in key order.
  for (size_t per_batch : {1, 2, 3, 7, 100}) {
    for (int64_t rows : {1, 2, 5, 4096}) {
      EXPECT_EQ(Diff(before, after, per_batch, rows), want)
          << "input batches of " << per_batch << ", output of " << rows;
    }
  }
}

TEST(DiffSourceTest, ValuesCompareAsBytes) {
  double nan = std::nan("");
  std::vector<Rec> before = {{1, nan, 0}, {2, 0.0, 0}};
  std::vector<Rec> after = {{1, nan, 0}, {2, -0.0, 0}};
  std::vector<Rec> got = Diff(before, after, 10, 10);
  ASSERT_EQ(got.size(), 1u);  // NaN equals NaN; -0.0 differs from 0.0
  EXPECT_EQ(std::get<0>(got[0]), 2);
  EXPECT_TRUE(std::signbit(std::get<1>(got[0])));
}

TEST(DiffSourceTest, OneSideEmpty) {
  std::vector<Rec> rows = {{1, 1.0, 0}, {2, 2.0, 3}};
  EXPECT_EQ(Diff({}, rows, 1, 10), rows);
  EXPECT_EQ(Diff(rows, {}, 1, 10), (std::vector<Rec>{{1, 1.0, 3}}));
  EXPECT_TRUE(Diff({}, {}, 1, 10).empty());
}

}  // namespace
}  // namespace fjord
