#include "time_arg.h"

#include <cctype>
#include <chrono>
#include <ctime>
#include <string>

#include "fjord/options.h"

namespace fjord::cli {

namespace {

bool Digits(std::string_view s, size_t pos, size_t n, int* out) {
  if (pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = pos; i < pos + n; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(s[i]))) return false;
    v = v * 10 + (s[i] - '0');
  }
  *out = v;
  return true;
}

// Days since 1970-01-01 of a civil date (proleptic Gregorian).
int64_t DaysFromCivil(int64_t y, int m, int d) {
  y -= m <= 2;
  const int64_t era = (y >= 0 ? y : y - 399) / 400;
  const int64_t yoe = y - era * 400;
  const int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

std::optional<int64_t> ParseTimestamp(std::string_view s) {
  int y, mo, d, h = 0, mi = 0, sec = 0, millis = 0;
  if (!Digits(s, 0, 4, &y) || s.size() < 10 || s[4] != '-' || !Digits(s, 5, 2, &mo) ||
      s[7] != '-' || !Digits(s, 8, 2, &d)) {
    return std::nullopt;
  }
  if (mo < 1 || mo > 12 || d < 1 || d > 31) return std::nullopt;
  size_t pos = 10;
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    if (!Digits(s, pos + 1, 2, &h) || pos + 3 >= s.size() || s[pos + 3] != ':' ||
        !Digits(s, pos + 4, 2, &mi)) {
      return std::nullopt;
    }
    pos += 6;
    if (pos < s.size() && s[pos] == ':') {
      if (!Digits(s, pos + 1, 2, &sec)) return std::nullopt;
      pos += 3;
      if (pos < s.size() && s[pos] == '.') {
        size_t start = ++pos;
        int scale = 100;
        while (pos < s.size() && std::isdigit(static_cast<unsigned char>(s[pos]))) {
          millis += (s[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (pos == start) return std::nullopt;
      }
    }
    if (h > 23 || mi > 59 || sec > 60) return std::nullopt;
  }
  std::optional<int64_t> offset_minutes;  // nullopt: local time
  if (pos < s.size()) {
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      offset_minutes = 0;
    } else if ((s[pos] == '+' || s[pos] == '-') && s.size() - pos == 6 && s[pos + 3] == ':') {
      int oh, om;
      if (!Digits(s, pos + 1, 2, &oh) || !Digits(s, pos + 4, 2, &om)) return std::nullopt;
      offset_minutes = (s[pos] == '-' ? -1 : 1) * (oh * 60 + om);
    } else {
      return std::nullopt;
    }
  }
  if (!offset_minutes) {
    std::tm tm{};
    tm.tm_year = y - 1900;
    tm.tm_mon = mo - 1;
    tm.tm_mday = d;
    tm.tm_hour = h;
    tm.tm_min = mi;
    tm.tm_sec = sec;
    tm.tm_isdst = -1;
    std::time_t t = std::mktime(&tm);
    if (t == static_cast<std::time_t>(-1)) return std::nullopt;
    return static_cast<int64_t>(t) * 1000 + millis;
  }
  int64_t secs = DaysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + sec - *offset_minutes * 60;
  return secs * 1000 + millis;
}

}  // namespace

int64_t CurrentMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

Result<int64_t> ParseTimeArg(std::string_view text, int64_t now_millis, std::string_view flag) {
  if (std::optional<int64_t> t = ParseTimestamp(text)) return *t;
  // A bare number is not a duration here: "30" is ambiguous (milliseconds?).
  bool has_unit = false;
  for (char c : text) has_unit |= std::isalpha(static_cast<unsigned char>(c)) != 0;
  if (has_unit) {
    Result<int64_t> d = ParseDurationMillis(text);
    if (d.ok() && *d >= 0) return now_millis - *d;
  }
  return Status::Invalid(flag, " '", text,
                         "' is neither a duration before now (1d, 2h, 30s) nor an ISO-8601 "
                         "timestamp (2026-12-01T08:00:00[Z])");
}

}  // namespace fjord::cli
