// `fjord doctor`'s analysis (fjord/table_doctor.h, docs/maintenance.md "fjord doctor"): the
// options in effect, the walk of snapshots and tags (doctor_scan.h), what expiration keeps and
// why (doctor_retention.h, and snapshot expiration's own dry run), orphan clean-up's dry run, the
// consumers; then the findings (doctor_findings.h). Writes nothing.
#pragma once

#include <cstdint>

#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table_doctor.h"

namespace fjord {

Result<DoctorReport> Diagnose(const FileStoreTable& table, int64_t now_millis);

}  // namespace fjord
