// Casts to BOOLEAN, the integers, FLOAT, DOUBLE and DECIMAL as Java Paimon's executors compute
// them: NumericPrimitiveCastRule (Java's primitive conversions: integers wrap, floating point
// saturates), DecimalToNumericPrimitiveCastRule, NumericPrimitiveToDecimalCastRule,
// DecimalToDecimalCastRule, BooleanToNumericCastRule, NumericToBooleanCastRule,
// StringToBooleanCastRule, StringToNumericPrimitiveCastRule, StringToDecimalCastRule and
// TimestampToNumericPrimitiveCastRule.
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <limits>

#include "fjord/common/float_format.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord::evolution {

namespace {

// An integer of type `root` from a long, as Java's (byte) / (short) / (int) casts: the low bits.
int64_t Narrow(int64_t v, TypeRoot root) {
  switch (root) {
    case TypeRoot::kTinyInt:
      return static_cast<int8_t>(static_cast<uint8_t>(v));
    case TypeRoot::kSmallInt:
      return static_cast<int16_t>(static_cast<uint16_t>(v));
    case TypeRoot::kInt:
      return static_cast<int32_t>(static_cast<uint32_t>(v));
    default:
      return v;
  }
}

// Java's d2i and d2l: NaN is 0, values beyond the range saturate, others truncate to zero.
template <typename I>
I JavaTruncate(double d) {
  if (std::isnan(d)) return 0;
  if (d >= static_cast<double>(std::numeric_limits<I>::max())) {
    return std::numeric_limits<I>::max();
  }
  if (d <= static_cast<double>(std::numeric_limits<I>::min())) {
    return std::numeric_limits<I>::min();
  }
  return static_cast<I>(d);
}

// Number::xxxValue of a Float or Double: (byte) and (short) narrow the int conversion.
Value FromDouble(double d, TypeRoot to) {
  switch (to) {
    case TypeRoot::kFloat:
      return static_cast<float>(d);
    case TypeRoot::kDouble:
      return d;
    case TypeRoot::kBigInt:
      return JavaTruncate<int64_t>(d);
    default:
      return Narrow(JavaTruncate<int32_t>(d), to);
  }
}

Value FromLong(int64_t v, TypeRoot to) {
  if (to == TypeRoot::kFloat) return static_cast<float>(v);
  if (to == TypeRoot::kDouble) return static_cast<double>(v);
  return Narrow(v, to);
}

// DecimalUtils.doubleValue: a compact decimal (precision <= 18) divides its unscaled long by a
// power of ten in double arithmetic; a larger one is BigDecimal.doubleValue (correctly rounded).
double DecimalToDouble(const Decimal& d) {
  if (d.precision <= 18) {
    double pow10 = 1;
    for (int i = 0; i < d.scale; ++i) pow10 *= 10;  // exact up to 10^22
    return static_cast<double>(static_cast<int64_t>(d.unscaled.low_bits())) / pow10;
  }
  std::string text = d.unscaled.ToIntegerString() + "e" + std::to_string(-d.scale);
  return std::strtod(text.c_str(), nullptr);
}

BigDecimal FromDigits(std::string text) {  // "-123" → BigDecimal
  BigDecimal bd;
  if (!text.empty() && text[0] == '-') {
    bd.negative = true;
    text.erase(0, 1);
  }
  size_t nz = text.find_first_not_of('0');
  bd.digits = nz == std::string::npos ? "0" : text.substr(nz);
  if (bd.digits == "0") bd.negative = false;
  return bd;
}

// BigDecimal.valueOf(double): the digits of Double.toString.
BigDecimal FromJavaDouble(double d) {
  std::string text = JavaDoubleText(d);  // "-1.5E-7", "0.001", "123.0"
  BigDecimal bd;
  if (text[0] == '-') {
    bd.negative = true;
    text.erase(0, 1);
  }
  int64_t exponent = 0;
  size_t e = text.find('E');
  if (e != std::string::npos) {
    exponent = std::stoll(text.substr(e + 1));
    text.resize(e);
  }
  size_t dot = text.find('.');
  std::string digits = text.substr(0, dot) + text.substr(dot + 1);
  exponent -= static_cast<int64_t>(text.size() - dot - 1);
  size_t nz = digits.find_first_not_of('0');
  bd.digits = nz == std::string::npos ? "0" : digits.substr(nz);
  bd.exponent = exponent;
  if (bd.digits == "0") bd.negative = false;
  return bd;
}

}  // namespace

BigDecimal ToBigDecimal(const Decimal& d) {
  BigDecimal bd = FromDigits(d.unscaled.ToIntegerString());
  bd.exponent = -d.scale;
  return bd;
}

std::string PlainText(const Decimal& d) {
  std::string digits = d.unscaled.ToIntegerString();
  bool negative = !digits.empty() && digits[0] == '-';
  if (negative) digits.erase(0, 1);
  if (d.scale > 0) {
    if (digits.size() <= static_cast<size_t>(d.scale)) {
      digits.insert(0, static_cast<size_t>(d.scale) + 1 - digits.size(), '0');
    }
    digits.insert(digits.size() - static_cast<size_t>(d.scale), ".");
  }
  return (negative ? "-" : "") + digits;
}

