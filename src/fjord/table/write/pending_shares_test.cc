#include "fjord/table/write/pending_shares.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <string>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// A batch of `n` rows: id = first + i, s = "s<id>" (NULL every seventh row).
std::shared_ptr<arrow::RecordBatch> Batch(int64_t first, int64_t n) {
  arrow::Int64Builder ids;
  arrow::StringBuilder s;
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_TRUE(ids.Append(first + i).ok());
    EXPECT_TRUE(
        ((first + i) % 7 == 0 ? s.AppendNull() : s.Append("s" + std::to_string(first + i))).ok());
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, n, {ids.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
}

// Shares come out in the order their buckets first came, each with its rows in batch then row
// order; those made of whole batches are left whole, the others dealt out equal to their rows
// gathered one by one.
TEST(PendingSharesTest, WholeBatchesStayWholeAndTheOthersAreDealtOut) {
  int a = 0, b = 0, c = 0;  // three buckets
  PendingShares pending;
  EXPECT_TRUE(pending.empty());
  auto first = Batch(0, 6);
  auto second = Batch(100, 4);
  auto third = Batch(200, 5);
  std::vector<int64_t> b_rows = {0, 2, 5}, a_rows = {1, 3, 4}, all_second = {0, 1, 2, 3},
                       c_rows = {4}, a_rows3 = {0, 1, 2, 3};
  EXPECT_EQ(pending.Add(first, {{&b, &b_rows}, {&a, &a_rows}}), 0);
  EXPECT_EQ(pending.Add(second, {{&c, &all_second}}), 1);
  EXPECT_EQ(pending.Add(third, {{&a, &a_rows3}, {&c, &c_rows}}), 2);
  EXPECT_FALSE(pending.empty());
  EXPECT_EQ(pending.rows(), 15);
  EXPECT_FALSE(pending.full());
  ASSERT_OK_AND_ASSIGN(PendingShares::Dealt dealt, pending.Take(nullptr));
  EXPECT_TRUE(pending.empty());
  EXPECT_EQ(pending.rows(), 0);
  EXPECT_EQ(pending.bytes(), 0);
  ASSERT_EQ(dealt.sources->size(), 3u);
  ASSERT_EQ(dealt.shares.size(), 3u);
  EXPECT_EQ(dealt.shares[0].bucket, &b);
  EXPECT_EQ(dealt.shares[1].bucket, &a);
  EXPECT_EQ(dealt.shares[2].bucket, &c);
  // c: all of the second batch, then row 4 of the third: not whole batches.
  EXPECT_EQ(dealt.shares[2].refs.size(), 5u);
  ASSERT_NE(dealt.scatter, nullptr);
  ASSERT_OK(dealt.scatter->FillShared());
  for (const PendingShares::Share& share : dealt.shares) {
    ASSERT_GE(share.dealt, 0);
    ASSERT_OK_AND_ASSIGN(auto rows, dealt.scatter->Share(share.dealt));
    ASSERT_OK_AND_ASSIGN(auto expected,
                         GatherRows(first->schema(), *dealt.sources, share.refs, nullptr));
    EXPECT_TRUE(rows->Equals(*expected)) << rows->ToString() << expected->ToString();
  }

  // Whole batches only: nothing to deal out.
  std::vector<int64_t> all_first = {0, 1, 2, 3, 4, 5};
  pending.Add(first, {{&a, &all_first}});
  pending.Add(second, {{&b, &all_second}});
  pending.Add(first, {{&a, &all_first}});
  ASSERT_OK_AND_ASSIGN(dealt, pending.Take(nullptr));
  EXPECT_EQ(dealt.scatter, nullptr);
  ASSERT_EQ(dealt.shares.size(), 2u);
  EXPECT_EQ(dealt.shares[0].dealt, -1);
  EXPECT_EQ(dealt.shares[1].dealt, -1);
  EXPECT_EQ(dealt.shares[0].refs.size(), 12u);  // the first batch twice
  EXPECT_TRUE(WholeSources(*dealt.sources, dealt.shares[0].refs));
  EXPECT_FALSE(WholeSources(*dealt.sources, {{0, 0}, {0, 1}}));  // part of the first batch
}

// Held batches are worth dealing out from the given rows or bytes on, whichever comes first.
TEST(PendingSharesTest, FullAtTheRowOrByteLimit) {
  int a = 0;
  std::vector<int64_t> rows = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  PendingShares by_rows(20, int64_t{1} << 30);
  by_rows.Add(Batch(0, 10), {{&a, &rows}});
  EXPECT_FALSE(by_rows.full());
  by_rows.Add(Batch(10, 10), {{&a, &rows}});
  EXPECT_TRUE(by_rows.full());
  PendingShares by_bytes(1000, 100);
  by_bytes.Add(Batch(0, 10), {{&a, &rows}});  // 80 bytes of ids alone
  EXPECT_GT(by_bytes.bytes(), 100);
  EXPECT_TRUE(by_bytes.full());
  ASSERT_OK(by_bytes.Take(nullptr).status());
  EXPECT_FALSE(by_bytes.full());  // the limits stay with the holder
  EXPECT_TRUE(by_bytes.empty());
}

}  // namespace
}  // namespace fjord
