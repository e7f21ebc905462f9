#include "fjord/expr/predicate.h"

#include <arrow/api.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

constexpr int64_t kDay = 86400000;
constexpr int32_t kJan1st2024 = 19723;  // days since the epoch

std::vector<DataField> Fields() {
  return {
      {0, "i", DataType::Int()},
      {1, "b", DataType::BigInt()},
      {2, "s", DataType::String()},
      {3, "d", DataType::Decimal(10, 2)},
      {4, "dt", DataType::Date()},
      {5, "ts", DataType::Timestamp(6)},
      {6, "ltz", DataType::TimestampLtz(3)},
      {7, "f", DataType::Double()},
      {8, "bo", DataType::Boolean()},
      {9, "bin", DataType::Bytes()},
      {10, "t", DataType::Time(3)},
      {11, "ti", DataType::TinyInt()},
      {12, "fl", DataType::Float()},
      {13, "Mixed Case", DataType::Int()},
  };
}

Result<Predicate> Parse(std::string_view text) { return Predicate::Parse(text, Fields()); }

Decimal Dec(Int128 unscaled, int32_t precision = 10, int32_t scale = 2) {
  Decimal d;
  d.unscaled = unscaled;
  d.precision = precision;
  d.scale = scale;
  return d;
}

using Row = std::map<std::string, Value>;

bool TestRow(const Predicate& p, const Row& row) {
  return p.Test([&](const std::string& name) -> const Value* {
    auto it = row.find(name);
    return it == row.end() ? nullptr : &it->second;
  });
}

using Stats = std::map<std::string, ColumnStats>;

bool May(const Predicate& p, const Stats& stats, int64_t row_count) {
  return p.MayMatch(
      [&](const std::string& name) -> const ColumnStats* {
        auto it = stats.find(name);
        return it == stats.end() ? nullptr : &it->second;
      },
      row_count);
}

ColumnStats IntStats(std::optional<int32_t> min, std::optional<int32_t> max,
                     std::optional<int64_t> nulls) {
  ColumnStats s;
  if (min) s.min = Value(*min);
  if (max) s.max = Value(*max);
  s.null_count = nulls;
  return s;
}

// ---------------------------------------------------------------------------------------------
// Parse

TEST(PredicateParse, ComparisonOperators) {
  struct Case {
    const char* text;
    PredicateOp op;
  };
  for (const Case& c : {Case{"i = 5", PredicateOp::kEq}, Case{"i == 5", PredicateOp::kEq},
                        Case{"i <> 5", PredicateOp::kNotEq}, Case{"i != 5", PredicateOp::kNotEq},
                        Case{"i < 5", PredicateOp::kLt}, Case{"i <= 5", PredicateOp::kLe},
                        Case{"i > 5", PredicateOp::kGt}, Case{"i >= 5", PredicateOp::kGe}}) {
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(c.text));
    EXPECT_EQ(p.op, c.op) << c.text;
    EXPECT_EQ(p.field, "i");
    ASSERT_TRUE(p.type != nullptr);
    EXPECT_EQ(p.type->root(), TypeRoot::kInt);
    ASSERT_EQ(p.literals.size(), 1u);
    EXPECT_EQ(p.literals[0], Value(int32_t{5})) << c.text;
    EXPECT_TRUE(p.IsLeaf());
  }
}

TEST(PredicateParse, LiteralOnTheLeftIsMirrored) {
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("5 < i"));
  EXPECT_EQ(p.op, PredicateOp::kGt);
  EXPECT_EQ(p.ToString(), "i > 5");
  ASSERT_OK_AND_ASSIGN(p, Parse("-3 >= b"));
  EXPECT_EQ(p.ToString(), "b <= -3");
  ASSERT_OK_AND_ASSIGN(p, Parse("'x' = s"));
  EXPECT_EQ(p.ToString(), "s = 'x'");
}

TEST(PredicateParse, LiteralsTakeTheColumnType) {
  struct Case {
    const char* text;
    Value expected;
  };
  const int64_t ten_am = 10 * 3600 * 1000;
  Timestamp ts_us{kJan1st2024 * kDay + ten_am + 123, 456000};
  std::vector<Case> cases = {
      {"ti = -128", Value(int8_t{-128})},
      {"i = +42", Value(int32_t{42})},
      {"i = '42'", Value(int32_t{42})},
      {"b = 9223372036854775807", Value(std::numeric_limits<int64_t>::max())},
      {"b = -9223372036854775808", Value(std::numeric_limits<int64_t>::min())},
      {"d = 12.3", Value(Dec(1230))},
      {"d = -0.5", Value(Dec(-50))},
      {"d = 7", Value(Dec(700))},
      {"d = 1.5E1", Value(Dec(1500))},
      {"d = 1.250", Value(Dec(125))},
      {"d = '99999999.99'", Value(Dec(9999999999))},
      {"dt = DATE '2024-03-01'", Value(int32_t{kJan1st2024 + 31 + 29})},
      {"dt = '1970-01-01'", Value(int32_t{0})},
      {"dt = date '1969-12-31'", Value(int32_t{-1})},
      {"ts = TIMESTAMP '2024-01-01 10:00:00.123456'", Value(ts_us)},
      {"ts = TIMESTAMP '2024-01-01T10:00:00.123456000'", Value(ts_us)},
      {"ts = '2024-01-01 10:00'", Value(Timestamp{kJan1st2024 * kDay + ten_am, 0})},
      {"ts >= DATE '2024-01-01'", Value(Timestamp{kJan1st2024 * kDay, 0})},
      {"ltz = TIMESTAMP '2024-01-01 00:00:00.5'", Value(Timestamp{kJan1st2024 * kDay + 500, 0})},
      {"ts < TIMESTAMP '1969-12-31 23:59:59.999999'", Value(Timestamp{-1, 999000})},
      {"t = TIME '10:00:01.5'", Value(int32_t{36001500})},
      {"t = '00:00'", Value(int32_t{0})},
      {"f = 2.5", Value(2.5)},
      {"f = -1e3", Value(-1000.0)},
      {"f = 3", Value(3.0)},
      {"f = .5", Value(0.5)},
      {"fl = 0.1", Value(0.1f)},
      {"bo = TRUE", Value(true)},
      {"bo = false", Value(false)},
      {"bo = 'true'", Value(true)},
      {"s = 'it''s'", Value(std::string("it's"))},
      {"s = ''", Value(std::string())},
      {"s = 'naïve'", Value(std::string("naïve"))},
      {"bin = 'ab'", Value(std::string("ab"))},
      {"bin = X'00fF'", Value(std::string("\x00\xff", 2))},
      {"bin = x''", Value(std::string())},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(c.text));
    ASSERT_EQ(p.literals.size(), 1u) << c.text;
    EXPECT_EQ(p.literals[0], c.expected) << c.text << " -> " << p.ToString();
  }
  ASSERT_OK_AND_ASSIGN(Predicate nan, Parse("f = 'NaN'"));
  EXPECT_TRUE(std::isnan(nan.literals[0].get<double>()));
  ASSERT_OK_AND_ASSIGN(Predicate inf, Parse("fl < '-Infinity'"));
  EXPECT_EQ(inf.literals[0].get<float>(), -std::numeric_limits<float>::infinity());
}

