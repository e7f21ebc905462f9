#include "fjord/format/bucket.h"

#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>

#include "fjord/common/calendar.h"
#include "fjord/format/binary_row.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// One JSON token of a golden line: a string (unescaped), or the raw text of a number, true,
// false or null. Numbers are kept as text so that floats parse straight to float (parsing to
// double first could round twice).
struct Token {
  bool is_string = false;
  std::string text;
  bool IsNull() const { return !is_string && text == "null"; }
};

// Parses "[a, b, ...]," (the golden files' line format).
std::vector<Token> ParseLine(const std::string& line) {
  std::vector<Token> out;
  size_t i = line.find('[');
  if (i == std::string::npos) return out;
  ++i;
  while (i < line.size()) {
    char c = line[i];
    if (c == ' ' || c == ',') {
      ++i;
    } else if (c == ']') {
      break;
    } else if (c == '"') {
      Token t;
      t.is_string = true;
      for (++i; i < line.size() && line[i] != '"'; ++i) {
        if (line[i] == '\\' && i + 1 < line.size()) ++i;
        t.text += line[i];
      }
      ++i;
      out.push_back(std::move(t));
    } else {
      Token t;
      while (i < line.size() && line[i] != ',' && line[i] != ']' && line[i] != ' ') {
        t.text += line[i++];
      }
      out.push_back(std::move(t));
    }
  }
  return out;
}

std::vector<std::vector<Token>> ReadGolden(const std::string& name) {
  std::ifstream in(testing::FixturesDir() + "/paimon-java/" + name);
  std::vector<std::vector<Token>> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.find('[') != std::string::npos) rows.push_back(ParseLine(line));
  }
  return rows;
}

// "2004-05-05T12:46:23.081836" read as UTC wall clock. Java's LocalDateTime.toString() leaves
// out zero seconds ("1812-09-26T13:12").
Timestamp ParseIsoTimestamp(std::string s) {
  if (s.size() == 16) s += ":00";
  int y = std::stoi(s.substr(0, 4));
  unsigned mo = static_cast<unsigned>(std::stoi(s.substr(5, 2)));
  unsigned d = static_cast<unsigned>(std::stoi(s.substr(8, 2)));
  int64_t secs = DaysFromCivil(y, mo, d) * 86400 + std::stoi(s.substr(11, 2)) * 3600 +
                 std::stoi(s.substr(14, 2)) * 60 + std::stoi(s.substr(17, 2));
  int64_t nanos = 0;
  if (s.size() > 19 && s[19] == '.') {
    std::string frac = s.substr(20);
    frac.resize(9, '0');
    nanos = std::stoll(frac);
  }
  Timestamp ts;
  ts.millis = secs * 1000 + nanos / 1000000;
  ts.nanos_of_milli = static_cast<int32_t>(nanos % 1000000);
  return ts;
}

// Converts a golden token to the Value of `type`.
Value ToValue(const Token& t, const DataType& type) {
  if (t.IsNull()) return Value();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Value(t.text == "true");
    case TypeRoot::kTinyInt:
      return Value(static_cast<int8_t>(std::stoi(t.text)));
    case TypeRoot::kSmallInt:
      return Value(static_cast<int16_t>(std::stoi(t.text)));
    case TypeRoot::kInt:
    case TypeRoot::kDate:
      return Value(static_cast<int32_t>(std::stol(t.text)));
    case TypeRoot::kBigInt:
      return Value(static_cast<int64_t>(std::stoll(t.text)));
    case TypeRoot::kFloat:
      return Value(std::strtof(t.text.c_str(), nullptr));
    case TypeRoot::kDouble:
      return Value(std::strtod(t.text.c_str(), nullptr));
    case TypeRoot::kDecimal: {
      auto d = Decimal::FromString(t.text, type.precision(), type.scale());
      EXPECT_TRUE(d.ok()) << t.text << ": " << d.status().ToString();
      return d.ok() ? Value(*d) : Value();
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (t.is_string) return Value(ParseIsoTimestamp(t.text));
      // An integer: nanoseconds since the epoch.
      int64_t nanos = std::stoll(t.text);
      Timestamp ts;
      ts.millis = nanos / 1000000;
      ts.nanos_of_milli = static_cast<int32_t>(nanos % 1000000);
      if (ts.nanos_of_milli < 0) {
        ts.nanos_of_milli += 1000000;
        ts.millis -= 1;
      }
      return Value(ts);
    }
    default:
      return Value(t.text);  // STRING, BYTES
  }
}

