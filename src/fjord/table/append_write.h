// Writing rows into an append (no primary key) table: rows are routed to (partition, bucket)
// exactly as Java routes them, each group is written as data files in the table's format with
// Java's statistics, and prepare-commit returns the commit messages for FileStoreCommit. In
// fixed-bucket tables prepare-commit also compacts small files, unless `write-only`
// (append_compact.h). Primary-key tables have their own writer (primary_key_write.h).
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fjord/format/data_file_writer.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/table/append_compact.h"
#include "fjord/table/commit.h"
#include "fjord/table/row_router.h"
#include "fjord/table/table.h"

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

  static Result<AppendFileSettings> FromSchema(const TableSchema& schema);
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

struct AppendWriteOptions {
  // Java's ignorePreviousFiles, for overwrites: the files already in the table take no part in
  // compaction (they are about to be replaced). Sequence numbers still continue from them.
  bool ignore_previous_files = false;
};

class AppendTableWrite {
 public:
  // `table` must outlive the writer.
  static Result<std::unique_ptr<AppendTableWrite>> Create(const Table* table,
                                                          AppendWriteOptions options = {});

  // Writes `rows` (the table's columns by name; +I rows only, from a `_row_kind` column if any)
  // into the data files of their buckets, rolled at target-file-size; a batch with a NULL in a
  // NOT NULL column or a row of another kind is refused whole. Not thread-safe.
  Status Write(const std::shared_ptr<arrow::Table>& rows);
  // Closes the open data files and returns their commit messages. In fixed-bucket
  // tables, unless `write-only`, every bucket this writer has written to then runs the compaction
  // Java's writer would start (at most one per bucket and call), whose input and output files
  // are the message's compact increment. The writer assumes its messages get committed and can
  // be used again afterwards; after an error it must be discarded (files it wrote are left for
  // orphan clean-up).
  Result<std::vector<CommitMessage>> PrepareCommit();

  const AppendCompactMetrics& compact_metrics() const { return compact_metrics_; }

 private:
  AppendTableWrite(const Table* table, AppendWriteOptions options)
      : table_(table), options_(options) {}
  Status LoadRestore();
  Result<int64_t> NextSequence(const std::string& partition, int32_t bucket);
  Result<std::string> BucketDir(const PartitionBucket& key) const;
  // The open writer of a bucket, created on first use.
  Result<RollingAppendFileWriter*> WriterFor(const PartitionBucket& key);
  // Compacts one bucket (best effort) into `message`'s compact increment.
  Status Compact(const PartitionBucket& key, const std::string& bucket_dir,
                 std::vector<DataFileMeta> new_files, DataFileNamer* namer, CommitMessage* message);

  const Table* table_;
  AppendWriteOptions options_;
  bool compaction_ = false;  // fixed buckets, not write-only, supported
  AppendCompactOptions compact_options_;
  // Compaction queues of the buckets written to, created from the restored files.
  std::map<PartitionBucket, BucketCompactQueue> queues_;
  std::map<PartitionBucket, std::vector<DataFileMeta>> restored_files_;
  AppendCompactMetrics compact_metrics_;
  AppendFileSettings settings_;
  std::unique_ptr<DataFileNamer> namer_;
  int32_t total_buckets_ = -1;
  std::string default_partition_;
  std::vector<DataField> partition_fields_;
  std::vector<DataTypePtr> partition_types_;
  // (stored partition row, bucket) -> its open rolling writer; unfinished ones delete their
  // files when destroyed (a writer discarded after an error leaves nothing behind).
  std::map<PartitionBucket, std::unique_ptr<RollingAppendFileWriter>> writers_;
  std::map<std::pair<std::string, int32_t>, int64_t> next_sequence_;
  bool restore_loaded_ = false;
};

}  // namespace fjord
