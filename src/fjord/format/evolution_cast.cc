// The columnar driver of the evolution casts: values are read from the source column, converted
// by the family of the target type (ARRAY, MAP and ROW to text here) and appended to the target
// column. Which changes Java allows: evolution_cast_rules.cc.
#include "fjord/format/evolution_cast.h"

#include <arrow/api.h>
#include <arrow/util/bit_util.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/evolution_cast_internal.h"

namespace fjord {

namespace {

using evolution::Days;
using evolution::Decimal;
using evolution::JavaTimestamp;
using evolution::MillisOfDay;
using evolution::Value;

// ---- reading and writing canonical columns ----

Value Read(const arrow::Array& a, int64_t i, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return static_cast<const arrow::BooleanArray&>(a).Value(i);
    case TypeRoot::kTinyInt:
      return int64_t{static_cast<const arrow::Int8Array&>(a).Value(i)};
    case TypeRoot::kSmallInt:
      return int64_t{static_cast<const arrow::Int16Array&>(a).Value(i)};
    case TypeRoot::kInt:
      return int64_t{static_cast<const arrow::Int32Array&>(a).Value(i)};
    case TypeRoot::kBigInt:
      return int64_t{static_cast<const arrow::Int64Array&>(a).Value(i)};
    case TypeRoot::kFloat:
      return static_cast<const arrow::FloatArray&>(a).Value(i);
    case TypeRoot::kDouble:
      return static_cast<const arrow::DoubleArray&>(a).Value(i);
    case TypeRoot::kDecimal:
      return Decimal{arrow::Decimal128(static_cast<const arrow::Decimal128Array&>(a).GetValue(i)),
                     type.precision(), type.scale()};
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return std::string(static_cast<const arrow::BinaryArray&>(a).GetView(i));
    case TypeRoot::kDate:
      return Days{static_cast<const arrow::Date32Array&>(a).Value(i)};
    case TypeRoot::kTime:
      return MillisOfDay{static_cast<const arrow::Time32Array&>(a).Value(i)};
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      int64_t v = static_cast<const arrow::TimestampArray&>(a).Value(i);
      int64_t per_milli = type.precision() <= 3 ? 1 : type.precision() <= 6 ? 1000 : 1000000;
      int64_t millis = v / per_milli, rest = v % per_milli;
      if (rest < 0) {
        rest += per_milli;
        --millis;
      }
      return JavaTimestamp{millis, static_cast<int32_t>(rest * (1000000 / per_milli))};
    }
    default:
      return std::monostate{};
  }
}

Status Append(arrow::ArrayBuilder* b, const Value& v, const DataType& type) {
  if (std::holds_alternative<std::monostate>(v)) return FromArrow(b->AppendNull());
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return FromArrow(static_cast<arrow::BooleanBuilder*>(b)->Append(std::get<bool>(v)));
    case TypeRoot::kTinyInt:
      return FromArrow(
          static_cast<arrow::Int8Builder*>(b)->Append(static_cast<int8_t>(std::get<int64_t>(v))));
    case TypeRoot::kSmallInt:
      return FromArrow(
          static_cast<arrow::Int16Builder*>(b)->Append(static_cast<int16_t>(std::get<int64_t>(v))));
    case TypeRoot::kInt:
      return FromArrow(
          static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(std::get<int64_t>(v))));
    case TypeRoot::kBigInt:
      return FromArrow(static_cast<arrow::Int64Builder*>(b)->Append(std::get<int64_t>(v)));
    case TypeRoot::kFloat:
      return FromArrow(static_cast<arrow::FloatBuilder*>(b)->Append(std::get<float>(v)));
    case TypeRoot::kDouble:
      return FromArrow(static_cast<arrow::DoubleBuilder*>(b)->Append(std::get<double>(v)));
    case TypeRoot::kDecimal:
      return FromArrow(
          static_cast<arrow::Decimal128Builder*>(b)->Append(std::get<Decimal>(v).unscaled));
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return FromArrow(static_cast<arrow::StringBuilder*>(b)->Append(std::get<std::string>(v)));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return FromArrow(static_cast<arrow::BinaryBuilder*>(b)->Append(std::get<std::string>(v)));
    case TypeRoot::kDate:
      return FromArrow(static_cast<arrow::Date32Builder*>(b)->Append(std::get<Days>(v).value));
    case TypeRoot::kTime:
      return FromArrow(
          static_cast<arrow::Time32Builder*>(b)->Append(std::get<MillisOfDay>(v).value));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      const auto& ts = std::get<JavaTimestamp>(v);
      int p = type.precision();
      int64_t per_milli = p <= 3 ? 1 : p <= 6 ? 1000 : 1000000;
      int64_t out;
      if (__builtin_mul_overflow(ts.millis, per_milli, &out) ||
          __builtin_add_overflow(out, ts.nanos_of_milli / (1000000 / per_milli), &out)) {
        return Status::Invalid("the result is beyond the range of ", type.ToString(),
                               " in Fjord (a 64-bit count of its unit: years 1677 to 2262 at "
                               "precisions 7 to 9, 292,000 years around 1970 at 4 to 6)");
      }
      return FromArrow(static_cast<arrow::TimestampBuilder*>(b)->Append(out));
    }
    default:
      return Status::NotImplemented("no evolution cast to ", type.ToString());
  }
}

