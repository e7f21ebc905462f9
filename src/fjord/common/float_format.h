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

// Java's Double.toString / Float.toString on the shortest digits: "1.0", "0.001", "1.0E7",
// "1.0E-4", "-0.0", "NaN", "-Infinity".
std::string JavaDoubleText(double value);
std::string JavaFloatText(float value);

}  // namespace fjord
