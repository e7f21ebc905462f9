#include "fjord/common/float_format.h"

#include <charconv>
#include <cmath>
#include <limits>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

double ReadBack(const std::string& text) {
  double v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  EXPECT_EQ(ec, std::errc()) << text;
  EXPECT_EQ(ptr, text.data() + text.size()) << text;
  return v;
}

TEST(FloatFormatTest, ShortestDigits) {
  EXPECT_EQ(ShortestFloatDigits(0.1), "0.1");
  EXPECT_EQ(ShortestFloatDigits(1.5), "1.5");
  EXPECT_EQ(ShortestFloatDigits(-2.0), "-2");
  EXPECT_EQ(ShortestFloatDigits(-0.0), "-0");
  EXPECT_EQ(ShortestFloatDigits(1e16), "1e+16");
  EXPECT_EQ(ShortestFloatDigits(0.1f), "0.1");
  EXPECT_EQ(ShortestFloatDigits(3.4028235e38f), "3.4028235e+38");
}

TEST(FloatFormatTest, ScientificFromAMagnitude) {
  EXPECT_EQ(ShortestFloatDigits(9.999999999999999e20, 1e16), "9.999999999999999e+20");
  EXPECT_EQ(ShortestFloatDigits(-1e16, 1e16), "-1e+16");
  EXPECT_EQ(ShortestFloatDigits(123.25, 1e16), "123.25");
  // Without the threshold the plain digits still read back to the same value.
  EXPECT_EQ(ReadBack(ShortestFloatDigits(9.999999999999999e20)), 9.999999999999999e20);
}

TEST(FloatFormatTest, ShortestDigitsRoundTrip) {
  for (double v : {1.0 / 3, 2.0 / 3e-300, 1e-310, 6.02214076e23, 5e-324,
                   std::numeric_limits<double>::max(), -123456.789}) {
    EXPECT_EQ(ReadBack(ShortestFloatDigits(v)), v);
  }
}

TEST(FloatFormatTest, NonFiniteNames) {
  double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(ShortestFloatText(std::nan("")), "NaN");
  EXPECT_EQ(ShortestFloatText(inf), "Infinity");
  EXPECT_EQ(ShortestFloatText(-inf), "-Infinity");
  EXPECT_EQ(ShortestFloatText(-std::numeric_limits<float>::infinity()), "-Infinity");
  EXPECT_EQ(ShortestFloatText(2.5), "2.5");
}

TEST(FloatFormatTest, JavaToString) {
  EXPECT_EQ(JavaDoubleText(1.0), "1.0");
  EXPECT_EQ(JavaDoubleText(-0.0), "-0.0");
  EXPECT_EQ(JavaDoubleText(0.0), "0.0");
  EXPECT_EQ(JavaDoubleText(0.001), "0.001");
  EXPECT_EQ(JavaDoubleText(1e-4), "1.0E-4");
  EXPECT_EQ(JavaDoubleText(1234567.0), "1234567.0");
  EXPECT_EQ(JavaDoubleText(1e7), "1.0E7");
  EXPECT_EQ(JavaDoubleText(-1.25e10), "-1.25E10");
  EXPECT_EQ(JavaDoubleText(100.5), "100.5");
  EXPECT_EQ(JavaDoubleText(std::nan("")), "NaN");
  EXPECT_EQ(JavaDoubleText(-std::numeric_limits<double>::infinity()), "-Infinity");
  EXPECT_EQ(JavaFloatText(0.1f), "0.1");
  EXPECT_EQ(JavaFloatText(1e10f), "1.0E10");
  EXPECT_EQ(JavaFloatText(3.0f), "3.0");
}

}  // namespace
}  // namespace fjord
