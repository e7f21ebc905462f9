#include "fjord/lsm/aggregators.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "fjord/common/strings.h"

namespace fjord {

Status FieldAggregator::AggReversed(Value* acc, const Value& in) {
  Value older = in;
  FJORD_RETURN_NOT_OK(Agg(&older, *acc));
  *acc = std::move(older);
  return Status::OK();
}

Status FieldAggregator::Retract(Value* /*acc*/, const Value& /*in*/) {
  return Status::Invalid("aggregate function '", function_, "' of column '", column_,
                         "' does not support retraction (-U/-D records); set 'fields.", column_,
                         ".ignore-retract' = 'true' to ignore retractions for this column");
}

namespace {

__extension__ typedef unsigned __int128 UInt128;

using ListPtr = std::shared_ptr<const ValueList>;
using MapPtr = std::shared_ptr<const ValueMap>;

Status WrongRepresentation(const FieldAggregator& agg, const Value& v) {
  return agg.Error("value ", ValueToString(v, agg.type()), " does not hold a ",
                   agg.type().ToString());
}

// ---------------------------------------------------------------------------------------------
// Java integer arithmetic: two's complement wrap-around, truncating division.

template <typename T>
using WideUnsigned = std::conditional_t<(sizeof(T) < 4), uint32_t, std::make_unsigned_t<T>>;

template <typename T>
T WrapAdd(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(static_cast<W>(a) + static_cast<W>(b)));
}
template <typename T>
T WrapSub(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(static_cast<W>(a) - static_cast<W>(b)));
}
template <typename T>
T WrapMul(T a, T b) {
  using W = WideUnsigned<T>;
  return static_cast<T>(static_cast<W>(static_cast<W>(a) * static_cast<W>(b)));
}

// ---------------------------------------------------------------------------------------------
// Decimal arithmetic with Java's rounding (HALF_UP) and overflow rules.

constexpr int32_t kMaxCompactPrecision = 18;  // Java keeps such decimals in a long

UInt128 Pow10(int32_t n) {
  UInt128 v = 1;
  for (int32_t i = 0; i < n; ++i) v *= 10;
  return v;
}

UInt128 Magnitude(Int128 v) { return v < 0 ? UInt128(0) - static_cast<UInt128>(v) : UInt128(v); }

// 256-bit unsigned, for products of two 38-digit unscaled values.
struct U256 {
  UInt128 hi = 0;
  UInt128 lo = 0;
};

U256 MulWide(UInt128 a, UInt128 b) {
  const UInt128 mask = ~uint64_t{0};
  UInt128 a0 = a & mask, a1 = a >> 64, b0 = b & mask, b1 = b >> 64;
  UInt128 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
  UInt128 mid = (p00 >> 64) + (p01 & mask) + (p10 & mask);
  U256 r;
  r.lo = (mid << 64) | (p00 & mask);
  r.hi = p11 + (p01 >> 64) + (p10 >> 64) + (mid >> 64);
  return r;
}

// n / d rounded half away from zero (Java's HALF_UP on a magnitude); d > 0.
U256 DivRoundHalfUp(U256 n, UInt128 d) {
  U256 q;
  UInt128 rem = 0;
  for (int i = 255; i >= 0; --i) {
    bool carry = (rem >> 127) != 0;
    UInt128 bit = i >= 128 ? (n.hi >> (i - 128)) & 1 : (n.lo >> i) & 1;
    rem = (rem << 1) | bit;
    if (carry || rem >= d) {
      rem -= d;
      if (i >= 128) {
        q.hi |= UInt128(1) << (i - 128);
      } else {
        q.lo |= UInt128(1) << i;
      }
    }
  }
  if (rem >= d - rem) {  // 2 * rem >= d without overflow
    if (++q.lo == 0) ++q.hi;
  }
  return q;
}

// A decimal of the column's precision from a magnitude and a sign; NULL when it does not fit,
// like Java's Decimal.fromBigDecimal.
Value DecimalOrNull(const U256& magnitude, bool negative, int32_t precision, int32_t scale) {
  if (magnitude.hi != 0 || magnitude.lo >= Pow10(std::min(precision, 38))) return Value::Null();
  Int128 unscaled = static_cast<Int128>(magnitude.lo);
  return Value(Decimal{negative ? -unscaled : unscaled, precision, scale});
}

// Java's DecimalUtils.add/subtract: decimals of precision <= 18 are added as longs and the result
// is NOT checked against the declared precision (only a long overflow falls back to BigDecimal,
// whose precision check then yields NULL); wider decimals become NULL when the exact result does
// not fit the precision.
Value DecimalAddOrSubtract(const Decimal& a, const Decimal& b, bool subtract, int32_t precision,
                           int32_t scale) {
  Int128 r;
  bool overflow = subtract ? __builtin_sub_overflow(a.unscaled, b.unscaled, &r)
                           : __builtin_add_overflow(a.unscaled, b.unscaled, &r);
  if (overflow) return Value::Null();
  if (precision <= kMaxCompactPrecision) {
    bool fits_long =
        r >= std::numeric_limits<int64_t>::min() && r <= std::numeric_limits<int64_t>::max();
    return fits_long ? Value(Decimal{r, precision, scale}) : Value::Null();
  }
  Decimal d{r, precision, scale};
  return d.FitsPrecision() ? Value(d) : Value::Null();
}

