// Differential test of the merge engines (issue 6): seeded random runs, each on a random table
// configuration (diff_model.h), drive Fjord's primary-key writer through upserts, deletes,
// update-befores, commits, writer restarts and dedicated compactions, and after every commit
// compare a full read of the table (and sometimes of an older snapshot) with an in-memory model
// of the engine. On a mismatch it prints the seed, the configuration, the operation trace and the
// difference, and exits 1.
//
// Usage: fjord_differential_test [--runs N] [--seconds S] [--cpu-seconds C] [--seed BASE]
//                                [--engine NAME] [--run-seed SEED] [--verbose]
// Runs cycle through the four engines (or only --engine); run i uses seed BASE + i. It stops
// after N runs, S seconds or C seconds of process CPU time, whichever comes first, and prints
// the run counts per engine.
// --run-seed replays one run (with --engine).
#include <arrow/api.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "diff_model.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/primary_key_write.h"

namespace fjord::difftest {
namespace {

// A fresh directory, removed with everything in it at scope exit.
class TempDir {
 public:
  TempDir() {
    std::string templ = (std::filesystem::temp_directory_path() / "fjord-difftest-XXXXXX").string();
    path_ = ::mkdtemp(templ.data()) ? templ : templ;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct RunStats {
  int runs = 0;
  int64_t ops = 0;
  int64_t records = 0;
  int64_t commits = 0;
  int64_t restarts = 0;
  int64_t full_compactions = 0;
  int64_t writer_compactions = 0;
  int64_t snapshot_checks = 0;
};

std::shared_ptr<arrow::Table> ToArrow(const std::vector<Record>& records) {
  arrow::StringBuilder p, c, kind;
  arrow::Int32Builder k, s1, s2;
  arrow::Int64Builder a, b;
  arrow::BooleanBuilder d;
  auto f = std::make_shared<arrow::ListBuilder>(arrow::default_memory_pool(),
                                                std::make_shared<arrow::Int32Builder>());
  auto g = std::make_shared<arrow::MapBuilder>(arrow::default_memory_pool(),
                                               std::make_shared<arrow::Int32Builder>(),
                                               std::make_shared<arrow::Int32Builder>());
  auto* f_values = static_cast<arrow::Int32Builder*>(f->value_builder());
  auto* g_keys = static_cast<arrow::Int32Builder*>(g->key_builder());
  auto* g_items = static_cast<arrow::Int32Builder*>(g->item_builder());
  auto int32 = [](arrow::Int32Builder& bld, const Cell& x) {
    (void)(x.null ? bld.AppendNull() : bld.Append(static_cast<int32_t>(x.i)));
  };
  for (const Record& r : records) {
    const auto& row = r.row;
    (void)p.Append(row[kP].s);
    (void)k.Append(static_cast<int32_t>(row[kK].i));
    int32(s1, row[kS1]);
    int32(s2, row[kS2]);
    (void)(row[kA].null ? a.AppendNull() : a.Append(row[kA].i));
    (void)(row[kB].null ? b.AppendNull() : b.Append(row[kB].i));
    (void)(row[kC].null ? c.AppendNull() : c.Append(row[kC].s));
    (void)(row[kD].null ? d.AppendNull() : d.Append(row[kD].i != 0));
    if (row[kF].null) {
      (void)f->AppendNull();
    } else {
      (void)f->Append();
      for (int64_t v : row[kF].list) (void)f_values->Append(static_cast<int32_t>(v));
    }
    if (row[kG].null) {
      (void)g->AppendNull();
    } else {
      (void)g->Append();
      for (const auto& [mk, mv] : row[kG].map) {
        (void)g_keys->Append(static_cast<int32_t>(mk));
        (void)g_items->Append(static_cast<int32_t>(mv));
      }
    }
    (void)kind.Append(KindText(r.kind));
  }
  arrow::FieldVector fields = {arrow::field("p", arrow::utf8()),
                               arrow::field("k", arrow::int32()),
                               arrow::field("s1", arrow::int32()),
                               arrow::field("s2", arrow::int32()),
                               arrow::field("a", arrow::int64()),
                               arrow::field("b", arrow::int64()),
                               arrow::field("c", arrow::utf8()),
                               arrow::field("d", arrow::boolean()),
                               arrow::field("f", f->type()),
                               arrow::field("g", g->type()),
                               arrow::field("_row_kind", arrow::utf8())};
  arrow::ArrayVector columns = {
      p.Finish().ValueOrDie(),  k.Finish().ValueOrDie(),   s1.Finish().ValueOrDie(),
      s2.Finish().ValueOrDie(), a.Finish().ValueOrDie(),   b.Finish().ValueOrDie(),
      c.Finish().ValueOrDie(),  d.Finish().ValueOrDie(),   f->Finish().ValueOrDie(),
      g->Finish().ValueOrDie(), kind.Finish().ValueOrDie()};
  return arrow::Table::Make(arrow::schema(fields), columns);
}

int64_t IntAt(const arrow::Array& arr, int64_t i) {
  switch (arr.type_id()) {
    case arrow::Type::INT32:
      return static_cast<const arrow::Int32Array&>(arr).Value(i);
    case arrow::Type::INT64:
      return static_cast<const arrow::Int64Array&>(arr).Value(i);
    case arrow::Type::BOOL:
      return static_cast<const arrow::BooleanArray&>(arr).Value(i);
    default:
      return 0;
  }
}

Cell CellAt(int col, const arrow::Array& arr, int64_t i) {
  Cell c;
  if (arr.IsNull(i)) return c;
  c.null = false;
  switch (TypeOf(col)) {
    case ColType::kString:
      c.s = std::string(static_cast<const arrow::StringArray&>(arr).GetView(i));
      break;
    case ColType::kIntArray: {
      const auto& list = static_cast<const arrow::ListArray&>(arr);
      auto values = list.values();
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        c.list.push_back(IntAt(*values, j));
      }
      break;
    }
    case ColType::kIntMap: {
      const auto& list = static_cast<const arrow::ListArray&>(arr);
      const auto& entries = static_cast<const arrow::StructArray&>(*list.values());
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        c.map[IntAt(*entries.field(0), j)] = IntAt(*entries.field(1), j);
      }
      break;
    }
    default:
      c.i = IntAt(arr, i);
  }
  return c;
}

// Rows of a read, by key; a key read twice is reported in `duplicates`.
std::map<Key, std::string> FromArrow(const arrow::Table& rows, std::vector<Key>* duplicates) {
  std::map<Key, std::string> out;
  auto combined = rows.CombineChunks().ValueOrDie();
  std::vector<std::shared_ptr<arrow::Array>> cols;
  for (int c = 0; c < kNumCols; ++c) {
    auto column = combined->column(c);
    cols.push_back(column->num_chunks() > 0 ? column->chunk(0) : nullptr);
  }
  for (int64_t r = 0; r < combined->num_rows(); ++r) {
    std::string text;
    Key key;
    for (int c = 0; c < kNumCols; ++c) {
      Cell cell = CellAt(c, *cols[c], r);
      if (c == kP) key.first = cell.s;
      if (c == kK) key.second = cell.i;
      text += (c ? "|" : "") + CellText(c, cell);
    }
    if (!out.emplace(key, text).second) duplicates->push_back(key);
  }
  return out;
}

std::string KeyText(const Key& k) { return k.first + "/" + std::to_string(k.second); }

// Differences between the table and the model; `subset`: the table may miss keys (first-row
// reads skip level 0).
std::vector<std::string> Diff(const std::map<Key, std::string>& got,
                              const std::map<Key, std::string>& want, bool subset) {
  std::vector<std::string> out;
  for (const auto& [k, v] : want) {
    auto it = got.find(k);
    if (it == got.end()) {
      if (!subset) out.push_back("missing " + KeyText(k) + ": model " + v);
    } else if (it->second != v) {
      out.push_back("differs " + KeyText(k) + ": table " + it->second + " model " + v);
    }
  }
  for (const auto& [k, v] : got) {
    if (!want.count(k)) out.push_back("extra " + KeyText(k) + ": table " + v);
  }
  return out;
}

class Run {
 public:
  Run(Engine engine, uint64_t seed, bool verbose)
      : engine_(engine), seed_(seed), verbose_(verbose), rng_(seed) {}

