// RowRouter::Route (columnar) against the row-at-a-time algorithm it replaced, on 1M rows.
//
//   cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFJORD_BUILD_BENCH=ON
//   cmake --build build/bench --target row_router_bench && build/bench/bench/row_router_bench
//
// items_per_second is rows per second. Cases: INT bucket key (16 buckets) with a STRING partition
// of 30 values ("2024-06-01".. spill to the variable part) in random order or in runs; the same
// key without a partition; and a bucket-unaware table with the STRING partition only.
#include <arrow/api.h>
#include <benchmark/benchmark.h>

#include <random>

#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"
#include "fjord/table/write/row_router.h"

namespace fjord {
namespace {

Result<RowRouter> MakeRouter(const TableSchema& schema) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  return RowRouter::Make(schema, options);
}

using Groups = std::map<PartitionBucket, std::vector<int64_t>>;

// The algorithm RowRouter::Route had before it became columnar: a Value per cell, the generic
// encoder per row, a map lookup per row.
Result<Groups> RowByRowRoute(const TableSchema& schema, const arrow::RecordBatch& rows) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::Make(schema));
  int32_t total_buckets = options.bucket();
  std::vector<int> pcols, bcols;
  std::vector<DataTypePtr> ptypes, btypes;
  for (const std::string& p : schema.partition_keys) {
    int i = schema.FieldIndex(p);
    pcols.push_back(i);
    ptypes.push_back(schema.fields[static_cast<size_t>(i)].type->WithNullable(true));
  }
  if (total_buckets > 0) {
    for (const std::string& b : schema.BucketKeys()) {
      int i = schema.FieldIndex(b);
      bcols.push_back(i);
      btypes.push_back(schema.fields[static_cast<size_t>(i)].type);
    }
  }
  Groups groups;
  std::vector<Value> pvalues(pcols.size());
  std::vector<Value> bvalues(bcols.size());
  for (int64_t r = 0; r < rows.num_rows(); ++r) {
    for (size_t i = 0; i < pcols.size(); ++i) {
      FJORD_ASSIGN_OR_RAISE(pvalues[i], ValueFromArrow(*rows.column(pcols[i]), r, *ptypes[i]));
    }
    FJORD_ASSIGN_OR_RAISE(std::string partition, EncodeStoredBinaryRow(pvalues, ptypes));
    int32_t bucket = 0;
    if (total_buckets > 0) {
      for (size_t i = 0; i < bcols.size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(bvalues[i], ValueFromArrow(*rows.column(bcols[i]), r, *btypes[i]));
      }
      FJORD_ASSIGN_OR_RAISE(std::string key, EncodeBinaryRow(bvalues, btypes));
      bucket = BucketOf(key, total_buckets);
    }
    groups[{std::move(partition), bucket}].push_back(r);
  }
  return groups;
}

constexpr int64_t kRows = 1000000;

// Columns: k INT (random), dt STRING (30 dates, random order or sorted runs).
std::shared_ptr<arrow::RecordBatch> MakeRows(bool runs) {
  std::mt19937_64 rng(42);
  arrow::Int32Builder k;
  arrow::StringBuilder dt;
  for (int64_t i = 0; i < kRows; ++i) {
    (void)k.Append(static_cast<int32_t>(rng()));
    int day = runs ? static_cast<int>(i * 30 / kRows) : static_cast<int>(rng() % 30);
    char text[16];
    std::snprintf(text, sizeof(text), "2024-06-%02d", day + 1);
    (void)dt.Append(text);
  }
  std::shared_ptr<arrow::Array> ka, da;
  (void)k.Finish(&ka);
  (void)dt.Finish(&da);
  auto schema =
      arrow::schema({arrow::field("k", arrow::int32()), arrow::field("dt", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, kRows, {ka, da});
}

TableSchema Schema(bool partitioned, int32_t buckets) {
  TableSchema s;
  s.version = TableSchema::kCurrentVersion;
  s.fields = {DataField{0, "k", DataType::Int()}, DataField{1, "dt", DataType::String()}};
  s.highest_field_id = 1;
  if (partitioned) s.partition_keys = {"dt"};
  s.options = {{"bucket", std::to_string(buckets)}};
  if (buckets > 0) s.options.emplace_back("bucket-key", "k");
  return s;
}

template <bool kColumnar>
void Run(benchmark::State& state, bool partitioned, int32_t buckets, bool runs) {
  static const auto kRandom = MakeRows(false);
  static const auto kRuns = MakeRows(true);
  const arrow::RecordBatch& rows = runs ? *kRuns : *kRandom;
  TableSchema schema = Schema(partitioned, buckets);
  RowRouter router = *MakeRouter(schema);
  size_t groups = 0;
  for (auto _ : state) {
    Result<Groups> g = kColumnar ? router.Route(rows) : RowByRowRoute(schema, rows);
    if (!g.ok()) {
      state.SkipWithError(g.status().ToString().c_str());
      return;
    }
    groups = g->size();
    benchmark::DoNotOptimize(g);
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.counters["groups"] = static_cast<double>(groups);
}

void BM_Columnar_IntKey_StringPartition(benchmark::State& s) { Run<true>(s, true, 16, false); }
void BM_RowByRow_IntKey_StringPartition(benchmark::State& s) { Run<false>(s, true, 16, false); }
void BM_Columnar_IntKey_StringPartitionRuns(benchmark::State& s) { Run<true>(s, true, 16, true); }
void BM_RowByRow_IntKey_StringPartitionRuns(benchmark::State& s) { Run<false>(s, true, 16, true); }
void BM_Columnar_IntKey_Unpartitioned(benchmark::State& s) { Run<true>(s, false, 16, false); }
void BM_RowByRow_IntKey_Unpartitioned(benchmark::State& s) { Run<false>(s, false, 16, false); }
void BM_Columnar_StringPartition_Unaware(benchmark::State& s) { Run<true>(s, true, -1, false); }
void BM_RowByRow_StringPartition_Unaware(benchmark::State& s) { Run<false>(s, true, -1, false); }

BENCHMARK(BM_Columnar_IntKey_StringPartition)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RowByRow_IntKey_StringPartition)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Columnar_IntKey_StringPartitionRuns)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RowByRow_IntKey_StringPartitionRuns)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Columnar_IntKey_Unpartitioned)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RowByRow_IntKey_Unpartitioned)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Columnar_StringPartition_Unaware)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_RowByRow_StringPartition_Unaware)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace fjord

BENCHMARK_MAIN();
