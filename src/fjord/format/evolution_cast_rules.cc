// Which type changes Java Paimon allows and casts: DataTypeCasts' implicit and explicit rules
// (paimon-api types/DataTypeCasts.java, families of types/DataTypeRoot.java) and which pairs
// CastExecutors resolves to an executor (paimon-common casting/CastExecutors.java and the
// predicates of its *CastRule classes).
#include <climits>
#include <initializer_list>

#include "fjord/format/evolution_cast.h"

namespace fjord {

namespace {

// Java's DataTypeFamily, as bits.
enum Family : unsigned {
  kPredefined = 1u << 0,
  kConstructed = 1u << 1,
  kCharacterString = 1u << 2,
  kBinaryString = 1u << 3,
  kNumeric = 1u << 4,
  kIntegerNumeric = 1u << 5,
  kExactNumeric = 1u << 6,
  kApproximateNumeric = 1u << 7,
  kDatetime = 1u << 8,
  kTimeFamily = 1u << 9,
  kTimestampFamily = 1u << 10,
  kCollection = 1u << 11,
  kExtension = 1u << 12,
};

// DataTypeRoot's families (paimon-api types/DataTypeRoot.java).
unsigned Families(TypeRoot r) {
  switch (r) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return kPredefined | kCharacterString;
    case TypeRoot::kBoolean:
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
      return kPredefined;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return kPredefined | kBinaryString;
    case TypeRoot::kDecimal:
      return kPredefined | kNumeric | kExactNumeric;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
      return kPredefined | kNumeric | kIntegerNumeric | kExactNumeric;
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
      return kPredefined | kNumeric | kApproximateNumeric;
    case TypeRoot::kDate:
      return kPredefined | kDatetime;
    case TypeRoot::kTime:
      return kPredefined | kDatetime | kTimeFamily;
    case TypeRoot::kTimestamp:
      return kPredefined | kDatetime | kTimestampFamily;
    case TypeRoot::kTimestampLtz:
      return kPredefined | kDatetime | kTimestampFamily | kExtension;
    case TypeRoot::kArray:
    case TypeRoot::kVector:
    case TypeRoot::kMultiset:
      return kConstructed | kCollection;
    case TypeRoot::kMap:
      return kConstructed | kExtension;
    case TypeRoot::kRow:
      return kConstructed;
  }
  return 0;
}

bool Is(TypeRoot r, unsigned families) { return (Families(r) & families) != 0; }
bool In(TypeRoot r, std::initializer_list<TypeRoot> roots) {
  for (TypeRoot x : roots) {
    if (x == r) return true;
  }
  return false;
}

constexpr TypeRoot kTs = TypeRoot::kTimestamp;
constexpr TypeRoot kLtz = TypeRoot::kTimestampLtz;

// DataTypeCasts' implicit rules: may `from` become `to` without an explicit cast?
bool ImplicitRoot(TypeRoot from, TypeRoot to) {
  if (from == to) return true;
  switch (to) {
    case TypeRoot::kVarChar:
      return Is(from, kCharacterString);
    case TypeRoot::kVarBinary:
      return Is(from, kBinaryString);
    case TypeRoot::kDecimal:
    case TypeRoot::kDouble:
      return Is(from, kNumeric);
    case TypeRoot::kSmallInt:
      return from == TypeRoot::kTinyInt;
    case TypeRoot::kInt:
      return In(from, {TypeRoot::kTinyInt, TypeRoot::kSmallInt});
    case TypeRoot::kBigInt:
      return Is(from, kIntegerNumeric);
    case TypeRoot::kFloat:
      return Is(from, kIntegerNumeric) || from == TypeRoot::kDecimal;
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return from == kTs;
    case TypeRoot::kTimestamp:
      return from == kLtz;
    case TypeRoot::kTimestampLtz:
      return from == kTs;
    default:
      return false;
  }
}

// DataTypeCasts' explicit rules.
bool ExplicitRoot(TypeRoot from, TypeRoot to) {
  switch (to) {
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Is(from, kPredefined | kConstructed);
    case TypeRoot::kBoolean:
      return Is(from, kCharacterString | kIntegerNumeric);
    case TypeRoot::kBinary:
      return Is(from, kCharacterString) || from == TypeRoot::kVarBinary;
    case TypeRoot::kVarBinary:
      return Is(from, kCharacterString) || from == TypeRoot::kBinary;
    case TypeRoot::kDecimal:
    case TypeRoot::kDouble:
      return Is(from, kCharacterString) || In(from, {TypeRoot::kBoolean, kTs, kLtz});
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
      return Is(from, kNumeric | kCharacterString) || In(from, {TypeRoot::kBoolean, kTs, kLtz});
    case TypeRoot::kDate:
      return Is(from, kTimestampFamily | kCharacterString);
    case TypeRoot::kTime:
      return Is(from, kTimeFamily | kTimestampFamily | kCharacterString);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return Is(from, kDatetime | kCharacterString | kNumeric);
    default:
      return false;
  }
}

bool IsStringType(const DataType& t) {  // Java's DataTypes.STRING(): VARCHAR of the largest length
  return t.root() == TypeRoot::kVarChar && t.length() == INT32_MAX;
}

// CastExecutors.resolve(from, to) != null, for roots that differ or types that differ otherwise.
bool JavaHasRule(const DataType& from, const DataType& to) {
  TypeRoot f = from.root(), t = to.root();
  bool to_number = Is(t, kIntegerNumeric | kApproximateNumeric);
  bool from_number = Is(f, kIntegerNumeric | kApproximateNumeric);
  if (Is(f, kCharacterString)) {
    return Is(t, kCharacterString | kBinaryString | kTimestampFamily) || to_number ||
           In(t, {TypeRoot::kBoolean, TypeRoot::kDecimal, TypeRoot::kDate, TypeRoot::kTime});
  }
  if (Is(t, kCharacterString)) {
    if (Is(f, kNumeric | kBinaryString) || f == TypeRoot::kBoolean) return true;
    if (Is(f, kTimestampFamily) || In(f, {TypeRoot::kDate, TypeRoot::kTime})) {
      return IsStringType(to);
    }
    // ArrayToStringCastRule, MapToStringCastRule, RowToStringCastRule (not MULTISET)
    return In(f, {TypeRoot::kArray, TypeRoot::kMap, TypeRoot::kRow});
  }
  if (Is(f, kBinaryString)) return Is(t, kBinaryString);
  if (f == TypeRoot::kDecimal) return t == TypeRoot::kDecimal || to_number;
  if (from_number) {
    if (t == TypeRoot::kDecimal || to_number) return true;
    if (t == TypeRoot::kBoolean) return Is(f, kIntegerNumeric);
    if (Is(t, kTimestampFamily)) return In(f, {TypeRoot::kInt, TypeRoot::kBigInt});
    return false;
  }
  if (f == TypeRoot::kBoolean) return Is(t, kNumeric);
  if (Is(f, kTimestampFamily)) {
    return Is(t, kTimestampFamily) ||
           In(t, {TypeRoot::kDate, TypeRoot::kTime, TypeRoot::kInt, TypeRoot::kBigInt});
  }
  if (In(f, {TypeRoot::kDate, TypeRoot::kTime})) return Is(t, kTimestampFamily);
  return false;
}

}  // namespace

bool SupportsCast(const DataType& from, const DataType& to, bool allow_explicit) {
  if (from.nullable() && !to.nullable() && !allow_explicit) return false;
  if (from.EqualsIgnoreNullable(to)) return true;
  if (ImplicitRoot(from.root(), to.root())) return true;
  return allow_explicit && ExplicitRoot(from.root(), to.root());
}

bool HasEvolutionCast(const DataType& from, const DataType& to) {
  if (from.EqualsIgnoreNullable(to)) return true;
  if (to.IsNested()) return false;  // changes inside nested types: not yet
  return JavaHasRule(from, to);
}

}  // namespace fjord
