#include "fjord/format/deletion_vector.h"

#include <zlib.h>

#include <algorithm>
#include <cstring>

#include "fjord/common/byte_order.h"

namespace fjord {

namespace {

constexpr uint32_t kSerialCookieNoRun = 12346;
constexpr uint32_t kSerialCookie = 12347;
constexpr int32_t kMagic32 = 1581511376;
constexpr int32_t kMagic64 = 1681511377;

// Roaring's container kinds and the bytes each takes in the serialization.
enum class ContainerKind { kArray, kBitmap, kRun };

struct ContainerPlan {
  uint16_t key = 0;
  size_t begin = 0, end = 0;  // values [begin, end) of the input
  uint32_t runs = 0;
  ContainerKind kind = ContainerKind::kArray;
  uint32_t bytes() const {
    switch (kind) {
      case ContainerKind::kArray:
        return 2 * static_cast<uint32_t>(end - begin);
      case ContainerKind::kBitmap:
        return 8192;
      case ContainerKind::kRun:
        return 2 + 4 * runs;
    }
    return 0;
  }
};

}  // namespace

void EncodePortableRoaring(const uint32_t* low, size_t n, std::string* out) {
  std::vector<ContainerPlan> plans;
  for (size_t i = 0; i < n;) {
    ContainerPlan c;
    c.key = static_cast<uint16_t>(low[i] >> 16);
    c.begin = i;
    for (; i < n && (low[i] >> 16) == c.key; ++i) {
      if (i == c.begin || low[i] != low[i - 1] + 1) ++c.runs;
    }
    c.end = i;
    // A bitmap built by adds has an array container up to 4096 values, a bitset beyond;
    // runOptimize() then takes a run container only when its size is strictly smaller.
    const uint32_t card = static_cast<uint32_t>(c.end - c.begin);
    const uint32_t run_bytes = 2 + 4 * c.runs;
    if (card <= 4096) {
      c.kind = 2 * card > run_bytes ? ContainerKind::kRun : ContainerKind::kArray;
    } else {
      c.kind = 8192 > run_bytes ? ContainerKind::kRun : ContainerKind::kBitmap;
    }
    plans.push_back(c);
  }
  const auto size = static_cast<uint32_t>(plans.size());
  bool has_run = false;
  for (const ContainerPlan& c : plans) has_run |= c.kind == ContainerKind::kRun;
  uint32_t start = 0;
  if (has_run) {
    AppendLittleEndian32(out, kSerialCookie | ((size - 1) << 16));
    std::string flags((size + 7) / 8, '\0');
    for (uint32_t k = 0; k < size; ++k) {
      if (plans[k].kind == ContainerKind::kRun) flags[k / 8] |= static_cast<char>(1 << (k % 8));
    }
    out->append(flags);
    start = 4 + (size < 4 ? 4 : 8) * size + static_cast<uint32_t>(flags.size());
  } else {
    AppendLittleEndian32(out, kSerialCookieNoRun);
    AppendLittleEndian32(out, size);
    start = 8 + 8 * size;
  }
  for (const ContainerPlan& c : plans) {
    AppendLittleEndian16(out, c.key);
    AppendLittleEndian16(out, static_cast<uint16_t>(c.end - c.begin - 1));
  }
  if (!has_run || size >= 4) {
    for (const ContainerPlan& c : plans) {
      AppendLittleEndian32(out, start);
      start += c.bytes();
    }
  }
  for (const ContainerPlan& c : plans) {
    switch (c.kind) {
      case ContainerKind::kArray:
        for (size_t i = c.begin; i < c.end; ++i)
          AppendLittleEndian16(out, static_cast<uint16_t>(low[i]));
        break;
      case ContainerKind::kBitmap: {
        std::vector<uint64_t> words(1024, 0);
        for (size_t i = c.begin; i < c.end; ++i) {
          auto v = static_cast<uint16_t>(low[i]);
          words[v / 64] |= uint64_t{1} << (v % 64);
        }
        for (uint64_t w : words) AppendLittleEndian64(out, w);
        break;
      }
      case ContainerKind::kRun: {
        AppendLittleEndian16(out, static_cast<uint16_t>(c.runs));
        for (size_t i = c.begin; i < c.end;) {
          size_t j = i + 1;
          while (j < c.end && low[j] == low[j - 1] + 1) ++j;
          AppendLittleEndian16(out, static_cast<uint16_t>(low[i]));
          AppendLittleEndian16(out, static_cast<uint16_t>(j - i - 1));
          i = j;
        }
        break;
      }
    }
  }
}

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
  uint32_t cookie = LoadLittleEndian32(bytes.data());
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
    containers = LoadLittleEndian32(bytes.data() + pos);
    pos += 4;
  } else {
    return Status::Corruption("not a portable roaring bitmap (cookie ", cookie, ")");
  }
  if (containers > 65536)
    return Status::Corruption("roaring bitmap with ", containers, " containers");
  FJORD_RETURN_NOT_OK(need(size_t{containers} * 4));
  std::vector<uint16_t> keys(containers), cards(containers);
  for (uint32_t i = 0; i < containers; ++i) {
    keys[i] = LoadLittleEndian16(bytes.data() + pos);
    cards[i] = LoadLittleEndian16(bytes.data() + pos + 2);
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
      uint16_t runs = LoadLittleEndian16(bytes.data() + pos);
      pos += 2;
      FJORD_RETURN_NOT_OK(need(size_t{runs} * 4));
      for (uint16_t r = 0; r < runs; ++r) {
        uint32_t start = LoadLittleEndian16(bytes.data() + pos);
        uint32_t len = LoadLittleEndian16(bytes.data() + pos + 2);
        pos += 4;
        for (uint32_t v = start; v <= start + len && v < 65536; ++v) {
          out->push_back(static_cast<int64_t>(base + v));
        }
      }
    } else if (card > 4096) {
      FJORD_RETURN_NOT_OK(need(8192));
      for (uint32_t w = 0; w < 1024; ++w) {
        uint64_t word = LoadLittleEndian64(bytes.data() + pos + w * 8);
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
        out->push_back(static_cast<int64_t>(base + LoadLittleEndian16(bytes.data() + pos + c * 2)));
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
  auto size = static_cast<int64_t>(LoadBigEndian32(p));
  if (size < 4 || static_cast<uint64_t>(offset) + 8 + static_cast<uint64_t>(size) > file.size()) {
    return fail("size field " + std::to_string(size) + " exceeds the file");
  }
  // Java's DeletionVector.read: the range's length is the size field (32-bit) or the whole entry
  // (64-bit); a mismatch means the range does not point at this entry.
  const bool is64 = static_cast<int32_t>(LoadLittleEndian32(p + 4)) == kMagic64;
  if (length != (is64 ? size + 8 : size)) {
    return fail("range length " + std::to_string(length) + " does not match the entry's size " +
                std::to_string(size));
  }
  std::string_view body(p + 4, static_cast<size_t>(size));  // magic + bitmap
  uint32_t crc_stored = LoadBigEndian32(p + 4 + size);
  uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  if (static_cast<uint32_t>(crc) != crc_stored) return fail("CRC mismatch");
  std::vector<int64_t> positions;
  auto magic_be = static_cast<int32_t>(LoadBigEndian32(body.data()));
  auto magic_le = static_cast<int32_t>(LoadLittleEndian32(body.data()));
  std::string_view bitmap = body.substr(4);
  if (magic_be == kMagic32) {
    size_t consumed = 0;
    Status st = DecodePortableRoaring(bitmap, 0, &positions, &consumed);
    if (!st.ok()) return fail(st.message());
  } else if (magic_le == kMagic64) {
    if (bitmap.size() < 8) return fail("64-bit vector truncated");
    uint64_t count = LoadLittleEndian64(bitmap.data());
    size_t pos = 8;
    if (count > bitmap.size()) return fail("64-bit vector with too many bitmaps");
    for (uint64_t i = 0; i < count; ++i) {
      if (bitmap.size() - pos < 4) return fail("64-bit vector truncated");
      uint32_t high = LoadLittleEndian32(bitmap.data() + pos);
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

Result<std::string> DeletionVector::Encode(bool bitmap64) const {
  const int64_t max = bitmap64 ? kMaxDeletionPosition64 : kMaxDeletionPosition32;
  if (!positions_.empty() && (positions_.front() < 0 || positions_.back() > max)) {
    int64_t bad = positions_.front() < 0 ? positions_.front() : positions_.back();
    return Status::Invalid("deletion vector position ", bad, " is outside the ",
                           bitmap64 ? "64" : "32", "-bit layout's range 0..", max);
  }
  std::string out(4, '\0');  // the size field, set below
  std::vector<uint32_t> low;
  if (!bitmap64) {
    AppendBigEndian32(&out, static_cast<uint32_t>(kMagic32));
    low.reserve(positions_.size());
    for (int64_t p : positions_) low.push_back(static_cast<uint32_t>(p));
    EncodePortableRoaring(low.data(), low.size(), &out);
  } else {
    // Java's OptimizedRoaringBitmap64 keeps one 32-bit bitmap per high half from 0 to the
    // largest, empty ones included, and writes them all.
    AppendLittleEndian32(&out, static_cast<uint32_t>(kMagic64));
    uint64_t count = positions_.empty() ? 0 : (static_cast<uint64_t>(positions_.back()) >> 32) + 1;
    // Each high half costs at least 12 bytes (key and an empty bitmap); Java's 2 GB limit.
    if (count * 12 > static_cast<uint64_t>(INT32_MAX)) {
      return Status::Invalid("deletion vector with position ", positions_.back(),
                             " is larger than 2 GB encoded in the 64-bit layout");
    }
    AppendLittleEndian64(&out, count);
    size_t i = 0;
    for (uint64_t high = 0; high < count; ++high) {
      AppendLittleEndian32(&out, static_cast<uint32_t>(high));
      low.clear();
      for (; i < positions_.size() && (static_cast<uint64_t>(positions_[i]) >> 32) == high; ++i) {
        low.push_back(static_cast<uint32_t>(positions_[i]));
      }
      EncodePortableRoaring(low.data(), low.size(), &out);
    }
  }
  const size_t size = out.size() - 4;
  if (size + 8 > static_cast<size_t>(INT32_MAX)) {
    return Status::Invalid("deletion vector of ", positions_.size(),
                           " positions is larger than 2 GB encoded");
  }
  StoreBigEndian32(out.data(), static_cast<uint32_t>(size));
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data() + 4), static_cast<uInt>(size));
  AppendBigEndian32(&out, static_cast<uint32_t>(crc));
  return out;
}

DeletionBitmap::DeletionBitmap(const DeletionVector& v) { Merge(v); }

DeletionBitmap::Chunk* DeletionBitmap::FindChunk(int64_t key) {
  return const_cast<Chunk*>(static_cast<const DeletionBitmap*>(this)->FindChunk(key));
}

const DeletionBitmap::Chunk* DeletionBitmap::FindChunk(int64_t key) const {
  if (chunks_.empty()) return nullptr;
  if (chunks_.back().key == key) return &chunks_.back();  // positions mostly come in order
  auto it = std::lower_bound(chunks_.begin(), chunks_.end(), key,
                             [](const Chunk& c, int64_t k) { return c.key < k; });
  return it != chunks_.end() && it->key == key ? &*it : nullptr;
}

bool DeletionBitmap::Delete(int64_t position) {
  const int64_t key = position >> 16;
  const auto low = static_cast<uint16_t>(position & 0xFFFF);
  Chunk* c = FindChunk(key);
  if (c == nullptr) {
    auto it = std::lower_bound(chunks_.begin(), chunks_.end(), key,
                               [](const Chunk& ch, int64_t k) { return ch.key < k; });
    c = &*chunks_.insert(it, Chunk{key, 0, {}, {}});
  }
  if (!c->bits.empty()) {
    uint64_t& word = c->bits[low / 64];
    const uint64_t bit = uint64_t{1} << (low % 64);
    if (word & bit) return false;
    word |= bit;
  } else {
    auto at = c->array.empty() || c->array.back() < low
                  ? c->array.end()
                  : std::lower_bound(c->array.begin(), c->array.end(), low);
    if (at != c->array.end() && *at == low) return false;
    c->array.insert(at, low);
    if (c->array.size() > 4096) {
      c->bits.assign(1024, 0);
      for (uint16_t v : c->array) c->bits[v / 64] |= uint64_t{1} << (v % 64);
      c->array.clear();
      c->array.shrink_to_fit();
    }
  }
  ++c->count;
  ++cardinality_;
  return true;
}

bool DeletionBitmap::IsDeleted(int64_t position) const {
  const Chunk* c = FindChunk(position >> 16);
  if (c == nullptr) return false;
  const auto low = static_cast<uint16_t>(position & 0xFFFF);
  if (!c->bits.empty()) return (c->bits[low / 64] >> (low % 64)) & 1;
  return std::binary_search(c->array.begin(), c->array.end(), low);
}

void DeletionBitmap::Merge(const DeletionBitmap& other) {
  if (&other == this) return;
  for (const Chunk& c : other.chunks_) {
    const int64_t base = c.key << 16;
    if (!c.bits.empty()) {
      for (uint32_t w = 0; w < 1024; ++w) {
        for (uint64_t word = c.bits[w]; word != 0; word &= word - 1) {
          Delete(base + w * 64 + __builtin_ctzll(word));
        }
      }
    } else {
      for (uint16_t v : c.array) Delete(base + v);
    }
  }
}

void DeletionBitmap::Merge(const DeletionVector& other) {
  for (int64_t p : other.positions()) Delete(p);
}

DeletionVector DeletionBitmap::Snapshot() const {
  std::vector<int64_t> positions;
  positions.reserve(static_cast<size_t>(cardinality_));
  for (const Chunk& c : chunks_) {
    const int64_t base = c.key << 16;
    if (!c.bits.empty()) {
      for (uint32_t w = 0; w < 1024; ++w) {
        for (uint64_t word = c.bits[w]; word != 0; word &= word - 1) {
          positions.push_back(base + w * 64 + __builtin_ctzll(word));
        }
      }
    } else {
      for (uint16_t v : c.array) positions.push_back(base + v);
    }
  }
  return DeletionVector(std::move(positions));
}

}  // namespace fjord
