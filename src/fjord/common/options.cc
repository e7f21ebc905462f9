#include "fjord/options.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "fjord/common/strings.h"

namespace fjord {

namespace {

constexpr std::optional<std::string_view> kNoDefault = std::nullopt;

const std::vector<OptionDef>& Registry() {
  static const std::vector<OptionDef> defs = [] {
    std::vector<OptionDef> v = {
#define FJORD_OPTION(key, type, def, immutable, enum_values, description)       \
  OptionDef{key,         OptionType::type,         def, immutable, enum_values, \
            description, OptionSupport::kHonoured, "",  0,         ""},
#include "fjord/common/option_defs.inc"
#undef FJORD_OPTION
    };
    std::sort(v.begin(), v.end(),
              [](const OptionDef& a, const OptionDef& b) { return a.key < b.key; });
    constexpr unsigned kWrite = kRefusedForWrite;
    constexpr unsigned kRead = kRefusedForRead;
    struct Support {
      std::string_view key;
      OptionSupport support;
      std::string_view honoured_values;
      unsigned refused_for;
      std::string_view note;
    };
    const Support supports[] = {
#define FJORD_SUPPORT(key, support, values, refused_for, note) \
  Support{key, OptionSupport::support, values, refused_for, note},
#include "fjord/common/option_support.inc"
#undef FJORD_SUPPORT
    };
    (void)kWrite;
    (void)kRead;
    for (const Support& s : supports) {
      auto it = std::lower_bound(v.begin(), v.end(), s.key,
                                 [](const OptionDef& d, std::string_view k) { return d.key < k; });
      if (it == v.end() || it->key != s.key) continue;  // OptionsTest finds such entries
      it->support = s.support;
      it->honoured_values = s.honoured_values;
      it->refused_for = s.refused_for;
      it->support_note = s.note;
    }
    return v;
  }();
  return defs;
}

// Splits "64 mb" into (64, "mb"). The number must be a non-negative integer.
Result<std::pair<int64_t, std::string>> SplitNumberUnit(std::string_view text, const char* what) {
  std::string_view t = Trim(text);
  size_t i = 0;
  while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i]))) ++i;
  if (i == 0) return Status::Invalid("cannot parse ", what, " '", text, "': no leading number");
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + i, n);
  if (ec != std::errc()) return Status::Invalid("cannot parse ", what, " '", text, "': too large");
  return std::make_pair(n, Lower(Trim(t.substr(i))));
}

// Matches keys like "fields.price.aggregate-function" against "fields.#.aggregate-function".
bool MatchesPattern(std::string_view pattern, std::string_view key) {
  size_t hash = pattern.find('#');
  if (hash == std::string_view::npos) return pattern == key;
  std::string_view prefix = pattern.substr(0, hash);
  std::string_view suffix = pattern.substr(hash + 1);
  return key.size() > prefix.size() + suffix.size() && key.substr(0, prefix.size()) == prefix &&
         key.substr(key.size() - suffix.size()) == suffix;
}

}  // namespace

std::string_view OptionTypeName(OptionType type) {
  switch (type) {
    case OptionType::kBoolean:
      return "boolean";
    case OptionType::kInt:
      return "int";
    case OptionType::kLong:
      return "long";
    case OptionType::kDouble:
      return "double";
    case OptionType::kString:
      return "string";
    case OptionType::kEnum:
      return "enum";
    case OptionType::kDuration:
      return "duration";
    case OptionType::kMemorySize:
      return "memory size";
    case OptionType::kList:
      return "list";
  }
  return "?";
}

std::string_view OptionLayerName(OptionLayer layer) {
  switch (layer) {
    case OptionLayer::kDefault:
      return "default";
    case OptionLayer::kCatalog:
      return "catalog";
    case OptionLayer::kTable:
      return "table";
    case OptionLayer::kDynamic:
      return "dynamic";
  }
  return "?";
}

const std::vector<OptionDef>& AllOptionDefs() { return Registry(); }

const OptionDef* FindOptionDef(std::string_view key) {
  const auto& defs = Registry();
  auto it = std::lower_bound(defs.begin(), defs.end(), key,
                             [](const OptionDef& d, std::string_view k) { return d.key < k; });
  if (it != defs.end() && it->key == key) return &*it;
  for (const OptionDef& d : defs) {
    if (d.key.find('#') != std::string_view::npos && MatchesPattern(d.key, key)) return &d;
  }
  return nullptr;
}

