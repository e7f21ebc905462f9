#include "fjord/format/text_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>
#include <limits>

#include "fjord/common/calendar.h"
#include "fjord/common/strings.h"
#include "fjord/format/json_values.h"

namespace fjord {

namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }

bool AllDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (!IsDigit(c)) return false;
  }
  return true;
}

int64_t Digits(std::string_view s) {
  int64_t v = 0;
  for (char c : s) v = v * 10 + (c - '0');
  return v;
}

bool HasBlankEdge(std::string_view s) {
  auto blank = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  return !s.empty() && (blank(s.front()) || blank(s.back()));
}

Status Quoted(std::string_view text, std::string_view what) {
  return Status::Invalid("'", text, "' is not ", what);
}

// Code points of valid UTF-8 `s`, or -1 when `s` is not valid UTF-8.
int64_t Utf8Length(std::string_view s) {
  // ASCII (the usual text) eight bytes at a time, the last eight (or four) overlapping.
  constexpr uint64_t kTops = 0x8080808080808080ull;
  size_t ascii = 0;
  if (s.size() >= 8) {
    uint64_t w;
    for (; ascii + 8 <= s.size(); ascii += 8) {
      std::memcpy(&w, s.data() + ascii, 8);
      if ((w & kTops) != 0) break;
    }
    if (ascii + 8 > s.size()) {
      std::memcpy(&w, s.data() + s.size() - 8, 8);
      if ((w & kTops) == 0) ascii = s.size();
    }
  } else if (s.size() >= 4) {
    uint32_t a, b;
    std::memcpy(&a, s.data(), 4);
    std::memcpy(&b, s.data() + s.size() - 4, 4);
    if (((a | b) & 0x80808080u) == 0) ascii = s.size();
  }
  while (ascii < s.size() && static_cast<unsigned char>(s[ascii]) < 0x80) ++ascii;
  if (ascii == s.size()) return static_cast<int64_t>(s.size());
  auto n = static_cast<int64_t>(ascii);
  size_t i = ascii;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80           ? 1
                 : (c >> 5) == 0x6  ? 2
                 : (c >> 4) == 0xE  ? 3
                 : (c >> 3) == 0x1E ? 4
                                    : 0;
    if (len == 0 || i + len > s.size()) return -1;
    uint32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (size_t k = 1; k < len; ++k) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2) return -1;
      cp = (cp << 6) | (d & 0x3F);
    }
    // Overlong forms, surrogates and values above U+10FFFF are not UTF-8.
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) {
      return -1;
    }
    i += len;
    ++n;
  }
  return n;
}

// ".fffffffff" (1 to 9 digits) after a time of day: nanoseconds, with the digits beyond
// `keep_digits` required to be zeros.
// `type` and `precision` name the type in errors ("TIME", 3: TIME(3)).
Result<int64_t> ParseFraction(std::string_view whole, std::string_view frac, int32_t keep_digits,
                              std::string_view type, int32_t precision) {
  if (frac.empty() || frac.size() > 9 || !AllDigits(frac)) {
    return Status::Invalid("'", whole, "' has a bad fraction of a second (1 to 9 digits)");
  }
  for (size_t i = static_cast<size_t>(std::max(keep_digits, 0)); i < frac.size(); ++i) {
    if (frac[i] != '0') {
      return Status::Invalid("'", whole, "' has more fraction digits than ", type, "(", precision,
                             ") holds (", keep_digits, ")");
    }
  }
  int64_t f = Digits(frac);
  for (size_t i = frac.size(); i < 9; ++i) f *= 10;
  return f;
}

