#include "fjord/format/evolution_cast.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include <limits>

#include "fjord/format/arrow_types.h"
#include "fjord/format/row_json.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

DataTypePtr Type(const std::string& text) {
  auto t = ParseDataType(text);
  EXPECT_TRUE(t.ok()) << text;
  return *t;
}

// The canonical JSON of each value of `column` (type `from`) cast to `to`, comma-separated, or
// "error: <message>".
std::string CastColumn(const std::shared_ptr<arrow::Array>& column, const std::string& from,
                       const std::string& to) {
  DataTypePtr f = Type(from), t = Type(to);
  auto cast = EvolutionCast(column, *f, *t);
  if (!cast.ok()) return "error: " + cast.status().message();
  std::string out;
  for (int64_t i = 0; i < (*cast)->length(); ++i) {
    if (i) out += ",";
    EXPECT_TRUE(AppendValueJson(**cast, i, *t, &out).ok());
  }
  return out;
}

// `json`: an Arrow JSON array of the canonical type of `from`.
std::string Cast(const std::string& from, const std::string& to, const std::string& json) {
  auto arrow_type = ToArrowType(*Type(from));
  EXPECT_TRUE(arrow_type.ok());
  auto column = arrow::json::ArrayFromJSONString(*arrow_type, json);
  EXPECT_TRUE(column.ok()) << column.status().ToString();
  return CastColumn(*column, from, to);
}

std::shared_ptr<arrow::Array> Doubles(std::vector<double> values) {
  arrow::DoubleBuilder b;
  EXPECT_TRUE(b.AppendValues(values).ok());
  return b.Finish().ValueOrDie();
}
std::shared_ptr<arrow::Array> Floats(std::vector<float> values) {
  arrow::FloatBuilder b;
  EXPECT_TRUE(b.AppendValues(values).ok());
  return b.Finish().ValueOrDie();
}

bool Allowed(const std::string& from, const std::string& to, bool allow_explicit = true) {
  return AlterTypeAllowed(*Type(from), *Type(to), allow_explicit);
}

TEST(EvolutionCastTest, WhichChangesJavaAllows) {
  EXPECT_TRUE(Allowed("BIGINT", "TINYINT"));  // explicit: narrowing
  EXPECT_FALSE(Allowed("BIGINT", "TINYINT", /*allow_explicit=*/false));
  EXPECT_TRUE(Allowed("DOUBLE", "DECIMAL(5, 0)", false));  // implicit by type root
  EXPECT_TRUE(Allowed("VARCHAR(40)", "VARCHAR(5)", false));
  EXPECT_TRUE(Allowed("INT", "TIMESTAMP(3)"));
  EXPECT_FALSE(Allowed("TINYINT", "TIMESTAMP(3)"));  // NumericPrimitiveToTimestamp: INT, BIGINT
  EXPECT_FALSE(Allowed("DOUBLE", "TIMESTAMP(3)"));
  EXPECT_FALSE(Allowed("TIME(0)", "TIME(3)"));  // no TIME to TIME rule
  EXPECT_TRUE(Allowed("TIMESTAMP(3)", "STRING"));
  EXPECT_FALSE(Allowed("TIMESTAMP(3)", "VARCHAR(40)"));  // the rule targets STRING only
  EXPECT_FALSE(Allowed("DATE", "INT"));
  EXPECT_FALSE(Allowed("FLOAT", "BOOLEAN"));
  EXPECT_TRUE(Allowed("BOOLEAN", "DECIMAL(10, 2)"));
  EXPECT_TRUE(Allowed("BYTES", "CHAR(5)"));
  EXPECT_FALSE(Allowed("INT", "BYTES"));
  EXPECT_TRUE(Allowed("ARRAY<INT>", "CHAR(5)"));
  EXPECT_FALSE(Allowed("MULTISET<INT>", "STRING"));      // no executor
  EXPECT_FALSE(Allowed("ARRAY<INT>", "ARRAY<BIGINT>"));  // no executor for the whole column
  EXPECT_FALSE(Allowed("ROW<a INT>", "ROW<a BIGINT>"));
  EXPECT_FALSE(Allowed("INT", "BIGINT NOT NULL", false));
}

