// The data files of append tables: one file's manifest metadata with Java's statistics, the
// table options a writer needs, and the rolling writer that turns rows of one (partition, bucket)
// into files rolled at target-file-size. Used by the append writer and by compaction rewrites.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

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

  // `batch`: the schema's columns in order, canonical Arrow types.
  Status Write(const arrow::RecordBatch& batch);
  // Closes the open file; the metadata of every file written, in order.
  Result<std::vector<DataFileMeta>> Finish();
  // Deletes every file written.
  void Abort();

 private:
  Status CloseFile();

  std::shared_ptr<FileIO> io_;
  const TableSchema* schema_;
  const AppendFileSettings* settings_;
  std::string dir_;
  DataFileNamer* namer_;
  int64_t next_sequence_;
  int32_t file_source_;
  std::unique_ptr<DataFileWriter> writer_;
  std::string name_;
  std::vector<std::string> paths_;
  std::vector<DataFileMeta> files_;
  bool finished_ = false;
};

}  // namespace fjord
