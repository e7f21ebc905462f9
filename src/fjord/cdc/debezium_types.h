// Debezium's Kafka Connect schemas in Paimon terms, as Java Paimon's DebeziumSchemaUtils
// (docs/cdc.md, "Type mapping"): the Paimon type of a field from its Connect type, logical name
// and parameters, and the text of a value as Java turns it into the text Paimon casts (dates as
// yyyy-MM-dd, timestamps with a fixed number of fraction digits, binary data decoded from base64,
// bits reversed to big-endian).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_format.h"
#include "fjord/data_type.h"
#include "fjord/result.h"

namespace fjord::cdc {

// One field of the `before`/`after` struct of a Debezium schema.
struct DebeziumField {
  std::string type;                           // Connect type: int32, string, bytes, struct...
  std::optional<std::string> name;            // logical name: io.debezium.time.Date, ...
  std::map<std::string, std::string> params;  // `parameters`, as texts
};

// Java's DebeziumSchemaUtils.toDataType. Invalid when a parameter it needs (Bits `length`,
// Decimal `scale`) is missing or not a number.
Result<DataTypePtr> DebeziumFieldType(const DebeziumField& field);

// Java's DebeziumSchemaUtils.transformRawValue for a JSON message: `raw` is Objects.toString of
// the value (nullopt: null). Invalid (the error says what is wrong with the value) where Java
// throws: a decimal sent as base64 rather than a number, a bad date or time value, a geometry
// (not supported here).
Result<std::optional<std::string>> DebeziumValueText(const std::optional<std::string>& raw,
                                                     const DebeziumField& field,
                                                     const TypeMapping& mapping);

// Java's Base64.getDecoder().decode; false when `text` is not base64.
bool DecodeBase64(const std::string& text, std::string* out);
std::string EncodeBase64(const std::string& bytes);
// new String(bytes) with UTF-8: each ill-formed sequence becomes U+FFFD.
std::string DecodeUtf8Lossy(const std::string& bytes);

}  // namespace fjord::cdc
