// Names of new index files, as Java's IndexPathFactory gives them: `index-<uuid>-<n>`, one random
// UUID per namer (Java: per write) and a counter from 0. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>

#include "fjord/common/ids.h"

namespace fjord {

class IndexFileNamer {
 public:
  IndexFileNamer() : uuid_(RandomUuid()) {}
  explicit IndexFileNamer(std::string uuid) : uuid_(std::move(uuid)) {}

  std::string Next() { return "index-" + uuid_ + "-" + std::to_string(counter_++); }

 private:
  std::string uuid_;
  std::atomic<int64_t> counter_{0};
};

}  // namespace fjord
