#include "fjord/expr/predicate.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <set>
#include <system_error>
#include <type_traits>
#include <utility>

#include "fjord/common/arrow_status.h"
#include "fjord/common/calendar.h"
#include "fjord/common/float_format.h"
#include "fjord/common/strings.h"

namespace fjord {

namespace {

// ---------------------------------------------------------------------------------------------
// Small helpers

// Kleene truth values: SQL's three-valued logic.
enum class Truth : unsigned char { kFalse, kTrue, kUnknown };

Truth Negate(Truth t) {
  if (t == Truth::kUnknown) return t;
  return t == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
}

bool IsFloatingType(const DataType* type) {
  return type != nullptr && (type->root() == TypeRoot::kFloat || type->root() == TypeRoot::kDouble);
}

bool IsFloatingValue(const Value& v) { return v.is<float>() || v.is<double>(); }

bool IsIntegralValue(const Value& v) {
  return v.is<bool>() || v.is<int8_t>() || v.is<int16_t>() || v.is<int32_t>() || v.is<int64_t>();
}

double AsDouble(const Value& v) {
  if (v.is<float>()) return v.get<float>();
  if (v.is<double>()) return v.get<double>();
  return static_cast<double>(v.AsInt64());
}

bool IsNaN(const Value& v) { return IsFloatingValue(v) && std::isnan(AsDouble(v)); }

bool IsOrderingOp(PredicateOp op) {
  return op == PredicateOp::kLt || op == PredicateOp::kLe || op == PredicateOp::kGt ||
         op == PredicateOp::kGe;
}

// The leaf operator that holds exactly when `op` is false on a non-null value. Callers check
// beforehand that the column is not floating when `op` orders (NaN is neither < nor >=).
PredicateOp NegatedLeafOp(PredicateOp op) {
  switch (op) {
    case PredicateOp::kEq:
      return PredicateOp::kNotEq;
    case PredicateOp::kNotEq:
      return PredicateOp::kEq;
    case PredicateOp::kLt:
      return PredicateOp::kGe;
    case PredicateOp::kLe:
      return PredicateOp::kGt;
    case PredicateOp::kGt:
      return PredicateOp::kLe;
    case PredicateOp::kGe:
      return PredicateOp::kLt;
    case PredicateOp::kIn:
      return PredicateOp::kNotIn;
    case PredicateOp::kNotIn:
      return PredicateOp::kIn;
    case PredicateOp::kIsNull:
      return PredicateOp::kIsNotNull;
    case PredicateOp::kIsNotNull:
      return PredicateOp::kIsNull;
    default:
      return op;
  }
}

// Whether NOT of this leaf is again a single leaf. It is not for orderings on FLOAT/DOUBLE:
// NOT (f < 1) holds for NaN, f >= 1 does not.
bool LeafNegatable(const Predicate& p) {
  if (!IsOrderingOp(p.op)) return true;
  if (IsFloatingType(p.type.get())) return false;
  return std::none_of(p.literals.begin(), p.literals.end(), IsFloatingValue);
}

const DataType& TypeOrDefault(const DataType* type) {
  static const DataTypePtr kFallback = DataType::BigInt();
  return type != nullptr ? *type : *kFallback;
}

// Orders two non-null values for filtering: -1, 0 or 1, or nullopt when they are unordered.
// FLOAT/DOUBLE compare as IEEE numbers like SQL and Arrow do (-0.0 = 0.0; NaN is unordered and
// equals nothing, not even itself); everything else as CompareValues.
std::optional<int> CompareForFilter(const Value& a, const Value& b, const DataType* type) {
  if (IsFloatingType(type) || IsFloatingValue(a) || IsFloatingValue(b)) {
    double x = AsDouble(a);
    double y = AsDouble(b);
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return CompareValues(a, b, TypeOrDefault(type));
}

constexpr std::string_view kReservedWords[] = {"AND",  "OR",   "NOT",   "IN",     "IS",
                                               "NULL", "TRUE", "FALSE", "BETWEEN"};

bool IsReservedWord(std::string_view word) {
  return std::any_of(std::begin(kReservedWords), std::end(kReservedWords),
                     [&](std::string_view kw) { return EqualsIgnoreCase(word, kw); });
}

bool IsIdentStart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '$'; }
// White space between tokens and around literals (no vertical tab).
constexpr std::string_view kSpaceChars = " \t\n\r\f";
bool IsSpace(char c) { return kSpaceChars.find(c) != std::string_view::npos; }
std::string_view TrimSpace(std::string_view s) { return Trim(s, kSpaceChars); }

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

template <typename F>
std::string FloatingToString(F v) {
  if (std::isnan(v) || std::isinf(v)) return "'" + ShortestFloatText(v) + "'";
  return ShortestFloatDigits(v);
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

// ---------------------------------------------------------------------------------------------
// Literal conversion

enum class LiteralKind : unsigned char {
  kNumber,     // 12, -3.5, 1e3
  kString,     // 'text'
  kHex,        // X'0aff' (text holds the decoded bytes)
  kBool,       // TRUE / FALSE
  kNull,       // NULL
  kDate,       // DATE '...'
  kTime,       // TIME '...'
  kTimestamp,  // TIMESTAMP '...'
};

struct RawLiteral {
  LiteralKind kind = LiteralKind::kNumber;
  std::string text;    // number as written (with sign), string contents, TRUE/FALSE
  std::string source;  // as written in the filter, for messages
};

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

// ---------------------------------------------------------------------------------------------
// Lexer

struct Token {
  enum Kind : unsigned char { kEnd, kWord, kQuotedName, kNumber, kString, kHex, kSymbol };
  Kind kind = kEnd;
  std::string text;  // word/number as written; name/string/hex decoded; symbol: the operator
  size_t pos = 0;    // byte offsets into the filter text
  size_t end = 0;
};

Status FilterError(std::string_view text, size_t pos, std::string_view what) {
  return Status::Invalid("filter '", text, "': ", what, " at position ", pos + 1);
}

Result<std::vector<Token>> Tokenize(std::string_view text) {
  std::vector<Token> tokens;
  size_t i = 0;
  auto read_quoted = [&](char quote, Token* tok) -> Status {
    ++i;
    for (;;) {
      if (i >= text.size()) {
        return FilterError(text, tok->pos,
                           quote == '`' ? "unterminated `name`" : "unterminated string");
      }
      if (text[i] == quote) {
        if (i + 1 < text.size() && text[i + 1] == quote) {
          tok->text += quote;
          i += 2;
          continue;
        }
        ++i;
        return Status::OK();
      }
      tok->text += text[i++];
    }
  };
  while (true) {
    while (i < text.size() && IsSpace(text[i])) ++i;
    Token tok;
    tok.pos = i;
    if (i >= text.size()) {
      tok.end = i;
      tokens.push_back(std::move(tok));
      return tokens;
    }
    char c = text[i];
    if ((c == 'x' || c == 'X') && i + 1 < text.size() && text[i + 1] == '\'') {
      tok.kind = Token::kHex;
      ++i;
      std::string hex;
      Token inner;
      inner.pos = tok.pos;
      FJORD_RETURN_NOT_OK(read_quoted('\'', &inner));
      auto nibble = [](char h) -> int {
        if (h >= '0' && h <= '9') return h - '0';
        if (h >= 'a' && h <= 'f') return h - 'a' + 10;
        if (h >= 'A' && h <= 'F') return h - 'A' + 10;
        return -1;
      };
      if (inner.text.size() % 2 != 0) {
        return FilterError(text, tok.pos, "odd number of hex digits in X'...'");
      }
      for (size_t k = 0; k < inner.text.size(); k += 2) {
        int hi = nibble(inner.text[k]);
        int lo = nibble(inner.text[k + 1]);
        if (hi < 0 || lo < 0) return FilterError(text, tok.pos, "bad hex digit in X'...'");
        tok.text += static_cast<char>(hi * 16 + lo);
      }
    } else if (IsIdentStart(c)) {
      tok.kind = Token::kWord;
      while (i < text.size() && IsIdentChar(text[i])) tok.text += text[i++];
    } else if (IsDigit(c) || (c == '.' && i + 1 < text.size() && IsDigit(text[i + 1]))) {
      tok.kind = Token::kNumber;
      while (i < text.size() && IsDigit(text[i])) ++i;
      if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && IsDigit(text[i])) ++i;
      }
      if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
        size_t j = i + 1;
        if (j < text.size() && (text[j] == '+' || text[j] == '-')) ++j;
        if (j < text.size() && IsDigit(text[j])) {
          i = j;
          while (i < text.size() && IsDigit(text[i])) ++i;
        }
      }
      if (i < text.size() && (IsIdentChar(text[i]) || text[i] == '.')) {
        return FilterError(text, tok.pos, "malformed number");
      }
      tok.text = std::string(text.substr(tok.pos, i - tok.pos));
    } else if (c == '\'') {
      tok.kind = Token::kString;
      FJORD_RETURN_NOT_OK(read_quoted('\'', &tok));
    } else if (c == '`') {
      tok.kind = Token::kQuotedName;
      FJORD_RETURN_NOT_OK(read_quoted('`', &tok));
      if (tok.text.empty()) return FilterError(text, tok.pos, "empty column name ``");
    } else {
      tok.kind = Token::kSymbol;
      std::string_view rest = text.substr(i);
      for (std::string_view op :
           {"<>", "!=", "<=", ">=", "==", "=", "<", ">", "(", ")", ",", "-", "+"}) {
        if (rest.substr(0, op.size()) == op) {
          tok.text = std::string(op);
          break;
        }
      }
      if (tok.text.empty()) {
        if (c == '"') {
          return FilterError(text, i,
                             "unexpected '\"' (write strings as 'text' and quote column names "
                             "with backticks)");
        }
        return FilterError(text, i, std::string("unexpected character '") + c + "'");
      }
      i += tok.text.size();
    }
    tok.end = i;
    tokens.push_back(std::move(tok));
  }
}

