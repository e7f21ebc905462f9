#include "fjord/format/parquet_footer_stats.h"

#include <parquet/schema.h>
#include <parquet/statistics.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace fjord {

bool StatsFromParquetFooter(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
    case TypeRoot::kSmallInt:
    case TypeRoot::kInt:
    case TypeRoot::kDate:
    case TypeRoot::kBigInt:
    case TypeRoot::kVarChar:
    case TypeRoot::kVarBinary:
      return true;
    default:
      return false;
  }
}

namespace {

// The bounds of one column over row groups, in the Parquet statistics' own value type (int32_t,
// int64_t, or std::string_view into the footer's statistics).
template <typename T>
struct Bounds {
  bool any = false;
  T min{};
  T max{};
  void Add(T lo, T hi) {
    if (!any || lo < min) min = lo;
    if (!any || hi > max) max = hi;
    any = true;
  }
};

// The value of `type` a statistic of the column holds.
Value ToValue(int64_t v, const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      return Value(static_cast<int8_t>(v));
    case TypeRoot::kSmallInt:
      return Value(static_cast<int16_t>(v));
    case TypeRoot::kBigInt:
      return Value(v);
    default:  // INT, DATE
      return Value(static_cast<int32_t>(v));
  }
}

}  // namespace

Result<DataColumnStats> ParquetFooterStats(const parquet::FileMetaData& meta, int column,
                                           const DataType& type) {
  const parquet::SchemaDescriptor* schema = meta.schema();
  if (column < 0 || column >= schema->group_node()->field_count()) {
    return Status::Internal("Parquet footer has no column ", column);
  }
  const parquet::schema::Node* node = schema->group_node()->field(column).get();
  if (!node->is_primitive()) return Status::Internal("Parquet column ", column, " is nested");
  const int leaf = schema->ColumnIndex(*node);
  const parquet::Type::type physical = schema->Column(leaf)->physical_type();
  DataColumnStats out;
  int64_t nulls = 0;
  Bounds<int64_t> ints;
  Bounds<std::string_view> bytes;
  // Statistics objects own the bytes the string views point into until the end.
  std::vector<std::shared_ptr<parquet::Statistics>> kept;
  for (int g = 0; g < meta.num_row_groups(); ++g) {
    std::unique_ptr<parquet::ColumnChunkMetaData> chunk = meta.RowGroup(g)->ColumnChunk(leaf);
    std::shared_ptr<parquet::Statistics> stats = chunk->statistics();
    if (!stats || !stats->HasNullCount()) {
      return Status::Internal("Parquet column '", node->name(), "' has no statistics");
    }
    nulls += stats->null_count();
    if (!stats->HasMinMax()) {
      if (stats->num_values() > 0) {  // values whose bounds the writer left out
        return Status::Internal("Parquet column '", node->name(), "' has no bounds");
      }
      continue;
    }
    switch (physical) {
      case parquet::Type::INT32: {
        const auto& s = static_cast<const parquet::Int32Statistics&>(*stats);
        ints.Add(s.min(), s.max());
        break;
      }
      case parquet::Type::INT64: {
        const auto& s = static_cast<const parquet::Int64Statistics&>(*stats);
        ints.Add(s.min(), s.max());
        break;
      }
      case parquet::Type::BYTE_ARRAY: {
        const auto& s = static_cast<const parquet::ByteArrayStatistics&>(*stats);
        auto view = [](const parquet::ByteArray& b) {
          return std::string_view(reinterpret_cast<const char*>(b.ptr), b.len);
        };
        bytes.Add(view(s.min()), view(s.max()));  // string_view orders bytes unsigned
        kept.push_back(std::move(stats));
        break;
      }
      default:
        return Status::Internal("Parquet column '", node->name(), "' of physical type ",
                                parquet::TypeToString(physical), " for ", type.ToString());
    }
  }
  out.null_count = nulls;
  if (ints.any) {
    out.min = ToValue(ints.min, type);
    out.max = ToValue(ints.max, type);
  } else if (bytes.any) {
    out.min = Value(std::string(bytes.min));
    out.max = Value(std::string(bytes.max));
  }
  return out;
}

}  // namespace fjord
