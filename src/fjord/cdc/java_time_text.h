// The date-time text of the temporal computed columns (computed_column.h), as Java Paimon reads
// and prints it: DateTimeUtils.toLocalDateTime(text, 9) (its default formatter
// "yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.fraction]]" with the SMART resolver), epoch
// numbers as Paimon's Timestamp.toLocalDateTime reads them (UTC), and the part of
// java.time.format.DateTimeFormatter's patterns that `date_format` prints a LocalDateTime with.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord::cdc {

// A date-time without a zone (Java's LocalDateTime).
struct LocalDateTime {
  int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
  int hour = 0;
  int minute = 0;
  int second = 0;
  int32_t nano = 0;  // of the second
};

// Java's DateTimeUtils.toLocalDateTime(text, 9): "2024-02-29", "2024-2-9 7:05:09.123456" and
// the like; a day past the month's end is clamped to it (SMART: "2023-02-30" is 2023-02-28),
// "24:00:00" is midnight of the next day. Anything else is Invalid naming the text.
Result<LocalDateTime> ParseJavaDateTimeText(std::string_view text);

// Java's Timestamp.fromEpochMillis(millis, nanos).toLocalDateTime(): the UTC wall clock.
LocalDateTime LocalDateTimeFromEpochMillis(int64_t millis, int32_t nano_of_milli);

// A compiled java.time.format.DateTimeFormatter pattern (Locale US texts). The letters Fjord
// prints: G y u M L Q q d D E a h K k H m s S n N A, with Java's counts; quoted text, '' and
// [optional] sections (printed: a LocalDateTime has every field they can hold). Other letters
// (week-based fields, zones, offsets, padding) are Invalid at Compile, naming the letter.
class DateTimePattern {
 public:
  static Result<DateTimePattern> Compile(std::string_view pattern);
  // Fails as Java does at printing: a fixed-width field whose value does not fit.
  Result<std::string> Format(const LocalDateTime& t) const;

 private:
  struct Item {
    char letter = 0;  // 0: literal text
    int count = 0;
    std::string text;
  };
  std::vector<Item> items_;
};

}  // namespace fjord::cdc