// ---------------------------------------------------------------------------------------------
// Parser: or := and (OR and)*; and := not (AND not)*; not := NOT not | primary;
// primary := '(' or ')' | TRUE | FALSE | comparison.

Predicate MakeJunction(PredicateOp op, std::vector<Predicate> children) {
  if (children.size() == 1) return std::move(children[0]);
  Predicate p;
  p.op = op;
  p.children = std::move(children);
  return p;
}

Predicate MakeNot(Predicate child) {
  Predicate p;
  p.op = PredicateOp::kNot;
  p.children.push_back(std::move(child));
  return p;
}

Predicate MakeLeaf(PredicateOp op, const DataField& field, std::vector<Value> literals) {
  Predicate p;
  p.op = op;
  p.field = field.name;
  p.type = field.type;
  p.literals = std::move(literals);
  return p;
}

class Parser {
 public:
  Parser(std::string_view text, const std::vector<DataField>& fields)
      : text_(text), fields_(fields) {}

  Result<Predicate> Run() {
    FJORD_ASSIGN_OR_RAISE(tokens_, Tokenize(text_));
    if (Peek().kind == Token::kEnd) return Status::Invalid("empty filter");
    FJORD_ASSIGN_OR_RAISE(Predicate p, ParseOr());
    if (Peek().kind != Token::kEnd) return Unexpected(Peek(), "AND, OR or the end");
    return p;
  }

 private:
  static constexpr int kMaxDepth = 200;

  struct Operand {
    const DataField* column = nullptr;
    RawLiteral literal;
    size_t pos = 0;
  };

  const Token& Peek(size_t ahead = 0) const {
    return tokens_[std::min(next_ + ahead, tokens_.size() - 1)];
  }
  const Token& Next() {
    const Token& t = tokens_[next_];
    if (next_ + 1 < tokens_.size()) ++next_;
    return t;
  }
  bool IsWord(const Token& t, std::string_view word) const {
    return t.kind == Token::kWord && EqualsIgnoreCase(t.text, word);
  }
  bool IsSymbol(const Token& t, std::string_view sym) const {
    return t.kind == Token::kSymbol && t.text == sym;
  }
  bool AcceptWord(std::string_view word) {
    if (!IsWord(Peek(), word)) return false;
    Next();
    return true;
  }
  std::string_view Source(const Token& t) const { return text_.substr(t.pos, t.end - t.pos); }

  Status Unexpected(const Token& t, std::string_view expected) const {
    std::string found = t.kind == Token::kEnd ? std::string("the end of the filter")
                                              : "'" + std::string(Source(t)) + "'";
    return FilterError(text_, t.pos, "expected " + std::string(expected) + ", found " + found);
  }

