// The model of the lifecycle test (tests/lifecycle/): the table configuration of a run, the rows
// every snapshot and tag must read, and the consumers. docs/testing.md, "Lifecycle test".
#pragma once

#include <cstdint>
#include <map>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace fjord::lifecycle {

// A check that failed: the run stops and the driver prints the seed and the trace.
struct Failure : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The table of one run. Primary-key tables: (k, p) -> v with upserts and deletes; append tables:
// rows (k, p, v) only inserted. p = k % 2 (the partition key when partitioned).
struct TableConfig {
  bool primary_key = true;
  bool partitioned = false;
  int buckets = 2;                // -1: bucket-unaware (append tables only)
  std::string producer = "none";  // changelog-producer (primary-key tables)
  bool deletion_vectors = false;  // primary-key tables
  bool decoupled = false;         // changelog.* retention exceeds the snapshot one
  bool auto_tags = false;         // process-time tags at commit maintenance
  std::string file_format = "parquet";

  static TableConfig Random(std::mt19937_64& rng, bool primary_key);
  std::vector<std::pair<std::string, std::string>> Options() const;
  std::string Describe() const;
};

// What a table holds at one snapshot: values by key (one per key in primary-key tables, any
// number in append tables).
struct State {
  std::map<int32_t, std::vector<std::string>> by_key;

  // "k|p|v" per row, sorted: what a read must give.
  std::multiset<std::string> Rows() const;
  size_t size() const;
};

std::string RowText(int32_t k, int32_t p, const std::string& v);
// The first differences between two row multisets, for messages.
std::string DiffRows(const std::multiset<std::string>& got, const std::multiset<std::string>& want);

struct Model {
  State current;                           // the rows of the latest snapshot
  std::map<int64_t, State> snapshots;      // every snapshot that may exist
  std::map<std::string, State> tags;       // every tag that may exist, by name
  std::map<std::string, int64_t> tag_ids;  // the snapshot each tag holds
  // Tags that may disappear without a step deleting them: automatic ones (tag.num-retained-max)
  // and those with a time retained (tag expiration at commit).
  std::set<std::string> tags_may_vanish;
  // Snapshots a rollback wrote again from a tag (they name a changelog manifest list the tag
  // did not keep).
  std::set<int64_t> rewritten;
};

}  // namespace fjord::lifecycle