Value FitDecimal(const BigDecimal& bd, int32_t precision, int32_t scale) {
  std::string digits = bd.digits;
  int64_t shift = bd.exponent + scale;
  if (shift >= 0) {
    if (digits != "0") {
      if (static_cast<int64_t>(digits.size()) + shift > precision) return std::monostate{};
      digits.append(static_cast<size_t>(shift), '0');
    }
  } else {
    // setScale(scale, HALF_UP): drop -shift digits, rounding up (away from zero) from 5.
    int64_t drop = -shift;
    int64_t n = static_cast<int64_t>(digits.size());
    char first_dropped = drop <= n ? digits[static_cast<size_t>(n - drop)] : '0';
    digits = drop < n ? digits.substr(0, static_cast<size_t>(n - drop)) : "0";
    if (first_dropped >= '5') {
      size_t i = digits.size();
      while (i > 0 && digits[i - 1] == '9') digits[--i] = '0';
      if (i == 0) {
        digits.insert(0, "1");
      } else {
        ++digits[i - 1];
      }
    }
    size_t nz = digits.find_first_not_of('0');
    digits = nz == std::string::npos ? "0" : digits.substr(nz);
  }
  if (static_cast<int64_t>(digits.size()) > precision) return std::monostate{};
  auto parsed = arrow::Decimal128::FromString(digits);
  if (!parsed.ok()) return std::monostate{};
  arrow::Decimal128 unscaled = *parsed;
  if (bd.negative) unscaled.Negate();
  return Decimal{unscaled, precision, scale};
}

Result<Value> ToBoolean(const Value& v, const DataType& from) {
  if (from.IsString()) {
    FJORD_ASSIGN_OR_RAISE(bool b, ParseJavaBoolean(std::get<std::string>(v)));
    return Value(b);
  }
  if (from.IsInteger()) return Value(std::get<int64_t>(v) != 0);
  return Status::NotImplemented("no cast to BOOLEAN");
}

Result<Value> ToNumber(const Value& v, const DataType& from, const DataType& to) {
  TypeRoot t = to.root();
  switch (from.root()) {
    case TypeRoot::kBoolean:
      return FromLong(std::get<bool>(v) ? 1 : 0, t);
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return FromLong(std::get<int64_t>(v), t);
    case TypeRoot::kFloat:
      return FromDouble(static_cast<double>(std::get<float>(v)), t);
    case TypeRoot::kDouble:
      return FromDouble(std::get<double>(v), t);
    case TypeRoot::kDecimal: {
      const Decimal& d = std::get<Decimal>(v);
      if (t == TypeRoot::kFloat || t == TypeRoot::kDouble) return FromDouble(DecimalToDouble(d), t);
      // castToIntegral: setScale(0, DOWN).longValue(), the low 64 bits; then narrowed.
      arrow::Decimal128 whole = d.unscaled;
      if (d.scale > 0) {
        auto div = d.unscaled.Divide(arrow::Decimal128::GetScaleMultiplier(d.scale));
        if (div.ok()) whole = div->first;
      }
      return Narrow(static_cast<int64_t>(whole.low_bits()), t);
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      const std::string& s = std::get<std::string>(v);
      if (t == TypeRoot::kFloat) {
        FJORD_ASSIGN_OR_RAISE(float f, ParseJavaFloat(s));
        return Value(f);
      }
      if (t == TypeRoot::kDouble) {
        FJORD_ASSIGN_OR_RAISE(double d, ParseJavaDouble(s));
        return Value(d);
      }
      FJORD_ASSIGN_OR_RAISE(int64_t i, ParseJavaInteger(s, t));
      return Value(i);
    }
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      // DateTimeUtils.unixTimestamp: seconds, truncated towards zero; (int) narrows.
      return Narrow(std::get<JavaTimestamp>(v).millis / 1000, t);
    default:
      return Status::NotImplemented("no cast to ", to.ToString());
  }
}

Result<Value> ToDecimal(const Value& v, const DataType& from, const DataType& to) {
  BigDecimal bd;
  switch (from.root()) {
    case TypeRoot::kBoolean:
      bd = FromDigits(std::get<bool>(v) ? "1" : "0");
      break;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      bd = FromDigits(std::to_string(std::get<int64_t>(v)));
      break;
    case TypeRoot::kFloat:
    case TypeRoot::kDouble: {
      double d = from.root() == TypeRoot::kFloat ? static_cast<double>(std::get<float>(v))
                                                 : std::get<double>(v);
      if (!std::isfinite(d)) {
        return Status::Invalid("BigDecimal.valueOf throws NumberFormatException: Infinite or NaN");
      }
      bd = FromJavaDouble(d);
      break;
    }
    case TypeRoot::kDecimal:
      bd = ToBigDecimal(std::get<Decimal>(v));
      break;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar: {
      FJORD_ASSIGN_OR_RAISE(bd, ParseJavaBigDecimal(std::get<std::string>(v)));
      break;
    }
    default:
      return Status::NotImplemented("no cast to ", to.ToString());
  }
  return FitDecimal(bd, to.precision(), to.scale());
}

}  // namespace fjord::evolution