  Status ExpectSymbol(std::string_view sym) {
    if (!IsSymbol(Peek(), sym)) return Unexpected(Peek(), "'" + std::string(sym) + "'");
    Next();
    return Status::OK();
  }

  Status Enter() {
    if (++depth_ > kMaxDepth) return FilterError(text_, Peek().pos, "filter nested too deeply");
    return Status::OK();
  }

  Result<Predicate> ParseOr() {
    FJORD_RETURN_NOT_OK(Enter());
    std::vector<Predicate> children;
    FJORD_ASSIGN_OR_RAISE(Predicate first, ParseAnd());
    children.push_back(std::move(first));
    while (AcceptWord("OR")) {
      FJORD_ASSIGN_OR_RAISE(Predicate next, ParseAnd());
      children.push_back(std::move(next));
    }
    --depth_;
    return MakeJunction(PredicateOp::kOr, std::move(children));
  }

  Result<Predicate> ParseAnd() {
    std::vector<Predicate> children;
    FJORD_ASSIGN_OR_RAISE(Predicate first, ParseNot());
    children.push_back(std::move(first));
    while (AcceptWord("AND")) {
      FJORD_ASSIGN_OR_RAISE(Predicate next, ParseNot());
      children.push_back(std::move(next));
    }
    return MakeJunction(PredicateOp::kAnd, std::move(children));
  }

  Result<Predicate> ParseNot() {
    if (AcceptWord("NOT")) {
      FJORD_RETURN_NOT_OK(Enter());
      FJORD_ASSIGN_OR_RAISE(Predicate child, ParseNot());
      --depth_;
      return MakeNot(std::move(child));
    }
    return ParsePrimary();
  }

  static bool IsComparison(const Token& t) {
    if (t.kind != Token::kSymbol) return false;
    for (std::string_view op : {"=", "==", "<>", "!=", "<", "<=", ">", ">="}) {
      if (t.text == op) return true;
    }
    return false;
  }

  static PredicateOp ComparisonOp(const std::string& sym) {
    if (sym == "=" || sym == "==") return PredicateOp::kEq;
    if (sym == "<>" || sym == "!=") return PredicateOp::kNotEq;
    if (sym == "<") return PredicateOp::kLt;
    if (sym == "<=") return PredicateOp::kLe;
    if (sym == ">") return PredicateOp::kGt;
    return PredicateOp::kGe;
  }

  // `literal op column` is `column op' literal`.
  static PredicateOp Mirror(PredicateOp op) {
    switch (op) {
      case PredicateOp::kLt:
        return PredicateOp::kGt;
      case PredicateOp::kLe:
        return PredicateOp::kGe;
      case PredicateOp::kGt:
        return PredicateOp::kLt;
      case PredicateOp::kGe:
        return PredicateOp::kLe;
      default:
        return op;
    }
  }

  Result<Predicate> ParsePrimary() {
    const Token& t = Peek();
    if (IsSymbol(t, "(")) {
      Next();
      FJORD_ASSIGN_OR_RAISE(Predicate inner, ParseOr());
      FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
      return inner;
    }
    // A bare TRUE / FALSE is a constant predicate (an empty AND / OR).
    if ((IsWord(t, "TRUE") || IsWord(t, "FALSE")) && !IsComparison(Peek(1))) {
      Predicate p;
      p.op = IsWord(Next(), "TRUE") ? PredicateOp::kAnd : PredicateOp::kOr;
      return p;
    }
    FJORD_ASSIGN_OR_RAISE(Operand left, ParseOperand());
    if (left.column != nullptr) {
      const DataField& field = *left.column;
      if (AcceptWord("IS")) {
        bool negated = AcceptWord("NOT");
        if (!AcceptWord("NULL")) return Unexpected(Peek(), negated ? "NULL" : "NULL or NOT NULL");
        return MakeLeaf(negated ? PredicateOp::kIsNotNull : PredicateOp::kIsNull, field, {});
      }
      bool negated = false;
      if (IsWord(Peek(), "NOT")) {
        if (!IsWord(Peek(1), "IN") && !IsWord(Peek(1), "BETWEEN")) {
          return Unexpected(Peek(1), "IN or BETWEEN after NOT");
        }
        Next();
        negated = true;
      }
      if (AcceptWord("IN")) {
        FJORD_RETURN_NOT_OK(ExpectSymbol("("));
        std::vector<Value> values;
        do {
          FJORD_ASSIGN_OR_RAISE(Value v, ParseLiteralFor(field));
          values.push_back(std::move(v));
        } while (IsSymbol(Peek(), ",") && (Next(), true));
        FJORD_RETURN_NOT_OK(ExpectSymbol(")"));
        return MakeLeaf(negated ? PredicateOp::kNotIn : PredicateOp::kIn, field, std::move(values));
      }
      if (AcceptWord("BETWEEN")) {
        FJORD_ASSIGN_OR_RAISE(Value low, ParseLiteralFor(field));
        if (!AcceptWord("AND")) return Unexpected(Peek(), "AND in BETWEEN ... AND ...");
        FJORD_ASSIGN_OR_RAISE(Value high, ParseLiteralFor(field));
        std::vector<Predicate> range;
        range.push_back(MakeLeaf(PredicateOp::kGe, field, {std::move(low)}));
        range.push_back(MakeLeaf(PredicateOp::kLe, field, {std::move(high)}));
        Predicate between = MakeJunction(PredicateOp::kAnd, std::move(range));
        return negated ? MakeNot(std::move(between)) : between;
      }
      if (negated) return Unexpected(Peek(), "IN or BETWEEN after NOT");
    }
    const Token& op_token = Peek();
    if (!IsComparison(op_token)) {
      return Unexpected(op_token, left.column != nullptr
                                      ? "a comparison operator, IN, IS or BETWEEN"
                                      : "a comparison operator");
    }
    PredicateOp op = ComparisonOp(Next().text);
    FJORD_ASSIGN_OR_RAISE(Operand right, ParseOperand());
    if (left.column != nullptr && right.column != nullptr) {
      return FilterError(text_, right.pos,
                         "comparing two columns is not supported; compare a column with a "
                         "literal");
    }
    if (left.column == nullptr && right.column == nullptr) {
      return FilterError(text_, left.pos, "a comparison needs a column on one side");
    }
    if (left.column == nullptr) {
      std::swap(left, right);
      op = Mirror(op);
    }
    FJORD_ASSIGN_OR_RAISE(Value v, ConvertLiteral(right.literal, *left.column));
    return MakeLeaf(op, *left.column, {std::move(v)});
  }

