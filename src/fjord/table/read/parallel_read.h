// Several parts of a read (splits) read ahead on worker threads. Two hand-outs:
// - in part order: the same batches in the same order as reading the parts one after the other;
// - interleaved: each batch as soon as it is read, the batches of one part still in their order,
//   so that rows of one key (which lives in one split) keep their order while every thread stays
//   busy (docs/reading.md, "Threads").
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>

#include "fjord/result.h"
#include "fjord/table/read/table_read.h"

namespace fjord {

using PartOpener = std::function<Result<std::unique_ptr<RowBatchReader>>(size_t)>;

// `open(i)` opens part i (0 <= i < parts) and is called on a worker thread; at most `threads`
// parts are read at once, each at most `buffered` batches ahead of the caller, and no part is
// started more than `threads` parts beyond the one the caller is reading. An error of part i is
// returned after the batches of the parts before it, as a sequential read would.
// `out_of_parts` (may be null) turns true once a worker finds no part left to start: its thread
// is then free for the parts still being read (FileReadOptions::spare_threads).
std::unique_ptr<RowBatchReader> OpenOrderedParallel(
    size_t parts, PartOpener open, int threads, size_t buffered = 4,
    std::shared_ptr<std::atomic<bool>> out_of_parts = nullptr);

// As above, but batches are handed out in the order they were read: at most `threads` parts are
// read at once, parts are started in order, and at most `threads * buffered` batches wait for the
// caller in all. Batches of one part keep their order. An error is returned where it was read;
// every later call returns it too. A thread that finds no part left asks the parts still being
// read for a piece (RowBatchReader::SplitOff, keys disjoint from the rest of its part) and reads
// that, until every part and piece is read: the read's end is not left to one thread.
// `one_at_a_time`: a part starts only once the one before it is read; the other threads read
// its pieces (for parts that split well: one part's memory at a time instead of `threads`).
std::unique_ptr<RowBatchReader> OpenInterleavedParallel(
    size_t parts, PartOpener open, int threads, size_t buffered = 4,
    std::shared_ptr<std::atomic<bool>> out_of_parts = nullptr, bool one_at_a_time = false);

}  // namespace fjord
