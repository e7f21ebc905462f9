// Conveniences for programs built against Arrow C++ (the same Arrow as Fjord's, or any: data
// crosses through the C Data interface, zero-copy): write arrow::RecordBatch / RecordBatchReader,
// read as an arrow::RecordBatchReader. Header-only; include <arrow/c/bridge.h> comes with it.
#pragma once

#include <arrow/c/bridge.h>
#include <arrow/record_batch.h>
#include <arrow/table.h>

#include <memory>

#include "fjord/status.h"
#include "fjord/table_read.h"
#include "fjord/table_write.h"

namespace fjord {

namespace arrow_internal {
inline Status FromArrow(const arrow::Status& st) {
  return st.ok() ? Status::OK() : Status::Invalid(st.ToString());
}
}  // namespace arrow_internal

// Writes `batch` through `write` (TableWrite::Write's contract).
inline Status WriteBatch(TableWrite& write, const arrow::RecordBatch& batch) {
  struct ArrowSchema schema;
  struct ArrowArray array;
  Status st = arrow_internal::FromArrow(arrow::ExportRecordBatch(batch, &array, &schema));
  if (!st.ok()) return st;
  return write.Write(&schema, &array);
}

// Writes every batch of `reader`.
inline Status WriteBatches(TableWrite& write, arrow::RecordBatchReader& reader) {
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    Status st = arrow_internal::FromArrow(reader.ReadNext(&batch));
    if (!st.ok()) return st;
    if (!batch) return Status::OK();
    st = WriteBatch(write, *batch);
    if (!st.ok()) return st;
  }
}

// Writes every row of `table`, batch by batch.
inline Status WriteTable(TableWrite& write, const arrow::Table& table) {
  arrow::TableBatchReader reader(table);
  return WriteBatches(write, reader);
}

// The rows of `builder`'s read as an arrow::RecordBatchReader.
inline Result<std::shared_ptr<arrow::RecordBatchReader>> OpenArrowReader(
    const ReadBuilder& builder) {
  struct ArrowArrayStream stream;
  Status st = builder.OpenStream(&stream);
  if (!st.ok()) return st;
  auto reader = arrow::ImportRecordBatchReader(&stream);
  if (!reader.ok()) return Status::Invalid(reader.status().ToString());
  return *reader;
}

}  // namespace fjord
