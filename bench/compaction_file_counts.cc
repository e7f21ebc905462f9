// File counts before and after compaction (issue 6): writes N upserts (an INT key over K
// distinct keys and three 20-character STRING columns) into a fixed-bucket primary-key table in
// C commits through one writer, then compacts every bucket fully as `fjord compact --full` does
// (TableCompaction with `full`, one commit). It prints, per bucket, the data files, level-0 files
// and sorted runs of the latest snapshot after every commit and after the full compaction, and the
// rows read back.
//
//   compaction_file_counts --dir DIR [--rows 10000000] [--keys 1000000] [--commits 10]
//       [--buckets 2] [--buffer "64 mb"] [--write-only 0|1] [--spillable 0|1] [--trigger 5]

#include <arrow/api.h>

#include <chrono>
#include <cstdio>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <string>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "upsert_rows.h"

namespace {

using namespace fjord;

int Fail(const Status& st) {
  std::cerr << "compaction_file_counts: " << st.ToString() << "\n";
  return 1;
}

struct Counts {
  int64_t files = 0, level0 = 0, runs = 0, bytes = 0, rows = 0;
  std::set<int32_t> levels;
};

// Files, level-0 files and sorted runs (each level-0 file, plus each non-empty level >= 1) per
// bucket of the latest snapshot.
Result<std::map<int32_t, Counts>> CountFiles(const Table& table) {
  FJORD_ASSIGN_OR_RAISE(ReadPlan plan, table.NewRead().Plan());
  std::map<int32_t, Counts> out;
  for (const PlannedFile& f : plan.files) {
    Counts& c = out[f.bucket];
    ++c.files;
    c.bytes += f.file_size;
    c.rows += f.row_count;
    if (f.level == 0) {
      ++c.level0;
      ++c.runs;
    } else if (c.levels.insert(f.level).second) {
      ++c.runs;
    }
  }
  return out;
}

void Print(const std::string& label, const std::map<int32_t, Counts>& counts, double secs) {
  for (const auto& [bucket, c] : counts) {
    std::string levels;
    for (int32_t l : c.levels) levels += (levels.empty() ? "" : ",") + std::to_string(l);
    std::printf(
        "%-22s bucket %d: %4lld files, %4lld level-0, %3lld sorted runs, levels>=1 {%s}, "
        "%7.1f MB, %lld rows in files  [%.1f s]\n",
        label.c_str(), bucket, static_cast<long long>(c.files), static_cast<long long>(c.level0),
        static_cast<long long>(c.runs), levels.c_str(), static_cast<double>(c.bytes) / (1 << 20),
        static_cast<long long>(c.rows), secs);
  }
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir, buffer = "64 mb";
  int64_t rows = 10000000, keys = 1000000, commits = 10, buckets = 2, trigger = 5;
  bool write_only = false, spillable = true;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i], v = argv[i + 1];
    if (a == "--dir") dir = v;
    if (a == "--rows") rows = std::stoll(v);
    if (a == "--keys") keys = std::stoll(v);
    if (a == "--commits") commits = std::stoll(v);
    if (a == "--buckets") buckets = std::stoll(v);
    if (a == "--buffer") buffer = v;
    if (a == "--write-only") write_only = v == "1";
    if (a == "--spillable") spillable = v == "1";
    if (a == "--trigger") trigger = std::stoll(v);
  }
  if (dir.empty()) {
    std::cerr << "usage: compaction_file_counts --dir DIR [--rows N] [--keys K] [--commits C] "
                 "[--buckets B] [--buffer SIZE] [--write-only 0|1] [--spillable 0|1] "
                 "[--trigger T]\n";
    return 2;
  }
  auto catalog = Catalog::Open(dir);
  if (!catalog.ok()) return Fail(catalog.status());
  if (Status st = (*catalog)->CreateDatabase("bench", true); !st.ok()) return Fail(st);
  TableSpec spec;
  spec.fields = ParseColumnList("id INT NOT NULL, s0 STRING, s1 STRING, s2 STRING").value();
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", std::to_string(buckets)},
                  {"write-buffer-size", buffer},
                  {"write-buffer-spillable", spillable ? "true" : "false"},
                  {"write-only", write_only ? "true" : "false"},
                  {"num-sorted-run.compaction-trigger", std::to_string(trigger)}};
  auto id = TableIdentifier::Parse("bench.upserts").value();
  if (Status st = (*catalog)->CreateTable(id, spec); !st.ok()) return Fail(st);
  auto table = (*catalog)->GetTable(id);
  if (!table.ok()) return Fail(table.status());
  std::printf(
      "%lld upserts over %lld keys, %lld commits, %lld buckets, write-buffer-size %s, "
      "spillable %d, write-only %d, num-sorted-run.compaction-trigger %lld\n",
      static_cast<long long>(rows), static_cast<long long>(keys), static_cast<long long>(commits),
      static_cast<long long>(buckets), buffer.c_str(), spillable, write_only,
      static_cast<long long>(trigger));

  std::mt19937_64 rng(1);
  std::vector<std::string> pool = bench::StringPool(rng);
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s0", arrow::utf8()),
                     arrow::field("s1", arrow::utf8()), arrow::field("s2", arrow::utf8())});
  auto start = std::chrono::steady_clock::now();
  auto secs = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto writer = (*table)->NewWrite();
  if (!writer.ok()) return Fail(writer.status());
  auto commit = (*table)->NewCommit("bench");
  if (!commit.ok()) return Fail(commit.status());
  const int64_t batch_rows = 8192;
  int64_t written = 0;
  for (int64_t c = 0; c < commits; ++c) {
    int64_t until = rows * (c + 1) / commits;
    while (written < until) {
      int64_t n = std::min(batch_rows, until - written);
      if (Status st = WriteTable(**writer, *bench::UpsertBatch(rng, keys, pool, n, schema));
          !st.ok()) {
        return Fail(st);
      }
      written += n;
    }
    auto messages = (*writer)->PrepareCommit(c);
    if (!messages.ok()) return Fail(messages.status());
    if (auto r = (*commit)->Commit(*messages, c); !r.ok()) return Fail(r.status());
    auto counts = CountFiles(**table);
    if (!counts.ok()) return Fail(counts.status());
    Print("after commit " + std::to_string(c + 1), *counts, secs());
  }
  WriteMetrics m = (*writer)->metrics();
  std::printf("writer: %lld files written, %lld compactions, %.1f MB rewritten into %.1f MB\n",
              static_cast<long long>(m.files_written), static_cast<long long>(m.compactions),
              static_cast<double>(m.compaction_bytes_in) / (1 << 20),
              static_cast<double>(m.compaction_bytes_out) / (1 << 20));
  writer->reset();

  // `fjord compact --full`.
  CompactionOptions full;
  full.full = true;
  auto job = (*table)->NewCompaction(full);
  if (!job.ok()) return Fail(job.status());
  if (auto r = (*job)->Run(); !r.ok()) return Fail(r.status());
  auto counts = CountFiles(**table);
  if (!counts.ok()) return Fail(counts.status());
  Print("after compact --full", *counts, secs());

  auto reader = OpenArrowReader((*table)->NewRead());
  if (!reader.ok()) return Fail(reader.status());
  int64_t rows_read = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    if (arrow::Status st = (*reader)->ReadNext(&batch); !st.ok()) {
      return Fail(Status::IOError(st.ToString()));
    }
    if (!batch) break;
    rows_read += batch->num_rows();
  }
  std::printf("rows read: %lld (distinct keys written: at most %lld)\n",
              static_cast<long long>(rows_read), static_cast<long long>(keys));
  FileIO::ShutdownFileSystems();
  return 0;
}
