#include "fjord/format/csv_reader.h"

#include <gtest/gtest.h>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::vector<std::vector<CsvField>> Records(std::string_view text) {
  CsvRecordReader reader(text, "f.csv");
  std::vector<std::vector<CsvField>> out;
  std::vector<CsvField> fields;
  while (true) {
    auto next = reader.Next(&fields);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !*next) break;
    out.push_back(fields);
  }
  return out;
}

TEST(CsvReader, Rfc4180Records) {
  auto r = Records(
      "\xEF\xBB\xBF"
      "a,b\r\n\"x,y\",\"say \"\"hi\"\"\"\n\"multi\nline\",\n\n,\"\"");
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0][0].text, "a");
  EXPECT_EQ(r[1][0].text, "x,y");
  EXPECT_TRUE(r[1][0].quoted);
  EXPECT_EQ(r[1][1].text, "say \"hi\"");
  EXPECT_EQ(r[2][0].text, "multi\nline");
  EXPECT_EQ(r[2][1].text, "");
  EXPECT_FALSE(r[2][1].quoted);
  EXPECT_EQ(r[3].size(), 2u);
  EXPECT_TRUE(r[3][1].quoted);
}

TEST(CsvReader, LinesCountedThroughQuotedBreaks) {
  auto fields = *ParseColumnList("id INT NOT NULL, s STRING");
  auto reader = CsvRowReader::Open("id,s\n1,\"a\nb\"\n\n2,x\n3,\"bad", fields, {}, "f.csv");
  ASSERT_TRUE(reader.ok());
  std::vector<Value> values;
  int8_t kind;
  ASSERT_TRUE(*reader->Next(&values, &kind));
  EXPECT_EQ(reader->line(), 2);
  ASSERT_TRUE(*reader->Next(&values, &kind));
  EXPECT_EQ(reader->line(), 5);
  EXPECT_EQ(values[1].get<std::string>(), "x");
  auto bad = reader->Next(&values, &kind);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "f.csv line 6: a quoted field is not closed before the end of the file");
}

TEST(CsvReader, NullLiteralAndRowKinds) {
  auto fields = *ParseColumnList("id INT NOT NULL, s STRING");
  CsvOptions options;
  options.null_literal = "NULL";
  auto reader = CsvRowReader::Open("s,_row_kind,id\nNULL,-D,1\n,3,2\n\"NULL\",,3\n", fields,
                                   options, "f.csv");
  ASSERT_TRUE(reader.ok());
  std::vector<Value> values;
  int8_t kind;
  ASSERT_TRUE(*reader->Next(&values, &kind));
  EXPECT_TRUE(values[1].is_null());
  EXPECT_EQ(kind, 3);
  ASSERT_TRUE(*reader->Next(&values, &kind));
  EXPECT_EQ(values[1].get<std::string>(), "");
  EXPECT_EQ(kind, 3);
  ASSERT_TRUE(*reader->Next(&values, &kind));
  EXPECT_EQ(values[1].get<std::string>(), "NULL");
  EXPECT_EQ(kind, 0);
  EXPECT_EQ(values[0].get<int32_t>(), 3);
  EXPECT_FALSE(*reader->Next(&values, &kind));
}

}  // namespace
}  // namespace fjord
