// `fjord tag create|delete|list`: Java's create_tag / delete_tag procedures and a tag listing
// (fjord/tags.h).

#include <nlohmann/json.hpp>

#include <cstdio>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "cli_util.h"
#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

using Json = nlohmann::ordered_json;

struct TagArgs {
  std::string table;
  std::string name;
  std::optional<int64_t> snapshot;
  std::string time_retained;
  bool json = false;
};

Status RunCreate(const TagArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  CreateTagOptions o;
  o.snapshot_id = a.snapshot;
  if (!a.time_retained.empty()) o.time_retained = a.time_retained;
  FJORD_RETURN_NOT_OK(CreateTableTag(*table, a.name, o));
  std::cerr << "created tag " << a.name << "\n";
  return Status::OK();
}

Status RunDelete(const TagArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(bool deleted, DeleteTableTag(*table, a.name));
  if (!deleted) return Status::NotFound("Tag '", a.name, "' doesn't exist in ", a.table);
  std::cerr << "deleted tag " << a.name << "\n";
  return Status::OK();
}

Status RunList(const TagArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  FJORD_ASSIGN_OR_RAISE(std::vector<TagInfo> tags, table->Tags());
  if (a.json) {
    Json out = Json::array();
    for (const TagInfo& t : tags) {
      Json j = Json::object();
      j["name"] = t.name;
      j["snapshot"] = t.snapshot.id;
      j["commit_time_millis"] = t.snapshot.time_millis;
      j["create_time"] = t.create_time ? Json(*t.create_time) : Json(nullptr);
      j["time_retained_millis"] =
          t.time_retained_millis ? Json(*t.time_retained_millis) : Json(nullptr);
      out.push_back(std::move(j));
    }
    std::cout << out.dump(2) << "\n";
    return Status::OK();
  }
  std::printf("%-24s %-10s %-24s %-24s %s\n", "name", "snapshot", "commit_time", "create_time",
              "time_retained");
  for (const TagInfo& t : tags) {
    std::string retained =
        t.time_retained_millis ? std::to_string(*t.time_retained_millis) + " ms" : "-";
    std::printf("%-24s %-10lld %-24s %-24s %s\n", t.name.c_str(),
                static_cast<long long>(t.snapshot.id),
                FormatEpochMillis(t.snapshot.time_millis).c_str(),
                t.create_time.value_or("-").c_str(), retained.c_str());
  }
  return Status::OK();
}

}  // namespace

void AddTagCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<TagArgs>();
  auto* tag = app->add_subcommand("tag", "Create, delete or list tags");
  tag->require_subcommand(1);
  auto* create = tag->add_subcommand("create", "Tag the latest or a given snapshot (create_tag)");
  create->add_option("table", a->table, "Table directory")->required();
  create->add_option("name", a->name, "Tag name")->required();
  create->add_option("--snapshot", a->snapshot, "Snapshot id (default the latest)");
  create->add_option("--time-retained", a->time_retained,
                     "How long the tag lives (\"1 d\", \"12 h\"); default the table's "
                     "tag.default-time-retained, else forever");
  create->callback([handler, a] { SetHandler(handler, [a] { return RunCreate(*a); }); });
  auto* del = tag->add_subcommand("delete", "Delete a tag and the files only it kept (delete_tag)");
  del->add_option("table", a->table, "Table directory")->required();
  del->add_option("name", a->name, "Tag name")->required();
  del->callback([handler, a] { SetHandler(handler, [a] { return RunDelete(*a); }); });
  auto* list = tag->add_subcommand("list", "List the tags");
  list->add_option("table", a->table, "Table directory")->required();
  list->add_flag("--json", a->json, "Print JSON");
  list->callback([handler, a] { SetHandler(handler, [a] { return RunList(*a); }); });
}

}  // namespace fjord::cli
