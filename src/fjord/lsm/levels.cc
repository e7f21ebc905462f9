#include "fjord/lsm/levels.h"

#include <algorithm>
#include <cstring>
#include <tuple>

namespace fjord {

int64_t LevelSortedRun::TotalSize() const {
  int64_t total = 0;
  for (const DataFileMeta& f : files) total += f.file_size;
  return total;
}

Result<Levels> Levels::Make(std::vector<DataTypePtr> key_types, int32_t num_levels,
                            const std::vector<DataFileMeta>& files) {
  Levels l;
  l.key_types_ = std::move(key_types);
  int32_t needed = std::max(num_levels, 2);
  for (const DataFileMeta& f : files) needed = std::max(needed, f.level + 1);
  l.levels_.resize(static_cast<size_t>(needed));
  for (const DataFileMeta& f : files) {
    if (f.level < 0) return Status::Corruption(f.file_name, ": negative level ", f.level);
    FJORD_ASSIGN_OR_RAISE(Entry e, l.EntryOf(f));
    l.levels_[static_cast<size_t>(f.level)].push_back(std::move(e));
  }
  for (int32_t i = 0; i < l.num_levels(); ++i) l.SortLevel(i);
  return l;
}

Result<Levels::Entry> Levels::EntryOf(const DataFileMeta& file) const {
  FJORD_ASSIGN_OR_RAISE(std::vector<KeyRange> ranges, FileKeyRanges({file}, key_types_));
  return Entry{file, ranges[0]};
}

void Levels::SortLevel(int32_t level) {
  auto& files = levels_[static_cast<size_t>(level)];
  if (level == 0) {
    // Newest first: larger max sequence number, then min sequence, creation time, name.
    std::stable_sort(files.begin(), files.end(), [](const Entry& a, const Entry& b) {
      const DataFileMeta& x = a.file;
      const DataFileMeta& y = b.file;
      if (x.max_sequence_number != y.max_sequence_number) {
        return x.max_sequence_number > y.max_sequence_number;
      }
      if (x.min_sequence_number != y.min_sequence_number) {
        return x.min_sequence_number < y.min_sequence_number;
      }
      if (x.creation_time_millis != y.creation_time_millis) {
        return x.creation_time_millis < y.creation_time_millis;
      }
      return x.file_name < y.file_name;
    });
  } else {
    std::stable_sort(files.begin(), files.end(),
                     [](const Entry& a, const Entry& b) { return a.range.min < b.range.min; });
  }
}

Status Levels::AddLevel0(const DataFileMeta& file) {
  if (file.level != 0) return Status::Invalid(file.file_name, " is at level ", file.level);
  FJORD_ASSIGN_OR_RAISE(Entry e, EntryOf(file));
  levels_[0].push_back(std::move(e));
  SortLevel(0);
  return Status::OK();
}

Status Levels::Update(const std::vector<DataFileMeta>& before,
                      const std::vector<DataFileMeta>& after) {
  for (const DataFileMeta& f : before) {
    if (f.level < 0 || f.level >= num_levels()) {
      return Status::Invalid(f.file_name, ": level ", f.level, " out of range");
    }
    auto& files = levels_[static_cast<size_t>(f.level)];
    auto it = std::find_if(files.begin(), files.end(),
                           [&](const Entry& e) { return e.file.file_name == f.file_name; });
    if (it == files.end()) {
      return Status::Invalid("compaction input ", f.file_name, " is not at level ", f.level);
    }
    files.erase(it);
  }
  for (const DataFileMeta& f : after) {
    if (f.level >= num_levels()) levels_.resize(static_cast<size_t>(f.level + 1));
    FJORD_ASSIGN_OR_RAISE(Entry e, EntryOf(f));
    levels_[static_cast<size_t>(f.level)].push_back(std::move(e));
  }
  for (int32_t i = 0; i < num_levels(); ++i) SortLevel(i);
  return Status::OK();
}

std::vector<LevelSortedRun> Levels::SortedRuns() const {
  std::vector<LevelSortedRun> runs;
  for (const Entry& e : levels_[0]) runs.push_back(LevelSortedRun{0, {e.file}});
  for (int32_t i = 1; i < num_levels(); ++i) {
    const auto& files = levels_[static_cast<size_t>(i)];
    if (files.empty()) continue;
    LevelSortedRun run{i, {}};
    for (const Entry& e : files) run.files.push_back(e.file);
    runs.push_back(std::move(run));
  }
  return runs;
}

int32_t Levels::NumberOfSortedRuns() const {
  int32_t n = Level0Count();
  for (int32_t i = 1; i < num_levels(); ++i) n += !levels_[static_cast<size_t>(i)].empty();
  return n;
}

int32_t Levels::NonEmptyHighestLevel() const {
  for (int32_t i = num_levels() - 1; i >= 0; --i) {
    if (!levels_[static_cast<size_t>(i)].empty()) return i;
  }
  return -1;
}

std::vector<DataFileMeta> Levels::AllFiles() const {
  std::vector<DataFileMeta> out;
  for (const auto& level : levels_) {
    for (const Entry& e : level) out.push_back(e.file);
  }
  return out;
}

}  // namespace fjord
