// CreateTableTag / DeleteTableTag (fjord/tags.h) over table/maintain's tags.

#include "fjord/tags.h"

#include "fjord/options.h"
#include "fjord/table.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/tags.h"

namespace fjord {

Status CreateTableTag(const Table& table, const std::string& name,
                      const CreateTagOptions& options) {
  FJORD_RETURN_NOT_OK(table.store()->CheckOptions(OptionUse::kWrite));
  CreateTagRequest request;
  request.name = name;
  request.snapshot_id = options.snapshot_id;
  if (options.time_retained) {
    Result<int64_t> millis = ParseDurationMillis(*options.time_retained);
    if (!millis.ok()) {
      return millis.status().WithContext("time retained '", *options.time_retained, "'");
    }
    request.time_retained = TagDuration::FromMillis(*millis);
  }
  return CreateTag(*table.store(), request, LocalDateTime::Now()).status();
}

Result<bool> DeleteTableTag(const Table& table, const std::string& name) {
  FJORD_RETURN_NOT_OK(table.store()->CheckOptions(OptionUse::kWrite));
  return DeleteTag(*table.store(), name);
}

}  // namespace fjord
