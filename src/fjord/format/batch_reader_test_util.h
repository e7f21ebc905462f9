// Test helpers of format/: a batch reader read to its end.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <vector>

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

// Every batch of `reader` until its end or an error (a test failure), each checked to hold
// between 1 and `batch_rows` rows.
inline std::vector<std::shared_ptr<arrow::RecordBatch>> ReadBatches(BatchReader* reader,
                                                                    int64_t batch_rows) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> out;
  while (true) {
    auto batch = reader->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) return out;
    EXPECT_GT((*batch)->num_rows(), 0);
    EXPECT_LE((*batch)->num_rows(), batch_rows);
    out.push_back(*batch);
  }
}

}  // namespace fjord::testing
