#include "fjord/table/read/incremental_scan.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "fjord/common/strings.h"
#include "fjord/format/text_values.h"
#include "fjord/meta/tag_period.h"
#include "fjord/table/read/scan_start.h"

namespace fjord {

namespace {

std::optional<int64_t> ParseLong(std::string_view text) {
  int64_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return v;
}

// "a,b" into its two trimmed parts.
Result<std::pair<std::string, std::string>> TwoParts(std::string_view key, std::string_view text) {
  size_t comma = text.find(',');
  if (comma == std::string_view::npos || text.find(',', comma + 1) != std::string_view::npos) {
    return Status::Invalid("option '", key, "' = '", text, "' must be 'start,end'");
  }
  return std::make_pair(std::string(Trim(text.substr(0, comma))),
                        std::string(Trim(text.substr(comma + 1))));
}

Result<int64_t> TimestampMillis(std::string_view key, const std::string& text) {
  if (std::optional<int64_t> millis = ParseLong(text)) return *millis;
  Result<Timestamp> parsed = ParseTimestampText(text, 3, false);
  if (!parsed.ok()) {
    return Status::Invalid("option '", key, "': '", text, "' is neither epoch millis nor a ",
                           "timestamp");
  }
  return LocalMillisToEpochMillis(parsed->millis);
}

}  // namespace

namespace {

Result<ScanKind> ChangesKind(std::string_view mode, const CoreOptions& core) {
  if (mode == "delta") return ScanKind::kDelta;
  if (mode == "changelog") return ScanKind::kChangelog;
  if (mode == "auto") {
    return core.changelog_producer() == ChangelogProducer::kNone ? ScanKind::kDelta
                                                                 : ScanKind::kChangelog;
  }
  return Status::Invalid("incremental-between-scan-mode '", mode,
                         "' cannot read the changes between the snapshots of two tags (",
                         "incremental-between-tag-to-snapshot); use auto, delta or changelog");
}

// A tag's snapshot, or nullopt when no such tag exists.
Result<std::optional<Snapshot>> FindTag(const SnapshotManager& snapshots, const std::string& name) {
  if (name.empty()) return std::optional<Snapshot>();
  Result<Snapshot> tag = snapshots.LoadTag(name);
  if (tag.ok()) return std::optional<Snapshot>(std::move(*tag));
  if (tag.status().IsNotFound()) return std::optional<Snapshot>();
  return tag.status();
}

// Java's checkRescaleBucketForIncrementalDiffQuery: the two sides must have one bucket count.
Status CheckSameBuckets(const SnapshotManager& snapshots, const Snapshot& from,
                        const Snapshot& to) {
  if (from.schema_id == to.schema_id) return Status::OK();
  FJORD_ASSIGN_OR_RAISE(TableSchema a, snapshots.LoadSchema(from.schema_id));
  FJORD_ASSIGN_OR_RAISE(TableSchema b, snapshots.LoadSchema(to.schema_id));
  FJORD_ASSIGN_OR_RAISE(CoreOptions ca, CoreOptions::Make(a));
  FJORD_ASSIGN_OR_RAISE(CoreOptions cb, CoreOptions::Make(b));
  if (ca.bucket() != cb.bucket()) {
    return Status::Invalid("an incremental diff of snapshots ", from.id, " and ", to.id,
                           " is not possible: their bucket counts differ (", ca.bucket(), ", ",
                           cb.bucket(), ")");
  }
  return Status::OK();
}

Result<std::optional<IncrementalRange>> Diff(const SnapshotManager& snapshots, Snapshot from,
                                             Snapshot to) {
  FJORD_RETURN_NOT_OK(CheckSameBuckets(snapshots, from, to));
  IncrementalRange range;
  range.start = from.id;
  range.end = to.id;
  range.kind = ScanKind::kAll;
  range.diff_from = std::move(from);
  range.diff_to = std::move(to);
  return std::optional<IncrementalRange>(std::move(range));
}

Result<Snapshot> LoadExisting(const SnapshotManager& snapshots, int64_t id) {
  Result<Snapshot> s = snapshots.Load(id);
  if (!s.ok() && s.status().IsNotFound()) {
    return Status::Invalid("incremental-between: snapshot ", id, " does not exist");
  }
  return s;
}

// incremental-to-auto-tag: the named auto tag against the latest auto tag of an earlier period.
Result<std::optional<IncrementalRange>> ToAutoTag(const SnapshotManager& snapshots,
                                                  const Options& options,
                                                  const std::string& end_name) {
  FJORD_ASSIGN_OR_RAISE(TagPeriod period, TagPeriod::Make(options));
  std::optional<int64_t> end_time = period.TagToLocalMillis(end_name);
  if (!end_time) {
    return Status::Invalid("incremental-to-auto-tag: tag '", end_name,
                           "' is not an automatically created tag (its name is not a period of ",
                           "tag.creation-period / tag.period-formatter)");
  }
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> end, FindTag(snapshots, end_name));
  if (!end) return std::optional<IncrementalRange>();
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> names, snapshots.ListTags());
  std::optional<std::pair<int64_t, std::string>> previous;
  for (const std::string& name : names) {
    std::optional<int64_t> t = period.TagToLocalMillis(name);
    if (!t || *t >= *end_time) continue;
    if (!previous || *t > previous->first) previous = std::make_pair(*t, name);
  }
  if (!previous) return std::optional<IncrementalRange>();
  FJORD_ASSIGN_OR_RAISE(Snapshot start, snapshots.LoadTag(previous->second));
  return Diff(snapshots, std::move(start), std::move(*end));
}

}  // namespace

