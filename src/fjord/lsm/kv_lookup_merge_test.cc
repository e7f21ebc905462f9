// The lookup compaction's merge (KvLookupMergeOptions, Java's LookupChangelogMergeFunctionWrapper)
// against a model written from Java's rules: a key without a record above level 0 in the unit is
// looked up in the levels above; its hit is marked deleted (deletion vectors) and joins the merge
// in sequence order; keys with a level-0 record emit +I / -D / -U +U against their "before".
#include <arrow/api.h>

#include <algorithm>
#include <map>
#include <optional>
#include <random>
#include <set>

#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::FromBatch;
using testing_kv::Record;
using testing_kv::ToBatch;

struct Above {
  Record record;
  std::string file;
  int64_t position = 0;
};

struct Outcome {
  std::vector<Record> out;
  std::vector<Record> changelog;
  std::set<std::pair<std::string, int64_t>> deleted;
};

struct Case {
  TableSchema schema;
  std::vector<std::vector<Record>> runs;  // sorted by (key, seq), unique keys per run
  std::vector<int32_t> levels;            // of each run
  std::map<int32_t, Above> above;         // what the levels above the output hold
  bool with_records = true;               // the lookup gives records (else positions only)
  bool row_deduplicate = false;
  bool drop_retracts = true;
};

Result<Outcome> RunMerge(const Case& c) {
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(c.schema));
  FJORD_ASSIGN_OR_RAISE(auto merge, CreateKvMergeFunction(c.schema));
  std::vector<std::unique_ptr<KvRunReader>> readers;
  for (const auto& run : c.runs) {
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    for (size_t i = 0; i < run.size(); i += 3) {  // small batches: keys span batch ends
      std::vector<Record> part(
          run.begin() + static_cast<std::ptrdiff_t>(i),
          run.begin() + static_cast<std::ptrdiff_t>(std::min(run.size(), i + 3)));
      batches.push_back(ToBatch(layout, part));
    }
    readers.push_back(MakeBatchRunReader(std::move(batches)));
  }
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder keys, layout.KeyEncoder());
  // The encoded key of each looked-up record.
  std::map<std::string, Above> above;
  for (const auto& [k, a] : c.above) {
    FJORD_ASSIGN_OR_RAISE(EncodedRows enc, keys.Encode(*ToBatch(layout, {a.record})));
    above.emplace(std::string(enc[0]), a);
  }
  Outcome outcome;
  KvMergeOptions options;
  options.drop_retracts = c.drop_retracts;
  options.runs_have_unique_keys = true;
  options.run_levels = c.levels;
  KvLookupMergeOptions lookup;
  lookup.lookup = [&](std::string_view key) -> Result<std::optional<KvLookupHit>> {
    auto it = above.find(std::string(key));
    if (it == above.end()) return std::optional<KvLookupHit>();
    KvLookupHit hit{it->second.file, it->second.position, nullptr};
    if (c.with_records) hit.record = ToBatch(layout, {it->second.record});
    return std::optional<KvLookupHit>(hit);
  };
  lookup.on_deletion = [&](const KvLookupHit& hit) {
    outcome.deleted.emplace(hit.file_name, hit.position);
    return Status::OK();
  };
  lookup.produce_changelog = true;
  lookup.row_deduplicate = c.row_deduplicate;
  lookup.compared_fields = {1};
  options.lookup = lookup;
  FJORD_ASSIGN_OR_RAISE(auto reader,
                        KvMergeReader::Make(layout, std::move(merge), std::move(readers), options));
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) break;
    auto part = FromBatch(*batch);
    outcome.out.insert(outcome.out.end(), part.begin(), part.end());
    if (auto changes = reader->TakeChangelog()) {
      auto cl = FromBatch(*changes);
      outcome.changelog.insert(outcome.changelog.end(), cl.begin(), cl.end());
    }
  }
  return outcome;
}

bool IsAdd(int8_t kind) { return kind == 0 || kind == 2; }

// Java's rules, key by key. `sum`: aggregation with v summed (a retraction subtracts), else
// deduplicate (the last record wins).
Outcome Model(const Case& c, bool sum) {
  Outcome o;
  std::map<int32_t, std::vector<std::pair<int32_t, Record>>> by_key;  // (level, record)
  for (size_t r = 0; r < c.runs.size(); ++r) {
    for (const Record& rec : c.runs[r]) by_key[rec.key].push_back({c.levels[r], rec});
  }
  for (auto& [key, records] : by_key) {
    std::optional<Record> high;
    int32_t high_level = 0;
    bool level0 = false;
    std::vector<Record> input;
    for (const auto& [level, rec] : records) {
      if (level == 0) {
        level0 = true;
      } else if (!high || level < high_level) {
        high = rec;
        high_level = level;
      }
    }
    for (const auto& [level, rec] : records) {
      if (level == 0 || (high && level == high_level)) input.push_back(rec);
    }
    std::optional<Record> before = high;
    if (!high) {
      auto it = c.above.find(key);
      if (it != c.above.end()) {
        o.deleted.emplace(it->second.file, it->second.position);
        if (c.with_records) {
          before = it->second.record;
          input.push_back(it->second.record);
        }
      }
    }
    std::sort(input.begin(), input.end(),
              [](const Record& a, const Record& b) { return a.seq < b.seq; });
    Record after = input.back();
    if (sum) {
      int64_t total = 0;
      for (const Record& r : input) total += IsAdd(r.kind) ? r.value : -r.value;
      after.value = total;
      after.kind = 0;
    }
    if (level0) {
      bool before_add = before && IsAdd(before->kind);
      bool after_add = IsAdd(after.kind);
      auto with = [](Record r, int8_t kind) {
        r.kind = kind;
        return r;
      };
      if (!before_add) {
        if (after_add) o.changelog.push_back(with(after, 0));
      } else if (!after_add) {
        o.changelog.push_back(with(*before, 3));
      } else if (!c.row_deduplicate || before->value != after.value) {
        o.changelog.push_back(with(*before, 1));
        o.changelog.push_back(with(after, 2));
      }
    }
    if (!(c.drop_retracts && !IsAdd(after.kind))) o.out.push_back(after);
  }
  return o;
}

