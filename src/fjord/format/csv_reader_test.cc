#include "fjord/format/csv_reader.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "fjord/format/input_rows.h"
#include "fjord/format/rows_builder.h"
#include "fjord/format/text_columns.h"
#include "fjord/format/text_values.h"

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// A record's field as kept beyond the reader's next record.
struct Field {
  std::string text;
  bool quoted = false;
};

std::vector<std::vector<Field>> Records(std::string_view text) {
  CsvRecordReader reader(text, "f.csv");
  std::vector<std::vector<Field>> out;
  std::vector<CsvField> fields;
  while (true) {
    auto next = reader.Next(&fields);
    EXPECT_TRUE(next.ok()) << next.status().ToString();
    if (!next.ok() || !*next) break;
    out.emplace_back();
    for (const CsvField& f : fields) out.back().push_back({std::string(f.text), f.quoted});
  }
  return out;
}

// The rows of a CSV text, each value as text (Arrow's), NULL as "null", and the row kinds.
struct Rows {
  std::vector<std::vector<std::string>> values;
  std::vector<int8_t> kinds;
};

Result<Rows> ReadRows(const std::vector<DataField>& fields, std::string_view text,
                      CsvOptions options) {
  FJORD_ASSIGN_OR_RAISE(InputRows input, ParseCsvRows(text, fields, options, "f.csv"));
  Rows rows;
  rows.kinds = input.row_kinds;
  for (int64_t r = 0; r < input.rows->num_rows(); ++r) {
    rows.values.emplace_back();
    for (int c = 0; c < input.rows->num_columns(); ++c) {
      auto scalar = input.rows->column(c)->GetScalar(r).ValueOrDie();
      rows.values.back().push_back(scalar->is_valid ? scalar->ToString() : "null");
    }
  }
  return rows;
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
  RowsBuilder builder;
  ASSERT_TRUE(builder.Init(fields).ok());
  TextColumns columns(fields, &builder);
  ASSERT_TRUE(*reader->Next(&columns));
  EXPECT_EQ(reader->line(), 2);
  ASSERT_TRUE(*reader->Next(&columns));
  EXPECT_EQ(reader->line(), 5);
  auto bad = reader->Next(&columns);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "f.csv line 6: a quoted field is not closed before the end of the file");
  auto rows = ReadRows(fields, "id,s\n1,\"a\nb\"\n\n2,x\n", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->values, (std::vector<std::vector<std::string>>{{"1", "a\nb"}, {"2", "x"}}));
}

TEST(CsvReader, NullLiteralAndRowKinds) {
  auto fields = *ParseColumnList("id INT NOT NULL, s STRING, n INT");
  CsvOptions options;
  options.null_literal = "NULL";
  auto rows = ReadRows(fields, "s,_row_kind,id\nNULL,-D,1\n,3,2\n\"NULL\",,3\n", options);
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  // The column the header lacks is NULL; a quoted "NULL" is text.
  EXPECT_EQ(rows->values, (std::vector<std::vector<std::string>>{
                              {"1", "null", "null"}, {"2", "", "null"}, {"3", "NULL", "null"}}));
  EXPECT_EQ(rows->kinds, (std::vector<int8_t>{3, 3, 0}));
  // A bad value in the row is named before a NOT NULL column given NULL.
  auto bad = ReadRows(fields, "id,n\nNULL,x\n", options);
  EXPECT_EQ(bad.status().message(), "f.csv line 2, column 'n': 'x' is not an integer");
  bad = ReadRows(fields, "n,id\n1,NULL\n", options);
  EXPECT_EQ(bad.status().message(), "f.csv line 2, column 'id' is NOT NULL but the field is NULL");
}

TEST(CsvReader, DoubledQuotesInManyFieldsOfARecord) {
  // Copies for doubled quotes stay right however many fields a record has.
  std::string header, line;
  std::vector<std::string> want;
  for (int i = 0; i < 40; ++i) {
    header += (i ? ",c" : "c") + std::to_string(i);
    std::string v = i % 3 == 0 ? "say \"\"" + std::to_string(i) + "\"\" x" : std::to_string(i);
    line += (i ? ",\"" : "\"") + v + "\"";
    want.push_back(i % 3 == 0 ? "say \"" + std::to_string(i) + "\" x" : std::to_string(i));
  }
  std::string columns;
  for (int i = 0; i < 40; ++i) columns += (i ? ", c" : "c") + std::to_string(i) + " STRING";
  auto fields = *ParseColumnList(columns);
  auto rows = ReadRows(fields, header + "\n" + line + "\n" + line + "\n", {});
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->values.size(), 2u);
  EXPECT_EQ(rows->values[0], want);
  EXPECT_EQ(rows->values[1], want);
}