Value DecimalNegate(const Decimal& a, int32_t precision, int32_t scale) {
  Decimal d{-a.unscaled, precision, scale};
  return d.FitsPrecision() ? Value(d) : Value::Null();
}

// BigDecimal multiply, then setScale(scale, HALF_UP) and the precision check.
Value DecimalMultiply(const Decimal& a, const Decimal& b, int32_t precision, int32_t scale) {
  bool negative = (a.unscaled < 0) != (b.unscaled < 0);
  U256 product = MulWide(Magnitude(a.unscaled), Magnitude(b.unscaled));
  return DecimalOrNull(DivRoundHalfUp(product, Pow10(scale)), negative, precision, scale);
}

UInt128 Gcd(UInt128 a, UInt128 b) {
  while (b != 0) {
    UInt128 t = a % b;
    a = b;
    b = t;
  }
  return a;
}

// ---------------------------------------------------------------------------------------------
// Value helpers

bool IsConstructed(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMultiset:
    case TypeRoot::kMap:
    case TypeRoot::kRow:
      return true;
    default:
      return false;
  }
}

// Orders Values of one type, for sets and indexes keyed by value.
struct ValueLess {
  const DataType* type;
  bool operator()(const Value& a, const Value& b) const { return CompareValues(a, b, *type) < 0; }
};

// Orders projected keys (lists of the key fields' values).
struct KeyLess {
  const std::vector<DataTypePtr>* types;
  bool operator()(const ValueList& a, const ValueList& b) const {
    for (size_t i = 0; i < a.size(); ++i) {
      if (int c = CompareValues(a[i], b[i], *(*types)[i]); c != 0) return c < 0;
    }
    return false;
  }
};

// Java's BinaryStringUtils.splitByWholeSeparatorPreserveAllTokens: every piece, empty ones too;
// an empty string has no pieces.
std::vector<std::string_view> SplitPreserveAll(std::string_view text, std::string_view sep) {
  std::vector<std::string_view> out;
  if (text.empty()) return out;
  size_t begin = 0;
  while (true) {
    size_t found = text.find(sep, begin);
    if (found == std::string_view::npos) {
      out.push_back(text.substr(begin));
      return out;
    }
    out.push_back(text.substr(begin, found - begin));
    begin = found + sep.size();
  }
}

// ---------------------------------------------------------------------------------------------
// Aggregators

// Key columns: the merged key is the key itself.
class PrimaryKeyAgg final : public FieldAggregator {
 public:
  using FieldAggregator::FieldAggregator;
  Status Agg(Value* acc, const Value& in) override {
    *acc = in;
    return Status::OK();
  }
  Status Retract(Value* acc, const Value& in) override {
    *acc = in;
    return Status::OK();
  }
};

// fields.<col>.ignore-retract: retractions leave the accumulator alone. Like Java, the reversed
// aggregation is not forwarded (it is agg(in, acc) through this wrapper).
class IgnoreRetractAgg final : public FieldAggregator {
 public:
  explicit IgnoreRetractAgg(std::unique_ptr<FieldAggregator> inner)
      : FieldAggregator(inner->function(), inner->column(), inner->type_ptr()),
        inner_(std::move(inner)) {}
  Status Agg(Value* acc, const Value& in) override { return inner_->Agg(acc, in); }
  Status Retract(Value* /*acc*/, const Value& /*in*/) override { return Status::OK(); }
  void Reset() override { inner_->Reset(); }

 private:
  std::unique_ptr<FieldAggregator> inner_;
};

