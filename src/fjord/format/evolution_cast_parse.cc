// Java's parsers of text into booleans and numbers, as the string casts of Java Paimon use them:
// BinaryStringUtils.toBoolean, toInt, toLong, toByte, toShort; Double.parseDouble and
// Float.parseFloat; new BigDecimal(String). Reasons in the errors are those Java gives. Dates and
// times: evolution_cast_parse_time.cc.
#include <charconv>
#include <cstdlib>
#include <limits>
#include <optional>
#include <type_traits>

#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

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

}  // namespace fjord::evolution
