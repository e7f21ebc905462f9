// Java's parsers of text into dates and times, as the string casts of Java Paimon use them:
// BinaryStringUtils.toDate, toTime, toTimestamp; DateTimeUtils.parseDate, parseTime and
// parseTimestampData (a java.time DateTimeFormatter, resolved SMART). Reasons in the errors are
// those Java gives.
#include <charconv>
#include <optional>

#include "fjord/common/calendar.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

// Integer.parseInt of a string of ASCII digits (DateTimeUtils checks them first).
std::optional<int32_t> ParseDigits(std::string_view s) {
  int32_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

// DateTimeUtils.isInteger: not empty, ASCII digits only.
bool IsInteger(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!Digit(c)) return false;
  }
  return true;
}

// A checked substring as Java's String.substring, which throws when begin > end.
std::optional<std::string_view> Sub(std::string_view s, size_t begin, size_t end) {
  if (begin > end || end > s.size()) return std::nullopt;
  return s.substr(begin, end - begin);
}

// An integer field of DateTimeUtils.parseTime: trimmed, digits, parsed.
std::optional<int32_t> TimeField(std::optional<std::string_view> part) {
  if (!part) return std::nullopt;
  std::string_view t = JavaTrim(*part);
  if (!IsInteger(t)) return std::nullopt;
  return ParseDigits(t);
}

// DateTimeUtils.parseFraction: milliseconds from the first three digits (a non-digit counts as
// 0), rounded up when the fourth is '5' or more.
int32_t ParseFraction(std::string_view v) {
  int32_t multiplier = 100, r = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    char c = v[i];
    int32_t x = Digit(c) ? c - '0' : 0;
    r += multiplier * x;
    if (multiplier < 10) {
      if (i + 1 < v.size() && v[i + 1] >= '5') ++r;
      break;
    }
    multiplier /= 10;
  }
  return r;
}

// ---- DateTimeFormatter "yyyy-[MM][M]-[dd][d][ [HH][H]:[mm][m]:[ss][s][.SSSSSSSSS]]" ----

struct Fields {
  std::optional<int64_t> year, month, day, hour, minute, second, nano;
};

class TimestampParser {
 public:
  explicit TimestampParser(std::string_view s) : s_(s) {}

  // Parses the whole text into `f`; false when Java's parse fails.
  bool Parse(Fields* f) {
    if (!Year(f)) return false;
    if (!Literal('-')) return false;
    if (!TwoFields(&f->month)) return false;
    if (!Literal('-')) return false;
    if (!TwoFields(&f->day)) return false;
    size_t mark = pos_;
    Fields time;
    if (Literal(' ') && TwoFields(&time.hour) && Literal(':') && TwoFields(&time.minute) &&
        Literal(':') && TwoFields(&time.second) && Fraction(&time.nano)) {
      f->hour = time.hour;
      f->minute = time.minute;
      f->second = time.second;
      f->nano = time.nano;
    } else {
      pos_ = mark;  // the optional section did not match: parsed without it
    }
    return pos_ == s_.size();  // else "unparsed text found"
  }

