// Bytes on disk under many commits (issue 15's evidence, docs/maintenance.md): a primary-key
// table takes C upsert commits over a fixed key range (so its live data keeps one size) from one
// streaming writer with writer compaction on (the default), and the bytes of every file under the
// table directory are sampled every N commits:
//
//   * "expiring": the table with the default retention (snapshot.num-retained.min 10, max unset,
//     snapshot.time-retained 1 h, snapshot.expire.limit 50, changelog-producer none);
//   * "write-only": the same table with write-only = true (no compaction, no expiration), for
//     comparison.
//
// Simulated time. A real run makes its commits within minutes, so with the default 1 h nothing
// would ever expire by time. The commits are therefore spread over simulated time, one commit per
// `--interval-s` seconds (a Flink checkpoint interval). Fjord's public API has no clock to inject
// into a commit (snapshots take the system clock's time) or into its post-commit maintenance, so
// the program runs, after each commit, the same expiration as a job (Table::ExpireSnapshots, the
// table's own retention options) with `older_than` set to what the simulated clock says: snapshot
// expiration keeps a snapshot whose time is >= now - time-retained, which for commit i at
// simulated time i * interval means every commit j >= i - time-retained / interval; those are
// exactly the snapshots whose real time is >= the real time taken just before commit j. The
// committer's own maintenance also runs, on the real clock, and expires nothing by time in a run
// shorter than an hour.
//
//   expire_bytes --dir DIR [--commits 1000] [--every 50] [--keys 20000] [--rows 200]
//       [--interval-s 10] [--buckets 2] [--out FILE.md]

#include <arrow/api.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "upsert_rows.h"

