#include "fjord/common/ids.h"

#include <cstdint>
#include <mutex>
#include <random>

namespace fjord {

std::string RandomUuid() {
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  uint64_t hi, lo;
  {
    std::lock_guard<std::mutex> lock(mu);
    hi = rng();
    lo = rng();
  }
  hi = (hi & 0xFFFFFFFFFFFF0FFFULL) | 0x0000000000004000ULL;  // version 4
  lo = (lo & 0x3FFFFFFFFFFFFFFFULL) | 0x8000000000000000ULL;  // RFC 4122 variant
  static const char* kHex = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  for (int i = 15; i >= 0; --i) {
    out += kHex[(hi >> (i * 4)) & 15];
    if (i == 8 || i == 4) out += '-';
  }
  out += '-';
  for (int i = 15; i >= 0; --i) {
    out += kHex[(lo >> (i * 4)) & 15];
    if (i == 12) out += '-';
  }
  return out;
}

}  // namespace fjord
