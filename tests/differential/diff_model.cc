#include "diff_model.h"

#include <algorithm>
#include <sstream>

namespace fjord::difftest {

ColType TypeOf(int col) {
  switch (col) {
    case kP:
    case kC:
      return ColType::kString;
    case kK:
    case kS1:
    case kS2:
      return ColType::kInt;
    case kA:
    case kB:
      return ColType::kBigInt;
    case kD:
      return ColType::kBool;
    case kF:
      return ColType::kIntArray;
    default:
      return ColType::kIntMap;
  }
}

const char* NameOf(int col) {
  static const char* kNames[] = {"p", "k", "s1", "s2", "a", "b", "c", "d", "f", "g"};
  return kNames[col];
}

std::string ColumnList() {
  return "p STRING NOT NULL, k INT NOT NULL, s1 INT, s2 INT, a BIGINT, b BIGINT, c STRING, "
         "d BOOLEAN, f ARRAY<INT>, g MAP<INT, INT>";
}

std::string CellText(int col, const Cell& c) {
  if (c.null) return "null";
  std::ostringstream out;
  switch (TypeOf(col)) {
    case ColType::kString:
      return c.s;
    case ColType::kBool:
      return c.i ? "true" : "false";
    case ColType::kIntArray: {
      std::vector<int64_t> v = c.list;
      std::sort(v.begin(), v.end());
      out << "[";
      for (size_t i = 0; i < v.size(); ++i) out << (i ? "," : "") << v[i];
      out << "]";
      return out.str();
    }
    case ColType::kIntMap: {
      out << "{";
      bool first = true;
      for (const auto& [k, v] : c.map) {
        out << (first ? "" : ",") << k << ":" << v;
        first = false;
      }
      out << "}";
      return out.str();
    }
    default:
      return std::to_string(c.i);
  }
}

const char* KindText(Kind k) {
  static const char* kTexts[] = {"+I", "-U", "+U", "-D"};
  return kTexts[static_cast<int>(k)];
}

std::string RecordText(const Record& r) {
  std::string s = KindText(r.kind);
  for (int c = 0; c < kNumCols; ++c) s += (c ? "|" : " ") + CellText(c, r.row[c]);
  return s;
}

const char* EngineName(Engine e) {
  switch (e) {
    case Engine::kDeduplicate:
      return "deduplicate";
    case Engine::kPartialUpdate:
      return "partial-update";
    case Engine::kAggregation:
      return "aggregation";
    default:
      return "first-row";
  }
}

int Config::GroupOf(int col) const {
  for (size_t g = 0; g < groups.size(); ++g) {
    for (int c : groups[g].first) {
      if (c == col) return static_cast<int>(g);
    }
    for (int c : groups[g].second) {
      if (c == col) return static_cast<int>(g);
    }
  }
  return -1;
}

namespace {

std::string Names(const std::vector<int>& cols) {
  std::string s;
  for (int c : cols) s += std::string(s.empty() ? "" : ",") + NameOf(c);
  return s;
}

template <typename T>
const T& Pick(std::mt19937_64& rng, const std::vector<T>& v) {
  return v[std::uniform_int_distribution<size_t>(0, v.size() - 1)(rng)];
}

bool Retractable(const std::string& f) { return f == "sum" || f == "last_value"; }

}  // namespace

std::vector<std::pair<std::string, std::string>> Config::TableOptions() const {
  std::vector<std::pair<std::string, std::string>> o = {
      {"merge-engine", EngineName(engine)},
      {"bucket", std::to_string(buckets)},
      {"file.format", format},
      {"write-buffer-size", write_buffer},
      {"target-file-size", target_file},
      {"num-sorted-run.compaction-trigger", std::to_string(trigger)},
      {"write-buffer-spillable", spillable ? "true" : "false"},
      {"write-only", write_only ? "true" : "false"}};
  if (ignore_delete) o.emplace_back("ignore-delete", "true");
  if (remove_record_on_delete) {
    o.emplace_back(engine == Engine::kAggregation ? "aggregation.remove-record-on-delete"
                                                  : "partial-update.remove-record-on-delete",
                   "true");
  }
  if (!sequence_fields.empty()) o.emplace_back("sequence.field", Names(sequence_fields));
  for (const auto& [seq, cols] : groups) {
    o.emplace_back("fields." + Names(seq) + ".sequence-group", Names(cols));
  }
  for (const auto& [col, f] : functions) {
    o.emplace_back(std::string("fields.") + NameOf(col) + ".aggregate-function", f);
  }
  for (int col : ignore_retract) {
    o.emplace_back(std::string("fields.") + NameOf(col) + ".ignore-retract", "true");
  }
  if (collect_distinct) o.emplace_back("fields.f.distinct", "true");
  if (deletion_vectors) o.emplace_back("deletion-vectors.enabled", "true");
  if (lookup_changelog) o.emplace_back("changelog-producer", "lookup");
  if (NeedsLookup() && !lookup_wait) o.emplace_back("lookup-wait", "false");
  if (row_deduplicate) o.emplace_back("changelog-producer.row-deduplicate", "true");
  return o;
}

std::string Config::Describe() const {
  std::string s = std::string("partitioned=") + (partitioned ? "yes" : "no") +
                  " keys=" + std::to_string(keys) + " retracts=" + (retracts ? "yes" : "no") +
                  (update_before ? "(+-U)" : "") + " late=" + (late_records ? "yes" : "no");
  for (const auto& [k, v] : TableOptions()) s += " " + k + "=" + v;
  return s;
}

Config RandomConfig(Engine engine, std::mt19937_64& rng) {
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto uniform = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  Config c;
  c.engine = engine;
  c.partitioned = chance(0.5);
  c.buckets = uniform(1, 3);
  c.format = Pick<std::string>(rng, {"parquet", "orc", "avro"});
  c.keys = Pick<int>(rng, {4, 10, 25, 60, 400});
  c.write_buffer = Pick<std::string>(rng, {"2 kb", "8 kb", "32 kb", "256 kb"});
  c.target_file = Pick<std::string>(rng, {"1 kb", "4 kb", "64 kb"});
  c.trigger = uniform(2, 4);
  c.spillable = chance(0.6);
  c.write_only = chance(0.15);
  auto seq_fields = [&] {
    return chance(0.5) ? std::vector<int>{kS1} : std::vector<int>{kS1, kS2};
  };
  switch (engine) {
    case Engine::kDeduplicate:
      c.ignore_delete = chance(0.25);
      c.retracts = chance(0.85);
      c.update_before = chance(0.5);
      if (chance(0.45)) {
        c.sequence_fields = seq_fields();
        c.late_records = chance(0.7);
      }
      break;
    case Engine::kFirstRow:
      c.ignore_delete = chance(0.5);
      c.retracts = c.ignore_delete;
      c.update_before = chance(0.5);
      break;
    case Engine::kPartialUpdate: {
      int mode = uniform(0, 3);
      if (mode == 0) {  // plain: inserts only, maybe a sequence field
        if (chance(0.4)) c.sequence_fields = seq_fields();
      } else if (mode == 1) {
        c.ignore_delete = true;
        c.retracts = true;
        c.update_before = chance(0.5);
      } else if (mode == 2) {
        c.remove_record_on_delete = true;
        c.retracts = true;
        c.update_before = false;  // see Generator::Next
      } else {
        c.late_records = true;
        c.retracts = chance(0.6);
        c.update_before = chance(0.5);
        if (chance(0.5)) {
          c.groups = {{{kS1}, {kA, kC}}, {{kS2}, {kB, kD}}};
        } else {
          c.groups = {{{kS1, kS2}, {kA, kB, kC}}};
        }
        // No last_non_null_value here: with out-of-order group sequences its result depends on
        // how records were grouped into merges (an older record aggregates as agg(in, acc)). Nor
        // last_value with retracts: a group retract moves the group's sequence forward while an
        // ignored retract keeps the value, which then wins merges it should have lost.
        for (int col : {kA, kB}) {
          if (chance(0.5)) {
            c.functions[col] = c.retracts
                                   ? Pick<std::string>(rng, {"sum", "max", "min"})
                                   : Pick<std::string>(rng, {"sum", "max", "min", "last_value"});
          }
        }
        if (chance(0.3)) c.functions[kC] = Pick<std::string>(rng, {"max", "min"});
        if (c.retracts) {
          // Group retracts reach aggregators even when their sequence is older; last_value's
          // retract (NULL) would then depend on merge grouping too. Only sum retracts here.
          for (const auto& [col, f] : c.functions) {
            if (f != "sum") c.ignore_retract.insert(col);
          }
        }
      }
      break;
    }
    case Engine::kAggregation: {
      if (chance(0.3)) c.sequence_fields = seq_fields();
      c.retracts = chance(0.6);
      if (c.retracts && (chance(0.3) || !c.sequence_fields.empty())) {
        // Sequence fields aggregate with last_value, whose retract is NULL: a merged -U/-D
        // would sort its row before older records in the next merge.
        c.remove_record_on_delete = true;
      } else if (c.retracts) {
        c.update_before = chance(0.6);
      }
      for (int col : {kS1, kS2, kA, kB, kC, kD, kF, kG}) {
        if (std::find(c.sequence_fields.begin(), c.sequence_fields.end(), col) !=
            c.sequence_fields.end()) {
          continue;
        }
        std::vector<std::string> choices;
        switch (TypeOf(col)) {
          case ColType::kInt:
            choices = {"sum", "max", "min", "last_value", "last_non_null_value", "first_value"};
            break;
          case ColType::kBigInt:
            choices = {"sum",
                       "product",
                       "max",
                       "min",
                       "last_value",
                       "first_value",
                       "first_non_null_value",
                       "last_non_null_value"};
            break;
          case ColType::kString:
            choices = {"listagg",
                       "max",
                       "min",
                       "last_value",
                       "last_non_null_value",
                       "first_value",
                       "first_non_null_value"};
            break;
          case ColType::kBool:
            choices = {"bool_and", "bool_or", "last_value", "last_non_null_value"};
            break;
          case ColType::kIntArray:
            choices = {"collect", "collect", "last_value"};
            break;
          default:
            choices = {"merge_map", "merge_map", "last_non_null_value"};
        }
        c.functions[col] = Pick(rng, choices);
      }
      c.collect_distinct = c.functions[kF] == "collect" && chance(0.4);
      if (c.retracts && !c.remove_record_on_delete) {
        for (const auto& [col, f] : c.functions) {
          if (!Retractable(f)) c.ignore_retract.insert(col);
        }
      }
      // Late records only where merge order cannot matter and retracts do not null sequence
      // fields (their last_value retract yields NULL).
      bool order_free = true;
      for (const auto& [col, f] : c.functions) {
        static const std::set<std::string> kFree = {"sum",      "product", "max",        "min",
                                                    "bool_and", "bool_or", "last_value", "collect"};
        if (!kFree.count(f)) order_free = false;
      }
      c.late_records = !c.sequence_fields.empty() && !c.retracts && order_free;
      break;
    }
  }
  // Lookup tables: about half the runs, split between deletion vectors, the lookup changelog and
  // both. Java refuses deletion vectors with first-row (SchemaValidation); every engine may have
  // the lookup changelog.
  int lookup = uniform(0, 19);
  if (lookup >= 9) {
    c.deletion_vectors = lookup < 13 || lookup >= 17;
    c.lookup_changelog = lookup >= 13;
    if (engine == Engine::kFirstRow && c.deletion_vectors) {
      c.deletion_vectors = false;
      c.lookup_changelog = true;
    }
    c.lookup_wait = chance(0.6);
    c.row_deduplicate = c.lookup_changelog && chance(0.4);
    // A retraction that a compaction dropped (every compaction above level 0 with deletion
    // vectors) no longer beats a later record by sequence.field, nor hands its values to a later
    // partial update (Java alike; status.md, issue 19). The generator's rules (Generator::Next)
    // already keep clear of both: no record sorts below a winning retract, a removed key takes
    // no insert before the next full compaction, group retracts only hit keys holding a row.
  }
  return c;
}

int CompareSequence(const std::vector<Cell>& a, const std::vector<Cell>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (a[i].null != b[i].null) return a[i].null ? -1 : 1;
    if (!a[i].null && a[i].i != b[i].i) return a[i].i < b[i].i ? -1 : 1;
  }
  return 0;
}

