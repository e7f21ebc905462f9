// The TIME argument of maintenance commands (`fjord expire --older-than`, and later `fjord
// orphans`): a duration before now (`1d`, `2h`, `30s`, `90 min`; the units of duration options)
// or an ISO-8601 timestamp (`2026-12-01`, `2026-12-01T08:00:00`, `2026-12-01 08:00:00.250`,
// with `Z` or `+01:00` for a zone; without one, local time, as Java's procedures read it).
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/result.h"

namespace fjord::cli {

// Epoch milliseconds. Invalid naming `flag` and the text when it is neither form.
Result<int64_t> ParseTimeArg(std::string_view text, int64_t now_millis, std::string_view flag);

int64_t CurrentMillis();

}  // namespace fjord::cli
