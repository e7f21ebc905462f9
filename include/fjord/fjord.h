// Fjord's public API in one include. Start with catalog.h (warehouses, databases, tables) and
// table.h (a table and the operations it hands out); docs/quickstart-cpp.md walks through them.
// Data crosses the API as the Arrow C Data / C Stream interface (arrow_c.h); programs built on
// Arrow C++ can also include fjord/arrow.h for arrow::RecordBatch conveniences.
#pragma once

#include "fjord/arrow_c.h"
#include "fjord/catalog.h"
#include "fjord/consumers.h"
#include "fjord/data_type.h"
#include "fjord/file_io.h"
#include "fjord/job.h"
#include "fjord/options.h"
#include "fjord/orphan_files.h"
#include "fjord/partition.h"
#include "fjord/partition_expire.h"
#include "fjord/result.h"
#include "fjord/row_text.h"
#include "fjord/schema.h"
#include "fjord/status.h"
#include "fjord/table.h"
#include "fjord/table_commit.h"
#include "fjord/table_compaction.h"
#include "fjord/table_doctor.h"
#include "fjord/table_read.h"
#include "fjord/table_rescale.h"
#include "fjord/table_rollback.h"
#include "fjord/table_stats.h"
#include "fjord/table_stream.h"
#include "fjord/table_write.h"
#include "fjord/tags.h"
#include "fjord/value.h"
#include "fjord/version.h"
#include "fjord/warning.h"