namespace {

std::vector<Cell> Pick(const std::vector<Cell>& row, const std::vector<int>& cols) {
  std::vector<Cell> out;
  for (int c : cols) out.push_back(row[c]);
  return out;
}

int CompareCells(int col, const Cell& a, const Cell& b) {
  if (TypeOf(col) == ColType::kString) return a.s < b.s ? -1 : (a.s > b.s ? 1 : 0);
  return a.i < b.i ? -1 : (a.i > b.i ? 1 : 0);
}

// One column's aggregate function (behaviour.md §3.4), with its per-key state.
struct Agg {
  int col;
  std::string f;
  bool distinct = false;
  bool ignore_retract = false;
  bool initialized = false;  // first_value / first_non_null_value

  void Add(Cell* acc, const Cell& in) {
    if (f == "last_value") {
      *acc = in;
    } else if (f == "last_non_null_value") {
      if (!in.null) *acc = in;
    } else if (f == "first_value") {
      if (!initialized) *acc = in;
      initialized = true;
    } else if (f == "first_non_null_value") {
      if (!initialized && !in.null) {
        *acc = in;
        initialized = true;
      }
    } else if (f == "collect") {
      if (in.null && acc->null) return;
      std::vector<int64_t> all = acc->null ? std::vector<int64_t>{} : acc->list;
      if (!in.null) all.insert(all.end(), in.list.begin(), in.list.end());
      if (distinct) {
        std::sort(all.begin(), all.end());
        all.erase(std::unique(all.begin(), all.end()), all.end());
      }
      acc->null = false;
      acc->list = all;
    } else if (in.null || acc->null) {
      if (acc->null) *acc = in;
    } else if (f == "sum") {
      acc->i += in.i;
    } else if (f == "product") {
      acc->i *= in.i;
    } else if (f == "max") {
      if (CompareCells(col, in, *acc) > 0) *acc = in;
    } else if (f == "min") {
      if (CompareCells(col, in, *acc) < 0) *acc = in;
    } else if (f == "listagg") {
      acc->s += "," + in.s;
    } else if (f == "bool_and") {
      acc->i = acc->i && in.i;
    } else if (f == "bool_or") {
      acc->i = acc->i || in.i;
    } else if (f == "merge_map") {
      for (const auto& [k, v] : in.map) acc->map[k] = v;
    }
  }
  // agg(in, acc): `in` is older (partial-update sequence groups).
  void AddReversed(Cell* acc, const Cell& in) {
    Cell older = in;
    Add(&older, *acc);
    *acc = older;
  }
  void Retract(Cell* acc, const Cell& in) {
    if (ignore_retract) return;
    if (f == "last_value") {
      *acc = Cell();
    } else if (f == "last_non_null_value") {
      if (!in.null) *acc = Cell();
    } else if (f == "sum") {
      if (acc->null) {
        if (!in.null) *acc = Cell::Int(-in.i);
      } else if (!in.null) {
        acc->i -= in.i;
      }
    }
  }
};

}  // namespace

