#include "fjord/runtime/cdc_rows.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <ctime>

#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

cdc::CdcRecord Record(cdc::ChangeKind kind,
                      std::vector<std::pair<std::string, std::optional<std::string>>> values) {
  cdc::CdcRecord r;
  r.kind = kind;
  r.origin = "kafka topic t partition 0 offset 7";
  for (auto& [name, value] : values) r.columns.push_back({name, DataType::String(), value, {}});
  return r;
}

TableSchema Schema() {
  TableSchema s;
  s.fields = {{0, "id", DataType::Int(false), {}, {}},
              {1, "amount", DataType::Decimal(10, 2), {}, {}},
              {2, "day", DataType::Date(), {}, {}},
              {3, "raw", DataType::Bytes(), {}, {}},
              {4, "note", DataType::VarChar(3), {}, {}}};
  s.primary_keys = {"id"};
  return s;
}

TEST(CdcRowsTest, ColumnsByNameKindsAndNulls) {
  // Columns in another order, one the table lacks a value for (NULL), the row kinds kept.
  std::vector<cdc::CdcRecord> records = {
      Record(cdc::ChangeKind::kInsert, {{"day", "2024-02-29"}, {"id", "1"}, {"amount", "12.5"}}),
      Record(cdc::ChangeKind::kDelete, {{"id", "2"}, {"raw", "ab\x01"}, {"note", std::nullopt}})};
  std::vector<const cdc::CdcRecord*> ptrs = {&records[0], &records[1]};
  ASSERT_OK_AND_ASSIGN(auto batch, RecordsToBatch(Schema(), ptrs));
  ASSERT_EQ(batch->num_columns(), 6);
  EXPECT_EQ(batch->schema()->field(5)->name(), "_row_kind");
  auto ids = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
  EXPECT_EQ(ids->Value(0), 1);
  EXPECT_EQ(ids->Value(1), 2);
  auto kinds = std::static_pointer_cast<arrow::Int8Array>(batch->column(5));
  EXPECT_EQ(kinds->Value(0), 0);
  EXPECT_EQ(kinds->Value(1), 3);
  auto amount = std::static_pointer_cast<arrow::Decimal128Array>(batch->column(1));
  EXPECT_EQ(amount->FormatValue(0), "12.50");
  EXPECT_TRUE(amount->IsNull(1));
  auto day = std::static_pointer_cast<arrow::Date32Array>(batch->column(2));
  EXPECT_EQ(day->Value(0), 19782);  // 2024-02-29
  // VARBINARY takes the text's bytes as they are (Java's castFromCdcValueString).
  auto raw = std::static_pointer_cast<arrow::BinaryArray>(batch->column(3));
  EXPECT_EQ(raw->GetString(1), std::string("ab\x01"));
  EXPECT_TRUE(batch->column(4)->IsNull(1));
}

TEST(CdcRowsTest, ErrorsNameOriginAndColumn) {
  auto check = [](cdc::CdcRecord record, const std::string& text) {
    std::vector<const cdc::CdcRecord*> ptrs = {&record};
    auto r = RecordsToBatch(Schema(), ptrs);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.status().message().find(text), std::string::npos) << r.status().ToString();
  };
  check(Record(cdc::ChangeKind::kInsert, {{"id", "x1"}}),
        "kafka topic t partition 0 offset 7: column 'id' (INT NOT NULL)");
  check(Record(cdc::ChangeKind::kInsert, {{"id", "1"}, {"note", "long"}}), "column 'note'");
  check(Record(cdc::ChangeKind::kInsert, {{"amount", "1"}}),
        "column 'id' is NOT NULL but the +I record has no value for it");
  check(Record(cdc::ChangeKind::kInsert, {{"id", "1"}, {"amount", "123456789.1"}}),
        "column 'amount'");
}

// Java's castFromCdcValueString casts an ARRAY's string elements from their text (PostgreSQL's
// arrays arrive as JSON lists of element texts); JSON numbers read as numbers.
TEST(CdcRowsTest, ArrayElementsFromTheirText) {
  TableSchema s;
  s.fields = {{0, "id", DataType::Int(false), {}, {}},
              {1, "tags", DataType::Array(DataType::BigInt()), {}, {}}};
  std::vector<cdc::CdcRecord> records = {
      Record(cdc::ChangeKind::kInsert, {{"id", "1"}, {"tags", R"(["-3",null,"6000000000"])"}}),
      Record(cdc::ChangeKind::kInsert, {{"id", "2"}, {"tags", "[4, 5]"}}),
      Record(cdc::ChangeKind::kInsert, {{"id", "3"}, {"tags", "[]"}})};
  std::vector<const cdc::CdcRecord*> ptrs = {&records[0], &records[1], &records[2]};
  ASSERT_OK_AND_ASSIGN(auto batch, RecordsToBatch(s, ptrs));
  auto list = std::static_pointer_cast<arrow::ListArray>(batch->column(1));
  auto values = std::static_pointer_cast<arrow::Int64Array>(list->values());
  ASSERT_EQ(list->value_length(0), 3);
  EXPECT_EQ(values->Value(0), -3);
  EXPECT_TRUE(values->IsNull(1));
  EXPECT_EQ(values->Value(2), 6000000000);
  EXPECT_EQ(values->Value(3), 4);
  EXPECT_EQ(list->value_length(2), 0);
  cdc::CdcRecord bad = Record(cdc::ChangeKind::kInsert, {{"id", "4"}, {"tags", R"(["x"])"}});
  std::vector<const cdc::CdcRecord*> bad_ptrs = {&bad};
  EXPECT_THAT(RecordsToBatch(s, bad_ptrs), IsError(StatusCode::kInvalid, "element 0"));
}

// TIMESTAMP_LTZ from its CDC text: the wall clock of the process's zone, as Java's
// castFromCdcValueString reads it in the JVM's zone (the PostgreSQL source's timestamptz text).
TEST(CdcRowsTest, TimestampLtzIsTheLocalWallClock) {
  const char* old = std::getenv("TZ");
  std::string saved = old ? old : "";
  setenv("TZ", "Asia/Shanghai", 1);  // UTC+8
  tzset();
  TableSchema s;
  s.fields = {{0, "id", DataType::Int(false), {}, {}},
              {1, "at", DataType::TimestampLtz(6), {}, {}}};
  std::vector<cdc::CdcRecord> records = {
      Record(cdc::ChangeKind::kInsert, {{"id", "1"}, {"at", "2024-03-02 04:30:00.123456"}}),
      Record(cdc::ChangeKind::kInsert, {{"id", "2"}, {"at", "2024-03-01 20:30:00.123456Z"}})};
  std::vector<const cdc::CdcRecord*> ptrs = {&records[0], &records[1]};
  auto batch = RecordsToBatch(s, ptrs);
  if (old) {
    setenv("TZ", saved.c_str(), 1);
  } else {
    unsetenv("TZ");
  }
  tzset();
  ASSERT_TRUE(batch.ok()) << batch.status().ToString();
  auto at = std::static_pointer_cast<arrow::TimestampArray>((*batch)->column(1));
  EXPECT_EQ(at->Value(0), 1709325000123456);  // 2024-03-01T20:30:00.123456Z
  EXPECT_EQ(at->Value(1), 1709325000123456);
}

}  // namespace
}  // namespace fjord::runtime