TEST(EvolutionCastTest, IntegersWrapAndFloatingPointSaturates) {
  EXPECT_EQ(Cast("INT", "TINYINT", "[383, -129, 127, null]"), "127,127,127,null");
  EXPECT_EQ(Cast("BIGINT", "INT", "[2147483648, -1]"), "-2147483648,-1");
  EXPECT_EQ(Cast("INT", "BOOLEAN", "[0, -5]"), "false,true");
  EXPECT_EQ(Cast("BOOLEAN", "DOUBLE", "[true, false]"), "1,0");  // canonical JSON: shortest
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(CastColumn(Doubles({1e10, -1e10, nan, 2.9, -2.9}), "DOUBLE", "INT"),
            "2147483647,-2147483648,0,2,-2");
  EXPECT_EQ(CastColumn(Doubles({300.7, 1e10}), "DOUBLE", "TINYINT"), "44,-1");  // (byte)(int)
  EXPECT_EQ(CastColumn(Doubles({9.3e18}), "DOUBLE", "BIGINT"), "9223372036854775807");
  EXPECT_EQ(CastColumn(Floats({16777217.0f}), "FLOAT", "INT"), "16777216");
  EXPECT_EQ(Cast("BIGINT", "FLOAT", "[9007199254740993]"), "9.007199e+15");
}

TEST(EvolutionCastTest, Decimals) {
  // Rescaling rounds HALF_UP; a value that does not fit becomes NULL.
  EXPECT_EQ(Cast("DECIMAL(10, 2)", "DECIMAL(5, 0)", R"(["2.50", "-2.50", "1.45", "12345678.99"])"),
            R"("3","-3","1",null)");
  // To integers: towards zero, then the low bits.
  EXPECT_EQ(Cast("DECIMAL(10, 2)", "INT", R"(["127.99", "-2.50"])"), "127,-2");
  EXPECT_EQ(Cast("DECIMAL(38, 18)", "BIGINT", R"(["-9223372036854775809.000000000000000000"])"),
            "9223372036854775807");
  // From FLOAT through Double.toString of the widened double.
  EXPECT_EQ(CastColumn(Floats({0.1f}), "FLOAT", "DECIMAL(38, 18)"), R"("0.100000001490116120")");
  EXPECT_EQ(CastColumn(Doubles({1e21}), "DOUBLE", "DECIMAL(38, 18)"), "null");
  EXPECT_EQ(CastColumn(Doubles({-0.5}), "DOUBLE", "DECIMAL(5, 0)"), R"("-1")");
  EXPECT_THAT(
      CastColumn(Doubles({std::numeric_limits<double>::infinity()}), "DOUBLE", "DECIMAL(10, 2)"),
      ::testing::HasSubstr("Infinite or NaN"));
  // To DOUBLE: a compact decimal divides in double arithmetic.
  EXPECT_EQ(Cast("DECIMAL(10, 2)", "DOUBLE", R"(["0.10", "-12345678.99"])"), "0.1,-12345678.99");
  EXPECT_EQ(Cast("BOOLEAN", "DECIMAL(10, 2)", "[true]"), R"("1.00")");
}

