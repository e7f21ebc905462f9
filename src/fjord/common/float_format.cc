#include "fjord/common/float_format.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace fjord {

namespace {

template <typename T>
std::string Digits(T v, bool scientific) {
  char buf[64];
  auto r = scientific ? std::to_chars(buf, buf + sizeof(buf), v, std::chars_format::scientific)
                      : std::to_chars(buf, buf + sizeof(buf), v);
  return std::string(buf, r.ptr);
}

template <typename T>
std::string Text(T v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v < 0 ? "-Infinity" : "Infinity";
  return Digits(v, false);
}

// Shortest digits and decimal exponent of a finite non-zero value: value = 0.d1d2... * 10^point.
template <typename T>
void DigitsAndPoint(T v, std::string* digits, int* point) {
  std::string s = Digits(v, true);  // "d.ddde+x"
  size_t e = s.find('e');
  int exp = std::stoi(s.substr(e + 1));
  digits->clear();
  for (char c : s.substr(0, e)) {
    if (c >= '0' && c <= '9') *digits += c;
  }
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  *point = exp + 1;  // d1.d2... * 10^exp  ==  0.d1d2... * 10^(exp+1)
}

// JDK 8..18's Float/Double.toString (FloatingDecimal) print an integral value below 2^63
// from its exact integer: when the value is beyond the type's significant bits, as many low
// decimal digits as 2^(excess bits - 1) has, minus one, are dropped with rounding half up; then
// trailing zeros go. FLOAT -218289184 prints -2.18289184E8, where the shortest digits are
// 2.1828918E8. Returns false for other values.
template <typename T>
bool JavaIntegralDigits(T a, std::string* digits, int* point) {
  if (a < 1 || a >= T(9223372036854775808.0) || std::trunc(a) != a) return false;
  int exp2;
  std::frexp(a, &exp2);
  int bin_exp = exp2 - 1;                            // a = 1.xxx * 2^bin_exp
  int significant = std::numeric_limits<T>::digits;  // 24 or 53
  uint64_t value = static_cast<uint64_t>(a);
  int dropped = 0;
  if (bin_exp > significant) {
    // floor(log10(2^(bin_exp - significant - 1))), 0 below 2^2
    int p2 = bin_exp - significant - 1;
    uint64_t pow2 = p2 > 1 ? uint64_t{1} << p2 : 1;
    while (pow2 >= 10) {
      pow2 /= 10;
      ++dropped;
    }
  }
  if (dropped > 0) {
    uint64_t pow10 = 1;
    for (int i = 0; i < dropped; ++i) pow10 *= 10;
    uint64_t residue = value % pow10;
    value /= pow10;
    if (residue >= pow10 / 2) ++value;
  }
  *digits = std::to_string(value);
  *point = static_cast<int>(digits->size()) + dropped;
  while (digits->size() > 1 && digits->back() == '0') digits->pop_back();
  return true;
}

template <typename T>
std::string JavaText(T v) {
  if (std::isnan(v) || std::isinf(v)) return Text(v);
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string sign = v < 0 ? "-" : "";
  T a = std::fabs(v);
  std::string digits;
  int point;
  if (JavaIntegralDigits(a, &digits, &point)) {
    // as JDK 8..18 print integral values (JDK 19+ prints the shortest digits)
  } else if (DigitsAndPoint(a, &digits, &point); digits.size() == 1) {
    // Java always prints a digit after the point and picks the two digits nearest the exact
    // value: Float.MIN_VALUE is 1.4E-45 (not 1.0E-45), Double.MIN_VALUE 4.9E-324.
    char buf[64];
    auto r = std::to_chars(buf, buf + sizeof(buf), a, std::chars_format::scientific, 1);
    std::string s(buf, r.ptr);  // "d.de+x"
    size_t e = s.find('e');
    digits = s.substr(0, 1) + s.substr(2, e - 2);
    point = std::stoi(s.substr(e + 1)) + 1;
    while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  }
  if (a >= T(1e-3) && a < T(1e7)) {
    std::string out;
    if (point <= 0) {
      out = "0." + std::string(static_cast<size_t>(-point), '0') + digits;
    } else if (static_cast<size_t>(point) >= digits.size()) {
      out = digits + std::string(static_cast<size_t>(point) - digits.size(), '0') + ".0";
    } else {
      out = digits.substr(0, static_cast<size_t>(point)) + "." +
            digits.substr(static_cast<size_t>(point));
    }
    return sign + out;
  }
  std::string out = digits.substr(0, 1) + "." + (digits.size() > 1 ? digits.substr(1) : "0");
  return sign + out + "E" + std::to_string(point - 1);
}

}  // namespace

std::string ShortestFloatDigits(double value, double scientific_from) {
  return Digits(value, scientific_from > 0 && std::fabs(value) >= scientific_from);
}
std::string ShortestFloatDigits(float value, double scientific_from) {
  return Digits(value,
                scientific_from > 0 && std::fabs(static_cast<double>(value)) >= scientific_from);
}
std::string ShortestFloatText(double value) { return Text(value); }
std::string ShortestFloatText(float value) { return Text(value); }
std::string JavaDoubleText(double value) { return JavaText(value); }
std::string JavaFloatText(float value) { return JavaText(value); }

}  // namespace fjord