  Result<Value> ParseLiteralFor(const DataField& field) {
    FJORD_ASSIGN_OR_RAISE(Operand operand, ParseOperand());
    if (operand.column != nullptr) {
      return FilterError(text_, operand.pos,
                         "expected a literal, found column '" + operand.column->name + "'");
    }
    return ConvertLiteral(operand.literal, field);
  }

  Result<Operand> ParseOperand() {
    Operand out;
    const Token& t = Peek();
    out.pos = t.pos;
    RawLiteral& lit = out.literal;
    switch (t.kind) {
      case Token::kSymbol: {
        if ((t.text == "-" || t.text == "+") && Peek(1).kind == Token::kNumber) {
          const Token& sign = Next();
          const Token& number = Next();
          lit.kind = LiteralKind::kNumber;
          lit.text = sign.text + number.text;
          lit.source = std::string(text_.substr(sign.pos, number.end - sign.pos));
          return out;
        }
        return Unexpected(t, "a column or a literal");
      }
      case Token::kNumber:
        lit.kind = LiteralKind::kNumber;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kString:
        lit.kind = LiteralKind::kString;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kHex:
        lit.kind = LiteralKind::kHex;
        lit.text = t.text;
        lit.source = std::string(Source(Next()));
        return out;
      case Token::kQuotedName: {
        FJORD_ASSIGN_OR_RAISE(out.column, Resolve(t.text));
        Next();
        return out;
      }
      case Token::kWord: {
        if (IsWord(t, "TRUE") || IsWord(t, "FALSE")) {
          lit.kind = LiteralKind::kBool;
          lit.text = t.text;
          lit.source = std::string(Source(Next()));
          return out;
        }
        if (IsWord(t, "NULL")) {
          lit.kind = LiteralKind::kNull;
          lit.source = std::string(Source(Next()));
          return out;
        }
        if (Peek(1).kind == Token::kString &&
            (IsWord(t, "DATE") || IsWord(t, "TIME") || IsWord(t, "TIMESTAMP"))) {
          lit.kind = IsWord(t, "DATE")   ? LiteralKind::kDate
                     : IsWord(t, "TIME") ? LiteralKind::kTime
                                         : LiteralKind::kTimestamp;
          const Token& keyword = Next();
          const Token& str = Next();
          lit.text = str.text;
          lit.source = std::string(text_.substr(keyword.pos, str.end - keyword.pos));
          return out;
        }
        if (IsReservedWord(t.text)) return Unexpected(t, "a column or a literal");
        FJORD_ASSIGN_OR_RAISE(out.column, Resolve(t.text));
        Next();
        return out;
      }
      case Token::kEnd:
        break;
    }
    return Unexpected(t, "a column or a literal");
  }

  // Exact name first; otherwise a unique case-insensitive match.
  Result<const DataField*> Resolve(const std::string& name) const {
    for (const DataField& f : fields_) {
      if (f.name == name) return &f;
    }
    const DataField* found = nullptr;
    for (const DataField& f : fields_) {
      if (EqualsIgnoreCase(f.name, name)) {
        if (found != nullptr) {
          return Status::Invalid("filter column '", name, "' is ambiguous: '", found->name,
                                 "' and '", f.name, "'");
        }
        found = &f;
      }
    }
    if (found != nullptr) return found;
    std::string known;
    for (const DataField& f : fields_) known += (known.empty() ? "" : ", ") + f.name;
    return Status::Invalid("filter refers to unknown column '", name, "' (columns: ", known, ")");
  }

  std::string_view text_;
  const std::vector<DataField>& fields_;
  std::vector<Token> tokens_;
  size_t next_ = 0;
  int depth_ = 0;
};

// ---------------------------------------------------------------------------------------------
// Exact test

Truth TestLeaf(const Predicate& p, const Value* v) {
  const bool is_null = v == nullptr || v->is_null();
  if (p.op == PredicateOp::kIsNull) return is_null ? Truth::kTrue : Truth::kFalse;
  if (p.op == PredicateOp::kIsNotNull) return is_null ? Truth::kFalse : Truth::kTrue;
  if (is_null) return Truth::kUnknown;
  if (p.op == PredicateOp::kIn || p.op == PredicateOp::kNotIn) {
    bool found = false;
    bool saw_null = false;
    for (const Value& lit : p.literals) {
      if (lit.is_null()) {
        saw_null = true;
      } else if (CompareForFilter(*v, lit, p.type.get()) == 0) {
        found = true;
        break;
      }
    }
    Truth in = found ? Truth::kTrue : (saw_null ? Truth::kUnknown : Truth::kFalse);
    return p.op == PredicateOp::kIn ? in : Negate(in);
  }
  if (p.literals.empty() || p.literals[0].is_null()) return Truth::kUnknown;
  std::optional<int> c = CompareForFilter(*v, p.literals[0], p.type.get());
  if (!c) return p.op == PredicateOp::kNotEq ? Truth::kTrue : Truth::kFalse;  // NaN
  bool r = false;
  switch (p.op) {
    case PredicateOp::kEq:
      r = *c == 0;
      break;
    case PredicateOp::kNotEq:
      r = *c != 0;
      break;
    case PredicateOp::kLt:
      r = *c < 0;
      break;
    case PredicateOp::kLe:
      r = *c <= 0;
      break;
    case PredicateOp::kGt:
      r = *c > 0;
      break;
    case PredicateOp::kGe:
      r = *c >= 0;
      break;
    default:
      return Truth::kUnknown;
  }
  return r ? Truth::kTrue : Truth::kFalse;
}

Truth Eval(const Predicate& p, const std::function<const Value*(const std::string&)>& lookup) {
  switch (p.op) {
    case PredicateOp::kAnd: {
      Truth out = Truth::kTrue;
      for (const Predicate& c : p.children) {
        Truth t = Eval(c, lookup);
        if (t == Truth::kFalse) return t;
        if (t == Truth::kUnknown) out = t;
      }
      return out;
    }
    case PredicateOp::kOr: {
      Truth out = Truth::kFalse;
      for (const Predicate& c : p.children) {
        Truth t = Eval(c, lookup);
        if (t == Truth::kTrue) return t;
        if (t == Truth::kUnknown) out = t;
      }
      return out;
    }
    case PredicateOp::kNot:
      if (p.children.size() != 1) return Truth::kUnknown;
      return Negate(Eval(p.children[0], lookup));
    default:
      return TestLeaf(p, lookup(p.field));
  }
}