TEST(CsvReader, CellsReadAsValueFromTextReadsThem) {
  // Every cell straight into its column against ValueFromText and a Value: the same values,
  // the same errors.
  const std::vector<std::pair<DataTypePtr, std::vector<std::string>>> cases = {
      {DataType::Boolean(), {"true", "N", "yes", "2", " true"}},
      {DataType::TinyInt(), {"127", "128", "-0", "+5", "1 ", "x", ""}},
      {DataType::SmallInt(), {"-32768", "40000", "1.0"}},
      {DataType::Int(), {"2147483647", "2147483648", "-7", "07", "1e3"}},
      {DataType::BigInt(), {"9223372036854775807", "9223372036854775808", "-1"}},
      {DataType::Float(), {"1.5", "3.5e38", "NaN", "-Infinity", "1e-50"}},
      {DataType::Double(), {"0.1", "-0", "1e400", "4.9e-324", "1e-400", "-1e-400", "+2", " 1"}},
      {DataType::Decimal(10, 3),
       {"1.5", "-1234567.1234", "1234567.9995", "99999999.9995", "1E-2", ".5", "5.", ".", "+0.0005",
        " 1", "12345678", "abc"}},
      {DataType::Char(3),
       {"abc", "abcd", "\xc3\xa9\xc3\xa9\xc3\xa9", "\xc3\xa9\xc3\xa9\xc3\xa9x", " a "}},
      {DataType::VarChar(5),
       {"", "h\xc3\xa9h", "\xff", "a\xe2\x82", "\xed\xa0\x80", "\xf4\x90\x80\x80", "\xc0\xaf",
        "abcdefghijk"}},
      {DataType::String(),
       {"plain text longer than eight", "\xf0\x9f\x98\x80 and more text", "\x80"}},
      {DataType::Bytes(), {"AQID", "!!", "AQ=="}},
      {DataType::Date(), {"2026-12-05", "2026-02-29", "2024-02-29", "0001-01-01", "2026-1-1"}},
      {DataType::Time(3), {"10:11:12.123", "24:00:00", "10:11:12.1234"}},
      {DataType::Timestamp(6),
       {"2026-12-05 10:11:12.123456", "2026-12-05T10:11:12", "2026-12-05", "2026-12-05 10:11:12.",
        "2026-12-05 10:11:12.1234567", "2026-12-05 10:11:12.1234560", "2026-12-05 25:00:00",
        "2026-02-30 00:00:00", "2026-12-05x10:11:12", "0000-01-01 00:00:00",
        "1969-12-31 23:59:59.999999"}},
      {DataType::TimestampLtz(3), {"2026-12-05 10:11:12.123Z", "2026-12-05 10:11:12.123"}},
      {DataType::Timestamp(9), {"2026-12-05 10:11:12.123456789", "2300-01-01 00:00:00"}},
      {DataType::Timestamp(0), {"1969-12-31 23:59:59", "2026-12-05 10:11:12.5"}},
  };
  int values = 0, errors = 0;
  for (const auto& [type, tokens] : cases) {
    std::vector<DataField> fields = {{0, "v", type}};
    for (const std::string& token : tokens) {
      std::string quoted = "\"";
      for (char ch : token) quoted += ch == '"' ? std::string("\"\"") : std::string(1, ch);
      quoted += "\"";
      Result<InputRows> read = ParseCsvRows("v\n" + quoted + "\n", fields, {}, "f.csv");
      Result<Value> reference = ValueFromText(token, *type);
      if (!reference.ok()) {
        ++errors;
        ASSERT_FALSE(read.ok()) << type->ToString() << " " << token;
        EXPECT_EQ(read.status().ToString(),
                  reference.status().WithContext("f.csv", " line ", 2, ", column 'v'").ToString());
        continue;
      }
      ++values;
      ASSERT_TRUE(read.ok()) << type->ToString() << " " << token << ": "
                             << read.status().ToString();
      RowsBuilder expected;
      ASSERT_TRUE(expected.Init(fields).ok());
      ASSERT_TRUE(expected.Append({*reference}, 0).ok());
      Result<InputRows> want = expected.Finish();
      ASSERT_TRUE(want.ok());
      EXPECT_TRUE(read->rows->column(0)->Equals(
          *want->rows->column(0),
          arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false)))
          << type->ToString() << " " << token << ": " << read->rows->column(0)->ToString() << " vs "
          << want->rows->column(0)->ToString();
    }
  }
  EXPECT_GT(values, 30);
  EXPECT_GT(errors, 30);
}