// sum and product over TINYINT..DOUBLE and DECIMAL.
class ArithmeticAgg final : public FieldAggregator {
 public:
  enum class Kind { kSum, kProduct };
  ArithmeticAgg(Kind kind, std::string function, std::string column, DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)), kind_(kind) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    return kind_ == Kind::kSum ? Apply(acc, in, Op::kAdd) : Apply(acc, in, Op::kMul);
  }

  Status Retract(Value* acc, const Value& in) override {
    if (kind_ == Kind::kSum) {
      if (acc->is_null() || in.is_null()) {
        // Retracting from nothing yields the negated input.
        if (acc->is_null()) return Negate(in, acc);
        return Status::OK();
      }
      return Apply(acc, in, Op::kSub);
    }
    if (acc->is_null() || in.is_null()) return Status::OK();
    return Apply(acc, in, Op::kDiv);
  }

 private:
  enum class Op { kAdd, kSub, kMul, kDiv };

  template <typename T>
  Status ApplyTyped(Value* acc, const Value& in, Op op) {
    if (!acc->is<T>()) return WrongRepresentation(*this, *acc);
    if (!in.is<T>()) return WrongRepresentation(*this, in);
    T a = acc->get<T>();
    T b = in.get<T>();
    T r{};
    if constexpr (std::is_integral_v<T>) {
      switch (op) {
        case Op::kAdd:
          r = WrapAdd(a, b);
          break;
        case Op::kSub:
          r = WrapSub(a, b);
          break;
        case Op::kMul:
          r = WrapMul(a, b);
          break;
        case Op::kDiv:
          if (b == 0) return Error("division by zero while retracting a product");
          // Java's MIN / -1 wraps around to MIN.
          r = (b == -1) ? WrapSub(T{0}, a) : static_cast<T>(a / b);
          break;
      }
    } else {
      switch (op) {
        case Op::kAdd:
          r = a + b;
          break;
        case Op::kSub:
          r = a - b;
          break;
        case Op::kMul:
          r = a * b;
          break;
        case Op::kDiv:
          r = a / b;
          break;
      }
    }
    *acc = Value(r);
    return Status::OK();
  }

  Status ApplyDecimal(Value* acc, const Value& in, Op op) {
    if (!acc->is<Decimal>()) return WrongRepresentation(*this, *acc);
    if (!in.is<Decimal>()) return WrongRepresentation(*this, in);
    const Decimal& a = acc->get<Decimal>();
    const Decimal& b = in.get<Decimal>();
    int32_t precision = type().precision();
    int32_t scale = type().scale();
    if (a.scale != scale || b.scale != scale) {
      return Error("decimal scale ", a.scale == scale ? b.scale : a.scale,
                   " differs from the column's scale ", scale);
    }
    switch (op) {
      case Op::kAdd:
      case Op::kSub:
        *acc = DecimalAddOrSubtract(a, b, op == Op::kSub, precision, scale);
        return Status::OK();
      case Op::kMul:
        *acc = DecimalMultiply(a, b, precision, scale);
        return Status::OK();
      case Op::kDiv:
        return DecimalDivide(a, b, precision, scale, acc);
    }
    return Status::OK();
  }

  // BigDecimal.divide(BigDecimal): exact quotient (an error when it does not terminate), then
  // setScale(scale, HALF_UP) and the precision check.
  Status DecimalDivide(const Decimal& a, const Decimal& b, int32_t precision, int32_t scale,
                       Value* out) {
    if (b.unscaled == 0) return Error("division by zero while retracting a product");
    UInt128 ma = Magnitude(a.unscaled);
    UInt128 mb = Magnitude(b.unscaled);
    UInt128 rest = mb / Gcd(ma, mb);
    while (rest % 2 == 0) rest /= 2;
    while (rest % 5 == 0) rest /= 5;
    if (rest != 1) {
      return Error("retracting ", b.ToString(), " from ", a.ToString(),
                   " needs a non-terminating decimal expansion (Java fails the same way)");
    }
    bool negative = (a.unscaled < 0) != (b.unscaled < 0);
    U256 q = DivRoundHalfUp(MulWide(ma, Pow10(scale)), mb);
    *out = DecimalOrNull(q, negative, precision, scale);
    return Status::OK();
  }

  Status Apply(Value* acc, const Value& in, Op op) {
    switch (type().root()) {
      case TypeRoot::kTinyInt:
        return ApplyTyped<int8_t>(acc, in, op);
      case TypeRoot::kSmallInt:
        return ApplyTyped<int16_t>(acc, in, op);
      case TypeRoot::kInt:
        return ApplyTyped<int32_t>(acc, in, op);
      case TypeRoot::kBigInt:
        return ApplyTyped<int64_t>(acc, in, op);
      case TypeRoot::kFloat:
        return ApplyTyped<float>(acc, in, op);
      case TypeRoot::kDouble:
        return ApplyTyped<double>(acc, in, op);
      case TypeRoot::kDecimal:
        return ApplyDecimal(acc, in, op);
      default:
        return Error("type ", type().ToString(), " is not numeric");
    }
  }

  template <typename T>
  Status NegateTyped(const Value& in, Value* out) {
    if (!in.is<T>()) return WrongRepresentation(*this, in);
    if constexpr (std::is_integral_v<T>) {
      *out = Value(WrapSub(T{0}, in.get<T>()));
    } else {
      *out = Value(static_cast<T>(-in.get<T>()));
    }
    return Status::OK();
  }

  Status Negate(const Value& in, Value* out) {
    if (in.is_null()) {
      *out = Value::Null();
      return Status::OK();
    }
    switch (type().root()) {
      case TypeRoot::kTinyInt:
        return NegateTyped<int8_t>(in, out);
      case TypeRoot::kSmallInt:
        return NegateTyped<int16_t>(in, out);
      case TypeRoot::kInt:
        return NegateTyped<int32_t>(in, out);
      case TypeRoot::kBigInt:
        return NegateTyped<int64_t>(in, out);
      case TypeRoot::kFloat:
        return NegateTyped<float>(in, out);
      case TypeRoot::kDouble:
        return NegateTyped<double>(in, out);
      case TypeRoot::kDecimal:
        if (!in.is<Decimal>()) return WrongRepresentation(*this, in);
        *out = DecimalNegate(in.get<Decimal>(), type().precision(), type().scale());
        return Status::OK();
      default:
        return Error("type ", type().ToString(), " is not numeric");
    }
  }

  Kind kind_;
};

