// Lookup cache benchmark (issue 19, point 7): how much memory and local disk the process-wide
// lookup cache (lsm/lookup_cache.h) takes when one writer compacts many buckets with lookups.
//
// A primary-key table (k INT PRIMARY KEY, s0..s19 STRING: the rows of bench/bench_rows.h) with
// `--buckets` buckets gets one load commit of `--load-rows` upserts, then `--commits` commits of
// `--update-rows` upserts each, all through one writer that compacts (not write-only) and waits for
// its compactions at every commit. Keys are spread over every bucket, and each update commit's
// level-0 file per bucket is small next to the bucket's bottom level, so the compaction writes
// it one level above and looks its keys up in the level below: every bucket builds lookup files.
// `--mode dv` (deletion-vectors.enabled), `lookup` (changelog-producer = lookup) or `plain` (no
// lookups: the process's RSS without the cache, for comparison).
//
// Prints, per commit, the cache's own accounting (disk and memory bytes now, lookup files built
// and evicted) and the process's RSS; at the end one JSON line with the cache's peaks
// (LookupCache::peak_disk_bytes / peak_memory_bytes) against the configured bounds
// (`--memory` -> lookup.cache-max-memory-size, `--disk` -> lookup.cache-max-disk-size; empty:
// the option's default) and the process's peak RSS.
//
//   lookup_cache_bench --dir /tmp/x [--mode dv] [--buckets 1000] [--keys 500000]
//                      [--load-rows 1000000] [--update-rows 100000] [--commits 5]
//                      [--memory "256 mb"] [--disk "1 gb"]
//
// The writer finds the cache through LookupCache::Shared with the table's options; this program
// takes the same cache first and holds it, so its counters are the writer's.

#include <arrow/api.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>

#include "bench_rows.h"
#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/lsm/lookup_levels.h"
#include "fjord/meta/core_options.h"

