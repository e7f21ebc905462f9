// Java's parsers of text as the string casts of Java Paimon use them: BinaryStringUtils.toBoolean,
// toInt, toLong, toByte, toShort, toDate, toTime, toTimestamp; Double.parseDouble and
// Float.parseFloat; new BigDecimal(String); DateTimeUtils.parseDate, parseTime and
// parseTimestampData (a java.time DateTimeFormatter, resolved SMART). Reasons in the errors are
// those Java gives.
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <type_traits>

#include "fjord/common/calendar.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

bool Digit(char c) { return c >= '0' && c <= '9'; }

// String.trim(): every char <= U+0020 off both ends.
std::string_view JavaTrim(std::string_view s) {
  size_t b = 0, e = s.size();
  while (b < e && static_cast<unsigned char>(s[b]) <= ' ') ++b;
  while (e > b && static_cast<unsigned char>(s[e - 1]) <= ' ') --e;
  return s.substr(b, e - b);
}

Status NumberError(std::string_view s, std::string_view reason) {
  return Status::Invalid("NumberFormatException: For input string: '", s, "'. ", reason);
}

// BinaryStringUtils.toInt (I = int32_t) and toLong (I = int64_t).
template <typename I>
Result<I> JavaToInteger(std::string_view s) {
  if (s.empty()) return NumberError(s, "Input is empty.");
  size_t i = 0;
  bool negative = s[0] == '-';
  if (negative || s[0] == '+') {
    ++i;
    if (s.size() == 1) return NumberError(s, "Input has only positive or negative symbol.");
  }
  // Accumulated negatively in I's wrapping arithmetic, exactly as Java does.
  using U = std::make_unsigned_t<I>;
  I result = 0;
  const I stop = std::numeric_limits<I>::min() / 10;
  while (i < s.size()) {
    char b = s[i++];
    if (b == '.') break;
    if (!Digit(b)) return NumberError(s, "Invalid character found.");
    if (result < stop) return NumberError(s, "Overflow.");
    result = static_cast<I>(static_cast<U>(result) * 10u - static_cast<U>(b - '0'));
    if (result > 0) return NumberError(s, "Overflow.");
  }
  for (; i < s.size(); ++i) {
    if (!Digit(s[i])) return NumberError(s, "Invalid character found.");
  }
  if (!negative) {
    result = static_cast<I>(U{0} - static_cast<U>(result));
    if (result < 0) return NumberError(s, "Overflow.");
  }
  return result;
}

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

bool IsJavaNumeric(std::string_view s) {
  if (s.empty()) return false;
  size_t i = s[0] == '-' ? 1 : 0;
  if (i == s.size()) return false;
  for (; i < s.size(); ++i) {
    if (!Digit(s[i])) return false;
  }
  return true;
}

Result<bool> ParseJavaBoolean(std::string_view s) {
  std::string lower(s);
  for (char& c : lower) {
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  }
  for (const char* t : {"t", "true", "y", "yes", "1"}) {
    if (lower == t) return true;
  }
  for (const char* f : {"f", "false", "n", "no", "0"}) {
    if (lower == f) return false;
  }
  return Status::Invalid("Cannot parse '", s, "' as BOOLEAN.");
}

Result<int64_t> ParseJavaInteger(std::string_view s, TypeRoot root) {
  if (root == TypeRoot::kBigInt) return JavaToInteger<int64_t>(s);
  FJORD_ASSIGN_OR_RAISE(int32_t v, JavaToInteger<int32_t>(s));
  if ((root == TypeRoot::kTinyInt && v != static_cast<int8_t>(v)) ||
      (root == TypeRoot::kSmallInt && v != static_cast<int16_t>(v))) {
    return NumberError(s, "Overflow.");
  }
  return int64_t{v};
}

