// Differential test of the merge engines (issue 6): seeded random runs, each on a random table
// configuration (diff_model.h), drive Fjord's primary-key writer through upserts, deletes,
// update-befores, commits, writer restarts and dedicated compactions, and after every commit
// compare a full read of the table (and sometimes of an older snapshot) with an in-memory model
// of the engine. Lookup tables (deletion vectors, changelog-producer = lookup) are also checked
// once no level-0 file is left: reads through the vectors, and the changelog replayed and
// compared with the model's changes. On a mismatch it prints the seed, the configuration, the
// operation trace and the difference, and exits 1.
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
#include <set>
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
  // Lookup tables (deletion vectors, lookup changelog).
  int dv_runs = 0;
  int changelog_runs = 0;
  int64_t lookup_commits = 0;          // commits and full compactions of those runs
  int64_t complete_points = 0;         // ... after which no level-0 file is left
  int64_t dv_reads = 0;                // reads of deletion-vector tables compared with the model
  int64_t dv_layered_reads = 0;        // ... with files in two levels or more and a vector
  int64_t dv_skipped_reads = 0;        // ... skipped: level-0 files left (lookup-wait false)
  int64_t changelog_checks = 0;        // changelog replays compared with the model
  int64_t exact_changelog_checks = 0;  // ... also compared change by change
  int64_t changes = 0;                 // changelog rows read
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

// A cell as stored: arrays and maps in their stored order (the canonical text sorts them; Java's
// row-deduplicate compares rows as they are).
std::string StoredText(int col, const arrow::Array& arr, int64_t i) {
  ColType type = TypeOf(col);
  if (arr.IsNull(i) || (type != ColType::kIntArray && type != ColType::kIntMap)) {
    return CellText(col, CellAt(col, arr, i));
  }
  const auto& list = static_cast<const arrow::ListArray&>(arr);
  std::string out = "[";
  for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
    out += j > list.value_offset(i) ? "," : "";
    if (type == ColType::kIntArray) {
      out += std::to_string(IntAt(*list.values(), j));
    } else {
      const auto& entries = static_cast<const arrow::StructArray&>(*list.values());
      out += std::to_string(IntAt(*entries.field(0), j)) + ":" +
             std::to_string(IntAt(*entries.field(1), j));
    }
  }
  return out + "]";
}

// Rows of a read in read order, as (key, canonical text); `first` is the index of column p
// (1 when a `_row_kind` column comes first). `stored`, when given, gets each row as stored.
std::vector<std::pair<Key, std::string>> RowsOf(const arrow::Table& rows, int first,
                                                std::vector<std::string>* stored = nullptr) {
  std::vector<std::pair<Key, std::string>> out;
  auto combined = rows.CombineChunks().ValueOrDie();
  std::vector<std::shared_ptr<arrow::Array>> cols;
  for (int c = 0; c < kNumCols; ++c) {
    auto column = combined->column(first + c);
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
    if (stored) {
      std::string as_stored;
      for (int c = 0; c < kNumCols; ++c) {
        as_stored += (c ? "|" : "") + StoredText(c, *cols[c], r);
      }
      stored->push_back(std::move(as_stored));
    }
    out.emplace_back(key, std::move(text));
  }
  return out;
}

