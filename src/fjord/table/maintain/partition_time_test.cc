// Partition time extraction against the answers of Java 17's java.time for the same text and
// pattern (LocalDateTime.parse, else LocalDate.parse at midnight; checked with jshell).
#include "fjord/table/maintain/partition_time.h"

#include <gtest/gtest.h>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// Java's LocalDateTime.toString() of the extracted time, or "ERR".
std::string Parse(const std::string& text, std::optional<std::string> formatter) {
  auto x = PartitionTimeExtractor::Make(std::nullopt, std::move(formatter));
  EXPECT_TRUE(x.ok()) << x.status().ToString();
  if (!x.ok()) return "BAD";
  Result<LocalDateTime> t = x->Parse(text);
  return t.ok() ? t->ToString() : "ERR";
}

TEST(PartitionTimeTest, FormatterPatternsAsJava) {
  struct Case {
    const char* text;
    const char* pattern;
    const char* java;
  };
  const Case cases[] = {
      {"2024-02-30", "yyyy-MM-dd", "2024-02-29T00:00"},  // SMART: last day of the month
      {"2024-04-31 24:00:00", "yyyy-MM-dd HH:mm:ss", "2024-05-01T00:00"},
      {"20240115", "yyyyMMdd", "2024-01-15T00:00"},
      {"2024011510", "yyyyMMddHH", "2024-01-15T10:00"},
      {"202401151", "yyyyMMddH", "ERR"},
      {"24-01-15", "yy-MM-dd", "2024-01-15T00:00"},
      {"2024-1-5", "yyyy-M-d", "2024-01-05T00:00"},
      {"2024-01-15 10", "yyyy-MM-dd HH", "2024-01-15T10:00"},
      {"2024-01-15 10:30", "yyyy-MM-dd HH:mm", "2024-01-15T10:30"},
      {"2024-01-15T10:30:00", "yyyy-MM-dd'T'HH:mm:ss", "2024-01-15T10:30"},
      {"20240115103000123", "yyyyMMddHHmmssSSS", "2024-01-15T10:30:00.123"},
      {"2024-01-15", "yyyy-MM-dd[ HH:mm:ss]", "2024-01-15T00:00"},
      {"2024-01-15 01:02:03", "yyyy-MM-dd[ HH:mm:ss]", "2024-01-15T01:02:03"},
      {"12024-01-15", "yyyy-MM-dd", "ERR"},  // more than 4 digits need a '+'
      {"+12024-01-15", "yyyy-MM-dd", "+12024-01-15T00:00"},
      {"2024-13-01", "yyyy-MM-dd", "ERR"},
      {"2024-01-15 10:61", "yyyy-MM-dd HH:mm", "ERR"},
      {"2024/01/15", "yyyy/MM/dd", "2024-01-15T00:00"},
      {"2024-01", "yyyy-MM", "ERR"},  // no day: no date
      {"2024-01-15", "uuuu-MM-dd", "2024-01-15T00:00"},
      {"0000-01-15", "yyyy-MM-dd", "ERR"},  // year of era 0
      {"0000-01-15", "uuuu-MM-dd", "0000-01-15T00:00"},
      {"20240115", "yyyyMMd", "ERR"},  // a variable-width day ends the adjacent run
      {"2024011", "yMMd", "ERR"},
      {"20240115", "yMMdd", "2024-01-15T00:00"},
      {"2024-01-15", "y-M-d", "2024-01-15T00:00"},
      {"2024-01-15 ", "yyyy-MM-dd", "ERR"},  // unparsed text
      {"2024-01-15x", "yyyy-MM-dd'x'", "2024-01-15T00:00"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Parse(c.text, std::string(c.pattern)), c.java) << c.text << " / " << c.pattern;
  }
}

TEST(PartitionTimeTest, DefaultFormatterIsLenient) {
  struct Case {
    const char* text;
    const char* java;
  };
  const Case cases[] = {
      {"2024-01-15", "2024-01-15T00:00"},
      {"2024-1-5", "2024-01-05T00:00"},
      {"2024-01-15 10:30:00", "2024-01-15T10:30"},
      {"2024-01-15 1:2:3", "2024-01-15T01:02:03"},
      {"2024-01-15 10:30:00.5", "2024-01-15T10:30:00.500"},
      {"2024-13-01", "2025-01-01T00:00"},           // LENIENT: month 13 is next January
      {"2024-02-30", "2024-03-01T00:00"},           // day 30 of February rolls on
      {"2024-01-15 25:00:00", "2024-01-16T01:00"},  // hour 25 rolls into the next day
      {"2024-01-15 10:30", "ERR"},                  // the time part needs seconds
      {"20240115", "ERR"},
      {"2024-01-15T10:30:00", "ERR"},
      {"", "ERR"},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(Parse(c.text, std::nullopt), c.java) << c.text;
  }
}

