#include "fjord/cdc/json_envelope.h"

#include <cstring>

namespace fjord::cdc {

namespace {

bool Space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

// What the scanner of a nested value stops at: quotes and brackets.
struct Stops {
  bool at[256] = {};
  Stops() {
    for (unsigned char c : std::string_view("\"{}[]")) at[c] = true;
  }
};
const Stops kStops;

size_t SkipSpace(std::string_view t, size_t i) {
  while (i < t.size() && Space(t[i])) ++i;
  return i;
}

// Past the string starting at t[i] == '"'; npos when it does not end. A quote ends it unless
// an odd number of backslashes stands before it.
size_t SkipString(std::string_view t, size_t i) {
  const char* base = t.data();
  size_t from = i + 1;
  while (from < t.size()) {
    const void* q = std::memchr(base + from, '"', t.size() - from);
    if (!q) return std::string_view::npos;
    size_t at = static_cast<size_t>(static_cast<const char*>(q) - base);
    size_t slashes = 0;
    while (at - slashes > i + 1 && base[at - slashes - 1] == '\\') ++slashes;
    if (slashes % 2 == 0) return at + 1;
    from = at + 1;
  }
  return std::string_view::npos;
}

// Past the value starting at t[i]; npos when it does not end well.
size_t SkipValue(std::string_view t, size_t i) {
  if (i >= t.size()) return std::string_view::npos;
  if (t[i] == '"') return SkipString(t, i);
  if (t[i] == '{' || t[i] == '[') {
    int depth = 0;
    while (i < t.size()) {
      while (i < t.size() && !kStops.at[static_cast<unsigned char>(t[i])]) ++i;
      if (i >= t.size()) break;
      char c = t[i];
      if (c == '"') {
        i = SkipString(t, i);
        if (i == std::string_view::npos) return i;
        continue;
      }
      if (c == '{' || c == '[') ++depth;
      if (c == '}' || c == ']') {
        if (--depth == 0) return i + 1;
      }
      ++i;
    }
    return std::string_view::npos;
  }
  // A number, true, false or null: up to the next delimiter.
  size_t start = i;
  while (i < t.size() && !Space(t[i]) && t[i] != ',' && t[i] != '}' && t[i] != ']') ++i;
  return i > start ? i : std::string_view::npos;
}

}  // namespace

std::optional<std::vector<std::pair<std::string_view, std::string_view>>> TopLevelMembers(
    std::string_view text) {
  std::vector<std::pair<std::string_view, std::string_view>> out;
  size_t i = SkipSpace(text, 0);
  if (i >= text.size() || text[i] != '{') return std::nullopt;
  i = SkipSpace(text, i + 1);
  if (i < text.size() && text[i] == '}') {
    return SkipSpace(text, i + 1) == text.size() ? std::optional(out) : std::nullopt;
  }
  while (true) {
    if (i >= text.size() || text[i] != '"') return std::nullopt;
    size_t end = SkipString(text, i);
    if (end == std::string_view::npos) return std::nullopt;
    std::string_view key = text.substr(i + 1, end - i - 2);
    if (key.find('\\') != std::string_view::npos) return std::nullopt;
    i = SkipSpace(text, end);
    if (i >= text.size() || text[i] != ':') return std::nullopt;
    i = SkipSpace(text, i + 1);
    size_t value_end = SkipValue(text, i);
    if (value_end == std::string_view::npos) return std::nullopt;
    out.emplace_back(key, text.substr(i, value_end - i));
    i = SkipSpace(text, value_end);
    if (i >= text.size()) return std::nullopt;
    if (text[i] == '}') break;
    if (text[i] != ',') return std::nullopt;
    i = SkipSpace(text, i + 1);
  }
  if (SkipSpace(text, i + 1) != text.size()) return std::nullopt;
  return out;
}

}  // namespace fjord::cdc
