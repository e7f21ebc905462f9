#include "fjord/runtime/cdc_source.h"

#include "fjord/runtime/cdc_decode.h"

#include <algorithm>
#include <thread>
#include "fjord/runtime/postgres_source.h"

namespace fjord::runtime {

Result<std::unique_ptr<CdcDecoder>> CdcDecoder::Make(const std::string& format,
                                                     const cdc::TypeMapping& mapping, int threads) {
  std::unique_ptr<CdcDecoder> decoder(new CdcDecoder());
  for (int i = 0; i < std::max(1, threads); ++i) {
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<cdc::CdcFormat> f, cdc::MakeCdcFormat(format, mapping));
    decoder->formats_.push_back(std::move(f));
  }
  return decoder;
}

void CdcDecoder::DecodeAll(const std::vector<cdc::CdcMessage>& messages,
                           std::vector<DecodedMessage>* out) {
  out->clear();
  out->resize(messages.size());
  auto range = [&](size_t t, size_t from, size_t to) {
    for (size_t i = from; i < to; ++i) {
      DecodedMessage& d = (*out)[i];
      d.status = formats_[t]->Decode(messages[i], &d.records);
    }
  };
  // Threads only pay off for batches of some size (a thread costs tens of microseconds).
  size_t threads = std::min(formats_.size(), std::max<size_t>(1, messages.size() / 64));
  size_t per = (messages.size() + threads - 1) / std::max<size_t>(1, threads);
  std::vector<std::thread> helpers;
  for (size_t t = 1; t < threads; ++t) {
    size_t from = std::min(messages.size(), t * per);
    size_t to = std::min(messages.size(), from + per);
    helpers.emplace_back(range, t, from, to);
  }
  range(0, 0, std::min(messages.size(), per));
  for (std::thread& h : helpers) h.join();
}

Result<bool> TakeDecoded(DecodedMessage decoded, const cdc::CdcMessage& message, const CdcCut& cut,
                         bool dead_letter, std::vector<cdc::CdcRecord>* out,
                         const std::function<void(const std::string& error)>& letter) {
  if (!decoded.status.ok()) {
    if (!dead_letter || decoded.status.code() != StatusCode::kInvalid) return decoded.status;
    letter(decoded.status.ToString());
    return true;
  }
  for (cdc::CdcRecord& r : decoded.records) {
    r.origin = message.origin;
    r.kafka = message.kafka;
  }
  if (!out->empty()) {
    for (const cdc::CdcRecord& r : decoded.records) {
      if (cut(r)) return false;
    }
  }
  for (cdc::CdcRecord& r : decoded.records) out->push_back(std::move(r));
  return true;
}

Result<std::unique_ptr<CdcSource>> MakeCdcSource(const JobSpec& spec) {
  if (spec.source.type == "postgres") {
    PostgresSourceSpec pg = spec.source.postgres;
    auto source = MakePostgresSource(pg);
    if (!source.ok()) return source.status().WithContext(spec.file + ": source");
    return source;
  }
  FJORD_ASSIGN_OR_RAISE(cdc::TypeMapping mapping,
                        cdc::TypeMapping::Parse(spec.source.type_mapping));
  FJORD_ASSIGN_OR_RAISE(
      std::unique_ptr<CdcDecoder> decoder,
      CdcDecoder::Make(spec.source.cdc_format, mapping, spec.source.decode_threads));
  if (spec.source.type == "files") return MakeFilesCdcSource(spec.source, std::move(decoder));
  if (spec.source.type == "kafka") return MakeKafkaCdcSource(spec.source, std::move(decoder));
  return Status::Invalid(spec.file, ": source.type ", spec.source.type,
                         " has no CDC format (files or kafka)");
}

}  // namespace fjord::runtime
