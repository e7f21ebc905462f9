// The parts a batch read on several threads hands out (parallel_read.h). A part is a split, or,
// where the files of a split are read one after another, each on its own and holding every key
// at most once across them (the levels above 0 of deletion-vector and first-row tables, read
// without merging), a bin of its files: consecutive files together, each weighing at least
// `source.split.open-file-cost`, up to `source.split.target-size` as Java's split generator packs
// them, or less, so that each thread gets about four parts: a bucket of such a table is then read
// by every thread, and the last part read alone is small.
#pragma once

#include <cstdint>
#include <vector>

#include "fjord/table/read/scan.h"

namespace fjord {

struct ReadPartOptions {
  bool files_independent = false;  // the table's unmerged files hold each key once
  int64_t target_size = int64_t{128} << 20;
  int64_t open_file_cost = int64_t{4} << 20;
  int threads = 1;
  // Parts by weight, heaviest first (threads that finish early take the light ones), instead of
  // in the splits' order. Only where the caller does not hand rows out in part order.
  bool largest_first = false;
};

// `splits` with the splits of plain batch reads (not streaming, diff or overwrite changes) cut
// into bins of their level > 0 files when `files_independent`; level-0 files, which such reads
// skip, are left out. Other splits stay as they are, in order.
std::vector<DataSplit> SplitIntoReadParts(const std::vector<DataSplit>& splits,
                                          const ReadPartOptions& options);

}  // namespace fjord