// Rows of a read, by key; a key read twice is reported in `duplicates`.
std::map<Key, std::string> FromArrow(const arrow::Table& rows, std::vector<Key>* duplicates) {
  std::map<Key, std::string> out;
  for (auto& [key, text] : RowsOf(rows, 0)) {
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
  Status Commit(bool wait, bool* had_data, bool* early_flush);
  Status FullCompaction();
  std::string Check(std::optional<int64_t> snapshot, bool exact);
  // Lookup tables: the checks after a commit (`full`: a dedicated full compaction).
  std::string CheckLookupTable(bool full, bool waited, bool had_data, bool early_flush,
                               RunStats* stats);
  std::string CheckChangelog(int64_t latest, bool exact, RunStats* stats);
  struct Files {
    std::optional<int64_t> snapshot;
    bool level0 = false;
    std::set<int> levels;  // levels above 0 holding files
    int64_t vectors = 0;
  };
  Result<Files> FilesOf(std::optional<int64_t> snapshot);
  // The changelog rows of the snapshots after `after` up to `to`, in read order (per bucket in
  // snapshot and file order).
  struct Change {
    Key key;
    std::string text;    // "<kind> <row>", the row's canonical text
    std::string stored;  // the row as stored
  };
  Result<std::vector<Change>> ReadChangelog(int64_t after, int64_t to);
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
  // Lookup tables. A point is complete when the latest snapshot holds no level-0 file: every
  // record went through a lookup compaction, so deletion-vector reads (which skip level 0) and
  // the changelog are whole.
  int64_t flushes_seen_ = 0;             // the writer's early flushes at its last commit
  std::map<Key, std::string> replayed_;  // the changelog of snapshots 1..changelog_to_, applied
  int64_t changelog_to_ = 0;
  std::map<Key, std::string> complete_rows_;  // the model at the last complete point
  // Since the last complete point each key's records went through at most one lookup
  // compaction, so its changelog is exactly the change from complete_rows_ to the model.
  bool interval_exact_ = true;
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
  flushes_seen_ = 0;
  *current_ = *committed_;
  return Status::OK();
}

Status Run::Commit(bool wait, bool* had_data, bool* early_flush) {
  FJORD_ASSIGN_OR_RAISE(auto messages, writer_->PrepareCommit(wait));
  *had_data = false;
  for (const CommitMessage& m : messages) *had_data |= !m.new_files.empty();
  // Buffers flushed before prepare-commit (not spillable): several level-0 runs in a bucket.
  *early_flush = writer_->metrics().buffer_flushes > flushes_seen_;
  flushes_seen_ = writer_->metrics().buffer_flushes;
  FileStoreCommit commit(table_->io(), table_->path(), table_->schema(), "diff-writer");
  FJORD_ASSIGN_OR_RAISE(auto snapshot, commit.Commit(messages, ++identifier_));
  *committed_ = *current_;
  if (snapshot) {
    for (int64_t id : commit.last_stats().snapshots) {
      snapshots_[id] = committed_->Visible();
      snapshot_full_[id] = false;
    }
  }
  Trace(std::string(wait ? "" : "no-wait ") + "commit " + std::to_string(identifier_) +
        " -> snapshot " + (snapshot ? std::to_string(*snapshot) : std::string("none")));
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

Result<Run::Files> Run::FilesOf(std::optional<int64_t> snapshot) {
  ScanSelector selector;
  selector.snapshot_id = snapshot;
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan, table_->Plan(selector));
  Files out;
  if (plan.snapshot) out.snapshot = plan.snapshot->id;
  for (const DataSplit& split : plan.splits) {
    for (const DataFileMeta& f : split.files) {
      if (f.level == 0) out.level0 = true;
      if (f.level > 0) out.levels.insert(f.level);
    }
    out.vectors += static_cast<int64_t>(split.deletion_files.size());
  }
  return out;
}

Result<std::vector<Run::Change>> Run::ReadChangelog(int64_t after, int64_t to) {
  FJORD_ASSIGN_OR_RAISE(
      auto incremental,
      table_->WithDynamicOptions(
          {{"incremental-between", std::to_string(after) + "," + std::to_string(to)},
           {"incremental-between-scan-mode", "changelog"}}));
  FJORD_ASSIGN_OR_RAISE(ReadResult read, incremental->Read(ReadRequest{}));
  std::vector<Change> out;
  if (read.rows->num_rows() == 0) return out;
  std::vector<std::string> stored;
  auto rows = RowsOf(*read.rows, 1, &stored);
  auto kinds = read.rows->CombineChunks().ValueOrDie()->column(0)->chunk(0);
  const auto& kind_text = static_cast<const arrow::StringArray&>(*kinds);
  for (size_t i = 0; i < rows.size(); ++i) {
    std::string kind(kind_text.GetView(static_cast<int64_t>(i)));
    out.push_back(Change{rows[i].first, kind + " " + rows[i].second, std::move(stored[i])});
  }
  return out;
}

std::string Run::CheckChangelog(int64_t latest, bool exact, RunStats* stats) {
  std::vector<Change> changes;
  if (latest > changelog_to_) {
    auto read = ReadChangelog(changelog_to_, latest);
    if (!read.ok()) return "changelog read failed: " + read.status().ToString();
    changes = std::move(*read);
  }
  Trace("changelog of snapshots " + std::to_string(changelog_to_ + 1) + ".." +
        std::to_string(latest) + ": " + std::to_string(changes.size()) + " rows" +
        (exact ? " (exact)" : ""));
  stats->changes += static_cast<int64_t>(changes.size());
  changelog_to_ = latest;
  // Applied in order: a retraction names the row the key holds, -U is followed by the key's +U,
  // +I only for a key without a row (first-row: +I/+U only for new keys).
  std::string out;
  std::map<Key, std::vector<std::string>> per_key;
  bool first_row = config_.engine == Engine::kFirstRow;
  for (size_t i = 0; i < changes.size(); ++i) {
    const Key& key = changes[i].key;
    const std::string& change = changes[i].text;
    per_key[key].push_back(change);
    std::string kind = change.substr(0, 2);
    std::string row = change.substr(3);
    auto live = replayed_.find(key);
    if (kind == "-U" || kind == "-D") {
      if (first_row) out += "  a retraction in a first-row changelog: " + change + "\n";
      if (live == replayed_.end()) {
        out += "  " + kind + " of a key without a row: " + change + "\n";
      } else if (live->second != row) {
        out += "  " + kind + " of another row: " + change + ", replayed " + live->second + "\n";
      }
      if (kind == "-U") {
        bool paired = i + 1 < changes.size() && changes[i + 1].key == key &&
                      changes[i + 1].text.substr(0, 2) == "+U";
        if (!paired) out += "  -U not followed by the key's +U: " + change + "\n";
        if (paired && config_.row_deduplicate && changes[i + 1].stored == changes[i].stored) {
          out += "  -U/+U of equal rows despite row-deduplicate: " + change + "\n";
        }
      }
      if (live != replayed_.end()) replayed_.erase(live);
      continue;
    }
    bool after_update_before =
        i > 0 && changes[i - 1].key == key && changes[i - 1].text.substr(0, 2) == "-U";
    if ((kind == "+I" || first_row) && live != replayed_.end()) {
      out += "  " + kind + " of a key that has a row: " + change + "\n";
    } else if (kind == "+U" && !first_row && !after_update_before) {
      out += "  +U without its -U: " + change + "\n";
    }
    replayed_[key] = row;
  }
  const std::map<Key, std::string> want = committed_->Visible();
  for (const auto& line : Diff(replayed_, want, false)) out += "  replayed " + line + "\n";
  ++stats->changelog_checks;
  if (exact && out.empty()) {
    ++stats->exact_changelog_checks;
    std::set<Key> keys = committed_->Touched();
    for (const auto& [key, _] : per_key) keys.insert(key);
    for (const Key& key : keys) {
      std::vector<std::string> expected =
          committed_->Touched().count(key)
              ? LookupChanges(config_, *committed_, complete_rows_, want, key)
              : std::vector<std::string>{};
      const std::vector<std::string>& got = per_key[key];
      if (got == expected) continue;
      if (config_.row_deduplicate && expected.empty() && committed_->Touched().count(key)) {
        // Rows equal up to the order of an array or a map (the model does not keep it): a -U/+U
        // pair is right when the rows differ as stored (checked above).
        Config keep_pairs = config_;
        keep_pairs.row_deduplicate = false;
        if (got == LookupChanges(keep_pairs, *committed_, complete_rows_, want, key)) continue;
      }
      out += "  changes of " + KeyText(key) + ":\n";
      for (const auto& c : got) out += "    table " + c + "\n";
      for (const auto& c : expected) out += "    model " + c + "\n";
    }
  }
  if (out.empty()) return "";
  return "changelog up to snapshot " + std::to_string(latest) + " differs from the model:\n" + out;
}

std::string Run::CheckLookupTable(bool full, bool waited, bool had_data, bool early_flush,
                                  RunStats* stats) {
  ++stats->lookup_commits;
  auto files = FilesOf(std::nullopt);
  if (!files.ok()) return "plan failed: " + files.status().ToString();
  bool complete = !files->level0;
  // Java's prepare-commit of a compacting writer of a lookup table waits until level 0 is empty
  // (lookup-wait, the default; with lookup-wait false only batch commits wait).
  if (!full && config_.lookup_wait && waited && !config_.write_only && !complete) {
    return "level-0 files left after a commit of a lookup table with lookup-wait";
  }
  if (!complete) {
    // Later lookup compactions (the writer's, or the full compaction) of level-0 runs of more
    // than one commit: a key may pass through several.
    if (had_data && !config_.write_only) interval_exact_ = false;
  } else {
    ++stats->complete_points;
  }
  // Deletion-vector reads skip level 0 (as Java's); first-row reads skip it too, so they are a
  // subset of the model until level 0 is empty.
  if (config_.deletion_vectors && !complete) {
    ++stats->dv_skipped_reads;
  } else {
    if (config_.deletion_vectors) {
      ++stats->dv_reads;
      if (files->levels.size() >= 2 && files->vectors > 0) ++stats->dv_layered_reads;
    }
    std::string diff = Check(std::nullopt, complete);
    if (!diff.empty()) return diff;
  }
  if (!complete) return "";
  // A commit whose buckets each got one level-0 run (no early flush) compacted each key once;
  // a full compaction compacts all level-0 runs at once.
  bool exact = interval_exact_ && (full || config_.write_only || !early_flush);
  if (config_.lookup_changelog && files->snapshot) {
    std::string diff = CheckChangelog(*files->snapshot, exact, stats);
    if (!diff.empty()) return diff;
  }
  complete_rows_ = committed_->Visible();
  committed_->ClearTouched();
  current_->ClearTouched();
  interval_exact_ = true;
  return "";
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
      bool exact = snapshot_full_[it->first];
      if (config_.NeedsLookup()) {
        // Without level-0 files a first-row read is the model; a deletion-vector read with
        // level-0 files is older than the model.
        auto files = FilesOf(it->first);
        if (!files.ok()) return Fail("plan: " + files.status().ToString());
        if (config_.deletion_vectors && files->level0) continue;
        exact = exact || !files->level0;
      }
      ++stats->snapshot_checks;
      std::string diff = Check(it->first, exact);
      if (!diff.empty()) return Fail(diff);
      continue;
    }
    // lookup-wait = false: streaming checkpoints do not wait for compaction, batch commits do.
    bool wait = !config_.NeedsLookup() || config_.lookup_wait || uniform(0, 9) < 3;
    bool had_data = false, early_flush = false;
    st = Commit(wait, &had_data, &early_flush);
    if (!st.ok()) return Fail("commit: " + st.ToString());
    ++stats->commits;
    std::string diff;
    if (config_.NeedsLookup()) diff = CheckLookupTable(false, wait, had_data, early_flush, stats);
    if (!diff.empty()) return Fail(diff);
    bool full = op >= 100 - full_percent;
    if (full) {
      st = FullCompaction();
      if (!st.ok()) return Fail("full compaction: " + st.ToString());
      ++stats->full_compactions;
      if (config_.NeedsLookup()) diff = CheckLookupTable(true, true, false, false, stats);
      if (!diff.empty()) return Fail(diff);
    }
    if (!config_.NeedsLookup()) diff = Check(std::nullopt, full);
    if (!diff.empty()) return Fail(diff);
  }
  stats->dv_runs += config_.deletion_vectors;
  stats->changelog_runs += config_.lookup_changelog;
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
    if (s.dv_runs + s.changelog_runs == 0) continue;
    std::cout << "  lookup tables: " << s.dv_runs << " runs with deletion vectors, "
              << s.changelog_runs << " with the lookup changelog; " << s.lookup_commits
              << " commits, " << s.complete_points << " without level 0; " << s.dv_reads
              << " deletion-vector reads (" << s.dv_layered_reads
              << " over several levels with vectors, " << s.dv_skipped_reads
              << " skipped with level 0); " << s.changelog_checks << " changelog replays ("
              << s.exact_changelog_checks << " change by change), " << s.changes
              << " changelog rows\n";
  }
  // Deletion-vector reads must have gone through vectors over several levels, not only over
  // one max-level run.
  int64_t dv_runs = 0, layered = 0;
  for (const auto& [engine, s] : stats) {
    dv_runs += s.dv_runs;
    layered += s.dv_layered_reads;
  }
  if (dv_runs >= 8 && layered == 0) {
    std::cout << "no deletion-vector read over several levels with vectors in " << dv_runs
              << " runs\n";
    ++failures;
  }
  std::cout << (failures ? "FAILED" : "OK") << " in " << elapsed << " s, "
            << static_cast<double>(std::clock()) / CLOCKS_PER_SEC << " s of CPU (base seed " << base
            << ")\n";
  return failures ? 1 : 0;
}

}  // namespace
}  // namespace fjord::difftest

int main(int argc, char** argv) { return fjord::difftest::Main(argc, argv); }