std::vector<std::pair<int64_t, Record>> Model::Sorted(const Entry& e) const {
  std::vector<std::pair<int64_t, Record>> v = e.records;
  if (!c_->sequence_fields.empty()) {
    std::stable_sort(v.begin(), v.end(), [&](const auto& x, const auto& y) {
      return CompareSequence(Pick(x.second.row, c_->sequence_fields),
                             Pick(y.second.row, c_->sequence_fields)) < 0;
    });
  }
  return v;
}

void Model::Apply(const Record& r) {
  Key key{r.row[kP].s, r.row[kK].i};
  bool retract = IsRetract(r.kind);
  if (retract && c_->ignore_delete) return;  // dropped at write time
  touched_.insert(key);
  if (retract && c_->remove_record_on_delete && r.kind == Kind::kDelete) {
    entries_.erase(key);
    frozen_.insert(key);
    return;
  }
  if (retract && c_->engine == Engine::kPartialUpdate && c_->remove_record_on_delete) return;
  entries_[key].records.emplace_back(arrival_++, r);
}

std::optional<std::vector<Cell>> Model::Fold(const Entry& e) const {
  auto records = Sorted(e);
  if (records.empty()) return std::nullopt;
  // A key with a single record bypasses the merge function (behaviour.md §3.2, §13.1): e.g. a
  // partial-update row keeps the columns of a sequence group whose sequence field is NULL.
  if (records.size() == 1) {
    const Record& only = records[0].second;
    if (IsRetract(only.kind)) return std::nullopt;
    return only.row;
  }
  switch (c_->engine) {
    case Engine::kDeduplicate: {
      const Record& last = records.back().second;
      if (IsRetract(last.kind)) return std::nullopt;
      return last.row;
    }
    case Engine::kFirstRow:
      for (const auto& [_, r] : records) {
        if (!IsRetract(r.kind)) return r.row;
      }
      return std::nullopt;
    case Engine::kPartialUpdate: {
      std::vector<Cell> row(kNumCols);
      row[kP] = records[0].second.row[kP];
      row[kK] = records[0].second.row[kK];
      std::map<int, Agg> aggs;
      for (const auto& [col, f] : c_->functions) {
        aggs[col] = Agg{col, f, false, c_->ignore_retract.count(col) > 0};
      }
      bool inserted = false;
      for (const auto& [_, r] : records) {
        bool retract = IsRetract(r.kind);
        inserted |= !retract;
        if (c_->groups.empty()) {
          if (retract) continue;  // -U under remove-record-on-delete
          for (int col = kS1; col < kNumCols; ++col) {
            if (!r.row[col].null) row[col] = r.row[col];
          }
          continue;
        }
        for (int col = kS1; col < kNumCols; ++col) {
          int g = c_->GroupOf(col);
          auto agg = aggs.find(col);
          if (g < 0) {
            if (!retract && !r.row[col].null) row[col] = r.row[col];
            continue;
          }
          const auto& seq = c_->groups[g].first;
          if (std::find(seq.begin(), seq.end(), col) != seq.end()) continue;
          std::vector<Cell> in_seq = Pick(r.row, seq);
          bool empty =
              std::all_of(in_seq.begin(), in_seq.end(), [](const Cell& x) { return x.null; });
          if (empty) continue;
          bool newer = CompareSequence(in_seq, Pick(row, seq)) >= 0;
          if (agg != aggs.end()) {
            if (retract) {
              agg->second.Retract(&row[col], r.row[col]);
            } else if (newer) {
              agg->second.Add(&row[col], r.row[col]);
            } else {
              agg->second.AddReversed(&row[col], r.row[col]);
            }
          } else if (newer) {
            row[col] = retract ? Cell() : r.row[col];
          }
        }
        // Sequence fields move after their group's columns were compared.
        for (const auto& [seq, cols] : c_->groups) {
          std::vector<Cell> in_seq = Pick(r.row, seq);
          bool empty =
              std::all_of(in_seq.begin(), in_seq.end(), [](const Cell& x) { return x.null; });
          if (!empty && CompareSequence(in_seq, Pick(row, seq)) >= 0) {
            for (int s : seq) row[s] = r.row[s];
          }
        }
      }
      if (!inserted) return std::nullopt;
      return row;
    }
    case Engine::kAggregation: {
      std::vector<Cell> row(kNumCols);
      row[kP] = records[0].second.row[kP];
      row[kK] = records[0].second.row[kK];
      std::map<int, Agg> aggs;
      for (int col = kS1; col < kNumCols; ++col) {
        auto f = c_->functions.find(col);
        aggs[col] = Agg{col, f == c_->functions.end() ? "last_value" : f->second,
                        col == kF && c_->collect_distinct, c_->ignore_retract.count(col) > 0};
      }
      for (const auto& [_, r] : records) {
        for (int col = kS1; col < kNumCols; ++col) {
          if (IsRetract(r.kind)) {
            aggs[col].Retract(&row[col], r.row[col]);
          } else {
            aggs[col].Add(&row[col], r.row[col]);
          }
        }
      }
      return row;
    }
  }
  return std::nullopt;
}