// A value in a message: text quoted, numbers as Java prints them.
std::string Show(const Value& v, const DataType& type) {
  if (type.IsString()) return "'" + std::get<std::string>(v) + "'";
  if (std::holds_alternative<double>(v)) return std::to_string(std::get<double>(v));
  if (std::holds_alternative<float>(v)) return std::to_string(std::get<float>(v));
  if (std::holds_alternative<int64_t>(v)) return std::to_string(std::get<int64_t>(v));
  if (std::holds_alternative<Decimal>(v)) return evolution::PlainText(std::get<Decimal>(v));
  return "the value";
}

Result<Value> Convert(const Value& v, const DataType& from, const DataType& to) {
  switch (to.root()) {
    case TypeRoot::kBoolean:
      return evolution::ToBoolean(v, from);
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kBigInt:
    case TypeRoot::kFloat:
    case TypeRoot::kDouble:
      return evolution::ToNumber(v, from, to);
    case TypeRoot::kDecimal:
      return evolution::ToDecimal(v, from, to);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return evolution::ToText(v, from, to);
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return evolution::ToBytes(v, from, to);
    case TypeRoot::kDate:
      return evolution::ToDate(v, from);
    case TypeRoot::kTime:
      return evolution::ToTime(v, from);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return evolution::ToTimestamp(v, from, to);
    default:
      return Status::NotImplemented("no evolution cast to ", to.ToString());
  }
}

// ArrayToStringCastRule, MapToStringCastRule, RowToStringCastRule: "[a, b]", "{k -> v, ...}",
// "{f1, f2}", NULL elements as "null", each element cast to STRING by its own executor (nested
// ones recursively); the target's length is not applied.
Result<std::string> NestedText(const arrow::Array& a, int64_t i, const DataType& type);

Result<std::string> ElementText(const arrow::Array& a, int64_t i, const DataType& type) {
  if (a.IsNull(i)) return std::string("null");
  if (type.IsNested()) return NestedText(a, i, type);
  DataTypePtr string_type = DataType::String();
  if (!HasEvolutionCast(type, *string_type)) {
    return Status::Invalid("Java has no cast of ", type.ToString(),
                           " to STRING (its executor throws NullPointerException)");
  }
  FJORD_ASSIGN_OR_RAISE(Value v, Convert(Read(a, i, type), type, *string_type));
  return std::get<std::string>(std::move(v));
}

