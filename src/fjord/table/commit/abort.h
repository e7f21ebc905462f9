// Aborting prepared commit messages (Java Paimon's FileStoreCommit#abort): the files they add are
// deleted, so that a write given up before its commit leaves nothing behind.
#pragma once

#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/core_options.h"
#include "fjord/schema.h"
#include "fjord/table/commit/commit.h"

namespace fjord {

// Deletes the files `messages` add to the table at `root`: new data and changelog files, a
// compaction's output and changelog files, new index files. A compaction's output file that is
// also among its inputs (a file upgraded to another level keeps its name) is a committed file
// and stays; Java's abort deletes it too. Missing files are not an error; the first failure to
// delete is returned after trying every file.
Status AbortCommitMessages(FileIO* io, const std::string& root, const TableSchema& schema,
                           const CoreOptions& options, const std::vector<CommitMessage>& messages);

}  // namespace fjord
