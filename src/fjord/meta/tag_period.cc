#include "fjord/meta/tag_period.h"

#include <cstdio>

#include "fjord/common/calendar.h"
#include "fjord/common/strings.h"

namespace fjord {

namespace {

constexpr int64_t kHourMillis = 3600 * 1000;
constexpr int64_t kDayMillis = 24 * kHourMillis;

// The pieces of a name: a sequence of fixed-width numbers and literals.
struct Piece {
  char literal = 0;  // 0 for a number
  int width = 0;
};

// Reads `width` digits at `pos`; nullopt unless all are ASCII digits.
std::optional<int64_t> Digits(std::string_view text, size_t pos, int width) {
  if (pos + static_cast<size_t>(width) > text.size()) return std::nullopt;
  int64_t v = 0;
  for (int i = 0; i < width; ++i) {
    char c = text[pos + static_cast<size_t>(i)];
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Parses "year month day [hour [minute]]" laid out as `pattern` ('y', 'M', 'd', 'H', 'm' for
// the fields, anything else a literal), the whole text, strictly.
std::optional<int64_t> ParseLocal(std::string_view text, std::string_view pattern) {
  int64_t fields[5] = {0, 1, 1, 0, 0};
  const std::string_view names = "yMdHm";
  size_t pos = 0;
  for (size_t p = 0; p < pattern.size();) {
    size_t which = names.find(pattern[p]);
    if (which == std::string_view::npos) {
      if (pos >= text.size() || text[pos] != pattern[p]) return std::nullopt;
      ++pos;
      ++p;
      continue;
    }
    int width = 0;
    while (p < pattern.size() && pattern[p] == names[which]) {
      ++width;
      ++p;
    }
    std::optional<int64_t> v = Digits(text, pos, width);
    if (!v) return std::nullopt;
    fields[which] = *v;
    pos += static_cast<size_t>(width);
  }
  if (pos != text.size()) return std::nullopt;
  int64_t year = fields[0], month = fields[1], day = fields[2];
  if (month < 1 || month > 12) return std::nullopt;
  if (day < 1 || day > DaysInMonth(year, static_cast<unsigned>(month))) return std::nullopt;
  if (fields[3] > 23 || fields[4] > 59) return std::nullopt;
  int64_t days = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return days * kDayMillis + fields[3] * kHourMillis + fields[4] * 60000;
}

std::string FormatLocal(int64_t local_millis, std::string_view pattern) {
  int64_t days = FloorDiv(local_millis, kDayMillis);
  int64_t in_day = local_millis - days * kDayMillis;
  CivilDate date = CivilFromDays(days);
  int64_t fields[5] = {date.year, date.month, date.day, in_day / kHourMillis,
                       (in_day % kHourMillis) / 60000};
  const std::string_view names = "yMdHm";
  std::string out;
  for (size_t p = 0; p < pattern.size();) {
    size_t which = names.find(pattern[p]);
    if (which == std::string_view::npos) {
      out += pattern[p++];
      continue;
    }
    int width = 0;
    while (p < pattern.size() && pattern[p] == names[which]) {
      ++width;
      ++p;
    }
    char buf[24];
    std::snprintf(buf, sizeof buf, "%0*lld", width, static_cast<long long>(fields[which]));
    out += buf;
  }
  return out;
}

}  // namespace

Result<TagPeriod> TagPeriod::Make(const Options& options) {
  TagPeriod out;
  std::string formatter = Lower(options.GetOr("tag.period-formatter", "with_dashes"));
  if (formatter == "with_dashes") {
    out.formatter_ = Formatter::kWithDashes;
  } else if (formatter == "without_dashes") {
    out.formatter_ = Formatter::kWithoutDashes;
  } else if (formatter == "without_dashes_and_spaces") {
    out.formatter_ = Formatter::kWithoutDashesAndSpaces;
  } else {
    return Status::Invalid("option 'tag.period-formatter' = '", formatter,
                           "': expected with_dashes, without_dashes or without_dashes_and_spaces");
  }
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> duration,
                        options.GetDurationMillis("tag.creation-period-duration"));
  if (duration) {
    if (*duration <= 0) {
      return Status::Invalid("option 'tag.creation-period-duration' must be positive");
    }
    out.kind_ = Kind::kDuration;
    out.period_millis_ = *duration;
    return out;
  }
  std::string period = Lower(options.GetOr("tag.creation-period", "daily"));
  if (period == "daily") {
    out.kind_ = Kind::kDaily;
    out.period_millis_ = kDayMillis;
  } else if (period == "hourly") {
    out.kind_ = Kind::kHourly;
    out.period_millis_ = kHourMillis;
  } else if (period == "two-hours") {
    out.kind_ = Kind::kTwoHours;
    out.period_millis_ = 2 * kHourMillis;
  } else {
    return Status::Invalid("option 'tag.creation-period' = '", period,
                           "': expected daily, hourly or two-hours");
  }
  return out;
}

namespace {

std::string_view PatternOf(TagPeriod::Kind kind, TagPeriod::Formatter formatter) {
  using K = TagPeriod::Kind;
  using F = TagPeriod::Formatter;
  switch (kind) {
    case K::kDaily:
      return formatter == F::kWithDashes ? "yyyy-MM-dd" : "yyyyMMdd";
    case K::kHourly:
      return formatter == F::kWithDashes      ? "yyyy-MM-dd HH"
             : formatter == F::kWithoutDashes ? "yyyyMMdd HH"
                                              : "yyyyMMddHH";
    case K::kTwoHours:
      return "yyyy-MM-dd HH";
    case K::kDuration:
      return "yyyyMMddHHmm";
  }
  return "";
}

}  // namespace

std::optional<int64_t> TagPeriod::TagToLocalMillis(std::string_view name) const {
  if (kind_ == Kind::kDaily) {
    // Java's daily handler parses the text before the first space.
    size_t space = name.find(' ');
    if (space != std::string_view::npos) name = name.substr(0, space);
  }
  return ParseLocal(name, PatternOf(kind_, formatter_));
}

std::string TagPeriod::LocalMillisToTag(int64_t local_millis) const {
  return FormatLocal(local_millis, PatternOf(kind_, formatter_));
}

}  // namespace fjord