TEST(EvolutionCastTest, StringsToBooleansAndNumbers) {
  EXPECT_EQ(Cast("STRING", "BOOLEAN", R"(["yes", "N", "1", "TRUE", "t", "no"])"),
            "true,false,true,true,true,false");
  EXPECT_THAT(Cast("STRING", "BOOLEAN", R"(["on"])"), ::testing::HasSubstr("as BOOLEAN"));
  EXPECT_THAT(Cast("STRING", "BOOLEAN", R"([" true"])"), ::testing::HasSubstr("as BOOLEAN"));
  EXPECT_EQ(Cast("STRING", "INT", R"(["12.7", "-12.9", "+7", ".5", "-2147483648", "12."])"),
            "12,-12,7,0,-2147483648,12");
  EXPECT_THAT(Cast("STRING", "INT", R"([" 12"])"), ::testing::HasSubstr("Invalid character"));
  EXPECT_THAT(Cast("STRING", "INT", R"(["2147483648"])"), ::testing::HasSubstr("Overflow"));
  EXPECT_THAT(Cast("STRING", "INT", R"(["1e5"])"), ::testing::HasSubstr("Invalid character"));
  EXPECT_THAT(Cast("STRING", "TINYINT", R"(["128"])"), ::testing::HasSubstr("Overflow"));
  EXPECT_EQ(Cast("STRING", "BIGINT", R"(["9223372036854775807"])"), "9223372036854775807");
  EXPECT_EQ(Cast("STRING", "DOUBLE", R"([" 2.5 ", "1.5f", "0x1p3", "Infinity", "-0", "1e400"])"),
            R"(2.5,1.5,8,"Infinity",-0,"Infinity")");
  EXPECT_THAT(Cast("STRING", "DOUBLE", R"(["inf"])"), ::testing::HasSubstr("NumberFormat"));
  EXPECT_THAT(Cast("STRING", "DOUBLE", R"(["1_000"])"), ::testing::HasSubstr("NumberFormat"));
  EXPECT_EQ(Cast("STRING", "FLOAT", R"(["3.5E38", "0.1"])"), R"("Infinity",0.1)");
  EXPECT_EQ(Cast("STRING", "DECIMAL(10, 2)", R"(["1e2", "12345678.995", "99999999.995", "-.5"])"),
            R"("100.00","12345679.00",null,"-0.50")");
  EXPECT_THAT(Cast("STRING", "DECIMAL(10, 2)", R"([" 1"])"), ::testing::HasSubstr("decimal"));
}

TEST(EvolutionCastTest, StringsToDatesAndTimes) {
  EXPECT_EQ(
      Cast(
          "STRING", "DATE",
          R"(["2023-1-5", " 2023-01-15", "2023-01-15 10:20:30", "20000", "2023", "-1"])"),  // integers
                                                                                            // are
                                                                                            // days
      R"("2023-01-05","2023-01-15","2023-01-15","2024-10-04","1975-07-17","1969-12-31")");
  EXPECT_THAT(Cast("STRING", "DATE", R"(["2023-02-30"])"), ::testing::HasSubstr("DateTime"));
  EXPECT_THAT(Cast("STRING", "DATE", R"(["2023-01-15T10:20"])"), ::testing::HasSubstr("DateTime"));
  EXPECT_EQ(Cast("STRING", "TIME(3)", R"(["10:20:30.1239", "10:20", "1:2:3", "5000"])"),
            R"("10:20:30.124","10:20:00.000","01:02:03.000","00:00:05.000")");
  // The timestamp formatter resolves SMART: day clamped to the month, 24:00:00 the next day.
  EXPECT_EQ(Cast("STRING", "TIMESTAMP(3)",
                 R"(["2023-02-30 10:20:30", "2023-01-15 24:00:00", "2023-1-5 1:2:3.98765",
                     "1700000000123", "2023-01-15"])"),
            R"("2023-02-28T10:20:30.000","2023-01-16T00:00:00.000","2023-01-05T01:02:03.987",)"
            R"("2023-11-14T22:13:20.123","2023-01-15T00:00:00.000")");
  EXPECT_THAT(Cast("STRING", "TIMESTAMP(3)", R"(["2023-01-15T10:20:30"])"),
              ::testing::HasSubstr("could not be parsed"));
  EXPECT_THAT(Cast("STRING", "TIMESTAMP(3)", R"(["2023-01-15 10:20"])"),
              ::testing::HasSubstr("could not be parsed"));
  EXPECT_THAT(Cast("STRING", "TIMESTAMP(4)", R"(["1700000000"])"),
              ::testing::HasSubstr("Unsupported precision"));
  // WITH LOCAL TIME ZONE takes no epoch numbers.
  EXPECT_THAT(Cast("STRING", "TIMESTAMP(3) WITH LOCAL TIME ZONE", R"(["1700000000"])"),
              ::testing::HasSubstr("could not be parsed"));
  EXPECT_EQ(Cast("STRING", "TIMESTAMP(6)", R"(["-1"])"), R"("1969-12-31T23:59:59.999999")");
}