Result<std::optional<IncrementalRange>> ResolveIncremental(const SnapshotManager& snapshots,
                                                           const Options& options,
                                                           const CoreOptions& core) {
  if (std::optional<std::string> tag = options.Get("incremental-to-auto-tag")) {
    return ToAutoTag(snapshots, options, *tag);
  }
  IncrementalRange range;
  std::string mode = Lower(options.GetOr("incremental-between-scan-mode", "auto"));
  bool diff = mode == "diff";
  if (!diff) {
    if (mode != "auto" && mode != "delta" && mode != "changelog") {
      return Status::Invalid("unknown incremental-between-scan-mode '", mode, "'");
    }
    FJORD_ASSIGN_OR_RAISE(range.kind, ChangesKind(mode, core));
  }
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (std::optional<std::string> between = options.Get("incremental-between")) {
    FJORD_ASSIGN_OR_RAISE(auto parts, TwoParts("incremental-between", *between));
    // Two tags first (as Java looks them up before reading numbers).
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> start_tag, FindTag(snapshots, parts.first));
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> end_tag, FindTag(snapshots, parts.second));
    bool tag_to_snapshot = false;
    if (start_tag && end_tag) {
      FJORD_ASSIGN_OR_RAISE(std::optional<bool> flag,
                            options.GetBool("incremental-between-tag-to-snapshot"));
      tag_to_snapshot = flag.value_or(false);
      if (!tag_to_snapshot) {
        if (end_tag->id < start_tag->id) {
          return Status::Invalid("incremental-between '", *between, "': the end tag '",
                                 parts.second, "' (snapshot ", end_tag->id,
                                 ") is before the start tag '", parts.first, "' (snapshot ",
                                 start_tag->id, ")");
        }
        if (end_tag->id == start_tag->id) return std::optional<IncrementalRange>();
        return Diff(snapshots, std::move(*start_tag), std::move(*end_tag));
      }
      if (diff) {
        FJORD_ASSIGN_OR_RAISE(range.kind, ChangesKind(mode, core));
      }
    }
    std::optional<int64_t> start = ParseLong(parts.first), end = ParseLong(parts.second);
    if (tag_to_snapshot) {
      start = start_tag->id;
      end = end_tag->id;
    }
    if (!start || !end) {
      return Status::Invalid("incremental-between '", *between, "': '", parts.first, "' and '",
                             parts.second, "' are neither two tags nor two snapshot ids");
    }
    if (*start > *end) {
      return Status::Invalid("incremental-between '", *between, "': the end is before the start");
    }
    if (!earliest || *start == *end) return std::optional<IncrementalRange>();
    if (diff) {
      FJORD_ASSIGN_OR_RAISE(Snapshot from, LoadExisting(snapshots, *start));
      FJORD_ASSIGN_OR_RAISE(Snapshot to, LoadExisting(snapshots, *end));
      return Diff(snapshots, std::move(from), std::move(to));
    }
    if (*start < *earliest - 1 || *end > *latest) {
      return Status::Invalid("the snapshot range (", *start, ", ", *end,
                             "] of incremental-between is out of the snapshots that exist [",
                             *earliest, ", ", *latest, "]");
    }
    range.start = *start;
    range.end = *end;
    return std::optional<IncrementalRange>(range);
  }
  std::optional<std::string> between = options.Get("incremental-between-timestamp");
  if (!between) return Status::Invalid("an incremental read needs incremental-between*");
  FJORD_ASSIGN_OR_RAISE(auto parts, TwoParts("incremental-between-timestamp", *between));
  FJORD_ASSIGN_OR_RAISE(int64_t start_ms,
                        TimestampMillis("incremental-between-timestamp", parts.first));
  FJORD_ASSIGN_OR_RAISE(int64_t end_ms,
                        TimestampMillis("incremental-between-timestamp", parts.second));
  if (end_ms < start_ms) {
    return Status::Invalid("incremental-between-timestamp '", *between,
                           "': the end is before the start");
  }
  if (!earliest) return std::optional<IncrementalRange>();
  FJORD_ASSIGN_OR_RAISE(Snapshot first, snapshots.Load(*earliest));
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> at_start, snapshots.LatestAtOrBefore(start_ms));
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> at_end, snapshots.LatestAtOrBefore(end_ms));
  if (diff) {
    // Java's IncrementalDiffStartingScanner#betweenTimestamps: each bound to the latest snapshot
    // at or before it, else the earliest (start) or the latest (end).
    Snapshot from = at_start ? std::move(*at_start) : first;
    Snapshot to;
    if (at_end) {
      to = std::move(*at_end);
    } else {
      FJORD_ASSIGN_OR_RAISE(to, snapshots.Load(*latest));
    }
    return Diff(snapshots, std::move(from), std::move(to));
  }
  // Java's betweenTimestamps: each bound to the latest snapshot at or before it; a start before
  // the earliest snapshot includes the earliest; an end before it, the latest (as Java).
  range.start = (!at_start || first.time_millis > start_ms) ? first.id - 1 : at_start->id;
  range.end = at_end ? at_end->id : *latest;
  if (range.end <= range.start) return std::optional<IncrementalRange>();
  return std::optional<IncrementalRange>(range);
}

