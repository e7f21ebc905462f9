// Reading Paimon data files (Parquet, ORC, Avro) into Arrow tables in the canonical Arrow form
// (arrow_types.h).
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/file_io.h"

namespace fjord {

enum class FileFormat : unsigned char { kParquet, kOrc, kAvro };

std::string_view FileFormatName(FileFormat format);
// "parquet", "orc", "avro" (case-insensitive).
Result<FileFormat> ParseFileFormat(std::string_view name);
// The format of a data file from its extension (spec/format.md §1.4): the last dot segment, or the
// one before it when the last is a compression extension.
Result<FileFormat> FileFormatOfPath(std::string_view path);

// Reads the columns `fields` (named as in the file's own schema) of the data file at `path`.
// The table's columns follow `fields` in order, each in the canonical Arrow type of its field.
// A field the file lacks is a Corruption error naming the file and the column.
Result<std::shared_ptr<arrow::Table>> ReadDataFile(FileIO* io, const std::string& path,
                                                   FileFormat format,
                                                   const std::vector<DataField>& fields);

}  // namespace fjord
