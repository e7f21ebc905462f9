// Partition directory names (spec/format.md §1.3), computed from partition values exactly as Java
// does, because readers locate data files by recomputing them.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/meta/core_options.h"
#include "fjord/partition.h"
#include "fjord/result.h"
#include "fjord/schema.h"
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

// The directory of one bucket: `root`/<partition path>bucket-N, the partition given as its stored
// BinaryRow; `partition.default-name` of `options` (the schema's) names NULL and empty values.
Result<std::string> BucketPath(const std::string& root, const TableSchema& schema,
                               const CoreOptions& options, const std::string& stored_partition,
                               int32_t bucket);

}  // namespace fjord
