// Fjord's side of `make bench` (bench/README.md): one workload per process, on the rows of
// bench_rows.h, with the same table options as interop/java's `bench` command. Prints one JSON line
// (rows, raw bytes, checksum, ...); the orchestrator (run_bench.py) measures time, CPU and RSS.
//
//   engine_fjord WORKLOAD --dir DIR [--rows N] [--keys K] [--commits C] [--block B]
//                [--threads T] [--buckets B] [--light 1] [--paths 1] [--files F] [--partitions P]
//                [--option KEY=VALUE]...
//
// --threads: the writer's, the reader's and the compaction's threads (0 = one per core, the
// default); --buckets: buckets of the primary-key tables (1 by default). bench/thread_scaling.py
// runs the workloads at 1 and 2 threads on 4 buckets. For the reads, --light 1 folds the light
// checksum (bench_rows.h) and --paths 1 adds the paths of the data files read (relative to --dir)
// to the JSON line: bench/read_limits.py has DuckDB read the same files. plan-setup writes the
// planning table (--files files in --partitions partitions), plan and plan-filtered plan a read of
// all of it or of one partition (bench/plan_bench.py; --threads: scan.manifest.parallelism).
// --option adds a table option to the tables the workload creates (e.g. write-buffer-size=4 gb;
// bench/README.md, `make bench-scale`).
//
// WORKLOAD: append-write, read-filtered, read-append, pk-write, plan-setup, plan, plan-filtered,
// read-pk, compact, commits, and the upserts with the writer's own compaction (bench/README.md,
// `make bench-lookup`): pk-write-compacting, pk-write-dv, pk-write-lookup and their reads
// read-compacting, read-dv, read-lookup.

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <string>
#include <vector>

#include "bench_rows.h"
#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/memory_pool.h"

namespace {

using namespace fjord;
namespace fb = fjord::bench;

struct Args {
  std::string workload, dir;
  int64_t rows = 10'000'000, keys = 1'000'000, commits = 10'000, block = 1000, runs = 5;
  int threads = 0, buckets = 1;
  int64_t files = 100'000, partitions = 10'000;  // plan-setup
  bool light = false, paths = false;
  std::vector<std::pair<std::string, std::string>> options;  // --option KEY=VALUE
};

constexpr int64_t kBatch = 8192;

// Table options both engines set explicitly (Paimon's defaults, spelled out).
const std::vector<std::pair<std::string, std::string>> kCommon = {
    {"file.format", "parquet"},
    {"file.compression", "zstd"},
    {"file.compression.zstd-level", "1"},
    {"target-file-size", "128 mb"}};

std::string Columns(bool with_partition) {
  std::string c = with_partition ? "p INT, k INT" : "k INT NOT NULL";
  for (int j = 0; j < fb::kStrings; ++j) c += ", s" + std::to_string(j) + " STRING";
  return c;
}

// The upsert tables whose writer compacts (not write-only): the table and the options that set
// it apart from the plain primary-key table.
struct PkVariant {
  const char* table;
  std::vector<std::pair<std::string, std::string>> options;
};

const PkVariant* VariantOf(const std::string& name) {
  static const std::vector<std::pair<std::string, PkVariant>> kVariants = {
      {"compacting", {"pk_compacting", {}}},
      {"dv", {"pk_dv", {{"deletion-vectors.enabled", "true"}}}},
      {"lookup", {"pk_lookup", {{"changelog-producer", "lookup"}}}}};
  for (const auto& [n, v] : kVariants) {
    if (n == name) return &v;
  }
  return nullptr;
}

Result<std::unique_ptr<Table>> CreateTable(
    const Args& a, const std::string& name, bool pk,
    const std::vector<std::pair<std::string, std::string>>& extra = {}) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, Catalog::Open(a.dir));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("bench", true));
  TableSpec spec;
  bool partitioned = name == "append" || name == "plan";
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(Columns(partitioned)));
  if (partitioned) spec.partition_keys = {"p"};
  if (pk) spec.primary_keys = {"k"};
  spec.options = kCommon;
  if (pk) {
    spec.options.emplace_back("bucket", std::to_string(a.buckets));
    spec.options.emplace_back("write-buffer-spillable", "true");
  }
  for (const auto& kv : extra) spec.options.push_back(kv);
  for (const auto& kv : a.options) spec.options.push_back(kv);
  FJORD_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("bench." + name));
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec));
  return catalog->GetTable(id);
}

Result<std::unique_ptr<Table>> OpenTable(const Args& a, const std::string& name) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, Catalog::Open(a.dir));
  FJORD_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("bench." + name));
  return catalog->GetTable(id);
}

