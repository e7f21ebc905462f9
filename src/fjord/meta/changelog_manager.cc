#include "fjord/meta/changelog_manager.h"

#include "fjord/meta/snapshot_manager.h"

namespace fjord {

Result<std::vector<int64_t>> ChangelogManager::ListIds() const {
  return ListNumberedFiles(io_.get(), dir_, std::string(kChangelogFilePrefix));
}

Result<bool> ChangelogManager::Exists(int64_t id) const { return io_->Exists(FileOf(id)); }

Result<std::optional<int64_t>> ChangelogManager::LatestId() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> hint, ReadIdHint(io_.get(), LatestHint()));
  if (hint) {
    FJORD_ASSIGN_OR_RAISE(bool exists, Exists(*hint));
    FJORD_ASSIGN_OR_RAISE(bool next_exists, Exists(*hint + 1));
    if (exists && !next_exists) return hint;
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.back());
}

Result<std::optional<int64_t>> ChangelogManager::EarliestId() const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> hint, ReadIdHint(io_.get(), EarliestHint()));
  if (hint) {
    FJORD_ASSIGN_OR_RAISE(bool exists, Exists(*hint));
    if (exists) return hint;
  }
  FJORD_ASSIGN_OR_RAISE(std::vector<int64_t> ids, ListIds());
  if (ids.empty()) return std::optional<int64_t>();
  return std::optional<int64_t>(ids.front());
}

Result<Snapshot> ChangelogManager::Load(int64_t id) const {
  std::string path = FileOf(id);
  Result<std::string> text = io_->ReadFile(path);
  if (!text.ok()) {
    if (text.status().IsNotFound())
      return Status::NotFound("changelog ", id, " does not exist (", path, ")");
    return text.status();
  }
  FJORD_ASSIGN_OR_RAISE(Snapshot s, Snapshot::FromJson(*text, path));
  if (s.id != id) return Status::Corruption(path, ": field 'id' is ", s.id, ", expected ", id);
  return s;
}

Status ChangelogManager::Commit(const Snapshot& snapshot) const {
  FJORD_RETURN_NOT_OK(io_->Overwrite(FileOf(snapshot.id), snapshot.ToJson()));
  return io_->Overwrite(LatestHint(), std::to_string(snapshot.id));
}

Status ChangelogManager::WriteEarliestHint(int64_t id) const {
  return io_->Overwrite(EarliestHint(), std::to_string(id));
}

}  // namespace fjord
