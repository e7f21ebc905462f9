// `fjord doctor`'s three forms of one report (fjord/table_doctor.h): text for a person, JSON for
// programs, and one self-contained HTML page whose inline script draws the charts as SVG from the
// report's JSON embedded in it.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

#include "fjord/table_doctor.h"

namespace fjord::cli {

nlohmann::json DoctorReportJson(const DoctorReport& report);
std::string DoctorReportText(const DoctorReport& report);
std::string DoctorReportHtml(const DoctorReport& report);

}  // namespace fjord::cli