// Commits `messages` under `identifier` as user "bench".
Status CommitAs(const Table& table, const std::string& user, const CommitMessages& messages,
                int64_t identifier) {
  FJORD_ASSIGN_OR_RAISE(auto commit, table.NewCommit(user));
  return commit->Commit(messages, identifier).status();
}

Status AppendWrite(const Args& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, CreateTable(a, "append", false));
  WriteOptions options;
  options.threads = a.threads;
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite(options));
  for (int64_t i = 0; i < a.rows; i += kBatch) {
    FJORD_RETURN_NOT_OK(
        WriteBatch(*writer, *fb::MakeRows(i, std::min(kBatch, a.rows - i), a.keys, true)));
  }
  FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit());
  FJORD_RETURN_NOT_OK(CommitAs(*table, "bench", messages, kBatchCommitIdentifier));
  int64_t files = messages.new_file_count();
  std::printf("{\"rows\": %lld, \"bytes\": %lld, \"files\": %lld}\n",
              static_cast<long long>(a.rows), static_cast<long long>(a.rows * fb::RowBytes(true)),
              static_cast<long long>(files));
  return Status::OK();
}

// `a.runs` commits of rows/runs upserts each, write-only (compaction is its own workload).
Status PkWrite(const Args& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, CreateTable(a, "pk", true));
  WriteOptions options;
  options.threads = a.threads;
  options.dynamic_options["write-only"] = "true";
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite(options));
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit("bench"));
  int64_t files = 0, written = 0;
  for (int64_t c = 0; c < a.runs; ++c) {
    int64_t end = a.rows * (c + 1) / a.runs;
    for (; written < end; written += std::min(kBatch, end - written)) {
      auto batch = fb::MakeRows(written, std::min(kBatch, end - written), a.keys, false);
      FJORD_RETURN_NOT_OK(WriteBatch(*writer, *batch));
    }
    FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit(c));
    files += messages.new_file_count();
    FJORD_RETURN_NOT_OK(commit->Commit(messages, c).status());
  }
  std::printf("{\"rows\": %lld, \"bytes\": %lld, \"files\": %lld}\n",
              static_cast<long long>(a.rows), static_cast<long long>(a.rows * fb::RowBytes(false)),
              static_cast<long long>(files));
  return Status::OK();
}

// As PkWrite, into a table of `variant`, with the writer's compaction (not write-only): each
// PrepareCommit waits for the compaction it triggers, as Java's prepareCommit(true, ...) does (and
// as Java's `lookup-wait` makes a streaming writer of a lookup table do).
Status PkWriteCompacting(const Args& a, const PkVariant& variant) {
  FJORD_ASSIGN_OR_RAISE(auto table, CreateTable(a, variant.table, true, variant.options));
  WriteOptions options;
  options.threads = a.threads;
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite(options));
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit("bench"));
  int64_t files = 0, written = 0, compacted_commits = 0, compactions = 0;
  for (int64_t c = 0; c < a.runs; ++c) {
    int64_t end = a.rows * (c + 1) / a.runs;
    for (; written < end; written += std::min(kBatch, end - written)) {
      auto batch = fb::MakeRows(written, std::min(kBatch, end - written), a.keys, false);
      FJORD_RETURN_NOT_OK(WriteBatch(*writer, *batch));
    }
    FJORD_ASSIGN_OR_RAISE(CommitMessages messages,
                          writer->PrepareCommit(c, /*wait_compaction=*/true));
    files += messages.new_file_count();
    int64_t now = writer->metrics().compactions;
    if (now > compactions) ++compacted_commits;
    compactions = now;
    FJORD_RETURN_NOT_OK(commit->Commit(messages, c).status());
  }
  std::printf("{\"rows\": %lld, \"bytes\": %lld, \"files\": %lld, \"compacted_commits\": %lld}\n",
              static_cast<long long>(a.rows), static_cast<long long>(a.rows * fb::RowBytes(false)),
              static_cast<long long>(files), static_cast<long long>(compacted_commits));
  return Status::OK();
}

