// The rows of one split as the split reader pulls them (table_read.cc): batches in the columns
// the read needs, the int8 row kind last when the read asks for it. Internal to table/read.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>

#include "fjord/result.h"

namespace fjord {

class SplitSource {
 public:
  virtual ~SplitSource() = default;
  // The next batch, never empty; nullptr at the end.
  virtual Result<std::shared_ptr<arrow::RecordBatch>> Next() = 0;
  // Between calls to Next: a source of a later part of the rows not yet returned, this one then
  // stopping before them, whose keys none of this one's rows have (RowBatchReader::SplitOff);
  // nullptr when it cannot.
  virtual Result<std::unique_ptr<SplitSource>> SplitOff() { return std::unique_ptr<SplitSource>(); }
};

}  // namespace fjord
