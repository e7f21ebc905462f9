// The direct PostgreSQL CDC source (docs/cdc.md, "The PostgreSQL source"): an initial snapshot
// of the included tables, then their changes read from a logical replication slot with the
// built-in `pgoutput` plugin, through libpq. One change (an insert, update or delete) is one
// message of CdcSource (runtime/cdc_source.h); the position is the replication LSN plus the
// changes of the transaction in progress already handed out, or the snapshot's progress.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/result.h"
#include "fjord/runtime/cdc_source.h"
#include "fjord/runtime/job_spec.h"

namespace fjord::runtime {

// Checks the spec and builds the source; nothing connects before Seek.
Result<std::unique_ptr<CdcSource>> MakePostgresSource(const PostgresSourceSpec& spec);

}  // namespace fjord::runtime