 private:
  bool Literal(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  size_t Digits(size_t max) {  // consumes up to `max` digits, returns how many
    size_t n = 0;
    while (n < max && pos_ < s_.size() && Digit(s_[pos_])) {
      ++pos_;
      ++n;
    }
    return n;
  }
  int64_t Value(size_t begin, size_t end) {
    int64_t v = 0;
    for (size_t i = begin; i < end; ++i) v = v * 10 + (s_[i] - '0');
    return v;
  }
  // "yyyy": year-of-era, 4 to 19 digits, SignStyle.EXCEEDS_PAD parsed strictly: exactly 4 digits
  // without a sign, more than 4 after a '+'; a '-' gives no valid year-of-era.
  bool Year(Fields* f) {
    bool plus = Literal('+');
    if (!plus && pos_ < s_.size() && s_[pos_] == '-') return false;
    size_t begin = pos_;
    size_t n = Digits(19);
    if (n < 4 || (plus ? n <= 4 : n > 4)) return false;
    if (n > 9) return false;  // beyond year 999,999,999
    int64_t v = Value(begin, pos_);
    if (v < 1) return false;  // year-of-era 0 is not valid
    f->year = v;
    return true;
  }
  // "[XX][X]": an optional field of exactly two digits, then an optional field of any number of
  // digits (SignStyle.NORMAL: a '-' sign parses, a '+' does not; minus zero does not). Each is
  // an optional section: when it fails (also when the second disagrees with the first, "Conflict
  // found"), nothing of it is consumed. Never fails itself.
  bool TwoFields(std::optional<int64_t>* out) {
    std::optional<int64_t> two;
    if (pos_ + 1 < s_.size() && Digit(s_[pos_]) && Digit(s_[pos_ + 1])) {
      two = Value(pos_, pos_ + 2);
      pos_ += 2;
    }
    *out = two;
    size_t mark = pos_;
    bool negative = Literal('-');
    size_t begin = pos_;
    size_t n = Digits(19);
    bool ok = n > 0 && n <= 18;
    if (ok) {
      int64_t v = Value(begin, pos_);
      if (negative) {
        ok = v != 0;
        v = -v;
      }
      if (two && v != *two) ok = false;
      if (ok) *out = v;
    }
    if (!ok) pos_ = mark;
    return true;
  }
  // appendFraction(NANO_OF_SECOND, 0, 9, true): nothing, or '.' and up to 9 digits.
  bool Fraction(std::optional<int64_t>* out) {
    if (!Literal('.')) return true;
    size_t begin = pos_;
    size_t n = Digits(9);
    int64_t v = Value(begin, pos_);
    for (size_t i = n; i < 9; ++i) v *= 10;
    *out = v;
    return true;
  }

  std::string_view s_;
  size_t pos_ = 0;
};

// Timestamp.fromLocalDateTime of a valid date-time.
JavaTimestamp FromLocalDateTime(int64_t year, int64_t month, int64_t day, int64_t nano_of_day) {
  int64_t epoch_day = DaysFromCivil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  return JavaTimestamp{epoch_day * 86400000 + nano_of_day / 1000000,
                       static_cast<int32_t>(nano_of_day % 1000000)};
}

Status TimestampError(std::string_view s, std::string_view why) {
  return Status::Invalid("DateTimeParseException: Text '", s, "' ", why);
}

}  // namespace

Result<int32_t> ParseJavaDate(std::string_view input) {
  if (IsJavaNumeric(input)) {
    FJORD_ASSIGN_OR_RAISE(int64_t days, ParseJavaInteger(input, TypeRoot::kInt));
    return static_cast<int32_t>(days);
  }
  auto bad = [&] { return Status::Invalid("DateTimeException: For input string: '", input, "'."); };
  std::string_view s = input;
  size_t ws = s.find(' ');
  if (ws != std::string_view::npos && ws > 0) s = s.substr(0, ws);
  size_t h1 = s.find('-');
  std::optional<int32_t> y, m = 1, d = 1;
  auto field = [](std::string_view part) -> std::optional<int32_t> {
    std::string_view t = JavaTrim(part);
    return IsInteger(t) ? ParseDigits(t) : std::nullopt;
  };
  if (h1 == std::string_view::npos) {
    y = field(s);
  } else {
    y = field(s.substr(0, h1));
    size_t h2 = s.find('-', h1 + 1);
    if (h2 == std::string_view::npos) {
      m = field(s.substr(h1 + 1));
    } else {
      m = field(s.substr(h1 + 1, h2 - h1 - 1));
      d = field(s.substr(h2 + 1));
    }
  }
  if (!y || !m || !d) return bad();
  // DateTimeUtils.isIllegalDate (true when the date is valid).
  if (*y < 0 || *y > 9999 || *m < 1 || *m > 12 || *d < 1 || *d > 31) return bad();
  if (*d > static_cast<int32_t>(DaysInMonth(*y, static_cast<unsigned>(*m)))) return bad();
  return static_cast<int32_t>(
      DaysFromCivil(*y, static_cast<unsigned>(*m), static_cast<unsigned>(*d)));
}

