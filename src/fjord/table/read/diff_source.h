// The rows of an incremental diff split (scan.h DataSplit::diff; Java's IncrementalDiffSplitRead
// with deletes kept, as its audit_log table reads it): the merged records of the before side and
// of the after side, both in key order with every table column and the int8 kind last, walked
// key by key together:
//   - a key only after: its record (a retraction too);
//   - a key only before: -D of its record when that one adds, else nothing;
//   - a key on both sides: the after's record unless both records are equal in every column and
//     both add or both retract.
// Rows come out in key order in `output` columns (indices into the sides' batches).
#pragma once

#include <memory>
#include <vector>

#include "fjord/lsm/sort_key.h"
#include "fjord/table/read/split_source.h"

namespace fjord {

std::unique_ptr<SplitSource> MakeDiffSource(std::unique_ptr<SplitSource> before,
                                            std::unique_ptr<SplitSource> after, SortKeyEncoder keys,
                                            int kind_column, std::vector<int> output,
                                            int64_t batch_rows);

}  // namespace fjord
