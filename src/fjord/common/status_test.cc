#include "fjord/status.h"
#include "fjord/result.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

Result<int> Half(int x) {
  if (x % 2 != 0) return Status::Invalid("odd number ", x);
  return x / 2;
}

Result<int> Quarter(int x) {
  FJORD_ASSIGN_OR_RAISE(int h, Half(x));
  FJORD_ASSIGN_OR_RAISE(int q, Half(h));
  return q;
}

Status CheckPositive(int x) {
  if (x <= 0) return Status::Invalid("not positive: ", x);
  return Status::OK();
}

Status Both(int a, int b) {
  FJORD_RETURN_NOT_OK(CheckPositive(a));
  FJORD_RETURN_NOT_OK(CheckPositive(b));
  return Status::OK();
}

TEST(StatusTest, OkHasNoMessage) {
  Status st;
  EXPECT_TRUE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kOk);
  EXPECT_EQ(st.message(), "");
  EXPECT_EQ(st.ToString(), "OK");
}

TEST(StatusTest, ErrorCarriesCodeAndMessage) {
  Status st = Status::Corruption("file ", "x", ": bad byte ", 7);
  EXPECT_FALSE(st.ok());
  EXPECT_TRUE(st.IsCorruption());
  EXPECT_EQ(st.message(), "file x: bad byte 7");
  EXPECT_EQ(st.ToString(), "Corruption: file x: bad byte 7");
}

TEST(StatusTest, CopiesAreIndependent) {
  Status a = Status::NotFound("a");
  Status b = a;
  a = Status::OK();
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(b.IsNotFound());
  EXPECT_EQ(b.message(), "a");
}

TEST(StatusTest, WithContextPrefixesErrorsOnly) {
  EXPECT_TRUE(Status::OK().WithContext("file").ok());
  Status st = Status::Invalid("bad").WithContext("schema-", 3);
  EXPECT_EQ(st.message(), "schema-3: bad");
  EXPECT_TRUE(st.IsInvalid());
}

TEST(StatusTest, ReturnNotOkStopsAtFirstError) {
  EXPECT_OK(Both(1, 2));
  EXPECT_THAT(Both(-1, -2), IsError(StatusCode::kInvalid, "not positive: -1"));
  EXPECT_THAT(Both(1, -2), IsError(StatusCode::kInvalid, "not positive: -2"));
}

TEST(ResultTest, ValueAndErrorPropagate) {
  ASSERT_OK_AND_ASSIGN(int q, Quarter(12));
  EXPECT_EQ(q, 3);
  EXPECT_THAT(Quarter(6), IsError(StatusCode::kInvalid, "odd number 3"));
  EXPECT_EQ(Quarter(6).ValueOr(-1), -1);
}

TEST(ResultTest, OkStatusWithoutValueIsInternalError) {
  Result<int> r{Status::OK()};
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInternal);
}

TEST(ResultTest, MoveOnlyValues) {
  Result<std::unique_ptr<int>> r = std::make_unique<int>(5);
  ASSERT_TRUE(r.ok());
  std::unique_ptr<int> p = std::move(r).value();
  EXPECT_EQ(*p, 5);
}

}  // namespace
}  // namespace fjord