Status ReadAndSum(const Args& a, const std::string& name, const std::string& where, bool part) {
  FJORD_ASSIGN_OR_RAISE(auto table, OpenTable(a, name));
  ReadBuilder read = table->NewRead();
  read.Where(where).WithThreads(a.threads);
  FJORD_ASSIGN_OR_RAISE(ReadPlan plan, read.Plan());
  int64_t files = static_cast<int64_t>(plan.files.size());
  FJORD_ASSIGN_OR_RAISE(auto reader, OpenArrowReader(read));
  fb::Checksum sum(a.light);
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    if (arrow::Status st = reader->ReadNext(&batch); !st.ok())
      return Status::IOError(st.ToString());
    if (!batch) break;
    if (arrow::Status st = sum.Add(*batch); !st.ok()) return Status::Invalid(st.ToString());
  }
  std::string paths;
  for (const PlannedFile& f : plan.files) {
    if (!a.paths) break;
    std::string dir = "bench.db/" + name + "/" + (f.partition.empty() ? "" : f.partition + "/");
    paths += std::string(paths.empty() ? "" : ", ") + "\"" + dir + "bucket-" +
             std::to_string(f.bucket) + "/" + f.file_name + "\"";
  }
  std::printf("{\"rows\": %lld, \"bytes\": %lld, \"checksum\": \"%s\", \"files\": %lld%s}\n",
              static_cast<long long>(sum.rows()),
              static_cast<long long>(sum.rows() * fb::RowBytes(part)), sum.Hex().c_str(),
              static_cast<long long>(files),
              a.paths ? (", \"paths\": [" + paths + "]").c_str() : "");
  return Status::OK();
}

Status Compact(const Args& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, OpenTable(a, "pk"));
  FJORD_ASSIGN_OR_RAISE(ReadPlan plan, table->NewRead().Plan());
  int64_t rows_in = 0, files_in = 0;
  for (const PlannedFile& f : plan.files) rows_in += f.row_count, ++files_in;
  CompactionOptions options;
  options.full = true;
  options.threads = a.threads;
  FJORD_ASSIGN_OR_RAISE(auto job, table->NewCompaction(options));
  FJORD_ASSIGN_OR_RAISE(CompactionResult result, job->Run());
  int64_t files_out = result.files_out;
  std::printf("{\"rows\": %lld, \"bytes\": %lld, \"files_in\": %lld, \"files_out\": %lld}\n",
              static_cast<long long>(rows_in),
              static_cast<long long>(rows_in * fb::RowBytes(false)),
              static_cast<long long>(files_in), static_cast<long long>(files_out));
  return Status::OK();
}

// The table of the planning benchmark (bench/plan_bench.py): an append table of `a.files` data
// files of 2 rows each, spread evenly over `a.partitions` partitions, in commits of at most 1,000
// files (one per partition), as a streaming job adding files over time leaves it.
Status PlanSetup(const Args& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, CreateTable(a, "plan", false));
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit("bench"));
  const int64_t per_commit = std::min<int64_t>(1000, a.partitions);
  int64_t files = 0, identifier = 0;
  for (int64_t round = 0; files < a.files; ++round) {
    for (int64_t first = 0; first < a.partitions && files < a.files; first += per_commit) {
      int64_t n = std::min({per_commit, a.partitions - first, a.files - files});
      auto rows = fb::MakeRows(files * 2, n * 2, a.keys, true);
      // Column 0 is p: rows 2i and 2i + 1 go to partition first + i.
      arrow::Int32Builder p;
      for (int64_t i = 0; i < n * 2; ++i) (void)p.Append(static_cast<int32_t>(first + i / 2));
      rows = rows->SetColumn(0, rows->schema()->field(0), p.Finish().ValueOrDie()).ValueOrDie();
      FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite());
      FJORD_RETURN_NOT_OK(WriteBatch(*writer, *rows));
      FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit(identifier));
      FJORD_RETURN_NOT_OK(commit->Commit(messages, identifier++).status());
      files += n;
    }
  }
  std::printf("{\"rows\": %lld, \"bytes\": 0, \"files\": %lld, \"commits\": %lld}\n",
              static_cast<long long>(files * 2), static_cast<long long>(files),
              static_cast<long long>(identifier));
  return Status::OK();
}

// Plans a read of the planning table (all of it, or one partition), reads nothing.
Status Plan(const Args& a, bool one_partition) {
  FJORD_ASSIGN_OR_RAISE(auto table, OpenTable(a, "plan"));
  ReadBuilder read = table->NewRead();
  if (a.threads > 0) read.WithOptions({{"scan.manifest.parallelism", std::to_string(a.threads)}});
  if (one_partition) read.Where("p = " + std::to_string(a.partitions / 2 + 1));
  auto start = std::chrono::steady_clock::now();
  FJORD_ASSIGN_OR_RAISE(ReadPlan plan, read.Plan());
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  start = std::chrono::steady_clock::now();  // once more, as Java's side does
  FJORD_RETURN_NOT_OK(read.Plan().status());
  double again = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  int64_t rows = 0;
  for (const PlannedFile& f : plan.files) rows += f.row_count;
  std::printf(
      "{\"rows\": %lld, \"bytes\": 0, \"files\": %lld, \"splits\": %lld, \"plan_s\": %.4f, "
      "\"plan_again_s\": %.4f}\n",
      static_cast<long long>(rows), static_cast<long long>(plan.files.size()),
      static_cast<long long>(plan.splits), seconds, again);
  return Status::OK();
}

