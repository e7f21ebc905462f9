// The time of a partition, read from its values as Java Paimon's PartitionTimeExtractor reads it
// (`partition.timestamp-pattern`, `partition.timestamp-formatter`; behaviour.md §5.8), for
// partition expiration (values-time) and anything else that ages partitions.
//
// The text: without a pattern, the first partition value; with one, the pattern with every
// `$key` replaced by that key's value, key after key in partition order (so `$dt $hour:00:00`).
// A NULL value fails (Java's NullPointerException): without a pattern only a NULL first value,
// with one a NULL in any key, as Java's loop touches every value.
//
// The parse: without a formatter, Java's default formatter `y-M-d[ H:m:s[.fffffffff]]` (1-10 digit
// year, 1-2 digit month, day, hour, minute and second) with the LENIENT resolver (month 13 rolls
// into the next year, hour 24 into the next day), else `y-M-d` at midnight. With a formatter, a
// java.time.format.DateTimeFormatter pattern (Locale.ROOT, strict parsing, SMART resolver: day
// 31 of a 30-day month becomes its last day, 24:00:00 the next midnight), first as a date-time,
// else as a date at midnight. The pattern letters Fjord honours are y u (year, `yy` two-digit
// from 2000), M (1 or 2 letters), d H m s (1 or 2), S (fraction, 1-9), quoted text ('T',
// '' for a quote), other non-letters as literals, and optional sections [ ]; numbers side by side
// without separators (`yyyyMMddHH`) split as Java's adjacent value parsing splits them. Any
// other letter (month names, am/pm, zones, week fields...) is refused when the extractor is made,
// naming the letter and the option, rather than parsed differently from Java.
#pragma once

#include <compare>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

// A date-time without zone (Java's LocalDateTime): days since 1970-01-01 and nanoseconds of the
// day (0 .. 86399999999999).
struct LocalDateTime {
  int64_t days = 0;
  int64_t nanos = 0;

  auto operator<=>(const LocalDateTime&) const = default;

  // From milliseconds since 1970-01-01T00:00 of the local clock (a file's creation time).
  static LocalDateTime FromMillis(int64_t local_millis);
  // Milliseconds since 1970-01-01T00:00 (truncating sub-millisecond nanos toward -infinity).
  int64_t ToMillis() const;
  // The process's wall clock now, as Java's LocalDateTime.now() in the JVM's default zone.
  static LocalDateTime Now();
  // `millis` milliseconds earlier.
  LocalDateTime MinusMillis(int64_t millis) const;
  // Java's LocalDateTime.toString(): 2026-11-26T03:00, seconds and fraction only when not zero.
  std::string ToString() const;
};

// Parses Java's LocalDateTime text (yyyy-MM-ddTHH:mm[:ss[.fffffffff]], or a blank for T; a date
// alone is midnight). Invalid naming the text.
Result<LocalDateTime> ParseLocalDateTime(std::string_view text);

class PartitionTimeExtractor {
 public:
  // `pattern` is `partition.timestamp-pattern`, `formatter` `partition.timestamp-formatter`.
  // Invalid, naming the option, the pattern and the letter, for a formatter Java would reject or
  // Fjord does not honour.
  static Result<PartitionTimeExtractor> Make(std::optional<std::string> pattern,
                                             std::optional<std::string> formatter);

  // The time of a partition: `keys` its partition columns, `values` their values as Java's
  // toString() of the internal value prints them (a DATE as its day number), nullopt for NULL.
  // Invalid, saying why, when Java's extraction throws (the text does not parse, or a NULL).
  Result<LocalDateTime> Extract(const std::vector<std::string>& keys,
                                const std::vector<std::optional<std::string>>& values) const;
  // The parse alone.
  Result<LocalDateTime> Parse(std::string_view text) const;

  const std::optional<std::string>& pattern() const { return pattern_; }
  const std::optional<std::string>& formatter() const { return formatter_; }

  struct Compiled;  // the formatter's parsers (partition_time.cc)

 private:
  std::optional<std::string> pattern_;
  std::optional<std::string> formatter_;
  std::shared_ptr<const Compiled> compiled_;  // null: Java's default formatters
};

}  // namespace fjord
