// Reading Paimon's Avro data files (spec/format.md §7.7) into the canonical Arrow form.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/file_io.h"

namespace fjord {

// Reads the columns `fields` (matched by name in the file's writer schema) of an Avro data file.
Result<std::shared_ptr<arrow::Table>> ReadAvroDataFile(FileIO* io, const std::string& path,
                                                       const std::vector<DataField>& fields);

}  // namespace fjord
