#include "fjord/format/file_batches.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"

namespace fjord {

Result<std::shared_ptr<arrow::RecordBatch>> ConformBatch(
    const std::shared_ptr<arrow::RecordBatch>& batch, const std::vector<DataField>& fields,
    const std::string& path) {
  arrow::FieldVector out_fields;
  arrow::ArrayVector columns;
  for (const DataField& f : fields) {
    std::shared_ptr<arrow::Array> column = batch->GetColumnByName(f.name);
    if (!column) return Status::Corruption(path, ": data file has no column '", f.name, "'");
    Result<std::shared_ptr<arrow::Array>> canonical = ToCanonical(column, *f.type);
    if (!canonical.ok()) return canonical.status().WithContext(path, ": column '", f.name, "'");
    FJORD_ASSIGN_OR_RAISE(auto field, ToArrowField(f));
    // Canonical, but a MAP with NULL keys keeps the list form (arrow_types.h).
    out_fields.push_back(field->WithType((*canonical)->type()));
    columns.push_back(*canonical);
  }
  return arrow::RecordBatch::Make(arrow::schema(out_fields), batch->num_rows(), columns);
}

Result<std::shared_ptr<arrow::RecordBatch>> ChunkBatchReader::Next() {
  while (!chunk_ || offset_ >= chunk_->num_rows()) {
    FJORD_ASSIGN_OR_RAISE(chunk_, NextChunk(&chunk_first_row_));
    offset_ = 0;
    if (!chunk_) return std::shared_ptr<arrow::RecordBatch>();
  }
  position_ = chunk_first_row_ + offset_;
  std::shared_ptr<arrow::RecordBatch> out;
  if (offset_ == 0 && chunk_->num_rows() <= batch_rows_) {
    out = chunk_;
  } else {
    out = chunk_->Slice(offset_, batch_rows_);
  }
  offset_ += out->num_rows();
  return out;
}

}  // namespace fjord