// ---------------------------------------------------------------------------------------------
// Statistics

// `op` is the leaf's operator, or its negation when the leaf sits under an odd number of NOTs.
bool LeafMayMatch(const Predicate& p, PredicateOp op, const ColumnStats* s, int64_t row_count) {
  if (s == nullptr) return true;
  const bool no_nulls = s->null_count && *s->null_count <= 0;
  const bool all_null = s->null_count && row_count >= 0 && *s->null_count >= row_count;
  if (op == PredicateOp::kIsNull) return !no_nulls;
  if (op == PredicateOp::kIsNotNull) return !all_null;
  // Every comparison is unknown, hence false, on a NULL.
  if (all_null) return false;

  const DataType* type = p.type.get();
  const bool floating =
      IsFloatingType(type) || std::any_of(p.literals.begin(), p.literals.end(), IsFloatingValue);
  if (floating && std::any_of(p.literals.begin(), p.literals.end(), IsNaN)) return true;
  const bool has_null_literal =
      p.literals.empty() ||
      std::any_of(p.literals.begin(), p.literals.end(), [](const Value& v) { return v.is_null(); });
  if (op == PredicateOp::kNotEq || op == PredicateOp::kNotIn) {
    if (has_null_literal) return false;  // x <> NULL and x NOT IN (.., NULL) are never true
    // Statistics leave NaNs out, and NaN <> v holds.
    if (floating) return true;
  } else if (op != PredicateOp::kIn && has_null_literal) {
    return false;
  }

  const Value* lo = s->min && !s->min->is_null() && !IsNaN(*s->min) ? &*s->min : nullptr;
  const Value* hi = s->max && !s->max->is_null() && !IsNaN(*s->max) ? &*s->max : nullptr;
  // Neither side is NaN here, so the comparison is ordered.
  auto cmp = [&](const Value& a, const Value& b) {
    return CompareForFilter(a, b, type).value_or(0);
  };
  auto may_equal = [&](const Value& v) {
    return (lo == nullptr || cmp(*lo, v) <= 0) && (hi == nullptr || cmp(v, *hi) <= 0);
  };
  const Value& lit = p.literals[0];
  switch (op) {
    case PredicateOp::kEq:
      return may_equal(lit);
    case PredicateOp::kLt:
      return lo == nullptr || cmp(*lo, lit) < 0;
    case PredicateOp::kLe:
      return lo == nullptr || cmp(*lo, lit) <= 0;
    case PredicateOp::kGt:
      return hi == nullptr || cmp(*hi, lit) > 0;
    case PredicateOp::kGe:
      return hi == nullptr || cmp(*hi, lit) >= 0;
    case PredicateOp::kIn:
      return std::any_of(p.literals.begin(), p.literals.end(),
                         [&](const Value& v) { return !v.is_null() && may_equal(v); });
    case PredicateOp::kNotEq:
      // Only when every non-null value is `lit` (NULLs fail <> as well).
      return !(lo != nullptr && hi != nullptr && cmp(*lo, lit) == 0 && cmp(*hi, lit) == 0);
    case PredicateOp::kNotIn: {
      if (lo == nullptr || hi == nullptr) return true;
      if (cmp(*lo, *hi) == 0) {
        return std::none_of(p.literals.begin(), p.literals.end(),
                            [&](const Value& v) { return cmp(*lo, v) == 0; });
      }
      // Integral columns: false when the list covers every value of [min, max].
      if (!IsIntegralValue(*lo) || !IsIntegralValue(*hi)) return true;
      const int64_t a = lo->AsInt64();
      const int64_t b = hi->AsInt64();
      if (b < a || static_cast<Int128>(b) - a >= static_cast<Int128>(p.literals.size())) {
        return true;
      }
      std::set<int64_t> covered;
      for (const Value& v : p.literals) {
        if (IsIntegralValue(v) && v.AsInt64() >= a && v.AsInt64() <= b) covered.insert(v.AsInt64());
      }
      return static_cast<int64_t>(covered.size()) != b - a + 1;
    }
    default:
      return true;
  }
}

bool MayMatchImpl(const Predicate& p, bool negated,
                  const std::function<const ColumnStats*(const std::string&)>& stats,
                  int64_t row_count) {
  auto child_may_match = [&](bool child_negated) {
    return [&, child_negated](const Predicate& c) {
      return MayMatchImpl(c, child_negated, stats, row_count);
    };
  };
  switch (p.op) {
    // NOT (a AND b) = NOT a OR NOT b and NOT (a OR b) = NOT a AND NOT b hold in Kleene logic.
    case PredicateOp::kAnd:
      return negated ? std::any_of(p.children.begin(), p.children.end(), child_may_match(true))
                     : std::all_of(p.children.begin(), p.children.end(), child_may_match(false));
    case PredicateOp::kOr:
      return negated ? std::all_of(p.children.begin(), p.children.end(), child_may_match(true))
                     : std::any_of(p.children.begin(), p.children.end(), child_may_match(false));
    case PredicateOp::kNot:
      if (p.children.size() != 1) return true;
      return MayMatchImpl(p.children[0], !negated, stats, row_count);
    default:
      if (negated && !LeafNegatable(p)) return true;
      return LeafMayMatch(p, negated ? NegatedLeafOp(p.op) : p.op, stats(p.field), row_count);
  }
}

