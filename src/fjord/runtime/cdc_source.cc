#include "fjord/runtime/cdc_source.h"

#include "fjord/runtime/cdc_decode.h"

namespace fjord::runtime {

Result<bool> TakeCdcMessage(cdc::CdcFormat& format, const cdc::CdcMessage& message,
                            const CdcCut& cut, bool dead_letter, std::vector<cdc::CdcRecord>* out,
                            const std::function<void(const std::string& error)>& letter) {
  std::vector<cdc::CdcRecord> records;
  Status decoded = format.Decode(message, &records);
  if (!decoded.ok()) {
    if (!dead_letter || decoded.code() != StatusCode::kInvalid) return decoded;
    letter(decoded.ToString());
    return true;
  }
  for (cdc::CdcRecord& r : records) r.origin = message.origin;
  if (!out->empty()) {
    for (const cdc::CdcRecord& r : records) {
      if (cut(r)) return false;
    }
  }
  for (cdc::CdcRecord& r : records) out->push_back(std::move(r));
  return true;
}

Result<std::unique_ptr<CdcSource>> MakeCdcSource(const JobSpec& spec) {
  FJORD_ASSIGN_OR_RAISE(cdc::TypeMapping mapping,
                        cdc::TypeMapping::Parse(spec.source.type_mapping));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<cdc::CdcFormat> format,
                        cdc::MakeCdcFormat(spec.source.cdc_format, mapping));
  if (spec.source.type == "files") return MakeFilesCdcSource(spec.source, std::move(format));
  if (spec.source.type == "kafka") return MakeKafkaCdcSource(spec.source, std::move(format));
  return Status::Invalid(spec.file, ": source.type ", spec.source.type,
                         " has no CDC format (files or kafka)");
}

}  // namespace fjord::runtime
