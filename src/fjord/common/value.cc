#include "fjord/value.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <type_traits>

#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/common/plain_decimal.h"

namespace fjord {

namespace {

__extension__ typedef unsigned __int128 UInt128;

constexpr int kMaxDigits = 38;

// 10^0 .. 10^38; 10^38 < 2^127, so every entry fits a signed 128-bit integer.
constexpr auto kPow10 = [] {
  struct Table {
    UInt128 v[kMaxDigits + 1];
  } t{};
  UInt128 p = 1;
  for (int i = 0; i <= kMaxDigits; ++i) {
    t.v[i] = p;
    p *= 10;
  }
  return t;
}();

UInt128 Magnitude(Int128 v) { return v < 0 ? UInt128(0) - UInt128(v) : UInt128(v); }

std::string U128ToString(UInt128 v) {
  char buf[48];
  char* end = buf + sizeof(buf);
  char* p = end;
  do {
    *--p = static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  } while (v != 0);
  return std::string(p, end);
}

bool IsSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'; }

// Java's Float.compare / Double.compare: numeric order, then raw bits after collapsing NaNs, so
// -0.0 < 0.0 and NaN is above +Infinity and equal to itself.
template <typename F>
int CompareFloating(F a, F b) {
  if (a < b) return -1;
  if (a > b) return 1;
  using Bits = std::conditional_t<sizeof(F) == 4, int32_t, int64_t>;
  Bits ba = std::isnan(a) ? std::bit_cast<Bits>(std::numeric_limits<F>::quiet_NaN())
                          : std::bit_cast<Bits>(a);
  Bits bb = std::isnan(b) ? std::bit_cast<Bits>(std::numeric_limits<F>::quiet_NaN())
                          : std::bit_cast<Bits>(b);
  return ba == bb ? 0 : (ba < bb ? -1 : 1);
}

template <typename T>
int Cmp(const T& a, const T& b) {
  return a < b ? -1 : (b < a ? 1 : 0);
}

int CompareDecimals(const Decimal& a, const Decimal& b) {
  if (a.scale == b.scale) return Cmp(a.unscaled, b.unscaled);
  // Split into integral and fractional parts (both truncated toward zero, so they share the
  // value's sign) and compare lexicographically; this never overflows, unlike rescaling.
  auto split = [](const Decimal& d, int32_t common_scale, Int128* whole, Int128* frac) {
    int32_t s = std::clamp(d.scale, 0, kMaxDigits);
    Int128 p = static_cast<Int128>(kPow10.v[s]);
    *whole = d.unscaled / p;
    *frac = (d.unscaled % p) * static_cast<Int128>(kPow10.v[common_scale - s]);
  };
  int32_t common = std::clamp(std::max(a.scale, b.scale), 0, kMaxDigits);
  Int128 wa, fa, wb, fb;
  split(a, common, &wa, &fa);
  split(b, common, &wb, &fb);
  if (int c = Cmp(wa, wb); c != 0) return c;
  return Cmp(fa, fb);
}

int StorageRank(const Value& v) { return static_cast<int>(v.storage().index()); }

bool IsIntegral(const Value& v) {
  return v.is<bool>() || v.is<int8_t>() || v.is<int16_t>() || v.is<int32_t>() || v.is<int64_t>();
}

const DataType* ChildType(const DataType& type, size_t i) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kVector:
      return type.element().get();
    case TypeRoot::kRow:
      return i < type.fields().size() ? type.fields()[i].type.get() : nullptr;
    default:
      return nullptr;
  }
}

std::string Pad(int64_t v, int width) {
  std::string s = std::to_string(v);
  if (static_cast<int>(s.size()) < width) s.insert(0, width - s.size(), '0');
  return s;
}

std::string FormatDate(int64_t days) {
  CivilDate date = CivilFromDays(days);
  std::string out = date.year < 0 ? "-" + Pad(-date.year, 4) : Pad(date.year, 4);
  return out + "-" + Pad(date.month, 2) + "-" + Pad(date.day, 2);
}

