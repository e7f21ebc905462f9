// Reading a table's data files in a read schema, beside the writers that made them: one file as
// batches (format/evolved_file_reader.h: schema evolution by field id, deletion vectors, the
// projection and chunk filter pushed into the file read), or the files of one sorted run of a
// primary-key bucket, one after another, as key-value batches (lsm/key_value.h) for the k-way
// merge of merge-on-read and compaction. Files of older schemas are read with their own schema,
// loaded once per schema id.
//
// Not thread-safe: one factory per thread that reads. A run reader borrows the factory, which
// must outlive it.
#pragma once

#include <atomic>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/evolved_file_reader.h"
#include "fjord/lsm/key_value.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/snapshot_manager.h"

namespace fjord {

class KvFileReaderFactory {
 public:
  // `read_schema` is the schema rows come out in; `batch_rows` bounds every batch.
  KvFileReaderFactory(std::shared_ptr<FileIO> io, std::string table_root, TableSchema read_schema,
                      int64_t batch_rows = 8192);

  const TableSchema& read_schema() const { return read_schema_; }
  int64_t batch_rows() const { return batch_rows_; }
  // Files opened from now on decode their columns in parallel (FileReadOptions::parallel_columns).
  void set_parallel_columns(bool on) { parallel_columns_ = on; }
  // Files opened from now on decode their columns in parallel once `spare` turns true
  // (FileReadOptions::spare_threads; null: never).
  void set_spare_threads(std::shared_ptr<const std::atomic<bool>> spare) {
    spare_threads_ = std::move(spare);
  }
  // Files opened from now on take their batches' memory from `pool` (FileReadOptions::pool; null:
  // Arrow's default), which the factory keeps alive.
  void set_pool(std::shared_ptr<arrow::MemoryPool> pool) { pool_ = std::move(pool); }
  // Files opened from now on read a Parquet row group whole only when its requested columns
  // decode to at most `bytes` each on average, and stream it otherwise
  // (FileReadOptions::whole_row_group_bytes_per_column; `alone` files: at most
  // kWholeRowGroupBytesAlone).
  void set_whole_row_group_bytes_per_column(int64_t bytes) { whole_row_group_bytes_ = bytes; }

  // The file `file` of directory `bucket_dir` (or its external path): the columns `fields` of the
  // read schema (by id), then _SEQUENCE_NUMBER and _VALUE_KIND when `with_system_columns`.
  // Positions in `deletion` (may be null) are skipped; `filter` (may be empty) skips chunks;
  // `row_filter` (may be empty; its columns index `fields`) decides rows before the other columns
  // are decoded, where the file reader can (FileReadOptions::row_filter).
  // `alone`: the file is of a sorted run read with no other beside it (kWholeRowGroupBytesAlone).
  // NotFound names a file listed by the snapshot that is missing.
  Result<std::unique_ptr<BatchReader>> OpenFile(
      const std::string& bucket_dir, const DataFileMeta& file, std::vector<DataField> fields,
      bool with_system_columns, std::shared_ptr<const DeletionVector> deletion = {},
      ChunkFilter filter = {}, bool alone = false, RowFilter row_filter = {});

  // The deletion vector of a data file (null: none).
  using DeletionOfFn =
      std::function<Result<std::shared_ptr<const DeletionVector>>(const DataFileMeta&)>;

  // The files of one sorted run (ascending keys, no key twice) as key-value batches of
  // `layout` (the read schema's, or one of a projection of it that keeps the key and sequence
  // fields). Deletion vectors are applied when `deletion_of` is given. `alone`: no other run is
  // read beside this one (OpenFile).
  Result<std::unique_ptr<KvRunReader>> OpenRun(const std::string& bucket_dir,
                                               std::vector<DataFileMeta> files,
                                               const KvLayout& layout,
                                               DeletionOfFn deletion_of = {}, bool alone = false);
  // The same in the read schema's own layout.
  Result<std::unique_ptr<KvRunReader>> OpenRun(const std::string& bucket_dir,
                                               std::vector<DataFileMeta> files);

  // The schema of `schema_id` (the read schema's own id: the read schema), loaded once.
  Result<const TableSchema*> SchemaOf(int64_t schema_id);

 private:
  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema read_schema_;
  int64_t batch_rows_;
  bool parallel_columns_ = false;
  int64_t whole_row_group_bytes_ = FileReadOptions{}.whole_row_group_bytes_per_column;
  std::shared_ptr<const std::atomic<bool>> spare_threads_;
  std::shared_ptr<arrow::MemoryPool> pool_;
  SnapshotManager snapshots_;
  // Files may be opened on several threads; shared by copies so that they stay copyable.
  std::shared_ptr<std::mutex> schemas_mu_ = std::make_shared<std::mutex>();
  std::map<int64_t, TableSchema> schemas_;
};

}  // namespace fjord
