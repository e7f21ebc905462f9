#include "fjord/common/byte_order.h"

#include <gtest/gtest.h>

#include <string>

namespace fjord {
namespace {

TEST(ByteOrder, BigEndianPutsTheMostSignificantByteFirst) {
  std::string out;
  AppendBigEndian32(&out, 0x01020304u);
  EXPECT_EQ(out, std::string("\x01\x02\x03\x04", 4));
  EXPECT_EQ(LoadBigEndian32(out.data()), 0x01020304u);
  StoreBigEndian32(out.data(), 0xA0B0C0D0u);
  EXPECT_EQ(out, std::string("\xA0\xB0\xC0\xD0", 4));
  EXPECT_EQ(LoadBigEndian32(out.data()), 0xA0B0C0D0u);
}

TEST(ByteOrder, LittleEndianPutsTheLeastSignificantByteFirst) {
  std::string out;
  AppendLittleEndian16(&out, 0x0102u);
  AppendLittleEndian32(&out, 0x03040506u);
  AppendLittleEndian64(&out, 0x0708090A0B0C0DFEull);
  EXPECT_EQ(out, std::string("\x02\x01\x06\x05\x04\x03\xFE\x0D\x0C\x0B\x0A\x09\x08\x07", 14));
  EXPECT_EQ(LoadLittleEndian16(out.data()), 0x0102u);
  EXPECT_EQ(LoadLittleEndian32(out.data() + 2), 0x03040506u);
  EXPECT_EQ(LoadLittleEndian64(out.data() + 6), 0x0708090A0B0C0DFEull);
}

TEST(ByteOrder, SignedValuesRoundTripThroughTheirBits) {
  std::string out;
  AppendBigEndian32(&out, static_cast<uint32_t>(-2));
  EXPECT_EQ(out, std::string("\xFF\xFF\xFF\xFE", 4));
  EXPECT_EQ(static_cast<int32_t>(LoadBigEndian32(out.data())), -2);
}

}  // namespace
}  // namespace fjord
