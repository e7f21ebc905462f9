// ListConsumers, ResetConsumer, ClearConsumers (fjord/consumers.h) over meta/consumer.h.

#include "fjord/consumers.h"

#include "fjord/meta/consumer.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table.h"
#include "fjord/table/file_store_table.h"

namespace fjord {

namespace {

ConsumerManager ManagerOf(const Table& table) {
  return ConsumerManager(table.store()->io(), table.store()->path());
}

}  // namespace

Result<std::vector<ConsumerEntry>> ListConsumers(const Table& table) {
  FJORD_ASSIGN_OR_RAISE(auto all, ManagerOf(table).List());
  std::vector<ConsumerEntry> out;
  for (const auto& [id, next] : all) out.push_back(ConsumerEntry{id, next});
  return out;
}

Status ResetConsumer(const Table& table, const std::string& id,
                     std::optional<int64_t> next_snapshot) {
  if (id.empty()) return Status::Invalid("a consumer id must not be empty");
  ConsumerManager consumers = ManagerOf(table);
  if (!next_snapshot) return consumers.Delete(id);
  SnapshotManager snapshots(table.store()->io(), table.store()->path());
  Result<Snapshot> snapshot = snapshots.Load(*next_snapshot);
  if (!snapshot.ok()) {
    if (snapshot.status().IsNotFound()) {
      return Status::Invalid("cannot reset consumer '", id, "' to snapshot ", *next_snapshot, ": ",
                             table.path(), " has no such snapshot");
    }
    return snapshot.status();
  }
  return consumers.Write(id, Consumer{*next_snapshot});
}

Result<std::vector<std::string>> ClearConsumers(const Table& table, const std::string& including,
                                                const std::string& excluding) {
  return ManagerOf(table).Clear(including, excluding);
}

}  // namespace fjord