// max and min: Java's InternalRowUtils.compare, which knows numbers, decimals, strings, binaries,
// dates, times and timestamps; other types fail when two non-NULL values meet.
class ExtremumAgg final : public FieldAggregator {
 public:
  ExtremumAgg(bool max, std::string function, std::string column, DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)), max_(max) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    if (!Comparable(type().root())) {
      return Error("values of type ", type().ToString(), " cannot be compared");
    }
    bool acc_smaller = CompareValues(*acc, in, type()) < 0;
    if (max_ ? acc_smaller : !acc_smaller) *acc = in;
    return Status::OK();
  }

 private:
  static bool Comparable(TypeRoot root) {
    switch (root) {
      case TypeRoot::kDecimal:
      case TypeRoot::kTinyInt:
      case TypeRoot::kSmallInt:
      case TypeRoot::kInt:
      case TypeRoot::kDate:
      case TypeRoot::kTime:
      case TypeRoot::kBigInt:
      case TypeRoot::kFloat:
      case TypeRoot::kDouble:
      case TypeRoot::kTimestamp:
      case TypeRoot::kTimestampLtz:
      case TypeRoot::kBinary:
      case TypeRoot::kVarBinary:
      case TypeRoot::kChar:
      case TypeRoot::kVarChar:
        return true;
      default:
        return false;
    }
  }

  bool max_;
};

class LastValueAgg final : public FieldAggregator {
 public:
  using FieldAggregator::FieldAggregator;
  Status Agg(Value* acc, const Value& in) override {
    *acc = in;
    return Status::OK();
  }
  Status Retract(Value* acc, const Value& /*in*/) override {
    *acc = Value::Null();
    return Status::OK();
  }
};

class LastNonNullValueAgg final : public FieldAggregator {
 public:
  using FieldAggregator::FieldAggregator;
  Status Agg(Value* acc, const Value& in) override {
    if (!in.is_null()) *acc = in;
    return Status::OK();
  }
  Status Retract(Value* acc, const Value& in) override {
    if (!in.is_null()) *acc = Value::Null();
    return Status::OK();
  }
};

// first_value / first_non_null_value: the first (non-NULL) input seen since Reset().
class FirstValueAgg final : public FieldAggregator {
 public:
  FirstValueAgg(bool skip_nulls, std::string function, std::string column, DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)),
        skip_nulls_(skip_nulls) {}
  Status Agg(Value* acc, const Value& in) override {
    if (!initialized_ && !(skip_nulls_ && in.is_null())) {
      initialized_ = true;
      *acc = in;
    }
    return Status::OK();
  }
  void Reset() override { initialized_ = false; }

 private:
  bool skip_nulls_;
  bool initialized_ = false;
};

class BoolAgg final : public FieldAggregator {
 public:
  BoolAgg(bool is_and, std::string function, std::string column, DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)), is_and_(is_and) {}
  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    if (!acc->is<bool>()) return WrongRepresentation(*this, *acc);
    if (!in.is<bool>()) return WrongRepresentation(*this, in);
    bool a = acc->get<bool>();
    bool b = in.get<bool>();
    *acc = Value(is_and_ ? (a && b) : (a || b));
    return Status::OK();
  }

 private:
  bool is_and_;
};

class ListAggAgg final : public FieldAggregator {
 public:
  ListAggAgg(std::string delimiter, bool distinct, std::string function, std::string column,
             DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)),
        delimiter_(std::move(delimiter)),
        distinct_(distinct) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    if (!acc->is<std::string>()) return WrongRepresentation(*this, *acc);
    if (!in.is<std::string>()) return WrongRepresentation(*this, in);
    const std::string& a = acc->get<std::string>();
    const std::string& b = in.get<std::string>();
    if (b.empty()) return Status::OK();
    if (a.empty()) {
      *acc = in;
      return Status::OK();
    }
    std::string out = a;
    if (distinct_) {
      // Java splits on a space when the delimiter is empty, but still joins with "".
      std::string_view split_on = delimiter_.empty() ? std::string_view(" ") : delimiter_;
      std::set<std::string, std::less<>> seen;
      for (std::string_view token : SplitPreserveAll(a, split_on)) seen.emplace(token);
      for (std::string_view token : SplitPreserveAll(b, split_on)) {
        if (token.empty() || seen.count(token) > 0) continue;
        seen.emplace(token);
        out.append(delimiter_);
        out.append(token);
      }
    } else {
      out.append(delimiter_);
      out.append(b);
    }
    *acc = Value(std::move(out));
    return Status::OK();
  }

 private:
  std::string delimiter_;
  bool distinct_;
};

