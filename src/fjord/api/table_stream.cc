// The public streaming read: StreamReader over the table's StreamTableScan.

#include "fjord/table_stream.h"

#include <arrow/api.h>

#include "fjord/api/arrow_bridge.h"
#include "fjord/api/table_stream_internal.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/stream_scan.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

namespace {

class StreamReaderImpl : public StreamReader {
 public:
  StreamReaderImpl(std::shared_ptr<const FileStoreTable> table, ReadRequest request,
                   int64_t batch_rows)
      : table_(std::move(table)), request_(std::move(request)), batch_rows_(batch_rows) {}

  Status Init() {
    FJORD_ASSIGN_OR_RAISE(
        options_, table_->SplitOptionsFor(table_->schema(), request_, batch_rows_, &fields_));
    options_.with_row_kind = true;
    // The batches' schema, fixed for the whole stream.
    TableRead read(table_->io(), table_->path(), table_->schema(), batch_rows_);
    FJORD_ASSIGN_OR_RAISE(arrow_schema_, read.OutputSchema({}, options_));
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> interval,
                          table_->options().GetDurationMillis("continuous.discovery-interval"));
    interval_ = std::chrono::milliseconds(interval.value_or(10000));
    // consumer-id: the stream starts where the consumer stopped (unless
    // consumer.ignore-progress), and CommitProgress records where it is.
    std::optional<int64_t> consumer_next;
    if (std::optional<std::string> id = table_->options().Get("consumer-id")) {
      FJORD_RETURN_NOT_OK(ValidateConsumerId(*id));
      consumer_id_ = *id;
      consumers_ = std::make_unique<ConsumerManager>(table_->io(), table_->path());
      FJORD_ASSIGN_OR_RAISE(std::optional<bool> ignore,
                            table_->options().GetBool("consumer.ignore-progress"));
      if (!ignore.value_or(false)) {
        FJORD_ASSIGN_OR_RAISE(std::optional<Consumer> consumer, consumers_->Read(*id));
        if (consumer) consumer_next = consumer->next_snapshot;
      }
    }
    FJORD_ASSIGN_OR_RAISE(scan_, table_->NewStreamScan(request_, consumer_next));
    return Status::OK();
  }

  const TableSchema& schema() const override { return table_->schema(); }
  const std::vector<DataField>& fields() const override { return fields_; }
  Status ExportSchema(struct ArrowSchema* out) override {
    return api::ExportSchema(*arrow_schema_, out);
  }

  Result<StreamStep> NextStep() override {
    rows_.reset();
    bool positioned = scan_->checkpoint().has_value();
    FJORD_ASSIGN_OR_RAISE(StreamPlan plan, scan_->Plan());
    if (plan.kind == StreamPlan::Kind::kWait && !positioned && scan_->checkpoint()) {
      // The starting scanner only chose where to begin (Java returns an empty plan here and
      // Flink plans again a discovery interval later): plan the first snapshot right away.
      FJORD_ASSIGN_OR_RAISE(plan, scan_->Plan());
    }
    StreamStep step;
    switch (plan.kind) {
      case StreamPlan::Kind::kWait:
        step.kind = StreamStep::Kind::kWait;
        return step;
      case StreamPlan::Kind::kEnd:
        step.kind = StreamStep::Kind::kEnd;
        return step;
      case StreamPlan::Kind::kSplits:
        break;
    }
    step.kind = StreamStep::Kind::kChanges;
    step.snapshot_id = plan.snapshot->id;
    step.full = plan.full;
    std::shared_ptr<arrow::Schema> schema = arrow_schema_;
    FJORD_ASSIGN_OR_RAISE(
        rows_, table_->OpenSplits(table_->schema(), std::move(plan.splits), options_, &schema));
    return step;
  }

  Status Next(struct ArrowArray* out) override {
    if (!rows_) {
      out->release = nullptr;
      return Status::OK();
    }
    FJORD_ASSIGN_OR_RAISE(auto batch, rows_->Next());
    if (!batch) {
      rows_.reset();
      out->release = nullptr;
      return Status::OK();
    }
    return api::ExportBatch(*batch, out);
  }

  std::optional<int64_t> Checkpoint() const override { return scan_->checkpoint(); }
  void Restore(std::optional<int64_t> next_snapshot_id) override {
    rows_.reset();
    scan_->Restore(next_snapshot_id);
  }

  Status CommitProgress(std::optional<int64_t> next_snapshot_id) override {
    if (!consumers_) return Status::OK();
    std::optional<int64_t> next = next_snapshot_id ? next_snapshot_id : scan_->checkpoint();
    if (!next) return Status::OK();  // nothing handed out yet (Java records nothing either)
    return consumers_->Write(consumer_id_, Consumer{*next});
  }

  std::chrono::milliseconds discovery_interval() const override { return interval_; }

 private:
  std::shared_ptr<const FileStoreTable> table_;
  ReadRequest request_;
  int64_t batch_rows_;
  std::vector<DataField> fields_;
  SplitReadOptions options_;
  std::shared_ptr<arrow::Schema> arrow_schema_;
  std::chrono::milliseconds interval_{10000};
  std::unique_ptr<StreamTableScan> scan_;
  std::shared_ptr<RowBatchReader> rows_;
  std::string consumer_id_;
  std::unique_ptr<ConsumerManager> consumers_;
};

}  // namespace

Result<std::unique_ptr<StreamReader>> OpenStreamReader(std::shared_ptr<const FileStoreTable> table,
                                                       ReadRequest request, int64_t batch_rows) {
  auto reader =
      std::make_unique<StreamReaderImpl>(std::move(table), std::move(request), batch_rows);
  FJORD_RETURN_NOT_OK(reader->Init());
  return std::unique_ptr<StreamReader>(std::move(reader));
}

}  // namespace fjord