namespace {

// FloatingDecimal.readJavaFormatString's grammar on trimmed text; the text std::from_chars or
// strtod reads, and whether it is hexadecimal. nullopt when Java refuses the text.
struct JavaFloatText {
  bool negative = false;
  bool nan = false, infinity = false, hex = false;
  std::string body;  // digits[.digits][e±digits] or hex digits[.hex]p±digits, without sign
};

std::optional<JavaFloatText> ScanJavaFloat(std::string_view in) {
  std::string_view s = JavaTrim(in);
  JavaFloatText out;
  size_t i = 0;
  if (s.empty()) return std::nullopt;
  if (s[0] == '-' || s[0] == '+') {
    out.negative = s[0] == '-';
    ++i;
  }
  std::string_view rest = s.substr(i);
  if (rest == "NaN") {
    out.nan = true;
    return out;
  }
  if (rest == "Infinity") {
    out.infinity = true;
    return out;
  }
  if (rest.size() > 1 && rest[0] == '0' && (rest[1] == 'x' || rest[1] == 'X')) {
    // 0x(hex+ .? | hex* . hex+) [pP] [+-]? digits+ [fFdD]?
    size_t j = 2, mantissa_digits = 0;
    auto hexdigit = [](char c) {
      return Digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    };
    while (j < rest.size() && hexdigit(rest[j])) ++j, ++mantissa_digits;
    if (j < rest.size() && rest[j] == '.') {
      ++j;
      while (j < rest.size() && hexdigit(rest[j])) ++j, ++mantissa_digits;
    }
    if (mantissa_digits == 0 || j >= rest.size() || (rest[j] != 'p' && rest[j] != 'P')) {
      return std::nullopt;
    }
    size_t p = j++;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < rest.size() && Digit(rest[j])) ++j, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
    if (j < rest.size() && !(j + 1 == rest.size() &&
                             std::string_view("fFdD").find(rest[j]) != std::string_view::npos)) {
      return std::nullopt;
    }
    out.hex = true;
    out.body =
        std::string(rest.substr(2, p - 2)) + "p" + std::string(rest.substr(p + 1, j - p - 1));
    return out;
  }
  size_t j = 0, digits = 0;
  while (j < rest.size() && Digit(rest[j])) ++j, ++digits;
  if (j < rest.size() && rest[j] == '.') {
    ++j;
    while (j < rest.size() && Digit(rest[j])) ++j, ++digits;
  }
  if (digits == 0) return std::nullopt;
  if (j < rest.size() && (rest[j] == 'e' || rest[j] == 'E')) {
    ++j;
    if (j < rest.size() && (rest[j] == '+' || rest[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < rest.size() && Digit(rest[j])) ++j, ++exp_digits;
    if (exp_digits == 0) return std::nullopt;
  }
  size_t end = j;
  if (j < rest.size() &&
      !(j + 1 == rest.size() && std::string_view("fFdD").find(rest[j]) != std::string_view::npos)) {
    return std::nullopt;
  }
  out.body = std::string(rest.substr(0, end));
  return out;
}

template <typename F>
Result<F> ParseJavaFloating(std::string_view s) {
  std::optional<JavaFloatText> t = ScanJavaFloat(s);
  if (!t) return Status::Invalid("NumberFormatException: For input string: \"", s, "\"");
  F v;
  if (t->nan) {
    v = std::numeric_limits<F>::quiet_NaN();
  } else if (t->infinity) {
    v = std::numeric_limits<F>::infinity();
  } else {
    const char* b = t->body.data();
    const char* e = b + t->body.size();
    auto r = std::from_chars(b, e, v, t->hex ? std::chars_format::hex : std::chars_format::general);
    if (r.ec == std::errc::result_out_of_range) {
      // Beyond the range: strtod / strtof give the correctly rounded infinity or zero.
      std::string text = (t->hex ? "0x" : "") + t->body;
      if constexpr (std::is_same_v<F, float>) {
        v = std::strtof(text.c_str(), nullptr);
      } else {
        v = std::strtod(text.c_str(), nullptr);
      }
    } else if (r.ec != std::errc() || r.ptr != e) {
      return Status::Invalid("NumberFormatException: For input string: \"", s, "\"");
    }
  }
  return t->negative ? -v : v;
}

}  // namespace

Result<double> ParseJavaDouble(std::string_view s) { return ParseJavaFloating<double>(s); }
Result<float> ParseJavaFloat(std::string_view s) { return ParseJavaFloating<float>(s); }

Result<BigDecimal> ParseJavaBigDecimal(std::string_view s) {
  auto bad = [&] {
    return Status::Invalid("NumberFormatException: Character array is not a valid decimal: '", s,
                           "'");
  };
  BigDecimal bd;
  size_t i = 0;
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) bd.negative = s[i++] == '-';
  std::string digits;
  int64_t fraction_digits = 0;
  bool dot = false;
  for (; i < s.size(); ++i) {
    char c = s[i];
    if (Digit(c)) {
      digits.push_back(c);
      if (dot) ++fraction_digits;
    } else if (c == '.' && !dot) {
      dot = true;
    } else {
      break;
    }
  }
  if (digits.empty()) return bad();
  int64_t exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool neg = false;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) neg = s[i++] == '-';
    size_t begin = i;
    while (i < s.size() && Digit(s[i])) {
      exponent = exponent * 10 + (s[i] - '0');
      if (exponent > std::numeric_limits<int32_t>::max()) return bad();
      ++i;
    }
    if (i == begin) return bad();
    if (neg) exponent = -exponent;
  }
  if (i != s.size()) return bad();
  size_t nz = digits.find_first_not_of('0');
  bd.digits = nz == std::string::npos ? "0" : digits.substr(nz);
  if (bd.digits == "0") bd.negative = false;
  bd.exponent = exponent - fraction_digits;
  return bd;
}

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