struct GoldenResult {
  size_t rows = 0;
  size_t matched = 0;
  std::string first_mismatch;
};

// Encodes every golden row with `types` and compares its bucket (12345 buckets) with Java's.
GoldenResult RunGolden(const std::string& name, const std::vector<DataTypePtr>& types) {
  GoldenResult r;
  for (const auto& tokens : ReadGolden(name)) {
    ++r.rows;
    if (tokens.size() != types.size() + 1) {
      r.first_mismatch = "bad line with " + std::to_string(tokens.size()) + " tokens";
      continue;
    }
    std::vector<Value> values;
    for (size_t i = 0; i < types.size(); ++i) values.push_back(ToValue(tokens[i], *types[i]));
    auto row = EncodeBinaryRow(values, types);
    if (!row.ok()) {
      if (r.first_mismatch.empty()) r.first_mismatch = row.status().ToString();
      continue;
    }
    int32_t expected = std::stoi(tokens.back().text);
    int32_t actual = BucketOf(*row, 12345);
    if (actual == expected) {
      ++r.matched;
    } else if (r.first_mismatch.empty()) {
      r.first_mismatch = "row " + std::to_string(r.rows) + ": expected " +
                         std::to_string(expected) + ", got " + std::to_string(actual);
    }
  }
  return r;
}

std::vector<DataTypePtr> CommonPrefix() {
  return {DataType::Boolean(), DataType::TinyInt(), DataType::SmallInt(), DataType::Int(),
          DataType::BigInt(),  DataType::Float(),   DataType::Double(),   DataType::Date()};
}

// record_for_bucket_id.data: 12 columns of a primary-key table, bucket key = all of them. The
// TIMESTAMP column is given as nanoseconds since the epoch; its precision is not stated. Only a
// non-compact precision (> 3) reproduces Java's ids: the Java column was TIMESTAMP(9) (any p in
// 4..9 gives the same bytes here, as every value is whole milliseconds).
TEST(BucketGoldenTest, RecordForBucketId) {
  auto types = CommonPrefix();
  types.push_back(DataType::Timestamp(9));
  types.push_back(DataType::Decimal(30, 20));
  types.push_back(DataType::String());
  types.push_back(DataType::Bytes());
  GoldenResult r = RunGolden("record_for_bucket_id.data", types);
  EXPECT_EQ(r.rows, 5000u);
  EXPECT_EQ(r.matched, 5000u) << r.first_mismatch;

  // The compact (millis-only) layout reproduces none but chance coincidences (each row 1 in
  // 12345, about 0.4 of 5000 rows): this is how the precision was settled.
  types[8] = DataType::Timestamp(3);
  EXPECT_LE(RunGolden("record_for_bucket_id.data", types).matched, 5u);
}

// record_with_null_for_bucket_id.data: an append table with a bucket key; the first row is all
// nulls, so a null DECIMAL(30, 2) and a null wide TIMESTAMP must still reserve their bytes.
TEST(BucketGoldenTest, RecordWithNullForBucketId) {
  auto types = CommonPrefix();
  types.push_back(DataType::Timestamp(9));
  types.push_back(DataType::Decimal(5, 2));
  types.push_back(DataType::Decimal(30, 2));
  types.push_back(DataType::String());
  types.push_back(DataType::Bytes());
  GoldenResult r = RunGolden("record_with_null_for_bucket_id.data", types);
  EXPECT_EQ(r.rows, 5000u);
  EXPECT_EQ(r.matched, 5000u) << r.first_mismatch;
}

