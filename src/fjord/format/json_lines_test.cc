// ParseJsonLines reads lines with simdjson and leaves to ParseJsonLine (json_values.h) the lines
// it does not take as plainly valid; these tests hold the two to the same answers: generated
// lines of valid, invalid and borderline values of every type must give ParseJsonLine's values
// (through the same Arrow builders) or its exact error.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <random>

#include "fjord/format/input_rows.h"
#include "fjord/format/json_values.h"
#include "fjord/format/rows_builder.h"

namespace fjord {
namespace {

std::vector<DataField> Fields() {
  std::vector<DataField> row = {{10, "x", DataType::Int()}, {11, "y", DataType::String()}};
  return {
      {0, "b", DataType::Boolean()},
      {1, "t", DataType::TinyInt()},
      {2, "s", DataType::SmallInt()},
      {3, "i", DataType::Int(false)},
      {4, "l", DataType::BigInt()},
      {5, "f", DataType::Float()},
      {6, "d", DataType::Double()},
      {7, "dec", DataType::Decimal(10, 3)},
      {8, "c", DataType::Char(3)},
      {9, "v", DataType::VarChar(5)},
      {12, "str", DataType::String()},
      {13, "bin", DataType::Bytes()},
      {14, "dt", DataType::Date()},
      {15, "tm", DataType::Time(3)},
      {16, "ts", DataType::Timestamp(6)},
      {17, "ltz", DataType::TimestampLtz(3)},
      {18, "arr", DataType::Array(DataType::Int())},
      {19, "m", DataType::Map(DataType::String(false), DataType::Int())},
      {20, "r", DataType::Row(row)},
  };
}

// Tokens for each column (by position in Fields()): the first three of each list are valid.
const std::vector<std::vector<std::string>>& Tokens() {
  static const std::vector<std::string> kIntegers = {"0",
                                                     "-0",
                                                     "1",
                                                     "-1",
                                                     "127",
                                                     "128",
                                                     "-128",
                                                     "-129",
                                                     "32767",
                                                     "32768",
                                                     "2147483647",
                                                     "2147483648",
                                                     "-2147483649",
                                                     "9223372036854775807",
                                                     "9223372036854775808",
                                                     "-9223372036854775809",
                                                     "18446744073709551616",
                                                     "1.0",
                                                     "1e2",
                                                     "01",
                                                     "+1",
                                                     "\"5\"",
                                                     "true",
                                                     "-",
                                                     "1x"};
  static const std::vector<std::string> kReals = {
      "1.5",           "-0",           "-0.0",   "0",       "1e-400",
      "1e400",         "3.4028235e38", "3.5e38", "\"NaN\"", "\"Infinity\"",
      "\"-Infinity\"", "\"nan\"",      "1E5",    "0.1",     "123456789012345678901234567890",
      "2.5e-45",       "\"1.5\"",      "1.",     ".5",      "1e",
      "-1.25E-3",      "4.9e-324",     "7"};
  static const std::vector<std::string> kDecimals = {"1.5",
                                                     "\"1.5\"",
                                                     "1234567.1234",
                                                     "1e2",
                                                     "-0",
                                                     "\"abc\"",
                                                     "0.0005",
                                                     "1234567.9995",
                                                     "99999999.9995",
                                                     "12345678",
                                                     "\"-12.3456\"",
                                                     "1E-2",
                                                     "true",
                                                     "[1]",
                                                     "\"+1.5\"",
                                                     "\" 1.5\"",
                                                     "\"1.5 \"",
                                                     "\"0001234.5\"",
                                                     "\".5\"",
                                                     "\"5.\"",
                                                     "\".\"",
                                                     "\"-\"",
                                                     "\"9999999.999\"",
                                                     "\"10000000\"",
                                                     "-9999999.9994",
                                                     "\"-0.000\"",
                                                     "\"123456789012345678901e-15\"",
                                                     "1234567890123456789e-12"};
  static const std::vector<std::string> kStrings = {
      "\"abc\"",     "\"ab\\u00e9\"",  "\"\"",
      "\"abcdef\"",  "\"a\\\"b\"",     "\"\\ud83d\\ude00\"",
      "\"\\ud800\"", "\"x\\ty\"",      "\"x\ty\"",
      "5",           "\"h\xc3\xa9h\"", "\"\xff\"",
      "\"a\\/b\"",   "\"\\u0000\"",    "[]"};
  static const std::vector<std::string> kBinary = {"\"AQID\"", "\"\"", "\"AQ==\"", "\"!!\"", "1"};
  static const std::vector<std::string> kDates = {"\"2026-12-03\"", "\"0001-01-01\"",
                                                  "\"1970-01-01\"", "\"2026-13-01\"",
                                                  "19000",          "\"2026-2-3\""};
  static const std::vector<std::string> kTimes = {"\"10:11:12.123\"",    "\"10:11:12\"",
                                                  "\"00:00:00\"",        "\"25:00:00\"",
                                                  "\"10:11:12.123456\"", "36000"};
  static const std::vector<std::string> kTimestamps = {"\"2026-12-03T10:11:12.123456\"",
                                                       "\"2026-12-03 10:11:12\"",
                                                       "\"1970-01-01T00:00:00\"",
                                                       "\"2026-12-03\"",
                                                       "\"2026-12-03T10:11:12.1234567\"",
                                                       "\"x\"",
                                                       "1700000000000"};
  static const std::vector<std::string> kArrays = {"[1,2,null]", "[]",   "[ 1 , 2 ]", "[1,\"a\"]",
                                                   "{}",         "[1,]", "[[1]]",     "5"};
  static const std::vector<std::string> kMaps = {
      "[[\"a\",1]]", "[]", "[[\"a\",1],[\"b\",null]]", "[[null,1]]", "{\"a\":1}", "[[\"a\"]]"};
  static const std::vector<std::string> kRows = {
      "{\"x\":1,\"y\":\"a\"}", "{}",           "{\"y\":null}", "{\"x\":1,\"z\":2}", "[1]",
      "{\"x\":1,\"x\":2}",     "{\"x\":\"1\"}"};
  static const std::vector<std::vector<std::string>> kAll = {
      {"true", "false", "true", "1", "\"true\"", "tru", "truex"},
      kIntegers,
      kIntegers,
      kIntegers,
      kIntegers,
      kReals,
      kReals,
      kDecimals,
      kStrings,
      kStrings,
      kStrings,
      kBinary,
      kDates,
      kTimes,
      kTimestamps,
      kTimestamps,
      kArrays,
      kMaps,
      kRows};
  return kAll;
}

// The scanner's columns (json_line_scan.h): Fields() without the types read from text and the
// nested ones, with which the scanner is not used.
std::vector<DataField> ScannableFields() {
  std::vector<DataField> out;
  for (const DataField& f : Fields()) {
    if (f.name != "bin" && f.name != "tm" && f.name != "arr" && f.name != "m" && f.name != "r") {
      out.push_back(f);
    }
  }
  return out;
}

const std::vector<std::string>& TokensOf(const std::string& name) {
  const std::vector<DataField> all = Fields();
  for (size_t c = 0; c < all.size(); ++c) {
    if (all[c].name == name) return Tokens()[c];
  }
  static const std::vector<std::string> kNone;
  return kNone;
}

std::string Quote(const std::string& key) { return "\"" + key + "\""; }

// A line of some columns in some order, now and then broken in one of several ways.
std::string MakeLine(std::mt19937* rng, const std::vector<DataField>& fields) {
  auto pick = [&](size_t n) { return static_cast<size_t>((*rng)() % n); };
  std::vector<size_t> order;
  for (size_t c = 0; c < fields.size(); ++c) {
    if (pick(4) != 0 || fields[c].name == "i") order.push_back(c);
  }
  if (pick(3) == 0) std::shuffle(order.begin(), order.end(), *rng);
  std::vector<std::string> members;
  // Half the lines take only valid values, the others any value for a column now and then.
  const bool clean = pick(2) == 0;
  for (size_t c : order) {
    const std::vector<std::string>& tokens = TokensOf(fields[c].name);
    std::string token = !clean && pick(6) == 0 ? tokens[pick(tokens.size())] : tokens[pick(3)];
    if (pick(20) == 0) token = "null";
    std::string sep = pick(10) == 0 ? " : " : ":";
    members.push_back(Quote(fields[c].name) + sep + token);
  }
  switch (pick(24)) {
    case 0:
      members.push_back("\"nope\":1");
      break;
    case 1:
      if (!members.empty()) members.push_back(members[pick(members.size())]);
      break;
    case 2:
      members.push_back("\"_row_kind\":\"-D\"");
      break;
    case 3:
      members.push_back("\"_row_kind\":\"+U\"");
      break;
    case 4:
      members.push_back("\"_row_kind\":\"X\"");
      break;
    case 5:
      members.push_back("\"_row_kind\":1");
      break;
    case 6:
      members.push_back("\"\\u0069\":7");  // "i" escaped
      break;
    default:
      break;
  }
  std::string line = pick(15) == 0 ? "{ " : "{";
  for (size_t k = 0; k < members.size(); ++k) {
    if (k > 0) line += pick(15) == 0 ? (pick(2) ? " , " : ", ") : ",";
    line += members[k];
  }
  line += pick(15) == 0 ? " }" : "}";
  switch (pick(30)) {
    case 0:
      line += "}";
      break;
    case 1:
      line += " x";
      break;
    case 2:
      line = line.substr(0, pick(line.size()));
      break;
    case 3:
      line = "[1]";
      break;
    case 4:
      line += "\r";
      break;
    case 5:
      line = " \t" + line + "  ";
      break;
    case 6:
      line += "{}";
      break;
    default:
      break;
  }
  return line;
}

std::string Describe(const std::shared_ptr<arrow::Table>& t) { return t->ToString(); }

// Each generated line read alone by ParseJsonLines and by the reference; the lines the scanner
// took counted.
void ExpectSameAnswers(const std::vector<DataField>& fields, uint32_t seed, int64_t* scanned) {
  std::mt19937 rng(seed);
  const auto options = arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
  int valid = 0, invalid = 0;
  *scanned = 0;
  for (int n = 0; n < 30000; ++n) {
    std::string line = MakeLine(&rng, fields);
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    Result<JsonLineRow> reference = ParseJsonLine(line, fields, "in.jsonl line 1");
    JsonLinesReader reader(line, fields, "in.jsonl");
    Result<InputRows> fast = [&]() -> Result<InputRows> {
      FJORD_ASSIGN_OR_RAISE(std::optional<InputRows> rows, reader.Next(line.size()));
      return std::move(*rows);
    }();
    *scanned += reader.lines_scanned();
    if (!reference.ok()) {
      ++invalid;
      ASSERT_FALSE(fast.ok()) << line << "\nreference: " << reference.status().ToString()
                              << "\nfast read: " << Describe(fast->rows);
      ASSERT_EQ(fast.status().ToString(), reference.status().ToString()) << line;
      continue;
    }
    ++valid;
    ASSERT_TRUE(fast.ok()) << line << ": " << fast.status().ToString();
    RowsBuilder expected;
    ASSERT_TRUE(expected.Init(fields).ok());
    ASSERT_TRUE(expected.Append(reference->values, reference->kind).ok());
    Result<InputRows> want = expected.Finish();
    ASSERT_TRUE(want.ok());
    ASSERT_EQ(fast->row_kinds, want->row_kinds) << line;
    ASSERT_EQ(fast->rows->num_rows(), 1) << line;
    for (int c = 0; c < want->rows->num_columns(); ++c) {
      ASSERT_TRUE(fast->rows->column(c)->Equals(*want->rows->column(c), options))
          << line << "\ncolumn " << fields[static_cast<size_t>(c)].name
          << "\nfast: " << fast->rows->column(c)->ToString()
          << "\nreference: " << want->rows->column(c)->ToString();
    }
  }
  // The generator covers both sides well.
  EXPECT_GT(valid, 3000);
  EXPECT_GT(invalid, 5000);
}

TEST(JsonLines, SameAnswersAsTheReference) {
  int64_t scanned = 0;
  ExpectSameAnswers(Fields(), 20261203, &scanned);
  EXPECT_EQ(scanned, 0);  // a table with nested columns is not scanned
}

// The scanner's lines (and the walk's, for the lines it leaves) against the reference.
TEST(JsonLines, ScannedLinesGiveTheReferenceAnswers) {
  int64_t scanned = 0;
  ExpectSameAnswers(ScannableFields(), 20261208, &scanned);
  EXPECT_GT(scanned, 3000);  // of about 5,000 valid lines
}

// The valid generated lines in one text (each line's backslashes, which decide whether its
// strings are taken as written, and control characters told from those of the lines around it;
// some lines end in "\r\n"): the same rows as the reference gives each line alone.
void ExpectTogetherAsAlone(const std::vector<DataField>& fields, uint32_t seed, int64_t* scanned) {
  std::mt19937 rng(seed);
  const auto options = arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
  std::string text;
  RowsBuilder expected;
  ASSERT_TRUE(expected.Init(fields).ok());
  int lines = 0, escaped = 0;
  for (int n = 0; n < 20000 && lines < 3000; ++n) {
    std::string line = MakeLine(&rng, fields);
    if (line.find_first_not_of(" \t\r") == std::string::npos || line.back() == '\r') continue;
    Result<JsonLineRow> reference = ParseJsonLine(line, fields, "in.jsonl line 1");
    if (!reference.ok()) continue;
    ASSERT_TRUE(expected.Append(reference->values, reference->kind).ok());
    if (line.find('\\') != std::string::npos) ++escaped;
    text += line;
    text += (rng() % 4 == 0) ? "\r\n" : "\n";
    ++lines;
  }
  EXPECT_GT(escaped, 300);
  Result<InputRows> want = expected.Finish();
  ASSERT_TRUE(want.ok());
  // Whole, and without its last newline.
  *scanned = 0;
  for (std::string_view t :
       {std::string_view(text), std::string_view(text).substr(0, text.size() - 1)}) {
    JsonLinesReader reader(t, fields, "in.jsonl");
    Result<std::optional<InputRows>> fast = reader.Next(t.size());
    ASSERT_TRUE(fast.ok()) << fast.status().ToString();
    *scanned = reader.lines_scanned();
    ASSERT_TRUE(fast->has_value());
    const InputRows& got = **fast;
    ASSERT_EQ(got.rows->num_rows(), lines);
    ASSERT_EQ(got.row_kinds, want->row_kinds);
    for (int c = 0; c < want->rows->num_columns(); ++c) {
      ASSERT_TRUE(got.rows->column(c)->Equals(*want->rows->column(c), options))
          << "column " << fields[static_cast<size_t>(c)].name;
    }
  }
}

TEST(JsonLines, ValidLinesTogetherAsEachAlone) {
  int64_t scanned = 0;
  ExpectTogetherAsAlone(Fields(), 20261206, &scanned);
  EXPECT_EQ(scanned, 0);
}

TEST(JsonLines, ScannedLinesTogetherAsEachAlone) {
  int64_t scanned = 0;
  ExpectTogetherAsAlone(ScannableFields(), 20261209, &scanned);
  EXPECT_GT(scanned, 2000);  // of 3,000 lines (escapes unescaped by the scanner too)
}

TEST(JsonLines, ErrorsNameTheLineAfterBlankLines) {
  std::vector<DataField> fields = {{0, "i", DataType::Int(false)}, {1, "s", DataType::String()}};
  std::string text = "{\"i\":1,\"s\":\"a\"}\n\n  \n{\"i\":2}\r\n{\"i\":3,\"s\":4}\n";
  Result<InputRows> rows = ParseJsonLines(text, fields, "in.jsonl", 10);
  ASSERT_FALSE(rows.ok());
  EXPECT_NE(rows.status().message().find("in.jsonl line 14, column 's'"), std::string::npos)
      << rows.status().ToString();
  rows = ParseJsonLines(text.substr(0, text.find("{\"i\":3")), fields, "in.jsonl");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  EXPECT_EQ(rows->rows->num_rows(), 2);
  auto texts = std::static_pointer_cast<arrow::StringArray>(rows->rows->column(1)->chunk(0));
  EXPECT_EQ(texts->GetView(0), "a");
  EXPECT_TRUE(texts->IsNull(1));
}

// Column names with a backslash or a quote, and keys written with escapes: a name is matched
// by its unescaped key only (never by the text as written), in lines read together.
TEST(JsonLines, NamesWithBackslashesMatchedUnescaped) {
  // The names: a\b, a\u0062 (a backslash, then u0062), ab, q" and n.
  std::vector<DataField> fields = {{0, "a\\b", DataType::Int()},
                                   {1, "a\\u0062", DataType::Int()},
                                   {2, "ab", DataType::Int()},
                                   {3, "q\"", DataType::String()},
                                   {4, "n", DataType::Int(false)}};
  const std::vector<std::string> lines = {
      R"({"a\\b":1,"a\\u0062":2,"ab":3,"q\"":"x","n":4})",
      R"({"a\u0062":5,"n":6})",                // "ab"
      R"({"n":7,"a\\u0062":8,"a\u005cb":9})",  // the second is a\b
      R"({"a\\b":10,"n":11,"q\u0022":"y"})",
      R"({"ab":12,"a\\u0062":13,"a\\b":14,"n":15})",
      R"({"a\\b":16,"a\u0062":17,"n":18})",  // a\u0062's text as written, after a\b: "ab"
  };
  std::string text;
  RowsBuilder expected;
  ASSERT_TRUE(expected.Init(fields).ok());
  for (const std::string& line : lines) {
    Result<JsonLineRow> reference = ParseJsonLine(line, fields, "in.jsonl line 1");
    ASSERT_TRUE(reference.ok()) << line << ": " << reference.status().ToString();
    ASSERT_TRUE(expected.Append(reference->values, reference->kind).ok());
    text += line + "\n";
  }
  Result<InputRows> want = expected.Finish();
  ASSERT_TRUE(want.ok());
  Result<InputRows> fast = ParseJsonLines(text, fields, "in.jsonl");
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  ASSERT_TRUE(fast->rows->Equals(*want->rows)) << fast->rows->ToString() << "\nreference:\n"
                                               << want->rows->ToString();
  // The values landed where the names say (the reference could be wrong the same way).
  auto column = [&](int c) {
    return std::static_pointer_cast<arrow::Int32Array>(fast->rows->column(c)->chunk(0));
  };
  EXPECT_EQ(column(0)->Value(0), 1);
  EXPECT_EQ(column(1)->Value(0), 2);
  EXPECT_EQ(column(2)->Value(1), 5);
  EXPECT_EQ(column(1)->Value(2), 8);
  EXPECT_EQ(column(0)->Value(2), 9);
  EXPECT_EQ(column(2)->Value(4), 12);
  EXPECT_EQ(column(0)->Value(4), 14);
  EXPECT_EQ(column(2)->Value(5), 17);
  EXPECT_TRUE(column(1)->IsNull(5));
  EXPECT_TRUE(column(0)->IsNull(1));
  // An unknown key written as a name's text with its escapes is not that name.
  Result<InputRows> bad = ParseJsonLines(R"({"a\\\\b":1,"n":1})", fields, "in.jsonl");
  EXPECT_FALSE(bad.ok());
  // A name with a quote is never matched as written: the raw quote ends the key.
  EXPECT_FALSE(ParseJsonLines(R"({"q"":"x","n":1})", fields, "in.jsonl").ok());
}

