#include "fjord/api/arrow_bridge.h"

#include <arrow/api.h>
#include <arrow/c/bridge.h>

#include "fjord/common/arrow_status.h"

namespace fjord::api {

namespace {

void ReleaseIfLive(struct ArrowSchema* schema) {
  if (schema != nullptr && schema->release != nullptr) schema->release(schema);
}
void ReleaseIfLive(struct ArrowArray* array) {
  if (array != nullptr && array->release != nullptr) array->release(array);
}

}  // namespace

Result<std::shared_ptr<arrow::Table>> ImportBatch(struct ArrowSchema* schema,
                                                  struct ArrowArray* array) {
  if (schema == nullptr || array == nullptr || schema->release == nullptr ||
      array->release == nullptr) {
    ReleaseIfLive(schema);
    ReleaseIfLive(array);
    return Status::Invalid("a batch needs a live ArrowSchema and ArrowArray");
  }
  auto batch = arrow::ImportRecordBatch(array, schema);
  ReleaseIfLive(schema);
  ReleaseIfLive(array);
  if (!batch.ok()) {
    return Status::Invalid("cannot import the batch (it must be a struct array of the columns): ",
                           batch.status().message());
  }
  auto table = arrow::Table::FromRecordBatches({*batch});
  if (!table.ok()) return Status::Invalid(table.status().message());
  return *table;
}

Status ExportBatch(const arrow::RecordBatch& batch, struct ArrowArray* out) {
  return FromArrow(arrow::ExportRecordBatch(batch, out));
}

Status ExportSchema(const arrow::Schema& schema, struct ArrowSchema* out) {
  return FromArrow(arrow::ExportSchema(schema, out));
}

Status ConsumeStream(struct ArrowArrayStream* stream,
                     const std::function<Status(std::shared_ptr<arrow::Table>)>& consume) {
  if (stream == nullptr || stream->release == nullptr) {
    return Status::Invalid("a write needs a live ArrowArrayStream");
  }
  auto reader = arrow::ImportRecordBatchReader(stream);
  if (!reader.ok()) return Status::Invalid("cannot import the stream: ", reader.status().message());
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    arrow::Status st = (*reader)->ReadNext(&batch);
    if (!st.ok()) return Status::Invalid("reading the input stream: ", st.message());
    if (!batch) return Status::OK();
    auto table = arrow::Table::FromRecordBatches({batch});
    if (!table.ok()) return Status::Invalid(table.status().message());
    FJORD_RETURN_NOT_OK(consume(*table));
  }
}

}  // namespace fjord::api