TEST(PredicateParse, PrecedenceIsNotThenAndThenOr) {
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("i = 1 OR b = 2 AND NOT s = 'x'"));
  ASSERT_EQ(p.op, PredicateOp::kOr);
  ASSERT_EQ(p.children.size(), 2u);
  EXPECT_EQ(p.children[0].ToString(), "i = 1");
  const Predicate& conj = p.children[1];
  ASSERT_EQ(conj.op, PredicateOp::kAnd);
  ASSERT_EQ(conj.children.size(), 2u);
  EXPECT_EQ(conj.children[0].ToString(), "b = 2");
  ASSERT_EQ(conj.children[1].op, PredicateOp::kNot);
  EXPECT_EQ(conj.children[1].children[0].ToString(), "s = 'x'");

  ASSERT_OK_AND_ASSIGN(p, Parse("NOT i = 1 AND b = 2"));
  ASSERT_EQ(p.op, PredicateOp::kAnd);
  EXPECT_EQ(p.children[0].op, PredicateOp::kNot);
  EXPECT_EQ(p.children[1].op, PredicateOp::kEq);

  ASSERT_OK_AND_ASSIGN(p, Parse("(i = 1 OR b = 2) AND s = 'x'"));
  ASSERT_EQ(p.op, PredicateOp::kAnd);
  EXPECT_EQ(p.children[0].op, PredicateOp::kOr);
  EXPECT_EQ(p.ToString(), "(i = 1 OR b = 2) AND s = 'x'");

  // Chains flatten into one node.
  ASSERT_OK_AND_ASSIGN(p, Parse("i = 1 OR i = 2 OR i = 3"));
  EXPECT_EQ(p.op, PredicateOp::kOr);
  EXPECT_EQ(p.children.size(), 3u);
  ASSERT_OK_AND_ASSIGN(p, Parse("NOT NOT i = 1"));
  EXPECT_EQ(p.ToString(), "NOT NOT (i = 1)");
  ASSERT_OK_AND_ASSIGN(p, Parse("((i = 1))"));
  EXPECT_EQ(p.ToString(), "i = 1");
}

TEST(PredicateParse, KeywordsAreCaseInsensitive) {
  ASSERT_OK_AND_ASSIGN(Predicate p,
                       Parse("i in (1, 2) and s is not null Or ts IS null aNd NOT bo = True"));
  EXPECT_EQ(p.ToString(), "i IN (1, 2) AND s IS NOT NULL OR ts IS NULL AND NOT (bo = TRUE)");
}

TEST(PredicateParse, ColumnNames) {
  // An exact match wins; otherwise a case-insensitive one; backticks quote any name.
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("`Mixed Case` = 1"));
  EXPECT_EQ(p.field, "Mixed Case");
  ASSERT_OK_AND_ASSIGN(p, Parse("`mixed case` = 1"));
  EXPECT_EQ(p.field, "Mixed Case");
  EXPECT_EQ(p.ToString(), "`Mixed Case` = 1");
  ASSERT_OK_AND_ASSIGN(p, Parse("S = 'x'"));
  EXPECT_EQ(p.field, "s");
  std::vector<DataField> odd = {{0, "a`b", DataType::Int()},
                                {1, "select", DataType::Int()},
                                {2, "AND", DataType::Int()},
                                {3, "date", DataType::Date()}};
  ASSERT_OK_AND_ASSIGN(p, Predicate::Parse("`a``b` = 1 AND select = 2 AND `AND` = 3 AND "
                                           "date = DATE '2024-01-01'",
                                           odd));
  EXPECT_EQ(p.ToString(), "`a``b` = 1 AND select = 2 AND `AND` = 3 AND date = DATE '2024-01-01'");
  ASSERT_OK_AND_ASSIGN(Predicate again, Predicate::Parse(p.ToString(), odd));
  EXPECT_EQ(again.ToString(), p.ToString());
  std::vector<DataField> ambiguous = {{0, "a", DataType::Int()}, {1, "A", DataType::Int()}};
  EXPECT_OK(Predicate::Parse("a = 1", ambiguous).status());
  EXPECT_THAT(Predicate::Parse("`a ` = 1", ambiguous),
              IsError(StatusCode::kInvalid, "unknown column 'a '"));
  ambiguous = {{0, "ab", DataType::Int()}, {1, "AB", DataType::Int()}};
  EXPECT_THAT(Predicate::Parse("Ab = 1", ambiguous), IsError(StatusCode::kInvalid, "ambiguous"));
}

TEST(PredicateParse, InNotInAndBetween) {
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("i IN (1, 2, 3)"));
  EXPECT_EQ(p.op, PredicateOp::kIn);
  EXPECT_EQ(p.literals.size(), 3u);
  ASSERT_OK_AND_ASSIGN(p, Parse("s NOT IN ('a')"));
  EXPECT_EQ(p.op, PredicateOp::kNotIn);
  EXPECT_EQ(p.ToString(), "s NOT IN ('a')");
  ASSERT_OK_AND_ASSIGN(p, Parse("NOT i IN (1)"));
  EXPECT_EQ(p.op, PredicateOp::kNot);
  ASSERT_OK_AND_ASSIGN(p, Parse("i BETWEEN 1 AND 5 AND b = 1"));
  EXPECT_EQ(p.ToString(), "i >= 1 AND i <= 5 AND b = 1");
  ASSERT_OK_AND_ASSIGN(p, Parse("i NOT BETWEEN 1 AND 5"));
  EXPECT_EQ(p.ToString(), "NOT (i >= 1 AND i <= 5)");
  ASSERT_OK_AND_ASSIGN(p, Parse("i IS NULL OR b IS NOT NULL"));
  EXPECT_EQ(p.children[0].op, PredicateOp::kIsNull);
  EXPECT_EQ(p.children[1].op, PredicateOp::kIsNotNull);
  EXPECT_TRUE(p.children[0].literals.empty());
}

TEST(PredicateParse, ErrorsNameTheColumnAndTheText) {
  struct Case {
    const char* text;
    std::vector<std::string> parts;
  };
  std::vector<Case> cases = {
      {"x = 1", {"unknown column 'x'", "i, b, s"}},
      {"ti = 200", {"'ti'", "TINYINT", "200", "out of range"}},
      {"i = 99999999999", {"'i'", "99999999999", "out of range"}},
      {"b = 99999999999999999999", {"'b'", "out of range"}},
      {"i = 1.5", {"'i'", "1.5", "not an integer"}},
      {"i = 'abc'", {"'i'", "'abc'", "not an integer"}},
      {"i = TRUE", {"'i'", "TRUE"}},
      {"d = 1.234", {"'d'", "1.234", "more than 2 fractional digits"}},
      {"d = 123456789.1", {"'d'", "DECIMAL(10, 2)", "123456789.1"}},
      {"d = 'abc'", {"'d'", "abc"}},
      {"dt = DATE '2024-02-30'", {"'dt'", "2024-02-30", "not a date"}},
      {"dt = DATE '2023-02-29'", {"2023-02-29"}},
      {"dt = 20240101", {"'dt'", "20240101"}},
      {"dt = TIMESTAMP '2024-01-01 00:00:00'", {"'dt'", "not a date"}},
      {"ts = TIMESTAMP '2024-01-01 25:00:00'", {"'ts'", "25:00:00", "not a timestamp"}},
      {"ts = TIMESTAMP '2024-01-01 00:00:00.1234567'", {"'ts'", "fractional digits"}},
      {"ltz = TIMESTAMP '2024-01-01 00:00:00.1234'", {"'ltz'", "fractional digits"}},
      {"t = TIME '24:00:00'", {"'t'", "24:00:00"}},
      {"t = TIME '10:00:00.0001'", {"'t'", "fractional digits"}},
      {"f = 'abc'", {"'f'", "'abc'", "not a number"}},
      {"fl = 1e39", {"'fl'", "1e39", "out of range"}},
      {"s = 5", {"'s'", "5", "not a string"}},
      {"bo = 1", {"'bo'", "not a boolean"}},
      {"bin = 5", {"'bin'", "5"}},
      {"bin = X'0g'", {"bad hex digit"}},
      {"bin = X'0'", {"odd number of hex digits"}},
      {"i = NULL", {"'i'", "IS NULL"}},
      {"i IN (1, NULL)", {"'i'", "IS NULL"}},
      {"i <> NULL", {"IS NULL"}},
      {"(i = 1", {"expected ')'", "the end of the filter"}},
      {"i = 1)", {"expected AND, OR or the end", "')'"}},
      {"i = 1 b = 2", {"'b'", "position 7"}},
      {"", {"empty filter"}},
      {"   ", {"empty filter"}},
      {"i = ", {"expected a column or a literal", "the end"}},
      {"i", {"expected a comparison operator, IN, IS or BETWEEN"}},
      {"i = b", {"comparing two columns"}},
      {"1 = 2", {"needs a column"}},
      {"i IS 5", {"expected NULL"}},
      {"i IS NOT 5", {"expected NULL"}},
      {"i NOT = 5", {"IN or BETWEEN after NOT"}},
      {"i IN ()", {"expected a column or a literal", "')'"}},
      {"i IN (1, 2", {"expected ')'"}},
      {"i IN (b)", {"expected a literal, found column 'b'"}},
      {"i BETWEEN 1 OR 2", {"AND in BETWEEN"}},
      {"s = 'abc", {"unterminated string"}},
      {"`abc = 1", {"unterminated `name`"}},
      {"s = \"abc\"", {"write strings as 'text'"}},
      {"i ~ 1", {"unexpected character '~'"}},
      {"i = 1 AND", {"the end of the filter"}},
      {"i = 12abc", {"malformed number"}},
      {"AND = 1", {"expected a column or a literal", "'AND'"}},
      {"i = - 'x'", {"expected a column or a literal"}},
  };
  for (const Case& c : cases) {
    Result<Predicate> r = Parse(c.text);
    ASSERT_FALSE(r.ok()) << c.text << " parsed as " << r->ToString();
    EXPECT_TRUE(r.status().IsInvalid()) << c.text << ": " << r.status().ToString();
    for (const std::string& part : c.parts) {
      EXPECT_THAT(r, IsError(StatusCode::kInvalid, part)) << c.text;
    }
  }
}