// Fractional digits: at least `min_digits`, more if needed to show the value exactly.
std::string Fraction(int64_t nanos_of_second, int min_digits) {
  std::string f = Pad(nanos_of_second, 9);
  size_t keep = f.size();
  while (keep > 0 && f[keep - 1] == '0') --keep;
  keep = std::max<size_t>(keep, static_cast<size_t>(std::clamp(min_digits, 0, 9)));
  return keep == 0 ? "" : "." + f.substr(0, keep);
}

std::string FormatTimeOfDay(int64_t millis_of_day, int64_t nanos_of_second, int precision) {
  int64_t secs = millis_of_day / 1000;
  return Pad(secs / 3600, 2) + ":" + Pad(secs / 60 % 60, 2) + ":" + Pad(secs % 60, 2) +
         Fraction(nanos_of_second, precision);
}

std::string FormatTimestamp(const Timestamp& ts, int precision) {
  int64_t days = ts.millis / 86400000;
  int64_t ms = ts.millis % 86400000;
  if (ms < 0) {
    ms += 86400000;
    days -= 1;
  }
  int64_t nanos_of_second = (ms % 1000) * 1000000 + ts.nanos_of_milli;
  return FormatDate(days) + " " + FormatTimeOfDay(ms, nanos_of_second, precision);
}

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

std::string Hex(const std::string& s) {
  static constexpr char kDigits[] = "0123456789ABCDEF";
  std::string out = "X'";
  for (unsigned char c : s) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out + "'";
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Decimal

std::string Decimal::ToString() const {
  bool negative = unscaled < 0;
  std::string digits = U128ToString(Magnitude(unscaled));
  if (scale > 0) {
    size_t s = static_cast<size_t>(scale);
    if (digits.size() <= s) digits.insert(0, s - digits.size() + 1, '0');
    digits.insert(digits.size() - s, ".");
  } else if (scale < 0 && unscaled != 0) {
    digits.append(static_cast<size_t>(-static_cast<int64_t>(scale)), '0');
  }
  return negative ? "-" + digits : digits;
}

Result<Decimal> Decimal::FromString(std::string_view text, int32_t precision, int32_t scale) {
  if (precision < 1 || precision > kMaxDigits || scale < 0 || scale > precision) {
    return Status::Invalid("invalid DECIMAL(", precision, ", ", scale, ")");
  }
  if (Int128 unscaled; PlainDecimal(text, precision, scale, &unscaled)) {
    Decimal d;
    d.unscaled = unscaled;
    d.precision = precision;
    d.scale = scale;
    return d;
  }
  std::string_view original = text;
  auto bad = [&] { return Status::Invalid("not a decimal number: '", original, "'"); };
  while (!text.empty() && IsSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && IsSpace(text.back())) text.remove_suffix(1);
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  // Significant digits without leading zeros, and how many digits stood after the point.
  std::string digits;
  int64_t fraction_digits = 0;
  bool any_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (seen_point) ++fraction_digits;
      if (!digits.empty() || c != '0') digits += c;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return bad();
  int64_t exponent = 0;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) exp_negative = text[i++] == '-';
    if (i >= text.size()) return bad();
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      // Saturate: anything this large is out of range or rounds to zero anyway.
      if (exponent < 100000000) exponent = exponent * 10 + (text[i] - '0');
    }
    if (exp_negative) exponent = -exponent;
  }
  if (i != text.size()) return bad();

  // value = digits * 10^(exponent - fraction_digits); unscaled = value * 10^scale.
  int64_t shift = exponent - fraction_digits + scale;
  if (shift < 0) {
    int64_t drop = -shift;
    bool round_up = false;
    if (drop > static_cast<int64_t>(digits.size())) {
      digits.clear();
    } else {
      size_t keep = digits.size() - static_cast<size_t>(drop);
      round_up = keep < digits.size() && digits[keep] >= '5';
      digits.resize(keep);
    }
    if (round_up) {
      // HALF_UP on the magnitude, as BigDecimal does: propagate the carry.
      int k = static_cast<int>(digits.size()) - 1;
      while (k >= 0 && digits[k] == '9') digits[k--] = '0';
      if (k >= 0) {
        ++digits[k];
      } else {
        digits.insert(digits.begin(), '1');
      }
    }
  } else if (!digits.empty()) {
    if (static_cast<int64_t>(digits.size()) + shift > precision) {
      return Status::Invalid("decimal '", original, "' does not fit DECIMAL(", precision, ", ",
                             scale, ")");
    }
    digits.append(static_cast<size_t>(shift), '0');
  }
  if (static_cast<int64_t>(digits.size()) > precision) {
    return Status::Invalid("decimal '", original, "' does not fit DECIMAL(", precision, ", ", scale,
                           ")");
  }
  UInt128 magnitude = 0;
  for (char c : digits) magnitude = magnitude * 10 + static_cast<unsigned>(c - '0');
  Decimal d;
  d.unscaled = negative ? -static_cast<Int128>(magnitude) : static_cast<Int128>(magnitude);
  d.precision = precision;
  d.scale = scale;
  return d;
}

