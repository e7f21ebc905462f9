// Literals of the filter language: DATE / TIME / TIMESTAMP text, conversion of a literal to the
// column's type (exact, never rounded), and the text form the parser reads back.
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <type_traits>

#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/expr/predicate_internal.h"

namespace fjord::predicate_internal {

namespace {

// ---------------------------------------------------------------------------------------------
// Dates and times

bool ReadDigits(std::string_view s, size_t* i, size_t min_digits, size_t max_digits, int64_t* out) {
  size_t start = *i;
  int64_t v = 0;
  while (*i < s.size() && IsDigit(s[*i]) && *i - start < max_digits) {
    v = v * 10 + (s[*i] - '0');
    ++*i;
  }
  if (*i - start < min_digits) return false;
  *out = v;
  return true;
}

// "yyyy-mm-dd" at s[*i...] to days since the epoch.
bool ReadDate(std::string_view s, size_t* i, int64_t* days) {
  int64_t y, m, d;
  if (!ReadDigits(s, i, 4, 4, &y)) return false;
  if (*i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadDigits(s, i, 1, 2, &m)) return false;
  if (*i >= s.size() || s[*i] != '-') return false;
  ++*i;
  if (!ReadDigits(s, i, 1, 2, &d)) return false;
  if (m < 1 || m > 12 || d < 1 || d > DaysInMonth(y, static_cast<unsigned>(m))) return false;
  *days = DaysFromCivil(y, static_cast<unsigned>(m), static_cast<unsigned>(d));
  return true;
}

struct TimeOfDay {
  int64_t nanos = 0;           // since midnight
  int significant_digits = 0;  // fractional-second digits without trailing zeros
};

// "hh:mm[:ss[.fffffffff]]" at s[*i...].
bool ReadTime(std::string_view s, size_t* i, TimeOfDay* out) {
  int64_t h, m, sec = 0, frac = 0;
  if (!ReadDigits(s, i, 1, 2, &h) || *i >= s.size() || s[*i] != ':') return false;
  ++*i;
  if (!ReadDigits(s, i, 2, 2, &m)) return false;
  int digits = 0;
  if (*i < s.size() && s[*i] == ':') {
    ++*i;
    if (!ReadDigits(s, i, 2, 2, &sec)) return false;
    if (*i < s.size() && s[*i] == '.') {
      ++*i;
      size_t start = *i;
      if (!ReadDigits(s, i, 1, 9, &frac)) return false;
      digits = static_cast<int>(*i - start);
      for (int k = digits; k < 9; ++k) frac *= 10;
    }
  }
  if (h > 23 || m > 59 || sec > 59) return false;
  out->nanos = ((h * 60 + m) * 60 + sec) * 1000000000 + frac;
  int significant = 9;
  for (int64_t f = frac; significant > 0 && f % 10 == 0; f /= 10) --significant;
  out->significant_digits = frac == 0 ? 0 : significant;
  return true;
}

std::optional<int64_t> ParseDateText(std::string_view text) {
  std::string_view s = TrimSpace(text);
  size_t i = 0;
  int64_t days;
  if (!ReadDate(s, &i, &days) || i != s.size()) return std::nullopt;
  return days;
}

std::optional<TimeOfDay> ParseTimeText(std::string_view text) {
  std::string_view s = TrimSpace(text);
  size_t i = 0;
  TimeOfDay t;
  if (!ReadTime(s, &i, &t) || i != s.size()) return std::nullopt;
  return t;
}

struct TimestampText {
  Timestamp ts;
  int significant_digits = 0;
};

// "yyyy-mm-dd[( |T)hh:mm[:ss[.fffffffff]]]".
std::optional<TimestampText> ParseTimestampText(std::string_view text) {
  std::string_view s = TrimSpace(text);
  size_t i = 0;
  int64_t days;
  if (!ReadDate(s, &i, &days)) return std::nullopt;
  TimeOfDay t;
  if (i < s.size()) {
    if (s[i] != ' ' && s[i] != 'T') return std::nullopt;
    ++i;
    if (!ReadTime(s, &i, &t) || i != s.size()) return std::nullopt;
  }
  TimestampText out;
  out.ts.millis = days * 86400000 + t.nanos / 1000000;
  out.ts.nanos_of_milli = static_cast<int32_t>(t.nanos % 1000000);
  out.significant_digits = t.significant_digits;
  return out;
}

template <typename T>
std::optional<T> ParseNumber(std::string_view s, bool* out_of_range) {
  *out_of_range = false;
  if (!s.empty() && s[0] == '+') s.remove_prefix(1);
  if (s.empty() || s[0] == '+') return std::nullopt;
  T v{};
  auto r = std::from_chars(s.data(), s.data() + s.size(), v);
  if (r.ec == std::errc::result_out_of_range && r.ptr == s.data() + s.size()) {
    *out_of_range = true;
    return std::nullopt;
  }
  if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
  return v;
}

template <typename F>
std::optional<F> ParseFloating(std::string_view s, bool* out_of_range) {
  s = TrimSpace(s);
  *out_of_range = false;
  bool negative = !s.empty() && s[0] == '-';
  std::string_view body = s;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) body.remove_prefix(1);
  if (EqualsIgnoreCase(body, "Infinity") || EqualsIgnoreCase(body, "Inf")) {
    return negative ? -std::numeric_limits<F>::infinity() : std::numeric_limits<F>::infinity();
  }
  if (EqualsIgnoreCase(body, "NaN")) return std::numeric_limits<F>::quiet_NaN();
  // Only plain decimal notation beyond this point.
  if (body.empty() || !(IsDigit(body[0]) || body[0] == '.')) return std::nullopt;
  return ParseNumber<F>(s, out_of_range);
}

template <typename... Args>
Status LiteralError(const DataField& field, Args&&... args) {
  return Status::Invalid("filter on column '", field.name, "' (", field.type->ToString(),
                         "): ", std::forward<Args>(args)...);
}

Result<Value> ConvertInteger(const RawLiteral& lit, const DataField& field) {
  if (lit.kind != LiteralKind::kNumber && lit.kind != LiteralKind::kString) {
    return LiteralError(field, lit.source, " is not an integer");
  }
  bool out_of_range;
  std::optional<int64_t> v = ParseNumber<int64_t>(TrimSpace(lit.text), &out_of_range);
  if (!v) {
    if (out_of_range) return LiteralError(field, lit.source, " is out of range");
    return LiteralError(field, lit.source, " is not an integer");
  }
  auto fits = [&](auto sample) -> bool {
    using T = decltype(sample);
    return *v >= std::numeric_limits<T>::min() && *v <= std::numeric_limits<T>::max();
  };
  switch (field.type->root()) {
    case TypeRoot::kTinyInt:
      if (!fits(int8_t{})) break;
      return Value(static_cast<int8_t>(*v));
    case TypeRoot::kSmallInt:
      if (!fits(int16_t{})) break;
      return Value(static_cast<int16_t>(*v));
    case TypeRoot::kInt:
      if (!fits(int32_t{})) break;
      return Value(static_cast<int32_t>(*v));
    default:
      return Value(*v);
  }
  return LiteralError(field, lit.source, " is out of range");
}

template <typename F>
Result<Value> ConvertFloating(const RawLiteral& lit, const DataField& field) {
  if (lit.kind != LiteralKind::kNumber && lit.kind != LiteralKind::kString) {
    return LiteralError(field, lit.source, " is not a number");
  }
  bool out_of_range;
  std::optional<F> v = ParseFloating<F>(lit.text, &out_of_range);
  if (!v) {
    if (out_of_range) return LiteralError(field, lit.source, " is out of range");
    return LiteralError(field, lit.source, " is not a number");
  }
  return Value(*v);
}

Result<Value> ConvertDecimal(const RawLiteral& lit, const DataField& field) {
  if (lit.kind != LiteralKind::kNumber && lit.kind != LiteralKind::kString) {
    return LiteralError(field, lit.source, " is not a decimal number");
  }
  const int32_t precision = field.type->precision();
  const int32_t scale = field.type->scale();
  Result<Decimal> d = Decimal::FromString(lit.text, precision, scale);
  if (!d.ok()) return LiteralError(field, d.status().message());
  // FromString rounds; a filter must not. Read the text again with every fractional digit the
  // widest decimal allows beside the same integral digits, and insist on the same value.
  const int32_t wide_scale = DataType::kMaxDecimalPrecision - (precision - scale);
  Result<Decimal> wide = Decimal::FromString(lit.text, DataType::kMaxDecimalPrecision, wide_scale);
  if (!wide.ok() || CompareValues(Value(*d), Value(*wide), *field.type) != 0) {
    return LiteralError(field, lit.source, " has more than ", scale, " fractional digits");
  }
  return Value(*d);
}

template <typename F>
std::string FloatingToString(F v) {
  if (std::isnan(v) || std::isinf(v)) return "'" + ShortestFloatText(v) + "'";
  return ShortestFloatDigits(v);
}

}  // namespace

