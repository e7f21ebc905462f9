// The limit of `make bench` (bench/README.md): Arrow C++ writing and reading the same rows
// (bench_rows.h) to and from Parquet with the table's compression (zstd level 1, dictionary on,
// Parquet 1.0 / data page V1, row groups of about 128 MB of raw rows), with no table logic: no
// sort, no merge, no metadata. Same command line and JSON line as engine_fjord.
//
//   engine_arrow WORKLOAD --dir DIR [--rows N] [--keys K] [--threads T] [--light 1]
//
// WORKLOAD: version (Arrow's), append-write (all rows to one file), prepare (untimed set-up for the
// reads: the rows of partition 3, each key's last upsert sorted by key, and the five runs),
// read-filtered (that partition's file, key range applied), pk-write (all upserts to one file),
// read-pk (the deduplicated file), compact (read the five sorted runs the table holds after its
// commits, keep each key's last row, write them in key order: the same input and output rows as the
// table's full compaction). --threads T (T > 1) decodes columns on Arrow's thread pool (1, the
// default: on the calling thread); --light 1 folds the reads' light checksum (bench_rows.h).

#include <arrow/config.h>
#include <arrow/io/file.h>
#include <arrow/util/thread_pool.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/writer.h>
#include <parquet/properties.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <string>

#include "bench_rows.h"
#include "fjord/memory_pool.h"

namespace {

namespace fb = fjord::bench;
constexpr int64_t kBatch = 8192;
constexpr int kRuns = 5;  // commits of the upsert table

struct Args {
  std::string workload, dir;
  int64_t rows = 10'000'000, keys = 1'000'000;
  int threads = 1;
  bool light = false;
};

bool use_threads = false;  // --threads > 1

std::shared_ptr<parquet::WriterProperties> Props(bool with_partition) {
  return parquet::WriterProperties::Builder()
      .version(parquet::ParquetVersion::PARQUET_1_0)
      ->data_page_version(parquet::ParquetDataPageVersion::V1)
      ->compression(arrow::Compression::ZSTD)
      ->compression_level(1)
      ->enable_dictionary()
      ->max_row_group_length((int64_t{128} << 20) / fb::RowBytes(with_partition))
      ->build();
}

// Writes the batches `next` yields (until it returns null) to `path`.
template <typename Next>
arrow::Status WriteFile(const std::string& path, bool with_partition, Next next) {
  ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::FileOutputStream::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto writer, parquet::arrow::FileWriter::Open(
                                         *fb::RowSchema(with_partition),
                                         arrow::default_memory_pool(), out, Props(with_partition)));
  while (auto batch = next()) ARROW_RETURN_NOT_OK(writer->WriteRecordBatch(*batch));
  ARROW_RETURN_NOT_OK(writer->Close());
  return out->Close();
}

arrow::Status WriteRows(const std::string& path, int64_t rows, int64_t keys, bool part) {
  int64_t i = 0;
  return WriteFile(path, part, [&]() -> std::shared_ptr<arrow::RecordBatch> {
    if (i >= rows) return nullptr;
    auto b = fb::MakeRows(i, std::min(kBatch, rows - i), keys, part);
    i += b->num_rows();
    return b;
  });
}

// The rows at `indices`, in batches.
arrow::Status WriteRowsAt(const std::string& path, const std::vector<int64_t>& indices,
                          int64_t keys, bool part) {
  size_t i = 0;
  return WriteFile(path, part, [&]() -> std::shared_ptr<arrow::RecordBatch> {
    if (i >= indices.size()) return nullptr;
    size_t n = std::min(indices.size() - i, static_cast<size_t>(kBatch));
    std::vector<int64_t> chunk(indices.begin() + static_cast<ptrdiff_t>(i),
                               indices.begin() + static_cast<ptrdiff_t>(i + n));
    i += n;
    return fb::MakeRowsAt(chunk, keys, part);
  });
}