TEST(JsonLines, ATruncatedLineAfterALongerOneIsAnError) {
  // The parser's padding held the longer line's closing bytes once; the cut line must still fail.
  std::vector<DataField> fields = {{0, "i", DataType::Int(false)}, {1, "s", DataType::String()}};
  // Lines read in place are followed by the next lines instead: they must not complete it.
  const std::string full = "{\"i\":1,\"s\":\"abc\"}\n";
  for (std::string cut : {"{\"i\":1", "{\"i\":1,\"s\":\"abc\"", "{\"i\":12", "{\"i\":1,\"s\":\"ab",
                          "{\"i\":1,\"s\":tr"}) {
    for (int after : {0, 8}) {
      std::string text = full + cut + "\n";
      for (int k = 0; k < after; ++k) text += full;
      Result<InputRows> rows = ParseJsonLines(text, fields, "in.jsonl");
      ASSERT_FALSE(rows.ok()) << cut;
      EXPECT_NE(rows.status().message().find("in.jsonl line 2"), std::string::npos)
          << rows.status().ToString();
    }
  }
}

TEST(JsonLines, ManyLinesOneTable) {
  // Lines longer than the parser's first buffer, and many of them, in the table's order or not.
  std::vector<DataField> fields = {{0, "i", DataType::BigInt(false)}, {1, "s", DataType::String()}};
  std::string text;
  std::string big(100000, 'z');
  for (int i = 0; i < 5000; ++i) {
    text += i % 2 ? "{\"s\":\"" + (i % 7 ? std::to_string(i) : big) +
                        "\",\"i\":" + std::to_string(i) + "}\n"
                  : "{\"i\":" + std::to_string(i) + "}\n";
  }
  Result<InputRows> rows = ParseJsonLines(text, fields, "in.jsonl");
  ASSERT_TRUE(rows.ok()) << rows.status().ToString();
  ASSERT_EQ(rows->rows->num_rows(), 5000);
  auto ids = std::static_pointer_cast<arrow::Int64Array>(rows->rows->column(0)->chunk(0));
  auto texts = std::static_pointer_cast<arrow::StringArray>(rows->rows->column(1)->chunk(0));
  for (int i = 0; i < 5000; ++i) {
    ASSERT_EQ(ids->Value(i), i);
    if (i % 2 == 0) {
      ASSERT_TRUE(texts->IsNull(i));
    } else {
      ASSERT_EQ(texts->GetView(i), i % 7 ? std::to_string(i) : big);
    }
  }
}