Result<Value> ConvertLiteral(const RawLiteral& lit, const DataField& field) {
  const DataType& type = *field.type;
  if (lit.kind == LiteralKind::kNull) {
    return LiteralError(field, "NULL can only be tested with IS NULL or IS NOT NULL");
  }
  switch (type.root()) {
    case TypeRoot::kBoolean: {
      if (lit.kind == LiteralKind::kBool || lit.kind == LiteralKind::kString) {
        std::string_view t = TrimSpace(lit.text);
        if (EqualsIgnoreCase(t, "TRUE")) return Value(true);
        if (EqualsIgnoreCase(t, "FALSE")) return Value(false);
      }
      return LiteralError(field, lit.source, " is not a boolean (TRUE or FALSE)");
    }
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return ConvertInteger(lit, field);
    case TypeRoot::kFloat:
      return ConvertFloating<float>(lit, field);
    case TypeRoot::kDouble:
      return ConvertFloating<double>(lit, field);
    case TypeRoot::kDecimal:
      return ConvertDecimal(lit, field);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      if (lit.kind == LiteralKind::kString) return Value(lit.text);
      return LiteralError(field, lit.source, " is not a string; write strings as 'text'");
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      if (lit.kind == LiteralKind::kString || lit.kind == LiteralKind::kHex) {
        return Value(lit.text);
      }
      return LiteralError(field, lit.source, " is not a binary string ('text' or X'hex')");
    case TypeRoot::kDate: {
      std::optional<int64_t> days;
      if (lit.kind == LiteralKind::kDate || lit.kind == LiteralKind::kString) {
        days = ParseDateText(lit.text);
      }
      if (!days) return LiteralError(field, lit.source, " is not a date (DATE 'yyyy-mm-dd')");
      return Value(static_cast<int32_t>(*days));
    }
    case TypeRoot::kTime: {
      std::optional<TimeOfDay> t;
      if (lit.kind == LiteralKind::kTime || lit.kind == LiteralKind::kString) {
        t = ParseTimeText(lit.text);
      }
      if (!t) return LiteralError(field, lit.source, " is not a time (TIME 'hh:mm:ss[.fff]')");
      if (t->significant_digits > std::min(type.precision(), 3)) {
        return LiteralError(field, lit.source, " has more fractional digits than the column's ",
                            std::min(type.precision(), 3));
      }
      return Value(static_cast<int32_t>(t->nanos / 1000000));
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      std::optional<TimestampText> t;
      if (lit.kind == LiteralKind::kTimestamp || lit.kind == LiteralKind::kDate ||
          lit.kind == LiteralKind::kString) {
        t = ParseTimestampText(lit.text);
      }
      if (!t) {
        return LiteralError(field, lit.source,
                            " is not a timestamp (TIMESTAMP 'yyyy-mm-dd hh:mm:ss[.fffffffff]')");
      }
      if (t->significant_digits > type.precision()) {
        return LiteralError(field, lit.source, " has more fractional digits than the column's ",
                            type.precision());
      }
      return Value(t->ts);
    }
    default:
      return LiteralError(field, "filters on ", type.ToString(), " columns are not supported");
  }
}