  // Empty on success, else the failure report.
  std::string Execute(RunStats* stats);

 private:
  Status Setup();
  Status Restart();
  Status Commit();
  Status FullCompaction();
  std::string Check(std::optional<int64_t> snapshot, bool exact);
  std::string Fail(const std::string& what);
  void Trace(const std::string& line) {
    trace_.push_back(line);
    if (verbose_) std::cerr << line << "\n";
  }

  Engine engine_;
  uint64_t seed_;
  bool verbose_;
  std::mt19937_64 rng_;
  Config config_;
  TempDir dir_;
  std::unique_ptr<FileStoreTable> table_;
  std::unique_ptr<PrimaryKeyTableWrite> writer_;
  std::unique_ptr<Model> committed_, current_;
  std::map<int64_t, std::map<Key, std::string>> snapshots_;  // snapshot id -> model rows
  std::map<int64_t, bool> snapshot_full_;                    // first-row: read equals the model
  int64_t identifier_ = 0;
  int64_t writer_compactions_ = 0;
  std::vector<std::string> trace_;
};

Status Run::Setup() {
  config_ = RandomConfig(engine_, rng_);
  FJORD_ASSIGN_OR_RAISE(auto catalog, FileSystemCatalog::Open(dir_.Join("wh")));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(ColumnList()));
  spec.primary_keys = {"p", "k"};
  if (config_.partitioned) spec.partition_keys = {"p"};
  spec.options = config_.TableOptions();
  FJORD_ASSIGN_OR_RAISE(auto id, TableIdentifier::Parse("db.t"));
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec));
  FJORD_ASSIGN_OR_RAISE(table_, catalog->GetTable(id));
  committed_ = std::make_unique<Model>(&config_);
  current_ = std::make_unique<Model>(&config_);
  Trace("config " + std::string(EngineName(engine_)) + " " + config_.Describe());
  return Restart();
}