std::string Decimal::ToUnscaledBytes() const {
  // Minimal two's complement length: the smallest n with -2^(8n-1) <= v < 2^(8n-1).
  int n = 1;
  while (n < 16) {
    Int128 limit = static_cast<Int128>(UInt128(1) << (8 * n - 1));
    if (unscaled >= -limit && unscaled < limit) break;
    ++n;
  }
  std::string out(static_cast<size_t>(n), '\0');
  UInt128 v = static_cast<UInt128>(unscaled);
  for (int i = n - 1; i >= 0; --i) {
    out[static_cast<size_t>(i)] = static_cast<char>(static_cast<unsigned char>(v & 0xff));
    v >>= 8;
  }
  return out;
}

Result<Decimal> Decimal::FromUnscaledBytes(std::string_view bytes, int32_t precision,
                                           int32_t scale) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Invalid("decimal unscaled bytes must be 1..16 bytes, got ", bytes.size());
  }
  UInt128 v = static_cast<unsigned char>(bytes[0]) >= 0x80 ? ~UInt128(0) : UInt128(0);
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  Decimal d;
  d.unscaled = static_cast<Int128>(v);
  d.precision = precision;
  d.scale = scale;
  if (!d.FitsPrecision()) {
    return Status::Invalid("decimal ", d.ToString(), " does not fit precision ", precision);
  }
  return d;
}

bool Decimal::FitsPrecision() const {
  if (precision >= kMaxDigits + 1) return true;
  if (precision < 1) return unscaled == 0;
  return Magnitude(unscaled) < kPow10.v[precision];
}

// ---------------------------------------------------------------------------------------------
// Value

int64_t Value::AsInt64() const {
  return std::visit(
      [](const auto& v) -> int64_t {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, bool> || std::is_same_v<T, int8_t> ||
                      std::is_same_v<T, int16_t> || std::is_same_v<T, int32_t> ||
                      std::is_same_v<T, int64_t>) {
          return static_cast<int64_t>(v);
        } else {
          return 0;
        }
      },
      data_);
}

bool Value::operator==(const Value& other) const {
  if (data_.index() != other.data_.index()) return false;
  return std::visit(
      [&](const auto& a) -> bool {
        using T = std::decay_t<decltype(a)>;
        const T& b = std::get<T>(other.data_);
        if constexpr (std::is_same_v<T, std::monostate>) {
          return true;
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          // Like Java's Float.equals: NaN equals NaN, -0.0 differs from 0.0.
          return CompareFloating(a, b) == 0;
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const ValueList>> ||
                             std::is_same_v<T, std::shared_ptr<const ValueMap>>) {
          if (a == b) return true;
          if (!a || !b) return false;
          return *a == *b;
        } else {
          return a == b;
        }
      },
      data_);
}

