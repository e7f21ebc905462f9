#include "fjord/format/arrow_values.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/calendar.h"
#include "fjord/format/arrow_types.h"

namespace fjord {

int64_t UnitsPerSecond(const arrow::DataType& t) {
  switch (static_cast<const arrow::TimestampType&>(t).unit()) {
    case arrow::TimeUnit::SECOND:
      return 1;
    case arrow::TimeUnit::MILLI:
      return 1000;
    case arrow::TimeUnit::MICRO:
      return 1000000;
    default:
      return 1000000000;
  }
}

arrow::Decimal128 ToDecimal128(Int128 v) {
  return arrow::Decimal128(static_cast<int64_t>(v >> 64), static_cast<uint64_t>(v));
}

int64_t TimestampToUnits(const Timestamp& ts, int64_t per_second) {
  // The usual units by constants (a multiplication where the general form divides twice).
  switch (per_second) {
    case 1000:
      return ts.millis;
    case 1000000:
      return ts.millis * 1000 + ts.nanos_of_milli / 1000;
    case 1000000000:
      return ts.millis * 1000000 + ts.nanos_of_milli;
    default:
      break;
  }
  return per_second >= 1000
             ? ts.millis * (per_second / 1000) + ts.nanos_of_milli / (1000000000 / per_second)
             : FloorDiv(ts.millis, 1000);
}

namespace {

Int128 FromDecimal128(const arrow::Decimal128& d) {
  return (static_cast<Int128>(d.high_bits()) << 64) | static_cast<Int128>(d.low_bits());
}

}  // namespace

Result<Value> ValueFromArrow(const arrow::Array& array, int64_t i, const DataType& type) {
  if (array.IsNull(i)) return Value();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Value(static_cast<const arrow::BooleanArray&>(array).Value(i));
    case TypeRoot::kTinyInt:
      return Value(static_cast<const arrow::Int8Array&>(array).Value(i));
    case TypeRoot::kSmallInt:
      return Value(static_cast<const arrow::Int16Array&>(array).Value(i));
    case TypeRoot::kInt:
      return Value(static_cast<const arrow::Int32Array&>(array).Value(i));
    case TypeRoot::kBigInt:
      return Value(static_cast<const arrow::Int64Array&>(array).Value(i));
    case TypeRoot::kFloat:
      return Value(static_cast<const arrow::FloatArray&>(array).Value(i));
    case TypeRoot::kDouble:
      return Value(static_cast<const arrow::DoubleArray&>(array).Value(i));
    case TypeRoot::kDecimal: {
      arrow::Decimal128 d(static_cast<const arrow::Decimal128Array&>(array).GetValue(i));
      return Value(Decimal{FromDecimal128(d), type.precision(), type.scale()});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Value(std::string(static_cast<const arrow::StringArray&>(array).GetView(i)));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      return Value(std::string(static_cast<const arrow::BinaryArray&>(array).GetView(i)));
    case TypeRoot::kDate:
      return Value(static_cast<const arrow::Date32Array&>(array).Value(i));
    case TypeRoot::kTime:
      return Value(static_cast<const arrow::Time32Array&>(array).Value(i));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      int64_t v = static_cast<const arrow::TimestampArray&>(array).Value(i);
      int64_t per_second = UnitsPerSecond(*array.type());
      int64_t per_milli = per_second / 1000;
      if (per_milli == 0) return Value(Timestamp{v * 1000, 0});
      int64_t millis = FloorDiv(v, per_milli);
      auto nanos = static_cast<int32_t>((v - millis * per_milli) * (1000000 / per_milli));
      return Value(Timestamp{millis, nanos});
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      ValueList items;
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        FJORD_ASSIGN_OR_RAISE(Value v, ValueFromArrow(*list.values(), j, *type.element()));
        items.push_back(std::move(v));
      }
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      // A MapArray, or the list form of a MAP with NULL keys (arrow_types.h).
      MapEntries map = ViewMap(array);
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      ValueMap entries;
      for (int64_t j = map.list->value_offset(i); j < map.list->value_offset(i + 1); ++j) {
        FJORD_ASSIGN_OR_RAISE(Value k, ValueFromArrow(*map.keys, j, kt));
        FJORD_ASSIGN_OR_RAISE(Value v, ValueFromArrow(*map.items, j, vt));
        entries.emplace_back(std::move(k), std::move(v));
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      const auto& st = static_cast<const arrow::StructArray&>(array);
      ValueList fields;
      for (size_t f = 0; f < type.fields().size(); ++f) {
        FJORD_ASSIGN_OR_RAISE(
            Value v, ValueFromArrow(*st.field(static_cast<int>(f)), i, *type.fields()[f].type));
        fields.push_back(std::move(v));
      }
      return Value::List(std::move(fields));
    }
  }
  return Status::NotImplemented("no Value for ", type.ToString());
}

