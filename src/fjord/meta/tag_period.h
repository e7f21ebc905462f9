// The periods of automatically created tags (behaviour.md §8.4, Java's TagPeriodHandler): which
// tag names are auto tags and the local date-time each names. `tag.creation-period` daily, hourly
// or two-hours with `tag.period-formatter`, or `tag.creation-period-duration` (names
// yyyyMMddHHmm). Times are local date-times counted in milliseconds from 1970-01-01T00:00 (no
// time zone), as Java's LocalDateTime.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fjord/options.h"
#include "fjord/result.h"

namespace fjord {

class TagPeriod {
 public:
  enum class Kind : unsigned char { kDaily, kHourly, kTwoHours, kDuration };
  enum class Formatter : unsigned char { kWithDashes, kWithoutDashes, kWithoutDashesAndSpaces };

  // From the table options; Invalid naming the option for a value that is not one of Java's.
  static Result<TagPeriod> Make(const Options& options);

  Kind kind() const { return kind_; }
  int64_t period_millis() const { return period_millis_; }

  // The local date-time `name` stands for, or nullopt when it is not an auto tag of this period
  // (Java parses strictly: fixed widths, real calendar dates; a daily tag may carry a suffix
  // after a space, which is ignored).
  std::optional<int64_t> TagToLocalMillis(std::string_view name) const;
  // The tag name of a local date-time.
  std::string LocalMillisToTag(int64_t local_millis) const;

 private:
  Kind kind_ = Kind::kDaily;
  Formatter formatter_ = Formatter::kWithDashes;
  int64_t period_millis_ = 0;
};

}  // namespace fjord
