// Finds and loads snapshots, schemas and tags of one table. Thread-safe (stateless apart from the
// FileIO, which is thread-safe).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/snapshot.h"
#include "fjord/meta/table_paths.h"
#include "fjord/schema.h"

namespace fjord {

// A hint file (LATEST, EARLIEST): its decimal id, retried 3 times (it may be mid-overwrite);
// nullopt when it is missing or does not hold an id.
Result<std::optional<int64_t>> ReadIdHint(FileIO* io, const std::string& path);
// The ids of the files `<dir>/<prefix><digits>`, ascending.
Result<std::vector<int64_t>> ListNumberedFiles(FileIO* io, const std::string& dir,
                                               const std::string& prefix);

class SnapshotManager {
 public:
  SnapshotManager(std::shared_ptr<FileIO> io, std::string table_root)
      : io_(std::move(io)), paths_{std::move(table_root)} {}

  const TablePaths& paths() const { return paths_; }

  // Latest snapshot id: the LATEST hint when snapshot-(hint+1) does not exist, else the highest
  // id listed. nullopt for a table without snapshots.
  Result<std::optional<int64_t>> LatestId() const;
  // Earliest snapshot id: the EARLIEST hint when that snapshot exists, else the lowest listed.
  Result<std::optional<int64_t>> EarliestId() const;
  // All snapshot ids present, ascending.
  Result<std::vector<int64_t>> ListIds() const;
  // NotFound when snapshot-`id` does not exist.
  Result<Snapshot> Load(int64_t id) const;
  Result<std::optional<Snapshot>> Latest() const;
  // The latest snapshot whose commit time is <= `time_millis`; nullopt if all are later.
  Result<std::optional<Snapshot>> LatestAtOrBefore(int64_t time_millis) const;

  // Schemas.
  Result<std::vector<int64_t>> ListSchemaIds() const;
  Result<TableSchema> LoadSchema(int64_t id) const;
  // NotFound when the directory holds no schema (it is not a table).
  Result<TableSchema> LatestSchema() const;

  // Tags, sorted by name. A tag holds a full snapshot, which may outlive snapshot-N itself.
  Result<std::vector<std::string>> ListTags() const;
  Result<Snapshot> LoadTag(const std::string& name) const;
  // The snapshots of every tag, ascending by id, one per id (Java's TagManager.taggedSnapshots).
  Result<std::vector<Snapshot>> TaggedSnapshots() const;

 private:
  Result<std::optional<int64_t>> ReadHint(const std::string& path) const;
  Result<std::vector<int64_t>> ListNumbered(const std::string& dir,
                                            const std::string& prefix) const;

  std::shared_ptr<FileIO> io_;
  TablePaths paths_;
};

}  // namespace fjord
