// Prints the changelog files of a table's snapshots as Fjord reads them, for the compatibility
// tests of changelog producers (java_full_compaction_changelog_compat.py compares them with Java
// Paimon's incremental changelog read):
//
//   fjord_changelog_dump TABLE_DIR [--files]
//
// One line per changelog record: the snapshot id, a tab, then the record as a canonical JSON
// object with its kind first ({"_row_kind":"-U","k":1,...}, Java's `fjord-oracle changes` form),
// for every snapshot in id order and, within one, the files in the order its changelog manifests
// list them. Files are read with the key-value file readers in the table's latest schema. With
// --files, one line per changelog file instead: snapshot, commit kind, file name, level and file
// source, tab-separated. Exit 1 with a message on the first error.
#include <arrow/api.h>

#include <iostream>
#include <string>
#include <vector>

#include "fjord/format/binary_row.h"
#include "fjord/format/row_json.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/file_store_table.h"

namespace fjord {
namespace {

Result<std::string> BucketDir(const FileStoreTable& table, const ManifestEntry& e) {
  const TableSchema& schema = table.schema();
  std::vector<DataField> fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> types;
  for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(e.partition, types));
  std::string dir = table.path();
  std::string ppath = PartitionPath(fields, values, table.core_options().partition_default_name());
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  return JoinPath(dir, "bucket-" + std::to_string(e.bucket));
}

Status DumpFile(const FileStoreTable& table, KvFileReaderFactory* readers, int64_t snapshot,
                const ManifestEntry& e) {
  FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(table, e));
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(table.schema()));
  FJORD_ASSIGN_OR_RAISE(auto run, readers->OpenRun(dir, {e.file}));
  const std::vector<DataField>& fields = table.schema().fields;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
    if (!batch) return Status::OK();
    std::vector<std::shared_ptr<arrow::Array>> columns;
    for (size_t f = 0; f < fields.size(); ++f)
      columns.push_back(batch->column(static_cast<int>(f)));
    const int8_t* kinds = batch->column(layout.value_kind_column())->data()->GetValues<int8_t>(1);
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::string row;
      FJORD_RETURN_NOT_OK(AppendRowJson(columns, fields, r, &row));
      std::string line = std::to_string(snapshot) + "\t{\"_row_kind\":\"" +
                         std::string(RowKindShortString(static_cast<RowKind>(kinds[r]))) + "\"";
      line += row.size() > 2 ? "," + row.substr(1) : "}";
      std::cout << line << "\n";
    }
  }
}

Status Run(const std::string& path, bool files_only) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(path));
  SnapshotManager snapshots(table->io(), table->path());
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, snapshots.LatestId());
  if (!latest) return Status::OK();
  KvFileReaderFactory readers(table->io(), table->path(), table->schema());
  TablePaths paths{table->path()};
  const std::string& format = table->core_options().manifest_format();
  for (int64_t id = 1; id <= *latest; ++id) {
    FJORD_ASSIGN_OR_RAISE(Snapshot s, snapshots.Load(id));
    if (!s.changelog_manifest_list) continue;
    FJORD_ASSIGN_OR_RAISE(auto manifests,
                          ReadManifestList(table->io().get(),
                                           paths.ManifestFile(*s.changelog_manifest_list), format));
    for (const ManifestFileMeta& m : manifests) {
      FJORD_ASSIGN_OR_RAISE(
          auto entries,
          ReadManifestFile(table->io().get(), paths.ManifestFile(m.file_name), format));
      for (const ManifestEntry& e : entries) {
        if (files_only) {
          std::cout << id << "\t" << CommitKindName(s.commit_kind) << "\t" << e.file.file_name
                    << "\t" << e.file.level << "\t"
                    << (e.file.file_source ? std::to_string(*e.file.file_source) : "null") << "\n";
          continue;
        }
        FJORD_RETURN_NOT_OK(DumpFile(*table, &readers, id, e));
      }
    }
  }
  return Status::OK();
}

}  // namespace
}  // namespace fjord

int main(int argc, char** argv) {
  bool files_only = argc == 3 && std::string(argv[2]) == "--files";
  if (argc != 2 && !files_only) {
    std::cerr << "usage: fjord_changelog_dump TABLE_DIR [--files]\n";
    return 2;
  }
  fjord::Status st = fjord::Run(argv[1], files_only);
  if (!st.ok()) {
    std::cerr << "fjord_changelog_dump: " << st.ToString() << "\n";
    return 1;
  }
  return 0;
}
