// A snapshot: the contents of snapshot/snapshot-N or of a tag file (spec/format.md §3, §10).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "fjord/result.h"

namespace fjord {

enum class CommitKind : unsigned char { kAppend, kCompact, kOverwrite, kAnalyze };

std::string_view CommitKindName(CommitKind kind);
Result<CommitKind> ParseCommitKind(std::string_view text);

struct Snapshot {
  static constexpr int kCurrentVersion = 3;
  static constexpr int64_t kBatchCommitIdentifier = INT64_MAX;

  int32_t version = kCurrentVersion;
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string base_manifest_list;
  std::optional<int64_t> base_manifest_list_size;
  std::string delta_manifest_list;
  std::optional<int64_t> delta_manifest_list_size;
  std::optional<std::string> changelog_manifest_list;
  std::optional<int64_t> changelog_manifest_list_size;
  std::optional<std::string> index_manifest;
  std::string commit_user;
  int64_t commit_identifier = 0;
  CommitKind commit_kind = CommitKind::kAppend;
  int64_t time_millis = 0;
  std::optional<std::map<int32_t, int64_t>> log_offsets;  // 1.0-1.3 wrote "{ }"
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
  std::optional<std::string> statistics;
  std::optional<std::map<std::string, std::string>> properties;
  std::optional<int64_t> next_row_id;

  // Parses a snapshot (or tag) file; unknown keys are ignored, as Java does. `source` (the path)
  // prefixes errors, which name the field.
  static Result<Snapshot> FromJson(std::string_view text, std::string_view source);
  // The JSON Fjord writes: Java's key order, no explicit nulls (spec/format.md §3).
  std::string ToJson() const;
};

}  // namespace fjord
