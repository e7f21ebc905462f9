// Column statistics of data files, as Java Paimon computes them (spec/format.md §4.4-4.6,
// spec/behaviour.md §1.7; Java: StatsCollectorFactories, *SimpleColStatsCollector,
// ParquetSimpleStatsExtractor, SimpleStatsConverter).
//
// Two ways stats are made, as in Java:
//   * columnar files (Parquet, ORC): the exact per-column min/max/null count a footer holds
//     (FooterStats) is converted by the column's mode (ConvertStats);
//   * Avro files: every value goes through a ColumnStatsCollector, row by row.
// The modes are chosen per column by StatsModesFor. BuildSimpleStats then applies the dense-store
// rule of §4.6 and EncodeSimpleStats makes the stored BinaryRows.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/options.h"
#include "fjord/value.h"

namespace fjord {

// A stats mode: "none", "counts", "full" or "truncate(n)" (n > 0), case-insensitive as in Java.
struct StatsMode {
  enum class Kind : unsigned char { kNone, kCounts, kTruncate, kFull };
  Kind kind = Kind::kTruncate;
  int32_t length = 16;  // kTruncate only

  static StatsMode None() { return {Kind::kNone, 0}; }
  static StatsMode Counts() { return {Kind::kCounts, 0}; }
  static StatsMode Full() { return {Kind::kFull, 0}; }
  static StatsMode Truncate(int32_t n) { return {Kind::kTruncate, n}; }
  // Invalid for anything else (naming the text).
  static Result<StatsMode> Parse(std::string_view text);
  std::string ToString() const;
  bool operator==(const StatsMode& o) const = default;
};

// One column's stats. A null min/max is "unknown"; a null null_count likewise.
struct DataColumnStats {
  Value min;
  Value max;
  std::optional<int64_t> null_count;

  bool operator==(const DataColumnStats& o) const = default;
};

// The mode of each of `field_names` (the file's physical columns, in order) under `options`
// (metadata.stats-mode, fields.<name>.stats-mode, metadata.stats-keep-first-n-columns), as
// Java's StatsCollectorFactories.createStatsFactories: for Parquet/ORC, columns named _KEY_*,
// _SEQUENCE_NUMBER, _VALUE_KIND (and other system fields) without a per-field mode get
// truncate(128) and are not counted against keep-first-n; for Avro
// (createStatsFactoriesForAvro) the table mode applies to them too. `mode_key` lets
// callers use another option for the table mode (e.g. changelog-file.stats-mode).
Result<std::vector<StatsMode>> StatsModesFor(const std::vector<std::string>& field_names,
                                             const Options& options, FileFormat format,
                                             std::string_view mode_key = "metadata.stats-mode");

// Java's SpecialFields.isSystemField: _KEY_ prefix, _SEQUENCE_NUMBER, _VALUE_KIND, _ROW_ID, ...
bool IsSystemFieldName(std::string_view name);

// Java's SimpleColStatsCollector.convert: what a mode keeps of exact (footer) stats. none drops
// everything; counts keeps the null count; full keeps all; truncate(n) truncates string and
// binary bounds (min = first n code points / bytes; max = first n with the last incrementable
// code point / byte incremented, or min = max = unknown when none can be).
DataColumnStats ConvertStats(const DataColumnStats& source, const StatsMode& mode,
                             const DataType& type);

// Java's row-by-row collectors (used for Avro files). Collect() each value of the column (nulls
// included), then Finish(). Nested values (ARRAY, MAP, MULTISET, ROW) and VARIANT/BLOB only
// count nulls, as they are not Comparable in Java.
class ColumnStatsCollector {
 public:
  ColumnStatsCollector(StatsMode mode, DataTypePtr type);
  void Collect(const Value& v);
  DataColumnStats Finish() const;

 private:
  StatsMode mode_;
  DataTypePtr type_;
  Value min_, max_;
  int64_t null_count_ = 0;
  bool failed_ = false;
};

// Whether Java ever keeps a min/max for the type (not for ARRAY, MAP, MULTISET, ROW, VARIANT,
// BLOB, VECTOR).
bool HasMinMax(const DataType& type);

// The exact stats a columnar footer gives for a column, as Java's extractors read them back
// (ParquetSimpleStatsExtractor), fed one Arrow array (canonical type of `type`) at a time:
//   * nested columns: everything unknown (Java finds no footer stats under the column's name);
//   * TIMESTAMP/LTZ with precision > 6 in Parquet (INT96, no footer min/max): min/max unknown;
//   * FLOAT/DOUBLE with a NaN: min/max unknown (parquet-mr drops such bounds);
//   * no non-null value: min/max unknown, null count kept.
class FooterStatsAccumulator {
 public:
  FooterStatsAccumulator(DataTypePtr type, FileFormat format);
  Status Update(const arrow::Array& array);
  DataColumnStats Finish() const;

 private:
  DataTypePtr type_;
  bool nested_;
  bool bounds_unknown_;
  Value min_, max_;
  int64_t null_count_ = 0;
};

Result<DataColumnStats> FooterStats(const arrow::ChunkedArray& column, const DataType& type,
                                    FileFormat format);

// SimpleStats ready to store: the covered columns' min and max rows, null counts, and the
// _VALUE_STATS_COLS value (nullopt = null).
struct SimpleStatsRows {
  std::vector<DataTypePtr> types;  // covered columns' types, made nullable
  std::vector<Value> min_values;
  std::vector<Value> max_values;
  std::vector<std::optional<int64_t>> null_counts;
  std::optional<std::vector<std::string>> stats_cols;
};

// The SimpleStats of `fields` (stats[i] and modes[i] belong to fields[i]). With `dense_store`
// (metadata.stats-dense-store, default true), columns whose mode is none are dropped and, if any
// was, stats_cols lists the kept names (an empty list when none is kept); otherwise every column
// is covered and stats_cols is null. Key stats use dense_store = false.
Result<SimpleStatsRows> BuildSimpleStats(const std::vector<DataField>& fields,
                                         const std::vector<DataColumnStats>& stats,
                                         const std::vector<StatsMode>& modes, bool dense_store);

// The stored forms (spec §4.5): min and max as EncodeStoredBinaryRow, and the null counts.
struct EncodedSimpleStats {
  std::string min_values;
  std::string max_values;
  std::vector<std::optional<int64_t>> null_counts;
};
Result<EncodedSimpleStats> EncodeSimpleStats(const SimpleStatsRows& rows);

// Java's truncation of one string (UTF-8) to `n` code points for a lower / upper bound. The upper
// bound is nullopt when no code point can be incremented. Exposed for tests.
std::string TruncateStringMin(std::string_view s, int32_t n);
std::optional<std::string> TruncateStringMax(std::string_view s, int32_t n);

}  // namespace fjord
