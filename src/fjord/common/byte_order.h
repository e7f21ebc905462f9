// Fixed-width integers in a stated byte order, read from and written to byte strings. Formats
// fix their order (Java's DataOutput is big-endian, Roaring's portable form and Fjord's own
// lookup files little-endian); these helpers say which, whatever the machine's order is.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace fjord {

namespace byte_order_internal {

template <typename U>
inline U LoadLittle(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  U v = 0;
  for (size_t i = 0; i < sizeof(U); ++i) v |= static_cast<U>(b[i]) << (8 * i);
  return v;
}

template <typename U>
inline U LoadBig(const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  U v = 0;
  for (size_t i = 0; i < sizeof(U); ++i) v = static_cast<U>((v << 8) | b[i]);
  return v;
}

template <typename U>
inline void StoreLittle(void* p, U v) {
  auto* b = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < sizeof(U); ++i) b[i] = static_cast<unsigned char>(v >> (8 * i));
}

template <typename U>
inline void StoreBig(void* p, U v) {
  auto* b = static_cast<unsigned char*>(p);
  for (size_t i = 0; i < sizeof(U); ++i) {
    b[i] = static_cast<unsigned char>(v >> (8 * (sizeof(U) - 1 - i)));
  }
}

}  // namespace byte_order_internal

inline uint16_t LoadLittleEndian16(const void* p) {
  return byte_order_internal::LoadLittle<uint16_t>(p);
}
inline uint32_t LoadLittleEndian32(const void* p) {
  return byte_order_internal::LoadLittle<uint32_t>(p);
}
inline uint64_t LoadLittleEndian64(const void* p) {
  return byte_order_internal::LoadLittle<uint64_t>(p);
}
inline uint32_t LoadBigEndian32(const void* p) { return byte_order_internal::LoadBig<uint32_t>(p); }

// Writes over the bytes at `p` (which must hold them).
inline void StoreBigEndian32(void* p, uint32_t v) { byte_order_internal::StoreBig(p, v); }

// Appends to `out`.
inline void AppendLittleEndian16(std::string* out, uint16_t v) {
  char b[2];
  byte_order_internal::StoreLittle(b, v);
  out->append(b, 2);
}
inline void AppendLittleEndian32(std::string* out, uint32_t v) {
  char b[4];
  byte_order_internal::StoreLittle(b, v);
  out->append(b, 4);
}
inline void AppendLittleEndian64(std::string* out, uint64_t v) {
  char b[8];
  byte_order_internal::StoreLittle(b, v);
  out->append(b, 8);
}
inline void AppendBigEndian32(std::string* out, uint32_t v) {
  char b[4];
  byte_order_internal::StoreBig(b, v);
  out->append(b, 4);
}

}  // namespace fjord