int CompareValues(const Value& a, const Value& b, const DataType& type) {
  if (a.is_null() || b.is_null()) return a.is_null() == b.is_null() ? 0 : (a.is_null() ? -1 : 1);
  if (a.storage().index() != b.storage().index()) {
    // Mixed integer widths (e.g. an INT literal against a BIGINT column) compare numerically;
    // anything else is a caller error, ordered deterministically by representation.
    if (IsIntegral(a) && IsIntegral(b)) return Cmp(a.AsInt64(), b.AsInt64());
    if (a.is<float>() && b.is<double>()) {
      return CompareFloating<double>(a.get<float>(), b.get<double>());
    }
    if (a.is<double>() && b.is<float>()) {
      return CompareFloating<double>(a.get<double>(), b.get<float>());
    }
    return Cmp(StorageRank(a), StorageRank(b));
  }
  return std::visit(
      [&](const auto& x) -> int {
        using T = std::decay_t<decltype(x)>;
        const T& y = std::get<T>(b.storage());
        if constexpr (std::is_same_v<T, std::monostate>) {
          return 0;
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return CompareFloating(x, y);
        } else if constexpr (std::is_same_v<T, std::string>) {
          // std::char_traits<char>::compare orders as unsigned char, like Java's byte compare.
          int c = x.compare(y);
          return c < 0 ? -1 : (c > 0 ? 1 : 0);
        } else if constexpr (std::is_same_v<T, Decimal>) {
          return CompareDecimals(x, y);
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const ValueList>>) {
          const ValueList& l = *x;
          const ValueList& r = *y;
          size_t n = std::min(l.size(), r.size());
          for (size_t i = 0; i < n; ++i) {
            const DataType* child = ChildType(type, i);
            if (child == nullptr) return Cmp(StorageRank(l[i]), StorageRank(r[i]));
            if (int c = CompareValues(l[i], r[i], *child); c != 0) return c;
          }
          return Cmp(l.size(), r.size());
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const ValueMap>>) {
          const ValueMap& l = *x;
          const ValueMap& r = *y;
          size_t n = std::min(l.size(), r.size());
          bool is_map = type.root() == TypeRoot::kMap;
          for (size_t i = 0; i < n; ++i) {
            if (!is_map) return 0;
            if (int c = CompareValues(l[i].first, r[i].first, *type.key()); c != 0) return c;
            if (int c = CompareValues(l[i].second, r[i].second, *type.value()); c != 0) return c;
          }
          return Cmp(l.size(), r.size());
        } else {
          return Cmp(x, y);  // bool (false < true), integers, Timestamp (millis, nanos)
        }
      },
      a.storage());
}

std::string ValueToString(const Value& v, const DataType& type) {
  if (v.is_null()) return "NULL";
  switch (type.root()) {
    case TypeRoot::kDate:
      if (v.is<int32_t>()) return FormatDate(v.get<int32_t>());
      break;
    case TypeRoot::kTime:
      if (v.is<int32_t>()) {
        int64_t ms = v.get<int32_t>();
        return FormatTimeOfDay(ms, (ms % 1000) * 1000000, std::min(type.precision(), 3));
      }
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      if (v.is<Timestamp>()) return FormatTimestamp(v.get<Timestamp>(), type.precision());
      break;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (v.is<std::string>()) return Quote(v.get<std::string>());
      break;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (v.is<std::string>()) return Hex(v.get<std::string>());
      break;
    default:
      break;
  }
  return std::visit(
      [&](const auto& x) -> std::string {
        using T = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<T, std::monostate>) {
          return "NULL";
        } else if constexpr (std::is_same_v<T, bool>) {
          return x ? "true" : "false";
        } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
          return ShortestFloatText(x);
        } else if constexpr (std::is_same_v<T, std::string>) {
          return Quote(x);
        } else if constexpr (std::is_same_v<T, Decimal>) {
          return x.ToString();
        } else if constexpr (std::is_same_v<T, Timestamp>) {
          return FormatTimestamp(x, 0);
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const ValueList>>) {
          bool is_row = type.root() == TypeRoot::kRow;
          std::string out = is_row ? "(" : "[";
          for (size_t i = 0; i < x->size(); ++i) {
            if (i > 0) out += ", ";
            const DataType* child = ChildType(type, i);
            out += child ? ValueToString((*x)[i], *child) : "?";
          }
          return out + (is_row ? ")" : "]");
        } else if constexpr (std::is_same_v<T, std::shared_ptr<const ValueMap>>) {
          bool is_map = type.root() == TypeRoot::kMap;
          std::string out = "{";
          for (size_t i = 0; i < x->size(); ++i) {
            if (i > 0) out += ", ";
            if (!is_map) {
              out += "?";
              continue;
            }
            out += ValueToString((*x)[i].first, *type.key()) + ": " +
                   ValueToString((*x)[i].second, *type.value());
          }
          return out + "}";
        } else {
          return std::to_string(x);
        }
      },
      v.storage());
}

}  // namespace fjord
