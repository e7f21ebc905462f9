// The differential test's side of the story: random table configurations and an in-memory model
// of each merge engine written from spec/behaviour.md §3.4-3.6 and §13 (not from Fjord's merge
// functions). The model keeps every record of a key since the key was last removed and folds them
// in merge order (user sequence fields, NULL smallest, then arrival), so it predicts what a reader
// that merges all of a key's records sees, and (LookupChanges) the lookup changelog of a key
// compacted once.
//
// Java's merges are not always independent of how records were grouped into files and
// compactions (a -D that a max-level compaction dropped is forgotten; a retract leading a merge
// seeds the row; remove-record-on-delete rows lose their delete mark when an insert follows in
// the same merge). The generator (Generator) avoids those sequences rather than modelling file
// layout; the rules are listed where they are applied.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace fjord::difftest {

// Columns of the test table: PK (p, k); p is the partition key when the table is partitioned.
enum Col { kP, kK, kS1, kS2, kA, kB, kC, kD, kF, kG, kNumCols };
enum class ColType { kString, kInt, kBigInt, kBool, kIntArray, kIntMap };
ColType TypeOf(int col);
const char* NameOf(int col);
// "p STRING NOT NULL, k INT NOT NULL, ..." for ParseColumnList.
std::string ColumnList();

struct Cell {
  bool null = true;
  int64_t i = 0;                   // INT, BIGINT, BOOLEAN (0/1)
  std::string s;                   // STRING
  std::vector<int64_t> list;       // ARRAY<INT>
  std::map<int64_t, int64_t> map;  // MAP<INT, INT>
  static Cell Int(int64_t v) {
    Cell c;
    c.null = false;
    c.i = v;
    return c;
  }
};
// Canonical text of a cell: arrays are sorted (collect's order is not compared), maps by key.
std::string CellText(int col, const Cell& c);

enum class Kind : int8_t { kInsert = 0, kUpdateBefore = 1, kUpdateAfter = 2, kDelete = 3 };
inline bool IsRetract(Kind k) { return k == Kind::kUpdateBefore || k == Kind::kDelete; }
const char* KindText(Kind k);

struct Record {
  Kind kind = Kind::kInsert;
  std::vector<Cell> row;  // kNumCols cells
};
std::string RecordText(const Record& r);

enum class Engine { kDeduplicate, kPartialUpdate, kAggregation, kFirstRow };
const char* EngineName(Engine e);

struct Config {
  Engine engine = Engine::kDeduplicate;
  bool partitioned = false;
  int buckets = 1;
  std::string format = "parquet";
  int keys = 20;  // distinct k values
  bool ignore_delete = false;
  bool remove_record_on_delete = false;  // partial-update / aggregation
  std::vector<int> sequence_fields;      // table sequence.field
  bool late_records = false;             // sequence values may go backwards per key
  std::vector<std::pair<std::vector<int>, std::vector<int>>> groups;  // seq fields -> columns
  std::map<int, std::string> functions;  // aggregate function per column
  std::set<int> ignore_retract;
  bool collect_distinct = false;
  bool retracts = false;       // the generator emits -U/-D
  bool update_before = false;  // ... including -U
  std::string write_buffer = "8 kb";
  std::string target_file = "4 kb";
  int trigger = 2;
  bool spillable = true;
  bool write_only = false;
  // Lookup tables (issue 19): deletion vectors and/or changelog-producer = lookup, with
  // lookup-wait and changelog-producer.row-deduplicate.
  bool deletion_vectors = false;
  bool lookup_changelog = false;
  bool lookup_wait = true;
  bool row_deduplicate = false;

  std::vector<std::pair<std::string, std::string>> TableOptions() const;
  std::string Describe() const;
  int GroupOf(int col) const;  // index into groups, or -1
  // Compactions go through Java's lookup rules (LookupStrategy.needLookup): first-row, deletion
  // vectors, lookup changelog.
  bool NeedsLookup() const {
    return engine == Engine::kFirstRow || deletion_vectors || lookup_changelog;
  }
};

// A random configuration for `engine`.
Config RandomConfig(Engine engine, std::mt19937_64& rng);

using Key = std::pair<std::string, int64_t>;

class Model {
 public:
  explicit Model(const Config* config) : c_(config) {}
  void Apply(const Record& r);
  // Visible rows: key -> canonical text of all columns.
  std::map<Key, std::string> Visible() const;
  // Whether a key has a visible row / any insert since it was last removed.
  bool Exists(const Key& key) const;
  // Facts the generator needs.
  std::optional<Record> Winner(const Key& key) const;   // deduplicate: the record that wins
  std::vector<Cell> MaxSequence(const Key& key) const;  // largest sequence.field values seen
  bool Frozen(const Key& key) const { return frozen_.count(key) > 0; }
  void Unfreeze() { frozen_.clear(); }
  // first-row: the kind of the record that wins (+I or +U).
  std::optional<Kind> FirstRowKind(const Key& key) const;
  // Keys that took a record (one not dropped at write time) since ClearTouched: the keys a lookup
  // compaction of those records writes changelog for.
  const std::set<Key>& Touched() const { return touched_; }
  void ClearTouched() { touched_.clear(); }

 private:
  struct Entry {
    std::vector<std::pair<int64_t, Record>> records;  // (arrival, record)
  };
  std::optional<std::vector<Cell>> Fold(const Entry& e) const;
  std::vector<std::pair<int64_t, Record>> Sorted(const Entry& e) const;

  const Config* c_;
  int64_t arrival_ = 0;
  std::map<Key, Entry> entries_;
  std::set<Key> frozen_;  // removed by remove-record-on-delete, until a full compaction
  std::set<Key> touched_;
};

// The lookup changelog of `key` (each of "<kind> <row text>") when all its records since the table
// held `before` go through one lookup compaction and give `after` (rows by key, as
// Model::Visible); `model` holds those records (first-row: the winning record's kind).
std::vector<std::string> LookupChanges(const Config& config, const Model& model,
                                       const std::map<Key, std::string>& before,
                                       const std::map<Key, std::string>& after, const Key& key);

// Random records that keep clear of the layout-dependent corners (see the file comment).
class Generator {
 public:
  Generator(const Config* config, std::mt19937_64* rng) : c_(config), rng_(rng) {}
  // A record for a random key, given what the table holds now (`model`).
  Record Next(const Model& model);

 private:
  Cell RandomValue(int col, bool for_retract);
  int64_t Uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(*rng_);
  }
  bool Chance(double p) { return std::uniform_real_distribution<double>(0, 1)(*rng_) < p; }
  const Config* c_;
  std::mt19937_64* rng_;
};

// Compares sequence values (NULL smallest), field by field.
int CompareSequence(const std::vector<Cell>& a, const std::vector<Cell>& b);

}  // namespace fjord::difftest