Result<int64_t> ParseMemorySize(std::string_view text) {
  FJORD_ASSIGN_OR_RAISE(auto parts, SplitNumberUnit(text, "memory size"));
  auto [n, unit] = parts;
  int64_t mult = 1;
  if (unit.empty() || unit == "b" || unit == "bytes") {
    mult = 1;
  } else if (unit == "k" || unit == "kb" || unit == "kibibytes") {
    mult = int64_t{1} << 10;
  } else if (unit == "m" || unit == "mb" || unit == "mebibytes") {
    mult = int64_t{1} << 20;
  } else if (unit == "g" || unit == "gb" || unit == "gibibytes") {
    mult = int64_t{1} << 30;
  } else if (unit == "t" || unit == "tb" || unit == "tebibytes") {
    mult = int64_t{1} << 40;
  } else {
    return Status::Invalid("cannot parse memory size '", text, "': unknown unit '", unit, "'");
  }
  if (n > INT64_MAX / mult) return Status::Invalid("memory size '", text, "' is too large");
  return n * mult;
}

Result<int64_t> ParseDurationMillis(std::string_view text) {
  FJORD_ASSIGN_OR_RAISE(auto parts, SplitNumberUnit(text, "duration"));
  auto [n, unit] = parts;
  // Sub-millisecond units round down to whole milliseconds.
  if (unit == "ns" || unit == "nano" || unit == "nanos" || unit == "nanosecond" ||
      unit == "nanoseconds") {
    return n / 1000000;
  }
  if (unit == "us" || unit == "µs" || unit == "micro" || unit == "micros" ||
      unit == "microsecond" || unit == "microseconds") {
    return n / 1000;
  }
  int64_t mult = 0;
  if (unit.empty() || unit == "ms" || unit == "milli" || unit == "millis" ||
      unit == "millisecond" || unit == "milliseconds") {
    mult = 1;
  } else if (unit == "s" || unit == "sec" || unit == "secs" || unit == "second" ||
             unit == "seconds") {
    mult = 1000;
  } else if (unit == "m" || unit == "min" || unit == "mins" || unit == "minute" ||
             unit == "minutes") {
    mult = 60 * 1000;
  } else if (unit == "h" || unit == "hour" || unit == "hours") {
    mult = 3600 * 1000;
  } else if (unit == "d" || unit == "day" || unit == "days") {
    mult = 86400 * 1000;
  } else {
    return Status::Invalid("cannot parse duration '", text, "': unknown unit '", unit, "'");
  }
  if (n > INT64_MAX / mult) return Status::Invalid("duration '", text, "' is too large");
  return n * mult;
}

Result<bool> ParseBoolean(std::string_view text) {
  std::string t = Lower(Trim(text));
  if (t == "true") return true;
  if (t == "false") return false;
  return Status::Invalid("cannot parse boolean '", text, "': expected true or false");
}

Status ValidateOptionValue(std::string_view key, std::string_view value) {
  const OptionDef* def = FindOptionDef(key);
  if (def == nullptr) return Status::OK();
  Status st;
  switch (def->type) {
    case OptionType::kBoolean:
      st = ParseBoolean(value).status();
      break;
    case OptionType::kInt:
    case OptionType::kLong: {
      std::string_view t = Trim(value);
      int64_t n = 0;
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
      if (ec != std::errc() || ptr != t.data() + t.size() ||
          (def->type == OptionType::kInt && (n < INT32_MIN || n > INT32_MAX))) {
        st = Status::Invalid("'", value, "' is not a valid ", OptionTypeName(def->type));
      }
      break;
    }
    case OptionType::kDouble: {
      std::string_view t = Trim(value);
      double d = 0;
      auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
      if (ec != std::errc() || ptr != t.data() + t.size()) {
        st = Status::Invalid("'", value, "' is not a number");
      }
      break;
    }
    case OptionType::kEnum: {
      std::string v = Lower(Trim(value));
      std::string_view rest = def->enum_values;
      bool found = false;
      while (!rest.empty()) {
        size_t bar = rest.find('|');
        if (Lower(rest.substr(0, bar)) == v) found = true;
        rest = bar == std::string_view::npos ? std::string_view() : rest.substr(bar + 1);
      }
      if (!found) {
        st = Status::Invalid("'", value, "' is not one of ", def->enum_values);
      }
      break;
    }
    case OptionType::kDuration:
      st = ParseDurationMillis(value).status();
      break;
    case OptionType::kMemorySize:
      st = ParseMemorySize(value).status();
      break;
    case OptionType::kString:
    case OptionType::kList:
      break;
  }
  if (!st.ok()) return Status::Invalid("option '", key, "': ", st.message());
  return Status::OK();
}

Options Options::Layered(const std::map<std::string, std::string>& catalog,
                         const std::map<std::string, std::string>& table,
                         const std::map<std::string, std::string>& dynamic) {
  Options o;
  for (const auto& [k, v] : catalog) {
    if (k.rfind(kTableDefaultPrefix, 0) == 0 && k.size() > kTableDefaultPrefix.size()) {
      o.Set(OptionLayer::kCatalog, k.substr(kTableDefaultPrefix.size()), v);
    }
  }
  for (const auto& [k, v] : table) o.Set(OptionLayer::kTable, k, v);
  for (const auto& [k, v] : dynamic) o.Set(OptionLayer::kDynamic, k, v);
  return o;
}