Result<int32_t> ParseJavaTime(std::string_view v) {
  if (IsJavaNumeric(v)) {
    FJORD_ASSIGN_OR_RAISE(int64_t millis, ParseJavaInteger(v, TypeRoot::kInt));
    return static_cast<int32_t>(millis);
  }
  auto bad = [&] { return Status::Invalid("DateTimeException: For input string: '", v, "'."); };
  constexpr size_t npos = std::string_view::npos;
  size_t colon1 = v.find(':');
  int32_t operator_sign = -1;
  size_t end = v.size();
  size_t timezone = v.find('-');
  if (timezone == npos) {
    timezone = v.find('+');
    operator_sign = 1;
  }
  std::optional<int32_t> tz_hour = 0, tz_minute = 0, hour, minute = 0, second = 0;
  int32_t milli = 0;
  if (timezone != npos) {
    end = timezone;
    size_t colon3 = v.find(':', timezone);
    if (colon3 == npos) {
      tz_hour = TimeField(Sub(v, timezone + 1, v.size()));
    } else {
      tz_hour = TimeField(Sub(v, timezone + 1, colon3));
      tz_minute = TimeField(Sub(v, colon3 + 1, v.size()));
    }
    if (!tz_hour || !tz_minute) return bad();
  }
  if (colon1 == npos) {
    hour = TimeField(Sub(v, 0, end));
  } else {
    hour = TimeField(Sub(v, 0, colon1));
    size_t colon2 = v.find(':', colon1 + 1);
    if (colon2 == npos) {
      minute = TimeField(Sub(v, colon1 + 1, end));
    } else {
      minute = TimeField(Sub(v, colon1 + 1, colon2));
      size_t dot = v.find('.', colon2);
      if (dot == npos) {
        second = TimeField(Sub(v, colon2 + 1, end));
      } else {
        second = TimeField(Sub(v, colon2 + 1, dot));
        auto fraction = Sub(v, dot + 1, end);
        if (!fraction) return bad();
        milli = ParseFraction(JavaTrim(*fraction));
      }
    }
  }
  if (!hour || !minute || !second) return bad();
  // int arithmetic, wrapping as Java's does.
  uint32_t h = static_cast<uint32_t>(*hour) + static_cast<uint32_t>(operator_sign * *tz_hour);
  uint32_t m = static_cast<uint32_t>(*minute) + static_cast<uint32_t>(operator_sign * *tz_minute);
  uint32_t total = h * 3600000u + m * 60000u + static_cast<uint32_t>(*second) * 1000u +
                   static_cast<uint32_t>(milli);
  return static_cast<int32_t>(total);
}

Result<JavaTimestamp> ParseJavaTimestamp(std::string_view s, int32_t precision,
                                         bool numeric_epoch) {
  if (numeric_epoch && IsJavaNumeric(s)) {
    // BinaryStringUtils.fromMillisToTimestamp: the number counts units of the precision.
    FJORD_ASSIGN_OR_RAISE(int64_t epoch, ParseJavaInteger(s, TypeRoot::kBigInt));
    int64_t millis, nanos;
    switch (precision) {
      case 0:
        millis = static_cast<int64_t>(static_cast<uint64_t>(epoch) * 1000u);
        nanos = 0;
        break;
      case 3:
        millis = epoch;
        nanos = 0;
        break;
      case 6:
        millis = epoch / 1000;
        nanos = epoch % 1000 * 1000;
        break;
      case 9:
        millis = epoch / 1000000;
        nanos = epoch % 1000000;
        break;
      default:
        return Status::Invalid("RuntimeException: Unsupported precision: ", precision);
    }
    if (nanos < 0) {
      nanos += 1000000;
      millis -= 1;
    }
    return JavaTimestamp{millis, static_cast<int32_t>(nanos)};
  }
  Fields f;
  if (!TimestampParser(s).Parse(&f)) return TimestampError(s, "could not be parsed");
  // Parsed.resolve, SMART: a full date clamps its day to the month's length; a time of 24:00:00
  // is midnight of the next day; values out of range are refused.
  int64_t year = *f.year, month = f.month.value_or(1), day = f.day.value_or(1);
  if (month < 1 || month > 12 || day < 1 || day > 31) {
    return TimestampError(s, "could not be parsed: invalid date");
  }
  if (f.month && f.day) {
    day = std::min<int64_t>(day, DaysInMonth(year, static_cast<unsigned>(month)));
  }
  int64_t hour = f.hour.value_or(0), minute = f.minute.value_or(0), second = f.second.value_or(0),
          nano = f.nano.value_or(0);
  bool resolved_time =
      f.hour && !(!f.minute && (f.second || f.nano)) && !(f.minute && !f.second && f.nano);
  int64_t extra_days = 0;
  if (resolved_time && hour == 24 && minute == 0 && second == 0 && nano == 0) {
    hour = 0;
    if (f.month && f.day) extra_days = 1;
  }
  if (day > static_cast<int64_t>(DaysInMonth(year, static_cast<unsigned>(month))) || hour < 0 ||
      hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 59) {
    return TimestampError(s, "could not be parsed: invalid date or time");
  }
  // DateTimeUtils.fromTemporalAccessor: the fraction cut (floored) to the precision.
  if (precision == 0) {
    nano = 0;
  } else if (precision < 9) {
    int64_t unit = 1;
    for (int i = precision; i < 9; ++i) unit *= 10;
    nano = nano / unit * unit;
  }
  JavaTimestamp ts =
      FromLocalDateTime(year, month, day, ((hour * 60 + minute) * 60 + second) * 1000000000 + nano);
  ts.millis += extra_days * 86400000;
  return ts;
}

}  // namespace fjord::evolution
