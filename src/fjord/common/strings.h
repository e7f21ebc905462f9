// Small string helpers shared across layers.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace fjord {

// Splits "a, b,,c " at commas into trimmed, non-empty parts: {"a", "b", "c"}.
inline std::vector<std::string> SplitCommaList(std::string_view text) {
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

}  // namespace fjord