TEST(PredicateParse, DeepNestingIsAnErrorNotACrash) {
  std::string deep(100000, '(');
  deep += "i = 1";
  EXPECT_THAT(Parse(deep), IsError(StatusCode::kInvalid, "nested too deeply"));
  std::string nots;
  for (int k = 0; k < 100000; ++k) nots += "NOT ";
  EXPECT_THAT(Parse(nots + "i = 1"), IsError(StatusCode::kInvalid, "nested too deeply"));
  std::string fine = std::string(50, '(') + "i = 1" + std::string(50, ')');
  EXPECT_OK(Parse(fine).status());
}

TEST(PredicateParse, ToStringRoundTrips) {
  struct Case {
    const char* text;
    const char* canonical;
  };
  std::vector<Case> cases = {
      {"i = 1 AND (s > 'x' OR s IS NULL) AND b IN (1, 2) AND NOT f <> 2.5",
       "i = 1 AND (s > 'x' OR s IS NULL) AND b IN (1, 2) AND NOT (f <> 2.5)"},
      {"d >= 1.5 and d < '3'", "d >= 1.50 AND d < 3.00"},
      {"dt = '2024-01-01'", "dt = DATE '2024-01-01'"},
      {"ts = '2024-01-01 10:00:00.5'", "ts = TIMESTAMP '2024-01-01 10:00:00.500000'"},
      {"ltz > TIMESTAMP '2024-01-01 10:00:00'", "ltz > TIMESTAMP '2024-01-01 10:00:00.000'"},
      {"t <= '10:00:00.25'", "t <= TIME '10:00:00.250'"},
      {"bin IN ('a', X'00')", "bin IN (X'61', X'00')"},
      {"s != 'it''s'", "s <> 'it''s'"},
      {"f = 'NaN' OR f > 'Infinity' OR f < 1e300", "f = 'NaN' OR f > 'Infinity' OR f < 1e+300"},
      {"fl = 0.1", "fl = 0.1"},
      {"bo = true", "bo = TRUE"},
      {"TRUE", "TRUE"},
      {"FALSE OR i = 1", "FALSE OR i = 1"},
      {"NOT TRUE", "NOT TRUE"},
      {"ti NOT IN (-1, 2)", "ti NOT IN (-1, 2)"},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(c.text));
    EXPECT_EQ(p.ToString(), c.canonical) << c.text;
    ASSERT_OK_AND_ASSIGN(Predicate again, Parse(p.ToString()));
    EXPECT_EQ(again.ToString(), p.ToString());
    EXPECT_EQ(again.literals, p.literals);
  }
}

TEST(PredicateParse, ColumnsListsEachNameOnceInOrder) {
  ASSERT_OK_AND_ASSIGN(Predicate p,
                       Parse("s = 'a' AND (i = 1 OR s IS NULL) AND NOT dt < '2024-01-01'"));
  EXPECT_EQ(p.Columns(), (std::vector<std::string>{"s", "i", "dt"}));
  EXPECT_TRUE(Predicate().Columns().empty());
}

// ---------------------------------------------------------------------------------------------
// Test

TEST(PredicateTest, ComparisonsOnValues) {
  Row row = {{"i", Value(int32_t{5})},
             {"s", Value("abc")},
             {"d", Value(Dec(150))},
             {"bin", Value(std::string("\xff", 1))}};
  auto t = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    return p.ok() && TestRow(*p, row);
  };
  EXPECT_TRUE(t("i = 5"));
  EXPECT_FALSE(t("i = 6"));
  EXPECT_TRUE(t("i <> 6"));
  EXPECT_TRUE(t("i < 6"));
  EXPECT_FALSE(t("i < 5"));
  EXPECT_TRUE(t("i <= 5"));
  EXPECT_TRUE(t("i > 4"));
  EXPECT_FALSE(t("i > 5"));
  EXPECT_TRUE(t("i >= 5"));
  EXPECT_TRUE(t("i IN (1, 5)"));
  EXPECT_FALSE(t("i NOT IN (1, 5)"));
  EXPECT_TRUE(t("i NOT IN (1, 2)"));
  EXPECT_TRUE(t("s > 'ab' AND s < 'abd'"));
  EXPECT_TRUE(t("d = 1.5 AND d > 1.49"));
  EXPECT_TRUE(t("bin > 'a'"));  // bytes compare unsigned
  EXPECT_TRUE(t("i BETWEEN 5 AND 5"));
  EXPECT_TRUE(t("TRUE"));
  EXPECT_FALSE(t("FALSE"));
}

TEST(PredicateTest, ThreeValuedLogicWithNulls) {
  Row row = {{"i", Value::Null()}, {"b", Value(int64_t{3})}};  // "s" absent: also NULL
  auto t = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    return p.ok() && TestRow(*p, row);
  };
  for (const char* unknown : {"i = 1", "i <> 1", "i < 1", "i <= 1", "i > 1", "i >= 1", "i IN (1)",
                              "i NOT IN (1)", "s = 'x'", "i BETWEEN 0 AND 9"}) {
    EXPECT_FALSE(t(unknown)) << unknown;
    // NOT unknown is still unknown.
    EXPECT_FALSE(t((std::string("NOT (") + unknown + ")").c_str())) << unknown;
  }
  EXPECT_TRUE(t("i IS NULL"));
  EXPECT_TRUE(t("s IS NULL"));
  EXPECT_FALSE(t("i IS NOT NULL"));
  EXPECT_TRUE(t("NOT i IS NOT NULL"));
  // unknown AND false = false, so its negation is true.
  EXPECT_TRUE(t("NOT (i = 1 AND b = 2)"));
  // unknown AND true = unknown.
  EXPECT_FALSE(t("NOT (i = 1 AND b = 3)"));
  // unknown OR true = true; unknown OR false = unknown.
  EXPECT_TRUE(t("i = 1 OR b = 3"));
  EXPECT_FALSE(t("i = 1 OR b = 2"));
  EXPECT_FALSE(t("NOT (i = 1 OR b = 2)"));
  EXPECT_TRUE(t("NOT (i IS NULL AND b = 2)"));

  // Programmatic NULL literals compare as unknown.
  Predicate in;
  in.op = PredicateOp::kIn;
  in.field = "b";
  in.type = DataType::BigInt();
  in.literals = {Value(int64_t{1}), Value::Null()};
  EXPECT_FALSE(TestRow(in, row));  // unknown
  Predicate not_in = in;
  not_in.op = PredicateOp::kNotIn;
  EXPECT_FALSE(TestRow(not_in, row));  // unknown too
  in.literals.push_back(Value(int64_t{3}));
  EXPECT_TRUE(TestRow(in, row));
}