TEST(EvolutionCastTest, Timestamps) {
  // Precision cut: towards zero on the milliseconds (a time before 1970 moves later) ...
  EXPECT_EQ(Cast("TIMESTAMP(3)", "TIMESTAMP(0)", "[-500, 1500]"),
            R"("1970-01-01T00:00:00","1970-01-01T00:00:01")");
  // ... and down on the nanoseconds of the millisecond.
  EXPECT_EQ(Cast("TIMESTAMP(9)", "TIMESTAMP(6)", "[-1]"), R"("1969-12-31T23:59:59.999999")");
  EXPECT_EQ(Cast("TIMESTAMP(3)", "DATE", "[-43200000]"), R"("1970-01-01")");  // towards zero
  EXPECT_EQ(Cast("TIMESTAMP(3) WITH LOCAL TIME ZONE", "DATE", "[-43200000]"), R"("1969-12-31")");
  EXPECT_EQ(Cast("TIMESTAMP(3)", "BIGINT", "[-1500, 1700000000999]"), "-1,1700000000");
  EXPECT_EQ(Cast("TIMESTAMP(3)", "TIME(3)", "[45296789]"), R"("12:34:56.789")");
  EXPECT_EQ(Cast("DATE", "TIMESTAMP(6) WITH LOCAL TIME ZONE", "[1]"),
            R"("1970-01-02T00:00:00.000000Z")");
  EXPECT_EQ(Cast("BIGINT", "TIMESTAMP(3)", "[1700000000, -1]"),
            R"("2023-11-14T22:13:20.000","1969-12-31T23:59:59.000")");
  EXPECT_THAT(Cast("BIGINT", "TIMESTAMP(9)", "[1234567890123]"),
              ::testing::HasSubstr("beyond the range"));
}

TEST(EvolutionCastTest, ToText) {
  EXPECT_EQ(CastColumn(Floats({1e10f, 0.1f, -0.0f}), "FLOAT", "STRING"),
            R"("1.0E10","0.1","-0.0")");
  EXPECT_EQ(CastColumn(Doubles({123.456}), "DOUBLE", "VARCHAR(5)"), R"("123.4")");
  EXPECT_EQ(Cast("INT", "CHAR(5)", "[12, -1234567]"), R"("12   ","-1234")");
  EXPECT_EQ(Cast("DECIMAL(10, 2)", "STRING", R"(["-0.05", "0.00"])"), R"("-0.05","0.00")");
  EXPECT_EQ(Cast("BOOLEAN", "VARCHAR(3)", "[true]"), R"("tru")");
  EXPECT_EQ(Cast("STRING", "VARCHAR(2)", R"(["é✓x"])"), R"("é✓")");  // characters, not bytes
  EXPECT_EQ(Cast("TIMESTAMP(3)", "STRING", "[1673778030100, 0]"),
            R"("2023-01-15 10:20:30.100","1970-01-01 00:00:00.000")");
  EXPECT_EQ(Cast("TIMESTAMP(0)", "STRING", "[0]"), R"("1970-01-01 00:00:00")");
  EXPECT_EQ(Cast("TIME(3)", "STRING", "[3723100, 0]"), R"("01:02:03.1","00:00:00.0")");
  EXPECT_EQ(Cast("DATE", "STRING", "[-1]"), R"("1969-12-31")");
  // Bytes to strings keep their length; strings to BINARY(n) pad or cut.
  EXPECT_EQ(Cast("BYTES", "CHAR(5)", R"(["hi"])"), R"("hi")");
  EXPECT_EQ(Cast("STRING", "BINARY(4)", R"(["hello!", "hi"])"), R"("aGVsbA==","aGkAAA==")");
  EXPECT_EQ(Cast("BYTES", "VARBINARY(6)", R"(["hello world"])"), R"("aGVsbG8g")");
}

