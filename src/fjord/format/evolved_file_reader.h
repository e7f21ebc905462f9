// A data file written under some schema, read as rows of another (the read schema): fields are
// matched by id, a field the file lacks reads as NULL, types are cast to the read type (schema
// evolution, spec/format.md §3), and the positions of a deletion vector are skipped. Batches as
// OpenDataFile's: at most `options.batch_rows` rows, never empty.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "fjord/format/data_file_reader.h"
#include "fjord/format/deletion_vector.h"

namespace fjord {

struct EvolvedReadSpec {
  std::vector<DataField> file_fields;  // the schema the file was written with
  std::vector<DataField> read_fields;  // the columns wanted, in the read schema
  // Physical columns read as the file holds them, after the read fields (e.g. _SEQUENCE_NUMBER
  // and _VALUE_KIND of a primary-key file).
  std::vector<DataField> system_fields;
  std::shared_ptr<const DeletionVector> deletion;  // may be null
  // The file's row count from its metadata: checked once every row was read (Corruption when it
  // differs); needed when no column of the file is read. Negative: unknown.
  int64_t expected_rows = -1;
  // `options.chunk_filter` is asked with statistics in `read_fields` order (a field the file
  // lacks is all NULL; a field whose type changed has no statistics).
  FileReadOptions options;
};

Result<std::unique_ptr<BatchReader>> OpenEvolvedFile(FileIO* io, const std::string& path,
                                                     FileFormat format, EvolvedReadSpec spec);

}  // namespace fjord
