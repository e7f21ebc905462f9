#include "fjord/cdc/cdc_format.h"

#include "fjord/common/strings.h"

namespace fjord::cdc {

const char* ChangeKindName(ChangeKind kind) {
  switch (kind) {
    case ChangeKind::kInsert:
      return "+I";
    case ChangeKind::kUpdateBefore:
      return "-U";
    case ChangeKind::kUpdateAfter:
      return "+U";
    case ChangeKind::kDelete:
      return "-D";
  }
  return "?";
}

const CdcColumn* CdcRecord::Find(const std::string& name) const {
  for (const CdcColumn& c : columns) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Result<TypeMapping> TypeMapping::Parse(const std::vector<std::string>& values) {
  static const std::pair<const char*, TypeMappingMode> kModes[] = {
      {"tinyint1-not-bool", TypeMappingMode::kTinyint1NotBool},
      {"to-nullable", TypeMappingMode::kToNullable},
      {"to-string", TypeMappingMode::kToString},
      {"char-to-string", TypeMappingMode::kCharToString},
      {"longtext-to-bytes", TypeMappingMode::kLongtextToBytes},
      {"decimal-no-change", TypeMappingMode::kDecimalNoChange},
      {"bigint-unsigned-to-bigint", TypeMappingMode::kBigintUnsignedToBigint},
      {"allow-non-string-to-string", TypeMappingMode::kAllowNonStringToString},
  };
  TypeMapping mapping;
  for (const std::string& raw : values) {
    std::string value = Lower(Trim(raw));
    bool known = false;
    for (const auto& [spelling, mode] : kModes) {
      if (value == spelling) {
        mapping.Add(mode);
        known = true;
      }
    }
    if (!known) {
      std::string all;
      for (const auto& [spelling, mode] : kModes)
        all += std::string(all.empty() ? "" : ", ") + spelling;
      return Status::Invalid("unsupported type mapping option '", raw, "' (known: ", all, ")");
    }
  }
  return mapping;
}

const std::vector<std::string>& CdcFormatNames() {
  static const std::vector<std::string> kNames = {"debezium-json", "canal-json", "maxwell-json",
                                                  "ogg-json", "json"};
  return kNames;
}

Result<std::unique_ptr<CdcFormat>> MakeCdcFormat(const std::string& name,
                                                 const TypeMapping& mapping) {
  std::unique_ptr<CdcFormat> format;
  if (name == "debezium-json") format = MakeDebeziumJsonFormat(mapping);
  if (name == "canal-json") format = MakeCanalJsonFormat(mapping);
  if (name == "maxwell-json") format = MakeMaxwellJsonFormat(mapping);
  if (name == "ogg-json") format = MakeOggJsonFormat(mapping);
  if (name == "json") format = MakeJsonFormat(mapping);
  if (format) return format;
  std::string all;
  for (const std::string& n : CdcFormatNames()) all += (all.empty() ? "" : ", ") + n;
  return Status::Invalid("unknown CDC format '", name, "' (known: ", all, ")");
}

}  // namespace fjord::cdc
