#include "fjord/format/arrow_types.h"

#include <arrow/api.h>
#include <arrow/compute/api.h>

#include <mutex>

#include "fjord/common/arrow_status.h"

namespace fjord {

namespace {

arrow::TimeUnit::type UnitFor(int32_t precision) {
  if (precision <= 3) return arrow::TimeUnit::MILLI;
  if (precision <= 6) return arrow::TimeUnit::MICRO;
  return arrow::TimeUnit::NANO;
}

bool IsListLike(arrow::Type::type id) { return id == arrow::Type::LIST || id == arrow::Type::MAP; }

// Whether `type` is the list form of a MAP with NULL keys (see arrow_types.h).
bool IsNullKeyMapForm(const arrow::DataType& type) {
  if (type.id() != arrow::Type::LIST) return false;
  const auto& entries = *static_cast<const arrow::ListType&>(type).value_type();
  return entries.id() == arrow::Type::STRUCT && entries.num_fields() == 2 &&
         entries.field(0)->name() == "key" && entries.field(1)->name() == "value";
}

// The canonical Arrow type of `type`, except that where `actual` (the type of an array of
// `type`) holds a MAP in the list form, the result does too.
Result<std::shared_ptr<arrow::DataType>> CanonicalTypeLike(const DataType& type,
                                                           const arrow::DataType& actual) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector:
      if (actual.id() == arrow::Type::LIST) {
        const auto& element_actual = *static_cast<const arrow::ListType&>(actual).value_type();
        FJORD_ASSIGN_OR_RAISE(auto element, CanonicalTypeLike(*type.element(), element_actual));
        return arrow::list(arrow::field("element", element, type.element()->nullable()));
      }
      break;
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      if (actual.id() != arrow::Type::MAP && !IsNullKeyMapForm(actual)) break;
      const auto& entries = *static_cast<const arrow::BaseListType&>(actual).value_type();
      if (entries.id() != arrow::Type::STRUCT || entries.num_fields() != 2) break;
      bool is_map = type.root() == TypeRoot::kMap;
      DataTypePtr count = DataType::Int(false);
      const DataType& key_type = is_map ? *type.key() : *type.element();
      const DataType& value_type = is_map ? *type.value() : *count;
      FJORD_ASSIGN_OR_RAISE(auto key, CanonicalTypeLike(key_type, *entries.field(0)->type()));
      FJORD_ASSIGN_OR_RAISE(auto value, CanonicalTypeLike(value_type, *entries.field(1)->type()));
      auto value_field = arrow::field("value", value, is_map ? value_type.nullable() : true);
      if (actual.id() == arrow::Type::LIST) return NullKeyMapType(key, value_field);
      return std::shared_ptr<arrow::DataType>(
          std::make_shared<arrow::MapType>(arrow::field("key", key, false), value_field));
    }
    case TypeRoot::kRow:
      if (actual.id() == arrow::Type::STRUCT) {
        const auto& st = static_cast<const arrow::StructType&>(actual);
        arrow::FieldVector children;
        for (const DataField& f : type.fields()) {
          auto af = st.GetFieldByName(f.name);
          std::shared_ptr<arrow::DataType> child;
          if (af) {
            FJORD_ASSIGN_OR_RAISE(child, CanonicalTypeLike(*f.type, *af->type()));
          } else {
            FJORD_ASSIGN_OR_RAISE(child, ToArrowType(*f.type));
          }
          children.push_back(arrow::field(f.name, child, f.type->nullable()));
        }
        return arrow::struct_(children);
      }
      break;
    default:
      break;
  }
  return ToArrowType(type);
}

// The type both `a` and `b` convert to when they differ only in MAP forms (the list form wins);
// nullptr when they differ otherwise.
std::shared_ptr<arrow::DataType> MergedMapForm(const std::shared_ptr<arrow::DataType>& a,
                                               const std::shared_ptr<arrow::DataType>& b) {
  if (a->Equals(*b)) return a;
  if (IsListLike(a->id()) && IsListLike(b->id())) {
    auto av = static_cast<const arrow::BaseListType&>(*a).value_field();
    auto bv = static_cast<const arrow::BaseListType&>(*b).value_field();
    auto merged = MergedMapForm(av->type(), bv->type());
    if (!merged) return nullptr;
    if (a->id() == arrow::Type::LIST && b->id() == arrow::Type::LIST) {
      return arrow::list(av->WithType(merged));
    }
    if (merged->id() != arrow::Type::STRUCT || merged->num_fields() != 2) return nullptr;
    if (a->id() == arrow::Type::MAP && b->id() == arrow::Type::MAP) {
      return std::make_shared<arrow::MapType>(merged->field(0)->WithNullable(false),
                                              merged->field(1));
    }
    return NullKeyMapType(merged->field(0)->type(), merged->field(1));
  }
  if (a->id() == arrow::Type::STRUCT && b->id() == arrow::Type::STRUCT &&
      a->num_fields() == b->num_fields()) {
    arrow::FieldVector fields;
    for (int i = 0; i < a->num_fields(); ++i) {
      const auto& fa = a->field(i);
      const auto& fb = b->field(i);
      if (fa->name() != fb->name()) return nullptr;
      auto merged = MergedMapForm(fa->type(), fb->type());
      if (!merged) return nullptr;
      fields.push_back(arrow::field(fa->name(), merged, fa->nullable() || fb->nullable()));
    }
    return arrow::struct_(fields);
  }
  return nullptr;
}

