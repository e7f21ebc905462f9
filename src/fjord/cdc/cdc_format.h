// CDC formats (docs/cdc.md): the decoders of change messages, as Java Paimon's CDC record parsers
// (paimon-flink-cdc, action/cdc/format): `debezium-json` (with and without the schema envelope),
// `canal-json`, `maxwell-json`, `ogg-json` and `json` (insert-only). Each turns one message into
// the change records it holds (an update: the before image as -D and the after image as +I, as
// Java's parsers emit them), with Paimon types from the message where it has them (type mapping
// options as Java's TypeMapping) and STRING where it has none.
#pragma once

#include <memory>
#include <set>
#include <string>
#include <vector>

#include "fjord/cdc/cdc_record.h"
#include "fjord/result.h"

namespace fjord::cdc {

// Java's TypeMapping.TypeMappingMode, spelled as its option values.
enum class TypeMappingMode {
  kTinyint1NotBool,         // tinyint1-not-bool
  kToNullable,              // to-nullable
  kToString,                // to-string
  kCharToString,            // char-to-string
  kLongtextToBytes,         // longtext-to-bytes
  kDecimalNoChange,         // decimal-no-change
  kBigintUnsignedToBigint,  // bigint-unsigned-to-bigint
  kAllowNonStringToString,  // allow-non-string-to-string
};

class TypeMapping {
 public:
  TypeMapping() = default;
  // Option values as Java takes them (trimmed, any case); an unknown one is Invalid naming it.
  static Result<TypeMapping> Parse(const std::vector<std::string>& values);
  bool Has(TypeMappingMode mode) const { return modes_.count(mode) > 0; }
  void Add(TypeMappingMode mode) { modes_.insert(mode); }

 private:
  std::set<TypeMappingMode> modes_;
};

class CdcFormat {
 public:
  virtual ~CdcFormat() = default;
  // The format's name, as in the job file ("debezium-json").
  virtual const char* name() const = 0;
  // Appends the records of `message` to `out`. A tombstone (no value, or the JSON null) and a
  // canal DDL message append nothing. A message that is not valid for the format is Invalid
  // naming message.origin and what is wrong with it; as in Java this includes messages without
  // an op such as Debezium's schema-change events and transaction markers.
  virtual Status Decode(const CdcMessage& message, std::vector<CdcRecord>* out) = 0;
};

// `name`: debezium-json, canal-json, maxwell-json, ogg-json or json; another name is Invalid
// listing these.
Result<std::unique_ptr<CdcFormat>> MakeCdcFormat(const std::string& name,
                                                 const TypeMapping& mapping);

// The names MakeCdcFormat knows.
const std::vector<std::string>& CdcFormatNames();

// Internal, one per format unit.
std::unique_ptr<CdcFormat> MakeDebeziumJsonFormat(const TypeMapping& mapping);
std::unique_ptr<CdcFormat> MakeCanalJsonFormat(const TypeMapping& mapping);
std::unique_ptr<CdcFormat> MakeMaxwellJsonFormat(const TypeMapping& mapping);
std::unique_ptr<CdcFormat> MakeOggJsonFormat(const TypeMapping& mapping);
std::unique_ptr<CdcFormat> MakeJsonFormat(const TypeMapping& mapping);

}  // namespace fjord::cdc