// A column name as the parser reads it back: bare when it is a plain identifier, else `quoted`.
std::string QuoteName(const std::string& name) {
  bool plain = !name.empty() && IsIdentStart(name[0]) && !IsReservedWord(name) &&
               std::all_of(name.begin(), name.end(), [](char c) { return IsIdentChar(c); });
  if (plain) return name;
  std::string out = "`";
  for (char c : name) {
    if (c == '`') out += '`';
    out += c;
  }
  return out + "`";
}

// A literal as the parser reads it back for a column of `type`.
std::string LiteralToString(const Value& v, const DataType* type) {
  if (v.is_null()) return "NULL";
  if (v.is<bool>()) return v.get<bool>() ? "TRUE" : "FALSE";
  if (v.is<float>()) return FloatingToString(v.get<float>());
  if (v.is<double>()) return FloatingToString(v.get<double>());
  if (type != nullptr) {
    switch (type->root()) {
      case TypeRoot::kDate:
        if (v.is<int32_t>()) return "DATE '" + ValueToString(v, *type) + "'";
        break;
      case TypeRoot::kTime:
        if (v.is<int32_t>()) return "TIME '" + ValueToString(v, *type) + "'";
        break;
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz:
        if (v.is<Timestamp>()) return "TIMESTAMP '" + ValueToString(v, *type) + "'";
        break;
      default:
        break;
    }
    return ValueToString(v, *type);
  }
  if (v.is<Timestamp>()) return "TIMESTAMP '" + ValueToString(v, *DataType::Timestamp(9)) + "'";
  return ValueToString(v, *DataType::String());
}
}  // namespace fjord::predicate_internal
