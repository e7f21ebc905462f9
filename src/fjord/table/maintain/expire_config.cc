#include "fjord/table/maintain/expire_config.h"

namespace fjord {

namespace {

Result<int64_t> IntOption(const Options& o, std::string_view key, int64_t fallback) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, o.GetInt(key));
  return v.value_or(fallback);
}

}  // namespace

Result<ExpireConfig> ExpireConfig::FromOptions(const CoreOptions& core) {
  const Options& o = core.options();
  ExpireConfig c;
  FJORD_ASSIGN_OR_RAISE(c.snapshot_retain_min, IntOption(o, "snapshot.num-retained.min", 10));
  FJORD_ASSIGN_OR_RAISE(c.snapshot_retain_max,
                        IntOption(o, "snapshot.num-retained.max", c.snapshot_retain_max));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> time, o.GetDurationMillis("snapshot.time-retained"));
  c.snapshot_time_retain_millis = time.value_or(3600 * 1000);
  FJORD_ASSIGN_OR_RAISE(c.snapshot_max_deletes, IntOption(o, "snapshot.expire.limit", 50));
  FJORD_ASSIGN_OR_RAISE(c.changelog_retain_min, o.GetInt("changelog.num-retained.min"));
  FJORD_ASSIGN_OR_RAISE(c.changelog_retain_max, o.GetInt("changelog.num-retained.max"));
  FJORD_ASSIGN_OR_RAISE(c.changelog_time_retain_millis,
                        o.GetDurationMillis("changelog.time-retained"));
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> only, o.GetBool("consumer.changelog-only"));
  c.consumer_changelog_only = only.value_or(false);
  // snapshot.clean-empty-directories, else its old key.
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> clean, o.GetBool("snapshot.clean-empty-directories"));
  if (!o.LayerOf("snapshot.clean-empty-directories").has_value() ||
      *o.LayerOf("snapshot.clean-empty-directories") == OptionLayer::kDefault) {
    FJORD_ASSIGN_OR_RAISE(std::optional<bool> old,
                          o.GetBool("snapshot.expire.clean-empty-directories"));
    if (old) clean = old;
  }
  c.clean_empty_directories = clean.value_or(false);
  FJORD_RETURN_NOT_OK(c.Validate());
  return c;
}

Status ExpireConfig::Validate() const {
  if (snapshot_retain_min < 1) {
    return Status::Invalid("option 'snapshot.num-retained.min' is ", snapshot_retain_min,
                           ": it must be at least 1");
  }
  if (snapshot_retain_max < snapshot_retain_min) {
    return Status::Invalid("option 'snapshot.num-retained.max' (", snapshot_retain_max,
                           ") must not be less than 'snapshot.num-retained.min' (",
                           snapshot_retain_min, ")");
  }
  if (ChangelogRetainMax() < ChangelogRetainMin()) {
    return Status::Invalid("option 'changelog.num-retained.max' (", ChangelogRetainMax(),
                           ") must not be less than 'changelog.num-retained.min' (",
                           ChangelogRetainMin(), ")");
  }
  if (snapshot_time_retain_millis < 0 || ChangelogTimeRetainMillis() < 0) {
    return Status::Invalid(
        "option 'snapshot.time-retained' / 'changelog.time-retained' must not "
        "be negative");
  }
  return Status::OK();
}

}  // namespace fjord
