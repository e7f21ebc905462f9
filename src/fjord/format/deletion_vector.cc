#include "fjord/format/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

namespace fjord {

namespace {

constexpr uint32_t kSerialCookieNoRun = 12346;
constexpr uint32_t kSerialCookie = 12347;
constexpr int32_t kMagic32 = 1581511376;
constexpr int32_t kMagic64 = 1681511377;

uint32_t ReadLE32(const char* p) {
  uint32_t v;
  std::memcpy(&v, p, 4);
  return v;
}
uint16_t ReadLE16(const char* p) {
  uint16_t v;
  std::memcpy(&v, p, 2);
  return v;
}
uint64_t ReadLE64(const char* p) {
  uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}
uint32_t ReadBE32(const char* p) {
  auto b = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{b[0]} << 24) | (uint32_t{b[1]} << 16) | (uint32_t{b[2]} << 8) | b[3];
}

}  // namespace

bool DeletionVector::IsDeleted(int64_t position) const {
  return std::binary_search(positions_.begin(), positions_.end(), position);
}

Status DecodePortableRoaring(std::string_view bytes, uint64_t high_bits, std::vector<int64_t>* out,
                             size_t* consumed) {
  size_t pos = 0;
  auto need = [&](size_t n) -> Status {
    if (bytes.size() - pos < n) {
      return Status::Corruption("roaring bitmap truncated at byte ", pos, " (need ", n, " more)");
    }
    return Status::OK();
  };
  FJORD_RETURN_NOT_OK(need(4));
  uint32_t cookie = ReadLE32(bytes.data());
  pos += 4;
  uint32_t containers = 0;
  bool has_runs = false;
  std::string_view run_flags;
  if ((cookie & 0xFFFF) == kSerialCookie) {
    has_runs = true;
    containers = (cookie >> 16) + 1;
    size_t flag_bytes = (containers + 7) / 8;
    FJORD_RETURN_NOT_OK(need(flag_bytes));
    run_flags = bytes.substr(pos, flag_bytes);
    pos += flag_bytes;
  } else if (cookie == kSerialCookieNoRun) {
    FJORD_RETURN_NOT_OK(need(4));
    containers = ReadLE32(bytes.data() + pos);
    pos += 4;
  } else {
    return Status::Corruption("not a portable roaring bitmap (cookie ", cookie, ")");
  }
  if (containers > 65536)
    return Status::Corruption("roaring bitmap with ", containers, " containers");
  FJORD_RETURN_NOT_OK(need(size_t{containers} * 4));
  std::vector<uint16_t> keys(containers), cards(containers);
  for (uint32_t i = 0; i < containers; ++i) {
    keys[i] = ReadLE16(bytes.data() + pos);
    cards[i] = ReadLE16(bytes.data() + pos + 2);
    pos += 4;
  }
  if (!has_runs || containers >= 4) {
    FJORD_RETURN_NOT_OK(need(size_t{containers} * 4));
    pos += size_t{containers} * 4;  // offsets: not needed for a sequential read
  }
  for (uint32_t i = 0; i < containers; ++i) {
    uint64_t base = (high_bits << 32) | (uint64_t{keys[i]} << 16);
    uint32_t card = uint32_t{cards[i]} + 1;
    bool is_run = has_runs && (static_cast<unsigned char>(run_flags[i / 8]) >> (i % 8)) & 1;
    if (is_run) {
      FJORD_RETURN_NOT_OK(need(2));
      uint16_t runs = ReadLE16(bytes.data() + pos);
      pos += 2;
      FJORD_RETURN_NOT_OK(need(size_t{runs} * 4));
      for (uint16_t r = 0; r < runs; ++r) {
        uint32_t start = ReadLE16(bytes.data() + pos);
        uint32_t len = ReadLE16(bytes.data() + pos + 2);
        pos += 4;
        for (uint32_t v = start; v <= start + len && v < 65536; ++v) {
          out->push_back(static_cast<int64_t>(base + v));
        }
      }
    } else if (card > 4096) {
      FJORD_RETURN_NOT_OK(need(8192));
      for (uint32_t w = 0; w < 1024; ++w) {
        uint64_t word = ReadLE64(bytes.data() + pos + w * 8);
        while (word != 0) {
          int bit = __builtin_ctzll(word);
          out->push_back(static_cast<int64_t>(base + w * 64 + static_cast<uint32_t>(bit)));
          word &= word - 1;
        }
      }
      pos += 8192;
    } else {
      FJORD_RETURN_NOT_OK(need(size_t{card} * 2));
      for (uint32_t c = 0; c < card; ++c) {
        out->push_back(static_cast<int64_t>(base + ReadLE16(bytes.data() + pos + c * 2)));
      }
      pos += size_t{card} * 2;
    }
  }
  *consumed = pos;
  return Status::OK();
}

Result<DeletionVector> DeletionVector::Decode(std::string_view file, int64_t offset, int64_t length,
                                              std::string_view source) {
  auto fail = [&](const std::string& what) {
    return Status::Corruption(source, ": deletion vector at offset ", offset, ": ", what);
  };
  if (offset < 0 || length < 4 || static_cast<uint64_t>(offset) + 8 > file.size()) {
    return fail("range outside the file");
  }
  const char* p = file.data() + offset;
  auto size = static_cast<int64_t>(ReadBE32(p));
  if (size < 4 || static_cast<uint64_t>(offset) + 8 + static_cast<uint64_t>(size) > file.size()) {
    return fail("size field " + std::to_string(size) + " exceeds the file");
  }
  std::string_view body(p + 4, static_cast<size_t>(size));  // magic + bitmap
  uint32_t crc_stored = ReadBE32(p + 4 + size);
  uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  if (static_cast<uint32_t>(crc) != crc_stored) return fail("CRC mismatch");
  std::vector<int64_t> positions;
  auto magic_be = static_cast<int32_t>(ReadBE32(body.data()));
  auto magic_le = static_cast<int32_t>(ReadLE32(body.data()));
  std::string_view bitmap = body.substr(4);
  if (magic_be == kMagic32) {
    size_t consumed = 0;
    Status st = DecodePortableRoaring(bitmap, 0, &positions, &consumed);
    if (!st.ok()) return fail(st.message());
  } else if (magic_le == kMagic64) {
    if (bitmap.size() < 8) return fail("64-bit vector truncated");
    uint64_t count = ReadLE64(bitmap.data());
    size_t pos = 8;
    if (count > bitmap.size()) return fail("64-bit vector with too many bitmaps");
    for (uint64_t i = 0; i < count; ++i) {
      if (bitmap.size() - pos < 4) return fail("64-bit vector truncated");
      uint32_t high = ReadLE32(bitmap.data() + pos);
      pos += 4;
      size_t consumed = 0;
      Status st = DecodePortableRoaring(bitmap.substr(pos), high, &positions, &consumed);
      if (!st.ok()) return fail(st.message());
      pos += consumed;
    }
  } else {
    return fail("unknown magic number");
  }
  std::sort(positions.begin(), positions.end());
  return DeletionVector(std::move(positions));
}

}  // namespace fjord
