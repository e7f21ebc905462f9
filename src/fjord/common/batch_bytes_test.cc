#include "fjord/common/batch_bytes.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>
#include <gtest/gtest.h>

namespace fjord {
namespace {

std::shared_ptr<arrow::RecordBatch> FlatBatch() {
  arrow::Int32Builder i;
  arrow::StringBuilder s;
  arrow::LargeBinaryBuilder lb;
  arrow::BooleanBuilder b;
  arrow::Decimal128Builder d(arrow::decimal128(20, 2));
  for (int r = 0; r < 1000; ++r) {
    if (r % 7 == 0) {
      EXPECT_TRUE(i.AppendNull().ok());
      EXPECT_TRUE(s.AppendNull().ok());
    } else {
      EXPECT_TRUE(i.Append(r).ok());
      EXPECT_TRUE(s.Append(std::string(static_cast<size_t>(r % 13), 'x')).ok());
    }
    EXPECT_TRUE(lb.Append(std::string(static_cast<size_t>(r % 5), 'y')).ok());
    EXPECT_TRUE(b.Append(r % 2 == 0).ok());
    EXPECT_TRUE(d.Append(arrow::Decimal128(r)).ok());
  }
  auto schema =
      arrow::schema({arrow::field("i", arrow::int32()), arrow::field("s", arrow::utf8()),
                     arrow::field("lb", arrow::large_binary()), arrow::field("b", arrow::boolean()),
                     arrow::field("d", arrow::decimal128(20, 2))});
  return arrow::RecordBatch::Make(
      schema, 1000,
      {i.Finish().ValueOrDie(), s.Finish().ValueOrDie(), lb.Finish().ValueOrDie(),
       b.Finish().ValueOrDie(), d.Finish().ValueOrDie()});
}

// Flat columns count as Arrow's ReferencedBufferSize counts them, whole and sliced (the sliced
// strings' value bytes are only the slice's).
TEST(RowBytesTest, FlatColumnsCountAsReferencedBufferSize) {
  auto batch = FlatBatch();
  for (auto [offset, length] :
       {std::pair<int64_t, int64_t>{0, 1000}, {3, 500}, {17, 1}, {999, 1}, {640, 360}, {5, 0}}) {
    auto slice = batch->Slice(offset, length);
    auto expected = arrow::util::ReferencedBufferSize(*slice);
    ASSERT_TRUE(expected.ok());
    auto got = RowBytes(*slice);
    ASSERT_TRUE(got.ok());
    EXPECT_EQ(*got, *expected) << "slice " << offset << "+" << length;
  }
}

// Other columns (here a list) are counted by ReferencedBufferSize itself.
TEST(RowBytesTest, NestedColumnsAreCountedByArrow) {
  arrow::ListBuilder lists(arrow::default_memory_pool(), std::make_shared<arrow::Int64Builder>());
  auto* values = static_cast<arrow::Int64Builder*>(lists.value_builder());
  for (int r = 0; r < 100; ++r) {
    ASSERT_TRUE(lists.Append().ok());
    for (int k = 0; k < r % 4; ++k) ASSERT_TRUE(values->Append(k).ok());
  }
  auto batch =
      arrow::RecordBatch::Make(arrow::schema({arrow::field("l", arrow::list(arrow::int64()))}), 100,
                               {lists.Finish().ValueOrDie()});
  auto slice = batch->Slice(10, 50);
  EXPECT_EQ(*RowBytes(*slice), *arrow::util::ReferencedBufferSize(*slice));
}

}  // namespace
}  // namespace fjord