std::map<Key, std::string> Model::Visible() const {
  std::map<Key, std::string> out;
  for (const auto& [key, e] : entries_) {
    auto row = Fold(e);
    if (!row) continue;
    std::string text;
    for (int c = 0; c < kNumCols; ++c) text += (c ? "|" : "") + CellText(c, (*row)[c]);
    out[key] = text;
  }
  return out;
}

bool Model::Exists(const Key& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return false;
  for (const auto& [_, r] : it->second.records) {
    if (!IsRetract(r.kind)) return true;
  }
  return false;
}

std::optional<Kind> Model::FirstRowKind(const Key& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  for (const auto& [_, r] : Sorted(it->second)) {
    if (!IsRetract(r.kind)) return r.kind;
  }
  return std::nullopt;
}

std::optional<Record> Model::Winner(const Key& key) const {
  auto it = entries_.find(key);
  if (it == entries_.end() || it->second.records.empty()) return std::nullopt;
  return Sorted(it->second).back().second;
}

std::vector<Cell> Model::MaxSequence(const Key& key) const {
  std::vector<Cell> best(c_->sequence_fields.size());
  auto it = entries_.find(key);
  if (it == entries_.end()) return best;
  for (const auto& [_, r] : it->second.records) {
    auto s = Pick(r.row, c_->sequence_fields);
    if (CompareSequence(s, best) > 0) best = s;
  }
  return best;
}