Status Run::Restart() {
  if (writer_) writer_compactions_ += writer_->metrics().compactions;
  writer_.reset();
  FJORD_ASSIGN_OR_RAISE(writer_, PrimaryKeyTableWrite::Create(table_.get()));
  *current_ = *committed_;
  return Status::OK();
}

Status Run::Commit() {
  FJORD_ASSIGN_OR_RAISE(auto messages, writer_->PrepareCommit());
  FileStoreCommit commit(table_->io(), table_->path(), table_->schema(), "diff-writer");
  FJORD_ASSIGN_OR_RAISE(auto snapshot, commit.Commit(messages, ++identifier_));
  *committed_ = *current_;
  if (snapshot) {
    for (int64_t id : commit.last_stats().snapshots) {
      snapshots_[id] = committed_->Visible();
      snapshot_full_[id] = false;
    }
  }
  Trace("commit " + std::to_string(identifier_) + " -> snapshot " +
        (snapshot ? std::to_string(*snapshot) : std::string("none")));
  return Status::OK();
}

Status Run::FullCompaction() {
  TableWriteOptions options;
  options.dynamic_options["write-only"] = "false";
  FJORD_ASSIGN_OR_RAISE(auto compactor, PrimaryKeyTableWrite::Create(table_.get(), options));
  FJORD_ASSIGN_OR_RAISE(auto buckets, compactor->LiveBuckets());
  for (const auto& b : buckets) FJORD_RETURN_NOT_OK(compactor->CompactBucket(b, true));
  FJORD_ASSIGN_OR_RAISE(auto messages, compactor->PrepareCommit());
  FileStoreCommit commit(table_->io(), table_->path(), table_->schema(), "diff-compactor");
  FJORD_ASSIGN_OR_RAISE(auto snapshot, commit.Commit(messages, ++identifier_));
  // Every delete row is gone now: removed keys may take inserts again.
  committed_->Unfreeze();
  current_->Unfreeze();
  if (snapshot) {
    for (int64_t id : commit.last_stats().snapshots) {
      snapshots_[id] = committed_->Visible();
      snapshot_full_[id] = true;
    }
  }
  Trace("full compaction of " + std::to_string(buckets.size()) + " buckets -> snapshot " +
        (snapshot ? std::to_string(*snapshot) : std::string("none")));
  // The writer's view of the files is stale now (a Java job would run write-only writers).
  return Restart();
}

