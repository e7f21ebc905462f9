#include "fjord/format/orc/byte_rle.h"

#include <algorithm>
#include <cstring>

namespace fjord::orc {

ByteRleDecoder::ByteRleDecoder(std::string_view data)
    : pos_(reinterpret_cast<const uint8_t*>(data.data())), end_(pos_ + data.size()) {}

Status ByteRleDecoder::ReadHeader() {
  if (pos_ == end_) return Status::Corruption("byte RLE: stream ends before all values are read");
  auto control = static_cast<int8_t>(*pos_++);
  if (control >= 0) {
    if (pos_ == end_) return Status::Corruption("byte RLE: truncated run");
    repeat_ = true;
    remaining_ = control + 3;
    value_ = *pos_++;
  } else {
    repeat_ = false;
    remaining_ = -static_cast<int64_t>(control);
    if (end_ - pos_ < remaining_) {
      return Status::Corruption("byte RLE: ", remaining_, " literals claimed but only ",
                                end_ - pos_, " bytes remain");
    }
  }
  return Status::OK();
}

Status ByteRleDecoder::Next(uint8_t* out, int64_t n) {
  while (n > 0) {
    if (remaining_ == 0) FJORD_RETURN_NOT_OK(ReadHeader());
    int64_t m = std::min(n, remaining_);
    if (repeat_) {
      std::memset(out, value_, static_cast<size_t>(m));
    } else {
      std::memcpy(out, pos_, static_cast<size_t>(m));
      pos_ += m;
    }
    out += m;
    n -= m;
    remaining_ -= m;
  }
  return Status::OK();
}

Status BoolRleDecoder::Next(uint8_t* out, int64_t n) {
  int64_t i = 0;
  // Finish the current byte, then whole bytes, then start the next.
  while (i < n && bits_left_ > 0) out[i++] = (current_ >> --bits_left_) & 1;
  while (n - i >= 8) {
    uint8_t b = 0;
    FJORD_RETURN_NOT_OK(bytes_.Next(&b, 1));
    for (int bit = 7; bit >= 0; --bit) out[i++] = (b >> bit) & 1;
  }
  if (i < n) {
    FJORD_RETURN_NOT_OK(bytes_.Next(&current_, 1));
    bits_left_ = 8;
    while (i < n) out[i++] = (current_ >> --bits_left_) & 1;
  }
  return Status::OK();
}

}  // namespace fjord::orc