// Java's LookupChangelogMergeFunctionWrapper (1.4.2), per key with level-0 records: with a
// "before" (its row above level 0) and an added result, -U before and +U after (none when
// row-deduplicate finds them equal); with a before and a retracted result, -D before; without a
// before, +I after when the result is an add. first-row (FirstRowMergeFunctionWrapper): a key
// not held above level 0 gets its first record as it is (+I or +U).
std::vector<std::string> LookupChanges(const Config& config, const Model& model,
                                       const std::map<Key, std::string>& before,
                                       const std::map<Key, std::string>& after, const Key& key) {
  auto b = before.find(key);
  auto a = after.find(key);
  bool has_before = b != before.end(), has_after = a != after.end();
  if (config.engine == Engine::kFirstRow) {
    if (has_before || !has_after) return {};
    return {std::string(KindText(*model.FirstRowKind(key))) + " " + a->second};
  }
  if (!has_before) {
    if (!has_after) return {};
    return {"+I " + a->second};
  }
  if (!has_after) return {"-D " + b->second};
  if (config.row_deduplicate && b->second == a->second) return {};
  return {"-U " + b->second, "+U " + a->second};
}

Cell Generator::RandomValue(int col, bool for_retract) {
  (void)for_retract;
  if (Chance(0.15)) return Cell();
  Cell c;
  c.null = false;
  switch (TypeOf(col)) {
    case ColType::kString:
      c.s = "v" + std::to_string(Uniform(0, 9));
      break;
    case ColType::kInt:
      c.i = Uniform(0, 30);
      break;
    case ColType::kBigInt: {
      auto f = c_->functions.find(col);
      if (f != c_->functions.end() && f->second == "product") {
        c.i = Uniform(0, 4) == 0 ? 2 : (Chance(0.5) ? 1 : -1);
      } else {
        c.i = Uniform(-50, 50);
      }
      break;
    }
    case ColType::kBool:
      c.i = Chance(0.5);
      break;
    case ColType::kIntArray: {
      int n = static_cast<int>(Uniform(0, 2));
      for (int i = 0; i < n; ++i) c.list.push_back(Uniform(0, 5));
      if (c_->collect_distinct) {  // a lone row is never de-duplicated (§13.1)
        std::sort(c.list.begin(), c.list.end());
        c.list.erase(std::unique(c.list.begin(), c.list.end()), c.list.end());
      }
      break;
    }
    case ColType::kIntMap: {
      int n = static_cast<int>(Uniform(0, 2));
      for (int i = 0; i < n; ++i) c.map[Uniform(0, 4)] = Uniform(0, 99);
      break;
    }
  }
  return c;
}