// `data` under `type`, which has the same physical layout (zero-copy).
std::shared_ptr<arrow::ArrayData> Retype(const std::shared_ptr<arrow::ArrayData>& data,
                                         const std::shared_ptr<arrow::DataType>& type) {
  if (data->type->Equals(*type)) return data;
  auto out = data->Copy();
  out->type = type;
  if (IsListLike(type->id()) && !out->child_data.empty()) {
    out->child_data[0] =
        Retype(data->child_data[0], static_cast<const arrow::BaseListType&>(*type).value_type());
  } else if (type->id() == arrow::Type::STRUCT) {
    for (size_t i = 0; i < out->child_data.size() && i < static_cast<size_t>(type->num_fields());
         ++i) {
      out->child_data[i] = Retype(data->child_data[i], type->field(static_cast<int>(i))->type());
    }
  }
  return out;
}

}  // namespace

std::shared_ptr<arrow::DataType> NullKeyMapType(const std::shared_ptr<arrow::DataType>& key,
                                                const std::shared_ptr<arrow::Field>& value) {
  auto entries = arrow::struct_({arrow::field("key", key, true), value->WithName("value")});
  return arrow::list(arrow::field("entries", entries, false));
}

MapEntries ViewMap(const arrow::Array& array) {
  // A MapArray is a ListArray of its entries.
  const auto& list = static_cast<const arrow::ListArray&>(array);
  const auto& entries = static_cast<const arrow::StructArray&>(*list.values());
  return MapEntries{&list, entries.field(0), entries.field(1)};
}

Result<std::vector<std::shared_ptr<arrow::Table>>> UnifyMapForms(
    const std::vector<std::shared_ptr<arrow::Table>>& tables) {
  if (tables.size() < 2) return tables;
  const auto& first = tables[0]->schema();
  bool same = true;
  for (const auto& t : tables) {
    if (t->num_columns() != first->num_fields()) return tables;  // concatenation reports it
    same = same && t->schema()->Equals(*first, /*check_metadata=*/false);
  }
  if (same) return tables;
  std::vector<std::shared_ptr<arrow::DataType>> merged;
  for (int c = 0; c < first->num_fields(); ++c) {
    std::shared_ptr<arrow::DataType> type = first->field(c)->type();
    for (const auto& t : tables) {
      type = MergedMapForm(type, t->schema()->field(c)->type());
      if (!type) return tables;  // differs in more than MAP forms: concatenation reports it
    }
    merged.push_back(type);
  }
  std::vector<std::shared_ptr<arrow::Table>> out;
  for (const auto& t : tables) {
    arrow::FieldVector fields;
    std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
    for (int c = 0; c < t->num_columns(); ++c) {
      const auto& field = t->schema()->field(c);
      const auto& type = merged[static_cast<size_t>(c)];
      if (field->type()->Equals(*type)) {
        fields.push_back(field);
        columns.push_back(t->column(c));
        continue;
      }
      arrow::ArrayVector chunks;
      for (const auto& chunk : t->column(c)->chunks()) {
        chunks.push_back(arrow::MakeArray(Retype(chunk->data(), type)));
      }
      fields.push_back(field->WithType(type));
      columns.push_back(std::make_shared<arrow::ChunkedArray>(chunks, type));
    }
    out.push_back(
        arrow::Table::Make(arrow::schema(fields, t->schema()->metadata()), columns, t->num_rows()));
  }
  return out;
}

std::shared_ptr<arrow::DataType> WithListFormMaps(const std::shared_ptr<arrow::DataType>& type) {
  switch (type->id()) {
    case arrow::Type::MAP: {
      const auto& map = static_cast<const arrow::MapType&>(*type);
      return NullKeyMapType(WithListFormMaps(map.key_type()),
                            map.item_field()->WithType(WithListFormMaps(map.item_type())));
    }
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListType&>(*type);
      auto value = list.value_field();
      return arrow::list(value->WithType(WithListFormMaps(value->type())));
    }
    case arrow::Type::STRUCT: {
      arrow::FieldVector fields;
      for (const auto& f : type->fields())
        fields.push_back(f->WithType(WithListFormMaps(f->type())));
      return arrow::struct_(fields);
    }
    default:
      return type;
  }
}

