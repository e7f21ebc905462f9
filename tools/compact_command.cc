// `fjord compact`: a dedicated compaction job (behaviour.md §2.5, §2.8), for tables written with
// `write-only = true` or to force a full compaction. Primary-key tables: universal picking per
// bucket (or everything into the highest level). Append tables: small-file compaction
// (append_compact.h), per bucket with fixed buckets, per partition when bucket-unaware. It may run
// while writers commit: its commit is a COMPACT snapshot checked for conflicts by the committer.

#include <algorithm>
#include <iostream>
#include <memory>
#include <string>

#include "commands.h"
#include "fjord/common/ids.h"
#include "fjord/common/strings.h"
#include "fjord/format/binary_row.h"
#include "fjord/table/append_compact.h"
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

// Matches stored partitions against "k=v[,k2=v2]" (values as in partition paths, some or all of
// the partition columns); an empty spec matches everything.
class PartitionMatcher {
 public:
  static Result<PartitionMatcher> Make(const TableSchema& schema, const std::string& spec) {
    PartitionMatcher m;
    m.fields_ = schema.FieldsByName(schema.partition_keys);
    for (const DataField& f : m.fields_) m.types_.push_back(f.type->WithNullable(true));
    m.default_name_ = schema.Option("partition.default-name").value_or("__DEFAULT_PARTITION__");
    for (const std::string& part : SplitCommaList(spec)) {
      size_t eq = part.find('=');
      if (eq == std::string::npos || eq == 0) {
        return Status::Invalid("--partition takes k=v[,k2=v2], got '", spec, "'");
      }
      std::string key = part.substr(0, eq);
      auto field = std::find_if(m.fields_.begin(), m.fields_.end(),
                                [&](const DataField& f) { return f.name == key; });
      if (field == m.fields_.end()) {
        return Status::Invalid("--partition: '", key, "' is not a partition column");
      }
      m.wanted_.emplace_back(static_cast<size_t>(field - m.fields_.begin()),
                             EscapePathName(key) + "=" + EscapePathName(part.substr(eq + 1)) + "/");
    }
    return m;
  }
  bool empty() const { return wanted_.empty(); }
  Result<bool> Matches(const std::string& partition) const {
    if (wanted_.empty()) return true;
    FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(partition, types_));
    for (const auto& [index, segment] : wanted_) {
      if (PartitionPath({fields_[index]}, {values[index]}, default_name_) != segment) return false;
    }
    return true;
  }

 private:
  std::vector<DataField> fields_;
  std::vector<DataTypePtr> types_;
  std::string default_name_;
  std::vector<std::pair<size_t, std::string>> wanted_;  // field index, "k=v/" path segment
};

Status RunAppendCompact(const CompactArgs& a, const Table& table, const PartitionMatcher& matcher) {
  Status bad_partition;
  auto filter = [&](const std::string& partition) {
    Result<bool> m = matcher.Matches(partition);
    if (!m.ok() && bad_partition.ok()) bad_partition = m.status();
    return m.ok() && *m;
  };
  AppendCompactMetrics m;
  FJORD_ASSIGN_OR_RAISE(std::vector<CommitMessage> messages,
                        CompactAppendTable(table, filter, a.full, &m));
  FJORD_RETURN_NOT_OK(bad_partition);
  bool unaware = table.schema().Option("bucket").value_or("-1") == "-1";
  const char* unit = unaware ? " partitions" : " buckets";
  if (!matcher.empty() && m.scanned == 0 && !unaware) {
    return Status::NotFound("no files in partition ", a.partition, " of ", a.table);
  }
  if (messages.empty()) {
    std::cout << "nothing to compact in " << m.scanned << unit << "\n";
    return Status::OK();
  }
  FileStoreCommit commit(table.io(), table.path(), table.schema(), RandomUuid());
  commit.set_filter_committed(false);  // a fresh user has committed nothing
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> snapshot,
                        commit.Commit(messages, Snapshot::kBatchCommitIdentifier));
  std::cout << "compacted " << m.files_in << " files into " << m.files_out << " in " << m.scanned
            << unit << " (" << m.compactions << " compactions, " << m.bytes_in
            << " bytes rewritten into " << m.bytes_out << ")";
  if (snapshot) std::cout << " as snapshot " << *snapshot;
  std::cout << "\n";
  return Status::OK();
}

Status RunCompact(const CompactArgs& a) {
  FJORD_ASSIGN_OR_RAISE(auto table, Table::Open(a.table));
  const TableSchema& schema = table->schema();
  FJORD_ASSIGN_OR_RAISE(PartitionMatcher matcher, PartitionMatcher::Make(schema, a.partition));
  if (schema.primary_keys.empty()) return RunAppendCompact(a, *table, matcher);
  TableWriteOptions options;
  options.dynamic_options["write-only"] = "false";
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(table.get(), options));
  FJORD_ASSIGN_OR_RAISE(std::vector<PartitionBucket> buckets, writer->LiveBuckets());
  int matched = 0;
  for (const PartitionBucket& b : buckets) {
    FJORD_ASSIGN_OR_RAISE(bool match, matcher.Matches(b.first));
    if (!match) continue;
    ++matched;
    FJORD_RETURN_NOT_OK(writer->CompactBucket(b, a.full));
  }
  if (!matcher.empty() && matched == 0) {
    return Status::NotFound("no files in partition ", a.partition, " of ", a.table);
  }
  FJORD_ASSIGN_OR_RAISE(auto messages, writer->PrepareCommit());
  const TableWriteMetrics& m = writer->metrics();
  if (messages.empty()) {
    std::cout << "nothing to compact in " << matched << " buckets\n";
    return Status::OK();
  }
  FileStoreCommit commit(table->io(), table->path(), schema, RandomUuid());
  commit.set_filter_committed(false);  // a fresh user has committed nothing
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
  auto* cmd = app->add_subcommand("compact", "Compact a table (dedicated compaction)");
  cmd->add_option("table", a->table, "Table directory")->required();
  cmd->add_option("--partition", a->partition, "Only this partition: k=v[,k2=v2]");
  cmd->add_flag("--full", a->full,
                "Full compaction: primary keys, every file of each bucket into the highest level; "
                "fixed-bucket append tables, Java's full compaction of each bucket; "
                "bucket-unaware append tables, also partitions with fewer than "
                "compaction.min.file-num small files (at least two)");
  cmd->callback([handler, a] { SetHandler(handler, [a] { return RunCompact(*a); }); });
}

}  // namespace fjord::cli
