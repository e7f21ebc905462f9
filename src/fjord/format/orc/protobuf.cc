#include "fjord/format/orc/protobuf.h"

namespace fjord::orc {

namespace {

constexpr uint64_t kMaxFieldNumber = (uint64_t{1} << 29) - 1;

}  // namespace

bool ReadVarint(std::string_view* in, uint64_t* out) {
  uint64_t result = 0;
  for (size_t i = 0; i < 10; ++i) {
    if (i >= in->size()) return false;
    auto b = static_cast<uint8_t>((*in)[i]);
    if (i == 9 && b > 1) return false;
    result |= static_cast<uint64_t>(b & 0x7f) << (7 * i);
    if ((b & 0x80) == 0) {
      in->remove_prefix(i + 1);
      *out = result;
      return true;
    }
  }
  return false;
}

Status ReadProtoField(std::string_view* data, ProtoField* f) {
  uint64_t tag = 0;
  if (!ReadVarint(data, &tag)) return Status::Corruption("truncated field tag");
  *f = ProtoField{};
  f->wire = static_cast<uint32_t>(tag & 7);
  uint64_t number = tag >> 3;
  if (number == 0 || number > kMaxFieldNumber) {
    return Status::Corruption("invalid field number ", number);
  }
  f->number = static_cast<uint32_t>(number);
  switch (f->wire) {
    case kVarint:
      if (!ReadVarint(data, &f->value)) {
        return Status::Corruption("truncated varint in field ", f->number);
      }
      return Status::OK();
    case kFixed64:
    case kFixed32: {
      size_t n = f->wire == kFixed64 ? 8 : 4;
      if (data->size() < n) return Status::Corruption("truncated field ", f->number);
      for (size_t i = 0; i < n; ++i) {
        f->value |= static_cast<uint64_t>(static_cast<uint8_t>((*data)[i])) << (8 * i);
      }
      data->remove_prefix(n);
      return Status::OK();
    }
    case kLengthDelimited: {
      uint64_t length = 0;
      if (!ReadVarint(data, &length)) {
        return Status::Corruption("truncated length of field ", f->number);
      }
      if (length > data->size()) {
        return Status::Corruption("field ", f->number, " claims ", length, " bytes but only ",
                                  data->size(), " remain");
      }
      f->bytes = data->substr(0, static_cast<size_t>(length));
      data->remove_prefix(static_cast<size_t>(length));
      return Status::OK();
    }
    default:
      return Status::Corruption("unsupported wire type ", f->wire, " in field ", f->number);
  }
}

}  // namespace fjord::orc
