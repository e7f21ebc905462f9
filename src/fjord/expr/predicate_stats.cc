// Conservative evaluation on column statistics (min, max, null count) for pruning.
#include <algorithm>
#include <set>

#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace {

using namespace predicate_internal;

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

}  // namespace

bool Predicate::MayMatch(const std::function<const ColumnStats*(const std::string&)>& stats,
                         int64_t row_count) const {
  return MayMatchImpl(*this, /*negated=*/false, stats, row_count);
}

}  // namespace fjord
