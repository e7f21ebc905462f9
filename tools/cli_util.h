// Small text helpers of the `fjord` program.
#pragma once

#include <cstdint>
#include <cstdio>
#include <ctime>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord::cli {

// "a, b,c" -> {"a", "b", "c"}: items trimmed of blanks, empty items dropped.
inline std::vector<std::string> SplitList(std::string_view text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string_view part = text.substr(
        start, comma == std::string_view::npos ? std::string_view::npos : comma - start);
    size_t b = part.find_first_not_of(" \t");
    size_t e = part.find_last_not_of(" \t");
    if (b != std::string_view::npos) out.emplace_back(part.substr(b, e - b + 1));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

// A partition as every command prints it: the library's text ("day=2026-11-26,hour=3", the form
// --partition takes), "-" for an unpartitioned table.
inline std::string PartitionColumn(const std::string& partition_text) {
  return partition_text.empty() ? std::string("-") : partition_text;
}

// Epoch milliseconds as "2026-12-01T20:58:18.123Z".
inline std::string FormatEpochMillis(int64_t millis) {
  int64_t seconds = millis / 1000 - (millis % 1000 < 0 ? 1 : 0);
  int64_t ms = millis - seconds * 1000;
  std::time_t t = static_cast<std::time_t>(seconds);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[96];
  std::snprintf(buf, sizeof(buf), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms));
  return buf;
}

// `-o key=value` items as a map; Invalid for an item without `=` or key.
inline Result<std::map<std::string, std::string>> ParseKeyValues(
    const std::vector<std::string>& items) {
  std::map<std::string, std::string> out;
  for (const std::string& item : items) {
    size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0) {
      return Status::Invalid("-o takes key=value, got '", item, "'");
    }
    out[item.substr(0, eq)] = item.substr(eq + 1);
  }
  return out;
}

}  // namespace fjord::cli
