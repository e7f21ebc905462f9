// Between the public ReadBuilder and the streaming reader it opens.
#pragma once

#include <memory>

#include "fjord/table/file_store_table.h"
#include "fjord/table_stream.h"

namespace fjord {

// A streaming read of `table` (its dynamic options applied and checked) as `request` selects.
Result<std::unique_ptr<StreamReader>> OpenStreamReader(std::shared_ptr<const FileStoreTable> table,
                                                       ReadRequest request, int64_t batch_rows);

}  // namespace fjord