TEST(PartitionTimeTest, PatternReplacesEveryKey) {
  ASSERT_OK_AND_ASSIGN(auto x,
                       PartitionTimeExtractor::Make(std::string("$dt $hour:00:00"), std::nullopt));
  ASSERT_OK_AND_ASSIGN(LocalDateTime t,
                       x.Extract({"dt", "hour"}, {std::string("2024-01-15"), std::string("7")}));
  EXPECT_EQ(t.ToString(), "2024-01-15T07:00");
  // A NULL in any key fails with a pattern, even one the pattern does not use.
  ASSERT_OK_AND_ASSIGN(auto y, PartitionTimeExtractor::Make(std::string("$dt"), std::nullopt));
  EXPECT_FALSE(y.Extract({"dt", "other"}, {std::string("2024-01-15"), std::nullopt}).ok());
  // Without a pattern only the first value counts.
  ASSERT_OK_AND_ASSIGN(auto z, PartitionTimeExtractor::Make(std::nullopt, std::nullopt));
  ASSERT_OK_AND_ASSIGN(t, z.Extract({"dt", "other"}, {std::string("2024-01-15"), std::nullopt}));
  EXPECT_EQ(t.ToString(), "2024-01-15T00:00");
  EXPECT_FALSE(z.Extract({"dt", "other"}, {std::nullopt, std::string("x")}).ok());
  // A pattern with a formatter: year, month, day and hour columns.
  ASSERT_OK_AND_ASSIGN(auto w, PartitionTimeExtractor::Make(std::string("$year$month$day $hh"),
                                                            std::string("yyyyMMdd HH")));
  ASSERT_OK_AND_ASSIGN(
      t, w.Extract({"year", "month", "day", "hh"},
                   {std::string("2023"), std::string("12"), std::string("31"), std::string("23")}));
  EXPECT_EQ(t.ToString(), "2023-12-31T23:00");
  // A value that does not parse is an error, not a time.
  EXPECT_FALSE(w.Extract({"year", "month", "day", "hh"}, {std::string("20x3"), std::string("12"),
                                                          std::string("31"), std::string("23")})
                   .ok());
}

TEST(PartitionTimeTest, RefusesPatternsFjordDoesNotHonour) {
  for (const char* bad : {"yyyy-MMM-dd", "EEE yyyy-MM-dd", "yyyy-MM-dd a", "yyyy-MM-dd'T", "yyyy]",
                          "yyyy#", "ddd", "yyyy-MM-dd z", "SSSSSSSSSS"}) {
    auto x = PartitionTimeExtractor::Make(std::nullopt, std::string(bad));
    EXPECT_FALSE(x.ok()) << bad;
    if (!x.ok()) {
      EXPECT_NE(x.status().message().find("partition.timestamp-formatter"), std::string::npos);
    }
  }
}

TEST(PartitionTimeTest, LocalDateTimeText) {
  ASSERT_OK_AND_ASSIGN(LocalDateTime t, ParseLocalDateTime("2026-11-26T03:04:05.5"));
  EXPECT_EQ(t.ToString(), "2026-11-26T03:04:05.500");
  ASSERT_OK_AND_ASSIGN(t, ParseLocalDateTime("2026-11-26 03:00"));
  EXPECT_EQ(t.ToString(), "2026-11-26T03:00");
  ASSERT_OK_AND_ASSIGN(t, ParseLocalDateTime("2026-11-26"));
  EXPECT_EQ(t.ToString(), "2026-11-26T00:00");
  EXPECT_EQ(t.MinusMillis(1).ToString(), "2026-11-25T23:59:59.999");
  EXPECT_EQ(t.MinusMillis(-86400000).ToString(), "2026-11-27T00:00");
  EXPECT_EQ(LocalDateTime::FromMillis(t.ToMillis()), t);
  EXPECT_FALSE(ParseLocalDateTime("2026-11-26T25:00").ok());
  EXPECT_FALSE(ParseLocalDateTime("26-11-2026").ok());
}

}  // namespace
}  // namespace fjord
