// Several parts of a read (splits) read ahead on worker threads, their batches handed out in
// part order: the same batches in the same order as reading the parts one after the other, so
// that rows of one key keep their order (docs/reading.md, "Threads").
#pragma once

#include <cstddef>
#include <functional>
#include <memory>

#include "fjord/result.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

// `open(i)` opens part i (0 <= i < parts) and is called on a worker thread; at most `threads`
// parts are read at once, each at most `buffered` batches ahead of the caller, and no part is
// started more than `threads` parts beyond the one the caller is reading. An error of part i is
// returned after the batches of the parts before it, as a sequential read would.
std::unique_ptr<RowBatchReader> OpenOrderedParallel(
    size_t parts, std::function<Result<std::unique_ptr<RowBatchReader>>(size_t)> open, int threads,
    size_t buffered = 4);

}  // namespace fjord
