#include "fjord/format/parquet_selective.h"

#include <arrow/api.h>
#include <parquet/column_reader.h>
#include <parquet/schema.h>

#include <algorithm>

#include "fjord/common/arrow_status.h"

namespace fjord {

namespace {

// Levels (rows) asked of the column reader at once; it returns fewer at a page's end.
constexpr int64_t kStep = 4096;

// The value a builder takes for a decoded value: the same, or an INT32 narrowed to TINYINT and
// SMALLINT (stored as INT32 with their logical type).
template <typename Out, typename In>
Out Narrow(In v) {
  return static_cast<Out>(v);
}

// Reads a column of parquet type `PType` into `Builder`, each decoded value appended as a `Value`
// (Narrow); strings and bytes as the page's bytes.
template <typename PType, typename Builder, typename Value>
class TypedSelectiveColumn : public SelectiveColumn {
 public:
  using Decoded = typename PType::c_type;

  TypedSelectiveColumn(std::shared_ptr<parquet::ColumnReader> reader, int16_t max_def,
                       std::shared_ptr<arrow::DataType> type, arrow::MemoryPool* pool)
      : holder_(std::move(reader)),
        reader_(static_cast<parquet::TypedColumnReader<PType>*>(holder_.get())),
        max_def_(max_def),
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
            Append(builder, values_[static_cast<size_t>(v)]);
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

  static void Append(Builder* builder, const Decoded& value) {
    if constexpr (std::is_same_v<Decoded, parquet::ByteArray>) {
      builder->UnsafeAppend(value.ptr, static_cast<int32_t>(value.len));
    } else {
      builder->UnsafeAppend(Narrow<Value>(value));
    }
  }

  std::shared_ptr<parquet::ColumnReader> holder_;
  parquet::TypedColumnReader<PType>* reader_;
  int16_t max_def_;
  std::shared_ptr<arrow::DataType> type_;
  arrow::MemoryPool* pool_;
  std::unique_ptr<Decoded[]> values_;
  int64_t capacity_ = 0;
  std::vector<int16_t> defs_;
};

template <typename PType, typename Builder, typename Value>
std::unique_ptr<SelectiveColumn> Make(std::shared_ptr<parquet::ColumnReader> reader,
                                      int16_t max_def, std::shared_ptr<arrow::DataType> type,
                                      arrow::MemoryPool* pool) {
  return std::make_unique<TypedSelectiveColumn<PType, Builder, Value>>(std::move(reader), max_def,
                                                                       std::move(type), pool);
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
      return column.physical_type() == Type::INT32;
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
    case TypeRoot::kBigInt:
      return Make<parquet::Int64Type, arrow::Int64Builder, int64_t>(r, d, arrow::int64(), pool);
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
