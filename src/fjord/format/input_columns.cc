#include "fjord/format/input_columns.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <cmath>

#include "fjord/common/arrow_status.h"
#include "fjord/common/float_format.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

using ArrayPtr = std::shared_ptr<arrow::Array>;

bool IsStringLike(arrow::Type::type id) {
  return id == arrow::Type::STRING || id == arrow::Type::LARGE_STRING ||
         id == arrow::Type::STRING_VIEW;
}

bool IsTextRoot(TypeRoot r) { return r == TypeRoot::kChar || r == TypeRoot::kVarChar; }

bool IsBinaryRoot(TypeRoot r) {
  return r == TypeRoot::kBinary || r == TypeRoot::kVarBinary || r == TypeRoot::kBlob ||
         r == TypeRoot::kVariant;
}

std::string_view StringAt(const arrow::Array& a, int64_t i) {
  switch (a.type_id()) {
    case arrow::Type::STRING:
      return static_cast<const arrow::StringArray&>(a).GetView(i);
    case arrow::Type::LARGE_STRING:
      return static_cast<const arrow::LargeStringArray&>(a).GetView(i);
    default:
      return static_cast<const arrow::StringViewArray&>(a).GetView(i);
  }
}

// Builds the canonical array of `type` from one value per row; the first failing row goes to
// `bad_row` and its error is returned.
template <typename ValueOf>
Result<ArrayPtr> BuildEach(const arrow::Array& in, const DataType& type, int64_t* bad_row,
                           ValueOf value_of) {
  FJORD_ASSIGN_OR_RAISE(auto target, ToArrowType(type));
  std::unique_ptr<arrow::ArrayBuilder> builder;
  FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), target, &builder));
  FJORD_ARROW_RETURN_NOT_OK(builder->Reserve(in.length()));
  for (int64_t i = 0; i < in.length(); ++i) {
    if (in.IsNull(i)) {
      FJORD_ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    Result<Value> v = value_of(i);
    if (!v.ok()) {
      *bad_row = i;
      return v.status();
    }
    FJORD_RETURN_NOT_OK(AppendValueToBuilder(builder.get(), *v, type));
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto out, builder->Finish());
  return out;
}

Result<Value> DecimalFromArrow(const arrow::Array& in, int64_t i, const DataType& type) {
  std::string text;
  switch (in.type_id()) {
    case arrow::Type::DECIMAL128:
      text = static_cast<const arrow::Decimal128Array&>(in).FormatValue(i);
      break;
    case arrow::Type::DECIMAL256:
      text = static_cast<const arrow::Decimal256Array&>(in).FormatValue(i);
      break;
    case arrow::Type::FLOAT: {
      float f = static_cast<const arrow::FloatArray&>(in).Value(i);
      if (!std::isfinite(f)) return Status::Invalid(ShortestFloatText(f), " is not a DECIMAL");
      text = ShortestFloatDigits(f);
      break;
    }
    case arrow::Type::DOUBLE: {
      double d = static_cast<const arrow::DoubleArray&>(in).Value(i);
      if (!std::isfinite(d)) return Status::Invalid(ShortestFloatText(d), " is not a DECIMAL");
      text = ShortestFloatDigits(d);
      break;
    }
    default: {
      // An integer (Arrow's own integer-to-decimal cast refuses a whole column whose type could
      // overflow the precision, even when every value fits).
      auto scalar = in.GetScalar(i);
      if (!scalar.ok()) return Status::Invalid(scalar.status().message());
      text = (*scalar)->ToString();
      break;
    }
  }
  FJORD_ASSIGN_OR_RAISE(Decimal d, Decimal::FromString(text, type.precision(), type.scale()));
  return Value(d);
}

// Arrow's safe cast; when it fails, the first row it fails on (found by halving).
Result<ArrayPtr> SafeCast(const ArrayPtr& in, const std::shared_ptr<arrow::DataType>& target,
                          const DataType& type, int64_t* bad_row) {
  EnsureArrowCompute();
  auto options = arrow::compute::CastOptions::Safe(target);
  auto cast = arrow::compute::Cast(*in, target, options);
  if (cast.ok()) return *cast;
  auto cannot = [&] {
    return Status::Invalid("cannot convert Arrow ", in->type()->ToString(), " to ", type.ToString(),
                           ": ", cast.status().message());
  };
  // A failure that is not about values (no such cast, or one Arrow refuses for the types alone)
  // fails on no rows too.
  if (cast.status().IsNotImplemented() || cast.status().IsTypeError() || in->length() == 0 ||
      !arrow::compute::Cast(*in->Slice(0, 0), target, options).ok()) {
    return cannot();
  }
  // Rows [lo, lo + len) copied out (Arrow casts a nested slice's whole child arrays).
  auto cast_rows = [&](int64_t lo, int64_t len) -> arrow::Result<std::shared_ptr<arrow::Array>> {
    ARROW_ASSIGN_OR_RAISE(auto rows, arrow::Concatenate({in->Slice(lo, len)}));
    return arrow::compute::Cast(*rows, target, options);
  };
  int64_t lo = 0, len = in->length();
  while (len > 1) {
    int64_t half = len / 2;
    if (!cast_rows(lo, half).ok()) {
      len = half;
    } else {
      lo += half;
      len -= half;
    }
  }
  auto one = cast_rows(lo, 1);
  if (one.ok()) return cannot();
  *bad_row = lo;
  return Status::Invalid(one.status().message());
}