// "HH:MM:SS[.f]" to nanoseconds of the day.
Result<int64_t> ParseTimeOfDay(std::string_view s, std::string_view whole, int32_t keep_digits,
                               std::string_view type, int32_t precision) {
  if (s.size() < 8 || s[2] != ':' || s[5] != ':' || !AllDigits(s.substr(0, 2)) ||
      !AllDigits(s.substr(3, 2)) || !AllDigits(s.substr(6, 2)) || (s.size() > 8 && s[8] != '.')) {
    return Quoted(whole, "a time HH:MM:SS[.fffffffff]");
  }
  int64_t h = Digits(s.substr(0, 2)), mi = Digits(s.substr(3, 2)), se = Digits(s.substr(6, 2));
  if (h > 23 || mi > 59 || se > 59) {
    return Status::Invalid("'", whole, "' is not a time of day (00:00:00 to 23:59:59.999999999)");
  }
  int64_t nanos = 0;
  if (s.size() > 8) {
    FJORD_ASSIGN_OR_RAISE(nanos, ParseFraction(whole, s.substr(9), keep_digits, type, precision));
  }
  return ((h * 60 + mi) * 60 + se) * 1000000000 + nanos;
}

Result<int32_t> ParseDatePart(std::string_view s, std::string_view whole) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-' || !AllDigits(s.substr(0, 4)) ||
      !AllDigits(s.substr(5, 2)) || !AllDigits(s.substr(8, 2))) {
    return Quoted(whole, "a date YYYY-MM-DD");
  }
  int64_t y = Digits(s.substr(0, 4)), m = Digits(s.substr(5, 2)), d = Digits(s.substr(8, 2));
  if (m < 1 || m > 12) return Status::Invalid("'", whole, "' has no month ", m);
  unsigned days_in_month = DaysInMonth(y, static_cast<unsigned>(m));
  if (d < 1 || d > days_in_month) {
    return Status::Invalid("'", whole, "' is not a date: ", s.substr(0, 7), " has ", days_in_month,
                           " days");
  }
  return static_cast<int32_t>(DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d)));
}

// [+-]digits[.digits][(e|E)[+-]digits], or [+-].digits...
bool IsDecimalNumber(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && IsDigit(s[i])) ++i, ++digits;
  }
  if (digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    size_t exp_digits = 0;
    while (i < s.size() && IsDigit(s[i])) ++i, ++exp_digits;
    if (exp_digits == 0) return false;
  }
  return i == s.size();
}

// NaN, Infinity, -Infinity (and +Infinity), as `fjord cat` and Java print them.
bool SpecialFloat(std::string_view s, double* out) {
  if (s == "NaN") {
    *out = std::numeric_limits<double>::quiet_NaN();
  } else if (s == "Infinity" || s == "+Infinity") {
    *out = std::numeric_limits<double>::infinity();
  } else if (s == "-Infinity") {
    *out = -std::numeric_limits<double>::infinity();
  } else {
    return false;
  }
  return true;
}

std::string_view WithoutPlus(std::string_view s) {
  return !s.empty() && s[0] == '+' ? s.substr(1) : s;
}

}  // namespace

Result<bool> ParseBooleanText(std::string_view text) {
  std::string lower;
  for (char c : text) lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  if (lower == "true" || lower == "t" || lower == "yes" || lower == "y" || lower == "1")
    return true;
  if (lower == "false" || lower == "f" || lower == "no" || lower == "n" || lower == "0")
    return false;
  return Quoted(text, "a BOOLEAN (true/false, t/f, yes/no, y/n, 1/0)");
}

Result<int64_t> ParseIntegerText(std::string_view text, const DataType& type) {
  int64_t lo = INT64_MIN, hi = INT64_MAX;
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      lo = INT8_MIN, hi = INT8_MAX;
      break;
    case TypeRoot::kSmallInt:
      lo = INT16_MIN, hi = INT16_MAX;
      break;
    case TypeRoot::kInt:
      lo = INT32_MIN, hi = INT32_MAX;
      break;
    default:
      break;
  }
  std::string_view digits = WithoutPlus(text);
  if (digits.size() < text.size() && !digits.empty() && digits[0] == '-') {
    return Quoted(text, "an integer");
  }
  std::string_view unsigned_digits =
      !digits.empty() && digits[0] == '-' ? digits.substr(1) : digits;
  if (!AllDigits(unsigned_digits)) return Quoted(text, "an integer");
  int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (ec != std::errc() || p != digits.data() + digits.size() || v < lo || v > hi) {
    return Status::Invalid("'", text, "' is out of range for ", type.ToString(), " (", lo, " to ",
                           hi, ")");
  }
  return v;
}