TEST(PredicateTest, FloatingPointFollowsIeee) {
  auto row = [](double v) { return Row{{"f", Value(v)}}; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ASSERT_OK_AND_ASSIGN(Predicate eq_zero, Parse("f = 0"));
  EXPECT_TRUE(TestRow(eq_zero, row(-0.0)));
  ASSERT_OK_AND_ASSIGN(Predicate eq_nan, Parse("f = 'NaN'"));
  EXPECT_FALSE(TestRow(eq_nan, row(nan)));
  ASSERT_OK_AND_ASSIGN(Predicate ne, Parse("f <> 1"));
  EXPECT_TRUE(TestRow(ne, row(nan)));
  ASSERT_OK_AND_ASSIGN(Predicate lt, Parse("f < 1"));
  EXPECT_FALSE(TestRow(lt, row(nan)));
  ASSERT_OK_AND_ASSIGN(Predicate not_lt, Parse("NOT f < 1"));
  EXPECT_TRUE(TestRow(not_lt, row(nan)));
  ASSERT_OK_AND_ASSIGN(Predicate ge, Parse("f >= 1"));
  EXPECT_FALSE(TestRow(ge, row(nan)));
  ASSERT_OK_AND_ASSIGN(Predicate in, Parse("f IN (1, 'NaN')"));
  EXPECT_FALSE(TestRow(in, row(nan)));
  EXPECT_TRUE(TestRow(in, row(1.0)));
}

// ---------------------------------------------------------------------------------------------
// MayMatch

TEST(PredicateMayMatch, EachOperatorOnRanges) {
  Stats stats = {{"i", IntStats(10, 20, 0)}};
  auto may = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    return p.ok() && May(*p, stats, 100);
  };
  EXPECT_FALSE(may("i = 9"));
  EXPECT_TRUE(may("i = 10"));
  EXPECT_TRUE(may("i = 15"));
  EXPECT_TRUE(may("i = 20"));
  EXPECT_FALSE(may("i = 21"));
  EXPECT_FALSE(may("i < 10"));
  EXPECT_TRUE(may("i < 11"));
  EXPECT_FALSE(may("i <= 9"));
  EXPECT_TRUE(may("i <= 10"));
  EXPECT_FALSE(may("i > 20"));
  EXPECT_TRUE(may("i > 19"));
  EXPECT_FALSE(may("i >= 21"));
  EXPECT_TRUE(may("i >= 20"));
  EXPECT_TRUE(may("i <> 15"));
  EXPECT_TRUE(may("i <> 10"));
  EXPECT_FALSE(may("i IN (1, 2, 25)"));
  EXPECT_TRUE(may("i IN (1, 15)"));
  EXPECT_TRUE(may("i NOT IN (10, 20)"));
  // The list covers every integer of [10, 20].
  EXPECT_FALSE(may("i NOT IN (10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 99)"));
  EXPECT_TRUE(may("i NOT IN (10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 99)"));
  EXPECT_FALSE(may("i IS NULL"));
  EXPECT_TRUE(may("i IS NOT NULL"));
  EXPECT_FALSE(may("i BETWEEN 21 AND 30"));
  EXPECT_TRUE(may("i BETWEEN 0 AND 10"));
  EXPECT_FALSE(may("i = 1 AND i = 15"));
  EXPECT_TRUE(may("i = 1 OR i = 15"));
  EXPECT_FALSE(may("i = 1 OR i = 25"));
  EXPECT_TRUE(may("TRUE"));
  EXPECT_FALSE(may("FALSE"));

  // A single value: <> and NOT IN prune, whatever the NULLs (NULL <> 7 is not true either).
  for (int64_t nulls : {0, 3}) {
    stats["i"] = IntStats(7, 7, nulls);
    EXPECT_FALSE(may("i <> 7")) << nulls;
    EXPECT_TRUE(may("i <> 8"));
    EXPECT_FALSE(may("i NOT IN (7, 8)"));
    EXPECT_TRUE(may("i NOT IN (8)"));
    EXPECT_EQ(may("i IS NULL"), nulls > 0);
  }
  stats["i"] = IntStats(7, 7, std::nullopt);
  EXPECT_FALSE(may("i <> 7"));
  EXPECT_TRUE(may("i IS NULL"));
}

TEST(PredicateMayMatch, AllNullAndEmptyFiles) {
  Stats stats = {{"i", IntStats(std::nullopt, std::nullopt, 100)}};
  auto may = [&](const char* text, int64_t rows) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text;
    return p.ok() && May(*p, stats, rows);
  };
  for (const char* text : {"i = 1", "i <> 1", "i < 1", "i <= 1", "i > 1", "i >= 1", "i IN (1)",
                           "i NOT IN (1)", "i IS NOT NULL", "NOT i = 1", "NOT i IS NULL"}) {
    EXPECT_FALSE(may(text, 100)) << text;
    EXPECT_TRUE(may(text, 101)) << text;  // one non-null row of unknown value
    EXPECT_TRUE(may(text, -1)) << text;   // unknown row count
  }
  EXPECT_TRUE(may("i IS NULL", 100));
  EXPECT_TRUE(may("NOT i IS NOT NULL", 100));
  // Stale min/max beside an all-null count do not matter.
  stats["i"] = IntStats(1, 1, 100);
  EXPECT_FALSE(may("i = 1", 100));
  // An empty file matches nothing.
  stats["i"] = IntStats(std::nullopt, std::nullopt, 0);
  for (const char* text : {"i = 1", "i IS NULL", "i IS NOT NULL", "i <> 1"}) {
    EXPECT_FALSE(may(text, 0)) << text;
  }
}

TEST(PredicateMayMatch, UnknownStatisticsMayMatch) {
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("i = 1 AND s IS NULL AND b IS NOT NULL"));
  EXPECT_TRUE(May(p, {}, 100));  // no statistics at all
  Stats stats = {{"i", ColumnStats{}}, {"s", ColumnStats{}}, {"b", ColumnStats{}}};
  EXPECT_TRUE(May(p, stats, 100));
  // Only one bound known.
  stats = {{"i", IntStats(10, std::nullopt, std::nullopt)}};
  ASSERT_OK_AND_ASSIGN(Predicate lt, Parse("i < 5"));
  ASSERT_OK_AND_ASSIGN(Predicate gt, Parse("i > 50"));
  ASSERT_OK_AND_ASSIGN(Predicate eq, Parse("i = 50"));
  ASSERT_OK_AND_ASSIGN(Predicate eq_low, Parse("i = 5"));
  EXPECT_FALSE(May(lt, stats, 100));
  EXPECT_TRUE(May(gt, stats, 100));
  EXPECT_TRUE(May(eq, stats, 100));
  EXPECT_FALSE(May(eq_low, stats, 100));
  stats = {{"i", IntStats(std::nullopt, 10, std::nullopt)}};
  EXPECT_TRUE(May(lt, stats, 100));
  EXPECT_FALSE(May(gt, stats, 100));
}

