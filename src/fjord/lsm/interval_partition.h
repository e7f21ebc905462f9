// Section splitting for merge-on-read and compaction (behaviour.md §3): the files of one bucket
// are grouped into sections whose key ranges do not overlap each other, so each section can be
// merged on its own (memory bounded by a section, not by the bucket); inside a section the files
// are laid out into as few sorted runs (files with disjoint, ascending key ranges) as possible,
// which become the inputs of the k-way merge.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "fjord/lsm/sort_key.h"
#include "fjord/meta/manifest.h"

namespace fjord {

// A file's key range as normalized keys (sort_key.h): memcmp order is key order.
struct KeyRange {
  std::string min;
  std::string max;
};

// A sorted run: indices of files in ascending key order, ranges disjoint.
using FileRun = std::vector<size_t>;
// A section: its sorted runs.
using Section = std::vector<FileRun>;

// Sections in ascending key order; every file index appears exactly once.
std::vector<Section> PartitionIntervals(const std::vector<KeyRange>& ranges);

// The normalized key ranges of `files` from their _MIN_KEY/_MAX_KEY rows; `key_types` are the
// trimmed primary key's types. The columns are encoded as nullable (a null marker byte each),
// unless `declared_nullability`: then as `key_types` declare, which is KvLayout::KeyEncoder's
// encoding (primary-key columns are NOT NULL).
Result<std::vector<KeyRange>> FileKeyRanges(const std::vector<DataFileMeta>& files,
                                            const std::vector<DataTypePtr>& key_types,
                                            bool declared_nullability = false);

}  // namespace fjord