Result<double> ParseDoubleText(std::string_view text) {
  double d;
  if (SpecialFloat(text, &d)) return d;
  if (!IsDecimalNumber(text)) return Quoted(text, "a number");
  std::string_view s = WithoutPlus(text);
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
  if (ec == std::errc::result_out_of_range) {
    // Underflow rounds to zero as Java's parser does; overflow is refused.
    bool tiny = false;
    size_t e = s.find_first_of("eE");
    tiny = e != std::string_view::npos && e + 1 < s.size() && s[e + 1] == '-';
    if (!tiny) return Status::Invalid("'", text, "' is out of range for DOUBLE");
    return s[0] == '-' ? -0.0 : 0.0;
  }
  if (ec != std::errc() || p != s.data() + s.size()) return Quoted(text, "a number");
  return d;
}

Result<float> ParseFloatText(std::string_view text) {
  double special;
  if (SpecialFloat(text, &special)) return static_cast<float>(special);
  if (!IsDecimalNumber(text)) return Quoted(text, "a number");
  std::string_view s = WithoutPlus(text);
  float f;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), f);
  if (ec == std::errc::result_out_of_range) {
    FJORD_ASSIGN_OR_RAISE(double d, ParseDoubleText(text));
    if (std::fabs(d) > 1) return Status::Invalid("'", text, "' is out of range for FLOAT");
    return static_cast<float>(d);
  }
  if (ec != std::errc() || p != s.data() + s.size()) return Quoted(text, "a number");
  return f;
}

Result<float> NarrowToFloat(double value) {
  if (std::isfinite(value) && std::fabs(value) > std::numeric_limits<float>::max()) {
    // Values that round to FLT_MAX are in range; beyond that the float would be infinite.
    auto f = static_cast<float>(value);
    if (std::isinf(f)) return Status::Invalid(value, " is out of range for FLOAT");
    return f;
  }
  return static_cast<float>(value);
}

Result<int32_t> ParseDateText(std::string_view text) { return ParseDatePart(text, text); }

Result<int32_t> ParseTimeText(std::string_view text, int32_t precision) {
  // Paimon keeps TIME in milliseconds whatever the precision.
  FJORD_ASSIGN_OR_RAISE(int64_t nanos,
                        ParseTimeOfDay(text, text, std::min(precision, 3), "TIME", precision));
  return static_cast<int32_t>(nanos / 1000000);
}

namespace {

// Whether the bytes of `w` that `mask` picks (0xff each) are ASCII digits, the bytes it leaves
// being none above 0xf9 (no carry out of them): a digit is 0x3_ and stays 0x3_ plus six.
bool DigitBytes(uint64_t w, uint64_t mask) {
  constexpr uint64_t kHigh = 0xf0f0f0f0f0f0f0f0ull;
  const uint64_t threes = 0x3030303030303030ull & mask;
  return (w & kHigh & mask) == threes && ((w + 0x0606060606060606ull) & kHigh & mask) == threes;
}

}  // namespace

