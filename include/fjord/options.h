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

// What Fjord does with an option (common/option_support.inc).
enum class OptionSupport : unsigned char {
  kHonoured,     // implemented as Java implements it
  kPerformance,  // ignored, but changes only speed, memory or file layout: warned when set
  kRefused,      // not honoured yet (or honoured only for `honoured_values`): refused when set
};
std::string_view OptionSupportName(OptionSupport support);

// The operations a refused option blocks on an existing table, as bits of
// OptionDef::refused_for. Creating or altering a table refuses it whatever these say.
inline constexpr unsigned kRefusedForWrite = 1;  // writes, commits, compactions
inline constexpr unsigned kRefusedForRead = 2;   // reads

struct OptionDef {
  std::string_view key;
  OptionType type;
  // Text form of the default; std::nullopt when the option has none (or is derived from others,
  // which the description says).
  std::optional<std::string_view> default_value;
  bool immutable;                // may not change after the table is created
  std::string_view enum_values;  // "a|b|c" for kEnum
  std::string_view description;
  // What Fjord does with it (option_support.inc).
  OptionSupport support = OptionSupport::kHonoured;
  std::string_view honoured_values;  // kRefused: the values Fjord honours ("a|b", ">0"); "" none
  unsigned refused_for = 0;          // kRefused: kRefusedForWrite | kRefusedForRead
  std::string_view support_note;     // why, in a few words; may be empty
};

// All options Fjord knows, sorted by key. Stable for the life of the process.
const std::vector<OptionDef>& AllOptionDefs();
// The definition of `key`, or null when unknown. Prefix options like
// `fields.<name>.aggregate-function` are matched by pattern.
const OptionDef* FindOptionDef(std::string_view key);

// Checks that `value` parses as the option's type. Unknown keys pass (Paimon keeps them).
Status ValidateOptionValue(std::string_view key, std::string_view value);

// Whether Fjord honours `value` for the option `def` (always for kHonoured and kPerformance;
// for kRefused only a value of `honoured_values`).
bool OptionValueHonoured(const OptionDef& def, std::string_view value);
// "honoured", "performance only", "not honoured", or "honoured for a|b" (docs and `fjord options`).
std::string OptionSupportText(const OptionDef& def);

// What an operation does with the options set on a table (or given to the operation).
enum class OptionUse : unsigned char {
  kCreate,  // CREATE TABLE, ALTER TABLE ... SET: every refused value fails, unknown keys warn
  kWrite,   // writes, commits, compactions of an existing table: kRefusedForWrite values fail
  kRead,    // reads of an existing table: kRefusedForRead values fail
};

// NotImplemented naming every option of `options` (key, value, why) that Fjord does not honour
// for `use` ("option 'changelog-producer' = 'input' is not honoured by Fjord yet: ..."); OK
// otherwise. `options` are the values set explicitly (not the registry's defaults).
Status CheckOptionsHonoured(const std::map<std::string, std::string>& options, OptionUse use);
// The warnings `use` gives for `options`, one line each: performance-only options that are set
// (kCreate and kWrite), and, for kCreate, keys the registry does not know with the nearest known
// key ("unknown option 'snapshot.num-retain.max' (kept, but Fjord does not use it); did you mean
// 'snapshot.num-retained.max'?"). File format options (parquet.*, orc.*, avro.*) the writers do
// not read count as performance-only.
std::vector<std::string> OptionWarnings(const std::map<std::string, std::string>& options,
                                        OptionUse use);
// CheckOptionsHonoured, then each of OptionWarnings through WarnOnce (warning.h).
Status CheckOptions(const std::map<std::string, std::string>& options, OptionUse use);
// The registry key nearest to `key` by edit distance, if one is close enough to be a typo.
std::optional<std::string> SuggestOptionKey(std::string_view key);

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
