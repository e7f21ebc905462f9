// Memory benchmark of primary-key writes (issue 4): writes N GB of upserts (an INT key and ten
// STRING columns, about 200 bytes a row) into a fixed-bucket table with a given
// `write-buffer-size`, committing every `--commit-gb`, and reports peak RSS and the files written
// per commit. The claim to check: peak RSS stays under 3x the buffer, and files per commit do not
// grow with the data written (the buffer spills sorted runs instead of writing small files).
//
//   pk_write_memory --dir /tmp/x [--gb 2] [--commit-gb 0.25] [--buffer "64 mb"] [--keys 1000000]

#include <arrow/api.h>
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <thread>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "upsert_rows.h"

namespace {

int64_t PeakRssBytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<int64_t>(u.ru_maxrss) * 1024;
}

int64_t CurrentRssBytes() {
  std::ifstream statm("/proc/self/statm");
  int64_t pages = 0, resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

// Phase-wise RSS maxima, sampled every 5 ms by a background thread (--trace 1).
std::atomic<int> g_phase{0};
std::atomic<int64_t> g_phase_max[3];
const char* kPhaseNames[3] = {"write", "prepare-commit", "commit"};

void SampleRss(std::atomic<bool>* stop);

double Mb(int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

int Fail(const fjord::Status& st) {
  std::cerr << "pk_write_memory: " << st.ToString() << "\n";
  return 1;
}

void SampleRss(std::atomic<bool>* stop) {
  while (!stop->load()) {
    int64_t rss = CurrentRssBytes();
    auto& m = g_phase_max[g_phase.load()];
    if (rss > m.load()) m.store(rss);
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::string dir;
  double gb = 2, commit_gb = 0.25;
  std::string buffer = "64 mb";
  int64_t keys = 1000000;
  bool trace = false;
  int64_t traced_max = 0;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string a = argv[i];
    if (a == "--dir") dir = argv[i + 1];
    if (a == "--gb") gb = std::stod(argv[i + 1]);
    if (a == "--commit-gb") commit_gb = std::stod(argv[i + 1]);
    if (a == "--buffer") buffer = argv[i + 1];
    if (a == "--keys") keys = std::stoll(argv[i + 1]);
    if (a == "--trace") trace = std::string(argv[i + 1]) == "1";
  }
  if (dir.empty()) {
    std::cerr << "usage: pk_write_memory --dir DIR [--gb 2] [--commit-gb 0.25] [--buffer \"64 "
                 "mb\"] [--keys 1000000]\n";
    return 2;
  }
  using namespace fjord;
  auto catalog = Catalog::Open(dir);
  if (!catalog.ok()) return Fail(catalog.status());
  if (Status st = (*catalog)->CreateDatabase("bench", true); !st.ok()) return Fail(st);
  TableSpec spec;
  std::string columns = "id INT NOT NULL";
  for (int c = 0; c < 10; ++c) columns += ", s" + std::to_string(c) + " STRING";
  spec.fields = ParseColumnList(columns).value();
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", "1"}, {"write-buffer-size", buffer}};
  auto id = TableIdentifier::Parse("bench.upserts").value();
  if (Status st = (*catalog)->CreateTable(id, spec, true); !st.ok()) return Fail(st);
  auto table = (*catalog)->GetTable(id);
  if (!table.ok()) return Fail(table.status());

  // A pool of 20-character strings; rows pick from it (generation must not dominate).
  std::mt19937_64 rng(1);
  std::vector<std::string> pool = bench::StringPool(rng);
  const int64_t batch_rows = 8192;
  const int64_t row_bytes = 4 + 10 * 20;
  const int64_t total_rows = static_cast<int64_t>(gb * (1LL << 30)) / row_bytes;
  const int64_t rows_per_commit = static_cast<int64_t>(commit_gb * (1LL << 30)) / row_bytes;
  std::printf("rows %lld (%.2f GB raw), commit every %lld rows, buffer %s, %lld keys\n",
              static_cast<long long>(total_rows), gb, static_cast<long long>(rows_per_commit),
              buffer.c_str(), static_cast<long long>(keys));
  std::printf("%6s %10s %8s %8s %10s %10s %8s\n", "commit", "rows", "files", "spills", "rss_mb",
              "peak_mb", "secs");
  auto start = std::chrono::steady_clock::now();
  int64_t written = 0;
  int64_t commit_id = 0;
  auto schema = arrow::schema([] {
    arrow::FieldVector f = {arrow::field("id", arrow::int32())};
    for (int c = 0; c < 10; ++c) f.push_back(arrow::field("s" + std::to_string(c), arrow::utf8()));
    return f;
  }());
  std::atomic<bool> stop{false};
  std::thread sampler;
  if (trace) sampler = std::thread(SampleRss, &stop);
  while (written < total_rows) {
    g_phase = 0;
    auto writer = (*table)->NewWrite();
    if (!writer.ok()) return Fail(writer.status());
    int64_t in_commit = 0;
    while (in_commit < rows_per_commit && written < total_rows) {
      int64_t n = std::min(batch_rows, total_rows - written);
      if (Status st = WriteTable(**writer, *bench::UpsertBatch(rng, keys, pool, n, schema));
          !st.ok()) {
        return Fail(st);
      }
      written += n;
      in_commit += n;
      if (trace) {
        int64_t rss = CurrentRssBytes();
        if (rss > traced_max) {
          traced_max = rss;
          std::printf("  new max rss %.1f MB after %lld rows of commit %lld, spills %lld\n",
                      Mb(rss), static_cast<long long>(in_commit),
                      static_cast<long long>(commit_id + 1),
                      static_cast<long long>((*writer)->metrics().spills));
        }
      }
    }
    g_phase = 1;
    auto messages = (*writer)->PrepareCommit();
    g_phase = 2;
    if (!messages.ok()) return Fail(messages.status());
    int64_t files = messages->new_file_count();
    auto commit = (*table)->NewCommit("bench");
    if (!commit.ok()) return Fail(commit.status());
    auto snapshot = (*commit)->Commit(*messages, commit_id++);
    if (!snapshot.ok()) return Fail(snapshot.status());
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("%6lld %10lld %8lld %8lld %10.1f %10.1f %8.1f\n", static_cast<long long>(commit_id),
                static_cast<long long>(written), static_cast<long long>(files),
                static_cast<long long>((*writer)->metrics().spills), Mb(CurrentRssBytes()),
                Mb(PeakRssBytes()), secs);
    std::fflush(stdout);
  }
  if (trace) {
    stop = true;
    sampler.join();
    for (int p = 0; p < 3; ++p) {
      std::printf("max rss while %s: %.1f MB\n", kPhaseNames[p], Mb(g_phase_max[p].load()));
    }
  }
  std::printf("peak RSS %.1f MB\n", Mb(PeakRssBytes()));
  FileIO::ShutdownFileSystems();
  return 0;
}