bool ParsePlainTimestamp(std::string_view s, int32_t precision, Timestamp* out) {
  if (precision > 6 || s.size() < 19 || s[4] != '-' || s[7] != '-' ||
      (s[10] != 'T' && s[10] != ' ') || s[13] != ':' || s[16] != ':') {
    return false;
  }
  // The separators are known: the digits of the first sixteen bytes checked eight at a time.
  uint64_t w0, w1;
  std::memcpy(&w0, s.data(), 8);
  std::memcpy(&w1, s.data() + 8, 8);
  if (!DigitBytes(w0, 0x00ffff00ffffffffull) || !DigitBytes(w1, 0xffff00ffff00ffffull) ||
      !IsDigit(s[17]) || !IsDigit(s[18])) {
    return false;
  }
  auto two = [&](size_t i) { return (s[i] - '0') * 10 + (s[i + 1] - '0'); };
  const int m = two(5), d = two(8), h = two(11), mi = two(14), se = two(17);
  if (m < 1 || m > 12 || d < 1 || h > 23 || mi > 59 || se > 59) return false;
  const int64_t year = two(0) * 100 + two(2);
  if (static_cast<unsigned>(d) > DaysInMonth(year, static_cast<unsigned>(m))) return false;
  int64_t nanos = 0;
  if (s.size() > 19) {
    const size_t digits = s.size() - 20;
    if (s[19] != '.' || digits < 1 || digits > static_cast<size_t>(std::max(precision, 0))) {
      return false;
    }
    for (size_t i = 20; i < s.size(); ++i) {
      if (!IsDigit(s[i])) return false;
      nanos = nanos * 10 + (s[i] - '0');
    }
    constexpr int64_t kScale[] = {1000000000, 100000000, 10000000, 1000000, 100000,
                                  10000,      1000,      100,      10,      1};
    nanos *= kScale[digits];
  }
  nanos += ((h * 60 + mi) * 60 + se) * int64_t{1000000000};
  const int64_t days = DaysFromCivil(year, static_cast<unsigned>(m), static_cast<unsigned>(d));
  *out = Timestamp{days * 86400000 + nanos / 1000000, static_cast<int32_t>(nanos % 1000000)};
  return true;
}

Result<Timestamp> ParseTimestampText(std::string_view text, int32_t precision, bool ltz) {
  std::string_view s = text;
  const std::string_view type = ltz ? "TIMESTAMP_LTZ" : "TIMESTAMP";
  if (ltz) {
    if (s.empty() || s.back() != 'Z') {
      return Quoted(text, "a UTC timestamp YYYY-MM-DD HH:MM:SS[.f]Z (ending in Z)");
    }
    s.remove_suffix(1);
  }
  if (Timestamp ts; ParsePlainTimestamp(s, precision, &ts)) return ts;
  if (s.size() != 10 && (s.size() < 19 || (s[10] != 'T' && s[10] != ' '))) {
    return Quoted(text, "a timestamp YYYY-MM-DD[ HH:MM:SS[.fffffffff]]");
  }
  FJORD_ASSIGN_OR_RAISE(int32_t days, ParseDatePart(s.substr(0, 10), text));
  int64_t nanos = 0;
  if (s.size() > 10) {
    FJORD_ASSIGN_OR_RAISE(nanos, ParseTimeOfDay(s.substr(11), text, precision, type, precision));
  }
  Timestamp ts{int64_t{days} * 86400000 + nanos / 1000000, static_cast<int32_t>(nanos % 1000000)};
  if (precision > 6) {
    // Held as nanoseconds since 1970 in 64 bits: 1677-09-21 to 2262-04-11.
    Int128 total = static_cast<Int128>(ts.millis) * 1000000 + ts.nanos_of_milli;
    if (total < INT64_MIN || total > INT64_MAX) {
      return Status::Invalid("'", text, "' is out of range for ", type, "(", precision,
                             ") (1677-09-21 00:12:43.145224192 to 2262-04-11 23:47:16.854775807)");
    }
  }
  return ts;
}