namespace {

using namespace fjord;
namespace fb = fjord::bench;

struct Args {
  std::string dir, mode = "dv", memory, disk;
  int64_t buckets = 1000, keys = 500'000, load_rows = 1'000'000, update_rows = 100'000, commits = 5;
};

constexpr int64_t kBatch = 8192;

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

double Mb(int64_t bytes) { return static_cast<double>(bytes) / 1e6; }

std::map<std::string, std::string> TableOptions(const Args& a) {
  std::map<std::string, std::string> o = {{"file.format", "parquet"},
                                          {"file.compression", "zstd"},
                                          {"file.compression.zstd-level", "1"},
                                          {"bucket", std::to_string(a.buckets)},
                                          {"write-buffer-spillable", "true"}};
  if (a.mode == "dv") o["deletion-vectors.enabled"] = "true";
  if (a.mode == "lookup") o["changelog-producer"] = "lookup";
  if (!a.memory.empty()) o["lookup.cache-max-memory-size"] = a.memory;
  if (!a.disk.empty()) o["lookup.cache-max-disk-size"] = a.disk;
  return o;
}

Status Run(const Args& a) {
  if (a.mode != "dv" && a.mode != "lookup" && a.mode != "plain") {
    return Status::Invalid("--mode: '", a.mode, "' is none of dv, lookup, plain");
  }
  std::map<std::string, std::string> options = TableOptions(a);
  // The cache the writer will use: the process's cache for these options.
  FJORD_ASSIGN_OR_RAISE(CoreOptions core, CoreOptions::FromMap(options));
  FJORD_ASSIGN_OR_RAISE(LookupCacheOptions cache_options, LookupCacheOptions::FromOptions(core));
  std::shared_ptr<LookupCache> cache = LookupCache::Shared(cache_options);

  FJORD_ASSIGN_OR_RAISE(auto catalog, Catalog::Open(a.dir));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("bench", true));
  TableSpec spec;
  std::string columns = "k INT NOT NULL";
  for (int j = 0; j < fb::kStrings; ++j) columns += ", s" + std::to_string(j) + " STRING";
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(columns));
  spec.primary_keys = {"k"};
  spec.options.assign(options.begin(), options.end());
  FJORD_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("bench.pk_" + a.mode));
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec));
  FJORD_ASSIGN_OR_RAISE(auto table, catalog->GetTable(id));
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite());
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit("bench"));

  std::printf("# mode %s, %lld buckets, %lld keys; memory bound %.1f MB, disk bound %s\n",
              a.mode.c_str(), static_cast<long long>(a.buckets), static_cast<long long>(a.keys),
              Mb(cache_options.max_memory_bytes),
              cache_options.max_disk_bytes == INT64_MAX
                  ? "none"
                  : (std::to_string(Mb(cache_options.max_disk_bytes)) + " MB").c_str());
  std::printf(
      "# commit rows s cache_disk_MB cache_memory_MB files_built files_evicted "
      "compactions rss_MB\n");
  auto start = std::chrono::steady_clock::now();
  int64_t next = 0;
  for (int64_t c = 0; c <= a.commits; ++c) {
    int64_t rows = c == 0 ? a.load_rows : a.update_rows;
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t end = next + rows; next < end; next += std::min(kBatch, end - next)) {
      FJORD_RETURN_NOT_OK(
          WriteBatch(*writer, *fb::MakeRows(next, std::min(kBatch, end - next), a.keys, false)));
    }
    FJORD_ASSIGN_OR_RAISE(CommitMessages messages,
                          writer->PrepareCommit(c, /*wait_compaction=*/true));
    FJORD_RETURN_NOT_OK(commit->Commit(messages, c).status());
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%lld %lld %.2f %.2f %.2f %lld %lld %lld %.1f\n", static_cast<long long>(c),
                static_cast<long long>(rows), s, Mb(cache->disk_bytes()), Mb(cache->memory_bytes()),
                static_cast<long long>(cache->files_built()),
                static_cast<long long>(cache->files_evicted()),
                static_cast<long long>(writer->metrics().compactions), Mb(CurrentRssBytes()));
    std::fflush(stdout);
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (a.mode != "plain" && cache->files_built() == 0) {
    return Status::Invalid(
        "the writer built no lookup file in this program's cache: the table's lookup options "
        "did not give the same cache (or no compaction looked anything up)");
  }
  WriteMetrics m = writer->metrics();
  std::printf(
      "{\"mode\": \"%s\", \"buckets\": %lld, \"keys\": %lld, \"rows\": %lld, \"commits\": %lld, "
      "\"wall_s\": %.2f, \"memory_bound\": %lld, \"disk_bound\": %lld, "
      "\"peak_memory_bytes\": %lld, \"peak_disk_bytes\": %lld, \"files_built\": %lld, "
      "\"files_evicted\": %lld, \"compactions\": %lld, \"compaction_waits\": %lld, "
      "\"peak_rss_bytes\": %lld}\n",
      a.mode.c_str(), static_cast<long long>(a.buckets), static_cast<long long>(a.keys),
      static_cast<long long>(next), static_cast<long long>(a.commits + 1), wall,
      static_cast<long long>(cache_options.max_memory_bytes),
      static_cast<long long>(cache_options.max_disk_bytes),
      static_cast<long long>(cache->peak_memory_bytes()),
      static_cast<long long>(cache->peak_disk_bytes()),
      static_cast<long long>(cache->files_built()), static_cast<long long>(cache->files_evicted()),
      static_cast<long long>(m.compactions), static_cast<long long>(m.compaction_waits),
      static_cast<long long>(PeakRssBytes()));
  return Status::OK();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  Status st;
  for (int i = 1; i < argc && st.ok(); i += 2) {
    std::string f = argv[i];
    if (i + 1 >= argc) {
      st = Status::Invalid("option ", f, " needs a value");
      break;
    }
    std::string v = argv[i + 1];
    try {
      if (f == "--dir") {
        a.dir = v;
      } else if (f == "--mode") {
        a.mode = v;
      } else if (f == "--memory") {
        a.memory = v;
      } else if (f == "--disk") {
        a.disk = v;
      } else if (f == "--buckets") {
        a.buckets = std::stoll(v);
      } else if (f == "--keys") {
        a.keys = std::stoll(v);
      } else if (f == "--load-rows") {
        a.load_rows = std::stoll(v);
      } else if (f == "--update-rows") {
        a.update_rows = std::stoll(v);
      } else if (f == "--commits") {
        a.commits = std::stoll(v);
      } else {
        st = Status::Invalid("unknown option ", f);
      }
    } catch (const std::exception&) {
      st = Status::Invalid("option ", f, ": '", v, "' is not a number");
    }
  }
  if (st.ok() && a.dir.empty()) st = Status::Invalid("--dir DIR is required");
  if (st.ok()) st = Run(a);
  FileIO::ShutdownFileSystems();
  if (!st.ok()) {
    std::cerr << "lookup_cache_bench: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