std::string Run::Check(std::optional<int64_t> snapshot, bool exact) {
  ReadRequest request;
  request.selector.snapshot_id = snapshot;
  auto read = table_->Read(request);
  if (!read.ok()) return "read failed: " + read.status().ToString();
  std::vector<Key> duplicates;
  auto got = FromArrow(*read->rows, &duplicates);
  const std::map<Key, std::string>& want = snapshot ? snapshots_[*snapshot] : committed_->Visible();
  bool subset = engine_ == Engine::kFirstRow && !exact;
  std::vector<std::string> diff = Diff(got, want, subset);
  for (const Key& k : duplicates) diff.push_back("key read twice: " + KeyText(k));
  if (diff.empty()) return "";
  std::string out =
      "read of " +
      (snapshot ? "snapshot " + std::to_string(*snapshot) : std::string("the latest snapshot")) +
      " differs from the model:\n";
  for (const auto& line : diff) out += "  " + line + "\n";
  return out;
}

std::string Run::Fail(const std::string& what) {
  std::string out = "FAIL engine=" + std::string(EngineName(engine_)) +
                    " run-seed=" + std::to_string(seed_) + "\n" + what + "\ntrace:\n";
  for (const auto& line : trace_) out += "  " + line + "\n";
  out += "replay: fjord_differential_test --engine " + std::string(EngineName(engine_)) +
         " --run-seed " + std::to_string(seed_) + "\n";
  return out;
}

std::string Run::Execute(RunStats* stats) {
  Status st = Setup();
  if (!st.ok()) return Fail("setup: " + st.ToString());
  Generator gen(&config_, &rng_);
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); };
  int steps = uniform(30, 90);
  // Some runs compact fully often, some never before the end: compactions below the max level
  // with data above them need the latter.
  int full_percent = std::vector<int>{0, 2, 8}[static_cast<size_t>(uniform(0, 2))];
  Trace("full compactions: " + std::to_string(full_percent) + "% of steps");
  for (int step = 0; step <= steps; ++step) {
    int op = step == steps ? 100 : uniform(0, 99);
    ++stats->ops;
    if (op < 55) {
      std::vector<Record> batch;
      // Now and then a bulk load: a big max level under small level-0 runs makes the picker
      // compact below the max level.
      int n = uniform(0, 9) == 0 ? uniform(100, 600) : uniform(1, 40);
      for (int i = 0; i < n; ++i) {
        batch.push_back(gen.Next(*current_));
        current_->Apply(batch.back());
        Trace("  " + RecordText(batch.back()));
      }
      stats->records += n;
      st = writer_->Write(ToArrow(batch));
      if (!st.ok()) return Fail("write: " + st.ToString());
      continue;
    }
    if (op < 62) {
      Trace("restart writer (uncommitted records dropped)");
      ++stats->restarts;
      st = Restart();
      if (!st.ok()) return Fail("restart: " + st.ToString());
      continue;
    }
    if (op < 67 && !snapshots_.empty()) {
      auto it = snapshots_.begin();
      std::advance(it, uniform(0, static_cast<int>(snapshots_.size()) - 1));
      Trace("read snapshot " + std::to_string(it->first));
      ++stats->snapshot_checks;
      std::string diff = Check(it->first, snapshot_full_[it->first]);
      if (!diff.empty()) return Fail(diff);
      continue;
    }
    st = Commit();
    if (!st.ok()) return Fail("commit: " + st.ToString());
    ++stats->commits;
    bool full = op >= 100 - full_percent;
    if (full) {
      st = FullCompaction();
      if (!st.ok()) return Fail("full compaction: " + st.ToString());
      ++stats->full_compactions;
    }
    std::string diff = Check(std::nullopt, full);
    if (!diff.empty()) return Fail(diff);
  }
  writer_compactions_ += writer_->metrics().compactions;
  stats->writer_compactions += writer_compactions_;
  ++stats->runs;
  return "";
}

