#include "fjord/expr/partition_text.h"

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

const std::string kDefault = "__DEFAULT_PARTITION__";

MATCHER_P(IsOkAndHolds, value, "") {
  if (!arg.ok()) *result_listener << arg.status().ToString();
  return arg.ok() && *arg == value;
}

DataField Field(int32_t id, const std::string& name, DataTypePtr type) {
  return DataField{id, name, std::move(type), std::nullopt, std::nullopt};
}

std::vector<DataField> Fields() {
  return {Field(0, "day", DataType::Date()),     Field(1, "ts", DataType::Timestamp(3)),
          Field(2, "n", DataType::Int()),        Field(3, "amount", DataType::Decimal(10, 2)),
          Field(4, "flag", DataType::Boolean()), Field(5, "s", DataType::String()),
          Field(6, "t", DataType::Time(3)),      Field(7, "x", DataType::Double())};
}

// Whether the partition with `values` (in Fields() order) matches `spec`.
Result<bool> Matches(const PartitionSpec& spec, const std::vector<Value>& values) {
  std::vector<DataField> fields = Fields();
  FJORD_ASSIGN_OR_RAISE(Predicate p, PartitionSpecPredicate(spec, fields, kDefault));
  return p.Test([&](const std::string& name) -> const Value* {
    for (size_t i = 0; i < fields.size(); ++i) {
      if (fields[i].name == name) return &values[i];
    }
    return nullptr;
  });
}

std::vector<Value> Row() {
  // 2026-11-26 is day 20783; 10:30:00.5 on it.
  return {Value(int32_t{20783}),
          Value(Timestamp{int64_t{20783} * 86400000 + 37800500, 0}),
          Value(int32_t{7}),
          Value(Decimal{1234, 10, 2}),
          Value(true),
          Value(std::string("a,b=c%")),
          Value(int32_t{3723004}),
          Value(2.5)};
}

TEST(PartitionTextTest, ValuesAreReadAsTheirColumnsType) {
  EXPECT_THAT(Matches({{"day", "2026-11-26"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"day", "2026-11-27"}}, Row()), IsOkAndHolds(false));
  // The legacy form of Java's partition.legacy-name paths: the day number.
  EXPECT_THAT(Matches({{"day", "20783"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"ts", "2026-11-26T10:30:00.5"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"ts", "2026-11-26 10:30:00.500"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"ts", "2026-11-26T10:30"}}, Row()), IsOkAndHolds(false));
  EXPECT_THAT(Matches({{"n", "7"}, {"amount", "12.34"}, {"flag", "TRUE"}}, Row()),
              IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"amount", "12.3"}}, Row()), IsOkAndHolds(false));
  EXPECT_THAT(Matches({{"s", "a,b=c%"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"t", "01:02:03.004"}, {"x", "2.5"}}, Row()), IsOkAndHolds(true));
  EXPECT_THAT(Matches({}, Row()), IsOkAndHolds(true));
  // The default partition name is NULL.
  std::vector<Value> nulls = Row();
  nulls[0] = Value::Null();
  EXPECT_THAT(Matches({{"day", kDefault}}, nulls), IsOkAndHolds(true));
  EXPECT_THAT(Matches({{"day", kDefault}}, Row()), IsOkAndHolds(false));
}

TEST(PartitionTextTest, InvalidValuesAreRefusedAsSuch) {
  EXPECT_THAT(Matches({{"day", "2026-02-30"}}, Row()),
              IsError(StatusCode::kInvalid, "'2026-02-30' is not a date"));
  EXPECT_THAT(Matches({{"day", "2026-02-30"}}, Row()),
              IsError(StatusCode::kInvalid, "partition column 'day' (DATE)"));
  EXPECT_THAT(Matches({{"n", "3000000000"}}, Row()), IsError(StatusCode::kInvalid, "out of range"));
  EXPECT_THAT(Matches({{"n", "seven"}}, Row()),
              IsError(StatusCode::kInvalid, "'seven' is not an integer"));
  EXPECT_THAT(Matches({{"amount", "1.234"}}, Row()),
              IsError(StatusCode::kInvalid, "more than 2 fractional digits"));
  EXPECT_THAT(Matches({{"flag", "yes"}}, Row()), IsError(StatusCode::kInvalid, "not a boolean"));
  EXPECT_THAT(Matches({{"ts", "2026-11-26T25:00"}}, Row()),
              IsError(StatusCode::kInvalid, "not a timestamp"));
  EXPECT_THAT(Matches({{"nope", "1"}}, Row()),
              IsError(StatusCode::kInvalid,
                      "'nope' is not a partition column (partition columns: "
                      "day, ts, n, amount, flag, s, t, x)"));
}

TEST(PartitionTextTest, PrintsTheFormItReads) {
  std::vector<DataField> fields = Fields();
  std::string text = PartitionText(fields, Row(), kDefault);
  EXPECT_EQ(text,
            "day=2026-11-26,ts=2026-11-26T10:30:00.5,n=7,amount=12.34,flag=true,s=a%2Cb%3Dc%25,"
            "t=01:02:03.004,x=2.5");
  std::vector<Value> nulls(fields.size());
  EXPECT_EQ(PartitionText({fields[0], fields[5]}, {nulls[0], nulls[5]}, kDefault),
            "day=__DEFAULT_PARTITION__,s=__DEFAULT_PARTITION__");
  EXPECT_EQ(PartitionText({}, {}, kDefault), "");
  EXPECT_EQ(PartitionValueText(Value(int32_t{-1}), *DataType::Date(), kDefault), "1969-12-31");
  EXPECT_EQ(PartitionValueText(Value(Timestamp{-1, 0}), *DataType::Timestamp(3), kDefault),
            "1969-12-31T23:59:59.999");
  EXPECT_EQ(PartitionValueText(Value(Timestamp{0, 0}), *DataType::Timestamp(0), kDefault),
            "1970-01-01T00:00:00");
}

}  // namespace
}  // namespace fjord
