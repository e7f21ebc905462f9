// Fjord's version and the build it runs on.
#pragma once

#include <string>
#include <vector>

namespace fjord {

// "0.1.0".
const char* FjordVersion();
// The Arrow C++ version loaded at run time ("26.0.1").
std::string ArrowRuntimeVersion();
// The Arrow C++ version compiled against.
std::string ArrowBuildVersion();
// Features of this build, e.g. "parquet", "orc", "s3", "zstd".
std::vector<std::string> CompiledFeatures();

}  // namespace fjord