// A predicate implied by NOT p, without NOT at the top; nullopt when that is only TRUE.
std::optional<Predicate> NegateWeakly(const Predicate& p) {
  switch (p.op) {
    case PredicateOp::kAnd: {
      // NOT (a AND b) = NOT a OR NOT b: every disjunct must be expressible.
      std::vector<Predicate> out;
      for (const Predicate& c : p.children) {
        std::optional<Predicate> n = NegateWeakly(c);
        if (!n) return std::nullopt;
        out.push_back(std::move(*n));
      }
      return MakeJunction(PredicateOp::kOr, std::move(out));
    }
    case PredicateOp::kOr: {
      // NOT (a OR b) = NOT a AND NOT b: dropping a conjunct only weakens.
      std::vector<Predicate> out;
      for (const Predicate& c : p.children) {
        std::optional<Predicate> n = NegateWeakly(c);
        if (n) out.push_back(std::move(*n));
      }
      if (out.empty()) return std::nullopt;
      return MakeJunction(PredicateOp::kAnd, std::move(out));
    }
    case PredicateOp::kNot:
      if (p.children.size() != 1) return std::nullopt;
      return p.children[0];
    default: {
      if (!LeafNegatable(p)) return std::nullopt;
      Predicate n = p;
      n.op = NegatedLeafOp(p.op);
      return n;
    }
  }
}

void CollectColumns(const Predicate& p, std::vector<std::string>* out) {
  if (p.IsLeaf()) {
    if (std::find(out->begin(), out->end(), p.field) == out->end()) out->push_back(p.field);
    return;
  }
  for (const Predicate& c : p.children) CollectColumns(c, out);
}

// ---------------------------------------------------------------------------------------------
// Arrow

Status EnsureComputeInitialized() {
  static const arrow::Status kInit = arrow::compute::Initialize();
  return FromArrow(kInit);
}

template <typename ScalarT>
Result<std::shared_ptr<arrow::Scalar>> IntegerScalar(const Value& v, const std::string& what) {
  using C = typename ScalarT::ValueType;
  if (!IsIntegralValue(v)) return Status::Invalid(what, " is not an integer");
  int64_t x = v.AsInt64();
  if (x < static_cast<int64_t>(std::numeric_limits<C>::min()) ||
      x > static_cast<int64_t>(std::numeric_limits<C>::max())) {
    return Status::Invalid(what, " is out of range");
  }
  return std::static_pointer_cast<arrow::Scalar>(std::make_shared<ScalarT>(static_cast<C>(x)));
}

// `ts` in `unit`, when it is exact there.
Result<int64_t> TimestampIn(const Timestamp& ts, arrow::TimeUnit::type unit,
                            const std::string& what) {
  int64_t out = 0;
  bool exact = true;
  bool overflow = false;
  switch (unit) {
    case arrow::TimeUnit::SECOND:
      exact = ts.nanos_of_milli == 0 && ts.millis % 1000 == 0;
      out = ts.millis / 1000;
      break;
    case arrow::TimeUnit::MILLI:
      exact = ts.nanos_of_milli == 0;
      out = ts.millis;
      break;
    case arrow::TimeUnit::MICRO:
      exact = ts.nanos_of_milli % 1000 == 0;
      overflow = __builtin_mul_overflow(ts.millis, int64_t{1000}, &out) ||
                 __builtin_add_overflow(out, int64_t{ts.nanos_of_milli / 1000}, &out);
      break;
    case arrow::TimeUnit::NANO:
      overflow = __builtin_mul_overflow(ts.millis, int64_t{1000000}, &out) ||
                 __builtin_add_overflow(out, int64_t{ts.nanos_of_milli}, &out);
      break;
  }
  if (!exact) return Status::Invalid(what, " has finer precision than the column");
  if (overflow) return Status::Invalid(what, " is out of range for the column");
  return out;
}

// The literal as a scalar of the column's Arrow type, so that kernels need no casts.
Result<std::shared_ptr<arrow::Scalar>> ToScalar(const Value& v,
                                                const std::shared_ptr<arrow::DataType>& type,
                                                const Predicate& p) {
  if (v.is_null()) return arrow::MakeNullScalar(type);
  const std::string what = "literal " + LiteralToString(v, p.type.get());
  using S = std::shared_ptr<arrow::Scalar>;
  switch (type->id()) {
    case arrow::Type::BOOL:
      if (!v.is<bool>()) break;
      return S(std::make_shared<arrow::BooleanScalar>(v.get<bool>()));
    case arrow::Type::INT8:
      return IntegerScalar<arrow::Int8Scalar>(v, what);
    case arrow::Type::INT16:
      return IntegerScalar<arrow::Int16Scalar>(v, what);
    case arrow::Type::INT32:
      return IntegerScalar<arrow::Int32Scalar>(v, what);
    case arrow::Type::INT64:
      return IntegerScalar<arrow::Int64Scalar>(v, what);
    case arrow::Type::FLOAT:
      if (!IsFloatingValue(v) && !IsIntegralValue(v)) break;
      return S(std::make_shared<arrow::FloatScalar>(static_cast<float>(AsDouble(v))));
    case arrow::Type::DOUBLE:
      if (!IsFloatingValue(v) && !IsIntegralValue(v)) break;
      return S(std::make_shared<arrow::DoubleScalar>(AsDouble(v)));
    case arrow::Type::DECIMAL128: {
      if (!v.is<Decimal>()) break;
      const Decimal& d = v.get<Decimal>();
      const auto& dt = static_cast<const arrow::Decimal128Type&>(*type);
      arrow::Decimal128 value(static_cast<int64_t>(d.unscaled >> 64),
                              static_cast<uint64_t>(d.unscaled));
      if (d.scale != dt.scale()) {
        arrow::Result<arrow::Decimal128> rescaled = value.Rescale(d.scale, dt.scale());
        if (!rescaled.ok()) return Status::Invalid(what, " does not fit ", type->ToString());
        value = *rescaled;
      }
      return S(std::make_shared<arrow::Decimal128Scalar>(value, type));
    }
    case arrow::Type::STRING:
      if (!v.is<std::string>()) break;
      return S(std::make_shared<arrow::StringScalar>(v.get<std::string>()));
    case arrow::Type::LARGE_STRING:
      if (!v.is<std::string>()) break;
      return S(std::make_shared<arrow::LargeStringScalar>(v.get<std::string>()));
    case arrow::Type::BINARY:
      if (!v.is<std::string>()) break;
      return S(std::make_shared<arrow::BinaryScalar>(v.get<std::string>()));
    case arrow::Type::LARGE_BINARY:
      if (!v.is<std::string>()) break;
      return S(std::make_shared<arrow::LargeBinaryScalar>(v.get<std::string>()));
    case arrow::Type::DATE32:
      if (!v.is<int32_t>()) break;
      return S(std::make_shared<arrow::Date32Scalar>(v.get<int32_t>()));
    case arrow::Type::TIME32: {
      if (!v.is<int32_t>()) break;
      int32_t ms = v.get<int32_t>();
      const auto& tt = static_cast<const arrow::Time32Type&>(*type);
      if (tt.unit() == arrow::TimeUnit::MILLI) {
        return S(std::make_shared<arrow::Time32Scalar>(ms, type));
      }
      if (ms % 1000 != 0) return Status::Invalid(what, " has finer precision than the column");
      return S(std::make_shared<arrow::Time32Scalar>(ms / 1000, type));
    }
    case arrow::Type::TIME64: {
      if (!v.is<int32_t>()) break;
      const auto& tt = static_cast<const arrow::Time64Type&>(*type);
      int64_t factor = tt.unit() == arrow::TimeUnit::MICRO ? 1000 : 1000000;
      return S(std::make_shared<arrow::Time64Scalar>(int64_t{v.get<int32_t>()} * factor, type));
    }
    case arrow::Type::TIMESTAMP: {
      if (!v.is<Timestamp>()) break;
      const auto& tt = static_cast<const arrow::TimestampType&>(*type);
      FJORD_ASSIGN_OR_RAISE(int64_t x, TimestampIn(v.get<Timestamp>(), tt.unit(), what));
      return S(std::make_shared<arrow::TimestampScalar>(x, type));
    }
    default:
      return Status::NotImplemented("filters on Arrow type ", type->ToString(),
                                    " are not supported");
  }
  return Status::Invalid(what, " does not match the column's Arrow type ", type->ToString());
}

