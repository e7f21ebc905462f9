// `fjord consumer list|reset|clear`: the consumers of a table's streaming reads
// (fjord/consumers.h; Java's reset_consumer and clear_consumers procedures).

#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct ConsumerArgs {
  std::string table;
  std::string id;
  std::optional<int64_t> next_snapshot;
  std::string including;
  std::string excluding;
  bool json = false;
};

Status RunList(const ConsumerArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(std::vector<ConsumerEntry> all, ListConsumers(*table));
  for (const ConsumerEntry& c : all) {
    if (a.json) {
      nlohmann::ordered_json j = nlohmann::ordered_json::object();
      j["id"] = c.id;
      j["next_snapshot"] = c.next_snapshot;
      std::cout << j.dump() << "\n";
    } else {
      std::cout << c.id << "\t" << c.next_snapshot << "\n";
    }
  }
  return Status::OK();
}

Status RunReset(const ConsumerArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_RETURN_NOT_OK(ResetConsumer(*table, a.id, a.next_snapshot));
  if (a.next_snapshot) {
    std::cerr << "consumer " << a.id << " continues at snapshot " << *a.next_snapshot << "\n";
  } else {
    std::cerr << "consumer " << a.id << " deleted\n";
  }
  return Status::OK();
}

Status RunClear(const ConsumerArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> gone,
                        ClearConsumers(*table, a.including, a.excluding));
  for (const std::string& id : gone) std::cout << id << "\n";
  std::cerr << gone.size() << " consumer(s) deleted\n";
  return Status::OK();
}

}  // namespace

void AddConsumerCommand(CLI::App* app, Handler* handler) {
  auto* cmd = app->add_subcommand("consumer", "List, reset or clear the consumers of a table");
  cmd->require_subcommand(1);
  auto a = std::make_shared<ConsumerArgs>();
  auto* list = cmd->add_subcommand("list", "Every consumer and the snapshot it continues at");
  list->add_option("table", a->table, "Table directory")->required();
  list->add_flag("--json", a->json, "One JSON object per line");
  list->callback([handler, a] { SetHandler(handler, [a] { return RunList(*a); }); });
  auto* reset = cmd->add_subcommand(
      "reset",
      "Set where a consumer continues (reset_consumer); without --next-snapshot, delete it");
  reset->add_option("table", a->table, "Table directory")->required();
  reset->add_option("id", a->id, "Consumer id")->required();
  reset
      ->add_option("--next-snapshot", a->next_snapshot, "The snapshot it continues at (must exist)")
      ->check(CLI::PositiveNumber);
  reset->callback([handler, a] { SetHandler(handler, [a] { return RunReset(*a); }); });
  auto* clear = cmd->add_subcommand("clear", "Delete consumers by id pattern (clear_consumers)");
  clear->add_option("table", a->table, "Table directory")->required();
  clear->add_option("--including", a->including, "Regular expression of ids (default: all)");
  clear->add_option("--excluding", a->excluding, "Regular expression of ids to keep");
  clear->callback([handler, a] { SetHandler(handler, [a] { return RunClear(*a); }); });
}

}  // namespace fjord::cli
