#include "fjord/format/parquet_selective.h"

#include <arrow/api.h>
#include <parquet/column_reader.h>
#include <parquet/schema.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"

namespace fjord {

namespace {

// Levels (rows) asked of the column reader at once; it returns fewer at a page's end.
constexpr int64_t kStep = 4096;

// Reads a column of parquet type `PType` into `Builder`, each decoded value appended as a `Value`
// (TINYINT and SMALLINT narrowed from their INT32, a DECIMAL's unscaled INT32 or INT64 widened);
// strings and bytes as the page's bytes, a fixed-length DECIMAL from its big-endian bytes.
template <typename PType, typename Builder, typename Value>
class TypedSelectiveColumn : public SelectiveColumn {
 public:
  using Decoded = typename PType::c_type;

  TypedSelectiveColumn(std::shared_ptr<parquet::ColumnReader> reader, int16_t max_def,
                       int32_t width, std::shared_ptr<arrow::DataType> type,
                       arrow::MemoryPool* pool)
      : holder_(std::move(reader)),
        reader_(static_cast<parquet::TypedColumnReader<PType>*>(holder_.get())),
        max_def_(max_def),
        width_(width),
        type_(std::move(type)),
        pool_(pool) {}

  Result<std::shared_ptr<arrow::Array>> Read(int64_t n, const uint8_t* keep,
                                             int64_t kept) override {
    std::unique_ptr<arrow::ArrayBuilder> any;
    FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(pool_, type_, &any));
    auto* builder = static_cast<Builder*>(any.get());
    FJORD_ARROW_RETURN_NOT_OK(builder->Reserve(keep ? kept : n));
    int64_t done = 0;
    while (done < n) {
      int64_t values = 0;
      FJORD_ASSIGN_OR_RAISE(int64_t levels, Next(n - done, &values));
      const uint8_t* k = keep ? keep + done : nullptr;
      if constexpr (std::is_same_v<Decoded, parquet::ByteArray>) {
        // The kept values' bytes first, so that they are appended within reserved room.
        int64_t bytes = 0;
        for (int64_t i = 0, v = 0; i < levels; ++i) {
          if (!Present(i)) continue;
          if (!k || k[i]) bytes += values_[static_cast<size_t>(v)].len;
          ++v;
        }
        FJORD_ARROW_RETURN_NOT_OK(builder->ReserveData(bytes));
      }
      for (int64_t i = 0, v = 0; i < levels; ++i) {
        bool present = Present(i);
        if (!k || k[i]) {
          if (present) {
            FJORD_RETURN_NOT_OK(Append(builder, values_[static_cast<size_t>(v)]));
          } else {
            builder->UnsafeAppendNull();
          }
        }
        v += present;
      }
      done += levels;
    }
    std::shared_ptr<arrow::Array> out;
    FJORD_ARROW_RETURN_NOT_OK(builder->Finish(&out));
    return out;
  }

  Status Skip(int64_t n) override {
    int64_t done = 0;
    while (done < n) {
      int64_t skipped = reader_->Skip(n - done);
      if (skipped <= 0) return Status::Corruption("column chunk ends before its row group");
      done += skipped;
    }
    return Status::OK();
  }

 private:
  bool Present(int64_t i) const {
    return max_def_ == 0 || defs_[static_cast<size_t>(i)] == max_def_;
  }

  // The next levels (at most `want`, at least one) and their present values in values_.
  Result<int64_t> Next(int64_t want, int64_t* values) {
    int64_t step = std::min(want, kStep);
    if (capacity_ < step) {
      values_ = std::make_unique<Decoded[]>(static_cast<size_t>(step));  // not vector<bool>
      defs_.resize(static_cast<size_t>(step));
      capacity_ = step;
    }
    int64_t levels = reader_->ReadBatch(step, max_def_ > 0 ? defs_.data() : nullptr, nullptr,
                                        values_.get(), values);
    if (levels <= 0) return Status::Corruption("column chunk ends before its row group");
    return levels;
  }

  Status Append(Builder* builder, const Decoded& value) const {
    if constexpr (std::is_same_v<Decoded, parquet::ByteArray>) {
      builder->UnsafeAppend(value.ptr, static_cast<int32_t>(value.len));
    } else if constexpr (std::is_same_v<Decoded, parquet::FixedLenByteArray>) {
      // A DECIMAL's unscaled value, big-endian two's complement.
      FJORD_ARROW_ASSIGN_OR_RAISE(arrow::Decimal128 d,
                                  arrow::Decimal128::FromBigEndian(value.ptr, width_));
      builder->UnsafeAppend(d);
    } else {
      builder->UnsafeAppend(static_cast<Value>(value));
    }
    return Status::OK();
  }

