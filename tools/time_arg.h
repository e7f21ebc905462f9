// TIME arguments of the maintenance commands (`--older-than TIME`): a duration before now
// (`1d`, `2h`, `30m`, `30s`, `500ms`, whole numbers, units may be combined as `1d12h`) or an
// ISO-8601 timestamp (`2026-11-26T03:00:00`, seconds and a fraction optional, a space for the
// `T`, a date alone for its midnight), read in the local time zone as Java's procedures read
// theirs unless it ends in `Z` or an offset (`+02:00`).
#pragma once

#include <cstdint>
#include <string_view>

#include "fjord/result.h"

namespace fjord::cli {

// Milliseconds since the epoch. Invalid, naming `option` and the text, for anything else.
Result<int64_t> ParseTimeArg(std::string_view text, int64_t now_millis, std::string_view option);

}  // namespace fjord::cli
