// Batch tags: Java's TagBatchCreation.

#include "fjord/table/maintain/tag_batch_create.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <tuple>

#include "fjord/common/calendar.h"
#include "fjord/common/local_time.h"
#include "fjord/common/strings.h"
#include "fjord/table/maintain/tag_auto_create.h"
#include "fjord/table/maintain/tags.h"

namespace fjord {

namespace {

constexpr char kBatchTagPrefix[] = "batch-write-";

// Java's DateTimeFormatter "yyyy-MM-dd" of a local date: year of era, four digits at least and
// a '+' beyond 9999.
std::string FormatDate(int64_t local_millis) {
  CivilDate d = CivilFromDays(FloorDiv(local_millis, 86400000));
  int64_t year_of_era = d.year >= 1 ? d.year : 1 - d.year;
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s%04lld-%02u-%02u", year_of_era > 9999 ? "+" : "",
                static_cast<long long>(year_of_era), d.month, d.day);
  return buf;
}

}  // namespace

Result<std::unique_ptr<TagBatchCreation>> TagBatchCreation::Make(
    std::shared_ptr<const FileStoreTable> table) {
  const Options& options = table->options();
  if (Lower(options.GetOr("tag.automatic-creation", "none")) != "batch") {
    return std::unique_ptr<TagBatchCreation>();
  }
  std::unique_ptr<TagBatchCreation> out(new TagBatchCreation());
  out->customized_name_ = options.Get("tag.batch.customized-name");
  if (out->customized_name_) {
    const std::string& name = *out->customized_name_;
    if (Trim(name).empty() || name.find('/') != std::string::npos) {
      return Status::Invalid("option 'tag.batch.customized-name' = '", name,
                             "': a tag name must not be blank nor contain '/'");
    }
  }
  FJORD_ASSIGN_OR_RAISE(
      out->zone_offset_millis_,
      ParseZoneOffset("sink.process-time-zone", options.Get("sink.process-time-zone")));
  FJORD_ASSIGN_OR_RAISE(out->num_retained_max_, options.GetInt("tag.num-retained-max"));
  if (out->num_retained_max_ && *out->num_retained_max_ < 0) {
    return Status::Invalid("option 'tag.num-retained-max' = ", *out->num_retained_max_,
                           ": must not be negative");
  }
  out->table_ = std::move(table);
  return out;
}

std::string TagBatchCreation::TagName(int64_t time_millis) const {
  if (customized_name_) return *customized_name_;
  int64_t local = zone_offset_millis_ ? time_millis + *zone_offset_millis_
                                      : EpochMillisToLocalMillis(time_millis);
  return kBatchTagPrefix + FormatDate(local);
}

Result<TagBatchCreation::Outcome> TagBatchCreation::Run(LocalDateTime now) {
  Outcome out;
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table_->snapshots().Latest());
  if (!latest) return out;
  std::string name = TagName(latest->time_millis);
  auto context = [&](const Status& st) {
    return st.WithContext("batch tag '" + name + "' of snapshot " + std::to_string(latest->id));
  };
  // Replace: delete a tag of that name (with the files only it kept), then create.
  Result<bool> deleted = DeleteTag(*table_, name);
  if (!deleted.ok()) return context(deleted.status());
  CreateTagRequest request;
  request.name = name;
  request.snapshot_id = latest->id;  // time_retained: tag.default-time-retained
  Result<bool> created = CreateTag(*table_, request, now);
  if (!created.ok()) return context(created.status());
  out.tag = name;
  out.snapshot_id = latest->id;
  if (num_retained_max_) {
    FJORD_ASSIGN_OR_RAISE(out.expired, ExpireTagsBeyondMax(*table_, *num_retained_max_));
  }
  return out;
}

Result<std::vector<std::string>> ExpireTagsBeyondMax(const FileStoreTable& table, int64_t max) {
  std::vector<std::string> deleted;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, table.snapshots().LatestId());
  if (!latest) return deleted;
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(table));
  int64_t count = static_cast<int64_t>(tags.size());
  if (count <= max) return deleted;
  std::map<int64_t, std::vector<std::string>> by_snapshot;  // oldest snapshot first
  for (const TagEntry& t : tags) by_snapshot[t.snapshot.id].push_back(t.name);
  auto drop = [&](const std::string& name) -> Status {
    FJORD_RETURN_NOT_OK(DeleteTag(table, name).status());
    deleted.push_back(name);
    --count;
    return Status::OK();
  };
  for (auto& [id, names] : by_snapshot) {
    if (count - static_cast<int64_t>(names.size()) > max) {
      for (const std::string& name : names) FJORD_RETURN_NOT_OK(drop(name));
      continue;
    }
    // The last snapshot to touch: its oldest tag files first.
    std::vector<std::tuple<int64_t, std::string>> aged;
    for (const std::string& name : names) {
      FJORD_ASSIGN_OR_RAISE(FileStatus st,
                            table.io()->GetStatus(table.snapshots().paths().TagFile(name)));
      aged.emplace_back(st.mtime_millis, name);
    }
    std::sort(aged.begin(), aged.end());
    for (const auto& [mtime, name] : aged) {
      if (count <= max) break;
      FJORD_RETURN_NOT_OK(drop(name));
    }
    break;
  }
  return deleted;
}

}  // namespace fjord
