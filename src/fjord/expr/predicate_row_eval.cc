// Exact evaluation on a row, in SQL's three-valued logic.
#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace {

using namespace predicate_internal;

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

}  // namespace

bool Predicate::Test(const std::function<const Value*(const std::string&)>& lookup) const {
  return Eval(*this, lookup) == Truth::kTrue;
}

}  // namespace fjord
