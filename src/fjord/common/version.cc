#include "fjord/version.h"

#include <arrow/config.h>
#include <arrow/util/config.h>

#ifndef FJORD_VERSION_STRING
#error "FJORD_VERSION_STRING must be defined by the build"
#endif

namespace fjord {

const char* FjordVersion() { return FJORD_VERSION_STRING; }

std::string ArrowRuntimeVersion() { return arrow::GetBuildInfo().version_string; }

std::string ArrowBuildVersion() { return ARROW_VERSION_STRING; }

std::vector<std::string> CompiledFeatures() {
  std::vector<std::string> out = {"parquet", "avro"};
#ifdef ARROW_ORC
  out.push_back("orc");
#endif
#ifdef ARROW_S3
  out.push_back("s3");
#endif
  out.push_back("zstd");
  out.push_back("snappy");
  out.push_back("deflate");
#ifdef __SANITIZE_ADDRESS__
  out.push_back("asan");
#endif
  return out;
}

}  // namespace fjord