Result<arrow::Datum> Call(const std::string& name, const std::vector<arrow::Datum>& args,
                          const arrow::compute::FunctionOptions* options = nullptr) {
  FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Datum out, arrow::compute::CallFunction(name, args, options));
  return out;
}

Result<arrow::Datum> ConstantMask(bool value, int64_t length) {
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> a,
                              arrow::MakeArrayFromScalar(arrow::BooleanScalar(value), length));
  return arrow::Datum(a);
}

const char* ComparisonFunction(PredicateOp op) {
  switch (op) {
    case PredicateOp::kEq:
      return "equal";
    case PredicateOp::kNotEq:
      return "not_equal";
    case PredicateOp::kLt:
      return "less";
    case PredicateOp::kLe:
      return "less_equal";
    case PredicateOp::kGt:
      return "greater";
    case PredicateOp::kGe:
      return "greater_equal";
    default:
      return nullptr;
  }
}

Result<arrow::Datum> EvaluateLeaf(const Predicate& p, const arrow::RecordBatch& batch) {
  std::shared_ptr<arrow::Array> column = batch.GetColumnByName(p.field);
  if (column == nullptr) {
    return Status::Invalid("filter column '", p.field,
                           "' is not in the batch (columns: ", batch.schema()->ToString(), ")");
  }
  arrow::Datum input(column);
  switch (p.op) {
    case PredicateOp::kIsNull:
      return Call("is_null", {input});
    case PredicateOp::kIsNotNull:
      return Call("is_valid", {input});
    case PredicateOp::kIn:
    case PredicateOp::kNotIn: {
      const auto& type = column->type();
      std::vector<std::shared_ptr<arrow::Scalar>> scalars;
      for (const Value& v : p.literals) {
        FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Scalar> s, ToScalar(v, type, p));
        scalars.push_back(std::move(s));
      }
      arrow::Datum in;
      if (type->id() == arrow::Type::FLOAT || type->id() == arrow::Type::DOUBLE) {
        // IEEE equality, as Test does (is_in would match NaN with NaN).
        FJORD_ASSIGN_OR_RAISE(in, ConstantMask(false, batch.num_rows()));
        bool saw_null = false;
        for (const auto& s : scalars) {
          if (!s->is_valid) {
            saw_null = true;
            continue;
          }
          FJORD_ASSIGN_OR_RAISE(arrow::Datum eq, Call("equal", {input, arrow::Datum(s)}));
          FJORD_ASSIGN_OR_RAISE(in, Call("or_kleene", {in, eq}));
        }
        if (saw_null) {
          // x IN (..., NULL) is unknown where it is not true.
          FJORD_ASSIGN_OR_RAISE(arrow::Datum unknown,
                                Call("equal", {input, arrow::Datum(arrow::MakeNullScalar(type))}));
          FJORD_ASSIGN_OR_RAISE(in, Call("or_kleene", {in, unknown}));
        }
        // Rows whose column is NULL are unknown.
        FJORD_ASSIGN_OR_RAISE(arrow::Datum valid, Call("is_valid", {input}));
        FJORD_ASSIGN_OR_RAISE(
            arrow::Datum null_mask,
            Call("if_else", {valid, in, arrow::Datum(arrow::MakeNullScalar(arrow::boolean()))}));
        in = std::move(null_mask);
      } else {
        std::unique_ptr<arrow::ArrayBuilder> builder;
        FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &builder));
        FJORD_ARROW_RETURN_NOT_OK(builder->AppendScalars(scalars));
        FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> value_set, builder->Finish());
        arrow::compute::SetLookupOptions options(arrow::Datum(value_set),
                                                 arrow::compute::SetLookupOptions::INCONCLUSIVE);
        FJORD_ASSIGN_OR_RAISE(in, Call("is_in", {input}, &options));
      }
      if (p.op == PredicateOp::kIn) return in;
      return Call("invert", {in});
    }
    default: {
      const char* function = ComparisonFunction(p.op);
      if (function == nullptr) return Status::Internal("not a leaf operator");
      const Value null_literal;
      const Value& lit = p.literals.empty() ? null_literal : p.literals[0];
      FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Scalar> s, ToScalar(lit, column->type(), p));
      return Call(function, {input, arrow::Datum(s)});
    }
  }
}