namespace {

using namespace fjord;
namespace fs = std::filesystem;

int64_t RealNowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

struct Sample {
  int64_t commits = 0;
  int64_t bytes = 0;
  int64_t files = 0;
  int64_t snapshots = 0;
  int64_t data_bytes = 0;  // data files (bucket-N/), the rest is metadata
  int64_t live_bytes = 0;  // data files of the latest snapshot
};

struct Args {
  std::string dir, out;
  int64_t commits = 1000, every = 50, keys = 20000, rows = 200, interval_s = 10, buckets = 2;
};

// Every file under the table directory, and the snapshot files among them.
Sample Measure(const std::string& table_dir) {
  Sample s;
  for (const auto& e : fs::recursive_directory_iterator(table_dir)) {
    if (!e.is_regular_file()) continue;
    s.bytes += static_cast<int64_t>(e.file_size());
    ++s.files;
    if (e.path().parent_path().filename().string().rfind("bucket-", 0) == 0) {
      s.data_bytes += static_cast<int64_t>(e.file_size());
    }
    if (e.path().filename().string().rfind("snapshot-", 0) == 0) ++s.snapshots;
  }
  return s;
}

struct Run {
  std::vector<Sample> samples;
  int64_t expired = 0;  // snapshots the simulated-clock expiration removed
  double seconds = 0;
  WriteMetrics metrics;
};

Result<Run> RunVariant(Catalog& catalog, const Args& a, bool expiring) {
  std::string name = expiring ? "expiring" : "write_only";
  TableSpec spec;
  spec.fields = ParseColumnList("id INT NOT NULL, s0 STRING, s1 STRING, s2 STRING").value();
  spec.primary_keys = {"id"};
  spec.options = {{"bucket", std::to_string(a.buckets)}};
  if (!expiring) spec.options.emplace_back("write-only", "true");
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse("bench." + name));
  FJORD_RETURN_NOT_OK(catalog.CreateTable(id, spec));
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<Table> table, catalog.GetTable(id));
  const std::string dir = table->path();

  std::mt19937_64 rng(7);  // the same rows for both variants
  std::vector<std::string> pool = bench::StringPool(rng);
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("s0", arrow::utf8()),
                     arrow::field("s1", arrow::utf8()), arrow::field("s2", arrow::utf8())});
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<TableWrite> writer, table->NewWrite());
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<TableCommit> commit, table->NewCommit("bench"));

  const int64_t window = 3600 / a.interval_s;     // commits within snapshot.time-retained (1 h)
  std::vector<int64_t> before(a.commits + 1, 0);  // real time just before commit i
  Run run;
  auto start = std::chrono::steady_clock::now();
  int64_t last_end = 0;
  for (int64_t i = 1; i <= a.commits; ++i) {
    // Commit 1 loads every key; later commits upsert `rows` random keys.
    std::shared_ptr<arrow::Table> rows;
    if (i == 1) {
      arrow::Int32Builder ids;
      std::vector<arrow::StringBuilder> strings(3);
      (void)ids.Reserve(a.keys);
      for (auto& b : strings) {
        (void)b.Reserve(a.keys);
        (void)b.ReserveData(a.keys * 20);
      }
      for (int64_t k = 0; k < a.keys; ++k) {
        ids.UnsafeAppend(static_cast<int32_t>(k));
        for (auto& b : strings) b.UnsafeAppend(pool[rng() % pool.size()]);
      }
      arrow::ArrayVector arrays = {ids.Finish().ValueOrDie()};
      for (auto& b : strings) arrays.push_back(b.Finish().ValueOrDie());
      rows = arrow::Table::Make(schema, arrays, a.keys);
    } else {
      rows = bench::UpsertBatch(rng, a.keys, pool, a.rows, schema);
    }
    // The real clock moves past the previous commit's snapshots, so that real time orders the
    // commits strictly.
    while (RealNowMillis() <= last_end) std::this_thread::sleep_for(std::chrono::microseconds(200));
    before[i] = RealNowMillis();
    FJORD_RETURN_NOT_OK(WriteTable(*writer, *rows));
    FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit(i));
    FJORD_RETURN_NOT_OK(commit->Commit(messages, i).status());
    last_end = RealNowMillis();
    if (expiring) {
      // Simulated now = i * interval: commits j < i - window are older than 1 h.
      ExpireOptions expire;
      expire.now_millis = last_end;
      expire.older_than_millis = before[std::max<int64_t>(1, i - window)];
      FJORD_ASSIGN_OR_RAISE(ExpireResult r, table->ExpireSnapshots(expire));
      run.expired += r.snapshots_expired;
    }
    if (i % a.every == 0 || i == a.commits) {
      Sample s = Measure(dir);
      s.commits = i;
      FJORD_ASSIGN_OR_RAISE(ReadPlan plan, table->NewRead().Plan());
      for (const PlannedFile& f : plan.files) s.live_bytes += f.file_size;
      run.samples.push_back(s);
      std::printf("%-10s commits %5lld  %8.2f MB  %6lld files  %5lld snapshots  live %6.2f MB\n",
                  name.c_str(), static_cast<long long>(i), s.bytes / 1e6,
                  static_cast<long long>(s.files), static_cast<long long>(s.snapshots),
                  s.live_bytes / 1e6);
      std::fflush(stdout);
    }
  }
  FJORD_RETURN_NOT_OK(commit->Close());
  run.metrics = writer->metrics();
  run.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return run;
}