Result<std::shared_ptr<arrow::RecordBatch>> ConformToSchema(
    const std::shared_ptr<arrow::RecordBatch>& batch,
    const std::shared_ptr<arrow::Schema>& schema) {
  if (batch->num_columns() != schema->num_fields()) {
    return Status::Invalid("a batch of ", batch->num_columns(), " columns for a schema of ",
                           schema->num_fields());
  }
  arrow::ArrayVector columns = batch->columns();
  for (int c = 0; c < schema->num_fields(); ++c) {
    const auto& want = schema->field(c)->type();
    const auto& have = columns[static_cast<size_t>(c)]->type();
    if (have->Equals(*want)) continue;
    auto merged = MergedMapForm(want, have);
    if (merged && merged->Equals(*want)) {
      columns[static_cast<size_t>(c)] =
          arrow::MakeArray(Retype(columns[static_cast<size_t>(c)]->data(), want));
      continue;
    }
    if (merged) {
      auto retyped = arrow::MakeArray(Retype(columns[static_cast<size_t>(c)]->data(), want));
      if (!retyped->ValidateFull().ok()) {
        return Status::Invalid("column '", schema->field(c)->name(),
                               "' holds a MAP entry with a NULL key, which the map form of this "
                               "read cannot hold");
      }
      columns[static_cast<size_t>(c)] = retyped;
      continue;
    }
    return Status::Invalid("column '", schema->field(c)->name(), "' is ", have->ToString(),
                           ", the read expects ", want->ToString());
  }
  return arrow::RecordBatch::Make(schema, batch->num_rows(), columns);
}

void EnsureArrowCompute() {
  static std::once_flag once;
  std::call_once(once, [] { (void)arrow::compute::Initialize(); });
}

Result<std::shared_ptr<arrow::DataType>> ToArrowType(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return arrow::boolean();
    case TypeRoot::kTinyInt:
      return arrow::int8();
    case TypeRoot::kSmallInt:
      return arrow::int16();
    case TypeRoot::kInt:
      return arrow::int32();
    case TypeRoot::kBigInt:
      return arrow::int64();
    case TypeRoot::kFloat:
      return arrow::float32();
    case TypeRoot::kDouble:
      return arrow::float64();
    case TypeRoot::kDecimal:
      return arrow::decimal128(type.precision(), type.scale());
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return arrow::utf8();
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      return arrow::binary();
    case TypeRoot::kDate:
      return arrow::date32();
    case TypeRoot::kTime:
      return arrow::time32(arrow::TimeUnit::MILLI);
    case TypeRoot::kTimestamp:
      return arrow::timestamp(UnitFor(type.precision()));
    case TypeRoot::kTimestampLtz:
      return arrow::timestamp(UnitFor(type.precision()), "UTC");
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      FJORD_ASSIGN_OR_RAISE(auto element, ToArrowType(*type.element()));
      return arrow::list(arrow::field("element", element, type.element()->nullable()));
    }
    case TypeRoot::kMultiset: {
      FJORD_ASSIGN_OR_RAISE(auto element, ToArrowType(*type.element()));
      return arrow::map(element, arrow::int32());
    }
    case TypeRoot::kMap: {
      FJORD_ASSIGN_OR_RAISE(auto key, ToArrowType(*type.key()));
      FJORD_ASSIGN_OR_RAISE(auto value, ToArrowType(*type.value()));
      return std::shared_ptr<arrow::DataType>(std::make_shared<arrow::MapType>(
          arrow::field("key", key, false), arrow::field("value", value, type.value()->nullable())));
    }
    case TypeRoot::kRow: {
      arrow::FieldVector children;
      for (const DataField& f : type.fields()) {
        FJORD_ASSIGN_OR_RAISE(auto child, ToArrowField(f));
        children.push_back(child);
      }
      return arrow::struct_(children);
    }
  }
  return Status::NotImplemented("no Arrow type for ", type.ToString());
}

Result<std::shared_ptr<arrow::Field>> ToArrowField(const DataField& field) {
  FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(*field.type));
  return arrow::field(field.name, type, field.type->nullable());
}

Result<std::shared_ptr<arrow::Schema>> ToArrowSchema(const std::vector<DataField>& fields) {
  arrow::FieldVector out;
  for (const DataField& f : fields) {
    FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
    out.push_back(af);
  }
  return arrow::schema(out);
}

Result<std::shared_ptr<arrow::Array>> ToCanonical(const std::shared_ptr<arrow::Array>& array,
                                                  const DataType& type) {
  FJORD_ASSIGN_OR_RAISE(auto target, CanonicalTypeLike(type, *array->type()));
  if (array->type()->Equals(*target, /*check_metadata=*/false)) return array;
  EnsureArrowCompute();
  arrow::compute::CastOptions options = arrow::compute::CastOptions::Unsafe(target);
  auto cast = arrow::compute::Cast(*array, target, options);
  if (!cast.ok()) {
    return Status::NotImplemented("cannot convert Arrow ", array->type()->ToString(), " to ",
                                  type.ToString(), ": ", cast.status().message());
  }
  return *cast;
}

}  // namespace fjord