// The whole file; one chunk per column (a copy when there are several row groups) only when
// `combine` (compaction indexes rows across the file).
arrow::Result<std::shared_ptr<arrow::Table>> ReadFile(const std::string& path,
                                                      bool combine = false) {
  ARROW_ASSIGN_OR_RAISE(auto in, arrow::io::ReadableFile::Open(path));
  ARROW_ASSIGN_OR_RAISE(auto reader, parquet::arrow::OpenFile(in, arrow::default_memory_pool()));
  reader->set_use_threads(use_threads);
  ARROW_ASSIGN_OR_RAISE(auto table, reader->ReadTable());
  if (!combine) return table;
  return table->CombineChunks();
}

void Print(int64_t rows, bool part, const fb::Checksum* sum) {
  std::printf("{\"rows\": %lld, \"bytes\": %lld", static_cast<long long>(rows),
              static_cast<long long>(rows * fb::RowBytes(part)));
  if (sum) std::printf(", \"checksum\": \"%s\"", sum->Hex().c_str());
  std::printf(", \"files\": 1}\n");
}

arrow::Status Run(const Args& a) {
  if (a.workload != "version") std::filesystem::create_directories(a.dir);
  const std::string d = a.dir + "/";
  if (a.workload == "version") {
    std::printf("{\"arrow\": \"%s\"}\n", arrow::GetBuildInfo().version_string.c_str());
  } else if (a.workload == "append-write") {
    ARROW_RETURN_NOT_OK(WriteRows(d + "append.parquet", a.rows, a.keys, true));
    Print(a.rows, true, nullptr);
  } else if (a.workload == "pk-write") {
    ARROW_RETURN_NOT_OK(WriteRows(d + "upserts.parquet", a.rows, a.keys, false));
    Print(a.rows, false, nullptr);
  } else if (a.workload == "prepare") {
    std::vector<int64_t> p3;
    for (int64_t i = 0; i < a.rows; ++i) {
      uint64_t h = fb::SplitMix64(static_cast<uint64_t>(i));
      if (fb::PartitionOf(h) == 3) p3.push_back(i);
    }
    ARROW_RETURN_NOT_OK(WriteRowsAt(d + "append_p3.parquet", p3, a.keys, true));
    std::vector<int64_t> last;
    for (int64_t i : fb::LastIndexPerKey(a.rows, a.keys)) {
      if (i >= 0) last.push_back(i);
    }
    ARROW_RETURN_NOT_OK(WriteRowsAt(d + "final.parquet", last, a.keys, false));
    // The table's sorted runs: per commit (rows/5 upserts), each key's last row in key order.
    for (int r = 0; r < kRuns; ++r) {
      int64_t lo = a.rows * r / kRuns, hi = a.rows * (r + 1) / kRuns;
      std::vector<int64_t> in_run(static_cast<size_t>(a.keys), -1), run;
      for (int64_t i = lo; i < hi; ++i) {
        in_run[fb::KeyOf(fb::SplitMix64(static_cast<uint64_t>(i)), a.keys)] = i;
      }
      for (int64_t i : in_run) {
        if (i >= 0) run.push_back(i);
      }
      ARROW_RETURN_NOT_OK(
          WriteRowsAt(d + "run" + std::to_string(r) + ".parquet", run, a.keys, false));
    }
    Print(0, false, nullptr);
  } else if (a.workload == "read-filtered") {
    ARROW_ASSIGN_OR_RAISE(auto t, ReadFile(d + "append_p3.parquet"));
    // The key range: only matching rows reach the checksum (the rest are skipped, not copied).
    fb::Checksum sum(a.light);
    ARROW_RETURN_NOT_OK(sum.Add(*t, static_cast<int32_t>(a.keys / 10)));
    Print(sum.rows(), true, &sum);
  } else if (a.workload == "read-append") {
    // Not part of make bench (bench/read_limits.py): append-write's file, every row.
    ARROW_ASSIGN_OR_RAISE(auto t, ReadFile(d + "append.parquet"));
    fb::Checksum sum(a.light);
    ARROW_RETURN_NOT_OK(sum.Add(*t));
    Print(sum.rows(), true, &sum);
  } else if (a.workload == "read-pk") {
    ARROW_ASSIGN_OR_RAISE(auto t, ReadFile(d + "final.parquet"));
    fb::Checksum sum(a.light);
    ARROW_RETURN_NOT_OK(sum.Add(*t));
    Print(sum.rows(), false, &sum);
  } else if (a.workload == "read-runs") {
    // Not part of make bench: the five runs' rows (what merge-on-read must read), unmerged.
    fb::Checksum sum(a.light);
    for (int r = 0; r < kRuns; ++r) {
      ARROW_ASSIGN_OR_RAISE(auto t, ReadFile(d + "run" + std::to_string(r) + ".parquet"));
      ARROW_RETURN_NOT_OK(sum.Add(*t));
    }
    Print(sum.rows(), false, &sum);
  } else if (a.workload == "compact") {
    // The runs the table holds after its 5 commits, then each key's last row in key order.
    std::vector<std::shared_ptr<arrow::RecordBatch>> runs;
    std::vector<std::pair<int32_t, int32_t>> last(static_cast<size_t>(a.keys), {-1, -1});
    int64_t rows_in = 0;
    for (int r = 0; r < kRuns; ++r) {
      ARROW_ASSIGN_OR_RAISE(auto t, ReadFile(d + "run" + std::to_string(r) + ".parquet", true));
      runs.push_back(arrow::TableBatchReader(*t).Next().ValueOrDie());
      const auto& k = static_cast<const arrow::Int32Array&>(*runs.back()->column(0));
      for (int64_t i = 0; i < k.length(); ++i) last[k.Value(i)] = {r, static_cast<int32_t>(i)};
      rows_in += k.length();
    }
    size_t next = 0;
    ARROW_RETURN_NOT_OK(
        WriteFile(d + "compacted.parquet", false, [&]() -> std::shared_ptr<arrow::RecordBatch> {
          arrow::Int32Builder kb;
          std::vector<arrow::StringBuilder> sb(fb::kStrings);
          int64_t n = 0;
          for (; next < last.size() && n < kBatch; ++next) {
            auto [r, i] = last[next];
            if (r < 0) continue;
            (void)kb.Append(static_cast<int32_t>(next));
            for (int c = 0; c < fb::kStrings; ++c) {
              (void)sb[c].Append(
                  static_cast<const arrow::StringArray&>(*runs[r]->column(c + 1)).GetView(i));
            }
            ++n;
          }
          if (n == 0) return nullptr;
          arrow::ArrayVector cols = {kb.Finish().ValueOrDie()};
          for (auto& b : sb) cols.push_back(b.Finish().ValueOrDie());
          return arrow::RecordBatch::Make(fb::RowSchema(false), n, cols);
        }));
    Print(rows_in, false, nullptr);
  } else {
    return arrow::Status::Invalid("unknown workload: ", a.workload);
  }
  return arrow::Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  fjord::PreferJemallocMemoryPool();  // as the fjord CLI (fjord/memory_pool.h)
  Args a;
  if (argc >= 2) a.workload = argv[1];
  for (int i = 2; i + 1 < argc; i += 2) {
    std::string f = argv[i], v = argv[i + 1];
    if (f == "--dir") a.dir = v;
    if (f == "--rows") a.rows = std::stoll(v);
    if (f == "--keys") a.keys = std::stoll(v);
    if (f == "--threads") a.threads = std::stoi(v);
    if (f == "--light") a.light = v == "1";
  }
  if (a.workload == "version") a.dir = "/tmp";
  use_threads = a.threads > 1;
  if (use_threads) (void)arrow::SetCpuThreadPoolCapacity(a.threads);
  if (a.dir.empty()) {
    std::cerr << "usage: engine_arrow WORKLOAD --dir DIR [--rows N] [--keys K]\n";
    return 2;
  }
  arrow::Status st = Run(a);
  if (!st.ok()) {
    std::cerr << "engine_arrow: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