TEST(JsonLines, ManyNumbersAndTimesAsTheReferenceReadsThem) {
  // Random doubles of every magnitude and digit count, decimals and timestamps, in one file:
  // the typed reads of the fast path (and its appends into grown columns) against the reference.
  std::vector<DataField> fields = {
      {0, "d", DataType::Double()},      {1, "dec", DataType::Decimal(20, 4)},
      {2, "ts", DataType::Timestamp(3)}, {3, "us", DataType::TimestampLtz(6)},
      {4, "day", DataType::Date()},      {5, "s", DataType::String()}};
  std::mt19937_64 rng(20261205);
  auto digits = [&](int n) {
    std::string out;
    for (int k = 0; k < n; ++k) out += static_cast<char>('0' + rng() % 10);
    return out;
  };
  std::string text;
  RowsBuilder expected;
  ASSERT_TRUE(expected.Init(fields).ok());
  for (int n = 0; n < 4000; ++n) {
    std::string d = (rng() % 2 ? "-" : "") + digits(1 + static_cast<int>(rng() % 20));
    if (rng() % 2) d += "." + digits(1 + static_cast<int>(rng() % 20));
    if (rng() % 3 == 0) d += "e" + std::to_string(static_cast<int>(rng() % 640) - 330);
    if (d[0] == '0' || (d[0] == '-' && d[1] == '0')) d = "0.5";  // JSON has no leading zeros
    std::string dec = (rng() % 2 ? "-" : "") + digits(1 + static_cast<int>(rng() % 16)) + "." +
                      digits(static_cast<int>(rng() % 7));
    char ts[40];
    std::snprintf(ts, sizeof ts, "%04d-%02d-%02d%c%02d:%02d:%02d.%03d",
                  1900 + static_cast<int>(rng() % 400), 1 + static_cast<int>(rng() % 12),
                  1 + static_cast<int>(rng() % 28), rng() % 2 ? 'T' : ' ',
                  static_cast<int>(rng() % 24), static_cast<int>(rng() % 60),
                  static_cast<int>(rng() % 60), static_cast<int>(rng() % 1000));
    std::string us = std::string(ts) + digits(3) + "Z";
    std::string line = "{\"d\":" + d + ",\"dec\":\"" + dec + "\",\"ts\":\"" + ts + "\",\"us\":\"" +
                       us + "\",\"day\":\"" + std::string(ts).substr(0, 10) + "\",\"s\":\"" +
                       digits(static_cast<int>(rng() % 30)) + "\"}";
    Result<JsonLineRow> reference = ParseJsonLine(line, fields, "in.jsonl line 1");
    if (!reference.ok()) continue;  // out of range: the first test compares errors
    ASSERT_TRUE(expected.Append(reference->values, reference->kind).ok());
    text += line + "\n";
  }
  ASSERT_GT(expected.rows(), 3000);
  Result<InputRows> fast = ParseJsonLines(text, fields, "in.jsonl");
  ASSERT_TRUE(fast.ok()) << fast.status().ToString();
  Result<InputRows> want = expected.Finish();
  ASSERT_TRUE(want.ok());
  const auto options = arrow::EqualOptions::Defaults().signed_zeros_equal(false);
  for (int c = 0; c < want->rows->num_columns(); ++c) {
    ASSERT_TRUE(fast->rows->column(c)->Equals(*want->rows->column(c), options))
        << "column " << fields[static_cast<size_t>(c)].name;
  }
}