Result<std::string> Base64DecodeText(std::string_view text) {
  auto bad = [&] { return Quoted(text, "base64 (RFC 4648, padded with '=')"); };
  if (text.size() % 4 != 0) return bad();
  size_t padding = 0;
  while (padding < 2 && padding < text.size() && text[text.size() - 1 - padding] == '=') ++padding;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  uint32_t acc = 0;
  int bits = 0;
  for (size_t i = 0; i + padding < text.size(); ++i) {
    int v = Base64Digit(text[i]);
    if (v < 0) return bad();
    acc = (acc << 6) | static_cast<uint32_t>(v);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xFF));
    }
  }
  // The bits left over by the padding must be zeros (the canonical encoding).
  if (bits > 0 && (acc & ((1u << bits) - 1)) != 0) return bad();
  return out;
}

Status CheckLength(std::string_view value, const DataType& type) {
  bool text = type.root() == TypeRoot::kChar || type.root() == TypeRoot::kVarChar;
  if (text) {
    int64_t chars = Utf8Length(value);
    if (chars < 0) return Status::Invalid("the string is not valid UTF-8");
    if (chars > type.length()) {
      return Status::Invalid("'", value, "' has ", chars, " characters, more than ",
                             type.ToString(), " holds");
    }
    return Status::OK();
  }
  if ((type.root() == TypeRoot::kBinary || type.root() == TypeRoot::kVarBinary) &&
      static_cast<int64_t>(value.size()) > type.length()) {
    return Status::Invalid("a value of ", value.size(), " bytes is longer than ", type.ToString());
  }
  return Status::OK();
}

Status CheckNoBlankEdges(std::string_view text, const DataType& type) {
  if (HasBlankEdge(text)) {
    return Status::Invalid("'", text, "' has blanks around it, which a ", type.ToString(),
                           " may not have");
  }
  return Status::OK();
}

Result<Value> ValueFromText(std::string_view text, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      FJORD_RETURN_NOT_OK(CheckLength(text, type));
      return Value(std::string(text));
    default:
      break;
  }
  FJORD_RETURN_NOT_OK(CheckNoBlankEdges(text, type));
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      FJORD_ASSIGN_OR_RAISE(bool b, ParseBooleanText(text));
      return Value(b);
    }
    case TypeRoot::kTinyInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, ParseIntegerText(text, type));
      return Value(static_cast<int8_t>(v));
    }
    case TypeRoot::kSmallInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, ParseIntegerText(text, type));
      return Value(static_cast<int16_t>(v));
    }
    case TypeRoot::kInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, ParseIntegerText(text, type));
      return Value(static_cast<int32_t>(v));
    }
    case TypeRoot::kBigInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, ParseIntegerText(text, type));
      return Value(v);
    }
    case TypeRoot::kFloat: {
      FJORD_ASSIGN_OR_RAISE(float v, ParseFloatText(text));
      return Value(v);
    }
    case TypeRoot::kDouble: {
      FJORD_ASSIGN_OR_RAISE(double v, ParseDoubleText(text));
      return Value(v);
    }
    case TypeRoot::kDecimal: {
      FJORD_ASSIGN_OR_RAISE(Decimal d, Decimal::FromString(text, type.precision(), type.scale()));
      return Value(d);
    }
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant: {
      FJORD_ASSIGN_OR_RAISE(std::string bytes, Base64DecodeText(text));
      FJORD_RETURN_NOT_OK(CheckLength(bytes, type));
      return Value(std::move(bytes));
    }
    case TypeRoot::kDate: {
      FJORD_ASSIGN_OR_RAISE(int32_t days, ParseDateText(text));
      return Value(days);
    }
    case TypeRoot::kTime: {
      FJORD_ASSIGN_OR_RAISE(int32_t ms, ParseTimeText(text, type.precision()));
      return Value(ms);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FJORD_ASSIGN_OR_RAISE(
          Timestamp ts,
          ParseTimestampText(text, type.precision(), type.root() == TypeRoot::kTimestampLtz));
      return Value(ts);
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow: {
      FJORD_ASSIGN_OR_RAISE(Json json, ParseExactJson(text, ""));
      return ValueFromJson(json, type);
    }
    default:
      break;
  }
  return Status::Invalid("no text form for ", type.ToString());
}

}  // namespace fjord
