// Long-lived changelogs (spec/format.md §8.7, Java's ChangelogManager): when changelog retention
// outlives snapshot retention, snapshot expiration keeps an expired snapshot's metadata as
// `changelog/changelog-<id>` (the snapshot's JSON), with its own LATEST and EARLIEST hints, so that
// streaming readers can still read its changelog. Thread-safe (stateless apart from the FileIO).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/meta/snapshot.h"

namespace fjord {

inline constexpr std::string_view kChangelogFilePrefix = "changelog-";

class ChangelogManager {
 public:
  ChangelogManager(std::shared_ptr<FileIO> io, const std::string& table_root)
      : io_(std::move(io)), dir_(table_root + "/changelog") {}

  const std::string& dir() const { return dir_; }
  std::string FileOf(int64_t id) const { return dir_ + "/changelog-" + std::to_string(id); }
  std::string LatestHint() const { return dir_ + "/LATEST"; }
  std::string EarliestHint() const { return dir_ + "/EARLIEST"; }

  // As SnapshotManager's: the hints when they hold, else the listing; nullopt when none.
  Result<std::optional<int64_t>> LatestId() const;
  Result<std::optional<int64_t>> EarliestId() const;
  Result<std::vector<int64_t>> ListIds() const;
  Result<bool> Exists(int64_t id) const;
  // NotFound when changelog-`id` does not exist.
  Result<Snapshot> Load(int64_t id) const;

  // Writes changelog-<id> (replacing one left by an interrupted expiration) and the LATEST hint.
  Status Commit(const Snapshot& snapshot) const;
  Status WriteEarliestHint(int64_t id) const;

 private:
  std::shared_ptr<FileIO> io_;
  std::string dir_;
};

}  // namespace fjord
