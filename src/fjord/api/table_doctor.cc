// DiagnoseTable (fjord/table_doctor.h): the report of table/maintain's Diagnose.

#include "fjord/table_doctor.h"

#include <chrono>

#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/doctor.h"

namespace fjord {

const char* DoctorSeverityName(DoctorSeverity severity) {
  switch (severity) {
    case DoctorSeverity::kInfo:
      return "info";
    case DoctorSeverity::kWarning:
      return "warning";
    case DoctorSeverity::kError:
      return "error";
  }
  return "?";
}

Result<DoctorReport> DiagnoseTable(const Table& table, const DoctorOptions& options) {
  int64_t now = options.now_millis.value_or(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                std::chrono::system_clock::now().time_since_epoch())
                                                .count());
  return Diagnose(*table.store(), now);
}

}  // namespace fjord
