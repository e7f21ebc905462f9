#include "fjord/format/bucket.h"

#include <bit>
#include <cstring>

namespace fjord {

namespace {

static_assert(std::endian::native == std::endian::little,
              "the hash reads little-endian words straight from memory, as Java does");

constexpr uint32_t kC1 = 0xcc9e2d51;
constexpr uint32_t kC2 = 0x1b873593;

inline uint32_t MixK1(uint32_t k1) {
  k1 *= kC1;
  k1 = std::rotl(k1, 15);
  return k1 * kC2;
}

inline uint32_t MixH1(uint32_t h1, uint32_t k1) {
  h1 ^= k1;
  h1 = std::rotl(h1, 13);
  return h1 * 5 + 0xe6546b64;
}

inline uint32_t Finalize(uint32_t h1, uint32_t length) {
  h1 ^= length;
  h1 ^= h1 >> 16;
  h1 *= 0x85ebca6b;
  h1 ^= h1 >> 13;
  h1 *= 0xc2b2ae35;
  h1 ^= h1 >> 16;
  return h1;
}

}  // namespace

int32_t HashBinaryRow(std::string_view row_bytes) {
  const char* p = row_bytes.data();
  const size_t n = row_bytes.size();
  const size_t aligned = n - n % 4;
  uint32_t h1 = kPaimonHashSeed;
  for (size_t i = 0; i < aligned; i += 4) {
    uint32_t k1;
    std::memcpy(&k1, p + i, 4);
    h1 = MixH1(h1, MixK1(k1));
  }
  for (size_t i = aligned; i < n; ++i) {
    auto byte = static_cast<int32_t>(static_cast<signed char>(p[i]));
    h1 = MixH1(h1, MixK1(static_cast<uint32_t>(byte)));
  }
  return static_cast<int32_t>(Finalize(h1, static_cast<uint32_t>(n)));
}

}  // namespace fjord
