// Table options: one registry of definitions (name, type, default, description, immutability)
// and layered resolution, lowest to highest: built-in default < catalog `table-default.*` <
// table (schema file) < dynamic (per job or per read). Every effective value can be explained by
// the layer that set it (spec/behaviour.md §9.2).
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace fjord {

enum class OptionType : unsigned char {
  kBoolean,
  kInt,
  kLong,
  kDouble,
  kString,
  kEnum,        // one of OptionDef::enum_values (case-insensitive)
  kDuration,    // "10 s", "500ms", "1 h"; a bare number is milliseconds
  kMemorySize,  // "64 mb", "1gb", "4096"; a bare number is bytes
  kList,        // comma-separated
};

std::string_view OptionTypeName(OptionType type);

struct OptionDef {
  std::string_view key;
  OptionType type;
  // Text form of the default; std::nullopt when the option has none (or is derived from others,
  // which the description says).
  std::optional<std::string_view> default_value;
  bool immutable;                // may not change after the table is created
  std::string_view enum_values;  // "a|b|c" for kEnum
  std::string_view description;
};

// All options Fjord knows, sorted by key. Stable for the life of the process.
const std::vector<OptionDef>& AllOptionDefs();
// The definition of `key`, or null when unknown. Prefix options like
// `fields.<name>.aggregate-function` are matched by pattern.
const OptionDef* FindOptionDef(std::string_view key);

// Checks that `value` parses as the option's type. Unknown keys pass (Paimon keeps them).
Status ValidateOptionValue(std::string_view key, std::string_view value);

Result<int64_t> ParseMemorySize(std::string_view text);  // bytes
Result<int64_t> ParseDurationMillis(std::string_view text);
Result<bool> ParseBoolean(std::string_view text);

enum class OptionLayer : unsigned char { kDefault, kCatalog, kTable, kDynamic };
std::string_view OptionLayerName(OptionLayer layer);

inline constexpr std::string_view kTableDefaultPrefix = "table-default.";

class Options {
 public:
  Options() = default;
  // `catalog` holds the catalog's own options; only `table-default.*` keys are used (prefix cut).
  static Options Layered(const std::map<std::string, std::string>& catalog,
                         const std::map<std::string, std::string>& table,
                         const std::map<std::string, std::string>& dynamic = {});
  // Only table-layer values; the usual case for a table read from its schema file.
  static Options FromTable(const std::map<std::string, std::string>& table);

  void Set(OptionLayer layer, std::string key, std::string value);
  void Remove(OptionLayer layer, const std::string& key);

  // Effective text value: the highest layer that set it, else the registry default.
  std::optional<std::string> Get(std::string_view key) const;
  std::string GetOr(std::string_view key, std::string_view fallback) const;
  // The layer that decided Get(key); nullopt when neither a layer nor a default has it.
  std::optional<OptionLayer> LayerOf(std::string_view key) const;
  bool Contains(std::string_view key) const { return Get(key).has_value(); }

  // Typed getters; errors name the option and the bad value. An absent option gives nullopt.
  Result<std::optional<bool>> GetBool(std::string_view key) const;
  Result<std::optional<int64_t>> GetInt(std::string_view key) const;
  Result<std::optional<double>> GetDouble(std::string_view key) const;
  Result<std::optional<int64_t>> GetMemorySize(std::string_view key) const;
  Result<std::optional<int64_t>> GetDurationMillis(std::string_view key) const;

  // The values of one layer.
  const std::map<std::string, std::string>& layer(OptionLayer l) const {
    return layers_[static_cast<size_t>(l)];
  }
  // Table options as persisted: the catalog defaults merged under the table's own values, the
  // form written into a new schema file at CREATE TABLE.
  std::map<std::string, std::string> PersistedAtCreate() const;

  struct Explained {
    std::string key;
    std::string value;
    OptionLayer layer;
    const OptionDef* def;  // null for options the registry does not know
    // Lower layers that were overridden, lowest first.
    std::vector<std::pair<OptionLayer, std::string>> overridden;
  };
  // Every option that has a value (default or set), sorted by key.
  std::vector<Explained> Explain() const;

 private:
  std::array<std::map<std::string, std::string>, 4> layers_;
};

}  // namespace fjord