bool IsBounded(const DataType& t) {
  bool sized =
      IsTextRoot(t.root()) || t.root() == TypeRoot::kBinary || t.root() == TypeRoot::kVarBinary;
  return sized && t.length() < DataType::kMaxLength;
}

// Whether a nested type holds a CHAR/VARCHAR/BINARY/VARBINARY of bounded length somewhere.
bool HasBoundedChild(const DataType& t) {
  switch (t.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector:
    case TypeRoot::kMultiset:
      return IsBounded(*t.element()) || HasBoundedChild(*t.element());
    case TypeRoot::kMap:
      return IsBounded(*t.key()) || HasBoundedChild(*t.key()) || IsBounded(*t.value()) ||
             HasBoundedChild(*t.value());
    case TypeRoot::kRow:
      for (const DataField& f : t.fields()) {
        if (IsBounded(*f.type) || HasBoundedChild(*f.type)) return true;
      }
      return false;
    default:
      return false;
  }
}

// Lengths of the strings and bytes inside a nested value.
Status CheckNestedValue(const Value& v, const DataType& t) {
  if (v.is_null()) return Status::OK();
  if (IsBounded(t)) return CheckLength(v.get<std::string>(), t);
  switch (t.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector:
      for (const Value& e : v.list()) FJORD_RETURN_NOT_OK(CheckNestedValue(e, *t.element()));
      return Status::OK();
    case TypeRoot::kMultiset:
      for (const auto& [e, count] : v.map()) {
        FJORD_RETURN_NOT_OK(CheckNestedValue(e, *t.element()));
      }
      return Status::OK();
    case TypeRoot::kMap:
      for (const auto& [k, e] : v.map()) {
        FJORD_RETURN_NOT_OK(CheckNestedValue(k, *t.key()));
        FJORD_RETURN_NOT_OK(CheckNestedValue(e, *t.value()));
      }
      return Status::OK();
    case TypeRoot::kRow:
      for (size_t f = 0; f < t.fields().size() && f < v.list().size(); ++f) {
        Status s = CheckNestedValue(v.list()[f], *t.fields()[f].type);
        if (!s.ok()) return s.WithContext("field '", t.fields()[f].name, "'");
      }
      return Status::OK();
    default:
      return Status::OK();
  }
}

Status CheckValues(const arrow::Array& out, const DataType& type, int64_t* bad_row) {
  if (type.IsNested() && HasBoundedChild(type)) {
    for (int64_t i = 0; i < out.length(); ++i) {
      if (out.IsNull(i)) continue;
      FJORD_ASSIGN_OR_RAISE(Value v, ValueFromArrow(out, i, type));
      Status s = CheckNestedValue(v, type);
      if (!s.ok()) {
        *bad_row = i;
        return s;
      }
    }
  }
  TypeRoot root = type.root();
  if ((IsTextRoot(root) || root == TypeRoot::kBinary || root == TypeRoot::kVarBinary) &&
      type.length() < DataType::kMaxLength) {
    const auto& a = static_cast<const arrow::BinaryArray&>(out);
    for (int64_t i = 0; i < a.length(); ++i) {
      if (a.IsNull(i)) continue;
      Status s = CheckLength(a.GetView(i), type);
      if (!s.ok()) {
        *bad_row = i;
        return s;
      }
    }
  }
  if (root == TypeRoot::kDecimal) {
    const auto& a = static_cast<const arrow::Decimal128Array&>(out);
    for (int64_t i = 0; i < a.length(); ++i) {
      if (!a.IsNull(i) && !arrow::Decimal128(a.GetValue(i)).FitsInPrecision(type.precision())) {
        *bad_row = i;
        return Status::Invalid(a.FormatValue(i), " does not fit ", type.ToString());
      }
    }
  }
  return Status::OK();
}

