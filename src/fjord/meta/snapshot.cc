#include "fjord/meta/snapshot.h"

#include <charconv>

#include "fjord/common/json.h"

namespace fjord {

std::string_view CommitKindName(CommitKind kind) {
  switch (kind) {
    case CommitKind::kAppend:
      return "APPEND";
    case CommitKind::kCompact:
      return "COMPACT";
    case CommitKind::kOverwrite:
      return "OVERWRITE";
    case CommitKind::kAnalyze:
      return "ANALYZE";
  }
  return "APPEND";
}

Result<CommitKind> ParseCommitKind(std::string_view text) {
  for (CommitKind k :
       {CommitKind::kAppend, CommitKind::kCompact, CommitKind::kOverwrite, CommitKind::kAnalyze}) {
    if (CommitKindName(k) == text) return k;
  }
  return Status::Invalid("unknown commit kind '", text, "'");
}

Result<Snapshot> Snapshot::FromJson(std::string_view text, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(text, source));
  if (!j.is_object()) return Status::Corruption(source, ": a snapshot must be a JSON object");
  Snapshot s;
  FJORD_ASSIGN_OR_RAISE(int64_t version, JsonGetInt(j, "version", source));
  s.version = static_cast<int32_t>(version);
  if (s.version < 3) {
    return Status::NotImplemented(source, ": snapshot version ", s.version,
                                  " (written before Paimon 0.4) is not supported");
  }
  FJORD_ASSIGN_OR_RAISE(s.id, JsonGetInt(j, "id", source));
  FJORD_ASSIGN_OR_RAISE(s.schema_id, JsonGetInt(j, "schemaId", source));
  FJORD_ASSIGN_OR_RAISE(s.base_manifest_list, JsonGetString(j, "baseManifestList", source));
  FJORD_ASSIGN_OR_RAISE(s.base_manifest_list_size,
                        JsonGetOptionalInt(j, "baseManifestListSize", source));
  FJORD_ASSIGN_OR_RAISE(s.delta_manifest_list, JsonGetString(j, "deltaManifestList", source));
  FJORD_ASSIGN_OR_RAISE(s.delta_manifest_list_size,
                        JsonGetOptionalInt(j, "deltaManifestListSize", source));
  FJORD_ASSIGN_OR_RAISE(s.changelog_manifest_list,
                        JsonGetOptionalString(j, "changelogManifestList", source));
  FJORD_ASSIGN_OR_RAISE(s.changelog_manifest_list_size,
                        JsonGetOptionalInt(j, "changelogManifestListSize", source));
  FJORD_ASSIGN_OR_RAISE(s.index_manifest, JsonGetOptionalString(j, "indexManifest", source));
  FJORD_ASSIGN_OR_RAISE(s.commit_user, JsonGetString(j, "commitUser", source));
  FJORD_ASSIGN_OR_RAISE(s.commit_identifier, JsonGetInt(j, "commitIdentifier", source));
  FJORD_ASSIGN_OR_RAISE(std::string kind, JsonGetString(j, "commitKind", source));
  Result<CommitKind> parsed_kind = ParseCommitKind(kind);
  if (!parsed_kind.ok()) {
    return Status::Corruption(source, ": field 'commitKind': ", parsed_kind.status().message());
  }
  s.commit_kind = *parsed_kind;
  FJORD_ASSIGN_OR_RAISE(s.time_millis, JsonGetInt(j, "timeMillis", source));
  if (auto it = j.find("logOffsets"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      return Status::Corruption(source, ": field 'logOffsets' must be an object");
    std::map<int32_t, int64_t> offsets;
    for (auto o = it->begin(); o != it->end(); ++o) {
      int32_t bucket = 0;
      auto [p, ec] = std::from_chars(o.key().data(), o.key().data() + o.key().size(), bucket);
      if (ec != std::errc() || !o.value().is_number_integer()) {
        return Status::Corruption(source, ": field 'logOffsets' has a bad entry '", o.key(), "'");
      }
      offsets[bucket] = o.value().get<int64_t>();
    }
    s.log_offsets = std::move(offsets);
  }
  FJORD_ASSIGN_OR_RAISE(s.total_record_count, JsonGetOptionalInt(j, "totalRecordCount", source));
  FJORD_ASSIGN_OR_RAISE(s.delta_record_count, JsonGetOptionalInt(j, "deltaRecordCount", source));
  FJORD_ASSIGN_OR_RAISE(s.changelog_record_count,
                        JsonGetOptionalInt(j, "changelogRecordCount", source));
  FJORD_ASSIGN_OR_RAISE(s.watermark, JsonGetOptionalInt(j, "watermark", source));
  FJORD_ASSIGN_OR_RAISE(s.statistics, JsonGetOptionalString(j, "statistics", source));
  if (auto it = j.find("properties"); it != j.end() && !it->is_null()) {
    if (!it->is_object())
      return Status::Corruption(source, ": field 'properties' must be an object");
    std::map<std::string, std::string> props;
    for (auto o = it->begin(); o != it->end(); ++o) {
      if (!o.value().is_string()) {
        return Status::Corruption(source, ": field 'properties' value of '", o.key(),
                                  "' must be a string");
      }
      props[o.key()] = o.value().get<std::string>();
    }
    s.properties = std::move(props);
  }
  FJORD_ASSIGN_OR_RAISE(s.next_row_id, JsonGetOptionalInt(j, "nextRowId", source));
  return s;
}

std::string Snapshot::ToJson() const {
  Json j = Json::object();
  j["version"] = version;
  j["id"] = id;
  j["schemaId"] = schema_id;
  j["baseManifestList"] = base_manifest_list;
  if (base_manifest_list_size) j["baseManifestListSize"] = *base_manifest_list_size;
  j["deltaManifestList"] = delta_manifest_list;
  if (delta_manifest_list_size) j["deltaManifestListSize"] = *delta_manifest_list_size;
  if (changelog_manifest_list) j["changelogManifestList"] = *changelog_manifest_list;
  if (changelog_manifest_list_size) j["changelogManifestListSize"] = *changelog_manifest_list_size;
  if (index_manifest) j["indexManifest"] = *index_manifest;
  j["commitUser"] = commit_user;
  j["commitIdentifier"] = commit_identifier;
  j["commitKind"] = std::string(CommitKindName(commit_kind));
  j["timeMillis"] = time_millis;
  if (log_offsets) {
    Json offsets = Json::object();
    for (const auto& [b, o] : *log_offsets) offsets[std::to_string(b)] = o;
    j["logOffsets"] = std::move(offsets);
  }
  if (total_record_count) j["totalRecordCount"] = *total_record_count;
  if (delta_record_count) j["deltaRecordCount"] = *delta_record_count;
  if (changelog_record_count) j["changelogRecordCount"] = *changelog_record_count;
  if (watermark) j["watermark"] = *watermark;
  if (statistics) j["statistics"] = *statistics;
  if (properties && !properties->empty()) {
    Json props = Json::object();
    for (const auto& [k, v] : *properties) props[k] = v;
    j["properties"] = std::move(props);
  }
  if (next_row_id) j["nextRowId"] = *next_row_id;
  return ToJacksonPretty(j);
}

}  // namespace fjord