// Every batch a JsonLinesReader gives for `bytes` per batch, concatenated; the batch count.
Result<std::shared_ptr<arrow::Table>> ReadInBatches(std::string_view text,
                                                    const std::vector<DataField>& fields,
                                                    size_t bytes, int* batches,
                                                    std::vector<int8_t>* kinds) {
  JsonLinesReader reader(text, fields, "in.jsonl");
  std::vector<std::shared_ptr<arrow::Table>> tables;
  *batches = 0;
  while (true) {
    size_t before = reader.position();
    FJORD_ASSIGN_OR_RAISE(std::optional<InputRows> rows, reader.Next(bytes));
    if (!rows) break;
    EXPECT_GT(reader.position(), before);
    ++*batches;
    tables.push_back(rows->rows);
    kinds->insert(kinds->end(), rows->row_kinds.begin(), rows->row_kinds.end());
  }
  EXPECT_EQ(reader.position(), text.size());
  auto all = arrow::ConcatenateTables(tables);
  if (!all.ok()) return Status::Internal(all.status().ToString());
  return *all;
}

// Read a batch at a time (every line alone, a few lines, many), the text gives the rows, kinds
// and errors of the whole read; a batch ends after the line that reaches its bytes.
TEST(JsonLines, BatchesAsTheWhole) {
  std::vector<DataField> fields = Fields();
  std::mt19937 rng(20261207);
  std::string text;
  int lines = 0;
  for (int n = 0; n < 20000 && lines < 2000; ++n) {
    std::string line = MakeLine(&rng, fields);
    if (!ParseJsonLine(line, fields, "x").ok()) continue;
    text += line + (n % 5 == 0 ? "\n\n" : "\n");  // some blank lines
    ++lines;
  }
  Result<InputRows> whole = ParseJsonLines(text, fields, "in.jsonl");
  ASSERT_TRUE(whole.ok()) << whole.status().ToString();
  const auto options = arrow::EqualOptions::Defaults().nans_equal(true).signed_zeros_equal(false);
  for (size_t bytes : {size_t{1}, size_t{300}, size_t{20000}, text.size()}) {
    SCOPED_TRACE(bytes);
    int batches = 0;
    std::vector<int8_t> kinds;
    auto read = ReadInBatches(text, fields, bytes, &batches, &kinds);
    ASSERT_TRUE(read.ok()) << read.status().ToString();
    ASSERT_EQ((*read)->num_rows(), lines);
    for (int c = 0; c < (*read)->num_columns(); ++c) {
      auto column = arrow::Concatenate((*read)->column(c)->chunks()).ValueOrDie();
      ASSERT_TRUE(column->Equals(*whole->rows->column(c)->chunk(0), options))
          << "column " << fields[static_cast<size_t>(c)].name;
    }
    EXPECT_EQ(kinds, whole->row_kinds);
    if (bytes == 1) {  // every line alone (blank ones too)
      EXPECT_GE(batches, lines);
    }
    if (bytes == text.size()) {
      EXPECT_EQ(batches, 1);
    }
    if (bytes == 20000) {
      EXPECT_LE(batches, static_cast<int>(text.size() / 20000) + 1);
    }
  }
  // A bad value in a late batch is named by its line in the text.
  std::string bad = text + "{\"i\": \"x\"}\n";
  JsonLinesReader reader(bad, fields, "in.jsonl");
  Status error;
  int64_t rows = 0;
  while (error.ok()) {
    Result<std::optional<InputRows>> next = reader.Next(4096);
    if (!next.ok()) {
      error = next.status();
      break;
    }
    ASSERT_TRUE(next->has_value()) << "the bad line was read";
    rows += (*next)->rows->num_rows();
  }
  // The lines of the batches before the one with the error (its own rows are not returned).
  EXPECT_GT(rows, 0);
  EXPECT_LE(rows, lines);
  const std::string where =
      "in.jsonl line " + std::to_string(std::count(bad.begin(), bad.end(), '\n'));
  EXPECT_NE(error.message().find(where), std::string::npos) << error.ToString();
  EXPECT_EQ(error.ToString(), ParseJsonLines(bad, fields, "in.jsonl").status().ToString());
}

}  // namespace
}  // namespace fjord
