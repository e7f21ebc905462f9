// Automatic tag creation and tag time expiration at commit maintenance.

#include "fjord/table/maintain/tag_auto_create.h"

#include <ctime>
#include <map>

#include "fjord/common/strings.h"
#include "fjord/table/maintain/tags.h"

namespace fjord {

namespace {

// Epoch millis as local millis in a zone (nullopt: the process's local zone).
int64_t ToLocalMillis(int64_t epoch_millis, std::optional<int64_t> offset_millis) {
  if (offset_millis) return epoch_millis + *offset_millis;
  time_t seconds =
      static_cast<time_t>(epoch_millis >= 0 ? epoch_millis / 1000 : (epoch_millis - 999) / 1000);
  struct tm local {};
  localtime_r(&seconds, &local);
  return epoch_millis + static_cast<int64_t>(local.tm_gmtoff) * 1000;
}

}  // namespace

Result<std::optional<int64_t>> ParseZoneOffset(const std::string& option,
                                               const std::optional<std::string>& value) {
  if (!value) return std::optional<int64_t>();
  std::string v = *value;
  auto bad = [&] {
    return Status::Invalid("option '", option, "' = '", v,
                           "': Fjord honours UTC, GMT, Z and fixed offsets such as +08:00 (no "
                           "time-zone database for region names)");
  };
  std::string_view s = v;
  if (s == "Z" || s == "UTC" || s == "GMT" || s == "UT") return std::optional<int64_t>(0);
  for (std::string_view prefix : {"UTC", "GMT", "UT"}) {
    if (s.substr(0, prefix.size()) == prefix) {
      s.remove_prefix(prefix.size());
      break;
    }
  }
  if (s.empty() || (s[0] != '+' && s[0] != '-')) return bad();
  int sign = s[0] == '-' ? -1 : 1;
  s.remove_prefix(1);
  int64_t hours = 0, minutes = 0;
  size_t i = 0;
  auto digits = [&](int64_t* out, size_t max) {
    size_t n = 0;
    while (i < s.size() && n < max && s[i] >= '0' && s[i] <= '9') {
      *out = *out * 10 + (s[i] - '0');
      ++i;
      ++n;
    }
    return n;
  };
  if (digits(&hours, 2) == 0) return bad();
  if (i < s.size() && s[i] == ':') {
    ++i;
    if (digits(&minutes, 2) != 2) return bad();
  } else if (i < s.size()) {
    if (digits(&minutes, 2) != 2) return bad();
  }
  if (i != s.size() || hours > 18 || minutes > 59) return bad();
  return std::optional<int64_t>(sign * (hours * 60 + minutes) * 60000);
}

Result<std::unique_ptr<TagAutoCreation>> TagAutoCreation::Make(
    std::shared_ptr<const FileStoreTable> table) {
  const Options& options = table->options();
  std::string mode = Lower(options.GetOr("tag.automatic-creation", "none"));
  // Batch tags are made at the end of a batch job (tag_batch_create.h), not per snapshot.
  if (mode == "none" || mode == "batch") return std::unique_ptr<TagAutoCreation>();
  if (mode != "process-time" && mode != "watermark") {
    return Status::Invalid("option 'tag.automatic-creation' = '", mode,
                           "': must be none, process-time, watermark or batch");
  }
  std::unique_ptr<TagAutoCreation> out(new TagAutoCreation());
  out->watermark_ = mode == "watermark";
  FJORD_ASSIGN_OR_RAISE(out->period_, TagPeriod::Make(options));
  if (out->watermark_) {
    FJORD_ASSIGN_OR_RAISE(
        out->zone_offset_millis_,
        ParseZoneOffset("sink.watermark-time-zone",
                        std::string(options.GetOr("sink.watermark-time-zone", "UTC"))));
  } else {
    std::optional<std::string> zone;
    if (options.Get("sink.process-time-zone")) {
      zone = options.GetOr("sink.process-time-zone", "");
    }
    FJORD_ASSIGN_OR_RAISE(out->zone_offset_millis_,
                          ParseZoneOffset("sink.process-time-zone", zone));
  }
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> delay,
                        options.GetDurationMillis("tag.creation-delay"));
  out->delay_millis_ = delay.value_or(0);
  if (out->delay_millis_ >= out->period_.period_millis()) {
    return Status::Invalid("option 'tag.creation-delay' (", out->delay_millis_,
                           " ms) must be shorter than one tag period (",
                           out->period_.period_millis(), " ms)");
  }
  FJORD_ASSIGN_OR_RAISE(out->num_retained_max_, options.GetInt("tag.num-retained-max"));
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> completion,
                        options.GetBool("tag.automatic-completion"));
  out->completion_ = completion.value_or(false);
  out->table_ = std::move(table);

  // Where to start: after the newest auto tag, or at the earliest snapshot.
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(*out->table_));
  const TagEntry* last = nullptr;
  for (const TagEntry& t : tags) {
    if (!out->period_.TagToLocalMillis(t.name)) continue;
    if (last && last->snapshot.id == t.snapshot.id) {
      return Status::Invalid("There are more than 1 auto-created tags of the same snapshot: ",
                             last->name, ",", t.name, ". This is unexpected.");
    }
    if (!last || t.snapshot.id > last->snapshot.id) last = &t;
  }
  if (last) {
    out->next_snapshot_ = last->snapshot.id + 1;
    out->next_tag_ = *out->period_.TagToLocalMillis(last->name) + out->period_.period_millis();
  } else {
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, out->table_->snapshots().EarliestId());
    out->next_snapshot_ = earliest.value_or(1);
  }
  return out;
}