Record Generator::Next(const Model& model) {
  Record r;
  r.row.resize(kNumCols);
  r.row[kP].null = false;
  r.row[kP].s = Chance(0.5) ? "x" : "y";
  r.row[kK] = Cell::Int(Uniform(0, c_->keys - 1));
  Key key{r.row[kP].s, r.row[kK].i};
  bool retract = c_->retracts && Chance(0.25);
  // Under remove-record-on-delete, a removed key takes no inserts until a full compaction has
  // dropped its delete row (Java's merge resurrects the delete row's values otherwise): inserts
  // go to another key, or become deletes.
  for (int tries = 0; !retract && model.Frozen(key) && tries < 10; ++tries) {
    r.row[kP].s = Chance(0.5) ? "x" : "y";
    r.row[kK] = Cell::Int(Uniform(0, c_->keys - 1));
    key = Key{r.row[kP].s, r.row[kK].i};
  }
  // Retracts of aggregates and sequence groups only for keys holding an insert: a leading retract
  // seeds the row, and a lone one may be dropped by a max-level compaction (§3.2, §3.4).
  bool needs_row = c_->engine == Engine::kAggregation || !c_->groups.empty();
  if (retract && needs_row && !c_->remove_record_on_delete && !model.Exists(key)) retract = false;
  if (!retract && model.Frozen(key)) retract = true;
  if (retract) {
    // No -U under remove-record-on-delete: partial-update ignores it but it clears the delete
    // mark of a -D earlier in the same merge (Java's PartialUpdateMergeFunction#add), so whether
    // the row is removed would depend on how records were grouped into files.
    r.kind = c_->update_before && !c_->remove_record_on_delete && Chance(0.5) ? Kind::kUpdateBefore
                                                                              : Kind::kDelete;
  } else {
    r.kind = Chance(0.7) ? Kind::kInsert : Kind::kUpdateAfter;
  }
  bool null_values = retract && (!c_->groups.empty() || c_->engine == Engine::kPartialUpdate);
  for (int col = kS1; col < kNumCols; ++col) {
    r.row[col] = null_values ? Cell() : RandomValue(col, retract);
  }
  if (!retract && c_->NeedsLookup() && !c_->groups.empty()) {
    // A lookup compaction that rewrites a key's only record merges it (Java's LookupMergeFunction
    // hands every record to the merge function), which drops the columns of a group whose
    // sequence is NULL; a file moved up whole keeps it: no NULL group sequences there.
    for (const auto& [seq, cols] : c_->groups) {
      bool empty = std::all_of(seq.begin(), seq.end(), [&](int s) { return r.row[s].null; });
      if (empty) r.row[seq[0]] = Cell::Int(Uniform(0, 30));
    }
  }
  if (retract && !c_->groups.empty()) {
    // A group retract: the sequence fields of one or more groups, nothing else.
    for (const auto& [seq, cols] : c_->groups) {
      if (!Chance(0.7)) continue;
      for (int s : seq) r.row[s] = Chance(0.9) ? Cell::Int(Uniform(0, 30)) : Cell();
    }
  }
  if (!c_->sequence_fields.empty()) {
    // Partial-update merges sequence fields like any column (NULL does not overwrite), so a
    // merged row with a NULL sequence value would sort elsewhere than its records: no NULLs.
    if (c_->engine == Engine::kPartialUpdate) {
      for (int s : c_->sequence_fields) {
        if (r.row[s].null) r.row[s] = Cell::Int(Uniform(0, 30));
      }
    }
    std::vector<Cell> seq;
    for (int s : c_->sequence_fields) seq.push_back(r.row[s]);
    std::vector<Cell> floor;
    if (!c_->late_records) {
      floor = model.MaxSequence(key);
    } else if (c_->engine == Engine::kDeduplicate) {
      // A winning retract is forgotten once a max-level compaction drops it, so a later record
      // must not sort below it.
      auto winner = model.Winner(key);
      if (winner && IsRetract(winner->kind)) {
        for (int s : c_->sequence_fields) floor.push_back(winner->row[s]);
      }
    }
    if (!floor.empty() && CompareSequence(seq, floor) < 0) {
      for (size_t i = 0; i < c_->sequence_fields.size(); ++i) {
        r.row[c_->sequence_fields[i]] = floor[i];
      }
    }
  }
  return r;
}

}  // namespace fjord::difftest
