#include "fjord/format/column_stats.h"

#include <arrow/api.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <utility>

#include "fjord/common/strings.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"

namespace fjord {

namespace {

bool IsStringType(const DataType& t) {
  return t.root() == TypeRoot::kChar || t.root() == TypeRoot::kVarChar;
}
bool IsBinaryType(const DataType& t) {
  return t.root() == TypeRoot::kBinary || t.root() == TypeRoot::kVarBinary;
}

// Java's Float.compare / Double.compare: a total order with -0.0 < 0.0 and NaN above all.
template <typename T>
int JavaFloatCompare(T a, T b) {
  if (a < b) return -1;
  if (a > b) return 1;
  bool an = std::isnan(a), bn = std::isnan(b);
  if (an || bn) return an == bn ? 0 : (an ? 1 : -1);
  bool as = std::signbit(a), bs = std::signbit(b);
  return as == bs ? 0 : (as ? -1 : 1);
}

// The order Java's collectors use (Comparable.compareTo / SortUtil.compareBinary).
int JavaCompare(const Value& a, const Value& b, const DataType& type) {
  if (type.root() == TypeRoot::kFloat) return JavaFloatCompare(a.get<float>(), b.get<float>());
  if (type.root() == TypeRoot::kDouble) return JavaFloatCompare(a.get<double>(), b.get<double>());
  return CompareValues(a, b, type);
}

// Length in bytes of the UTF-8 sequence starting with `lead` (1 for stray bytes, as Java's
// BinaryString counts them).
size_t Utf8Len(unsigned char lead) {
  if (lead < 0x80) return 1;
  if ((lead & 0xE0) == 0xC0) return 2;
  if ((lead & 0xF0) == 0xE0) return 3;
  if ((lead & 0xF8) == 0xF0) return 4;
  return 1;
}

// Byte offset after the first `n` code points of `s`.
size_t PrefixBytes(std::string_view s, int32_t n) {
  size_t pos = 0;
  for (int32_t i = 0; i < n && pos < s.size(); ++i) pos += Utf8Len(s[pos]);
  return std::min(pos, s.size());
}

uint32_t DecodeAt(std::string_view s, size_t pos, size_t len) {
  auto b = [&](size_t i) { return static_cast<unsigned char>(s[pos + i]); };
  if (pos + len > s.size()) return b(0);
  switch (len) {
    case 2:
      return ((b(0) & 0x1Fu) << 6) | (b(1) & 0x3Fu);
    case 3:
      return ((b(0) & 0x0Fu) << 12) | ((b(1) & 0x3Fu) << 6) | (b(2) & 0x3Fu);
    case 4:
      return ((b(0) & 0x07u) << 18) | ((b(1) & 0x3Fu) << 12) | ((b(2) & 0x3Fu) << 6) |
             (b(3) & 0x3Fu);
    default:
      return b(0);
  }
}

std::string TruncateBinaryMin(const std::string& b, int32_t n) {
  return b.size() <= static_cast<size_t>(n) ? b : b.substr(0, static_cast<size_t>(n));
}

std::optional<std::string> TruncateBinaryMax(const std::string& b, int32_t n) {
  if (b.size() <= static_cast<size_t>(n)) return b;
  std::string t = b.substr(0, static_cast<size_t>(n));
  for (int32_t i = n - 1; i >= 0; --i) {
    auto& c = reinterpret_cast<unsigned char&>(t[static_cast<size_t>(i)]);
    if (c != 0xFF) {
      ++c;
      t.resize(static_cast<size_t>(i) + 1);
      return t;
    }
  }
  return std::nullopt;
}

// Java's truncateMin / truncateMax on a Value of `type`; max nullopt = "failed".
Value TruncMin(const Value& v, const DataType& type, int32_t n) {
  if (v.is_null()) return v;
  if (IsStringType(type)) return Value(TruncateStringMin(v.get<std::string>(), n));
  if (IsBinaryType(type)) return Value(TruncateBinaryMin(v.get<std::string>(), n));
  return v;
}

std::optional<Value> TruncMax(const Value& v, const DataType& type, int32_t n) {
  if (v.is_null()) return v;
  if (IsStringType(type)) {
    auto s = TruncateStringMax(v.get<std::string>(), n);
    if (!s) return std::nullopt;
    return Value(std::move(*s));
  }
  if (IsBinaryType(type)) {
    auto s = TruncateBinaryMax(v.get<std::string>(), n);
    if (!s) return std::nullopt;
    return Value(std::move(*s));
  }
  return v;
}

}  // namespace

std::string TruncateStringMin(std::string_view s, int32_t n) {
  return std::string(s.substr(0, PrefixBytes(s, n)));
}

std::optional<std::string> TruncateStringMax(std::string_view s, int32_t n) {
  size_t prefix = PrefixBytes(s, n);
  if (prefix == s.size()) return std::string(s);
  // Code point boundaries of the prefix.
  std::vector<size_t> starts;
  for (size_t pos = 0; pos < prefix; pos += Utf8Len(s[pos])) starts.push_back(pos);
  for (size_t i = starts.size(); i-- > 0;) {
    size_t pos = starts[i];
    size_t len = std::min(Utf8Len(s[pos]), prefix - pos);
    uint32_t next = DecodeAt(s, pos, len) + 1;
    // Java would append a lone surrogate here (encoded as '?', no longer an upper bound); the
    // next scalar value after U+D7FF is U+E000.
    if (next >= 0xD800 && next <= 0xDFFF) next = 0xE000;
    if (next <= 0x10FFFF) {
      std::string out(s.substr(0, pos));
      AppendUtf8(next, &out);
      return out;
    }
  }
  return std::nullopt;
}

Result<StatsMode> StatsMode::Parse(std::string_view text) {
  std::string u = Upper(text);
  if (u == "NONE") return None();
  if (u == "COUNTS") return Counts();
  if (u == "FULL") return Full();
  if (u.size() > 10 && u.starts_with("TRUNCATE(") && u.back() == ')') {
    std::string digits = u.substr(9, u.size() - 10);
    bool ok = !digits.empty() && digits.size() <= 9 &&
              std::all_of(digits.begin(), digits.end(),
                          [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
    if (ok) {
      int32_t n = std::stoi(digits);
      if (n > 0) return Truncate(n);
      return Status::Invalid("stats mode '", text, "': truncate length should be larger than zero");
    }
  }
  return Status::Invalid("unexpected stats mode '", text,
                         "' (expected none, counts, full or truncate(n))");
}

std::string StatsMode::ToString() const {
  switch (kind) {
    case Kind::kNone:
      return "none";
    case Kind::kCounts:
      return "counts";
    case Kind::kFull:
      return "full";
    case Kind::kTruncate:
      return "truncate(" + std::to_string(length) + ")";
  }
  return "?";
}

bool IsSystemFieldName(std::string_view name) {
  return name.starts_with("_KEY_") || name == "_SEQUENCE_NUMBER" || name == "_VALUE_KIND" ||
         name == "_LEVEL" || name == "rowkind" || name == "_ROW_ID";
}

Result<std::vector<StatsMode>> StatsModesFor(const std::vector<std::string>& field_names,
                                             const Options& options, FileFormat format,
                                             std::string_view mode_key) {
  std::optional<std::string> table_text = options.Get(mode_key);  // else the registry's default
  if (!table_text) return Status::Invalid("option '", mode_key, "' has no value");
  Result<StatsMode> table_mode = StatsMode::Parse(*table_text);
  if (!table_mode.ok()) return table_mode.status().WithContext("option '", mode_key, "'");
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> keep,
                        options.GetInt("metadata.stats-keep-first-n-columns"));
  int64_t prefix_columns = keep.value_or(-1);
  std::vector<StatsMode> modes;
  int64_t column_count = 0;
  for (const std::string& name : field_names) {
    std::string key = "fields." + name + ".stats-mode";
    std::optional<std::string> field_mode = options.Get(key);
    if (field_mode) {
      Result<StatsMode> m = StatsMode::Parse(*field_mode);
      if (!m.ok()) return m.status().WithContext("option '", key, "'");
      modes.push_back(*m);
      ++column_count;
    } else if (format != FileFormat::kAvro && IsSystemFieldName(name)) {
      modes.push_back(StatsMode::Truncate(128));
    } else {
      if (prefix_columns >= 0 && column_count >= prefix_columns) {
        modes.push_back(StatsMode::None());
      } else {
        modes.push_back(*table_mode);
      }
      ++column_count;
    }
  }
  return modes;
}

DataColumnStats ConvertStats(const DataColumnStats& source, const StatsMode& mode,
                             const DataType& type) {
  switch (mode.kind) {
    case StatsMode::Kind::kNone:
      return {};
    case StatsMode::Kind::kCounts:
      return {Value(), Value(), source.null_count};
    case StatsMode::Kind::kFull:
      return source;
    case StatsMode::Kind::kTruncate:
      break;
  }
  // Java's TruncateSimpleColStatsCollector.convert: strings and binaries are truncated, other
  // values kept; a max that cannot be made makes both bounds unknown.
  Value min = TruncMin(source.min, type, mode.length);
  std::optional<Value> max = TruncMax(source.max, type, mode.length);
  if (!max || max->is_null()) return {Value(), Value(), source.null_count};
  return {std::move(min), std::move(*max), source.null_count};
}

bool HasMinMax(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kMap:
    case TypeRoot::kMultiset:
    case TypeRoot::kRow:
    case TypeRoot::kVariant:
    case TypeRoot::kBlob:
    case TypeRoot::kVector:
      return false;
    default:
      return true;
  }
}

ColumnStatsCollector::ColumnStatsCollector(StatsMode mode, DataTypePtr type)
    : mode_(mode), type_(std::move(type)) {}

void ColumnStatsCollector::Collect(const Value& v) {
  if (mode_.kind == StatsMode::Kind::kNone) return;
  if (v.is_null()) {
    ++null_count_;
    return;
  }
  if (mode_.kind == StatsMode::Kind::kCounts || !HasMinMax(*type_)) return;
  const DataType& t = *type_;
  if (mode_.kind == StatsMode::Kind::kFull) {
    if (min_.is_null() || JavaCompare(v, min_, t) < 0) min_ = v;
    if (max_.is_null() || JavaCompare(v, max_, t) > 0) max_ = v;
    return;
  }
  if (failed_) return;
  if (min_.is_null() || JavaCompare(v, min_, t) < 0) min_ = TruncMin(v, t, mode_.length);
  if (max_.is_null() || JavaCompare(v, max_, t) > 0) {
    std::optional<Value> m = TruncMax(v, t, mode_.length);
    if (m) {
      max_ = std::move(*m);
    } else {
      failed_ = true;
    }
  }
}

DataColumnStats ColumnStatsCollector::Finish() const {
  switch (mode_.kind) {
    case StatsMode::Kind::kNone:
      return {};
    case StatsMode::Kind::kCounts:
      return {Value(), Value(), null_count_};
    default:
      break;
  }
  if (failed_) return {Value(), Value(), null_count_};
  return {min_, max_, null_count_};
}

FooterStatsAccumulator::FooterStatsAccumulator(DataTypePtr type, FileFormat format)
    : type_(std::move(type)) {
  nested_ = !HasMinMax(*type_);
  bounds_unknown_ = false;
  bool ts = type_->root() == TypeRoot::kTimestamp || type_->root() == TypeRoot::kTimestampLtz;
  if (ts && type_->precision() > 6 && format == FileFormat::kParquet) bounds_unknown_ = true;
}

namespace {

// Rows of the smallest and largest non-null value of `array` (-1, -1: none), for Arrow arrays whose
// values' natural order is Java's (integers; strings and bytes by unsigned bytes, as
// std::string_view compares them).
template <typename ArrayType>
std::pair<int64_t, int64_t> ExtremeRows(const arrow::Array& array) {
  const auto& a = static_cast<const ArrayType&>(array);
  int64_t lo = -1;
  int64_t hi = -1;
  decltype(a.GetView(0)) min{};
  decltype(a.GetView(0)) max{};
  for (int64_t i = 0; i < a.length(); ++i) {
    if (a.IsNull(i)) continue;
    auto v = a.GetView(i);
    if (lo < 0) {
      lo = hi = i;
      min = max = v;
    } else if (v < min) {  // then not above max, which is at least min
      lo = i;
      min = v;
    } else if (v > max) {
      hi = i;
      max = v;
    }
  }
  return {lo, hi};
}

// ExtremeRows for the types where it applies (the array in the type's canonical Arrow form);
// nullopt for the others.
std::optional<std::pair<int64_t, int64_t>> FastExtremeRows(const arrow::Array& array,
                                                           const DataType& type) {
  const arrow::Type::type id = array.type_id();
  switch (type.root()) {
    case TypeRoot::kTinyInt:
      if (id == arrow::Type::INT8) return ExtremeRows<arrow::Int8Array>(array);
      break;
    case TypeRoot::kSmallInt:
      if (id == arrow::Type::INT16) return ExtremeRows<arrow::Int16Array>(array);
      break;
    case TypeRoot::kInt:
      if (id == arrow::Type::INT32) return ExtremeRows<arrow::Int32Array>(array);
      break;
    case TypeRoot::kDate:
      if (id == arrow::Type::DATE32) return ExtremeRows<arrow::Date32Array>(array);
      break;
    case TypeRoot::kBigInt:
      if (id == arrow::Type::INT64) return ExtremeRows<arrow::Int64Array>(array);
      break;
    case TypeRoot::kVarChar:
      if (id == arrow::Type::STRING) return ExtremeRows<arrow::StringArray>(array);
      break;
    case TypeRoot::kVarBinary:
      if (id == arrow::Type::BINARY) return ExtremeRows<arrow::BinaryArray>(array);
      break;
    default:
      break;
  }
  return std::nullopt;
}

}  // namespace

Status FooterStatsAccumulator::Update(const arrow::Array& array) {
  if (nested_) return Status::OK();
  null_count_ += array.null_count();
  if (bounds_unknown_) return Status::OK();
  const DataType& t = *type_;
  if (std::optional<std::pair<int64_t, int64_t>> rows = FastExtremeRows(array, t)) {
    // Only the two extremes become Values (one per row cost a tenth of a Parquet write).
    if (rows->first < 0) return Status::OK();
    FJORD_ASSIGN_OR_RAISE(Value lo, ValueFromArrow(array, rows->first, t));
    FJORD_ASSIGN_OR_RAISE(Value hi, ValueFromArrow(array, rows->second, t));
    if (min_.is_null() || JavaCompare(lo, min_, t) < 0) min_ = std::move(lo);
    if (max_.is_null() || JavaCompare(hi, max_, t) > 0) max_ = std::move(hi);
    return Status::OK();
  }
  bool is_float = t.root() == TypeRoot::kFloat || t.root() == TypeRoot::kDouble;
  for (int64_t i = 0; i < array.length(); ++i) {
    if (array.IsNull(i)) continue;
    FJORD_ASSIGN_OR_RAISE(Value v, ValueFromArrow(array, i, t));
    if (is_float) {
      double d = t.root() == TypeRoot::kFloat ? v.get<float>() : v.get<double>();
      if (std::isnan(d)) {
        bounds_unknown_ = true;
        min_ = max_ = Value();
        return Status::OK();
      }
    }
    if (min_.is_null() || JavaCompare(v, min_, t) < 0) min_ = v;
    if (max_.is_null() || JavaCompare(v, max_, t) > 0) max_ = v;
  }
  return Status::OK();
}

DataColumnStats FooterStatsAccumulator::Finish() const {
  if (nested_) return {};
  if (bounds_unknown_) return {Value(), Value(), null_count_};
  return {min_, max_, null_count_};
}

Result<DataColumnStats> FooterStats(const arrow::ChunkedArray& column, const DataType& type,
                                    FileFormat format) {
  FooterStatsAccumulator acc(type.WithNullable(true), format);
  for (const auto& chunk : column.chunks()) FJORD_RETURN_NOT_OK(acc.Update(*chunk));
  return acc.Finish();
}

Result<SimpleStatsRows> BuildSimpleStats(const std::vector<DataField>& fields,
                                         const std::vector<DataColumnStats>& stats,
                                         const std::vector<StatsMode>& modes, bool dense_store) {
  if (fields.size() != stats.size() || fields.size() != modes.size()) {
    return Status::Invalid("BuildSimpleStats: ", fields.size(), " fields, ", stats.size(),
                           " stats, ", modes.size(), " modes");
  }
  SimpleStatsRows out;
  bool dropped = false;
  std::vector<std::string> names;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (dense_store && modes[i].kind == StatsMode::Kind::kNone) {
      dropped = true;
      continue;
    }
    out.types.push_back(fields[i].type->WithNullable(true));
    out.min_values.push_back(stats[i].min);
    out.max_values.push_back(stats[i].max);
    out.null_counts.push_back(stats[i].null_count);
    names.push_back(fields[i].name);
  }
  if (dropped) out.stats_cols = std::move(names);
  return out;
}

Result<EncodedSimpleStats> EncodeSimpleStats(const SimpleStatsRows& rows) {
  EncodedSimpleStats out;
  FJORD_ASSIGN_OR_RAISE(out.min_values, EncodeStoredBinaryRow(rows.min_values, rows.types));
  FJORD_ASSIGN_OR_RAISE(out.max_values, EncodeStoredBinaryRow(rows.max_values, rows.types));
  out.null_counts = rows.null_counts;
  return out;
}

}  // namespace fjord