Status TagAutoCreation::Run() {
  const SnapshotManager& snapshots = table_->snapshots();
  while (true) {
    FJORD_ASSIGN_OR_RAISE(bool exists,
                          table_->io()->Exists(snapshots.paths().SnapshotFile(next_snapshot_)));
    if (exists) {
      FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(next_snapshot_));
      FJORD_RETURN_NOT_OK(TryToCreateTag(s));
      ++next_snapshot_;
      continue;
    }
    // The snapshot may have expired.
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
    if (earliest && *earliest > next_snapshot_) {
      next_snapshot_ = *earliest;
    } else {
      return Status::OK();
    }
  }
}

Status TagAutoCreation::TryToCreateTag(const Snapshot& snapshot) {
  std::optional<int64_t> time;
  if (watermark_) {
    if (!snapshot.watermark || *snapshot.watermark == INT64_MIN) return Status::OK();
    time = ToLocalMillis(*snapshot.watermark, zone_offset_millis_);
  } else {
    time = ToLocalMillis(snapshot.time_millis, zone_offset_millis_);
  }
  int64_t period = period_.period_millis();
  if (next_tag_ && *time - delay_millis_ < *next_tag_ + period) return Status::OK();
  // The period before the one holding `time` (Java floors with division toward zero).
  int64_t this_tag = (*time / period) * period - period;
  if (completion_ && next_tag_) this_tag = *next_tag_;
  CreateTagRequest request;
  request.name = period_.LocalMillisToTag(this_tag);
  request.snapshot_id = snapshot.id;
  request.ignore_if_exists = true;
  FJORD_RETURN_NOT_OK(CreateTag(*table_, request, LocalDateTime::Now()).status());
  next_tag_ = this_tag + period;
  if (!num_retained_max_) return Status::OK();
  // Only auto tags count; the oldest (by snapshot) beyond the limit are deleted.
  FJORD_ASSIGN_OR_RAISE(std::vector<TagEntry> tags, ListTagEntries(*table_));
  std::map<int64_t, std::string> auto_tags;
  for (const TagEntry& t : tags) {
    if (period_.TagToLocalMillis(t.name)) auto_tags.emplace(t.snapshot.id, t.name);
  }
  int64_t to_delete = static_cast<int64_t>(auto_tags.size()) - *num_retained_max_;
  for (const auto& [id, name] : auto_tags) {
    if (to_delete-- <= 0) break;
    FJORD_RETURN_NOT_OK(DeleteTag(*table_, name).status());
  }
  return Status::OK();
}

Result<std::unique_ptr<TagMaintenance>> TagMaintenance::Make(
    std::shared_ptr<const FileStoreTable> table) {
  std::unique_ptr<TagMaintenance> out(new TagMaintenance());
  FJORD_ASSIGN_OR_RAISE(out->creation_, TagAutoCreation::Make(table));
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> expire,
                        table->options().GetBool("tag.time-expire-enabled"));
  out->expire_ = expire.value_or(true);
  if (!out->creation_ && !out->expire_) return std::unique_ptr<TagMaintenance>();
  out->table_ = std::move(table);
  return out;
}

Status TagMaintenance::Run(LocalDateTime now) {
  if (creation_) FJORD_RETURN_NOT_OK(creation_->Run());
  if (expire_) FJORD_RETURN_NOT_OK(ExpireTagsByTime(*table_, now).status());
  return Status::OK();
}

Status RunTagMaintenance(std::shared_ptr<const FileStoreTable> table, LocalDateTime now) {
  FJORD_ASSIGN_OR_RAISE(std::unique_ptr<TagMaintenance> m, TagMaintenance::Make(std::move(table)));
  if (!m) return Status::OK();
  return m->Run(now);
}

}  // namespace fjord