// collect: ARRAY concatenation, or union with fields.<col>.distinct. Java keeps distinct scalar
// elements in a HashSet (hash order); Fjord keeps first-seen order. Elements compare by value.
class CollectAgg final : public FieldAggregator {
 public:
  CollectAgg(bool distinct, std::string function, std::string column, DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)),
        distinct_(distinct),
        constructed_(IsConstructed(*this->type().element())) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() && in.is_null()) return Status::OK();
    if ((acc->is_null() || in.is_null()) && !distinct_) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    FJORD_RETURN_NOT_OK(CheckList(*acc));
    FJORD_RETURN_NOT_OK(CheckList(in));
    ValueList out;
    if (!distinct_) {
      out = acc->list();
      out.insert(out.end(), in.list().begin(), in.list().end());
    } else if (constructed_) {
      // Java's equaliser path: the accumulator is taken as already distinct.
      if (!acc->is_null()) out = acc->list();
      if (!in.is_null()) {
        for (const Value& e : in.list()) {
          if (!Contains(out, e)) out.push_back(e);
        }
      }
    } else {
      std::set<Value, ValueLess> seen(ValueLess{type().element().get()});
      for (const Value* side : std::initializer_list<const Value*>{acc, &in}) {
        if (side->is_null()) continue;
        for (const Value& e : side->list()) {
          if (seen.insert(e).second) out.push_back(e);
        }
      }
    }
    *acc = Value::List(std::move(out));
    return Status::OK();
  }

  // Java: the accumulator is already distinct, so the reversed order is not needed.
  Status AggReversed(Value* acc, const Value& in) override { return Agg(acc, in); }

  // Removes one accumulator element per equal retracted element.
  Status Retract(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) return Status::OK();
    FJORD_RETURN_NOT_OK(CheckList(*acc));
    FJORD_RETURN_NOT_OK(CheckList(in));
    if (in.list().empty()) return Status::OK();
    ValueList pending = in.list();
    ValueList out;
    for (const Value& candidate : acc->list()) {
      bool removed = false;
      for (auto it = pending.begin(); it != pending.end(); ++it) {
        if (*it == candidate) {
          pending.erase(it);
          removed = true;
          break;
        }
      }
      if (!removed) out.push_back(candidate);
    }
    *acc = Value::List(std::move(out));
    return Status::OK();
  }

 private:
  Status CheckList(const Value& v) const {
    if (v.is_null() || v.is<ListPtr>()) return Status::OK();
    return WrongRepresentation(*this, v);
  }
  static bool Contains(const ValueList& list, const Value& e) {
    for (const Value& x : list) {
      if (x == e) return true;
    }
    return false;
  }

  bool distinct_;
  bool constructed_;
};

// Entry index of a map being built, keyed by the map's key type.
class MapBuilder {
 public:
  explicit MapBuilder(const DataType& key_type) : index_(ValueLess{&key_type}) {}

  void Put(const Value& key, const Value& value) {
    auto [it, inserted] = index_.emplace(key, entries_.size());
    if (inserted) {
      entries_.emplace_back(key, value);
    } else {
      entries_[it->second].second = value;
    }
  }
  // The value stored for `key`, or null when absent.
  const Value* Find(const Value& key) const {
    auto it = index_.find(key);
    return it == index_.end() ? nullptr : &entries_[it->second].second;
  }
  void Remove(const Value& key) {
    auto it = index_.find(key);
    if (it == index_.end()) return;
    removed_.insert(it->second);
    index_.erase(it);
  }
  Value Build() {
    ValueMap out;
    out.reserve(entries_.size() - removed_.size());
    for (size_t i = 0; i < entries_.size(); ++i) {
      if (removed_.count(i) == 0) out.push_back(std::move(entries_[i]));
    }
    return Value::Map(std::move(out));
  }

 private:
  std::map<Value, size_t, ValueLess> index_;
  ValueMap entries_;
  std::set<size_t> removed_;
};

// merge_map: union of maps, the newer value wins per key; retract removes the retracted keys.
// Java builds a HashMap (hash order); Fjord keeps first-seen key order.
class MergeMapAgg final : public FieldAggregator {
 public:
  using FieldAggregator::FieldAggregator;

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    FJORD_RETURN_NOT_OK(CheckMap(*acc));
    FJORD_RETURN_NOT_OK(CheckMap(in));
    MapBuilder builder(*type().key());
    for (const auto& [k, v] : acc->map()) builder.Put(k, v);
    for (const auto& [k, v] : in.map()) builder.Put(k, v);
    *acc = builder.Build();
    return Status::OK();
  }

  Status Retract(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) return Status::OK();
    FJORD_RETURN_NOT_OK(CheckMap(*acc));
    FJORD_RETURN_NOT_OK(CheckMap(in));
    if (in.map().empty()) return Status::OK();
    std::set<Value, ValueLess> retracted(ValueLess{type().key().get()});
    for (const auto& entry : in.map()) retracted.insert(entry.first);
    MapBuilder builder(*type().key());
    for (const auto& [k, v] : acc->map()) {
      if (retracted.count(k) == 0) builder.Put(k, v);
    }
    *acc = builder.Build();
    return Status::OK();
  }

 private:
  Status CheckMap(const Value& v) const {
    return v.is<MapPtr>() ? Status::OK() : WrongRepresentation(*this, v);
  }
};