TEST(PredicateMayMatch, NotIsPushedDownSoundly) {
  Stats stats = {{"i", IntStats(40, 50, 0)}, {"f", ColumnStats{Value(1.0), Value(2.0), 0}}};
  auto may = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text;
    return p.ok() && May(*p, stats, 100);
  };
  EXPECT_FALSE(may("NOT i > 30"));
  EXPECT_TRUE(may("NOT i > 45"));
  EXPECT_FALSE(may("NOT (i < 5 OR i <= 100)"));
  EXPECT_TRUE(may("NOT (i < 5 OR i > 100)"));
  EXPECT_FALSE(may("NOT i IS NOT NULL"));
  EXPECT_TRUE(may("NOT i IS NULL"));
  EXPECT_FALSE(may("NOT i NOT IN (1, 2)"));
  EXPECT_FALSE(may("NOT NOT i = 1"));
  EXPECT_FALSE(may("NOT (i > 30 AND i < 60)"));
  EXPECT_TRUE(may("NOT (i > 30 AND i < 45)"));
  EXPECT_FALSE(may("NOT TRUE"));
  EXPECT_TRUE(may("NOT FALSE"));
  stats["i"] = IntStats(7, 7, 5);
  EXPECT_FALSE(may("NOT i = 7"));
  EXPECT_FALSE(may("NOT i IN (7)"));
  // NaN: NOT (f < 5) holds for NaN rows, which statistics do not show.
  EXPECT_TRUE(may("NOT f < 5"));
  EXPECT_TRUE(may("NOT f >= 0"));
  EXPECT_FALSE(may("f > 5"));
}

TEST(PredicateMayMatch, FloatingPointNeverPrunesOnNaN) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  Stats stats = {{"f", ColumnStats{Value(1.0), Value(2.0), 0}},
                 {"fl", ColumnStats{Value(1.0f), Value(1.0f), 0}}};
  auto may = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text;
    return p.ok() && May(*p, stats, 100);
  };
  EXPECT_TRUE(may("f = 'NaN'"));
  EXPECT_TRUE(may("f > 'NaN'"));
  EXPECT_TRUE(may("f IN (5, 'NaN')"));
  EXPECT_FALSE(may("f IN (5, 6)"));
  EXPECT_FALSE(may("f < 0"));
  EXPECT_TRUE(may("f = 1"));
  EXPECT_TRUE(may("f = '-Infinity' OR f < 1.5"));
  // min = max = 1 may still hide NaN rows, for which <> holds.
  EXPECT_TRUE(may("fl <> 1"));
  EXPECT_TRUE(may("fl NOT IN (1)"));
  // -0.0 equals 0.0.
  stats["f"] = ColumnStats{Value(0.0), Value(1.0), 0};
  EXPECT_TRUE(may("f = -0.0"));
  EXPECT_TRUE(may("f <= -0.0"));
  // NaN bounds are ignored.
  stats["f"] = ColumnStats{Value(nan), Value(nan), 0};
  EXPECT_TRUE(may("f = 1"));
  EXPECT_TRUE(may("f < 1"));
}

TEST(PredicateMayMatch, OtherTypes) {
  // String bounds may be truncated: "app" <= every value <= "apq".
  Stats stats = {
      {"s", ColumnStats{Value("app"), Value("apq"), 0}},
      {"d", ColumnStats{Value(Dec(100)), Value(Dec(200)), 0}},
      {"dt", ColumnStats{Value(int32_t{kJan1st2024}), Value(int32_t{kJan1st2024 + 9}), 2}},
      {"ts", ColumnStats{Value(Timestamp{kJan1st2024 * kDay, 0}),
                         Value(Timestamp{kJan1st2024 * kDay, 5000}), 0}},
      {"bo", ColumnStats{Value(false), Value(true), 0}}};
  auto may = [&](const char* text) {
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    return p.ok() && May(*p, stats, 10);
  };
  EXPECT_TRUE(may("s = 'apple'"));
  EXPECT_TRUE(may("s = 'apq'"));
  EXPECT_FALSE(may("s = 'apqa'"));
  EXPECT_FALSE(may("s = 'b'"));
  EXPECT_FALSE(may("s < 'ap'"));
  EXPECT_FALSE(may("s > 'apq'"));
  EXPECT_TRUE(may("s >= 'apq'"));
  EXPECT_FALSE(may("d = 3"));
  EXPECT_TRUE(may("d = 1.5"));
  EXPECT_FALSE(may("d < 1"));
  EXPECT_TRUE(may("d <= 1"));
  EXPECT_FALSE(may("dt < DATE '2024-01-01'"));
  EXPECT_TRUE(may("dt <= DATE '2024-01-01'"));
  EXPECT_FALSE(may("dt > DATE '2024-01-10'"));
  EXPECT_TRUE(may("dt IS NULL"));
  EXPECT_FALSE(may("ts > TIMESTAMP '2024-01-01 00:00:00.000005'"));
  EXPECT_TRUE(may("ts >= TIMESTAMP '2024-01-01 00:00:00.000005'"));
  EXPECT_TRUE(may("ts > TIMESTAMP '2024-01-01 00:00:00.000004'"));
  EXPECT_FALSE(may("bo NOT IN (TRUE, FALSE)"));
  EXPECT_TRUE(may("bo NOT IN (TRUE)"));
}

// ---------------------------------------------------------------------------------------------
// Restrict

TEST(PredicateRestrict, KeepsOnlyWhatThePartitionColumnsDecide) {
  const std::vector<std::string> partition = {"dt", "s"};
  struct Case {
    const char* text;
    const char* restricted;  // nullptr: nothing left
  };
  std::vector<Case> cases = {
      {"dt = '2024-01-01'", "dt = DATE '2024-01-01'"},
      {"i = 5", nullptr},
      {"dt = '2024-01-01' AND i = 5", "dt = DATE '2024-01-01'"},
      {"dt = '2024-01-01' AND s = 'x' AND i = 5", "dt = DATE '2024-01-01' AND s = 'x'"},
      {"dt = '2024-01-01' OR i = 5", nullptr},
      {"(dt = '2024-01-01' AND i = 1) OR (dt = '2024-01-02' AND i = 2)",
       "dt = DATE '2024-01-01' OR dt = DATE '2024-01-02'"},
      {"dt > '2024-01-01' AND (i = 1 OR dt < '2024-02-01')", "dt > DATE '2024-01-01'"},
      {"NOT dt = '2024-01-01'", "NOT (dt = DATE '2024-01-01')"},
      {"NOT (dt = '2024-01-01' AND s = 'x')", "NOT (dt = DATE '2024-01-01' AND s = 'x')"},
      {"NOT (dt = '2024-01-01' AND i = 5)", nullptr},
      {"NOT (dt = '2024-01-01' OR i = 5)", "dt <> DATE '2024-01-01'"},
      {"NOT (dt IN ('2024-01-01') OR NOT (s IS NULL AND i > 3))",
       "dt NOT IN (DATE '2024-01-01') AND s IS NULL"},
      {"i = 1 AND b = 2", nullptr},
      {"FALSE", "FALSE"},
      {"TRUE", nullptr},
  };
  for (const Case& c : cases) {
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(c.text));
    std::optional<Predicate> r = p.Restrict(partition);
    if (c.restricted == nullptr) {
      EXPECT_FALSE(r.has_value()) << c.text << " -> " << r->ToString();
    } else {
      ASSERT_TRUE(r.has_value()) << c.text;
      EXPECT_EQ(r->ToString(), c.restricted) << c.text;
    }
  }
}