TEST(CsvReader, ManyStringCellsAsWritten) {
  // Cells of 1 to 40 bytes, quoted or not, some with doubled quotes (read from a copy), up to
  // the last bytes of the input (where fewer than 32 bytes follow a cell): each string as
  // written, whatever way it was copied into its column.
  std::vector<DataField> fields = {{0, "s", DataType::String()}, {1, "v", DataType::VarChar(40)}};
  std::mt19937 rng(20261206);
  std::string text = "s,v\n";
  RowsBuilder expected;
  ASSERT_TRUE(expected.Init(fields).ok());
  for (int r = 0; r < 3000; ++r) {
    std::vector<Value> row;
    for (int c = 0; c < 2; ++c) {
      std::string cell(1 + rng() % 40, 'a');
      for (char& ch : cell) ch = static_cast<char>('a' + rng() % 26);
      const bool quote = rng() % 3 == 0;
      if (quote && rng() % 4 == 0) cell[rng() % cell.size()] = '"';
      std::string written = cell;
      if (quote) {
        written = "\"";
        for (char ch : cell) written += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        written += "\"";
      }
      text += written + (c == 0 ? "," : "\n");
      row.emplace_back(cell);
    }
    ASSERT_TRUE(expected.Append(row, 0).ok());
  }
  Result<InputRows> want = expected.Finish();
  ASSERT_TRUE(want.ok());
  // Whole, and without its last newline; each in memory of its exact size (a read past its end
  // is one a memory checker sees).
  for (size_t size : {text.size(), text.size() - 1}) {
    const std::vector<char> exact(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(size));
    const std::string_view t(exact.data(), exact.size());
    Result<InputRows> read = ParseCsvRows(t, fields, {}, "f.csv");
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_TRUE(read->rows->ValidateFull().ok());
    for (int c = 0; c < 2; ++c) {
      EXPECT_TRUE(read->rows->column(c)->Equals(*want->rows->column(c))) << c;
    }
  }
}

// Read a batch at a time, records with quoted line breaks and doubled quotes, blank lines and a
// file ending in blank lines give the rows of the whole read; errors name the file's lines.
TEST(CsvReader, BatchesAsTheWhole) {
  auto fields = *ParseColumnList("id INT NOT NULL, s STRING, n INT");
  std::mt19937 rng(20261207);
  std::string text = "id,s,_row_kind,n\n";
  int records = 0;
  for (int i = 0; i < 3000; ++i) {
    std::string s;
    switch (rng() % 4) {
      case 0:
        s = "plain" + std::to_string(i);
        break;
      case 1:
        s = "\"two\nlines " + std::to_string(i) + "\"";
        break;
      case 2:
        s = "\"a \"\"quoted\"\" \r\n one\"";
        break;
      default:
        s = "";
        break;
    }
    text += std::to_string(i) + "," + s + "," + (i % 3 ? "+I" : "-D") + "," +
            (i % 5 ? std::to_string(i * 7) : "") + "\n";
    if (rng() % 10 == 0) text += "\n";
    ++records;
  }
  text += "\n\n";
  Result<InputRows> whole = ParseCsvRows(text, fields, {}, "f.csv");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  ASSERT_EQ(whole->rows->num_rows(), records);
  for (size_t bytes : {size_t{1}, size_t{50}, size_t{5000}, text.size()}) {
    SCOPED_TRACE(bytes);
    auto reader = CsvRowsReader::Open(text, fields, {}, "f.csv");
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    std::vector<std::shared_ptr<arrow::Table>> tables;
    std::vector<int8_t> kinds;
    while (true) {
      auto next = reader->Next(bytes);
      ASSERT_TRUE(next.ok()) << next.status().ToString();
      if (!next->has_value()) break;
      tables.push_back((*next)->rows);
      kinds.insert(kinds.end(), (*next)->row_kinds.begin(), (*next)->row_kinds.end());
    }
    if (bytes == 1) {
      EXPECT_EQ(static_cast<int>(tables.size()), records);
    }
    if (bytes == text.size()) {
      EXPECT_EQ(tables.size(), 1u);
    }
    auto all = arrow::ConcatenateTables(tables).ValueOrDie()->CombineChunks().ValueOrDie();
    EXPECT_TRUE(all->Equals(*whole->rows->CombineChunks().ValueOrDie()));
    EXPECT_EQ(kinds, whole->row_kinds);
  }
  // A bad value after records with quoted line breaks: the file's line, whatever the batches.
  std::string bad = text + "1,x,+I,y\n";
  const std::string want = ParseCsvRows(bad, fields, {}, "f.csv").status().ToString();
  EXPECT_NE(want.find("f.csv line " + std::to_string(std::count(bad.begin(), bad.end(), '\n')) +
                      ", column 'n'"),
            std::string::npos)
      << want;
  auto reader = CsvRowsReader::Open(bad, fields, {}, "f.csv");
  ASSERT_TRUE(reader.ok());
  Status error;
  while (error.ok()) {
    auto next = reader->Next(100);
    if (!next.ok()) error = next.status();
    ASSERT_TRUE(!next.ok() || next->has_value()) << "the bad record was read";
  }
  EXPECT_EQ(error.ToString(), want);
}

}  // namespace
}  // namespace fjord
