// Writing rows into an append (no primary key) table: rows are routed to (partition, bucket)
// exactly as Java routes them, each group is written as a data file in the table's format with
// Java's statistics, and prepare-commit returns the commit messages for FileStoreCommit.
// Primary-key tables need the write buffer and merge (issue 4); they are refused here.
#pragma once

#include <arrow/type_fwd.h>

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fjord/format/data_file_writer.h"
#include "fjord/table/commit.h"
#include "fjord/table/table.h"

namespace fjord {

// The manifest metadata of an append-table data file just written: Java's statistics (dense store
// per `dense_stats`), empty keys, the sequence range starting at `first_sequence`.
Result<DataFileMeta> AppendFileMeta(const std::string& file_name,
                                    const DataFileWriteResult& written, const TableSchema& schema,
                                    bool dense_stats, int64_t first_sequence);

class AppendTableWrite {
 public:
  // `table` must outlive the writer.
  static Result<std::unique_ptr<AppendTableWrite>> Create(const Table* table);

  // Buffers `rows` (the table's columns by name, canonical Arrow types). Not thread-safe.
  Status Write(const std::shared_ptr<arrow::Table>& rows);
  // Writes the buffered rows as data files and returns their commit messages. The writer can be
  // used again afterwards.
  Result<std::vector<CommitMessage>> PrepareCommit();

 private:
  explicit AppendTableWrite(const Table* table) : table_(table) {}
  Result<int64_t> NextSequence(const std::string& partition, int32_t bucket);

  const Table* table_;
  // (stored partition row, bucket) -> batches of rows for it
  std::map<std::pair<std::string, int32_t>, std::vector<std::shared_ptr<arrow::Table>>> pending_;
  std::map<std::pair<std::string, int32_t>, int64_t> next_sequence_;
  bool sequences_loaded_ = false;
};

}  // namespace fjord
