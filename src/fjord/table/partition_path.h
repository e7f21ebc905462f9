// Partition directory names (spec/format.md §1.3), computed from partition values exactly as Java
// does, because readers locate data files by recomputing them.
#pragma once

#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/value.h"

namespace fjord {

// Hive-compatible escaping of a path segment: control characters, 0x7F and "#%'*/:=?\{}[]^ become
// %XX (uppercase hex).
std::string EscapePathName(std::string_view text);

// Java's toString() of an internal value, as used in partition paths with
// partition.legacy-name=true (DATE as a day number, TIME as millis of day, TIMESTAMP as
// LocalDateTime.toString(), FLOAT/DOUBLE as Float/Double.toString()).
std::string LegacyPartitionString(const Value& value, const DataType& type);

// "k1=v1/k2=v2/" for the partition; empty for an unpartitioned table. Null, empty and blank
// strings become `default_name`.
std::string PartitionPath(const std::vector<DataField>& partition_fields,
                          const std::vector<Value>& values, const std::string& default_name);

// Java's Double.toString / Float.toString.
std::string JavaDoubleString(double v);
std::string JavaFloatString(float v);

}  // namespace fjord
