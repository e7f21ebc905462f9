// Reading the rows of a split: data files in their own schemas mapped to the read schema by field
// id (schema evolution), deletion vectors applied, and for primary-key tables merge-on-read with
// the table's merge engine (behaviour.md §3).
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/read/scan.h"

namespace fjord {

class TableRead {
 public:
  // `read_schema` is the schema rows are returned in (the table's, or a travelled snapshot's).
  TableRead(std::shared_ptr<FileIO> io, std::string table_root, TableSchema read_schema);

  // Every visible row of `split` (retract results dropped), all columns of the read schema.
  Result<std::shared_ptr<arrow::Table>> Read(const DataSplit& split);
  // All splits, concatenated.
  Result<std::shared_ptr<arrow::Table>> ReadAll(const std::vector<DataSplit>& splits);

  const TableSchema& schema() const { return schema_; }

  // Files of one sorted run of a primary-key bucket (directory `bucket_path`), read one after
  // another as key-value batches (lsm/key_value.h) in the read schema: for compaction. Deletion
  // vectors are not applied.
  Result<std::unique_ptr<KvRunReader>> OpenKvRun(const std::string& bucket_path,
                                                 std::vector<DataFileMeta> files);

 private:
  struct FileColumns;
  Result<const TableSchema*> SchemaOf(int64_t schema_id);
  // Reads one file, evolved to the read schema; for primary-key tables the last two columns are
  // _SEQUENCE_NUMBER and _VALUE_KIND.
  Result<std::shared_ptr<arrow::Table>> ReadFile(const DataSplit& split, const DataFileMeta& file,
                                                 bool with_system_columns);
  // Merge-on-read of a primary-key split: sections of overlapping files, each a k-way merge of
  // its sorted runs (lsm/interval_partition.h, lsm/kv_merge.h).
  Result<std::shared_ptr<arrow::Table>> MergeOnRead(const DataSplit& split);
  class FileRunReader;
  Result<std::shared_ptr<arrow::Table>> DropRetracts(std::shared_ptr<arrow::Table> rows);

  std::shared_ptr<FileIO> io_;
  std::string root_;
  TableSchema schema_;
  SnapshotManager snapshots_;
  std::map<int64_t, TableSchema> schema_cache_;
  std::map<std::string, std::string> index_file_cache_;
};

}  // namespace fjord
