// Which stripes of an ORC file a chunk filter keeps, decided from the statistics of each stripe
// (the Metadata section, orc/orc_tail.h) as Parquet row groups are decided from theirs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/common/value_stats.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/orc/orc_types.h"

namespace fjord {

// The statistics of one stripe's top-level column `column` (of Fjord type `type`) in Fjord's
// terms, or nullopt when Fjord does not trust them (see the .cc). `rows` is the stripe's row
// count, `writer_version` the file's (PostScript).
std::optional<ColumnStats> OrcStripeColumnStats(const OrcColumnStats& stats, const OrcType& column,
                                                const DataType& type, uint64_t rows,
                                                uint32_t writer_version);

// For each stripe of the ORC file with this tail, whether `filter` keeps it, asked with the
// statistics of the top-level columns `fields` (by name) and the stripe's row count. Every
// stripe is kept when the file records no stripe statistics, or not exactly one set per stripe.
// Errors: reading or parsing the Metadata section (Corruption naming `path`).
Result<std::vector<bool>> OrcStripesToRead(const OrcTail& tail, uint64_t file_size,
                                           const OrcReadAt& read_at, const std::string& path,
                                           const std::vector<DataField>& fields,
                                           const ChunkFilter& filter);

}  // namespace fjord
