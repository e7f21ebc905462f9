// Rows of a table from change records (docs/cdc.md): the batch a CDC job hands to its writers.
// Each column of the table takes the record's column of the same name, NULL when the record has
// none (a column dropped at the source, or one the table has more); the value text is read as
// Java Paimon's TypeUtils.castFromCdcValueString reads it, with Fjord's exact text rules
// (format/text_values.h) where Java would round or truncate silently: a value that does not fit
// the column is an error naming the message, the column and the value. The row kind goes into
// the trailing `_row_kind` column.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <vector>

#include "fjord/cdc/cdc_record.h"
#include "fjord/result.h"
#include "fjord/schema.h"

namespace fjord::runtime {

// Errors name the record's origin.
Result<std::shared_ptr<arrow::RecordBatch>> RecordsToBatch(
    const TableSchema& schema, const std::vector<const cdc::CdcRecord*>& records);

}  // namespace fjord::runtime
