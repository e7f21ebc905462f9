// Writing Paimon data files (Parquet, ORC, Avro) from Arrow data in the canonical Arrow form
// (arrow_types.h), laid out as Java Paimon 1.x writes them (spec/format.md §7.5-7.7), together
// with the column statistics Java would record for them (column_stats.h).
//
// `fields` is the file's physical schema: for append tables the table columns; for primary-key
// tables _KEY_<k>... (ids 1073741823 + id), _SEQUENCE_NUMBER BIGINT NOT NULL (2147483646),
// _VALUE_KIND TINYINT NOT NULL (2147483645), then the table columns (spec §7.2). Field ids and
// nullability go into the file (Parquet field ids, REQUIRED/OPTIONAL; Avro unions).
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/data_type.h"
#include "fjord/file_io.h"
#include "fjord/format/column_stats.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/options.h"

namespace fjord {

struct DataFileWriterOptions {
  // file.compression: zstd (default), lz4, snappy, gzip/deflate, none/uncompressed.
  std::string compression = "zstd";
  // file.compression.zstd-level.
  int32_t zstd_level = 1;
  // Parquet row group size target in bytes (parquet.block.size; Java 128 MB).
  int64_t parquet_block_size = int64_t{128} << 20;
  // Parquet: when positive and below parquet_block_size, the size of the file's first row group
  // instead (later groups are parquet_block_size). Writers of several buckets at once give their
  // files different first groups, so that the buckets' groups, filled by evenly spread rows, are
  // not all encoded at the same moment (docs/performance.md, "Staggered row groups").
  int64_t parquet_first_block_size = 0;
  // Parquet page size (parquet.page.size; Java 1 MB).
  int64_t parquet_page_size = int64_t{1} << 20;
  // parquet.enable.dictionary.
  bool parquet_dictionary = true;
  // Parquet columns written without a dictionary whatever parquet.enable.dictionary says: those
  // whose values never repeat within a file (a primary-key file's sequence numbers, a key of one
  // field). Their dictionary only fills up and falls back to plain pages, at the cost of a hash
  // table per row group (docs/performance.md, "Sequence numbers without a dictionary").
  std::vector<std::string> parquet_plain_columns;
  // Parquet: hold the rows of the open row group (the batches as given, not copied) and write the
  // group at once, column after column, straight into the file, when it closes (as pyarrow's
  // write_table), instead of encoding each batch into in-memory pages (Arrow's buffered row
  // groups, whose page buffers grow by copying: twice the CPU with 128k-row batches). Memory:
  // up to parquet.block.size of the group's rows instead of their encoded pages: for writers
  // whose batches are the caller's rows anyway (append writes), and for primary-key files, whose
  // staged batches (below) would be copied into one batch of the same size (a copy of every row
  // and a quarter of the upsert write's page faults; docs/performance.md, "Row groups held").
  bool parquet_hold_row_group = false;
  // Parquet, held row groups: when set, a closed row group is encoded by a task handed to it
  // (e.g. Lanes::Spawn) while the writer takes the next group's rows; the writer waits for that
  // task before the next group closes, at Finish, in Settle, and when destroyed. Meanwhile
  // EstimatedSize counts the group being encoded by its rows' bytes.
  BackgroundExecutor parquet_background;
  // Parquet: the pool of the encoders' working memory (dictionary hash tables, pages); null:
  // Arrow's default pool.
  arrow::MemoryPool* parquet_pool = nullptr;
  // Parquet held row groups (parquet_hold_row_group): when set, each held group written while it
  // answers true is encoded with its columns at once on Arrow's CPU thread pool (one buffered row
  // group; the same bytes) instead of column after column on the caller's thread: for a writer
  // whose other threads have nothing left to do, such as a compaction's last bucket. Ignored on
  // a thread of that pool, which would wait on its own pool.
  std::function<bool()> parquet_spare_threads;
  // Parquet buffered row groups (the default): batches are gathered up to this many bytes of
  // rows and encoded as one batch, so that each column's dictionary hash table is probed for many
  // rows in a row while it is in the cache. Writers hand over a thousand rows at a time (the
  // rolling check); encoded as they come, the 20 string columns of the benchmark's upserts took
  // 38% of the write in dictionary probes that missed the cache. 64 MB: as fast as holding a
  // whole 128 MB row group, and less resident memory than encoding small batches (Arrow's page
  // buffers grow by copying). docs/performance.md, "Parquet staging".
  int64_t parquet_stage_bytes = int64_t{64} << 20;
  // ORC stripe size in bytes (orc.stripe.size; Java 64 MB).
  int64_t orc_stripe_size = int64_t{64} << 20;
  // ORC compression block size (orc.compress.size; Java 256 KB, lowered for wide schemas).
  int64_t orc_compress_size = int64_t{256} << 10;
  // Rows between two checks of the ORC stripe size (orc.rows.between.memory.checks; Java 5000).
  int64_t orc_rows_between_checks = 5000;
  // Statistics mode of each physical column, as StatsModesFor gives them. Empty = compute with
  // StatsModesFor(field names, Options{}, format): the defaults.
  std::vector<StatsMode> stats_modes;

