// Partition values as text: the one form of partitions on the command line and in the API, in
// and out. `day=2026-11-26,hour=3` is parsed (ParsePartitionSpec, fjord/partition.h) into a
// PartitionSpec, whose values are read here as their partition column's type into a filter on
// the partition columns; and every partition Fjord prints (fjord files, stats, error messages) is
// printed by PartitionText in the same form, so that what one command prints another takes.
//
// Values by type: BOOLEAN true / false; integers; FLOAT / DOUBLE; DECIMAL (never rounded); CHAR /
// VARCHAR / BINARY as they are; DATE yyyy-mm-dd, or the day number since 1970-01-01 that Java's
// `partition.legacy-name` (the default) writes in partition directory names; TIME hh:mm:ss[.fff];
// TIMESTAMP yyyy-mm-dd[Thh:mm[:ss[.fffffffff]]] (a blank instead of T too). The table's
// `partition.default-name` (__DEFAULT_PARTITION__) stands for NULL. An invalid value is refused
// as such ("'2026-02-30' is not a date").
#pragma once

#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/expr/predicate.h"
#include "fjord/partition.h"
#include "fjord/value.h"

namespace fjord {

// The filter selecting the partitions `spec` names (an AND of one comparison per key; an empty
// spec is TRUE). Invalid, naming the key and listing the partition columns, for a key that is not
// one of `partition_fields`; Invalid, naming column, type and value, for a value the column cannot
// hold.
Result<Predicate> PartitionSpecPredicate(const PartitionSpec& spec,
                                         const std::vector<DataField>& partition_fields,
                                         const std::string& default_name);

// One partition value as text: NULL is `default_name`; '%', ',' and '=' (and control characters)
// are escaped as %XX, which ParsePartitionSpec decodes.
std::string PartitionValueText(const Value& value, const DataType& type,
                               const std::string& default_name);

// "k1=v1,k2=v2" for a partition (values in the order of `partition_fields`); "" for none.
std::string PartitionText(const std::vector<DataField>& partition_fields,
                          const std::vector<Value>& values, const std::string& default_name);

}  // namespace fjord
