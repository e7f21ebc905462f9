// PostgreSQL column types and values as Paimon types and CDC value text (docs/cdc.md, "The
// PostgreSQL source"). Types follow Java Paimon's PostgresTypeUtils.toDataType (the mapping
// postgres_sync_table creates tables with) from the type's OID and modifier, as pgoutput's
// Relation message and pg_attribute give them; values are PostgreSQL's text output turned into
// the text Java's TypeUtils.castFromCdcValueString takes for that type, as Java's
// PostgresRecordParser hands it over.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fjord/cdc/cdc_format.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

// Built-in type OIDs (pg_type.dat) the mapping knows.
namespace pg_oid {
inline constexpr uint32_t kBool = 16, kBytea = 17, kInt8 = 20, kInt2 = 21, kInt4 = 23, kText = 25,
                          kJson = 114, kFloat4 = 700, kFloat8 = 701, kBpchar = 1042,
                          kVarchar = 1043, kDate = 1082, kTime = 1083, kTimestamp = 1114,
                          kTimestamptz = 1184, kBit = 1560, kVarbit = 1562, kNumeric = 1700,
                          kUuid = 2950, kJsonb = 3802;
}  // namespace pg_oid

// The element type of a built-in array type (_int4 -> int4), or 0 when `oid` is none.
uint32_t PostgresArrayElement(uint32_t oid);

// The name of a built-in type the mapping knows ("int4", "_varchar"), or null.
const char* PostgresTypeName(uint32_t oid);

// The Paimon type (nullable) of a column of type `oid` with modifier `typmod` (-1: none).
// `to-string` maps every type to STRING as Java does. A type Java refuses (interval, money,
// point, ...) is NotImplemented naming it; enum types (user OIDs) are resolved by the caller to
// text first.
Result<DataTypePtr> PostgresToPaimonType(uint32_t oid, int32_t typmod, const TypeMapping& mapping);

// The type of a column as Java's postgres_sync_table creates it (JdbcSchemaUtils.buildSchema, and
// PostgresRecordParser for the records): PostgresToPaimonType, NOT NULL when the column is NOT
// NULL in PostgreSQL (pg_attribute.attnotnull) unless the mapping has `to-nullable`.
Result<DataTypePtr> PostgresColumnType(uint32_t oid, int32_t typmod, bool not_null,
                                       const TypeMapping& mapping);

// The value of a NOT NULL column that a key-only old row (REPLICA IDENTITY DEFAULT or USING
// INDEX: a delete, or an update that changed the key) does not carry, as Debezium fills it in
// (its converters' fallback for a required field, which Java's postgres_sync_table then writes
// into the -D row): the type's zero value as CDC value text: 0, false, "", no bytes, 1970-01-01,
// midnight, the epoch, all-zero bits, an empty array. `oid` is a built-in type (enums: text).
Result<std::string> PostgresZeroValueText(uint32_t oid, int32_t typmod);

// The CDC value text of PostgreSQL's text output `text` of a column of type `oid`/`typmod`
// (the session runs with DateStyle ISO and TimeZone UTC). bool t/f -> true/false, bytea \x..
// -> the raw bytes, timestamptz -> the wall-clock time of the process's time zone with six
// digits, timestamp -> three or six digits, bit -> true/false or base64, arrays -> a JSON list
// of the element texts; other types unchanged. Bad text: Invalid naming the type.
Result<std::string> PostgresValueText(uint32_t oid, int32_t typmod, std::string_view text);

}  // namespace fjord::cdc