TEST(EvolutionCastTest, NestedToText) {
  EXPECT_EQ(Cast("ARRAY<DOUBLE>", "CHAR(5)", "[[1.5, null, -0.0, 1e21], [], null]"),
            R"("[1.5, null, -0.0, 1.0E21]","[]",null)");
  EXPECT_EQ(Cast("ARRAY<ARRAY<INT>>", "STRING", "[[[1, 2], [], null, [null]]]"),
            R"("[[1, 2], [], null, [null]]")");
  EXPECT_EQ(Cast("MAP<STRING, DECIMAL(10, 2)>", "STRING", R"([[["a", "1.50"], ["b", null]]])"),
            R"("{a -> 1.50, b -> null}")");
  EXPECT_EQ(Cast("ROW<a INT, b TIMESTAMP(3), c BYTES>", "VARCHAR(5)",
                 R"([{"a": 1, "b": 1673778030100, "c": "hi"}, {"a": null, "b": null, "c": null}])"),
            R"("{1, 2023-01-15 10:20:30.100, hi}","{null, null, null}")");
}

// Types changed inside nested columns (Java's ALTER on `col.element`, `col.value`).
TEST(EvolutionCastTest, ElementsOfNestedColumns) {
  auto nested = [](const std::string& from, const std::string& to, const std::string& json,
                   int64_t slice_from) {
    auto column = *arrow::json::ArrayFromJSONString(*ToArrowType(*Type(from)), json);
    column = column->Slice(slice_from);
    auto cast = EvolveNestedColumn(column, *Type(from), *Type(to));
    if (!cast.ok()) return "error: " + cast.status().message();
    std::string out;
    for (int64_t i = 0; i < (*cast)->length(); ++i) {
      if (i) out += ",";
      EXPECT_TRUE(AppendValueJson(**cast, i, *Type(to), &out).ok());
    }
    return out;
  };
  EXPECT_EQ(nested("ARRAY<INT>", "ARRAY<TINYINT>", "[[1], [383, null], null, []]", 1),
            "[127,null],null,[]");
  EXPECT_EQ(nested("ARRAY<ARRAY<DOUBLE>>", "ARRAY<ARRAY<STRING>>", "[[[1.5], null]]", 0),
            R"([["1.5"],null])");
  EXPECT_EQ(
      nested("MAP<STRING, INT>", "MAP<STRING, BOOLEAN>", R"([[["a", 0], ["b", 2]], null])", 0),
      R"([["a",false],["b",true]],null)");
  EXPECT_THAT(nested("ARRAY<STRING>", "ARRAY<INT>", R"([["1", "x"]])", 0),
              ::testing::HasSubstr("'x'"));
  // ROW fields by id: `a` (id 1) retyped, `b` (id 2) renamed to `c`, `d` (id 3) added.
  DataTypePtr from = DataType::Row(
      {DataField{1, "a", DataType::Int(), {}, {}}, DataField{2, "b", DataType::String(), {}, {}}});
  DataTypePtr to = DataType::Row({DataField{1, "a", DataType::TinyInt(), {}, {}},
                                  DataField{2, "c", DataType::String(), {}, {}},
                                  DataField{3, "d", DataType::Int(), {}, {}}});
  auto column = *arrow::json::ArrayFromJSONString(
      *ToArrowType(*from), R"([{"a": 383, "b": "x"}, null, {"a": null, "b": "y"}])");
  ASSERT_OK_AND_ASSIGN(auto cast, EvolveNestedColumn(column->Slice(0), *from, *to));
  std::string out;
  for (int64_t i = 0; i < cast->length(); ++i) {
    if (i) out += ",";
    ASSERT_OK(AppendValueJson(*cast, i, *to, &out));
  }
  EXPECT_EQ(out, R"({"a":127,"c":"x","d":null},null,{"a":null,"c":"y","d":null})");
}

TEST(EvolutionCastTest, ErrorsNameTheRowAndValue) {
  EXPECT_THAT(Cast("STRING", "INT", R"(["1", null, "abc"])"),
              ::testing::AllOf(::testing::HasSubstr("row 2"), ::testing::HasSubstr("'abc'"),
                               ::testing::HasSubstr("from STRING to INT")));
}

}  // namespace
}  // namespace fjord
