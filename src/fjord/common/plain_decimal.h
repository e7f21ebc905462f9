// The common form of a decimal's text, [+-]digits[.digits] with at most 18 digits, read in one
// pass: Decimal::FromString's first reading, and the JSON-lines scanner's (inline there).
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/value.h"

namespace fjord {

// The unscaled value of `text` in DECIMAL(precision, scale) when it is of the common form with
// at most `scale` fraction digits and fits the precision; false leaves the text to
// Decimal::FromString's general reading (which gives the same value for every text this takes).
inline bool PlainDecimal(std::string_view text, int32_t precision, int32_t scale,
                         Int128* unscaled) {
  const char* p = text.data();
  const char* const end = p + text.size();
  auto digit = [](char c) { return static_cast<unsigned char>(c - '0') < 10; };
  bool negative = false;
  if (p < end && (*p == '+' || *p == '-')) negative = *p++ == '-';
  // The digits as one integer (wrapped past 19 digits: refused below, at 18).
  uint64_t magnitude = 0;
  const char* integer = p;
  for (; p < end && digit(*p); ++p) magnitude = magnitude * 10 + static_cast<uint64_t>(*p - '0');
  const char* integer_end = p;
  int32_t fraction_digits = 0;
  if (p < end && *p == '.') {
    const char* fraction = ++p;
    for (; p < end && digit(*p); ++p) magnitude = magnitude * 10 + static_cast<uint64_t>(*p - '0');
    fraction_digits = static_cast<int32_t>(p - fraction);
  }
  const auto all_digits = static_cast<int32_t>(integer_end - integer) + fraction_digits;
  if (p != end || all_digits == 0 || all_digits > 18 || fraction_digits > scale) return false;
  while (integer < integer_end && *integer == '0') ++integer;  // not significant
  if (integer_end - integer > precision - scale) return false;
  Int128 v = static_cast<int64_t>(magnitude);
  // Scaled up by whole powers of ten (the scale is at most 38).
  static constexpr int64_t kPowers[] = {1,
                                        10,
                                        100,
                                        1000,
                                        10000,
                                        100000,
                                        1000000,
                                        10000000,
                                        100000000,
                                        1000000000,
                                        10000000000,
                                        100000000000,
                                        1000000000000,
                                        10000000000000,
                                        100000000000000,
                                        1000000000000000,
                                        10000000000000000,
                                        100000000000000000,
                                        1000000000000000000};
  for (int32_t k = scale - fraction_digits; k > 0; k -= 18) v *= kPowers[k > 18 ? 18 : k];
  *unscaled = negative ? -v : v;
  return true;
}

}  // namespace fjord
