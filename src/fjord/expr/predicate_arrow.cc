// Evaluation on Arrow record batches: each leaf is an Arrow compute kernel over the column.
#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <limits>
#include <type_traits>

#include "fjord/common/arrow_status.h"
#include "fjord/expr/predicate_internal.h"

namespace fjord {

namespace {

using namespace predicate_internal;

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

}  // namespace fjord
