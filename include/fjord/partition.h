// Partition specs as users write them: "k1=v1,k2=v2", the one form of partitions in Fjord, which
// every command takes (`--partition`) and prints (`fjord files`, `fjord stats`). Each value is
// text of its partition column's type: BOOLEAN true / false, numbers, DECIMAL (never rounded),
// strings as they are, DATE yyyy-mm-dd or the day number since 1970-01-01 (the form Java's
// `partition.legacy-name` writes in directory names), TIME hh:mm:ss[.fff], TIMESTAMP
// yyyy-mm-dd[Thh:mm[:ss[.fffffffff]]]; the table's `partition.default-name`
// (__DEFAULT_PARTITION__) is NULL. %XX in a value is the byte 0xXX (write %2C for a comma, %3D
// for '=', %25 for '%'), as in partition directory names. A value the column cannot hold is
// refused where the spec is used ("'2026-02-30' is not a date").
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "fjord/result.h"

namespace fjord {

// Partition column -> value. Empty: no restriction (or, for a static overwrite, the whole table).
using PartitionSpec = std::map<std::string, std::string>;

// Parses "k1=v1,k2=v2"; "" is the empty spec; %XX in values is decoded. Invalid for an item
// without '=' or a key, or a key given twice. Whether the keys are partition columns and the
// values fit their types is checked where the spec is used.
Result<PartitionSpec> ParsePartitionSpec(std::string_view text);

}  // namespace fjord
