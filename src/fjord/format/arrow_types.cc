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

}  // namespace

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
  FJORD_ASSIGN_OR_RAISE(auto target, ToArrowType(type));
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