namespace {

// Java's SnapshotReader#readIncrementalDiff: the live files of both snapshots by (partition,
// bucket); a file both hold in the same level drops out of both sides (Java compares the whole
// entry), unless its deletion vector differs between them (Java drops it then too and misses the
// rows the newer vector deletes; Fjord keeps it on both sides so that the merge sees them).
Result<ScanPlan> PlanDiff(const TableScan& scan, const Snapshot& from, const Snapshot& to,
                          const Predicate* filter) {
  FJORD_ASSIGN_OR_RAISE(ScanPlan before, scan.Plan(from, filter));
  FJORD_ASSIGN_OR_RAISE(ScanPlan after, scan.Plan(to, filter));
  std::map<std::pair<std::string, int32_t>, DataSplit> splits;
  std::vector<std::pair<std::string, int32_t>> order;
  for (DataSplit& split : after.splits) {
    auto key = std::make_pair(split.partition, split.bucket);
    order.push_back(key);
    split.diff = true;
    splits.emplace(key, std::move(split));
  }
  for (DataSplit& split : before.splits) {
    auto key = std::make_pair(split.partition, split.bucket);
    auto it = splits.find(key);
    if (it == splits.end()) {
      order.push_back(key);
      DataSplit only_before = split;
      only_before.files.clear();
      only_before.deletion_files.clear();
      only_before.diff = true;
      it = splits.emplace(key, std::move(only_before)).first;
    }
    DataSplit& out = it->second;
    auto deletion_of = [](const std::map<std::string, DeletionFile>& files,
                          const std::string& name) -> const DeletionFile* {
      auto f = files.find(name);
      return f == files.end() ? nullptr : &f->second;
    };
    auto same_deletion = [&](const std::string& name) {
      const DeletionFile* a = deletion_of(split.deletion_files, name);
      const DeletionFile* b = deletion_of(out.deletion_files, name);
      if (!a || !b) return a == b;
      return a->index_path == b->index_path && a->offset == b->offset && a->length == b->length;
    };
    for (DataFileMeta& f : split.files) {
      auto same = std::find_if(out.files.begin(), out.files.end(), [&](const DataFileMeta& g) {
        return g.file_name == f.file_name && g.level == f.level;
      });
      if (same != out.files.end() && same_deletion(f.file_name)) {
        out.files.erase(same);
        continue;
      }
      auto dv = split.deletion_files.find(f.file_name);
      if (dv != split.deletion_files.end()) out.before_deletion_files.emplace(*dv);
      out.before_files.push_back(std::move(f));
    }
  }
  ScanPlan out;
  out.snapshot = to;
  for (const auto& key : order) {
    DataSplit& split = splits[key];
    // Vectors of files no longer on the after side stay harmless; keep the map small anyway.
    std::map<std::string, DeletionFile> kept;
    for (const DataFileMeta& f : split.files) {
      auto dv = split.deletion_files.find(f.file_name);
      if (dv != split.deletion_files.end()) kept.emplace(*dv);
    }
    split.deletion_files = std::move(kept);
    out.splits.push_back(std::move(split));
  }
  return out;
}

}  // namespace

