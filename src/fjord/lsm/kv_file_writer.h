// Writing merged key-value records of one (partition, bucket) into primary-key data files: the
// physical layout of spec/format.md §7.2 (_KEY_<k>..., _SEQUENCE_NUMBER, _VALUE_KIND, all
// table columns), rolling to a new file once `target-file-size` is reached, and the manifest
// metadata Java records for each file: min/max key, key and value statistics, sequence range,
// delete-row count, level.
#pragma once

#include <arrow/type_fwd.h>

#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/lsm/key_value.h"
#include "fjord/meta/core_options.h"
#include "fjord/meta/manifest.h"
#include "fjord/schema.h"

namespace fjord {

// Java's DataFilePathFactory naming: <prefix><uuid>-<n>.<ext>, one uuid per factory. Next() is
// thread-safe (flushes and the compaction thread share a bucket's namer).
class DataFileNamer {
 public:
  DataFileNamer(std::string prefix, std::string extension);
  std::string Next();
  // A namer with another prefix sharing this one's uuid and counter, as Java's factory names
  // data and changelog files (data-<uuid>-0, changelog-<uuid>-1, ...).
  DataFileNamer WithPrefix(std::string prefix) const;

 private:
  std::string prefix_;
  std::string uuid_;
  std::string extension_;
  std::shared_ptr<std::atomic<int64_t>> counter_;
};

// DataFileMeta._FILE_SOURCE: written by a writer's flush, or by compaction.
inline constexpr int32_t kFileSourceAppend = 0;
inline constexpr int32_t kFileSourceCompact = 1;

// The physical fields of a primary-key data file for `schema` (spec §7.2).
std::vector<DataField> KeyValuePhysicalFields(const TableSchema& schema);

class KvFileWriter {
 public:
  // Files go to `bucket_dir` (which need not exist), named by `namer`, at LSM level `level`;
  // `options` are the schema's, parsed.
  static Result<std::unique_ptr<KvFileWriter>> Make(std::shared_ptr<FileIO> io,
                                                    const TableSchema& schema,
                                                    const CoreOptions& options,
                                                    std::string bucket_dir, int32_t level,
                                                    DataFileNamer* namer,
                                                    int32_t file_source = kFileSourceAppend);
  // The same, parsing the schema's options first.
  static Result<std::unique_ptr<KvFileWriter>> Make(std::shared_ptr<FileIO> io,
                                                    const TableSchema& schema,
                                                    std::string bucket_dir, int32_t level,
                                                    DataFileNamer* namer,
                                                    int32_t file_source = kFileSourceAppend);
  ~KvFileWriter();

  // Files opened from now on encode their row groups' columns at once while `spare` answers
  // true (DataFileWriterOptions::parquet_spare_threads).
  void set_spare_threads(std::function<bool()> spare) {
    writer_options_.parquet_spare_threads = std::move(spare);
  }

  // Records in the KvLayout schema, ascending by key, each key at most once.
  Status Write(const std::shared_ptr<arrow::RecordBatch>& records);
  // Closes the current file; returns the metadata of every file written.
  Result<std::vector<DataFileMeta>> Finish();
  // Deletes every file written so far (after an error).
  void Abort();

 private:
  KvFileWriter() = default;
  Status WriteSlice(const std::shared_ptr<arrow::RecordBatch>& records);
  Status CloseCurrent();

  std::shared_ptr<FileIO> io_;
  TableSchema schema_;
  KvLayout layout_;
  std::string bucket_dir_;
  int32_t level_ = 0;
  int32_t file_source_ = kFileSourceAppend;
  DataFileNamer* namer_ = nullptr;
  FileFormat format_ = FileFormat::kParquet;
  std::vector<DataField> physical_;
  DataFileWriterOptions writer_options_;
  bool dense_stats_ = true;
  int64_t target_file_size_ = 0;

  std::unique_ptr<DataFileWriter> current_;
  std::string current_name_;
  std::shared_ptr<arrow::RecordBatch> first_row_;  // key source of _MIN_KEY
  std::shared_ptr<arrow::RecordBatch> last_row_;   // key source of _MAX_KEY
  int64_t min_seq_ = 0;
  int64_t max_seq_ = 0;
  int64_t deletes_ = 0;
  std::vector<DataFileMeta> done_;
  std::vector<std::string> written_paths_;
};

}  // namespace fjord