// merge_map_with_keytime: MAP<K, ROW<..., ts STRING>>; per key the row with the larger time
// string wins, a NULL row removes the key, a row with a NULL time is skipped.
class MergeMapWithKeyTimeAgg final : public FieldAggregator {
 public:
  MergeMapWithKeyTimeAgg(size_t ts_index, std::string function, std::string column,
                         DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)),
        ts_index_(ts_index) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    if (!acc->is<MapPtr>()) return WrongRepresentation(*this, *acc);
    if (!in.is<MapPtr>()) return WrongRepresentation(*this, in);
    MapBuilder builder(*type().key());
    for (const auto& [k, v] : acc->map()) builder.Put(k, v);
    for (const auto& [k, row] : in.map()) {
      if (row.is_null()) {
        builder.Remove(k);
        continue;
      }
      const Value* new_ts = nullptr;
      FJORD_RETURN_NOT_OK(TimeOf(row, &new_ts));
      if (new_ts->is_null()) continue;
      const Value* existing = builder.Find(k);
      if (existing == nullptr || existing->is_null()) {
        builder.Put(k, row);
        continue;
      }
      const Value* old_ts = nullptr;
      FJORD_RETURN_NOT_OK(TimeOf(*existing, &old_ts));
      if (old_ts->is_null() || new_ts->get<std::string>() > old_ts->get<std::string>()) {
        builder.Put(k, row);
      }
    }
    *acc = builder.Build();
    return Status::OK();
  }

 private:
  Status TimeOf(const Value& row, const Value** ts) const {
    if (!row.is<ListPtr>() || row.list().size() <= ts_index_) {
      return WrongRepresentation(*this, row);
    }
    *ts = &row.list()[ts_index_];
    if (!(*ts)->is_null() && !(*ts)->is<std::string>()) {
      return Error("the time field of a map value must be a string");
    }
    return Status::OK();
  }

  size_t ts_index_;
};

// Shared by nested_update and nested_partial_update: ARRAY<ROW> with optional key fields.
class NestedRowsAgg : public FieldAggregator {
 public:
  NestedRowsAgg(std::vector<size_t> key_indices, std::string function, std::string column,
                DataTypePtr type)
      : FieldAggregator(std::move(function), std::move(column), std::move(type)),
        key_indices_(std::move(key_indices)) {
    for (size_t i : key_indices_) key_types_.push_back(row_type().fields()[i].type);
  }

 protected:
  const DataType& row_type() const { return *type().element(); }

  Status CheckArray(const Value& v) const {
    if (!v.is<ListPtr>()) return WrongRepresentation(*this, v);
    for (const Value& row : v.list()) {
      if (!row.is_null() &&
          (!row.is<ListPtr>() || row.list().size() < row_type().fields().size())) {
        return WrongRepresentation(*this, v);
      }
    }
    return Status::OK();
  }
  ValueList KeyOf(const Value& row) const {
    ValueList key;
    key.reserve(key_indices_.size());
    for (size_t i : key_indices_) key.push_back(row.list()[i]);
    return key;
  }
  KeyLess key_less() const { return KeyLess{&key_types_}; }

  std::vector<size_t> key_indices_;
  std::vector<DataTypePtr> key_types_;
};

// nested_update: appends rows (up to fields.<col>.count-limit), or upserts them by
// fields.<col>.nested-key. Java keys rows in a HashMap (hash order); Fjord keeps first-seen order
// with the newest row per key.
class NestedUpdateAgg final : public NestedRowsAgg {
 public:
  NestedUpdateAgg(std::vector<size_t> key_indices, int64_t count_limit, std::string function,
                  std::string column, DataTypePtr type)
      : NestedRowsAgg(std::move(key_indices), std::move(function), std::move(column),
                      std::move(type)),
        count_limit_(count_limit) {}

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    FJORD_RETURN_NOT_OK(CheckArray(*acc));
    FJORD_RETURN_NOT_OK(CheckArray(in));
    const ValueList& a = acc->list();
    if (static_cast<int64_t>(a.size()) >= count_limit_) return Status::OK();
    int64_t remaining = count_limit_ - static_cast<int64_t>(a.size());
    ValueList rows;
    for (const Value& row : a) {
      if (!row.is_null()) rows.push_back(row);
    }
    int64_t taken = 0;
    for (const Value& row : in.list()) {
      if (taken >= remaining) break;
      if (row.is_null()) continue;
      rows.push_back(row);
      ++taken;
    }
    if (!key_indices_.empty()) rows = Upsert(rows);
    *acc = Value::List(std::move(rows));
    return Status::OK();
  }

  Status Retract(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) return Status::OK();
    FJORD_RETURN_NOT_OK(CheckArray(*acc));
    FJORD_RETURN_NOT_OK(CheckArray(in));
    ValueList rows;
    if (key_indices_.empty()) {
      // Every row equal to a retracted row goes.
      for (const Value& row : acc->list()) {
        if (!row.is_null()) rows.push_back(row);
      }
      for (const Value& retracted : in.list()) {
        if (retracted.is_null()) continue;
        std::erase_if(rows, [&](const Value& row) { return row == retracted; });
      }
    } else {
      ValueList present;
      for (const Value& row : acc->list()) {
        if (!row.is_null()) present.push_back(row);
      }
      present = Upsert(present);
      std::set<ValueList, KeyLess> retracted_keys(key_less());
      for (const Value& retracted : in.list()) {
        if (!retracted.is_null()) retracted_keys.insert(KeyOf(retracted));
      }
      for (const Value& row : present) {
        if (retracted_keys.count(KeyOf(row)) == 0) rows.push_back(row);
      }
    }
    *acc = Value::List(std::move(rows));
    return Status::OK();
  }

 private:
  // One row per key: first position, newest row.
  ValueList Upsert(const ValueList& rows) const {
    std::map<ValueList, size_t, KeyLess> index(key_less());
    ValueList out;
    for (const Value& row : rows) {
      auto [it, inserted] = index.emplace(KeyOf(row), out.size());
      if (inserted) {
        out.push_back(row);
      } else {
        out[it->second] = row;
      }
    }
    return out;
  }

  int64_t count_limit_;
};

