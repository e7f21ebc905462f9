// Test helper of format/: a batch reader read to its end.
#pragma once

#include "fjord/format/data_file_reader.h"

namespace fjord::testing {

// Reads every batch of `reader`; the first error, or OK at the end.
inline Status ReadToEnd(BatchReader* reader) {
  while (true) {
    auto batch = reader->Next();
    if (!batch.ok()) return batch.status();
    if (!*batch) return Status::OK();
  }
}

}  // namespace fjord::testing
