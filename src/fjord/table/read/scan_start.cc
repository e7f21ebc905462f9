#include "fjord/table/read/scan_start.h"

#include <limits>
#include <utility>

#include "fjord/common/strings.h"
#include "fjord/format/text_values.h"

namespace fjord {

namespace {

Result<std::optional<int64_t>> LongOption(const Options& options, std::string_view key) {
  return options.GetInt(key);
}

// Java's checkExactOneOptionExistInMode and checkOptionsConflict, over the keys that are set.
Status ExactlyOneOf(const Options& options, std::string_view mode,
                    std::initializer_list<std::string_view> keys) {
  int set = 0;
  std::string names;
  for (std::string_view k : keys) {
    if (options.Contains(k)) ++set;
    if (!names.empty()) names += ", ";
    names += std::string(k);
  }
  if (set != 1) {
    return Status::Invalid("scan.mode '", mode, "' needs exactly one of ", names, " (", set,
                           " set)");
  }
  return Status::OK();
}

Status NoneOf(const Options& options, std::string_view mode,
              std::initializer_list<std::string_view> keys) {
  for (std::string_view k : keys) {
    if (options.Contains(k)) {
      return Status::Invalid("option '", k, "' cannot be set when scan.mode is '", mode, "'");
    }
  }
  return Status::OK();
}

}  // namespace

std::string_view StartupModeName(StartupMode mode) {
  switch (mode) {
    case StartupMode::kLatestFull:
      return "latest-full";
    case StartupMode::kLatest:
      return "latest";
    case StartupMode::kCompactedFull:
      return "compacted-full";
    case StartupMode::kFromTimestamp:
      return "from-timestamp";
    case StartupMode::kFromSnapshot:
      return "from-snapshot";
    case StartupMode::kFromSnapshotFull:
      return "from-snapshot-full";
    case StartupMode::kFromFileCreationTime:
      return "from-file-creation-time";
    case StartupMode::kFromCreationTimestamp:
      return "from-creation-timestamp";
    case StartupMode::kIncremental:
      return "incremental";
  }
  return "?";
}

Result<ScanStartOptions> ScanStartOptions::Make(const Options& options, const CoreOptions& core,
                                                bool primary_key) {
  ScanStartOptions out;
  std::string mode = Lower(options.GetOr("scan.mode", "default"));
  if (mode == "default" && options.Contains("log.scan")) {
    mode = Lower(*options.Get("log.scan"));
  }
  FJORD_ASSIGN_OR_RAISE(out.timestamp_millis, LongOption(options, "scan.timestamp-millis"));
  if (!out.timestamp_millis) {
    FJORD_ASSIGN_OR_RAISE(out.timestamp_millis, LongOption(options, "log.scan.timestamp-millis"));
  }
  std::optional<std::string> timestamp_text = options.Get("scan.timestamp");
  FJORD_ASSIGN_OR_RAISE(out.snapshot_id, LongOption(options, "scan.snapshot-id"));
  out.tag_name = options.Get("scan.tag-name");
  FJORD_ASSIGN_OR_RAISE(out.watermark, LongOption(options, "scan.watermark"));
  FJORD_ASSIGN_OR_RAISE(out.file_creation_millis,
                        LongOption(options, "scan.file-creation-time-millis"));
  FJORD_ASSIGN_OR_RAISE(out.creation_millis, LongOption(options, "scan.creation-time-millis"));
  FJORD_ASSIGN_OR_RAISE(out.bounded_watermark, LongOption(options, "scan.bounded.watermark"));
  FJORD_ASSIGN_OR_RAISE(out.snapshot_delay_millis,
                        options.GetDurationMillis("streaming.read.snapshot.delay"));
  std::string overwrite_key =
      primary_key ? "streaming-read-overwrite" : "streaming-read-append-overwrite";
  FJORD_ASSIGN_OR_RAISE(std::optional<bool> overwrite, options.GetBool(overwrite_key));
  out.read_overwrite = overwrite.value_or(false);
  bool incremental = options.Contains("incremental-between") ||
                     options.Contains("incremental-between-timestamp") ||
                     options.Contains("incremental-to-auto-tag");
  if (mode == "default") {
    if (out.timestamp_millis || timestamp_text) {
      mode = "from-timestamp";
    } else if (out.snapshot_id || out.tag_name || out.watermark ||
               options.Contains("scan.version")) {
      mode = "from-snapshot";
    } else if (out.file_creation_millis) {
      mode = "from-file-creation-time";
    } else if (out.creation_millis) {
      mode = "from-creation-timestamp";
    } else if (incremental) {
      // Java's CoreOptions#setDefaultValues, applied to a table's dynamic options, also picks
      // the incremental mode for incremental-to-auto-tag.
      mode = "incremental";
    } else {
      mode = "latest-full";
    }
  }
  if (mode == "full") mode = "latest-full";
  static const std::pair<std::string_view, StartupMode> kModes[] = {
      {"latest-full", StartupMode::kLatestFull},
      {"latest", StartupMode::kLatest},
      {"compacted-full", StartupMode::kCompactedFull},
      {"from-timestamp", StartupMode::kFromTimestamp},
      {"from-snapshot", StartupMode::kFromSnapshot},
      {"from-snapshot-full", StartupMode::kFromSnapshotFull},
      {"from-file-creation-time", StartupMode::kFromFileCreationTime},
      {"from-creation-timestamp", StartupMode::kFromCreationTimestamp},
      {"incremental", StartupMode::kIncremental},
  };
  bool known = false;
  for (const auto& [name, m] : kModes) {
    if (name == mode) {
      out.mode = m;
      known = true;
    }
  }
  if (!known) return Status::Invalid("unknown scan.mode '", mode, "'");

  // The checks of Java's SchemaValidation#validateStartupMode.
  switch (out.mode) {
    case StartupMode::kFromTimestamp:
      FJORD_RETURN_NOT_OK(ExactlyOneOf(options, mode, {"scan.timestamp-millis", "scan.timestamp"}));
      FJORD_RETURN_NOT_OK(NoneOf(
          options, mode,
          {"scan.snapshot-id", "scan.file-creation-time-millis", "scan.tag-name",
           "incremental-between-timestamp", "incremental-between", "incremental-to-auto-tag"}));
      break;
    case StartupMode::kFromSnapshot:
      FJORD_RETURN_NOT_OK(
          ExactlyOneOf(options, mode, {"scan.snapshot-id", "scan.tag-name", "scan.watermark"}));
      FJORD_RETURN_NOT_OK(NoneOf(
          options, mode,
          {"scan.timestamp-millis", "scan.timestamp", "scan.file-creation-time-millis",
           "incremental-between-timestamp", "incremental-between", "incremental-to-auto-tag"}));
      break;
    case StartupMode::kIncremental:
      FJORD_RETURN_NOT_OK(ExactlyOneOf(
          options, mode,
          {"incremental-between", "incremental-between-timestamp", "incremental-to-auto-tag"}));
      FJORD_RETURN_NOT_OK(
          NoneOf(options, mode,
                 {"scan.snapshot-id", "scan.timestamp-millis", "scan.file-creation-time-millis",
                  "scan.timestamp", "scan.tag-name"}));
      break;
    case StartupMode::kFromSnapshotFull:
      if (!out.snapshot_id) {
        return Status::Invalid("scan.mode 'from-snapshot-full' needs scan.snapshot-id");
      }
      FJORD_RETURN_NOT_OK(
          NoneOf(options, mode,
                 {"scan.timestamp-millis", "scan.timestamp", "scan.file-creation-time-millis",
                  "scan.tag-name", "incremental-between-timestamp", "incremental-between",
                  "incremental-to-auto-tag"}));
      break;
    case StartupMode::kFromFileCreationTime:
      if (!out.file_creation_millis) {
        return Status::Invalid(
            "scan.mode 'from-file-creation-time' needs scan.file-creation-time-millis");
      }
      FJORD_RETURN_NOT_OK(NoneOf(
          options, mode,
          {"scan.snapshot-id", "scan.timestamp-millis", "scan.tag-name",
           "incremental-between-timestamp", "incremental-between", "incremental-to-auto-tag"}));
      break;
    case StartupMode::kFromCreationTimestamp:
      if (!out.creation_millis) {
        return Status::Invalid(
            "scan.mode 'from-creation-timestamp' needs scan.creation-time-millis");
      }
      break;
    default:
      FJORD_RETURN_NOT_OK(
          NoneOf(options, mode,
                 {"scan.timestamp-millis", "scan.timestamp", "scan.snapshot-id", "scan.tag-name",
                  "scan.file-creation-time-millis", "incremental-between-timestamp",
                  "incremental-between", "incremental-to-auto-tag"}));
      break;
  }
  (void)incremental;
  if (!out.timestamp_millis && timestamp_text) {
    Result<Timestamp> parsed = ParseTimestampText(*timestamp_text, 3, false);
    if (!parsed.ok()) {
      return Status::Invalid("option 'scan.timestamp' = '", *timestamp_text,
                             "' is not a timestamp: ", parsed.status().message());
    }
    out.timestamp_millis = LocalMillisToEpochMillis(parsed->millis);
  }
  if (out.read_overwrite && (core.changelog_producer() == ChangelogProducer::kFullCompaction ||
                             core.changelog_producer() == ChangelogProducer::kLookup)) {
    return Status::Invalid("streaming-read-overwrite cannot be true when changelog-producer is ",
                           "full-compaction or lookup: it would read duplicated changes");
  }
  return out;
}

Result<std::optional<Snapshot>> CompactedFullSnapshot(const SnapshotManager& snapshots,
                                                      const CoreOptions& core) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  if (!latest) return std::optional<Snapshot>();
  std::optional<int32_t> delta = core.full_compaction_delta_commits();
  bool full_only =
      core.changelog_producer() == ChangelogProducer::kFullCompaction || delta.has_value();
  int64_t every = delta.value_or(1);
  for (int64_t id = *latest; earliest && id >= *earliest; --id) {
    Result<Snapshot> s = snapshots.Load(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) continue;  // expired while we looked
      return s.status();
    }
    if (s->commit_kind != CommitKind::kCompact) continue;
    if (full_only && !(s->commit_identifier % every == 0 ||
                       s->commit_identifier == std::numeric_limits<int64_t>::max())) {
      continue;
    }
    return std::optional<Snapshot>(std::move(*s));
  }
  FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(*latest));
  return std::optional<Snapshot>(std::move(s));
}

