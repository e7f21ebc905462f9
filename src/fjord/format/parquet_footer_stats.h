// Column statistics taken back from the footer of a Parquet file Fjord wrote, as Java's
// ParquetSimpleStatsExtractor reads them from its files, instead of computed beside the writer
// (FooterStatsAccumulator), which compared every value a second time: 6% of the instructions of
// an append write (docs/performance.md, "Value statistics from the footer").
#pragma once

#include <parquet/metadata.h>

#include "fjord/data_type.h"
#include "fjord/format/column_stats.h"
#include "fjord/result.h"

namespace fjord {

// Whether the footer's bounds of a column of `type` are exactly what FooterStatsAccumulator
// gives: integers, dates, strings and bytes (signed integers, bytes compared unsigned, as Java
// orders them). The writer must not cut long bounds (WriterProperties::max_statistics_size).
bool StatsFromParquetFooter(const DataType& type);

// The exact stats of top-level column `column` (of a type StatsFromParquetFooter accepts) over
// every row group of `meta`: null count, smallest and largest non-null value (unknown when there
// is none).
Result<DataColumnStats> ParquetFooterStats(const parquet::FileMetaData& meta, int column,
                                           const DataType& type);

}  // namespace fjord