Options Options::FromTable(const std::map<std::string, std::string>& table) {
  return Layered({}, table, {});
}

void Options::Set(OptionLayer layer, std::string key, std::string value) {
  layers_[static_cast<size_t>(layer)][std::move(key)] = std::move(value);
}

void Options::Remove(OptionLayer layer, const std::string& key) {
  layers_[static_cast<size_t>(layer)].erase(key);
}

std::optional<OptionLayer> Options::LayerOf(std::string_view key) const {
  std::string k(key);
  for (int l = 3; l >= 1; --l) {
    if (layers_[static_cast<size_t>(l)].count(k)) return static_cast<OptionLayer>(l);
  }
  const OptionDef* def = FindOptionDef(key);
  if (def != nullptr && def->default_value) return OptionLayer::kDefault;
  return std::nullopt;
}

std::optional<std::string> Options::Get(std::string_view key) const {
  std::string k(key);
  for (int l = 3; l >= 1; --l) {
    const auto& m = layers_[static_cast<size_t>(l)];
    auto it = m.find(k);
    if (it != m.end()) return it->second;
  }
  const OptionDef* def = FindOptionDef(key);
  if (def != nullptr && def->default_value) return std::string(*def->default_value);
  return std::nullopt;
}

std::string Options::GetOr(std::string_view key, std::string_view fallback) const {
  auto v = Get(key);
  return v ? *v : std::string(fallback);
}

Result<std::optional<bool>> Options::GetBool(std::string_view key) const {
  auto v = Get(key);
  if (!v) return std::optional<bool>();
  Result<bool> r = ParseBoolean(*v);
  if (!r.ok()) return r.status().WithContext("option '", key, "'");
  return std::optional<bool>(*r);
}

Result<std::optional<int64_t>> Options::GetInt(std::string_view key) const {
  auto v = Get(key);
  if (!v) return std::optional<int64_t>();
  std::string_view t = Trim(*v);
  int64_t n = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return Status::Invalid("option '", key, "': '", *v, "' is not an integer");
  }
  return std::optional<int64_t>(n);
}

Result<std::optional<double>> Options::GetDouble(std::string_view key) const {
  auto v = Get(key);
  if (!v) return std::optional<double>();
  std::string_view t = Trim(*v);
  double d = 0;
  auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), d);
  if (ec != std::errc() || ptr != t.data() + t.size()) {
    return Status::Invalid("option '", key, "': '", *v, "' is not a number");
  }
  return std::optional<double>(d);
}

Result<std::optional<int64_t>> Options::GetMemorySize(std::string_view key) const {
  auto v = Get(key);
  if (!v) return std::optional<int64_t>();
  Result<int64_t> r = ParseMemorySize(*v);
  if (!r.ok()) return r.status().WithContext("option '", key, "'");
  return std::optional<int64_t>(*r);
}

Result<std::optional<int64_t>> Options::GetDurationMillis(std::string_view key) const {
  auto v = Get(key);
  if (!v) return std::optional<int64_t>();
  Result<int64_t> r = ParseDurationMillis(*v);
  if (!r.ok()) return r.status().WithContext("option '", key, "'");
  return std::optional<int64_t>(*r);
}

std::map<std::string, std::string> Options::PersistedAtCreate() const {
  std::map<std::string, std::string> out = layer(OptionLayer::kCatalog);
  for (const auto& [k, v] : layer(OptionLayer::kTable)) out[k] = v;
  return out;
}

std::vector<Options::Explained> Options::Explain() const {
  std::map<std::string, Explained> by_key;
  for (const OptionDef& d : Registry()) {
    if (d.default_value && d.key.find('#') == std::string_view::npos) {
      by_key[std::string(d.key)] = Explained{
          std::string(d.key), std::string(*d.default_value), OptionLayer::kDefault, &d, {}};
    }
  }
  for (int l = 1; l <= 3; ++l) {
    for (const auto& [k, v] : layers_[static_cast<size_t>(l)]) {
      auto it = by_key.find(k);
      if (it == by_key.end()) {
        by_key[k] = Explained{k, v, static_cast<OptionLayer>(l), FindOptionDef(k), {}};
      } else {
        it->second.overridden.emplace_back(it->second.layer, it->second.value);
        it->second.value = v;
        it->second.layer = static_cast<OptionLayer>(l);
      }
    }
  }
  std::vector<Explained> out;
  for (auto& [k, e] : by_key) out.push_back(std::move(e));
  return out;
}

}  // namespace fjord
