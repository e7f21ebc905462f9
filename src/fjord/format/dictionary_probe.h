// Which columns of a Parquet file a dictionary cannot compress, judged from its first rows before
// any is encoded: those whose values a sample finds all distinct (unique ids, random strings,
// timestamps in micros). Arrow's writer would build each such column's dictionary for every row
// group until it outgrows its page limit (1 MB: some 75,000 ten-byte strings) and then fall back
// to plain pages, paying a hash-table insert per value of that prefix and a dictionary page that
// repeats every value; written plain from the start, the same values cost neither. parquet-mr, the
// writer of Java Paimon, drops a dictionary that does not compress its first page for the same
// reason (docs/performance.md, "Dictionaries that cannot pay").
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace fjord {

struct DictionaryProbeOptions {
  // Rows drawn (at distinct positions chosen by a fixed pseudo-random sequence: the same rows give
  // the same answer).
  int64_t sample_rows = 4096;
  // Fewer rows than this are not probed: their dictionaries cost little.
  int64_t min_rows = 16384;
};

// The names of the top-level columns of `batches` (one schema) whose sampled non-null values are
// all distinct. Only flat columns of strings, binary or values of 4 bytes and more are judged; a
// column with nulls in more than half of the sample is not named. With D distinct values among N
// rows, a sample of S distinct rows repeats a value S²/2·(1/D − 1/N) times on average: for every
// column whose dictionary would stay within its page limit (D ≤ 262,144 four-byte values) and
// whose values repeat (N ≥ 2D) that is 16 or more, so the chance of naming it is below e^-16.
std::vector<std::string> DistinctValueColumns(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const DictionaryProbeOptions& options = {});

}  // namespace fjord
