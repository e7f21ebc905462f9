// The data files of append tables: one file's manifest metadata with Java's statistics, the
// table options a writer needs, and the rolling writer that turns rows of one (partition, bucket)
// into files rolled at target-file-size. Used by the append writer and by compaction rewrites.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/file_io.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/schema.h"

namespace fjord {

// The manifest metadata of an append-table data file just written: Java's statistics (dense store
// per `dense_stats`), empty keys, the sequence range starting at `first_sequence`.
Result<DataFileMeta> AppendFileMeta(const std::string& file_name,
                                    const DataFileWriteResult& written, const TableSchema& schema,
                                    bool dense_stats, int64_t first_sequence);

// The table options an append-table file writer needs.
struct AppendFileSettings {
  FileFormat format = FileFormat::kParquet;
  DataFileWriterOptions writer_options;
  bool dense_stats = true;                        // metadata.stats-dense-store
  std::string prefix = "data-";                   // data-file.prefix
  int64_t target_file_size = int64_t{256} << 20;  // target-file-size (append default)
  // When set, a file rolled at target-file-size is finished (its last row group encoded, its
  // footer written) by a task handed to it while the writer fills the next file.
  BackgroundExecutor background;

  // From the schema and its parsed options.
  static Result<AppendFileSettings> Make(const TableSchema& schema, const CoreOptions& options);
};

// Writes rows of one (partition, bucket) into data files in `bucket_dir`, rolled once
// target-file-size is reached (checked every 1000 rows, as Java's rolling writer does), the rows
// numbered with consecutive sequence numbers from `first_sequence` on. `schema`, `settings` and
// `namer` must outlive the writer. Unless finished, the destructor deletes every file written.
class RollingAppendFileWriter {
 public:
  RollingAppendFileWriter(std::shared_ptr<FileIO> io, const TableSchema* schema,
                          const AppendFileSettings* settings, std::string bucket_dir,
                          DataFileNamer* namer, int64_t first_sequence, int32_t file_source);
  ~RollingAppendFileWriter();

  // The first file's first Parquet row group closes at `bytes` of rows instead of
  // parquet.block.size (DataFileWriterOptions::parquet_first_block_size). Before the first Write.
  void set_first_row_group_bytes(int64_t bytes) { first_row_group_bytes_ = bytes; }

  // `batch`: the schema's columns in order, canonical Arrow types.
  Status Write(const arrow::RecordBatch& batch);
  // What Finish has left to encode (DataFileWriter::BufferedBytes of the open file).
  int64_t BufferedBytes() const { return writer_ ? writer_->BufferedBytes() : 0; }
  // Closes the open file; the metadata of every file written, in order.
  Result<std::vector<DataFileMeta>> Finish();
  // Deletes every file written.
  void Abort();

 private:
  Status CloseFile();
  // Waits for the file being finished in the background; its metadata joins files_.
  Status AwaitClosing();

  std::shared_ptr<FileIO> io_;
  const TableSchema* schema_;
  const AppendFileSettings* settings_;
  std::string dir_;
  DataFileNamer* namer_;
  int64_t next_sequence_;
  int32_t file_source_;
  int64_t first_row_group_bytes_ = 0;
  std::unique_ptr<DataFileWriter> writer_;
  std::string name_;
  std::vector<std::string> paths_;
  std::vector<DataFileMeta> files_;
  std::shared_ptr<ClaimableTask> closing_;      // the file finished in the background, if any
  std::shared_ptr<DataFileMeta> closing_meta_;  // its metadata, once closing_ is done
  bool finished_ = false;
};

}  // namespace fjord
