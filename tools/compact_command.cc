// `fjord compact`: a dedicated compaction job for a primary-key table (behaviour.md §2.5), for
// tables written with `write-only = true` or to force a full compaction. It may run while writers
// commit: its commit is a COMPACT snapshot checked for conflicts by the committer.

#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "fjord/common/ids.h"
#include "fjord/common/strings.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/commit.h"
#include "fjord/table/partition_path.h"
#include "fjord/table/primary_key_write.h"
#include "fjord/table/table.h"

namespace fjord::cli {

namespace {

struct CompactArgs {
  std::string table;
  std::string partition;  // k=v,k2=v2
  bool full = false;
};

// "k=v,k2=v2" as the partition directory path "k=v/k2=v2", for matching.
std::string PartitionSpecPath(const std::string& spec) {
  std::string out;
  for (const std::string& part : SplitCommaList(spec)) {
    if (!out.empty()) out += "/";
    out += part;
  }
  return out;
}

Status RunCompact(const CompactArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  const TableSchema& schema = table->schema();
  if (schema.primary_keys.empty()) {
    return Status::NotImplemented("compacting append tables (", a.table,
                                  ") is not supported yet; only primary-key tables");
  }
  TableWriteOptions options;
  options.dynamic_options["write-only"] = "false";
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get(), options));
  FJORD_ASSIGN_OR_RAISE(std::vector<PartitionBucket> buckets, writer->LiveBuckets());
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> partition_types;
  for (const DataField& f : partition_fields) partition_types.push_back(f.type->WithNullable(true));
  std::string wanted = PartitionSpecPath(a.partition);
  std::string default_name =
      schema.Option("partition.default-name").value_or("__DEFAULT_PARTITION__");
  int matched = 0;
  for (const PartitionBucket& b : buckets) {
    if (!wanted.empty()) {
      FJORD_ASSIGN_OR_RAISE(std::vector<Value> values,
                            DecodeStoredBinaryRow(b.first, partition_types));
      if (PartitionPath(partition_fields, values, default_name) != wanted) continue;
    }
    ++matched;
    FJORD_RETURN_NOT_OK(writer->CompactBucket(b, a.full));
  }
  if (!wanted.empty() && matched == 0) {
    return Status::NotFound("no files in partition ", a.partition, " of ", a.table);
  }
  FJORD_ASSIGN_OR_RAISE(auto messages, writer->PrepareCommit());
  const TableWriteMetrics& m = writer->metrics();
  if (messages.empty()) {
    std::cout << "nothing to compact in " << matched << " buckets\n";
    return Status::OK();
  }
  FileStoreCommit commit(table->io(), table->path(), schema, RandomUuid());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot,
                        commit.Commit(messages, Snapshot::kBatchCommitIdentifier));
  std::cout << "compacted " << messages.size() << " of " << matched << " buckets (" << m.compactions
            << " compactions, " << m.compaction_bytes_in << " bytes rewritten into "
            << m.compaction_bytes_out << ")";
  if (snapshot) std::cout << " as snapshot " << *snapshot;
  std::cout << "\n";
  return Status::OK();
}

}  // namespace

void AddCompactCommand(CLI::App* app, Handler* handler) {
  auto a = std::make_shared<CompactArgs>();
  auto* cmd = app->add_subcommand("compact", "Compact a primary-key table (dedicated compaction)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--partition", a->partition, "Only this partition: k=v[,k2=v2]");
  cmd->add_flag("--full", a->full, "Compact every file of each bucket into the highest level");
  cmd->callback([handler, a] {
    *handler = [a] {
      Status st = RunCompact(*a);
      if (!st.ok()) {
        std::cerr << "fjord: " << st.ToString() << "\n";
        return 1;
      }
      return 0;
    };
  });
}

}  // namespace fjord::cli
