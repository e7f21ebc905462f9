#include "fjord/common/float_format.h"

#include <charconv>
#include <cmath>

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

template <typename T>
std::string JavaText(T v) {
  if (std::isnan(v) || std::isinf(v)) return Text(v);
  if (v == 0) return std::signbit(v) ? "-0.0" : "0.0";
  std::string sign = v < 0 ? "-" : "";
  T a = std::fabs(v);
  std::string digits;
  int point;
  DigitsAndPoint(a, &digits, &point);
  if (digits.size() == 1) {
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