Result<ArrayPtr> Convert(const ArrayPtr& in, const DataType& type, int64_t* bad_row) {
  FJORD_ASSIGN_OR_RAISE(auto target, ToArrowType(type));
  arrow::Type::type id = in->type_id();
  TypeRoot root = type.root();
  ArrayPtr out;
  if (in->type()->Equals(*target, /*check_metadata=*/false)) {
    out = in;
  } else if (root == TypeRoot::kDecimal &&
             (id == arrow::Type::DECIMAL128 || id == arrow::Type::DECIMAL256 ||
              id == arrow::Type::FLOAT || id == arrow::Type::DOUBLE || arrow::is_integer(id))) {
    FJORD_ASSIGN_OR_RAISE(out, BuildEach(*in, type, bad_row, [&](int64_t i) {
                            return DecimalFromArrow(*in, i, type);
                          }));
  } else if (IsStringLike(id) && !IsTextRoot(root) && !IsBinaryRoot(root)) {
    FJORD_ASSIGN_OR_RAISE(out, BuildEach(*in, type, bad_row, [&](int64_t i) {
                            return ValueFromText(StringAt(*in, i), type);
                          }));
  } else if (root == TypeRoot::kFloat && id == arrow::Type::DOUBLE) {
    const auto& d = static_cast<const arrow::DoubleArray&>(*in);
    FJORD_ASSIGN_OR_RAISE(out, BuildEach(*in, type, bad_row, [&](int64_t i) -> Result<Value> {
                            FJORD_ASSIGN_OR_RAISE(float f, NarrowToFloat(d.Value(i)));
                            return Value(f);
                          }));
  } else {
    FJORD_ASSIGN_OR_RAISE(out, SafeCast(in, target, type, bad_row));
  }
  FJORD_RETURN_NOT_OK(CheckValues(*out, type, bad_row));
  return out;
}

int64_t FirstNull(const arrow::Array& a) {
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i)) return i;
  }
  return -1;
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> CheckedToCanonical(const std::shared_ptr<arrow::Array>& array,
                                                         const DataType& type) {
  int64_t bad_row = -1;
  Result<ArrayPtr> out = Convert(array, type, &bad_row);
  if (!out.ok() && bad_row >= 0) return out.status().WithContext("row ", bad_row + 1);
  return out;
}

Result<std::shared_ptr<arrow::RecordBatch>> InputToTableColumns(
    const std::shared_ptr<arrow::Table>& input, const std::vector<DataField>& fields,
    std::string_view what, int64_t first_row) {
  static constexpr std::string_view kRowKind = "_row_kind";
  FJORD_ARROW_ASSIGN_OR_RAISE(auto combined, input->CombineChunks());
  const arrow::Schema& schema = *combined->schema();
  for (int c = 0; c < schema.num_fields(); ++c) {
    const std::string& name = schema.field(c)->name();
    if (schema.GetAllFieldIndices(name).size() > 1) {
      return Status::Invalid(what, ": column '", name, "' given twice");
    }
    bool known = name == kRowKind;
    for (const DataField& f : fields) known = known || f.name == name;
    if (!known) return Status::Invalid(what, ": unknown column '", name, "' (not in the table)");
  }
  int64_t n = combined->num_rows();
  arrow::FieldVector out_fields;
  arrow::ArrayVector out_columns;
  for (const DataField& f : fields) {
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
    auto column = combined->GetColumnByName(f.name);
    ArrayPtr array;
    if (!column) {
      if (!f.type->nullable()) {
        return Status::Invalid(what, ": column '", f.name,
                               "' is NOT NULL but the input does not have it");
      }
      FJORD_ARROW_ASSIGN_OR_RAISE(array, arrow::MakeArrayOfNull(af->type(), n));
    } else {
      ArrayPtr chunk = column->num_chunks() > 0 ? column->chunk(0) : nullptr;
      if (!chunk) {
        FJORD_ARROW_ASSIGN_OR_RAISE(chunk, arrow::MakeEmptyArray(column->type()));
      }
      int64_t bad_row = -1;
      Result<ArrayPtr> converted = Convert(chunk, *f.type, &bad_row);
      if (!converted.ok()) {
        if (bad_row >= 0) {
          return converted.status().WithContext(what, ", row ", bad_row + first_row, ", column '",
                                                f.name, "'");
        }
        return converted.status().WithContext(what, ", column '", f.name, "'");
      }
      array = *converted;
    }
    if (!f.type->nullable() && array->null_count() > 0) {
      return Status::Invalid(what, ", row ", FirstNull(*array) + first_row, ", column '", f.name,
                             "' is NOT NULL but the input has ", array->null_count(),
                             " NULL(s), the first at this row; nothing of this input was written");
    }
    out_fields.push_back(af);
    out_columns.push_back(array);
  }
  if (auto kinds = combined->GetColumnByName(std::string(kRowKind))) {
    ArrayPtr chunk = kinds->num_chunks() > 0 ? kinds->chunk(0) : nullptr;
    if (!chunk) {
      FJORD_ARROW_ASSIGN_OR_RAISE(chunk, arrow::MakeEmptyArray(kinds->type()));
    }
    out_fields.push_back(arrow::field(std::string(kRowKind), chunk->type()));
    out_columns.push_back(chunk);
  }
  return arrow::RecordBatch::Make(arrow::schema(out_fields), n, out_columns);
}

}  // namespace fjord
