#include "time_arg.h"

#include <cctype>
#include <ctime>
#include <optional>
#include <string>

namespace fjord::cli {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at `*pos`.
bool Digits(std::string_view s, size_t* pos, size_t n, int* out) {
  if (*pos + n > s.size()) return false;
  int v = 0;
  for (size_t i = 0; i < n; ++i) {
    char c = s[*pos + i];
    if (!IsDigit(c)) return false;
    v = v * 10 + (c - '0');
  }
  *pos += n;
  *out = v;
  return true;
}

// `1d12h`, `30s`, `500ms`: nullopt when `s` is not a duration.
std::optional<int64_t> ParseDuration(std::string_view s) {
  if (s.empty()) return std::nullopt;
  int64_t total = 0;
  size_t pos = 0;
  while (pos < s.size()) {
    if (!IsDigit(s[pos])) return std::nullopt;
    int64_t n = 0;
    while (pos < s.size() && IsDigit(s[pos])) {
      if (n > 1000000000000LL) return std::nullopt;
      n = n * 10 + (s[pos++] - '0');
    }
    std::string unit;
    while (pos < s.size() && std::isalpha(static_cast<unsigned char>(s[pos]))) {
      unit.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(s[pos++]))));
    }
    int64_t scale;
    if (unit == "d") {
      scale = 86400000;
    } else if (unit == "h") {
      scale = 3600000;
    } else if (unit == "m" || unit == "min") {
      scale = 60000;
    } else if (unit == "s") {
      scale = 1000;
    } else if (unit == "ms") {
      scale = 1;
    } else {
      return std::nullopt;
    }
    total += n * scale;
  }
  return total;
}

// yyyy-MM-dd[(T| )HH:mm[:ss[.fraction]]][Z|(+|-)HH:mm]
std::optional<int64_t> ParseTimestamp(std::string_view s) {
  std::tm tm{};
  int year, month, day, hour = 0, minute = 0, second = 0, millis = 0;
  size_t pos = 0;
  if (!Digits(s, &pos, 4, &year) || pos >= s.size() || s[pos++] != '-' ||
      !Digits(s, &pos, 2, &month) || pos >= s.size() || s[pos++] != '-' ||
      !Digits(s, &pos, 2, &day)) {
    return std::nullopt;
  }
  if (pos < s.size() && (s[pos] == 'T' || s[pos] == ' ')) {
    ++pos;
    if (!Digits(s, &pos, 2, &hour) || pos >= s.size() || s[pos++] != ':' ||
        !Digits(s, &pos, 2, &minute)) {
      return std::nullopt;
    }
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!Digits(s, &pos, 2, &second)) return std::nullopt;
      if (pos < s.size() && s[pos] == '.') {
        ++pos;
        int scale = 100, digits = 0;
        while (pos < s.size() && IsDigit(s[pos])) {
          if (digits++ < 3) millis += (s[pos] - '0') * scale;
          scale /= 10;
          ++pos;
        }
        if (digits == 0 || digits > 9) return std::nullopt;
      }
    }
  }
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) {
    return std::nullopt;
  }
  tm.tm_year = year - 1900;
  tm.tm_mon = month - 1;
  tm.tm_mday = day;
  tm.tm_hour = hour;
  tm.tm_min = minute;
  tm.tm_sec = second;
  std::time_t seconds;
  if (pos == s.size()) {
    tm.tm_isdst = -1;
    seconds = std::mktime(&tm);
  } else {
    int offset = 0;
    if (s[pos] == 'Z' && pos + 1 == s.size()) {
      ++pos;
    } else if (s[pos] == '+' || s[pos] == '-') {
      int sign = s[pos++] == '-' ? -1 : 1, oh, om;
      if (!Digits(s, &pos, 2, &oh) || pos >= s.size() || s[pos++] != ':' ||
          !Digits(s, &pos, 2, &om) || pos != s.size() || oh > 18 || om > 59) {
        return std::nullopt;
      }
      offset = sign * (oh * 3600 + om * 60);
    } else {
      return std::nullopt;
    }
    seconds = ::timegm(&tm) - offset;
  }
  // mktime/timegm normalise days past the month's end: refuse 2026-02-31.
  if (tm.tm_mday != day) return std::nullopt;
  return static_cast<int64_t>(seconds) * 1000 + millis;
}

}  // namespace

Result<int64_t> ParseTimeArg(std::string_view text, int64_t now_millis, std::string_view option) {
  if (std::optional<int64_t> d = ParseDuration(text)) return now_millis - *d;
  if (std::optional<int64_t> t = ParseTimestamp(text)) return *t;
  return Status::Invalid(option, " '", std::string(text),
                         "' is neither a duration before now (1d, 2h, 30m, 30s, 500ms) nor an "
                         "ISO-8601 timestamp (2026-11-26T03:00:00, optionally with Z or +02:00)");
}

}  // namespace fjord::cli