std::string Report(const Args& a, const Run& e, const Run& w) {
  std::ostringstream o;
  char line[256];
  o << "| commits | simulated time | bytes, default retention | of which data files | live data "
       "| snapshots | files | bytes, write-only | snapshots | files |\n"
       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  for (size_t k = 0; k < e.samples.size() && k < w.samples.size(); ++k) {
    const Sample& x = e.samples[k];
    const Sample& y = w.samples[k];
    int64_t t = x.commits * a.interval_s;
    std::snprintf(line, sizeof(line),
                  "| %lld | %lldh%02lldm | %.2f MB | %.2f MB | %.2f MB | %lld | %lld | %.2f MB | "
                  "%lld | %lld |\n",
                  static_cast<long long>(x.commits), static_cast<long long>(t / 3600),
                  static_cast<long long>(t % 3600 / 60), x.bytes / 1e6, x.data_bytes / 1e6,
                  x.live_bytes / 1e6, static_cast<long long>(x.snapshots),
                  static_cast<long long>(x.files), y.bytes / 1e6,
                  static_cast<long long>(y.snapshots), static_cast<long long>(y.files));
    o << line;
  }
  return o.str();
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--dir")
      a.dir = v;
    else if (k == "--out")
      a.out = v;
    else if (k == "--commits")
      a.commits = std::stoll(v);
    else if (k == "--every")
      a.every = std::stoll(v);
    else if (k == "--keys")
      a.keys = std::stoll(v);
    else if (k == "--rows")
      a.rows = std::stoll(v);
    else if (k == "--interval-s")
      a.interval_s = std::stoll(v);
    else if (k == "--buckets")
      a.buckets = std::stoll(v);
  }
  if (a.dir.empty() || a.commits < 1 || a.every < 1 || a.interval_s < 1 || a.keys < 1) {
    std::cerr << "usage: expire_bytes --dir DIR [--commits 1000] [--every 50] [--keys 20000] "
                 "[--rows 200] [--interval-s 10] [--buckets 2] [--out FILE.md]\n";
    return 2;
  }
  auto fail = [](const Status& st) {
    std::cerr << "expire_bytes: " << st.ToString() << "\n";
    return 1;
  };
  auto catalog = Catalog::Open(a.dir);
  if (!catalog.ok()) return fail(catalog.status());
  if (Status st = (*catalog)->CreateDatabase("bench", true); !st.ok()) return fail(st);
  std::printf(
      "%lld upsert commits of %lld rows over %lld keys (commit 1 loads every key), %lld buckets, "
      "one commit per %lld s of simulated time\n",
      static_cast<long long>(a.commits), static_cast<long long>(a.rows),
      static_cast<long long>(a.keys), static_cast<long long>(a.buckets),
      static_cast<long long>(a.interval_s));
  Result<Run> expiring = RunVariant(**catalog, a, true);
  if (!expiring.ok()) return fail(expiring.status());
  Result<Run> write_only = RunVariant(**catalog, a, false);
  if (!write_only.ok()) return fail(write_only.status());

  std::string table = Report(a, *expiring, *write_only);
  std::ostringstream summary;
  char line[512];
  std::snprintf(line, sizeof(line),
                "Default retention: %lld snapshots expired, writer %lld compactions, %.1f s. "
                "Write-only: %lld files written, %.1f s.\n",
                static_cast<long long>(expiring->expired),
                static_cast<long long>(expiring->metrics.compactions), expiring->seconds,
                static_cast<long long>(write_only->metrics.files_written), write_only->seconds);
  summary << line;
  std::cout << "\n" << table << "\n" << summary.str();
  if (!a.out.empty()) {
    std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof(date), "%Y-%m-%d", std::gmtime(&now));
    std::ofstream f(a.out);
    f << "# Bytes on disk under " << a.commits << " upsert commits (" << date << ")\n\n"
      << "`make bench-expire` (bench/expire_bytes.cc): a primary-key table (INT key, three "
         "20-character STRINGs, bucket "
      << a.buckets << ") loaded with " << a.keys << " keys, then " << a.rows
      << " random upserts per commit over the same keys, one streaming writer with writer "
         "compaction (defaults). One commit per "
      << a.interval_s
      << " s of simulated time; the default retention (snapshot.num-retained.min 10, max "
         "unset, snapshot.time-retained 1 h, changelog-producer none) applied on that clock "
         "after each commit (bench/README.md says how). Bytes are every file under the table "
         "directory; MB = 10^6 bytes.\n\n"
      << table << "\n"
      << summary.str();
    if (!f) return fail(Status::IOError("cannot write ", a.out));
  }
  return 0;
}
