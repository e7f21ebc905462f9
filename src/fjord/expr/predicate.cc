// The predicate tree: the comparison rules the units share, Restrict, Columns and ToString.
#include "fjord/expr/predicate.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace predicate_internal {

namespace {

const DataType& TypeOrDefault(const DataType* type) {
  static const DataTypePtr kFallback = DataType::BigInt();
  return type != nullptr ? *type : *kFallback;
}

}  // namespace

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

bool LeafNegatable(const Predicate& p) {
  if (!IsOrderingOp(p.op)) return true;
  if (IsFloatingType(p.type.get())) return false;
  return std::none_of(p.literals.begin(), p.literals.end(), IsFloatingValue);
}

std::optional<int> CompareForFilter(const Value& a, const Value& b, const DataType* type) {
  if (IsFloatingType(type) || IsFloatingValue(a) || IsFloatingValue(b)) {
    double x = AsDouble(a);
    double y = AsDouble(b);
    if (std::isnan(x) || std::isnan(y)) return std::nullopt;
    return x < y ? -1 : (x > y ? 1 : 0);
  }
  return CompareValues(a, b, TypeOrDefault(type));
}

Predicate MakeJunction(PredicateOp op, std::vector<Predicate> children) {
  if (children.size() == 1) return std::move(children[0]);
  Predicate p;
  p.op = op;
  p.children = std::move(children);
  return p;
}

}  // namespace predicate_internal

namespace {

using namespace predicate_internal;

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

}  // namespace

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
