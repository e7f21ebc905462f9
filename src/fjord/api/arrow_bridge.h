// Crossing the public API's C Data boundary inside Fjord: importing batches callers hand in and
// exporting batches and readers they take out, with Arrow errors as Fjord Statuses.
#pragma once

#include <arrow/type_fwd.h>

#include <functional>
#include <memory>

#include "fjord/arrow_c.h"
#include "fjord/result.h"

namespace fjord::api {

// Imports a struct array (both released, whatever happens) as a one-batch arrow::Table.
Result<std::shared_ptr<arrow::Table>> ImportBatch(struct ArrowSchema* schema,
                                                  struct ArrowArray* array);
Status ExportBatch(const arrow::RecordBatch& batch, struct ArrowArray* out);
Status ExportSchema(const arrow::Schema& schema, struct ArrowSchema* out);
// Imports a C stream's batches one by one into `consume` (the stream is released at the end).
Status ConsumeStream(struct ArrowArrayStream* stream,
                     const std::function<Status(std::shared_ptr<arrow::Table>)>& consume);

}  // namespace fjord::api