// Runs of unique keys from random records; a unit of two level-0 runs and one level-1 run, and
// records in levels 2-4 above it (older sequence numbers).
Case RandomCase(std::mt19937_64& rng, const TableSchema& schema) {
  Case c;
  c.schema = schema;
  c.levels = {1, 0, 0};
  c.runs.resize(3);
  int64_t seq = 1000;
  for (size_t r = 0; r < 3; ++r) {
    std::set<int32_t> keys;
    for (int i = 0; i < 12; ++i) keys.insert(static_cast<int32_t>(rng() % 30));
    for (int32_t k : keys) {
      // Level 1 is older than level 0: its sequence numbers come first.
      int8_t kind = rng() % 4 == 0 ? 3 : (rng() % 3 == 0 ? 2 : 0);
      c.runs[r].push_back(Record{k, seq + static_cast<int64_t>(r) * 100 + k, kind,
                                 static_cast<int64_t>(rng() % 50)});
    }
  }
  int position = 0;
  for (int32_t k = 0; k < 30; ++k) {
    if (rng() % 2) continue;
    int8_t kind = rng() % 5 == 0 ? 3 : 0;
    c.above[k] = Above{Record{k, 10 + k, kind, static_cast<int64_t>(rng() % 50)},
                       "data-" + std::to_string(2 + k % 3), position++};
  }
  c.with_records = rng() % 4 != 0;
  c.row_deduplicate = rng() % 2 == 0;
  c.drop_retracts = rng() % 3 != 0;
  return c;
}

TEST(KvLookupMergeTest, DeduplicateAndAggregationFollowTheModel) {
  std::mt19937_64 rng(19);
  TableSchema dedup = testing_kv::Schema({});
  TableSchema sum =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  for (int round = 0; round < 200; ++round) {
    bool aggregate = round % 2 == 1;
    Case c = RandomCase(rng, aggregate ? sum : dedup);
    if (aggregate) c.with_records = true;  // aggregation always looks values up (Java)
    ASSERT_OK_AND_ASSIGN(Outcome got, RunMerge(c));
    Outcome want = Model(c, aggregate);
    ASSERT_EQ(got.out, want.out) << "round " << round;
    ASSERT_EQ(got.changelog, want.changelog) << "round " << round;
    ASSERT_EQ(got.deleted, want.deleted) << "round " << round;
  }
}

// By hand: key 1 is updated (its level-3 value looked up, marked deleted, -U/+U), key 2 deleted
// (-D of the looked-up value, dropped), key 3 new (+I), key 4 has its level-1 record in the unit
// (no lookup) and an unchanged value under row-deduplicate (no changelog).
TEST(KvLookupMergeTest, UpdatesDeletesInsertsByHand) {
  Case c;
  c.schema = testing_kv::Schema({});
  c.levels = {1, 0};
  c.runs = {{{4, 5, 0, 40}}, {{1, 20, 0, 11}, {2, 21, 3, 0}, {3, 22, 0, 33}, {4, 23, 0, 40}}};
  c.above[1] = Above{{1, 1, 0, 10}, "data-a", 7};
  c.above[2] = Above{{2, 2, 0, 20}, "data-b", 0};
  c.above[4] = Above{{4, 3, 0, 99}, "data-a", 9};  // shadowed by the unit's level-1 record
  c.row_deduplicate = true;
  ASSERT_OK_AND_ASSIGN(Outcome got, RunMerge(c));
  std::vector<Record> out = {{1, 20, 0, 11}, {3, 22, 0, 33}, {4, 23, 0, 40}};
  EXPECT_EQ(got.out, out);
  std::vector<Record> changelog = {{1, 1, 1, 10}, {1, 20, 2, 11}, {2, 2, 3, 20}, {3, 22, 0, 33}};
  EXPECT_EQ(got.changelog, changelog);
  std::set<std::pair<std::string, int64_t>> deleted = {{"data-a", 7}, {"data-b", 0}};
  EXPECT_EQ(got.deleted, deleted);
}

// A looked-up record joins the merge by sequence number: under "the last record wins" a level-0
// record older than the looked-up one (possible with sequence.field or restored numbering) loses.
TEST(KvLookupMergeTest, LookedUpRecordIsOrderedBySequence) {
  Case c;
  c.schema = testing_kv::Schema({});
  c.levels = {0};
  c.runs = {{{1, 5, 0, 55}}};
  c.above[1] = Above{{1, 9, 0, 99}, "data-a", 0};
  ASSERT_OK_AND_ASSIGN(Outcome got, RunMerge(c));
  std::vector<Record> out = {{1, 9, 0, 99}};
  EXPECT_EQ(got.out, out);
}

}  // namespace
}  // namespace fjord
