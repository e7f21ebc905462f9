// Tags (behaviour.md §8.4, format.md §10) as Java Paimon 1.4's TagManager keeps them: a tag file
// tag/tag-<name> holds the tagged snapshot's JSON, plus `tagCreateTime` (Jackson's LocalDateTime
// array) and `tagTimeRetained` (a Duration as decimal seconds) when the tag has a time retained.
//
// Deleting a tag whose snapshot has expired deletes the data files, manifests, manifest lists,
// index manifests and index files of the tagged snapshot that neither its neighbour tags (the
// previous tag, and the nearer of the next tag and the earliest snapshot) use (Java's
// TagManager#doClean). Unlike Java, which deletes the tag file first (a crash then leaves the
// files as orphans), Fjord deletes the tag file last: data files, then manifests and index files,
// then manifest lists, then the tag file, so a crash at any step leaves every snapshot and every
// other tag readable and a retry of the deletion finishes it (files already deleted are skipped).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "fjord/meta/snapshot.h"
#include "fjord/result.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/partition_time.h"

namespace fjord {

// A Java Duration: whole seconds and nanoseconds 0..999999999.
struct TagDuration {
  int64_t seconds = 0;
  int32_t nanos = 0;
  static TagDuration FromMillis(int64_t millis);
  int64_t ToMillis() const;
  // Jackson's text: decimal seconds with nine fraction digits ("4.000000000").
  std::string ToJsonText() const;
  auto operator<=>(const TagDuration&) const = default;
};

struct TagEntry {
  std::string name;
  Snapshot snapshot;
  std::optional<LocalDateTime> create_time;
  std::optional<TagDuration> time_retained;
};

// The tag file's text: the snapshot JSON, then the two tag fields when `time_retained` is set
// (Java writes neither without it, so that readers <= 0.7 can read the tag).
std::string TagToJson(const Snapshot& snapshot, std::optional<LocalDateTime> create_time,
                      std::optional<TagDuration> time_retained);
// Parses a tag file; `source` prefixes errors.
Result<TagEntry> TagFromJson(std::string name, std::string_view text, std::string_view source);

// NotFound naming the tag when it does not exist.
Result<TagEntry> LoadTagEntry(const FileStoreTable& table, const std::string& name);
// Every tag, sorted by name.
Result<std::vector<TagEntry>> ListTagEntries(const FileStoreTable& table);

struct CreateTagRequest {
  std::string name;
  std::optional<int64_t> snapshot_id;        // nullopt: the latest snapshot
  std::optional<TagDuration> time_retained;  // nullopt: tag.default-time-retained
  bool ignore_if_exists = false;
};

// Java's Table#createTag: Invalid for a blank name ("Tag name shouldn't be blank."), a name with
// '/', an existing tag (unless ignore_if_exists: then false), a missing snapshot, or an auto-tag
// name on a snapshot that already has an auto tag. `now` is the tag's create time.
Result<bool> CreateTag(const FileStoreTable& table, const CreateTagRequest& request,
                       LocalDateTime now);

// Java's TagManager#deleteTag: false when the tag does not exist.
Result<bool> DeleteTag(const FileStoreTable& table, const std::string& name);

// Java's TagTimeExpire#expire: deletes the tags whose create time plus time retained lies before
// `now`; the names deleted.
Result<std::vector<std::string>> ExpireTagsByTime(const FileStoreTable& table, LocalDateTime now);

}  // namespace fjord
