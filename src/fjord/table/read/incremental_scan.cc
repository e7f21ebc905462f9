#include "fjord/table/read/incremental_scan.h"

#include <charconv>
#include <map>

#include "fjord/common/strings.h"
#include "fjord/format/text_values.h"
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

Result<std::optional<IncrementalRange>> ResolveIncremental(const SnapshotManager& snapshots,
                                                           const Options& options,
                                                           const CoreOptions& core) {
  if (options.Contains("incremental-to-auto-tag")) {
    return Status::NotImplemented("incremental-to-auto-tag (a diff of two tags) is not ",
                                  "implemented yet");
  }
  IncrementalRange range;
  std::string mode = Lower(options.GetOr("incremental-between-scan-mode", "auto"));
  if (mode == "diff") {
    return Status::NotImplemented("incremental-between-scan-mode 'diff' is not implemented yet");
  } else if (mode == "delta") {
    range.kind = ScanKind::kDelta;
  } else if (mode == "changelog") {
    range.kind = ScanKind::kChangelog;
  } else if (mode == "auto") {
    range.kind = core.changelog_producer() == ChangelogProducer::kNone ? ScanKind::kDelta
                                                                       : ScanKind::kChangelog;
  } else {
    return Status::Invalid("unknown incremental-between-scan-mode '", mode, "'");
  }
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (std::optional<std::string> between = options.Get("incremental-between")) {
    FJORD_ASSIGN_OR_RAISE(auto parts, TwoParts("incremental-between", *between));
    std::optional<int64_t> start = ParseLong(parts.first), end = ParseLong(parts.second);
    if (!start || !end) {
      return Status::NotImplemented("incremental-between of tags ('", *between,
                                    "': a diff of the tags' data) is not implemented yet");
    }
    if (!earliest || *start < *earliest - 1 || *end > *latest) {
      return Status::Invalid("the snapshot range (", *start, ", ", *end,
                             "] of incremental-between is out of the snapshots that exist [",
                             earliest ? std::to_string(*earliest) : "none", ", ",
                             latest ? std::to_string(*latest) : "none", "]");
    }
    if (*start > *end) {
      return Status::Invalid("incremental-between '", *between, "': the end is before the start");
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
  if (!earliest) return std::optional<IncrementalRange>();
  // Java's betweenTimestamps: each bound to the latest snapshot at or before it; a start before
  // the earliest snapshot includes the earliest; an end before it, the latest (as Java).
  FJORD_ASSIGN_OR_RAISE(Snapshot first, snapshots.Load(*earliest));
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> at_start, snapshots.LatestAtOrBefore(start_ms));
  range.start = (!at_start || first.time_millis > start_ms) ? first.id - 1 : at_start->id;
  FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> at_end, snapshots.LatestAtOrBefore(end_ms));
  range.end = at_end ? at_end->id : *latest;
  if (range.end <= range.start) return std::optional<IncrementalRange>();
  return std::optional<IncrementalRange>(range);
}

Result<ScanPlan> PlanIncremental(const TableScan& scan, const SnapshotManager& snapshots,
                                 const IncrementalRange& range, const Predicate* filter) {
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