Status AppendValueToBuilder(arrow::ArrayBuilder* builder, const Value& value,
                            const DataType& type) {
  if (value.is_null()) return FromArrow(builder->AppendNull());
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return FromArrow(static_cast<arrow::BooleanBuilder*>(builder)->Append(value.get<bool>()));
    case TypeRoot::kTinyInt:
      return FromArrow(
          static_cast<arrow::Int8Builder*>(builder)->Append(static_cast<int8_t>(value.AsInt64())));
    case TypeRoot::kSmallInt:
      return FromArrow(static_cast<arrow::Int16Builder*>(builder)->Append(
          static_cast<int16_t>(value.AsInt64())));
    case TypeRoot::kInt:
      return FromArrow(static_cast<arrow::Int32Builder*>(builder)->Append(
          static_cast<int32_t>(value.AsInt64())));
    case TypeRoot::kDate:
      return FromArrow(static_cast<arrow::Date32Builder*>(builder)->Append(
          static_cast<int32_t>(value.AsInt64())));
    case TypeRoot::kTime:
      return FromArrow(static_cast<arrow::Time32Builder*>(builder)->Append(
          static_cast<int32_t>(value.AsInt64())));
    case TypeRoot::kBigInt:
      return FromArrow(static_cast<arrow::Int64Builder*>(builder)->Append(value.AsInt64()));
    case TypeRoot::kFloat:
      return FromArrow(static_cast<arrow::FloatBuilder*>(builder)->Append(value.get<float>()));
    case TypeRoot::kDouble:
      return FromArrow(static_cast<arrow::DoubleBuilder*>(builder)->Append(value.get<double>()));
    case TypeRoot::kDecimal:
      return FromArrow(static_cast<arrow::Decimal128Builder*>(builder)->Append(
          ToDecimal128(value.get<Decimal>().unscaled)));
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return FromArrow(
          static_cast<arrow::StringBuilder*>(builder)->Append(value.get<std::string>()));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      return FromArrow(
          static_cast<arrow::BinaryBuilder*>(builder)->Append(value.get<std::string>()));
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      int64_t v = TimestampToUnits(value.get<Timestamp>(), UnitsPerSecond(*builder->type()));
      return FromArrow(static_cast<arrow::TimestampBuilder*>(builder)->Append(v));
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      auto* lb = static_cast<arrow::ListBuilder*>(builder);
      FJORD_RETURN_NOT_OK(FromArrow(lb->Append()));
      for (const Value& v : value.list()) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(lb->value_builder(), v, *type.element()));
      }
      return Status::OK();
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      if (builder->type()->id() == arrow::Type::LIST) {
        // The list form of a MAP with NULL keys (arrow_types.h).
        auto* lb = static_cast<arrow::ListBuilder*>(builder);
        auto* entries = static_cast<arrow::StructBuilder*>(lb->value_builder());
        FJORD_RETURN_NOT_OK(FromArrow(lb->Append()));
        for (const auto& [k, v] : value.map()) {
          FJORD_RETURN_NOT_OK(FromArrow(entries->Append()));
          FJORD_RETURN_NOT_OK(AppendValueToBuilder(entries->field_builder(0), k, kt));
          FJORD_RETURN_NOT_OK(AppendValueToBuilder(entries->field_builder(1), v, vt));
        }
        return Status::OK();
      }
      auto* mb = static_cast<arrow::MapBuilder*>(builder);
      for (const auto& entry : value.map()) {
        // A MapArray cannot hold it (building one aborts): only the list form can.
        if (entry.first.is_null()) {
          return Status::NotImplemented("a MAP with a NULL key in a map-typed Arrow column");
        }
      }
      FJORD_RETURN_NOT_OK(FromArrow(mb->Append()));
      for (const auto& [k, v] : value.map()) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(mb->key_builder(), k, kt));
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(mb->item_builder(), v, vt));
      }
      return Status::OK();
    }
    case TypeRoot::kRow: {
      auto* sb = static_cast<arrow::StructBuilder*>(builder);
      FJORD_RETURN_NOT_OK(FromArrow(sb->Append()));
      const ValueList& fields = value.list();
      for (size_t f = 0; f < type.fields().size(); ++f) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(sb->field_builder(static_cast<int>(f)),
                                                 f < fields.size() ? fields[f] : Value(),
                                                 *type.fields()[f].type));
      }
      return Status::OK();
    }
  }
  return Status::NotImplemented("cannot build Arrow values of ", type.ToString());
}

}  // namespace fjord
