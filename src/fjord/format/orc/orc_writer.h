// Fjord's own writer of ORC data files (ORC Specification v1), laid out as Java Paimon's ORC
// writer (ORC Java 1.9) lays them out, so that Java reads them as it reads its own:
//
//   "ORC" | stripe | stripe | ... | Metadata | Footer | PostScript | psLen (1 byte)
//
// * Types: one node per column in pre-order (root STRUCT 0), Paimon types mapped as Java's
//   OrcTypeUtil maps them (BOOLEAN, TINYINT BYTE, SMALLINT SHORT, INT INT, BIGINT LONG, FLOAT,
//   DOUBLE, DECIMAL(p, s), CHAR(n) CHAR(n), VARCHAR(n) VARCHAR(n) but STRING STRING, BINARY /
//   VARBINARY BINARY, DATE, TIME INT (milliseconds of the day), TIMESTAMP TIMESTAMP,
//   TIMESTAMP_LTZ TIMESTAMP_INSTANT, ARRAY LIST, MAP and MULTISET (element -> INT) MAP, ROW
//   STRUCT), every node but the root with a `paimon.id` attribute: a field's id, and for the
//   nodes inside an ARRAY / MAP / MULTISET Java's SpecialFields ids (element and value
//   536870911 + 1024 * id + depth, key 536870911 - 1024 * id - depth, `id` the field's).
// * Stripes: the streams of column_writer.h, no row index (rowIndexStride 0; Java's reader then
//   skips nothing by statistics), a stripe footer with the column encodings and the writer
//   time zone "UTC" (TIMESTAMP values are UTC wall clocks, as Java writes them under UTC). A
//   stripe ends when what the columns buffer (compressed, plus at most one block per stream not
//   yet compressed) reaches the stripe size (orc.stripe.size, 64 MiB), checked every 5000 rows.
// * Compression: the file's codec in chunks of the compression block size, which is, as in
//   Java, the configured size (orc.compress.size, 256 KiB) lowered for wide schemas to the power
//   of two nearest above stripe size / (20 * columns), at least 4 KiB.
// * Tail: per-stripe statistics (Metadata) and file statistics (Footer) of every column
//   (column_writer.h), calendar JULIAN_GREGORIAN, file version 0.12 and writer version 9
//   (ORC-14) under writer id 0 (ORC Java), whose conventions the file follows (timestamps in
//   particular), and software version "Fjord <version>".
//
// A file without rows has no stripe. Not thread-safe.
#pragma once

#include <arrow/io/type_fwd.h>
#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/orc/orc_types.h"
#include "fjord/result.h"

namespace fjord::orc {

struct OrcWriterOptions {
  OrcCompression compression = OrcCompression::kZstd;
  // The zstd level (ZSTD) or zlib level (ZLIB) of every stream; ignored otherwise. For ZLIB, -1
  // means Java's levels: 2 for DATA streams, 1 (and Z_FILTERED) for the others
  // (orc.compression.strategy SPEED).
  int compression_level = 1;
  uint64_t compression_block_size = uint64_t{256} << 10;
  uint64_t stripe_size = uint64_t{64} << 20;
  // Rows written between two checks of the stripe size (Java: orc.rows.between.memory.checks).
  int64_t rows_between_checks = 5000;
};

class ColumnWriter;
class Compressor;
struct OrcTypeNode;

class OrcWriter {
 public:
  // Starts a file on `out` (whose position must be 0) for the top-level columns `fields`.
  // NotImplemented for types or codecs it cannot write.
  static Result<std::unique_ptr<OrcWriter>> Open(std::shared_ptr<arrow::io::OutputStream> out,
                                                 const std::vector<DataField>& fields,
                                                 OrcWriterOptions options = {});
  ~OrcWriter();
  OrcWriter(const OrcWriter&) = delete;
  OrcWriter& operator=(const OrcWriter&) = delete;

  // `batch` has one column per field, in order, each in the field's canonical Arrow type
  // (arrow_types.h; MAP columns as MapArray). Invalid otherwise.
  Status Write(const arrow::RecordBatch& batch);

  // Bytes written plus the bytes buffered for the current stripe.
  int64_t EstimatedSize() const;
  int64_t rows() const { return rows_; }
  size_t stripes() const { return stripes_.size(); }

  // Writes the last stripe and the tail; returns the file's size. The stream is not closed.
  Result<int64_t> Finish();

 private:
  OrcWriter();
  Status Emit(std::string_view bytes);
  Status FlushStripe();

  std::shared_ptr<arrow::io::OutputStream> out_;
  OrcWriterOptions options_;
  std::vector<std::shared_ptr<arrow::DataType>> arrow_types_;
  std::vector<std::string> names_;
  std::unique_ptr<Compressor> compressor_;
  std::unique_ptr<Compressor> light_compressor_;
  uint64_t block_size_ = 0;
  std::vector<OrcTypeNode> types_;
  std::vector<ColumnWriter*> writers_;  // by column id; owned by root_
  std::unique_ptr<ColumnWriter> root_;
  std::vector<OrcStripeInfo> stripes_;
  std::vector<std::string> stripe_stats_;  // StripeStatistics messages
  int64_t written_ = 0;
  int64_t rows_ = 0;
  int64_t stripe_rows_ = 0;
  int64_t rows_since_check_ = 0;
  bool finished_ = false;
};

// The compression kind of `file.compression` for ORC: zstd (zstandard), lz4, snappy, zlib (gzip,
// deflate), none (uncompressed, empty). NotImplemented for others.
Result<OrcCompression> OrcCompressionFor(std::string_view name);

}  // namespace fjord::orc
