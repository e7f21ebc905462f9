// Writing ORC data files: Fjord's own writer (src/fjord/format/orc/orc_writer.h, the path
// DataFileWriter takes) against Arrow's ORC adapter (the path it replaced), on 1M rows, into
// memory, per codec.
//
//   cmake -S . -B build/bench -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DFJORD_BUILD_BENCH=ON
//   cmake --build build/bench --target orc_write_bench && build/bench/bench/orc_write_bench
//
// items_per_second is rows per second; the `bytes` counter is the file size. Rows: a typical
// append table (BIGINT id ascending, STRING name of 10..25 characters, DECIMAL(10, 2), DOUBLE,
// TIMESTAMP(6) ascending with jitter, DATE in a few values, BOOLEAN, INT with 10% NULLs,
// ARRAY<STRING> of 0..3 short strings), batches of 4096 rows.
#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>
#include <benchmark/benchmark.h>

#include <random>

#include "fjord/format/arrow_types.h"
#include "fjord/format/orc/orc_writer.h"

namespace fjord {
namespace {

constexpr int64_t kRows = 1000000;
constexpr int64_t kBatchRows = 4096;

std::vector<DataField> Fields() {
  return ParseColumnList(
             "id BIGINT NOT NULL, name STRING, amount DECIMAL(10, 2), price DOUBLE, "
             "ts TIMESTAMP(6), day DATE, flag BOOLEAN, qty INT, tags ARRAY<STRING>")
      .value();
}

std::vector<std::shared_ptr<arrow::RecordBatch>> Batches() {
  static const auto* batches = [] {
    auto* out = new std::vector<std::shared_ptr<arrow::RecordBatch>>();
    auto schema = ToArrowSchema(Fields()).value();
    std::mt19937_64 rng(1);
    for (int64_t start = 0; start < kRows; start += kBatchRows) {
      int64_t n = std::min(kBatchRows, kRows - start);
      arrow::Int64Builder id;
      arrow::StringBuilder name;
      arrow::Decimal128Builder amount(arrow::decimal128(10, 2));
      arrow::DoubleBuilder price;
      arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MICRO),
                                 arrow::default_memory_pool());
      arrow::Date32Builder day;
      arrow::BooleanBuilder flag;
      arrow::Int32Builder qty;
      auto tag_values = std::make_shared<arrow::StringBuilder>();
      arrow::ListBuilder tags(arrow::default_memory_pool(), tag_values,
                              arrow::list(arrow::field("element", arrow::utf8())));
      for (int64_t i = start; i < start + n; ++i) {
        (void)id.Append(i);
        std::string s = "customer-" + std::to_string(rng() % 100000);
        s.append(rng() % 12, 'x');
        (void)name.Append(s);
        (void)amount.Append(arrow::Decimal128(static_cast<int64_t>(rng() % 10000000)));
        (void)price.Append(static_cast<double>(rng() % 100000) / 100.0);
        (void)ts.Append(1700000000000000 + i * 1000 + static_cast<int64_t>(rng() % 1000));
        (void)day.Append(19700 + static_cast<int32_t>(i / 100000));
        (void)flag.Append(rng() % 3 == 0);
        if (rng() % 10 == 0) {
          (void)qty.AppendNull();
        } else {
          (void)qty.Append(static_cast<int32_t>(rng() % 1000));
        }
        (void)tags.Append();
        for (uint64_t t = rng() % 4; t > 0; --t) {
          (void)tag_values->Append("tag" + std::to_string(rng() % 50));
        }
      }
      arrow::ArrayVector columns;
      for (arrow::ArrayBuilder* b : std::initializer_list<arrow::ArrayBuilder*>{
               &id, &name, &amount, &price, &ts, &day, &flag, &qty, &tags}) {
        columns.push_back(b->Finish().ValueOrDie());
      }
      out->push_back(arrow::RecordBatch::Make(schema, n, columns));
    }
    return out;
  }();
  return *batches;
}

const OrcCompression kCodecs[] = {OrcCompression::kNone, OrcCompression::kZstd,
                                  OrcCompression::kLz4, OrcCompression::kSnappy,
                                  OrcCompression::kZlib};

arrow::Compression::type ArrowCodec(OrcCompression c) {
  switch (c) {
    case OrcCompression::kZstd:
      return arrow::Compression::ZSTD;
    case OrcCompression::kLz4:
      return arrow::Compression::LZ4;
    case OrcCompression::kSnappy:
      return arrow::Compression::SNAPPY;
    case OrcCompression::kZlib:
      return arrow::Compression::GZIP;
    default:
      return arrow::Compression::UNCOMPRESSED;
  }
}

void BM_FjordOrcWriter(benchmark::State& state) {
  auto codec = kCodecs[state.range(0)];
  auto batches = Batches();
  auto fields = Fields();
  int64_t bytes = 0;
  for (auto _ : state) {
    auto out = arrow::io::BufferOutputStream::Create().ValueOrDie();
    orc::OrcWriterOptions options;
    options.compression = codec;
    options.compression_level = codec == OrcCompression::kZlib ? -1 : 1;
    auto writer = orc::OrcWriter::Open(out, fields, options).value();
    for (const auto& b : batches) {
      if (!writer->Write(*b).ok()) state.SkipWithError("write failed");
    }
    bytes = writer->Finish().value();
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(OrcCompressionName(codec)));
}

void BM_ArrowOrcAdapter(benchmark::State& state) {
  auto codec = kCodecs[state.range(0)];
  auto batches = Batches();
  int64_t bytes = 0;
  for (auto _ : state) {
    auto out = arrow::io::BufferOutputStream::Create().ValueOrDie();
    arrow::adapters::orc::WriteOptions wo;
    wo.compression = ArrowCodec(codec);
    wo.stripe_size = int64_t{64} << 20;
    auto writer = arrow::adapters::orc::ORCFileWriter::Open(out.get(), wo).ValueOrDie();
    for (const auto& b : batches) {
      if (!writer->Write(*b).ok()) state.SkipWithError("write failed");
    }
    if (!writer->Close().ok()) state.SkipWithError("close failed");
    bytes = out->Tell().ValueOrDie();
  }
  state.SetItemsProcessed(state.iterations() * kRows);
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(OrcCompressionName(codec)));
}

BENCHMARK(BM_FjordOrcWriter)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->MinTime(2);
BENCHMARK(BM_ArrowOrcAdapter)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->MinTime(2);

}  // namespace
}  // namespace fjord

BENCHMARK_MAIN();
