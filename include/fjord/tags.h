// Tags as jobs (Java's create_tag / delete_tag procedures, behaviour.md §8.4): a tag pins a
// snapshot and every file it reads against expiration; Table::Tags() lists them.
// docs/maintenance.md says how tags are created automatically at commit.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "fjord/result.h"

namespace fjord {

class Table;

struct CreateTagOptions {
  std::optional<int64_t> snapshot_id;        // default: the latest snapshot
  std::optional<std::string> time_retained;  // a duration ("1 d", "12 h"); default the table's
                                             // tag.default-time-retained, else forever
};

// Invalid for a blank name, an existing tag, a missing snapshot or a bad duration.
Status CreateTableTag(const Table& table, const std::string& name,
                      const CreateTagOptions& options = {});
// Deletes the tag and the files only it kept; false when there is no such tag.
Result<bool> DeleteTableTag(const Table& table, const std::string& name);

}  // namespace fjord