double Percentile(std::vector<double> v, double q) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(q * static_cast<double>(v.size() - 1) + 0.5);
  return v[std::min(i, v.size() - 1)];
}

// `a.commits` commits of 3 rows (one data file) each to an unpartitioned append table; only the
// commit call is timed. Prints p50/p99 per block of `a.block` commits.
Status Commits(const Args& a) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, Catalog::Open(a.dir));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("bench", true));
  TableSpec spec;
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(Columns(false)));
  spec.options = kCommon;
  FJORD_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("bench.commits"));
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec));
  FJORD_ASSIGN_OR_RAISE(auto table, catalog->GetTable(id));
  FJORD_ASSIGN_OR_RAISE(auto writer, table->NewWrite());
  FJORD_ASSIGN_OR_RAISE(auto commit, table->NewCommit("bench"));
  std::vector<double> block;
  std::string blocks;
  double total = 0;
  for (int64_t c = 0; c < a.commits; ++c) {
    FJORD_RETURN_NOT_OK(WriteBatch(*writer, *fb::MakeRows(3 * c, 3, a.keys, false)));
    FJORD_ASSIGN_OR_RAISE(CommitMessages messages, writer->PrepareCommit(c));
    auto t0 = std::chrono::steady_clock::now();
    FJORD_RETURN_NOT_OK(commit->Commit(messages, c).status());
    double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    total += ms;
    block.push_back(ms);
    if (static_cast<int64_t>(block.size()) == a.block || c + 1 == a.commits) {
      char buf[128];
      std::snprintf(buf, sizeof buf, "%s[%lld, %.3f, %.3f]", blocks.empty() ? "" : ", ",
                    static_cast<long long>(c + 1), Percentile(block, 0.5), Percentile(block, 0.99));
      blocks += buf;
      block.clear();
    }
  }
  std::printf(
      "{\"rows\": %lld, \"bytes\": %lld, \"commits\": %lld, \"commit_ms_total\": %.3f, "
      "\"blocks\": [%s]}\n",
      static_cast<long long>(3 * a.commits),
      static_cast<long long>(3 * a.commits * fb::RowBytes(false)),
      static_cast<long long>(a.commits), total, blocks.c_str());
  return Status::OK();
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
    if (f == "--commits") a.commits = std::stoll(v);
    if (f == "--block") a.block = std::stoll(v);
    if (f == "--runs") a.runs = std::stoll(v);
    if (f == "--threads") a.threads = std::stoi(v);
    if (f == "--buckets") a.buckets = std::stoi(v);
    if (f == "--light") a.light = v == "1";
    if (f == "--files") a.files = std::stoll(v);
    if (f == "--partitions") a.partitions = std::stoll(v);
    if (f == "--paths") a.paths = v == "1";
    if (f == "--option") {
      size_t eq = v.find('=');
      if (eq == std::string::npos) {
        std::fprintf(stderr, "engine_fjord: --option %s: expected KEY=VALUE\n", v.c_str());
        return 2;
      }
      a.options.emplace_back(v.substr(0, eq), v.substr(eq + 1));
    }
  }
  Status st;
  if (a.dir.empty()) {
    st = Status::Invalid("usage: engine_fjord WORKLOAD --dir DIR [--rows N] [--keys K] ...");
  } else if (a.workload == "append-write") {
    st = AppendWrite(a);
  } else if (a.workload == "read-filtered") {
    st = ReadAndSum(a, "append", "p = 3 AND k < " + std::to_string(a.keys / 10), true);
  } else if (a.workload == "read-append") {
    st = ReadAndSum(a, "append", "", true);
  } else if (a.workload == "pk-write") {
    st = PkWrite(a);
  } else if (a.workload.rfind("pk-write-", 0) == 0 && VariantOf(a.workload.substr(9))) {
    st = PkWriteCompacting(a, *VariantOf(a.workload.substr(9)));
  } else if (a.workload.rfind("read-", 0) == 0 && VariantOf(a.workload.substr(5))) {
    st = ReadAndSum(a, VariantOf(a.workload.substr(5))->table, "", false);
  } else if (a.workload == "read-pk") {
    st = ReadAndSum(a, "pk", "", false);
  } else if (a.workload == "compact") {
    st = Compact(a);
  } else if (a.workload == "commits") {
    st = Commits(a);
  } else if (a.workload == "plan-setup") {
    st = PlanSetup(a);
  } else if (a.workload == "plan" || a.workload == "plan-filtered") {
    st = Plan(a, a.workload == "plan-filtered");
  } else {
    st = Status::Invalid("unknown workload: ", a.workload);
  }
  FileIO::ShutdownFileSystems();
  if (!st.ok()) {
    std::cerr << "engine_fjord: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
