// Commit messages prepared elsewhere (another process, `fjord write --prepare-to`) would make a
// snapshot that names files the table does not have if they were prepared for another table:
// refuse what cannot belong to this table (partition arity and types, bucket numbers).
#pragma once

#include <string_view>
#include <vector>

#include "fjord/schema.h"
#include "fjord/table/commit/commit.h"

namespace fjord {

// Invalid, naming `source`, the message's index and `table_path`, when a message cannot belong
// to a table of `schema`.
Status CheckMessagesFitTable(const std::vector<CommitMessage>& messages, const TableSchema& schema,
                             std::string_view table_path, std::string_view source);

}  // namespace fjord
