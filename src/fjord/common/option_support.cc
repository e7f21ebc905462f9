// What Fjord does with the options set on a table: refusals of options it does not honour,
// warnings for performance-only options and unknown keys (options.h; the table of decisions is
// option_support.inc).

#include <algorithm>
#include <charconv>

#include "fjord/common/strings.h"
#include "fjord/options.h"
#include "fjord/warning.h"

namespace fjord {

namespace {

// File format options (passed by Java to the format writers) that Fjord's writers read
// (format/data_file_writer.cc). Other keys under these prefixes are performance-only for Fjord.
constexpr std::string_view kFormatPrefixes[] = {"parquet.", "orc.", "avro."};
constexpr std::string_view kFormatOptionsRead[] = {"parquet.block.size", "parquet.page.size",
                                                   "orc.stripe.size", "orc.compress.size",
                                                   "orc.rows.between.memory.checks"};

bool IsFormatOption(std::string_view key) {
  return std::any_of(std::begin(kFormatPrefixes), std::end(kFormatPrefixes),
                     [&](std::string_view p) { return key.substr(0, p.size()) == p; });
}

bool IsPositiveInteger(std::string_view text) {
  std::string_view t = Trim(text);
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  return ec == std::errc() && ptr == t.data() + t.size() && n > 0;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

bool RefusedFor(const OptionDef& def, OptionUse use) {
  switch (use) {
    case OptionUse::kCreate:
      return true;
    case OptionUse::kWrite:
      return (def.refused_for & kRefusedForWrite) != 0;
    case OptionUse::kRead:
      return (def.refused_for & kRefusedForRead) != 0;
  }
  return true;
}

}  // namespace

std::string_view OptionSupportName(OptionSupport support) {
  switch (support) {
    case OptionSupport::kHonoured:
      return "honoured";
    case OptionSupport::kPerformance:
      return "performance only";
    case OptionSupport::kRefused:
      return "not honoured";
  }
  return "?";
}

bool OptionValueHonoured(const OptionDef& def, std::string_view value) {
  if (def.support != OptionSupport::kRefused) return true;
  std::string v = Lower(Trim(value));
  // An empty list configures nothing (commit.callbacks = '', data-file.external-paths = '').
  if (def.type == OptionType::kList && v.empty()) return true;
  std::string_view rest = def.honoured_values;
  while (!rest.empty()) {
    size_t bar = rest.find('|');
    std::string_view item = rest.substr(0, bar);
    if (item == ">0" ? IsPositiveInteger(v) : Lower(item) == v) return true;
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return false;
}

std::string OptionSupportText(const OptionDef& def) {
  if (def.support != OptionSupport::kRefused || def.honoured_values.empty()) {
    return std::string(OptionSupportName(def.support));
  }
  std::string values;
  std::string_view rest = def.honoured_values;
  while (!rest.empty()) {
    size_t bar = rest.find('|');
    std::string_view item = rest.substr(0, bar);
    if (!values.empty()) values += ", ";
    values += item == ">0" ? std::string("N > 0") : std::string(item);
    rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
  }
  return "honoured for " + values + " only";
}

Status CheckOptionsHonoured(const std::map<std::string, std::string>& options, OptionUse use) {
  std::string refused;
  for (const auto& [key, value] : options) {
    const OptionDef* def = FindOptionDef(key);
    if (def == nullptr || OptionValueHonoured(*def, value) || !RefusedFor(*def, use)) continue;
    if (!refused.empty()) refused += "; ";
    refused += "option '" + key + "' = '" + value + "' is not honoured by Fjord yet";
    if (!def->support_note.empty()) refused += ": " + std::string(def->support_note);
  }
  if (refused.empty()) return Status::OK();
  return Status::NotImplemented(refused);
}

std::vector<std::string> OptionWarnings(const std::map<std::string, std::string>& options,
                                        OptionUse use) {
  std::vector<std::string> out;
  if (use == OptionUse::kRead) return out;
  for (const auto& [key, value] : options) {
    const OptionDef* def = FindOptionDef(key);
    if (def != nullptr) {
      if (def->support != OptionSupport::kPerformance) continue;
      std::string text =
          "option '" + key + "' = '" + value + "' is ignored by Fjord (it changes only performance";
      if (!def->support_note.empty()) text += "; " + std::string(def->support_note);
      out.push_back(text + ")");
    } else if (IsFormatOption(key)) {
      if (std::find(std::begin(kFormatOptionsRead), std::end(kFormatOptionsRead), key) !=
          std::end(kFormatOptionsRead)) {
        continue;
      }
      out.push_back("file format option '" + key + "' = '" + value +
                    "' is ignored by Fjord's writers (it changes only performance or encoding "
                    "details)");
    } else if (use == OptionUse::kCreate) {
      std::string text = "unknown option '" + key + "' (kept, but Fjord does not use it)";
      if (std::optional<std::string> near = SuggestOptionKey(key)) {
        text += "; did you mean '" + *near + "'?";
      }
      out.push_back(std::move(text));
    }
  }
  return out;
}

Status CheckOptions(const std::map<std::string, std::string>& options, OptionUse use) {
  FJORD_RETURN_NOT_OK(CheckOptionsHonoured(options, use));
  for (const std::string& w : OptionWarnings(options, use)) WarnOnce(w);
  return Status::OK();
}

std::optional<std::string> SuggestOptionKey(std::string_view key) {
  std::optional<std::string> best;
  size_t best_distance = 0;
  for (const OptionDef& d : AllOptionDefs()) {
    std::string candidate(d.key);
    size_t hash = candidate.find('#');
    if (hash != std::string::npos) {
      // fields.#.aggregate-function: compare with the field name of `key` put in place of '#'.
      std::string_view prefix = std::string_view(d.key).substr(0, hash);
      if (key.substr(0, prefix.size()) != prefix) continue;
      size_t dot = key.find('.', prefix.size());
      if (dot == std::string_view::npos) continue;
      candidate = std::string(key.substr(0, dot)) + std::string(d.key.substr(hash + 1));
    }
    size_t distance = EditDistance(key, candidate);
    if (!best || distance < best_distance) {
      best = candidate;
      best_distance = distance;
    }
  }
  // A typo: a few edits, and fewer than a third of the key.
  if (!best || best_distance == 0 || best_distance > std::max<size_t>(2, key.size() / 3)) {
    return std::nullopt;
  }
  return best;
}

}  // namespace fjord
