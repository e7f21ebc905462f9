// Partition expiration (partition_expire.h): Java's PartitionExpire with its values-time and
// update-time strategies.

#include "fjord/table/maintain/partition_expire.h"

#include <algorithm>
#include <map>
#include <random>

#include "fjord/expr/partition_text.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/read/scan.h"
#include "fjord/warning.h"

namespace fjord {

Result<std::optional<PartitionExpireSettings>> PartitionExpireSettings::Of(
    const FileStoreTable& table) {
  const Options& o = table.options();
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> expiration,
                        o.GetDurationMillis("partition.expiration-time"));
  if (!expiration || table.schema().partition_keys.empty()) {
    return std::optional<PartitionExpireSettings>();
  }
  PartitionExpireSettings s;
  s.expiration_millis = *expiration;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> interval,
                        o.GetDurationMillis("partition.expiration-check-interval"));
  s.check_interval_millis = interval.value_or(3600000);
  std::string strategy = o.GetOr("partition.expiration-strategy", "values-time");
  if (strategy == "update-time") {
    s.update_time = true;
  } else if (strategy != "values-time") {
    // Java's createPartitionExpireStrategy (case-sensitive).
    return Status::Invalid("option 'partition.expiration-strategy': unknown strategy '", strategy,
                           "' (values-time or update-time)");
  }
  FJORD_ASSIGN_OR_RAISE(s.extractor,
                        PartitionTimeExtractor::Make(o.Get("partition.timestamp-pattern"),
                                                     o.Get("partition.timestamp-formatter")));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> max_num, o.GetInt("partition.expiration-max-num"));
  s.max_num = static_cast<int32_t>(max_num.value_or(100));
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> batch, o.GetInt("partition.expiration-batch-size"));
  s.batch_size = static_cast<int32_t>(batch.value_or(0));
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> end_input,
                        o.GetBool("end-input.check-partition-expire"));
  s.end_input_check = end_input.value_or(false);
  return std::optional<PartitionExpireSettings>(std::move(s));
}

Result<std::unique_ptr<PartitionExpire>> PartitionExpire::Make(
    std::shared_ptr<const FileStoreTable> table, std::string commit_user,
    std::optional<LocalDateTime> last_check) {
  FJORD_ASSIGN_OR_RAISE(std::optional<PartitionExpireSettings> settings,
                        PartitionExpireSettings::Of(*table));
  if (!settings) return std::unique_ptr<PartitionExpire>();
  if (!last_check) {
    // Java: now minus a random number of seconds in [0, interval seconds), so that short jobs
    // started at random times still check now and then.
    int64_t seconds = settings->check_interval_millis / 1000;
    int64_t rnd = 0;
    if (seconds > 0) {
      std::random_device rd;
      std::mt19937_64 gen(rd());
      rnd = std::uniform_int_distribution<int64_t>(0, seconds - 1)(gen);
    }
    last_check = LocalDateTime::Now().MinusMillis(rnd * 1000);
  }
  return std::unique_ptr<PartitionExpire>(new PartitionExpire(
      std::move(table), std::move(commit_user), std::move(*settings), *last_check));
}

Result<std::optional<std::vector<ExpiredPartition>>> PartitionExpire::ExpireIfDue(
    LocalDateTime now, int64_t identifier) {
  bool due = settings_.check_interval_millis == 0 ||
             now > last_check_.MinusMillis(-settings_.check_interval_millis) ||
             (settings_.end_input_check && identifier == INT64_MAX);
  if (!due) return std::optional<std::vector<ExpiredPartition>>();
  FJORD_ASSIGN_OR_RAISE(std::vector<ExpiredPartition> expired,
                        Select(now.MinusMillis(settings_.expiration_millis)));
  if (!expired.empty()) FJORD_RETURN_NOT_OK(Drop(expired, identifier).status());
  last_check_ = now;
  return std::optional<std::vector<ExpiredPartition>>(std::move(expired));
}

namespace {

// Java's PartitionEntry, folded over every entry of the manifests (ADD +1, DELETE -1).
struct PartitionEntry {
  int64_t file_count = 0;
  int64_t last_creation_epoch_millis = INT64_MIN;
};

}  // namespace

