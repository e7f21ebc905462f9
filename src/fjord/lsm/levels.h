// The LSM levels of one (partition, bucket) of a primary-key table (behaviour.md §2.1): level 0
// holds files that each form a sorted run, newest first; every level >= 1 is one sorted run of
// files with disjoint key ranges. The picker sees the runs as [L0 files newest to oldest, L1,
// L2, ...]: index 0 is the newest, the last one the oldest.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fjord/lsm/interval_partition.h"
#include "fjord/meta/manifest.h"

namespace fjord {

struct LevelSortedRun {
  int32_t level = 0;
  std::vector<DataFileMeta> files;  // ascending keys for levels >= 1
  int64_t TotalSize() const;
};

class Levels {
 public:
  // `key_types`: the trimmed primary key's types (to order files by key). `num_levels` >= 2;
  // grows when `files` hold higher levels (as Java's restore does).
  static Result<Levels> Make(std::vector<DataTypePtr> key_types, int32_t num_levels,
                             const std::vector<DataFileMeta>& files);

  Status AddLevel0(const DataFileMeta& file);
  // Applies a compaction: `before` leave (matched by file name and level), `after` arrive.
  Status Update(const std::vector<DataFileMeta>& before, const std::vector<DataFileMeta>& after);

  std::vector<LevelSortedRun> SortedRuns() const;
  int32_t NumberOfSortedRuns() const;
  int32_t num_levels() const { return static_cast<int32_t>(levels_.size()); }
  int32_t MaxLevel() const { return num_levels() - 1; }
  // The highest level holding a file, or -1 when empty.
  int32_t NonEmptyHighestLevel() const;
  std::vector<DataFileMeta> AllFiles() const;
  int32_t Level0Count() const { return static_cast<int32_t>(levels_[0].size()); }

 private:
  struct Entry {
    DataFileMeta file;
    KeyRange range;
  };
  Result<Entry> EntryOf(const DataFileMeta& file) const;
  void SortLevel(int32_t level);

  std::vector<DataTypePtr> key_types_;
  std::vector<std::vector<Entry>> levels_;
};

}  // namespace fjord