Result<std::string> NestedText(const arrow::Array& a, int64_t i, const DataType& type) {
  std::string out;
  switch (type.root()) {
    case TypeRoot::kArray: {
      const auto& list = static_cast<const arrow::ListArray&>(a);
      auto values = list.values();
      out = "[";
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        if (j > list.value_offset(i)) out += ", ";
        FJORD_ASSIGN_OR_RAISE(std::string e, ElementText(*values, j, *type.element()));
        out += e;
      }
      return out + "]";
    }
    case TypeRoot::kMap: {
      MapEntries m = ViewMap(a);
      out = "{";
      for (int64_t j = m.list->value_offset(i); j < m.list->value_offset(i + 1); ++j) {
        if (j > m.list->value_offset(i)) out += ", ";
        FJORD_ASSIGN_OR_RAISE(std::string k, ElementText(*m.keys, j, *type.key()));
        FJORD_ASSIGN_OR_RAISE(std::string v, ElementText(*m.items, j, *type.value()));
        out += k + " -> " + v;
      }
      return out + "}";
    }
    case TypeRoot::kRow: {
      const auto& row = static_cast<const arrow::StructArray&>(a);
      out = "{";
      for (size_t k = 0; k < type.fields().size(); ++k) {
        if (k > 0) out += ", ";
        FJORD_ASSIGN_OR_RAISE(
            std::string f, ElementText(*row.field(static_cast<int>(k)), i, *type.fields()[k].type));
        out += f;
      }
      return out + "}";
    }
    default:
      return Status::NotImplemented("no cast of ", type.ToString(), " to a string");
  }
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> EvolutionCast(const std::shared_ptr<arrow::Array>& column,
                                                    const DataType& from, const DataType& to) {
  if (!HasEvolutionCast(from, to)) {
    return Status::NotImplemented("Fjord cannot cast ", from.ToString(), " to ", to.ToString());
  }
  FJORD_ASSIGN_OR_RAISE(auto source, ToCanonical(column, from));
  if (from.EqualsIgnoreNullable(to)) return source;
  FJORD_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(to));
  std::unique_ptr<arrow::ArrayBuilder> builder;
  FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), arrow_type, &builder));
  FJORD_ARROW_RETURN_NOT_OK(builder->Reserve(source->length()));
  for (int64_t i = 0; i < source->length(); ++i) {
    if (source->IsNull(i)) {
      FJORD_ARROW_RETURN_NOT_OK(builder->AppendNull());
      continue;
    }
    if (from.IsNested()) {
      Result<std::string> text = NestedText(*source, i, from);
      Status st = text.ok()
                      ? FromArrow(static_cast<arrow::StringBuilder*>(builder.get())->Append(*text))
                      : text.status();
      if (!st.ok()) {
        return Status::Invalid("row ", i, " of the batch: cannot cast ", from.ToString(), " to ",
                               to.ToString(), " (Java Paimon's cast throws too): ", st.message());
      }
      continue;
    }
    Value in = Read(*source, i, from);
    Result<Value> out = Convert(in, from, to);
    Status st = out.ok() ? Append(builder.get(), *out, to) : out.status();
    if (!st.ok()) {
      return Status::Invalid("row ", i, " of the batch: cannot cast ", Show(in, from), " from ",
                             from.ToString(), " to ", to.ToString(),
                             out.ok() ? ": " : " (Java Paimon's cast throws too): ", st.message());
    }
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto result, builder->Finish());
  return result;
}

