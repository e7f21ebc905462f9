// Private to the predicate units (predicate*.cc): what they share. The tree helpers and
// comparison rules (predicate.cc), the characters of the filter language, and the literals
// (predicate_literal.cc: text to Value and back).
#pragma once

#include <algorithm>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/common/strings.h"
#include "fjord/expr/predicate.h"

namespace fjord::predicate_internal {

// ---------------------------------------------------------------------------------------------
// Tree helpers and comparison rules (predicate.cc)

// Kleene truth values: SQL's three-valued logic.
enum class Truth : unsigned char { kFalse, kTrue, kUnknown };

inline Truth Negate(Truth t) {
  if (t == Truth::kUnknown) return t;
  return t == Truth::kTrue ? Truth::kFalse : Truth::kTrue;
}

bool IsFloatingType(const DataType* type);
bool IsFloatingValue(const Value& v);
bool IsIntegralValue(const Value& v);
double AsDouble(const Value& v);
bool IsNaN(const Value& v);
bool IsOrderingOp(PredicateOp op);
// The leaf operator that holds exactly when `op` is false on a non-null value. Callers check
// beforehand that the column is not floating when `op` orders (NaN is neither < nor >=).
PredicateOp NegatedLeafOp(PredicateOp op);
// Whether NOT of this leaf is again a single leaf. It is not for orderings on FLOAT/DOUBLE:
// NOT (f < 1) holds for NaN, f >= 1 does not.
bool LeafNegatable(const Predicate& p);
// Orders two non-null values for filtering: -1, 0 or 1, or nullopt when they are unordered.
// FLOAT/DOUBLE compare as IEEE numbers like SQL and Arrow do (-0.0 = 0.0; NaN is unordered and
// equals nothing, not even itself); everything else as CompareValues.
std::optional<int> CompareForFilter(const Value& a, const Value& b, const DataType* type);
// AND / OR of `children`; a single child stands for itself.
Predicate MakeJunction(PredicateOp op, std::vector<Predicate> children);

// ---------------------------------------------------------------------------------------------
// Characters of the filter language

inline constexpr std::string_view kReservedWords[] = {"AND",  "OR",   "NOT",   "IN",     "IS",
                                                      "NULL", "TRUE", "FALSE", "BETWEEN"};

inline bool IsReservedWord(std::string_view word) {
  return std::any_of(std::begin(kReservedWords), std::end(kReservedWords),
                     [&](std::string_view kw) { return EqualsIgnoreCase(word, kw); });
}

inline bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
inline bool IsDigit(char c) { return c >= '0' && c <= '9'; }
inline bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '$'; }
// White space between tokens and around literals (no vertical tab).
inline constexpr std::string_view kSpaceChars = " \t\n\r\f";
inline bool IsSpace(char c) { return kSpaceChars.find(c) != std::string_view::npos; }
inline std::string_view TrimSpace(std::string_view s) { return Trim(s, kSpaceChars); }

// ---------------------------------------------------------------------------------------------
// Literals (predicate_literal.cc)

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

// The literal as a Value of the column's type; errors name the column and the literal.
Result<Value> ConvertLiteral(const RawLiteral& lit, const DataField& field);
// A column name as the parser reads it back: bare when it is a plain identifier, else `quoted`.
std::string QuoteName(const std::string& name);
// A literal as the parser reads it back for a column of `type`.
std::string LiteralToString(const Value& v, const DataType* type);

}  // namespace fjord::predicate_internal