Result<ScanPlan> PlanIncremental(const TableScan& scan, const SnapshotManager& snapshots,
                                 const IncrementalRange& range, const Predicate* filter) {
  if (range.diff_from && range.diff_to) {
    return PlanDiff(scan, *range.diff_from, *range.diff_to, filter);
  }
  ScanPlan out;
  std::map<std::pair<std::string, int32_t>, DataSplit> splits;
  std::vector<std::pair<std::string, int32_t>> order;
  for (int64_t id = range.start + 1; id <= range.end; ++id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot snapshot, snapshots.Load(id));
    if (range.kind == ScanKind::kDelta && snapshot.commit_kind != CommitKind::kAppend) continue;
    if (range.kind == ScanKind::kChangelog && snapshot.commit_kind == CommitKind::kOverwrite) {
      continue;
    }
    PlanOptions options;
    options.kind = range.kind;
    FJORD_ASSIGN_OR_RAISE(ScanPlan plan, scan.Plan(snapshot, filter, options));
    for (DataSplit& split : plan.splits) {
      auto key = std::make_pair(split.partition, split.bucket);
      auto it = splits.find(key);
      if (it == splits.end()) {
        order.push_back(key);
        splits.emplace(key, std::move(split));
        continue;
      }
      for (DataFileMeta& f : split.files) it->second.files.push_back(std::move(f));
    }
  }
  if (range.end >= 1) {
    FJORD_ASSIGN_OR_RAISE(Snapshot end, snapshots.Load(range.end));
    out.snapshot = std::move(end);
  }
  for (const auto& key : order) out.splits.push_back(std::move(splits[key]));
  return out;
}

}  // namespace fjord
