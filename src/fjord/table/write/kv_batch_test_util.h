// Test helper for primary-key tables `(k INT, v BIGINT)`: input batches with a `_row_kind`
// column ("+I", "-U", "+U", "-D").
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <tuple>
#include <vector>

namespace fjord::testing_kv {

using KvRow = std::tuple<int32_t, int64_t, std::string>;  // k, v, row kind

inline std::shared_ptr<arrow::Table> KvBatch(const std::vector<KvRow>& rows) {
  arrow::Int32Builder k;
  arrow::Int64Builder v;
  arrow::StringBuilder kind;
  for (const auto& [key, value, row_kind] : rows) {
    EXPECT_TRUE(k.Append(key).ok());
    EXPECT_TRUE(v.Append(value).ok());
    EXPECT_TRUE(kind.Append(row_kind).ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("k", arrow::int32()), arrow::field("v", arrow::int64()),
                     arrow::field("_row_kind", arrow::utf8())}),
      {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(), kind.Finish().ValueOrDie()});
}

}  // namespace fjord::testing_kv
