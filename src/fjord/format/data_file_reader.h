// Reading Paimon data files (Parquet, ORC, Avro) in batches, in the canonical Arrow form
// (arrow_types.h). A reader reads only the columns it is asked for and, where the format keeps
// statistics per chunk of rows (Parquet row groups, ORC stripes), skips the chunks a filter rules
// out; it never holds more than one chunk's pages and one batch of decoded rows (ORC files of
// Fjord's own reader: one stripe; Avro: the file's bytes and one batch).
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/common/value_stats.h"
#include "fjord/data_type.h"
#include "fjord/file_io.h"

namespace fjord {

enum class FileFormat : unsigned char { kParquet, kOrc, kAvro };

std::string_view FileFormatName(FileFormat format);
// "parquet", "orc", "avro" (case-insensitive).
Result<FileFormat> ParseFileFormat(std::string_view name);
// The format of a data file from its extension (spec/format.md §1.4): the last dot segment, or the
// one before it when the last is a compression extension.
Result<FileFormat> FileFormatOfPath(std::string_view path);

// Decides from the statistics of one chunk of rows (a row group, a stripe) whether any row of it
// may be wanted: `stats[i]` summarises the i-th requested field (nullopt: no statistics), `rows` is
// the chunk's row count. Must be conservative: false only when no row can match.
using ChunkFilter =
    std::function<bool(const std::vector<std::optional<ColumnStats>>& stats, int64_t rows)>;

// Rows to keep, decided from some of the requested columns before the others are decoded (late
// materialization). `keep(batch, first_row)` gets the `columns` (indices into the requested
// fields, in that order; named and typed as requested, canonical Arrow form) of the rows
// first_row, first_row + 1, ... of the file and returns one byte per row, 0 = drop. A reader that
// applies it (BatchReader::applies_row_filter) returns only the kept rows; one that cannot (ORC,
// Avro, Parquet files with a nested or other column type among those requested) returns every
// row, and the caller filters as without it.
struct RowFilter {
  std::vector<int> columns;
  std::function<Result<std::vector<uint8_t>>(const arrow::RecordBatch& batch, int64_t first_row)>
      keep;
  explicit operator bool() const { return static_cast<bool>(keep); }
};

// FileReadOptions::whole_row_group_bytes_per_column for the files of a primary-key bucket's
// only sorted run (a compacted bucket), read one after another through the merge reader: there a
// row group decoded whole is fresh memory for every file, and streaming the larger ones halved
// the page faults and cut the peak RSS by a third. Not for append and deletion-vector reads,
// where streaming a small file's row group instead cost twice the peak RSS
// (docs/performance.md, "Row groups read whole").
inline constexpr int64_t kWholeRowGroupBytesAlone = 1 << 20;

struct FileReadOptions {
  // Rows per batch at most (a batch never spans two chunks of the file).
  int64_t batch_rows = 8192;
  // Chunks to skip (Parquet row groups, ORC stripes; Avro files read every row). Empty: read all.
  ChunkFilter chunk_filter;
  // Parquet row groups whose requested columns decode to at most this many bytes per leaf column
  // on average are read whole and handed out in batches; larger ones are streamed page by page.
  // 0 streams every row group. Memory of an open file is bounded by this (times its columns)
  // either way: a streamed column holds its input buffer, page and decoded dictionary. See
  // kWholeRowGroupBytesAlone for the one read that takes less.
  int64_t whole_row_group_bytes_per_column = 4 << 20;
  // Decodes the columns of each Parquet batch at once on Arrow's CPU thread pool (the pool's
  // threads do the work while the caller waits; ORC and Avro ignore it). For reads with cores to
  // spare: a single split. Never from a task of that pool itself, which would wait on its own pool.
  bool parallel_columns = false;
  // When set: from the first batch read after it turns true, as parallel_columns (a parallel
  // read whose other threads have no part left to read lends them to the parts still being read).
  // The same rules: never from a task of Arrow's CPU pool.
  std::shared_ptr<const std::atomic<bool>> spare_threads;
  // Empty: every row.
  RowFilter row_filter;
  // Where the batches' buffers and the reader's own come from (null: Arrow's default pool).
  // Batches may outlive the reader: the pool must outlive them (a RecyclingPool does).
  arrow::MemoryPool* pool = nullptr;
};

// The rows of one data file, batch after batch.
class BatchReader {
 public:
  virtual ~BatchReader() = default;
  // The next batch, or nullptr at the end. Its columns are the requested fields in order, each in
  // the canonical Arrow type of its field (a MAP with NULL keys in the list form), named as asked.
  // Batches are never empty. Errors name the file.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
  // The position in the file (0-based row number) of the first row of the last batch returned.
  virtual int64_t position() const = 0;
  // Rows of the file skipped by the chunk filter so far.
  virtual int64_t rows_skipped() const = 0;
  // Parquet row groups read whole so far (FileReadOptions::whole_row_group_bytes_per_column).
  virtual int64_t row_groups_read_whole() const { return 0; }
  // Whether FileReadOptions::row_filter is applied: batches then hold only the kept rows, and
  // position() is that of the first row considered for the batch, kept or not.
  virtual bool applies_row_filter() const { return false; }
  // Rows the row filter dropped so far.
  virtual int64_t rows_filtered() const { return 0; }
  // Whether the rows not yet returned are all decoded already (a Parquet file's last row group,
  // read whole): reading them to the end costs no decoding. False when not known.
  virtual bool decoded_to_end() const { return false; }
};

// Opens the data file at `path` for the columns `fields` (named as in the file's own schema).
// A field the file lacks is a Corruption error naming the file and the column; an unreadable file
// is Corruption, a missing one NotFound. `io` is used only during the call.
Result<std::unique_ptr<BatchReader>> OpenDataFile(FileIO* io, const std::string& path,
                                                  FileFormat format,
                                                  const std::vector<DataField>& fields,
                                                  const FileReadOptions& options = {});

// For each of `fields` (named as in the file), whether the file's batches hold it with its MAPs
// in the list form (arrow_types.h): ORC files that Fjord's own reader reads because a MAP key may
// be NULL. False for every field of Parquet and Avro files.
Result<std::vector<bool>> ListFormMapFields(FileIO* io, const std::string& path, FileFormat format,
                                            const std::vector<DataField>& fields);

// Every row of the file at once (OpenDataFile's batches, concatenated): for small files and
// tests. The table's columns follow `fields` in order.
Result<std::shared_ptr<arrow::Table>> ReadDataFile(FileIO* io, const std::string& path,
                                                   FileFormat format,
                                                   const std::vector<DataField>& fields);

}  // namespace fjord
