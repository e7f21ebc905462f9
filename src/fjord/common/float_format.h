// Text forms of FLOAT and DOUBLE values, shared by the value printer, the filter printer, the
// canonical JSON rows and partition paths.
#pragma once

#include <string>

namespace fjord {

// The shortest digits that read back to the same finite value (std::to_chars): "1.5", "0.001",
// "1e+16", "-0". From a magnitude of `scientific_from` up (when it is > 0) the value is written
// in scientific notation, where the plain form would spell out the binary value's exact integer
// digits (999999999999999868928 for 9.999999999999999e+20).
std::string ShortestFloatDigits(double value, double scientific_from = 0);
std::string ShortestFloatDigits(float value, double scientific_from = 0);

// ShortestFloatDigits for finite values; "NaN", "Infinity" and "-Infinity" otherwise.
std::string ShortestFloatText(double value);
std::string ShortestFloatText(float value);

// Java's Double.toString / Float.toString: "1.0", "0.001", "1.0E7", "1.0E-4", "-0.0", "NaN",
// "-Infinity". As Java 17 (and 8..18) prints them: integral values below 2^63 from their exact
// integer (FLOAT -218289184 is -2.18289184E8), others with the shortest digits, at least two in
// the E form, nearest the exact value (Float.MIN_VALUE is 1.4E-45). JDK 8..18 may still print
// one digit more than the shortest for some non-integral values; JDK 19+ prints the shortest.
std::string JavaDoubleText(double value);
std::string JavaFloatText(float value);

}  // namespace fjord
