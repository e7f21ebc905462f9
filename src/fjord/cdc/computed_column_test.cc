#include "fjord/cdc/computed_column.h"

#include <regex>

#include "fjord/testing/test_util.h"

namespace fjord::cdc {
namespace {

std::vector<DataField> Fields() {
  auto f = ParseColumnList(
      "ts TIMESTAMP(3), d DATE, s STRING, c CHAR(5), i INT, b BIGINT, t TINYINT, sm SMALLINT, "
      "dec DECIMAL(10, 3), f DOUBLE, id INT NOT NULL, ltz TIMESTAMP_LTZ(3)");
  EXPECT_TRUE(f.ok());
  return *f;
}

// The value of computed column `text` on `value`, or "ERROR: <message>" / "NULL".
std::string Eval(const std::string& text, std::optional<std::string> value) {
  auto c = ComputedColumn::Parse(text, Fields());
  if (!c.ok()) return "PARSE ERROR: " + c.status().message();
  auto v = c->Eval(value);
  if (!v.ok()) return "ERROR: " + v.status().message();
  return *v ? **v : "NULL";
}

std::string TypeOf(const std::string& text) {
  auto c = ComputedColumn::Parse(text, Fields());
  return c.ok() ? c->type()->ToString() : "PARSE ERROR: " + c.status().message();
}

TEST(ComputedColumnTest, TemporalFieldsOfDateTimeText) {
  const std::string v = "2024-02-29 13:45:07.123";
  EXPECT_EQ(Eval("x=year(ts)", v), "2024");
  EXPECT_EQ(Eval("x=month(ts)", v), "2");
  EXPECT_EQ(Eval("x=day(ts)", v), "29");
  EXPECT_EQ(Eval("x=hour(ts)", v), "13");
  EXPECT_EQ(Eval("x=minute(ts)", v), "45");
  EXPECT_EQ(Eval("x=second(ts)", v), "7");
  EXPECT_EQ(TypeOf("x=year(ts)"), "INT");
  // A DATE's text, a STRING holding a date-time, a TIMESTAMP_LTZ's text (read as written: no
  // zone is applied to text).
  EXPECT_EQ(Eval("x=year(d)", "2024-02-29"), "2024");
  EXPECT_EQ(Eval("x=hour(d)", "2024-02-29"), "0");
  EXPECT_EQ(Eval("x=day(s)", "1999-12-31 23:59:59"), "31");
  EXPECT_EQ(Eval("x=hour(ltz)", "2024-01-01 05:00:00"), "5");
  // Java's formatter takes one-digit fields ([MM][M], [HH][H], ...).
  EXPECT_EQ(Eval("x=month(ts)", "2024-1-5 7:5:9"), "1");
  EXPECT_EQ(Eval("x=minute(ts)", "2024-1-5 7:5:9"), "5");
  EXPECT_EQ(Eval("x=second(ts)", "2024-01-05 07:05:09."), "9");
  // Function names are not case-sensitive.
  EXPECT_EQ(Eval("x=YEAR(ts)", v), "2024");
}

TEST(ComputedColumnTest, DateTimeTextEdgesAsJavasSmartResolver) {
  EXPECT_EQ(Eval("x=day(d)", "2023-02-30"), "28");  // clamped to the month's end
  EXPECT_EQ(Eval("x=day(d)", "2024-02-30"), "29");  // leap year
  EXPECT_EQ(Eval("x=day(d)", "2023-04-31"), "30");
  EXPECT_EQ(Eval("x=day(ts)", "2024-01-01 24:00:00"), "2");  // 24:00 is the next midnight
  EXPECT_EQ(Eval("x=hour(ts)", "2024-12-31 24:00:00"), "0");
  EXPECT_EQ(Eval("x=year(ts)", "2024-12-31 24:00:00"), "2025");
  EXPECT_THAT(Eval("x=day(d)", "2023-01-32"), ::testing::HasSubstr("ERROR: computed column 'x'"));
  EXPECT_THAT(Eval("x=month(d)", "2023-13-01"), ::testing::HasSubstr("month of year 13"));
  EXPECT_THAT(Eval("x=year(ts)", "2024-01-01T10:00:00"), ::testing::HasSubstr("unparsed text"));
  EXPECT_THAT(Eval("x=year(ts)", "2024-01-01 10:00"), ::testing::HasSubstr("unparsed text"));
  EXPECT_THAT(Eval("x=year(ts)", "0000-01-01"), ::testing::HasSubstr("year"));
  EXPECT_THAT(Eval("x=year(ts)", "24-01-01"), ::testing::HasSubstr("ERROR"));
  EXPECT_THAT(Eval("x=year(ts)", "2024-01-01 25:00:00"), ::testing::HasSubstr("hour 25"));
  EXPECT_THAT(Eval("x=year(ts)", "2024-01-01 23:59:60"), ::testing::HasSubstr("second 60"));
  EXPECT_THAT(Eval("x=year(ts)", "2024-01-01 10:00:00.1234567891"),
              ::testing::HasSubstr("unparsed text"));
}

TEST(ComputedColumnTest, EpochNumbersAreUtc) {
  // An integer column without a precision holds epoch seconds.
  EXPECT_EQ(Eval("x=year(i)", "951782400"), "2000");  // 2000-02-29T00:00:00Z
  EXPECT_EQ(Eval("x=month(i)", "951782400"), "2");
  EXPECT_EQ(Eval("x=day(i)", "951782400"), "29");
  EXPECT_EQ(Eval("x=year(b)", "0"), "1970");
  EXPECT_EQ(Eval("x=year(b)", "-1"), "1969");
  EXPECT_EQ(Eval("x=second(b)", "-1"), "59");
  EXPECT_EQ(Eval("x=hour(t)", "100"), "0");
  EXPECT_EQ(Eval("x=hour(b, 3)", "86399999"), "23");
  EXPECT_EQ(Eval("x=hour(b, 3)", "-1"), "23");  // 1969-12-31T23:59:59.999
  EXPECT_EQ(Eval("x=year(b, 6)", "-1000"), "1969");
  EXPECT_EQ(Eval("x=hour(b, 9)", "1700000000123456789"), "22");  // 2023-11-14T22:13:20Z
  EXPECT_EQ(Eval("x=minute(b, 0)", "1700000000"), "13");
  EXPECT_EQ(Eval("x=date_format(b, yyyy-MM-dd HH:mm:ss.SSSSSS, 6)", "1700000000123456"),
            "2023-11-14 22:13:20.123456");
  // Quotes in the argument are the pattern's: quoted text prints as it is (as in Java).
  EXPECT_EQ(Eval("x=date_format(b, 'yyyy', 6)", "1700000000123456"), "yyyy");
  // Java's truncating division leaves a negative nano-of-millisecond, which it refuses.
  EXPECT_THAT(Eval("x=year(b, 6)", "-1500"), ::testing::HasSubstr("negative epoch number"));
  EXPECT_THAT(Eval("x=year(b, 9)", "-1"), ::testing::HasSubstr("negative epoch number"));
  // A precision on a text column reads its values as numbers too.
  EXPECT_EQ(Eval("x=year(s, 3)", "1700000000000"), "2023");
  EXPECT_THAT(Eval("x=year(s, 3)", "2024-01-01"), ::testing::HasSubstr("not an epoch number"));
  EXPECT_THAT(Eval("x=year(b)", "1.5"), ::testing::HasSubstr("not an epoch number"));
  EXPECT_THAT(Eval("x=year(b, 5)", "1"), ::testing::HasSubstr("PARSE ERROR: computed column "
                                                              "'x=year(b, 5)': unsupported "
                                                              "precision 5"));
  EXPECT_THAT(Eval("x=year(b, ms)", "1"), ::testing::HasSubstr("precision 'ms' is not an integer"));
  EXPECT_THAT(Eval("x=year(b, 3, 4)", "1"), ::testing::HasSubstr("'year' takes 0 or 1"));
  // A DECIMAL is not an integer type: its text is read as a date-time.
  EXPECT_THAT(Eval("x=year(dec)", "1700000000"), ::testing::HasSubstr("could not be parsed"));
}

TEST(ComputedColumnTest, DateFormatPatterns) {
  const std::string v = "2024-02-29 13:45:07.123";
  EXPECT_EQ(TypeOf("x=date_format(ts, yyyy)"), "STRING");
  EXPECT_EQ(Eval("x=date_format(ts, yyyy/MM/dd HH:mm:ss.SSS)", v), "2024/02/29 13:45:07.123");
  EXPECT_EQ(Eval("x=date_format(ts, yyyyMMdd)", v), "20240229");
  EXPECT_EQ(Eval("x=date_format(ts, yy-M-d)", v), "24-2-29");
  EXPECT_EQ(Eval("x=date_format(ts, EEEE EEE MMMM MMM MMMMM)", v), "Thursday Thu February Feb F");
  EXPECT_EQ(Eval("x=date_format(ts, h:mm a)", v), "1:45 PM");
  EXPECT_EQ(Eval("x=date_format(ts, D DDD)", v), "60 060");
  EXPECT_EQ(Eval("x=date_format(ts, 'Q'q QQQ QQQQ)", v), "Q1 Q1 1st quarter");
  EXPECT_EQ(Eval("x=date_format(ts, G uuuu S SSSSSS n)", v), "AD 2024 1 123000 123000000");
  EXPECT_EQ(Eval("x=date_format(ts, ''HH'h''')", v), "'13h'");
  EXPECT_EQ(Eval("x=date_format(ts, [yyyy])", v), "2024");
  EXPECT_EQ(Eval("x=date_format(ts, k K)", "2024-01-01 00:30:00"), "24 0");
  EXPECT_EQ(Eval("x=date_format(ts, A)", "1970-01-01 00:00:01.5"), "1500");
  // A comma in the pattern cuts it, as in Java: the rest is taken for a precision.
  EXPECT_THAT(Eval("x=date_format(ts, MMM d, yyyy)", v),
              ::testing::HasSubstr("precision 'yyyy' is not an integer"));
  EXPECT_THAT(Eval("x=date_format(ts, YYYY)", v), ::testing::HasSubstr("letter 'Y' is not"));
  EXPECT_THAT(Eval("x=date_format(ts, HH:mm z)", v), ::testing::HasSubstr("letter 'z' is not"));
  EXPECT_THAT(Eval("x=date_format(ts, HHH)", v), ::testing::HasSubstr("too many pattern letters"));
  EXPECT_THAT(Eval("x=date_format(ts, dd#)", v), ::testing::HasSubstr("reserved character '#'"));
  EXPECT_THAT(Eval("x=date_format(ts, 'open)", v), ::testing::HasSubstr("incomplete string"));
  EXPECT_THAT(Eval("x=date_format(ts, yyyy])", v), ::testing::HasSubstr("without a previous"));
  // A fixed-width field too narrow for its value fails when printing, as in Java.
  EXPECT_THAT(Eval("x=date_format(ts, nn)", v), ::testing::HasSubstr("maximum print width of 2"));
  EXPECT_THAT(Eval("x=date_format(ts)", v), ::testing::HasSubstr("takes 1 or 2 arguments"));
}

TEST(ComputedColumnTest, Substring) {
  EXPECT_EQ(TypeOf("x=substring(s, 1)"), "STRING");
  EXPECT_EQ(Eval("x=substring(s, 2)", "hello"), "llo");
  EXPECT_EQ(Eval("x=substring(s, 1, 3)", "hello"), "el");
  EXPECT_EQ(Eval("x=substring(s, 5)", "hello"), "");
  EXPECT_EQ(Eval("x=substring(s, 0, 5)", "hello"), "hello");
  EXPECT_EQ(Eval("x=substring(i, 0, 2)", "12345"), "12");  // any column's text
  EXPECT_THAT(Eval("x=substring(s, 6)", "hello"), ::testing::HasSubstr("out of range"));
  EXPECT_THAT(Eval("x=substring(s, 1, 9)", "hello"), ::testing::HasSubstr("out of range"));
  // UTF-16 code units, as Java's String: an emoji counts two.
  EXPECT_EQ(Eval("x=substring(s, 1, 3)", "h\xF0\x9F\x98\x80llo"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(Eval("x=substring(s, 3)", "h\xF0\x9F\x98\x80llo"), "llo");
  EXPECT_EQ(Eval("x=substring(s, 1, 3)", "h\xC3\xA9llo"), "\xC3\xA9l");
  EXPECT_THAT(Eval("x=substring(s, -1)", "a"), ::testing::HasSubstr("must be >= 0"));
  EXPECT_THAT(Eval("x=substring(s, 3, 3)", "a"), ::testing::HasSubstr("must be larger"));
  EXPECT_THAT(Eval("x=substring(s, a)", "a"), ::testing::HasSubstr("not all integers"));
  EXPECT_THAT(Eval("x=substring(s)", "a"), ::testing::HasSubstr("one or two arguments"));
}

TEST(ComputedColumnTest, TruncateNumbersDecimalsAndStrings) {
  EXPECT_EQ(TypeOf("x=truncate(i, 10)"), "INT");
  EXPECT_EQ(TypeOf("x=truncate(id, 10)"), "INT NOT NULL");  // the column's own type
  EXPECT_EQ(TypeOf("x=truncate(dec, 10)"), "DECIMAL(10, 3)");
  EXPECT_EQ(Eval("x=truncate(i, 10)", "17"), "10");
  EXPECT_EQ(Eval("x=truncate(i, 10)", "-17"), "-20");  // towards negative infinity
  EXPECT_EQ(Eval("x=truncate(i, 10)", "0"), "0");
  EXPECT_EQ(Eval("x=truncate(i, -3)", "7"), "9");  // Java's % with a negative width
  EXPECT_EQ(Eval("x=truncate(i, 10)", "-2147483648"), "2147483646");  // int overflow wraps
  EXPECT_EQ(Eval("x=truncate(b, 1000)", "-1"), "-1000");
  EXPECT_EQ(Eval("x=truncate(b, 1000)", "9223372036854775807"), "9223372036854775000");
  EXPECT_EQ(Eval("x=truncate(t, 10)", "-128"), "-130");  // beyond TINYINT, as Java
  EXPECT_EQ(Eval("x=truncate(sm, 10)", "32767"), "32760");
  EXPECT_THAT(Eval("x=truncate(t, 10)", "40000"), ::testing::HasSubstr("is not a TINYINT"));
  EXPECT_THAT(Eval("x=truncate(i, 0)", "5"), ::testing::HasSubstr("division by zero"));
  // DECIMAL: the unscaled value, the scale kept, printed as BigDecimal.toString.
  EXPECT_EQ(Eval("x=truncate(dec, 10)", "12.345"), "12.340");
  EXPECT_EQ(Eval("x=truncate(dec, 10)", "-12.345"), "-12.350");
  EXPECT_EQ(Eval("x=truncate(dec, 100)", "0.5"), "0.0");
  EXPECT_EQ(Eval("x=truncate(dec, 10)", "0.0000001"), "0E-7");
  EXPECT_EQ(Eval("x=truncate(dec, 10)", "1E+3"), "0E+3");
  EXPECT_EQ(Eval("x=truncate(dec, 3)", "10"), "9");
  EXPECT_THAT(Eval("x=truncate(dec, 10)", "1,5"), ::testing::HasSubstr("ERROR"));
  // Strings: the first `width` UTF-16 units; a shorter value fails.
  EXPECT_EQ(Eval("x=truncate(s, 3)", "hello"), "hel");
  EXPECT_EQ(Eval("x=truncate(c, 2)", "abc"), "ab");
  EXPECT_EQ(Eval("x=truncate(s, 2)", "ab"), "ab");
  EXPECT_THAT(Eval("x=truncate(s, 3)", "hi"), ::testing::HasSubstr("less than or equal to 2"));
  // Another type parses, and fails on a value, as in Java.
  EXPECT_THAT(Eval("x=truncate(f, 10)", "1.5"),
              ::testing::HasSubstr("unsupported field type for truncate: DOUBLE"));
  EXPECT_EQ(Eval("x=truncate(f, 10)", std::nullopt), "NULL");
  EXPECT_THAT(Eval("x=truncate(i, ten)", "1"), ::testing::HasSubstr("expected an integer"));
  EXPECT_THAT(Eval("x=truncate(i)", "1"), ::testing::HasSubstr("takes one argument"));
}

TEST(ComputedColumnTest, CastAndNow) {
  EXPECT_EQ(TypeOf("x=cast(42, INT)"), "INT");
  EXPECT_EQ(Eval("x=cast(42, INT)", std::nullopt), "42");
  EXPECT_EQ(TypeOf("x=cast(hello)"), "STRING");
  EXPECT_EQ(Eval("x=cast(hello)", std::nullopt), "hello");
  EXPECT_EQ(Eval("x=cast( spaced , STRING)", std::nullopt), " spaced ");  // untrimmed, as Java
  EXPECT_EQ(Eval("x=cast()", std::nullopt), "");
  EXPECT_THAT(Eval("x=cast(1, BOGUS)", std::nullopt), ::testing::HasSubstr("cast type"));
  EXPECT_THAT(Eval("x=cast(1, DECIMAL(10, 2))", std::nullopt),
              ::testing::HasSubstr("one or two arguments, found 3"));
  EXPECT_EQ(TypeOf("x=now()"), "TIMESTAMP(3)");
  std::string now = Eval("x=now()", std::nullopt);
  EXPECT_TRUE(std::regex_match(now, std::regex(R"(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3})"))) << now;
}

TEST(ComputedColumnTest, UpperLowerTrim) {
  EXPECT_EQ(Eval("x=upper(s)", "abc Xy1"), "ABC XY1");
  EXPECT_EQ(Eval("x=lower(s)", "ABC Xy1"), "abc xy1");
  EXPECT_EQ(Eval("x=upper(s)", "\xC3\xA4"), "\xC3\x84");  // ä -> Ä
  EXPECT_EQ(Eval("x=trim(s)", " \t a b \n"), "a b");
  EXPECT_EQ(TypeOf("x=trim(s)"), "STRING");
  EXPECT_THAT(Eval("x=upper(c)", "a"),
              ::testing::HasSubstr("only takes a VARCHAR column, 'c' is CHAR"));
  EXPECT_THAT(Eval("x=lower(i)", "a"), ::testing::HasSubstr("'i' is INTEGER"));
  EXPECT_THAT(Eval("x=trim(s, 1)", "a"), ::testing::HasSubstr("takes no argument"));
}

TEST(ComputedColumnTest, NullsGiveNull) {
  for (const char* text : {"x=year(ts)", "x=date_format(ts, yyyy)", "x=substring(s, 1)",
                           "x=truncate(i, 10)", "x=upper(s)", "x=trim(s)", "x=year(b, 3)"}) {
    EXPECT_EQ(Eval(text, std::nullopt), "NULL") << text;
  }
}

TEST(ComputedColumnTest, ParseErrorsNameTheText) {
  EXPECT_THAT(Eval("x=foo(s)", "a"),
              ::testing::HasSubstr("computed column 'x=foo(s)': unsupported expression 'foo'"));
  EXPECT_THAT(Eval("x=year(nope)", "a"), ::testing::HasSubstr("referenced field 'nope'"));
  EXPECT_THAT(Eval("x=year(TS)", "a"), ::testing::HasSubstr("referenced field 'TS'"));
  EXPECT_THAT(Eval("x=year()", "a"), ::testing::HasSubstr("referenced field ''"));
  EXPECT_THAT(Eval("a=b=c(s)", "a"), ::testing::HasSubstr("one '='"));
  EXPECT_THAT(Eval("year(s)", "a"), ::testing::HasSubstr("one '='"));
  EXPECT_THAT(Eval("x=year", "a"), ::testing::HasSubstr("invalid expression 'year'"));
  EXPECT_THAT(Eval("x=(s)", "a"), ::testing::HasSubstr("invalid expression"));
  EXPECT_THAT(Eval("x=substring(,)", "a"), ::testing::HasSubstr("has no argument"));
  // What follows the first ')' is ignored, as in Java.
  EXPECT_EQ(Eval(" x = year(ts) tail", "2024-01-01"), "2024");
}

TEST(ComputedColumnTest, ComputedColumnsReferenceEarlierOnesInJavasOrder) {
  ASSERT_OK_AND_ASSIGN(
      auto columns,
      ParseComputedColumns({"y2=substring(y, 0, 2)", "p=cast(1, INT)", "y=year(ts)"}, Fields()));
  ASSERT_EQ(columns.size(), 3u);
  EXPECT_EQ(columns[0].name(), "p");  // no computed reference: first, in the given order
  EXPECT_EQ(columns[1].name(), "y");
  EXPECT_EQ(columns[2].name(), "y2");
  EXPECT_EQ(columns[1].type()->ToString(), "INT");

  CdcRecord record;
  record.columns.push_back(CdcColumn{"ts", DataType::Timestamp(3), "2024-02-29 13:45:07", {}});
  record.columns.push_back(CdcColumn{"p", DataType::String(), "old", {}});
  ASSERT_OK(ApplyComputedColumns(columns, &record));
  ASSERT_EQ(record.columns.size(), 4u);
  EXPECT_EQ(record.columns[1].name, "p");  // the record's own p takes the computed value
  EXPECT_EQ(record.columns[1].value, "1");
  EXPECT_EQ(record.columns[1].type->ToString(), "INT");
  EXPECT_EQ(record.columns[2].name, "y");
  EXPECT_EQ(record.columns[2].value, "2024");
  EXPECT_EQ(record.columns[3].name, "y2");
  EXPECT_EQ(record.columns[3].value, "20");

  // A record without the referenced column: NULL.
  CdcRecord bare;
  ASSERT_OK(ApplyComputedColumns(columns, &bare));
  EXPECT_EQ(bare.columns[1].name, "y");
  EXPECT_FALSE(bare.columns[1].value.has_value());

  // Java's DfsSort: x, z (no computed reference) then y after z.
  ASSERT_OK_AND_ASSIGN(auto chain,
                       ParseComputedColumns({"x=year(ts)", "y=cast(z)", "z=month(ts)"}, Fields()));
  ASSERT_EQ(chain.size(), 3u);
  EXPECT_EQ(chain[0].name(), "x");
  EXPECT_EQ(chain[1].name(), "z");
  EXPECT_EQ(chain[2].name(), "y");
}

TEST(ComputedColumnTest, CyclesAndDuplicates) {
  EXPECT_THAT(ParseComputedColumns({"a=upper(b)", "b=upper(a)"}, Fields()),
              IsError(StatusCode::kInvalid, "cycle detected"));
  EXPECT_THAT(ParseComputedColumns({"s=upper(s)"}, Fields()),
              IsError(StatusCode::kInvalid, "cycle detected at s"));
  // A name given twice: its first place, its last text.
  ASSERT_OK_AND_ASSIGN(auto dup,
                       ParseComputedColumns({"a=year(ts)", "b=cast(1)", "a=month(ts)"}, Fields()));
  ASSERT_EQ(dup.size(), 2u);
  EXPECT_EQ(dup[0].name(), "a");
  ASSERT_OK_AND_ASSIGN(auto v, dup[0].Eval(std::string("2024-03-01")));
  EXPECT_EQ(v, "3");
}

}  // namespace
}  // namespace fjord::cdc
