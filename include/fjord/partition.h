// Partition specs as users write them: "k1=v1,k2=v2", the values as they appear in partition
// directory names (`partition.default-name` names the NULL partition).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "fjord/result.h"

namespace fjord {

// Partition column -> value. Empty: no restriction (or, for a static overwrite, the whole table).
using PartitionSpec = std::map<std::string, std::string>;

// Parses "k1=v1,k2=v2"; "" is the empty spec. Invalid for an item without '=' or a key, or a key
// given twice. Whether the keys are partition columns is checked where the spec is used.
Result<PartitionSpec> ParsePartitionSpec(std::string_view text);

}  // namespace fjord
