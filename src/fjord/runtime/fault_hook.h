// Test hooks of `fjord run`:
// - FJORD_TEST_FAULT_RATE=p (0 < p <= 1) makes the table's FileIO of a job fail each write
//   (WriteFile, CreateIfAbsent, Overwrite, OpenOutput, Rename) with probability p, as an IOError
//   with nothing written, and each checkpoint written to the state directory fail with the same
//   probability (leaving half a temporary file), so that tests can fail writers, checkpoints and
//   commits at random.
// - FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS=1 kills the process (SIGKILL) right after the first
//   table of a checkpoint holding rows of several tables was committed, before the next one, so
//   that tests can crash between the per-table commits of one checkpoint at will.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "fjord/file_io.h"

namespace fjord::runtime {

// `base` wrapped when the environment asks for faults; `base` itself otherwise.
std::shared_ptr<FileIO> MaybeInjectFaults(std::shared_ptr<FileIO> base);

// True when the environment asks for faults and this checkpoint write is to fail. Thread-safe.
bool InjectCheckpointFault();

// Called by the committer after table `committed` of checkpoint `checkpoint` was committed, with
// the tables of that checkpoint still to commit: with FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS=1
// and some left, prints a line naming them to stderr and kills the process.
void MaybeCrashBetweenTableCommits(int64_t checkpoint, const std::string& committed,
                                   const std::vector<std::string>& left);

}  // namespace fjord::runtime