namespace {

// `values` of type `from` as `to`: unchanged, nested recursion, or an evolution cast.
Result<std::shared_ptr<arrow::Array>> CastInner(const std::shared_ptr<arrow::Array>& values,
                                                const DataType& from, const DataType& to) {
  if (from.EqualsIgnoreNullable(to)) return ToCanonical(values, to);
  if (from.IsNested() && from.root() == to.root()) return EvolveNestedColumn(values, from, to);
  return EvolutionCast(values, from, to);
}

// The rows' entries [first, last) of a list-like column, with offsets from 0 and its validity.
struct Entries {
  int64_t first = 0, last = 0;
  std::shared_ptr<arrow::Buffer> offsets, validity;
  int64_t null_count = 0;
};

Result<Entries> EntriesOf(const arrow::ListArray& list) {
  Entries e;
  int64_t n = list.length();
  e.first = list.value_offset(0);
  e.last = list.value_offset(n);
  arrow::Int32Builder offsets;
  FJORD_ARROW_RETURN_NOT_OK(offsets.Reserve(n + 1));
  for (int64_t i = 0; i <= n; ++i) {
    offsets.UnsafeAppend(static_cast<int32_t>(list.value_offset(i) - e.first));
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(auto offsets_array, offsets.Finish());
  e.offsets = offsets_array->data()->buffers[1];
  e.null_count = list.null_count();
  if (e.null_count > 0) {
    FJORD_ARROW_ASSIGN_OR_RAISE(e.validity, arrow::AllocateEmptyBitmap(n));
    for (int64_t i = 0; i < n; ++i) {
      if (list.IsValid(i)) arrow::bit_util::SetBit(e.validity->mutable_data(), i);
    }
  }
  return e;
}

// Field `k` of `row`, NULL where the row is NULL (Arrow leaves any value there; Java casts none).
Result<std::shared_ptr<arrow::Array>> MaskedField(const arrow::StructArray& row, int k) {
  std::shared_ptr<arrow::Array> child = row.field(k);
  if (row.null_count() == 0) return child;
  int64_t offset = child->offset();
  FJORD_ARROW_ASSIGN_OR_RAISE(auto bitmap, arrow::AllocateEmptyBitmap(offset + child->length()));
  for (int64_t i = 0; i < child->length(); ++i) {
    if (row.IsValid(i) && child->IsValid(i)) {
      arrow::bit_util::SetBit(bitmap->mutable_data(), offset + i);
    }
  }
  auto data = child->data()->Copy();
  data->buffers[0] = bitmap;
  data->null_count = arrow::kUnknownNullCount;
  return arrow::MakeArray(data);
}

}  // namespace

Result<std::shared_ptr<arrow::Array>> EvolveNestedColumn(
    const std::shared_ptr<arrow::Array>& column, const DataType& from, const DataType& to) {
  bool array = from.root() == TypeRoot::kArray && to.root() == TypeRoot::kArray &&
               !from.element()->EqualsIgnoreNullable(*to.element());
  bool map = from.root() == TypeRoot::kMap && to.root() == TypeRoot::kMap &&
             from.key()->EqualsIgnoreNullable(*to.key()) &&
             !from.value()->EqualsIgnoreNullable(*to.value());
  FJORD_ASSIGN_OR_RAISE(auto source, ToCanonical(column, from));
  if (array) {
    const auto& list = static_cast<const arrow::ListArray&>(*source);
    FJORD_ASSIGN_OR_RAISE(Entries e, EntriesOf(list));
    FJORD_ASSIGN_OR_RAISE(auto values, CastInner(list.values()->Slice(e.first, e.last - e.first),
                                                 *from.element(), *to.element()));
    FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(to));
    return std::shared_ptr<arrow::Array>(std::make_shared<arrow::ListArray>(
        type, list.length(), e.offsets, values, e.validity, e.null_count));
  }
  if (map && source->type_id() == arrow::Type::MAP) {
    const auto& m = static_cast<const arrow::MapArray&>(*source);
    FJORD_ASSIGN_OR_RAISE(Entries e, EntriesOf(m));
    auto keys = m.keys()->Slice(e.first, e.last - e.first);
    FJORD_ASSIGN_OR_RAISE(auto items, CastInner(m.items()->Slice(e.first, e.last - e.first),
                                                *from.value(), *to.value()));
    FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(to));
    return std::shared_ptr<arrow::Array>(std::make_shared<arrow::MapArray>(
        type, m.length(), e.offsets, keys, items, e.validity, e.null_count));
  }
  if (from.root() == TypeRoot::kRow && to.root() == TypeRoot::kRow &&
      source->type_id() == arrow::Type::STRUCT) {
    // Fields by id (SchemaEvolutionUtil's row cast): renamed ones keep their values, dropped
    // ones go, added ones are NULL, changed types cast.
    const auto& row = static_cast<const arrow::StructArray&>(*source);
    arrow::ArrayVector children;
    arrow::FieldVector fields;
    for (const DataField& tf : to.fields()) {
      std::shared_ptr<arrow::Array> child;
      for (size_t k = 0; k < from.fields().size(); ++k) {
        if (from.fields()[k].id != tf.id) continue;
        FJORD_ASSIGN_OR_RAISE(auto field, MaskedField(row, static_cast<int>(k)));
        FJORD_ASSIGN_OR_RAISE(child, CastInner(field, *from.fields()[k].type, *tf.type));
      }
      if (!child) {
        FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(*tf.type));
        FJORD_ARROW_ASSIGN_OR_RAISE(child, arrow::MakeArrayOfNull(type, row.length()));
      }
      fields.push_back(arrow::field(tf.name, child->type(), tf.type->nullable()));
      children.push_back(std::move(child));
    }
    std::shared_ptr<arrow::Buffer> validity;
    if (row.null_count() > 0) {
      FJORD_ARROW_ASSIGN_OR_RAISE(validity, arrow::AllocateEmptyBitmap(row.length()));
      for (int64_t i = 0; i < row.length(); ++i) {
        if (row.IsValid(i)) arrow::bit_util::SetBit(validity->mutable_data(), i);
      }
    }
    return std::shared_ptr<arrow::Array>(std::make_shared<arrow::StructArray>(
        arrow::struct_(fields), row.length(), children, validity, row.null_count()));
  }
  return ToCanonical(source, to);  // unchanged types
}

}  // namespace fjord