Result<arrow::Datum> EvaluateDatum(const Predicate& p, const arrow::RecordBatch& batch) {
  switch (p.op) {
    case PredicateOp::kAnd:
    case PredicateOp::kOr: {
      const bool is_and = p.op == PredicateOp::kAnd;
      if (p.children.empty()) return ConstantMask(is_and, batch.num_rows());
      FJORD_ASSIGN_OR_RAISE(arrow::Datum acc, EvaluateDatum(p.children[0], batch));
      for (size_t i = 1; i < p.children.size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(arrow::Datum next, EvaluateDatum(p.children[i], batch));
        FJORD_ASSIGN_OR_RAISE(acc, Call(is_and ? "and_kleene" : "or_kleene", {acc, next}));
      }
      return acc;
    }
    case PredicateOp::kNot: {
      if (p.children.size() != 1) {
        return Status::Invalid("NOT needs exactly one operand, has ", p.children.size());
      }
      FJORD_ASSIGN_OR_RAISE(arrow::Datum inner, EvaluateDatum(p.children[0], batch));
      return Call("invert", {inner});
    }
    default: {
      Result<arrow::Datum> r = EvaluateLeaf(p, batch);
      if (!r.ok()) return r.status().WithContext("evaluating filter '", p.ToString(), "'");
      return r;
    }
  }
}

}  // namespace

// -----------------------------------------------------------------------------------------------
// Predicate

Result<Predicate> Predicate::Parse(std::string_view text, const std::vector<DataField>& fields) {
  return Parser(text, fields).Run();
}

bool Predicate::Test(const std::function<const Value*(const std::string&)>& lookup) const {
  return Eval(*this, lookup) == Truth::kTrue;
}

bool Predicate::MayMatch(const std::function<const ColumnStats*(const std::string&)>& stats,
                         int64_t row_count) const {
  return MayMatchImpl(*this, /*negated=*/false, stats, row_count);
}

std::optional<Predicate> Predicate::Restrict(const std::vector<std::string>& columns) const {
  auto known = [&](const std::string& name) {
    return std::find(columns.begin(), columns.end(), name) != columns.end();
  };
  switch (op) {
    case PredicateOp::kAnd: {
      if (children.empty()) return std::nullopt;
      std::vector<Predicate> kept;
      for (const Predicate& c : children) {
        std::optional<Predicate> r = c.Restrict(columns);
        if (r) kept.push_back(std::move(*r));
      }
      if (kept.empty()) return std::nullopt;
      return MakeJunction(PredicateOp::kAnd, std::move(kept));
    }
    case PredicateOp::kOr: {
      std::vector<Predicate> kept;
      for (const Predicate& c : children) {
        std::optional<Predicate> r = c.Restrict(columns);
        if (!r) return std::nullopt;  // that branch may hold whatever the columns say
        kept.push_back(std::move(*r));
      }
      if (kept.empty()) return *this;  // FALSE
      return MakeJunction(PredicateOp::kOr, std::move(kept));
    }
    case PredicateOp::kNot: {
      if (children.size() != 1) return std::nullopt;
      std::vector<std::string> used = Columns();
      if (std::all_of(used.begin(), used.end(), known)) return *this;
      // Push the NOT down to the leaves, then restrict what can be.
      std::optional<Predicate> pushed = NegateWeakly(children[0]);
      if (!pushed) return std::nullopt;
      return pushed->Restrict(columns);
    }
    default:
      if (known(field)) return *this;
      return std::nullopt;
  }
}

std::vector<std::string> Predicate::Columns() const {
  std::vector<std::string> out;
  CollectColumns(*this, &out);
  return out;
}

Result<std::shared_ptr<arrow::Array>> Predicate::Evaluate(const arrow::RecordBatch& batch) const {
  FJORD_RETURN_NOT_OK(EnsureComputeInitialized());
  FJORD_ASSIGN_OR_RAISE(arrow::Datum mask, EvaluateDatum(*this, batch));
  if (!mask.is_array() || mask.type()->id() != arrow::Type::BOOL ||
      mask.length() != batch.num_rows()) {
    return Status::Internal("filter '", ToString(), "' did not produce a boolean mask");
  }
  std::shared_ptr<arrow::Array> out = mask.make_array();
  if (out->null_count() != 0) {
    // NULL (unknown) rows are dropped.
    FJORD_ASSIGN_OR_RAISE(
        arrow::Datum filled,
        Call("coalesce",
             {arrow::Datum(out), arrow::Datum(std::make_shared<arrow::BooleanScalar>(false))}));
    out = filled.make_array();
  }
  return out;
}

std::string Predicate::ToString() const {
  auto child_text = [](const Predicate& c, bool parenthesize) {
    std::string s = c.ToString();
    return parenthesize ? "(" + s + ")" : s;
  };
  // AND binds tighter than OR, so only an OR inside an AND needs parentheses.
  auto join = [&](const char* sep) {
    std::string out;
    for (size_t i = 0; i < children.size(); ++i) {
      if (i > 0) out += sep;
      const Predicate& c = children[i];
      bool nested_or = op == PredicateOp::kAnd && c.op == PredicateOp::kOr && !c.children.empty();
      out += child_text(c, nested_or);
    }
    return out;
  };
  switch (op) {
    case PredicateOp::kAnd:
      if (children.empty()) return "TRUE";
      return join(" AND ");
    case PredicateOp::kOr:
      if (children.empty()) return "FALSE";
      return join(" OR ");
    case PredicateOp::kNot: {
      if (children.size() != 1) return "NOT (?)";
      const Predicate& c = children[0];
      bool bare = c.op == PredicateOp::kNot || (!c.IsLeaf() && c.children.empty());
      return "NOT " + child_text(c, !bare);
    }
    default:
      break;
  }
  const DataType* t = type.get();
  std::string name = QuoteName(field);
  auto literal = [&](size_t i) {
    return i < literals.size() ? LiteralToString(literals[i], t) : std::string("NULL");
  };
  switch (op) {
    case PredicateOp::kEq:
      return name + " = " + literal(0);
    case PredicateOp::kNotEq:
      return name + " <> " + literal(0);
    case PredicateOp::kLt:
      return name + " < " + literal(0);
    case PredicateOp::kLe:
      return name + " <= " + literal(0);
    case PredicateOp::kGt:
      return name + " > " + literal(0);
    case PredicateOp::kGe:
      return name + " >= " + literal(0);
    case PredicateOp::kIn:
    case PredicateOp::kNotIn: {
      std::string out = name + (op == PredicateOp::kIn ? " IN (" : " NOT IN (");
      for (size_t i = 0; i < literals.size(); ++i) {
        if (i > 0) out += ", ";
        out += literal(i);
      }
      return out + ")";
    }
    case PredicateOp::kIsNull:
      return name + " IS NULL";
    case PredicateOp::kIsNotNull:
      return name + " IS NOT NULL";
    default:
      return "?";
  }
}

}  // namespace fjord
