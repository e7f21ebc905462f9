// The files of a table as the lifecycle test sees them (tests/lifecycle/): listings with
// modification times, the fake clock's time stamps, copies that keep them, and the set of files
// the table's metadata reaches, computed independently of table/maintain/.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "fjord/table.h"

namespace fjord::lifecycle {

int64_t MtimeMillis(const std::string& path);
void SetMtimeMillis(const std::string& path, int64_t millis);

// Every regular file under `root`, relative, with its modification time in milliseconds.
std::map<std::string, int64_t> FilesWithMtimes(const std::string& root);

// Copies `from` to `to` (which must not exist), keeping the modification times of files and
// directories.
void CopyTree(const std::string& from, const std::string& to);
// Replaces `root` by a copy of `pristine`.
void RestoreTree(const std::string& pristine, const std::string& root);

// Files orphan clean-up never deletes: schema/, tag/, consumer/ and the hints.
bool NeverCandidate(const std::string& rel);

// The files (relative) of `table` in use, computed from the metadata. Throws Failure on a read
// error.
struct ReachableFiles {
  // What readers read: snapshot, tag and changelog files; manifest lists and manifests; the live
  // data files of every snapshot and tag (base + delta folded) with their extra files; changelog
  // files of snapshots and long-lived changelogs; the data files a long-lived changelog of
  // producer none keeps; index manifests and index files; statistics files. Each must be on disk.
  std::set<std::string> live;
  // `live` and every file any manifest of a snapshot, tag or long-lived changelog names (ADD or
  // DELETE; base, delta and changelog lists): what orphan clean-up keeps, as Java's matches
  // names. May name files already deleted.
  std::set<std::string> named;
  // The files the manifests of long-lived changelogs name: a decoupled changelog of producer
  // none keeps the data files its snapshots' compactions removed until it expires itself.
  std::set<std::string> named_by_changelogs;
};
// `skip_tags` and `skip_snapshots` are left out (a tag being deleted, snapshots being expired).
// `rewritten`: snapshots a rollback wrote again from a tag; they name the changelog manifest list
// of the tagged snapshot, which the tag never kept (Java's Tag#trimToSnapshot keeps the name).
ReachableFiles Reachable(const Table& table, const std::set<std::string>& skip_tags = {},
                         const std::set<int64_t>& skip_snapshots = {},
                         const std::set<int64_t>& rewritten = {});

// Where the metadata names the data file `file_name` ("changelog-7 delta ADD; tag t base
// DELETE"), for failure messages.
std::string WhoNames(const Table& table, const std::string& file_name);

}  // namespace fjord::lifecycle
