// Writers beyond the public API, for Fjord's own layers above it (the streaming runtime).
#pragma once

#include <memory>

#include "fjord/table.h"
#include "fjord/table/write/row_router.h"
#include "fjord/table_write.h"

namespace fjord::api {

// Table::NewWrite, but a dynamic-bucket table's rows take their buckets from `assigner`, which
// the caller shares between its writers: it assigns every key before handing rows to a writer
// and writes the hash index files itself (TableWriteOptions::assigner). Other tables ignore it.
Result<std::unique_ptr<TableWrite>> NewTableWrite(const Table& table, const WriteOptions& options,
                                                  std::shared_ptr<BucketAssigner> assigner);

}  // namespace fjord::api