// record_with_timestamp_for_bucket_id.data: TIMESTAMP(0/3/6/9) then TIMESTAMP_LTZ(0/3/6/9). The
// LTZ strings read as UTC reproduce every id, i.e. the stored epoch value is the printed wall
// clock taken as UTC.
TEST(BucketGoldenTest, RecordWithTimestampForBucketId) {
  std::vector<DataTypePtr> types = {DataType::Timestamp(0),    DataType::Timestamp(3),
                                    DataType::Timestamp(6),    DataType::Timestamp(9),
                                    DataType::TimestampLtz(0), DataType::TimestampLtz(3),
                                    DataType::TimestampLtz(6), DataType::TimestampLtz(9)};
  GoldenResult r = RunGolden("record_with_timestamp_for_bucket_id.data", types);
  EXPECT_EQ(r.rows, 5000u);
  EXPECT_EQ(r.matched, 5000u) << r.first_mismatch;
}

Result<std::string> IntRow(std::vector<int32_t> ints) {
  std::vector<Value> values;
  std::vector<DataTypePtr> types;
  for (int32_t v : ints) {
    values.emplace_back(v);
    types.push_back(DataType::Int(false));
  }
  return EncodeBinaryRow(values, types);
}

// spec/format.md §6.1 test vectors (Java's FixedBucketRowKeyExtractorTest).
TEST(BucketTest, SpecVectors) {
  ASSERT_OK_AND_ASSIGN(std::string a, IntRow({5}));
  ASSERT_OK_AND_ASSIGN(std::string ab, IntRow({5, 6}));
  ASSERT_OK_AND_ASSIGN(std::string abc, IntRow({5, 6, 7}));
  EXPECT_EQ(BucketOf(a, 100), 96);
  EXPECT_EQ(BucketOf(ab, 100), 27);
  EXPECT_EQ(BucketOf(abc, 100), 40);
  ASSERT_OK_AND_ASSIGN(std::string zero, IntRow({0}));
  ASSERT_OK_AND_ASSIGN(std::string one, IntRow({1}));
  EXPECT_EQ(static_cast<uint32_t>(HashBinaryRow(zero)), 0xee18d2a5u);
  EXPECT_EQ(static_cast<uint32_t>(HashBinaryRow(one)), 0x5759f99eu);
  EXPECT_EQ(BucketOf(zero, 2), 1);
  EXPECT_EQ(BucketOf(one, 2), 0);
}

TEST(BucketTest, RemainderThenAbs) {
  EXPECT_EQ(BucketOfHash(-7, 5), 2);  // Java: Math.abs(-7 % 5) = 2, not floorMod's 3
  EXPECT_EQ(BucketOfHash(7, 5), 2);
  EXPECT_EQ(BucketOfHash(INT32_MIN, 12345), 9173);  // abs(-2147483648 % 12345)
  EXPECT_EQ(BucketOfHash(INT32_MIN, 1), 0);
  EXPECT_EQ(BucketOfHash(INT32_MIN, 2), 0);
  EXPECT_EQ(BucketOfHash(INT32_MAX, INT32_MAX), 0);
  EXPECT_EQ(BucketOfHash(123, 0), 0);  // precondition violated: no crash
  for (int32_t h : {0, 1, -1, 1000003, -1000003, INT32_MIN, INT32_MAX}) {
    int32_t b = BucketOfHash(h, 7);
    EXPECT_GE(b, 0);
    EXPECT_LT(b, 7);
  }
}

TEST(BucketTest, HashOfEmptyRowAndBytesOutsideWords) {
  ASSERT_OK_AND_ASSIGN(std::string empty, EncodeBinaryRow({}, {}));
  // Deterministic, length-sensitive, and trailing non-word bytes are mixed in.
  EXPECT_EQ(HashBinaryRow(empty), HashBinaryRow(std::string(8, '\0')));
  EXPECT_NE(HashBinaryRow(std::string(8, '\0')), HashBinaryRow(std::string(12, '\0')));
  EXPECT_NE(HashBinaryRow(std::string(9, '\0')),
            HashBinaryRow(std::string("\0\0\0\0\0\0\0\0\x01", 9)));
}

}  // namespace
}  // namespace fjord
