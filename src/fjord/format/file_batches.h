// Internal to format/: what the Parquet, ORC and Avro batch readers share.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "fjord/format/data_file_reader.h"

namespace fjord {

// `batch`'s columns `fields` (found by name) in order, each in its field's canonical Arrow type.
Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<DataField>& fields,
    const std::string& path);

// A BatchReader over chunks of rows that a subclass produces one by one (a row group's batch, a
// stripe, a run of Avro records), each cut into batches of at most `batch_rows`.
class ChunkBatchReader : public BatchReader {
 public:
  explicit ChunkBatchReader(int64_t batch_rows) : batch_rows_(batch_rows > 0 ? batch_rows : 1) {}

  Result<std::shared_ptr<arrow::RecordBatch>> Next() final;
  int64_t position() const final { return position_; }
  int64_t rows_skipped() const final { return skipped_; }
  bool decoded_to_end() const final { return ChunksDecodedToEnd(); }

 protected:
  // The next chunk in the requested columns, or nullptr at the end; `*first_row` is the position
  // of its first row in the file.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> NextChunk(int64_t* first_row) = 0;
  int64_t batch_rows() const { return batch_rows_; }
  // Whether the chunks not yet returned are all decoded (BatchReader::decoded_to_end).
  virtual bool ChunksDecodedToEnd() const { return false; }
  int64_t skipped_ = 0;

 private:
  int64_t batch_rows_;
  std::shared_ptr<arrow::RecordBatch> chunk_;
  int64_t chunk_first_row_ = 0;
  int64_t offset_ = 0;  // rows of chunk_ handed out
  int64_t position_ = 0;
};

Result<std::unique_ptr<BatchReader>> OpenParquetFile(FileIO* io, const std::string& path,
                                                     const std::vector<DataField>& fields,
                                                     const FileReadOptions& options);
Result<std::unique_ptr<BatchReader>> OpenOrcFile(FileIO* io, const std::string& path,
                                                 const std::vector<DataField>& fields,
                                                 const FileReadOptions& options);
Result<std::unique_ptr<BatchReader>> OpenAvroFile(FileIO* io, const std::string& path,
                                                  const std::vector<DataField>& fields,
                                                  const FileReadOptions& options);

}  // namespace fjord