  std::shared_ptr<parquet::ColumnReader> holder_;
  parquet::TypedColumnReader<PType>* reader_;
  int16_t max_def_;
  int32_t width_;  // FIXED_LEN_BYTE_ARRAY's bytes
  std::shared_ptr<arrow::DataType> type_;
  arrow::MemoryPool* pool_;
  std::unique_ptr<Decoded[]> values_;
  int64_t capacity_ = 0;
  std::vector<int16_t> defs_;
};

template <typename PType, typename Builder, typename Value>
std::unique_ptr<SelectiveColumn> Make(std::shared_ptr<parquet::ColumnReader> reader,
                                      int16_t max_def, std::shared_ptr<arrow::DataType> type,
                                      arrow::MemoryPool* pool, int32_t width = 0) {
  return std::make_unique<TypedSelectiveColumn<PType, Builder, Value>>(
      std::move(reader), max_def, width, std::move(type), pool);
}

// Whether a TIMESTAMP column of `precision` is stored in the unit of its canonical Arrow type
// (INT64 with a TIMESTAMP logical type; not INT96 nor another unit, which Arrow converts).
bool TimestampInCanonicalUnit(const parquet::ColumnDescriptor& column, int32_t precision) {
  if (column.physical_type() != parquet::Type::INT64) return false;
  const auto& logical = column.logical_type();
  if (!logical || !logical->is_timestamp()) return false;
  auto unit = static_cast<const parquet::TimestampLogicalType&>(*logical).time_unit();
  if (precision <= 3) return unit == parquet::LogicalType::TimeUnit::MILLIS;
  if (precision <= 6) return unit == parquet::LogicalType::TimeUnit::MICROS;
  return unit == parquet::LogicalType::TimeUnit::NANOS;
}

// Whether a DECIMAL column is stored as an unscaled integer of its own precision and scale.
bool DecimalAsWritten(const parquet::ColumnDescriptor& column, const DataType& type) {
  const auto& logical = column.logical_type();
  if (!logical || !logical->is_decimal()) return false;
  const auto& decimal = static_cast<const parquet::DecimalLogicalType&>(*logical);
  if (decimal.precision() != type.precision() || decimal.scale() != type.scale()) return false;
  switch (column.physical_type()) {
    case parquet::Type::INT32:
    case parquet::Type::INT64:
      return true;
    case parquet::Type::FIXED_LEN_BYTE_ARRAY:
      return column.type_length() >= 1 && column.type_length() <= 16;
    default:
      return false;
  }
}

}  // namespace

bool SelectiveDecodable(const parquet::ColumnDescriptor& column, const DataType& type) {
  if (column.max_repetition_level() != 0 || column.max_definition_level() > 1) return false;
  if (column.path()->ToDotVector().size() != 1) return false;  // inside a group
  using parquet::Type;
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return column.physical_type() == Type::BOOLEAN;
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kTime:
      return column.physical_type() == Type::INT32;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return TimestampInCanonicalUnit(column, type.precision());
    case TypeRoot::kDecimal:
      return DecimalAsWritten(column, type);
    case TypeRoot::kBigInt:
      return column.physical_type() == Type::INT64;
    case TypeRoot::kFloat:
      return column.physical_type() == Type::FLOAT;
    case TypeRoot::kDouble:
      return column.physical_type() == Type::DOUBLE;
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      return column.physical_type() == Type::BYTE_ARRAY;
    default:
      return false;
  }
}

Result<std::unique_ptr<SelectiveColumn>> MakeSelectiveColumn(
    std::shared_ptr<parquet::ColumnReader> reader, const parquet::ColumnDescriptor& column,
    const DataType& type, arrow::MemoryPool* pool) {
  if (!SelectiveDecodable(column, type)) {
    return Status::Invalid("column '", column.name(), "' (", type.ToString(),
                           ") is not decoded selectively");
  }
  int16_t d = column.max_definition_level();
  auto r = std::move(reader);
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return Make<parquet::BooleanType, arrow::BooleanBuilder, bool>(r, d, arrow::boolean(), pool);
    case TypeRoot::kTinyInt:
      return Make<parquet::Int32Type, arrow::Int8Builder, int8_t>(r, d, arrow::int8(), pool);
    case TypeRoot::kSmallInt:
      return Make<parquet::Int32Type, arrow::Int16Builder, int16_t>(r, d, arrow::int16(), pool);
    case TypeRoot::kInt:
      return Make<parquet::Int32Type, arrow::Int32Builder, int32_t>(r, d, arrow::int32(), pool);
    case TypeRoot::kDate:
      return Make<parquet::Int32Type, arrow::Date32Builder, int32_t>(r, d, arrow::date32(), pool);
    case TypeRoot::kTime:
      return Make<parquet::Int32Type, arrow::Time32Builder, int32_t>(
          r, d, arrow::time32(arrow::TimeUnit::MILLI), pool);
    case TypeRoot::kBigInt:
      return Make<parquet::Int64Type, arrow::Int64Builder, int64_t>(r, d, arrow::int64(), pool);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FJORD_ASSIGN_OR_RAISE(auto arrow_type, ToArrowType(type));
      return Make<parquet::Int64Type, arrow::TimestampBuilder, int64_t>(r, d, arrow_type, pool);
    }
    case TypeRoot::kDecimal: {
      auto arrow_type = arrow::decimal128(type.precision(), type.scale());
      switch (column.physical_type()) {
        case parquet::Type::INT32:
          return Make<parquet::Int32Type, arrow::Decimal128Builder, arrow::Decimal128>(
              r, d, arrow_type, pool);
        case parquet::Type::INT64:
          return Make<parquet::Int64Type, arrow::Decimal128Builder, arrow::Decimal128>(
              r, d, arrow_type, pool);
        default:
          return Make<parquet::FLBAType, arrow::Decimal128Builder, void>(r, d, arrow_type, pool,
                                                                         column.type_length());
      }
    }
    case TypeRoot::kFloat:
      return Make<parquet::FloatType, arrow::FloatBuilder, float>(r, d, arrow::float32(), pool);
    case TypeRoot::kDouble:
      return Make<parquet::DoubleType, arrow::DoubleBuilder, double>(r, d, arrow::float64(), pool);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
      return Make<parquet::ByteArrayType, arrow::StringBuilder, void>(r, d, arrow::utf8(), pool);
    default:
      return Make<parquet::ByteArrayType, arrow::BinaryBuilder, void>(r, d, arrow::binary(), pool);
  }
}

}  // namespace fjord