TEST(PredicateRestrict, IsImpliedByTheOriginal) {
  // Whenever the full predicate holds on a row, the restricted one holds too.
  const std::vector<std::string> partition = {"dt"};
  std::vector<const char*> texts = {
      "dt = '2024-01-01' AND i = 5",
      "dt = '2024-01-01' OR i = 5",
      "(dt = '2024-01-01' AND i = 1) OR (dt > '2024-01-01' AND i IS NULL)",
      "NOT (dt = '2024-01-01' OR i = 5)",
      "NOT (dt = '2024-01-01' AND i = 5)",
      "NOT (dt < '2024-01-02' OR NOT (dt IS NULL AND i > 3)) OR i = 1",
      "NOT NOT (dt IN ('2024-01-01', '2024-01-03') AND NOT i NOT IN (1, 2))",
  };
  std::vector<Value> dts = {Value::Null(), Value(int32_t{kJan1st2024}),
                            Value(int32_t{kJan1st2024 + 1}), Value(int32_t{kJan1st2024 + 2})};
  std::vector<Value> is = {Value::Null(), Value(int32_t{1}), Value(int32_t{5})};
  for (const char* text : texts) {
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(text));
    std::optional<Predicate> r = p.Restrict(partition);
    for (const Value& dt : dts) {
      for (const Value& i : is) {
        Row row = {{"dt", dt}, {"i", i}};
        if (TestRow(p, row) && r) {
          EXPECT_TRUE(TestRow(*r, row)) << text << " restricted to " << r->ToString();
        }
      }
    }
    if (r) {
      for (const std::string& c : r->Columns()) EXPECT_EQ(c, "dt") << text;
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluate

std::shared_ptr<arrow::Array> BuildArray(const std::shared_ptr<arrow::DataType>& type,
                                         const std::vector<Value>& values) {
  std::unique_ptr<arrow::ArrayBuilder> builder;
  EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder).ok());
  for (const Value& v : values) {
    arrow::Status st;
    if (v.is_null()) {
      st = builder->AppendNull();
    } else {
      switch (type->id()) {
        case arrow::Type::BOOL:
          st = static_cast<arrow::BooleanBuilder&>(*builder).Append(v.get<bool>());
          break;
        case arrow::Type::INT8:
          st = static_cast<arrow::Int8Builder&>(*builder).Append(v.get<int8_t>());
          break;
        case arrow::Type::INT32:
          st = static_cast<arrow::Int32Builder&>(*builder).Append(v.get<int32_t>());
          break;
        case arrow::Type::INT64:
          st = static_cast<arrow::Int64Builder&>(*builder).Append(v.get<int64_t>());
          break;
        case arrow::Type::FLOAT:
          st = static_cast<arrow::FloatBuilder&>(*builder).Append(v.get<float>());
          break;
        case arrow::Type::DOUBLE:
          st = static_cast<arrow::DoubleBuilder&>(*builder).Append(v.get<double>());
          break;
        case arrow::Type::DECIMAL128: {
          Int128 u = v.get<Decimal>().unscaled;
          st = static_cast<arrow::Decimal128Builder&>(*builder).Append(
              arrow::Decimal128(static_cast<int64_t>(u >> 64), static_cast<uint64_t>(u)));
          break;
        }
        case arrow::Type::STRING:
          st = static_cast<arrow::StringBuilder&>(*builder).Append(v.get<std::string>());
          break;
        case arrow::Type::BINARY:
          st = static_cast<arrow::BinaryBuilder&>(*builder).Append(v.get<std::string>());
          break;
        case arrow::Type::DATE32:
          st = static_cast<arrow::Date32Builder&>(*builder).Append(v.get<int32_t>());
          break;
        case arrow::Type::TIME32:
          st = static_cast<arrow::Time32Builder&>(*builder).Append(v.get<int32_t>());
          break;
        case arrow::Type::TIMESTAMP: {
          const Timestamp& ts = v.get<Timestamp>();
          auto unit = static_cast<const arrow::TimestampType&>(*type).unit();
          int64_t x = unit == arrow::TimeUnit::MILLI
                          ? ts.millis
                          : ts.millis * 1000 + ts.nanos_of_milli / 1000;  // MICRO here
          st = static_cast<arrow::TimestampBuilder&>(*builder).Append(x);
          break;
        }
        default:
          ADD_FAILURE() << "unhandled type " << type->ToString();
      }
    }
    EXPECT_TRUE(st.ok()) << st.ToString();
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(builder->Finish(&out).ok());
  return out;
}

class PredicateEvaluateTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const int64_t base = int64_t{kJan1st2024} * kDay;
    Value null;
    columns_ = {
        {"i",
         arrow::int32(),
         {Value(int32_t{1}), Value(int32_t{5}), null, Value(int32_t{-3}), Value(int32_t{10}),
          Value(int32_t{5}), null, Value(int32_t{0})}},
        {"b",
         arrow::int64(),
         {Value(int64_t{100}), null, Value(int64_t{-1}), Value(int64_t{7}), null,
          Value(int64_t{std::numeric_limits<int64_t>::max()}), Value(int64_t{0}),
          Value(int64_t{7})}},
        {"s",
         arrow::utf8(),
         {Value("apple"), Value("banana"), null, Value(""), Value("it's"), Value("Zebra"),
          Value("apple pie"), null}},
        {"d",
         arrow::decimal128(10, 2),
         {Value(Dec(150)), Value(Dec(-5)), Value(Dec(0)), null, Value(Dec(9999999999)),
          Value(Dec(150)), Value(Dec(151)), null}},
        {"dt",
         arrow::date32(),
         {Value(int32_t{kJan1st2024}), Value(int32_t{kJan1st2024 + 1}), null, Value(int32_t{0}),
          Value(int32_t{-1}), Value(int32_t{kJan1st2024 + 31}), null, Value(int32_t{kJan1st2024})}},
        {"ts",
         arrow::timestamp(arrow::TimeUnit::MICRO),
         {Value(Timestamp{base, 0}), Value(Timestamp{base + 36000000, 123000}), null,
          Value(Timestamp{-1, 999000}), Value(Timestamp{base + kDay, 0}), null,
          Value(Timestamp{base, 1000}), Value(Timestamp{0, 0})}},
        {"ltz",
         arrow::timestamp(arrow::TimeUnit::MILLI, "UTC"),
         {null, Value(Timestamp{base, 0}), Value(Timestamp{base + 500, 0}),
          Value(Timestamp{base - 1, 0}), null, Value(Timestamp{0, 0}),
          Value(Timestamp{base + kDay, 0}), Value(Timestamp{base, 0})}},
        {"f",
         arrow::float64(),
         {Value(1.5), Value(nan), Value(-0.0), null, Value(0.0), Value(-2.5), Value(1e300),
          Value(std::numeric_limits<double>::infinity())}},
        {"bo",
         arrow::boolean(),
         {Value(true), Value(false), null, Value(true), Value(false), null, Value(true),
          Value(false)}},
        {"bin",
         arrow::binary(),
         {Value(std::string("\x00", 1)), Value("ab"), Value(std::string("\xff", 1)), null,
          Value(""), Value("a"), Value("b"), null}},
        {"t",
         arrow::time32(arrow::TimeUnit::MILLI),
         {Value(int32_t{0}), Value(int32_t{36000000}), null, Value(int32_t{36001500}),
          Value(int32_t{86399999}), null, Value(int32_t{500}), Value(int32_t{36000000})}},
        {"ti",
         arrow::int8(),
         {Value(int8_t{-128}), Value(int8_t{127}), Value(int8_t{0}), null, Value(int8_t{5}),
          Value(int8_t{5}), null, Value(int8_t{-1})}},
        {"fl",
         arrow::float32(),
         {Value(0.1f), null, Value(std::numeric_limits<float>::quiet_NaN()), Value(1.0f),
          Value(-1.0f), Value(0.0f), Value(0.1f), null}},
    };
    std::vector<std::shared_ptr<arrow::Field>> fields;
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    for (const Column& c : columns_) {
      fields.push_back(arrow::field(c.name, c.type));
      arrays.push_back(BuildArray(c.type, c.values));
    }
    batch_ = arrow::RecordBatch::Make(arrow::schema(fields), kRows, arrays);
  }

  Row RowAt(int64_t r) const {
    Row row;
    for (const Column& c : columns_) row[c.name] = c.values[static_cast<size_t>(r)];
    return row;
  }

  // Evaluates `text` and checks every row of the mask against Test. Returns the kept rows.
  std::vector<int64_t> Check(const std::string& text) {
    std::vector<int64_t> kept;
    Result<Predicate> p = Parse(text);
    EXPECT_TRUE(p.ok()) << text << ": " << p.status().ToString();
    if (!p.ok()) return kept;
    Result<std::shared_ptr<arrow::Array>> mask = p->Evaluate(*batch_);
    EXPECT_TRUE(mask.ok()) << text << ": " << mask.status().ToString();
    if (!mask.ok()) return kept;
    EXPECT_EQ((*mask)->type_id(), arrow::Type::BOOL) << text;
    EXPECT_EQ((*mask)->length(), kRows) << text;
    EXPECT_EQ((*mask)->null_count(), 0) << text;
    if ((*mask)->type_id() != arrow::Type::BOOL || (*mask)->length() != kRows) return kept;
    const auto& bools = static_cast<const arrow::BooleanArray&>(**mask);
    for (int64_t r = 0; r < kRows; ++r) {
      bool expected = TestRow(*p, RowAt(r));
      EXPECT_TRUE(bools.IsValid(r)) << text << " row " << r;
      EXPECT_EQ(bools.Value(r), expected) << text << " row " << r;
      if (expected) kept.push_back(r);
    }
    return kept;
  }

  struct Column {
    std::string name;
    std::shared_ptr<arrow::DataType> type;
    std::vector<Value> values;
  };
  static constexpr int64_t kRows = 8;
  std::vector<Column> columns_;
  std::shared_ptr<arrow::RecordBatch> batch_;
};