  // Reads the options above from table options (stats modes included, for `fields` in `format`).
  static Result<DataFileWriterOptions> FromOptions(const Options& options,
                                                   const std::vector<DataField>& fields,
                                                   FileFormat format);
};

// The first row group size for the `index`-th (from 0) of several files written at once with
// row groups of `block` bytes, for DataFileWriterOptions::parquet_first_block_size: `block` for
// the first file, then fractions of it spread evenly over (0, 1] whatever the number of files
// (the golden-ratio sequence), at least block / 16.
int64_t StaggeredFirstBlockSize(int64_t index, int64_t block);

struct DataFileWriteResult {
  std::string path;
  // The exact number of bytes of the file (DataFileMeta._FILE_SIZE).
  int64_t file_size = 0;
  int64_t row_count = 0;
  // Per physical column (same order as `fields`): the stats after applying the column's mode.
  std::vector<DataColumnStats> stats;
  std::vector<StatsMode> stats_modes;
};

// Writes one data file. Usage: Open, Write any number of batches, Finish. Not thread-safe.
// Destroying a writer that was not finished closes its stream and leaves a partial file at
// `path` (the caller deletes it; Java's writer does the same on abort).
class DataFileWriter {
 public:
  static Result<std::unique_ptr<DataFileWriter>> Open(FileIO* io, const std::string& path,
                                                      FileFormat format,
                                                      std::vector<DataField> fields,
                                                      DataFileWriterOptions options = {});
  virtual ~DataFileWriter();

  // `batch` must have one column per field, in order, in the field's canonical Arrow type (names
  // are not checked). A NOT NULL field with a null value is Invalid.
  Status Write(const arrow::RecordBatch& batch);
  Status Write(const arrow::Table& table);

  // Bytes written so far plus an estimate of what is buffered: for rolling at target-file-size.
  int64_t EstimatedSize() const;
  // Bytes of rows (as arrow::util::ReferencedBufferSize counts them) the next Write can take with
  // EstimatedSize() growing by exactly those bytes and without passing a point where the writer
  // would act on its own size (a Parquet row group closes at the first Write after
  // parquet.block.size bytes). 0 when the growth is not tied to those bytes (ORC and Avro encode
  // as they go): callers then write small batches and check EstimatedSize() after each.
  int64_t PredictableBytes() const;
  // Bytes of rows taken but not in the file yet (a held or staged Parquet row group, one being
  // encoded in the background included): what Finish has left to encode. 0 for ORC and Avro.
  int64_t BufferedBytes() const;
  // Waits until no row group is being encoded in the background (parquet_background); its
  // error, if it failed. EstimatedSize is then exact until the next group closes.
  Status Settle();
  int64_t row_count() const { return row_count_; }

  // Closes the file and returns its exact size and statistics. The writer is unusable afterwards.
  Result<DataFileWriteResult> Finish();

  class Impl;

 private:
  DataFileWriter(std::unique_ptr<Impl> impl, std::string path, FileFormat format,
                 std::vector<DataField> fields, std::vector<StatsMode> modes);

  std::unique_ptr<Impl> impl_;
  std::string path_;
  FileFormat format_;
  std::vector<DataField> fields_;
  std::vector<StatsMode> modes_;
  std::vector<FooterStatsAccumulator> footer_stats_;  // Parquet, ORC
  std::vector<bool> accumulate_;  // footer_stats_[c] is fed (parquet_footer_stats.h)
  std::vector<ColumnStatsCollector> collectors_;  // Avro
  int64_t row_count_ = 0;
  bool finished_ = false;
};

// Open + Write(table) + Finish.
Result<DataFileWriteResult> WriteDataFile(FileIO* io, const std::string& path, FileFormat format,
                                          const std::vector<DataField>& fields,
                                          const arrow::Table& table,
                                          DataFileWriterOptions options = {});

// The Avro schema (JSON, as Java's Schema.toString()) Java's AvroSchemaConverter derives for
// `fields`. NotImplemented for TIMESTAMP/LTZ with precision > 6 and TIME with precision > 3, as
// in Java.
Result<std::string> AvroSchemaJsonFor(const std::vector<DataField>& fields);

}  // namespace fjord