Result<BatchStart> ResolveBatchStart(const SnapshotManager& snapshots,
                                     const ScanStartOptions& start, const CoreOptions& core) {
  BatchStart out;
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> earliest, snapshots.EarliestId());
  auto load = [&](int64_t id) -> Status {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
    out.snapshot = std::move(s);
    return Status::OK();
  };
  switch (start.mode) {
    case StartupMode::kLatestFull:
    case StartupMode::kLatest:
      if (latest) FJORD_RETURN_NOT_OK(load(*latest));
      break;
    case StartupMode::kCompactedFull: {
      FJORD_ASSIGN_OR_RAISE(out.snapshot, CompactedFullSnapshot(snapshots, core));
      break;
    }
    case StartupMode::kFromTimestamp: {
      FJORD_ASSIGN_OR_RAISE(out.snapshot, snapshots.LatestAtOrBefore(*start.timestamp_millis));
      break;
    }
    case StartupMode::kFromSnapshot:
    case StartupMode::kFromSnapshotFull:
      if (start.tag_name) {
        FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.LoadTag(*start.tag_name));
        out.snapshot = std::move(s);
      } else if (start.watermark) {
        // StaticFromWatermarkStartingScanner: the first snapshot whose watermark reaches it.
        if (!latest) break;
        for (int64_t id = earliest.value_or(1); id <= *latest; ++id) {
          FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
          if (s.watermark && *s.watermark >= *start.watermark) {
            out.snapshot = std::move(s);
            return out;
          }
        }
        return Status::NotFound("no snapshot has a watermark of at least ", *start.watermark,
                                " (scan.watermark)");
      } else {
        FJORD_RETURN_NOT_OK(load(*start.snapshot_id));
      }
      break;
    case StartupMode::kFromFileCreationTime:
      if (latest) FJORD_RETURN_NOT_OK(load(*latest));
      out.plan.min_creation_millis = start.file_creation_millis;
      break;
    case StartupMode::kFromCreationTimestamp: {
      // The first snapshot committed at or after the time when there is one, else the files
      // of the latest snapshot created since then.
      if (!latest) break;
      std::optional<Snapshot> first;
      for (int64_t id = *latest; earliest && id >= *earliest; --id) {
        FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
        if (s.time_millis < *start.creation_millis) break;
        first = std::move(s);
      }
      if (first && first->id != earliest) {
        out.snapshot = std::move(first);
      } else {
        FJORD_RETURN_NOT_OK(load(*latest));
        out.plan.min_creation_millis = start.creation_millis;
      }
      break;
    }
    case StartupMode::kIncremental:
      return Status::Invalid("incremental reads are not resolved to one snapshot");
  }
  return out;
}

}  // namespace fjord
