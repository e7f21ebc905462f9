// `fjord rescale`: Java Paimon's bucket rescale (ALTER TABLE ... SET ('bucket' = 'N'), then an
// INSERT OVERWRITE of the partitions), Table::Rescale.

#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "fjord/fjord.h"

namespace fjord::cli {

namespace {

struct RescaleArgs {
  std::string table;
  int32_t buckets = 0;
  std::vector<std::string> partitions;  // each k=v,k2=v2
};

Status RunRescale(const RescaleArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  RescaleOptions options;
  options.buckets = a.buckets;
  for (const std::string& text : a.partitions) {
    FJORD_ASSIGN_OR_RAISE(PartitionSpec spec, ParsePartitionSpec(text));
    if (spec.empty()) return Status::Invalid("--partition needs k=v, got an empty spec");
    options.partitions.push_back(std::move(spec));
  }
  FJORD_ASSIGN_OR_RAISE(RescaleResult r, table->Rescale(options));
  if (r.altered) {
    std::cout << "bucket: " << r.previous_bucket << " -> " << a.buckets << "\n";
  } else {
    std::cout << "bucket: already " << a.buckets << "\n";
  }
  for (const std::string& p : r.partitions) {
    std::cout << "rewrote " << (p.empty() ? std::string("the table") : "partition " + p) << "\n";
  }
  std::cout << r.rows << " rows of snapshot " << r.read_snapshot << ", " << r.files_before
            << " files replaced by " << r.files_written;
  if (r.snapshot_id) std::cout << " as OVERWRITE snapshot " << *r.snapshot_id;
  std::cout << "\n";
  return Status::OK();
}

}  // namespace

void AddRescaleCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<RescaleArgs>();
  auto* cmd = app->add_subcommand(
      "rescale",
      "Change a fixed-bucket table's bucket count and rewrite partitions into it (one OVERWRITE "
      "snapshot)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--buckets", a->buckets, "The new bucket count (> 0)")->required();
  AddPartitionOption(cmd, &a->partitions,
                     "Rewrite only the partitions matching (repeatable; default: every "
                     "partition)");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunRescale(*a); }); });
}

}  // namespace fjord::cli