int Main(int argc, char** argv) {
  int64_t max_runs = 200;
  double seconds = 40;
  double cpu_seconds = 1e9;
  uint64_t base = 20261129;
  std::optional<uint64_t> run_seed;
  std::vector<Engine> engines = {Engine::kDeduplicate, Engine::kPartialUpdate, Engine::kAggregation,
                                 Engine::kFirstRow};
  bool verbose = false;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--runs") {
      max_runs = std::stoll(next());
    } else if (a == "--seconds") {
      seconds = std::stod(next());
    } else if (a == "--cpu-seconds") {
      cpu_seconds = std::stod(next());
    } else if (a == "--seed") {
      base = std::stoull(next());
    } else if (a == "--run-seed") {
      run_seed = std::stoull(next());
    } else if (a == "--verbose") {
      verbose = true;
    } else if (a == "--engine") {
      std::string name = next();
      engines.clear();
      for (Engine e : {Engine::kDeduplicate, Engine::kPartialUpdate, Engine::kAggregation,
                       Engine::kFirstRow}) {
        if (name == EngineName(e)) engines.push_back(e);
      }
      if (engines.empty()) {
        std::cerr << "unknown engine " << name << "\n";
        return 2;
      }
    } else {
      std::cerr << "unknown argument " << a << "\n";
      return 2;
    }
  }
  std::map<Engine, RunStats> stats;
  auto start = std::chrono::steady_clock::now();
  int failures = 0;
  for (int64_t i = 0; i < max_runs; ++i) {
    double elapsed =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double cpu = static_cast<double>(std::clock()) / CLOCKS_PER_SEC;
    if (!run_seed && (elapsed > seconds || cpu > cpu_seconds)) break;
    Engine engine = engines[i % engines.size()];
    uint64_t seed = run_seed ? *run_seed : base + static_cast<uint64_t>(i);
    Run run(engine, seed, verbose);
    std::string failure = run.Execute(&stats[engine]);
    if (!failure.empty()) {
      std::cout << failure << std::flush;
      ++failures;
      break;
    }
    if (run_seed) break;
  }
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (const auto& [engine, s] : stats) {
    std::cout << EngineName(engine) << ": " << s.runs << " runs, " << s.ops << " ops, " << s.records
              << " records, " << s.commits << " commits, " << s.restarts << " restarts, "
              << s.full_compactions << " full compactions, " << s.writer_compactions
              << " writer compactions, " << s.snapshot_checks << " old-snapshot reads\n";
  }
  std::cout << (failures ? "FAILED" : "OK") << " in " << elapsed << " s, "
            << static_cast<double>(std::clock()) / CLOCKS_PER_SEC << " s of CPU (base seed " << base
            << ")\n";
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace fjord::difftest

int main(int argc, char** argv) { return fjord::difftest::Main(argc, argv); }