Result<std::vector<ExpiredPartition>> PartitionExpire::Select(LocalDateTime expire_before) const {
  const FileStoreTable& t = *table_;
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, t.snapshots().Latest());
  if (!latest) return std::vector<ExpiredPartition>();
  const std::string& format = t.core_options().manifest_format();
  TablePaths paths{t.path()};
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> manifests,
                        ReadDataManifests(t.io().get(), paths, format, latest->base_manifest_list,
                                          latest->delta_manifest_list));
  std::map<std::string, PartitionEntry> entries;
  for (const ManifestFileMeta& m : manifests) {
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> read,
                          ReadManifestFile(t.io().get(), paths.ManifestFile(m.file_name), format));
    for (const ManifestEntry& e : read) {
      PartitionEntry& p = entries[e.partition];
      p.file_count += e.kind == FileKind::kAdd ? 1 : -1;
      p.last_creation_epoch_millis =
          std::max(p.last_creation_epoch_millis, CreationEpochMillis(e.file));
    }
  }

  std::vector<DataField> fields = t.schema().FieldsByName(t.schema().partition_keys);
  std::vector<DataTypePtr> types;
  for (DataField& f : fields) {
    f.type = f.type->WithNullable(true);
    types.push_back(f.type);
  }
  const std::string& default_name = t.core_options().partition_default_name();
  const int64_t expire_epoch_millis = LocalMillisToEpochMillis(expire_before.ToMillis());

  struct Candidate {
    std::string sort_key;  // the values joined with ','
    ExpiredPartition p;
  };
  std::vector<Candidate> chosen;
  for (const auto& [row, entry] : entries) {
    if (entry.file_count <= 0) continue;
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(row, types));
    std::vector<std::optional<std::string>> java_values;
    for (size_t i = 0; i < values.size(); ++i) {
      if (values[i].is_null()) {
        java_values.emplace_back();
      } else {
        java_values.emplace_back(LegacyPartitionString(values[i], *fields[i].type));
      }
    }
    bool expired = false;
    if (settings_.update_time) {
      expired = expire_epoch_millis > entry.last_creation_epoch_millis;
    } else {
      Result<LocalDateTime> time =
          settings_.extractor.Extract(t.schema().partition_keys, java_values);
      if (!time.ok()) {
        std::string shown;
        for (size_t i = 0; i < fields.size(); ++i) {
          if (i > 0) shown += ",";
          shown += fields[i].name + ":" + java_values[i].value_or("null");
        }
        WarnOnce("partition expiration keeps partition " + shown + " of " + t.path() +
                 ": its time cannot be extracted (" + time.status().message() +
                 "); check partition.timestamp-formatter / partition.timestamp-pattern, drop it "
                 "by hand, or use partition.expiration-strategy = update-time");
        continue;
      }
      expired = expire_before > *time;
    }
    if (!expired) continue;
    Candidate c;
    c.p.partition = row;
    for (size_t i = 0; i < fields.size(); ++i) {
      std::string v = java_values[i].value_or(default_name);
      if (i > 0) c.sort_key += ",";
      c.sort_key += v;
      c.p.spec.emplace_back(fields[i].name, std::move(v));
    }
    c.p.text = PartitionText(fields, values, default_name);
    chosen.push_back(std::move(c));
  }
  // Java sorts the joined text (String order; UTF-8 byte order agrees with it outside the
  // surrogate range) and keeps the first max-num.
  std::stable_sort(chosen.begin(), chosen.end(),
                   [](const Candidate& a, const Candidate& b) { return a.sort_key < b.sort_key; });
  std::vector<ExpiredPartition> out;
  for (Candidate& c : chosen) {
    if (static_cast<int64_t>(out.size()) >= settings_.max_num) break;
    out.push_back(std::move(c.p));
  }
  return out;
}

Result<std::vector<int64_t>> PartitionExpire::Drop(const std::vector<ExpiredPartition>& partitions,
                                                   int64_t identifier) const {
  std::vector<int64_t> snapshots;
  if (partitions.empty()) return snapshots;
  size_t batch = partitions.size();
  if (settings_.batch_size > 0 && static_cast<size_t>(settings_.batch_size) < batch) {
    batch = static_cast<size_t>(settings_.batch_size);
  }
  FileStoreCommit commit(table_->io(), table_->path(), table_->schema(), commit_user_);
  for (size_t from = 0; from < partitions.size(); from += batch) {
    std::vector<std::map<std::string, std::string>> specs;
    for (size_t i = from; i < std::min(partitions.size(), from + batch); ++i) {
      specs.emplace_back(partitions[i].spec.begin(), partitions[i].spec.end());
    }
    FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> id, commit.DropPartitions(specs, identifier));
    if (id) snapshots.push_back(*id);
  }
  return snapshots;
}

}  // namespace fjord