// nested_partial_update: rows with the same nested key are merged field by field, non-NULL
// fields of newer rows overwriting.
class NestedPartialUpdateAgg final : public NestedRowsAgg {
 public:
  using NestedRowsAgg::NestedRowsAgg;

  Status Agg(Value* acc, const Value& in) override {
    if (acc->is_null() || in.is_null()) {
      if (acc->is_null()) *acc = in;
      return Status::OK();
    }
    FJORD_RETURN_NOT_OK(CheckArray(*acc));
    FJORD_RETURN_NOT_OK(CheckArray(in));
    size_t width = row_type().fields().size();
    std::map<ValueList, size_t, KeyLess> index(key_less());
    std::vector<ValueList> merged;
    for (const Value* side : std::initializer_list<const Value*>{acc, &in}) {
      for (const Value& row : side->list()) {
        if (row.is_null()) continue;
        auto [it, inserted] = index.emplace(KeyOf(row), merged.size());
        if (inserted) merged.emplace_back(width);
        ValueList& target = merged[it->second];
        for (size_t i = 0; i < width; ++i) {
          if (!row.list()[i].is_null()) target[i] = row.list()[i];
        }
      }
    }
    ValueList out;
    out.reserve(merged.size());
    for (ValueList& row : merged) out.push_back(Value::List(std::move(row)));
    *acc = Value::List(std::move(out));
    return Status::OK();
  }
};

// ---------------------------------------------------------------------------------------------
// Factory

bool IsNumeric(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
    case TypeRoot::kDecimal:
      return true;
    default:
      return false;
  }
}

bool IsArrayOfRows(const DataType& type) {
  return type.root() == TypeRoot::kArray && type.element()->root() == TypeRoot::kRow;
}

Result<std::vector<size_t>> NestedKeyIndices(const DataField& field, const DataType& row_type,
                                             const MergeOptions& options) {
  std::vector<size_t> out;
  std::optional<std::string> text = options.FieldOption(field.name, "nested-key");
  if (!text) return out;
  for (const std::string& piece : SplitLikeJava(*text, ',')) {
    std::string name(Trim(piece));
    int index = FindField(row_type.fields(), name);
    if (index < 0) {
      return Status::Invalid("nested key field '", name, "' of 'fields.", field.name,
                             ".nested-key' is not a field of ", row_type.ToString());
    }
    out.push_back(static_cast<size_t>(index));
  }
  return out;
}

Status TypeError(const DataField& field, std::string_view function, std::string_view expected) {
  return Status::Invalid("aggregate function '", function, "' of column '", field.name, "' needs ",
                         expected, ", but the column is ", field.type->ToString());
}

