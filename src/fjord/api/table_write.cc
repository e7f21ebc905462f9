// The one TableWrite of the public API: an append or a primary-key writer behind it, chosen by
// the table's kind; batches imported from the C Data interface.

#include <arrow/api.h>

#include "fjord/api/arrow_bridge.h"
#include "fjord/api/table_write_internal.h"
#include "fjord/table.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_write.h"
#include "fjord/table/write/primary_key_write.h"

namespace fjord {

namespace {

class TableWriteImpl : public TableWrite {
 public:
  static Result<std::unique_ptr<TableWrite>> Make(std::shared_ptr<const FileStoreTable> base,
                                                  const WriteOptions& options,
                                                  std::shared_ptr<BucketAssigner> assigner) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const FileStoreTable> table,
                          base->WithDynamicOptions(options.dynamic_options));
    FJORD_RETURN_NOT_OK(table->CheckOptions(OptionUse::kWrite));
    auto impl = std::unique_ptr<TableWriteImpl>(new TableWriteImpl(table));
    if (table->schema().primary_keys.empty()) {
      FJORD_ASSIGN_OR_RAISE(
          impl->append_,
          AppendTableWrite::Create(table.get(), {.ignore_previous_files = options.for_overwrite,
                                                 .threads = options.threads}));
    } else {
      TableWriteOptions pk_options;
      pk_options.spill_dir = options.spill_dir;
      pk_options.ignore_previous_files = options.for_overwrite;
      pk_options.assigner = std::move(assigner);
      pk_options.threads = options.threads;
      FJORD_ASSIGN_OR_RAISE(impl->primary_key_,
                            PrimaryKeyTableWrite::Create(table.get(), pk_options));
    }
    return std::unique_ptr<TableWrite>(std::move(impl));
  }

  Status Write(struct ArrowSchema* schema, struct ArrowArray* array) override {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Table> rows, api::ImportBatch(schema, array));
    return WriteRows(rows);
  }

  Status Write(struct ArrowArrayStream* stream) override {
    return api::ConsumeStream(
        stream, [this](std::shared_ptr<arrow::Table> rows) { return WriteRows(rows); });
  }

  Result<CommitMessages> PrepareCommit(int64_t commit_identifier, bool wait_compaction) override {
    std::vector<CommitMessage> messages;
    if (append_) {
      FJORD_ASSIGN_OR_RAISE(messages, append_->PrepareCommit());
    } else {
      FJORD_ASSIGN_OR_RAISE(messages,
                            primary_key_->PrepareCommit(wait_compaction, commit_identifier));
    }
    CommitMessages out(std::move(messages));
    files_written_ += out.new_file_count();
    return out;
  }

  WriteMetrics metrics() const override {
    WriteMetrics m;
    m.files_written = files_written_;
    if (append_) {
      m.records_written = records_written_;
      const AppendCompactMetrics& c = append_->compact_metrics();
      m.compactions = c.compactions;
      m.compaction_bytes_in = c.bytes_in;
      m.compaction_bytes_out = c.bytes_out;
    } else {
      const TableWriteMetrics& p = primary_key_->metrics();
      m.records_written = p.records_written;
      m.records_dropped = p.records_dropped;
      m.spills = p.spills;
      m.compactions = p.compactions;
      m.compaction_bytes_in = p.compaction_bytes_in;
      m.compaction_bytes_out = p.compaction_bytes_out;
      m.compaction_millis = p.compaction_millis;
      m.compaction_waits = p.compaction_waits;
      m.compaction_wait_millis = p.compaction_wait_millis;
    }
    return m;
  }

  std::vector<BucketStats> bucket_metrics() const override {
    std::vector<BucketStats> out;
    if (!primary_key_) return out;
    for (auto& [key, lsm] : primary_key_->BucketMetrics()) {
      BucketStats b;
      b.partition = key.first;
      b.partition_text = PartitionDisplay(key.first, table_->schema(), table_->core_options());
      b.bucket = key.second;
      for (const auto& [level, files] : lsm.files_per_level) b.files += files;
      b.lsm = std::move(lsm);
      out.push_back(std::move(b));
    }
    return out;
  }

 private:
  explicit TableWriteImpl(std::shared_ptr<const FileStoreTable> table) : table_(std::move(table)) {}

  Status WriteRows(const std::shared_ptr<arrow::Table>& rows) {
    if (append_) {
      FJORD_RETURN_NOT_OK(append_->Write(rows));
      records_written_ += rows->num_rows();
      return Status::OK();
    }
    return primary_key_->Write(rows);
  }

  std::shared_ptr<const FileStoreTable> table_;  // outlives the writers below
  std::unique_ptr<AppendTableWrite> append_;
  std::unique_ptr<PrimaryKeyTableWrite> primary_key_;
  int64_t records_written_ = 0;
  int64_t files_written_ = 0;
};

}  // namespace

Result<std::unique_ptr<TableWrite>> Table::NewWrite(const WriteOptions& options) const {
  return TableWriteImpl::Make(store_, options, nullptr);
}

namespace api {

Result<std::unique_ptr<TableWrite>> NewTableWrite(const Table& table, const WriteOptions& options,
                                                  std::shared_ptr<BucketAssigner> assigner) {
  return TableWriteImpl::Make(table.store(), options, std::move(assigner));
}

}  // namespace api

}  // namespace fjord
