// A test hook: FJORD_TEST_FAULT_RATE=p (0 < p <= 1) makes the table's FileIO of a job fail each
// write (WriteFile, CreateIfAbsent, Overwrite, OpenOutput, Rename) with probability p, as an
// IOError with nothing written, and each checkpoint written to the state directory fail with the
// same probability (leaving half a temporary file), so that tests can fail writers, checkpoints
// and commits at random.
#pragma once

#include <memory>

#include "fjord/file_io.h"

namespace fjord::runtime {

// `base` wrapped when the environment asks for faults; `base` itself otherwise.
std::shared_ptr<FileIO> MaybeInjectFaults(std::shared_ptr<FileIO> base);

// True when the environment asks for faults and this checkpoint write is to fail. Thread-safe.
bool InjectCheckpointFault();

}  // namespace fjord::runtime