Result<std::unique_ptr<FieldAggregator>> CreateBare(const DataField& field,
                                                    const std::string& function,
                                                    const MergeOptions& options) {
  const DataType& type = *field.type;
  const std::string& column = field.name;
  if (function == kPrimaryKeyAggregate) {
    return std::make_unique<PrimaryKeyAgg>(function, column, field.type);
  }
  if (function == "sum" || function == "product") {
    if (!IsNumeric(type)) return TypeError(field, function, "a numeric type");
    auto kind = function == "sum" ? ArithmeticAgg::Kind::kSum : ArithmeticAgg::Kind::kProduct;
    return std::make_unique<ArithmeticAgg>(kind, function, column, field.type);
  }
  if (function == "max" || function == "min") {
    return std::make_unique<ExtremumAgg>(function == "max", function, column, field.type);
  }
  if (function == kLastValueAggregate) {
    return std::make_unique<LastValueAgg>(function, column, field.type);
  }
  if (function == kLastNonNullValueAggregate) {
    return std::make_unique<LastNonNullValueAgg>(function, column, field.type);
  }
  if (function == "first_value") {
    return std::make_unique<FirstValueAgg>(false, function, column, field.type);
  }
  if (function == "first_non_null_value" || function == "first_not_null_value") {
    return std::make_unique<FirstValueAgg>(true, function, column, field.type);
  }
  if (function == "bool_and" || function == "bool_or") {
    if (type.root() != TypeRoot::kBoolean) return TypeError(field, function, "BOOLEAN");
    return std::make_unique<BoolAgg>(function == "bool_and", function, column, field.type);
  }
  if (function == "listagg") {
    if (type.root() != TypeRoot::kVarChar || type.length() != DataType::kMaxLength) {
      return TypeError(field, function, "STRING (unbounded VARCHAR)");
    }
    std::string delimiter = options.FieldString(column, "list-agg-delimiter");
    FJORD_ASSIGN_OR_RAISE(bool distinct, options.FieldBool(column, "distinct"));
    return std::make_unique<ListAggAgg>(std::move(delimiter), distinct, function, column,
                                        field.type);
  }
  if (function == "collect") {
    if (type.root() != TypeRoot::kArray) return TypeError(field, function, "an ARRAY");
    FJORD_ASSIGN_OR_RAISE(bool distinct, options.FieldBool(column, "distinct"));
    return std::make_unique<CollectAgg>(distinct, function, column, field.type);
  }
  if (function == "merge_map") {
    if (type.root() != TypeRoot::kMap) return TypeError(field, function, "a MAP");
    return std::make_unique<MergeMapAgg>(function, column, field.type);
  }
  if (function == "merge_map_with_keytime") {
    if (type.root() != TypeRoot::kMap) return TypeError(field, function, "a MAP");
    const DataType& value_type = *type.value();
    if (value_type.root() != TypeRoot::kRow) {
      return TypeError(field, function, "a MAP whose values are ROWs");
    }
    if (value_type.fields().size() < 2) {
      return TypeError(field, function, "a MAP whose value ROW has at least 2 fields");
    }
    size_t ts_index = value_type.fields().size() - 1;
    if (std::optional<std::string> ts = options.FieldOption(column, "ts-field")) {
      int index = FindField(value_type.fields(), *ts);
      if (index < 0) {
        return Status::Invalid("time field '", *ts, "' of 'fields.", column,
                               ".ts-field' is not a field of ", value_type.ToString());
      }
      ts_index = static_cast<size_t>(index);
    }
    return std::make_unique<MergeMapWithKeyTimeAgg>(ts_index, function, column, field.type);
  }
  if (function == "nested_update" || function == "nested_partial_update") {
    bool partial = function == "nested_partial_update";
    if (partial && !options.FieldOption(column, "nested-key")) {
      return Status::Invalid("aggregate function '", function, "' of column '", column,
                             "' needs 'fields.", column, ".nested-key'");
    }
    if (!IsArrayOfRows(type)) return TypeError(field, function, "ARRAY<ROW>");
    FJORD_ASSIGN_OR_RAISE(std::vector<size_t> keys,
                          NestedKeyIndices(field, *type.element(), options));
    if (partial) {
      return std::make_unique<NestedPartialUpdateAgg>(std::move(keys), function, column,
                                                      field.type);
    }
    FJORD_ASSIGN_OR_RAISE(int32_t limit, options.FieldInt32(column, "count-limit"));
    return std::make_unique<NestedUpdateAgg>(std::move(keys), limit, function, column, field.type);
  }
  if (function == "hll_sketch" || function == "theta_sketch" || function == "rbm32" ||
      function == "rbm64") {
    return Status::NotImplemented("aggregate function '", function, "' (column '", column,
                                  "') is not implemented by Fjord");
  }
  return Status::Invalid("unknown aggregate function '", function, "' for column '", column,
                         "' (set by 'fields.", column,
                         ".aggregate-function' or 'fields.default-aggregate-function')");
}

}  // namespace

Result<std::unique_ptr<FieldAggregator>> CreateFieldAggregator(const DataField& field,
                                                               std::string_view function,
                                                               const MergeOptions& options) {
  std::string name(function);
  static const std::set<std::string, std::less<>> kKnown = {"primary-key",
                                                            "sum",
                                                            "product",
                                                            "max",
                                                            "min",
                                                            "last_value",
                                                            "last_non_null_value",
                                                            "first_value",
                                                            "first_non_null_value",
                                                            "first_not_null_value",
                                                            "listagg",
                                                            "bool_and",
                                                            "bool_or",
                                                            "collect",
                                                            "merge_map",
                                                            "merge_map_with_keytime",
                                                            "nested_update",
                                                            "nested_partial_update",
                                                            "hll_sketch",
                                                            "theta_sketch",
                                                            "rbm32",
                                                            "rbm64"};
  if (kKnown.count(name) > 0) {
    FJORD_ASSIGN_OR_RAISE(bool remove_on_delete, options.GetBool(kAggregationRemoveRecordOnDelete));
    FJORD_ASSIGN_OR_RAISE(bool ignore_retract, options.FieldBool(field.name, "ignore-retract"));
    if (remove_on_delete && ignore_retract) {
      return Status::Invalid("'", kAggregationRemoveRecordOnDelete, "' and 'fields.", field.name,
                             ".ignore-retract' conflict; enable only one of them");
    }
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<FieldAggregator> agg, CreateBare(field, name, options));
    if (ignore_retract) return std::make_unique<IgnoreRetractAgg>(std::move(agg));
    return agg;
  }
  return CreateBare(field, name, options);
}

}  // namespace fjord