TEST_F(PredicateEvaluateTest, MatchesTestRowByRow) {
  std::vector<std::string> texts = {
      "i = 5",
      "i <> 5",
      "i < 5",
      "i <= 5",
      "i > 0",
      "i >= 0",
      "i IN (1, 5, 99)",
      "i NOT IN (1, 5)",
      "i IS NULL",
      "i IS NOT NULL",
      "NOT i = 5",
      "NOT (i IN (1) OR i > 4)",
      "i BETWEEN -3 AND 5",
      "i NOT BETWEEN -3 AND 5",
      "b > 0 AND i > 0",
      "b > 0 OR i > 0",
      "NOT (b > 0 OR i > 0)",
      "b = 9223372036854775807",
      "b IN (7, -1)",
      "b NOT IN (7)",
      "s = 'apple'",
      "s > 'apple'",
      "s < 'b'",
      "s >= ''",
      "s IN ('it''s', 'Zebra', 'x')",
      "s NOT IN ('apple')",
      "s IS NULL OR s = ''",
      "d = 1.5",
      "d > 1.5",
      "d <= 0",
      "d IN (1.5, -0.05)",
      "d NOT IN (1.51)",
      "d >= 99999999.99",
      "dt = DATE '2024-01-01'",
      "dt > '2024-01-01'",
      "dt <= DATE '1970-01-01'",
      "dt IN ('2024-02-01', '1969-12-31')",
      "dt NOT IN ('2024-01-01')",
      "ts = TIMESTAMP '2024-01-01 00:00:00'",
      "ts > TIMESTAMP '2024-01-01 00:00:00'",
      "ts >= DATE '2024-01-02'",
      "ts < TIMESTAMP '1970-01-01 00:00:00'",
      "ts = TIMESTAMP '2024-01-01 10:00:00.123123'",
      "ts IN (TIMESTAMP '2024-01-01 00:00:00.000001', TIMESTAMP '1970-01-01 00:00:00')",
      "ltz = TIMESTAMP '2024-01-01 00:00:00'",
      "ltz > TIMESTAMP '2024-01-01 00:00:00.499'",
      "ltz NOT IN (TIMESTAMP '1970-01-01 00:00:00')",
      "f = 0",
      "f = -0.0",
      "f <> 1.5",
      "f < 2",
      "f > 0",
      "f >= 'Infinity'",
      "f = 'NaN'",
      "f <> 'NaN'",
      "NOT f < 1",
      "f IN (0, 1.5)",
      "f NOT IN (0, 1.5)",
      "f IN ('NaN')",
      "f NOT IN ('NaN')",
      "bo = TRUE",
      "bo <> TRUE",
      "bo < TRUE",
      "bo IN (FALSE)",
      "bin = X'00'",
      "bin > 'a'",
      "bin < X'01'",
      "bin IN ('ab', X'ff')",
      "t = TIME '10:00:00'",
      "t > '10:00:00.5'",
      "t IN ('00:00:00.5')",
      "ti = -128",
      "ti > 0",
      "ti NOT IN (5, -1)",
      "fl = 0.1",
      "fl > 0",
      "fl <> 0.1",
      "fl IN (1, 'NaN')",
      "TRUE",
      "FALSE",
      "NOT TRUE",
      "TRUE AND i = 5",
      "FALSE OR i = 5",
      "(i = 5 OR s = 'apple') AND NOT (d IS NULL OR f = 'NaN') AND dt IS NOT NULL",
      "NOT (i = 5 AND s IS NULL) OR (ltz IS NULL AND bo = FALSE)",
  };
  for (const std::string& text : texts) Check(text);
  EXPECT_EQ(Check("i = 5"), (std::vector<int64_t>{1, 5}));
  EXPECT_EQ(Check("i <> 5"), (std::vector<int64_t>{0, 3, 4, 7}));
  EXPECT_EQ(Check("NOT (i = 5)"), (std::vector<int64_t>{0, 3, 4, 7}));
  EXPECT_EQ(Check("f = 0"), (std::vector<int64_t>{2, 4}));                 // -0.0 and 0.0
  EXPECT_EQ(Check("f <> 1.5"), (std::vector<int64_t>{1, 2, 4, 5, 6, 7}));  // NaN too
  EXPECT_EQ(Check("d = 1.5"), (std::vector<int64_t>{0, 5}));
  EXPECT_EQ(Check("s IS NULL"), (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(Check("TRUE").size(), static_cast<size_t>(kRows));
  EXPECT_TRUE(Check("FALSE").empty());
}

// Random predicates over the batch: Evaluate agrees with Test, MayMatch never prunes a set of
// rows holding a match, Restrict is implied by the original, and ToString parses back.
TEST_F(PredicateEvaluateTest, RandomPredicatesAreConsistent) {
  const std::map<std::string, std::vector<std::string>> pools = {
      {"i", {"-3", "0", "1", "5", "10", "99"}},
      {"b", {"-1", "0", "7", "100", "9223372036854775807"}},
      {"s", {"''", "'apple'", "'b'", "'Zebra'", "'it''s'", "'apple pie'"}},
      {"d", {"0", "1.5", "1.51", "-0.05", "99999999.99"}},
      {"dt", {"DATE '2024-01-01'", "'1969-12-31'", "'2024-02-01'", "'1970-01-01'"}},
      {"ts",
       {"TIMESTAMP '2024-01-01 00:00:00'", "'2024-01-01 00:00:00.000001'",
        "'1969-12-31 23:59:59.999999'", "DATE '2024-01-02'"}},
      {"ltz", {"TIMESTAMP '2024-01-01 00:00:00'", "'2024-01-01 00:00:00.5'", "'1970-01-01'"}},
      {"f", {"0", "-0.0", "1.5", "'NaN'", "'Infinity'", "-2.5", "1e300"}},
      {"bo", {"TRUE", "FALSE"}},
      {"bin", {"X'00'", "'ab'", "'a'", "X'ff'", "''"}},
      {"t", {"'10:00:00'", "'00:00:00.5'", "'00:00'", "'23:59:59.999'"}},
      {"ti", {"-128", "5", "0", "127"}},
      {"fl", {"0.1", "1", "'NaN'", "-1", "0"}},
  };
  std::mt19937 rng(20240101);
  auto pick = [&](size_t n) { return static_cast<size_t>(rng() % n); };
  auto literal = [&](const std::vector<std::string>& pool) { return pool[pick(pool.size())]; };
  auto leaf = [&]() {
    auto it = pools.begin();
    std::advance(it, static_cast<long>(pick(pools.size())));
    const std::string& col = it->first;
    const auto& pool = it->second;
    static const char* const kOps[] = {"=", "<>", "<", "<=", ">", ">="};
    switch (pick(6)) {
      case 0:
      case 1:
      case 2:
        return col + " " + kOps[pick(6)] + " " + literal(pool);
      case 3: {
        std::string out = col + (pick(2) ? " NOT IN (" : " IN (") + literal(pool);
        for (size_t k = pick(3); k > 0; --k) out += ", " + literal(pool);
        return out + ")";
      }
      case 4:
        return col + (pick(2) ? " IS NULL" : " IS NOT NULL");
      default:
        return col + (pick(2) ? " NOT BETWEEN " : " BETWEEN ") + literal(pool) + " AND " +
               literal(pool);
    }
  };
  std::function<std::string(int)> expr = [&](int depth) -> std::string {
    if (depth == 0 || pick(3) == 0) return leaf();
    switch (pick(3)) {
      case 0:
        return "NOT (" + expr(depth - 1) + ")";
      case 1:
        return "(" + expr(depth - 1) + ") AND (" + expr(depth - 1) + ")";
      default:
        return "(" + expr(depth - 1) + ") OR (" + expr(depth - 1) + ")";
    }
  };

  // Statistics of a set of rows, as a writer would keep them (NaN left out of min/max).
  auto stats_of = [&](const std::vector<int64_t>& rows) {
    Stats stats;
    for (const Column& c : columns_) {
      ColumnStats cs;
      int64_t nulls = 0;
      DataTypePtr type = Fields()[0].type;
      for (const DataField& f : Fields()) {
        if (f.name == c.name) type = f.type;
      }
      for (int64_t r : rows) {
        const Value& v = c.values[static_cast<size_t>(r)];
        if (v.is_null()) {
          ++nulls;
          continue;
        }
        if ((v.is<double>() && std::isnan(v.get<double>())) ||
            (v.is<float>() && std::isnan(v.get<float>()))) {
          continue;
        }
        if (!cs.min || CompareValues(v, *cs.min, *type) < 0) cs.min = v;
        if (!cs.max || CompareValues(v, *cs.max, *type) > 0) cs.max = v;
      }
      cs.null_count = nulls;
      stats[c.name] = cs;
    }
    return stats;
  };
  std::vector<std::vector<int64_t>> subsets = {{0, 1, 2, 3, 4, 5, 6, 7},
                                               {0, 1, 2, 3},
                                               {4, 5, 6, 7},
                                               {2, 6},  // i is NULL in both
                                               {1, 5},
                                               {0, 7},
                                               {3}};
  for (int64_t r = 0; r < kRows; ++r) subsets.push_back({r});
  std::vector<Stats> subset_stats;
  for (const auto& rows : subsets) subset_stats.push_back(stats_of(rows));

  int matched_somewhere = 0;
  for (int n = 0; n < 400; ++n) {
    std::string text = expr(3);
    SCOPED_TRACE(text);
    std::vector<int64_t> kept = Check(text);
    if (!kept.empty()) ++matched_somewhere;
    ASSERT_OK_AND_ASSIGN(Predicate p, Parse(text));
    ASSERT_OK_AND_ASSIGN(Predicate again, Parse(p.ToString()));
    EXPECT_EQ(again.ToString(), p.ToString());
    for (size_t k = 0; k < subsets.size(); ++k) {
      bool any = std::any_of(subsets[k].begin(), subsets[k].end(),
                             [&](int64_t r) { return TestRow(p, RowAt(r)); });
      if (any) {
        EXPECT_TRUE(May(p, subset_stats[k], static_cast<int64_t>(subsets[k].size())))
            << "subset " << k;
      }
    }
    std::optional<Predicate> restricted = p.Restrict({"dt", "s", "f"});
    if (restricted) {
      for (int64_t r : kept) EXPECT_TRUE(TestRow(*restricted, RowAt(r))) << restricted->ToString();
    }
  }
  EXPECT_GT(matched_somewhere, 100);
}

TEST_F(PredicateEvaluateTest, ProgrammaticNullLiterals) {
  Predicate in;
  in.op = PredicateOp::kIn;
  in.field = "i";
  in.type = DataType::Int();
  in.literals = {Value(int32_t{5}), Value::Null()};
  Predicate not_in = in;
  not_in.op = PredicateOp::kNotIn;
  Predicate eq;
  eq.op = PredicateOp::kEq;
  eq.field = "f";
  eq.type = DataType::Double();
  eq.literals = {Value::Null()};
  Predicate f_in;
  f_in.op = PredicateOp::kIn;
  f_in.field = "f";
  f_in.type = DataType::Double();
  f_in.literals = {Value(1.5), Value::Null()};
  for (const Predicate* p : {&in, &not_in, &eq, &f_in}) {
    ASSERT_OK_AND_ASSIGN(std::shared_ptr<arrow::Array> mask, p->Evaluate(*batch_));
    const auto& bools = static_cast<const arrow::BooleanArray&>(*mask);
    for (int64_t r = 0; r < kRows; ++r) {
      EXPECT_EQ(bools.Value(r), TestRow(*p, RowAt(r))) << p->ToString() << " row " << r;
    }
    Predicate negated;
    negated.op = PredicateOp::kNot;
    negated.children = {*p};
    ASSERT_OK_AND_ASSIGN(mask, negated.Evaluate(*batch_));
    const auto& negated_bools = static_cast<const arrow::BooleanArray&>(*mask);
    for (int64_t r = 0; r < kRows; ++r) {
      EXPECT_EQ(negated_bools.Value(r), TestRow(negated, RowAt(r)))
          << negated.ToString() << " row " << r;
    }
  }
}

TEST_F(PredicateEvaluateTest, Errors) {
  std::vector<DataField> fields = Fields();
  fields.push_back({99, "missing", DataType::Int()});
  ASSERT_OK_AND_ASSIGN(Predicate p, Predicate::Parse("i = 1 AND missing = 2", fields));
  EXPECT_THAT(p.Evaluate(*batch_), IsError(StatusCode::kInvalid, "'missing'"));
  // A literal finer than the column's unit cannot be compared exactly.
  Predicate fine;
  fine.op = PredicateOp::kEq;
  fine.field = "ltz";
  fine.type = DataType::TimestampLtz(3);
  fine.literals = {Value(Timestamp{0, 1})};
  EXPECT_THAT(fine.Evaluate(*batch_), IsError(StatusCode::kInvalid, "finer precision"));
  Predicate wrong;
  wrong.op = PredicateOp::kEq;
  wrong.field = "s";
  wrong.type = DataType::String();
  wrong.literals = {Value(int32_t{1})};
  EXPECT_THAT(wrong.Evaluate(*batch_), IsError(StatusCode::kInvalid, "does not match"));
}

TEST_F(PredicateEvaluateTest, EmptyBatch) {
  std::shared_ptr<arrow::RecordBatch> empty = batch_->Slice(0, 0);
  ASSERT_OK_AND_ASSIGN(Predicate p, Parse("i = 5 OR s IN ('a') OR f IN (1)"));
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<arrow::Array> mask, p.Evaluate(*empty));
  EXPECT_EQ(mask->length(), 0);
}

}  // namespace
}  // namespace fjord
