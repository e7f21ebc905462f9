// Random primary-key upsert batches for the write benchmarks (pk_write_memory,
// compaction_file_counts): an INT key drawn uniformly from [0, keys) and STRING columns drawn
// from a pool of 20-character strings, so that generating rows does not dominate the run.
#pragma once

#include <arrow/api.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

namespace fjord::bench {

// 4,096 random 20-character strings.
inline std::vector<std::string> StringPool(std::mt19937_64& rng) {
  std::vector<std::string> pool(4096);
  for (auto& s : pool) {
    for (int i = 0; i < 20; ++i) s.push_back(static_cast<char>('a' + rng() % 26));
  }
  return pool;
}

// `n` rows of `schema`: its first column the INT key, every other one a STRING from `pool`.
inline std::shared_ptr<arrow::Table> UpsertBatch(std::mt19937_64& rng, int64_t keys,
                                                 const std::vector<std::string>& pool, int64_t n,
                                                 const std::shared_ptr<arrow::Schema>& schema) {
  arrow::Int32Builder ids;
  std::vector<arrow::StringBuilder> strings(schema->num_fields() - 1);
  (void)ids.Reserve(n);
  for (auto& b : strings) {
    (void)b.Reserve(n);
    (void)b.ReserveData(n * 20);
  }
  for (int64_t r = 0; r < n; ++r) {
    ids.UnsafeAppend(static_cast<int32_t>(rng() % static_cast<uint64_t>(keys)));
    for (auto& b : strings) b.UnsafeAppend(pool[rng() % pool.size()]);
  }
  arrow::ArrayVector arrays = {ids.Finish().ValueOrDie()};
  for (auto& b : strings) arrays.push_back(b.Finish().ValueOrDie());
  return arrow::Table::Make(schema, arrays, n);
}

}  // namespace fjord::bench
