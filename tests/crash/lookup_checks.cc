#include "lookup_checks.h"

#include <arrow/api.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "fjord/format/row_json.h"
#include "fjord/lsm/key_value.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/lsm/merge_function.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/read/scan.h"

namespace fjord::crash {

namespace {

Result<std::string> BucketDirOf(const FileStoreTable& table, const ManifestEntry& e) {
  return BucketPath(table.path(), table.schema(), table.core_options(), e.partition, e.bucket);
}

// JSON of `columns` of row `r` (field i is column i of the batch).
Result<std::string> JsonOf(const arrow::RecordBatch& batch, const std::vector<DataField>& fields,
                           const std::vector<int>& columns, int64_t r) {
  std::vector<std::shared_ptr<arrow::Array>> arrays;
  std::vector<DataField> picked;
  for (int c : columns) {
    arrays.push_back(batch.column(c));
    picked.push_back(fields[static_cast<size_t>(c)]);
  }
  std::string out;
  FJORD_RETURN_NOT_OK(AppendRowJson(arrays, picked, r, &out));
  return out;
}

}  // namespace

Status CheckReferencedFiles(const FileStoreTable& table, const std::vector<Snapshot>& snapshots) {
  FileIO* io = table.io().get();
  TablePaths paths{table.path()};
  const std::string& format = table.core_options().manifest_format();
  // Snapshots share most of their files, and manifests never change: each is read and each path
  // looked up once (the live files of a snapshot are folded here from the cached entries).
  std::set<std::string> seen;
  std::map<std::string, std::vector<ManifestFileMeta>> lists;
  std::map<std::string, std::vector<ManifestEntry>> manifests;
  for (const Snapshot& s : snapshots) {
    auto must_exist = [&](const std::string& path, const char* what) -> Status {
      if (seen.count(path)) return Status::OK();
      FJORD_ASSIGN_OR_RAISE(bool there, io->Exists(path));
      if (!there) {
        return Status::Corruption("snapshot ", s.id, " references the ", what, " ", path,
                                  ", which is missing");
      }
      seen.insert(path);
      return Status::OK();
    };
    // The entries of a manifest list's manifests, in order.
    auto entries_of = [&](const std::string& list) -> Result<std::vector<ManifestEntry>> {
      auto it = lists.find(list);
      if (it == lists.end()) {
        FJORD_RETURN_NOT_OK(must_exist(paths.ManifestFile(list), "manifest list"));
        FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> metas,
                              ReadManifestList(io, paths.ManifestFile(list), format));
        it = lists.emplace(list, std::move(metas)).first;
      }
      std::vector<ManifestEntry> out;
      for (const ManifestFileMeta& m : it->second) {
        auto e = manifests.find(m.file_name);
        if (e == manifests.end()) {
          FJORD_RETURN_NOT_OK(must_exist(paths.ManifestFile(m.file_name), "manifest"));
          FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> read,
                                ReadManifestFile(io, paths.ManifestFile(m.file_name), format));
          e = manifests.emplace(m.file_name, std::move(read)).first;
        }
        out.insert(out.end(), e->second.begin(), e->second.end());
      }
      return out;
    };
    auto check_files = [&](const std::vector<ManifestEntry>& entries, const char* what) -> Status {
      for (const ManifestEntry& e : entries) {
        FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDirOf(table, e));
        FJORD_RETURN_NOT_OK(must_exist(JoinPath(dir, e.file.file_name), what));
        for (const std::string& extra : e.file.extra_files) {
          FJORD_RETURN_NOT_OK(must_exist(JoinPath(dir, extra), "extra file"));
        }
      }
      return Status::OK();
    };
    // The live data files: base and delta entries folded, ADD minus DELETE of the same file.
    std::map<std::tuple<std::string, int32_t, int32_t, std::string>, ManifestEntry> live;
    for (const std::string& list : {s.base_manifest_list, s.delta_manifest_list}) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, entries_of(list));
      for (ManifestEntry& e : entries) {
        auto key = std::make_tuple(e.partition, e.bucket, e.file.level, e.file.file_name);
        if (e.kind == FileKind::kAdd) {
          live[key] = std::move(e);
        } else {
          live.erase(key);
        }
      }
    }
    std::vector<ManifestEntry> data;
    for (auto& [key, e] : live) data.push_back(std::move(e));
    FJORD_RETURN_NOT_OK(check_files(data, "data file"));
    if (s.changelog_manifest_list) {
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> changelog,
                            entries_of(*s.changelog_manifest_list));
      FJORD_RETURN_NOT_OK(check_files(changelog, "changelog file"));
    }
    if (s.index_manifest && !seen.count(paths.ManifestFile(*s.index_manifest))) {
      std::string manifest = paths.ManifestFile(*s.index_manifest);
      FJORD_RETURN_NOT_OK(must_exist(manifest, "index manifest"));
      FJORD_ASSIGN_OR_RAISE(std::vector<IndexManifestEntry> index,
                            ReadIndexManifest(io, manifest, format));
      for (const IndexManifestEntry& e : index) {
        FJORD_RETURN_NOT_OK(must_exist(
            e.external_path ? *e.external_path : paths.IndexFile(e.file_name), "index file"));
      }
    }
  }
  return Status::OK();
}

Result<LatestFiles> InspectLatest(const FileStoreTable& table, const Snapshot& latest) {
  LatestFiles out;
  TableScan scan(table.io(), table.path(), table.schema());
  FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(latest, nullptr));
  out.level0 = std::any_of(entries.begin(), entries.end(),
                           [](const ManifestEntry& e) { return e.file.level == 0; });
  if (table.core_options().deletion_vectors_enabled()) {
    FJORD_ASSIGN_OR_RAISE(auto vectors, scan.DeletionFiles(latest));
    for (const auto& [bucket, files] : vectors) {
      for (const auto& [file, dv] : files) {
        ++out.vectors;
        out.deleted_rows += dv.cardinality.value_or(0);
      }
    }
  }
  return out;
}

Result<std::vector<std::string>> ReplayChangelog(const FileStoreTable& table,
                                                 const std::vector<Snapshot>& snapshots) {
  const TableSchema& schema = table.schema();
  TableScan scan(table.io(), table.path(), schema);
  KvFileReaderFactory readers(table.io(), table.path(), schema);
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
  std::vector<int> keys, all;
  for (size_t f = 0; f < schema.fields.size(); ++f) {
    all.push_back(static_cast<int>(f));
    if (std::find(schema.primary_keys.begin(), schema.primary_keys.end(), schema.fields[f].name) !=
        schema.primary_keys.end()) {
      keys.push_back(static_cast<int>(f));
    }
  }
  std::map<std::string, std::string> live;  // key -> row
  for (const Snapshot& s : snapshots) {
    if (!s.changelog_manifest_list) continue;
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries,
                          scan.LiveEntries(s, nullptr, ScanKind::kChangelog));
    for (const ManifestEntry& e : entries) {
      FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDirOf(table, e));
      FJORD_ASSIGN_OR_RAISE(auto run, readers.OpenRun(dir, {e.file}));
      while (true) {
        FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch, run->Next());
        if (!batch) break;
        auto kinds =
            std::static_pointer_cast<arrow::Int8Array>(batch->column(layout.value_kind_column()));
        for (int64_t r = 0; r < batch->num_rows(); ++r) {
          auto kind = static_cast<RowKind>(kinds->Value(r));
          FJORD_ASSIGN_OR_RAISE(std::string key, JsonOf(*batch, schema.fields, keys, r));
          FJORD_ASSIGN_OR_RAISE(std::string row, JsonOf(*batch, schema.fields, all, r));
          auto it = live.find(key);
          auto bad = [&](const std::string& why) {
            return Status::Corruption("changelog file ", e.file.file_name, " of snapshot ", s.id,
                                      ": ", RowKindShortString(kind), " ", row, " ", why);
          };
          if (IsRetract(kind)) {
            if (it == live.end()) return bad("retracts a key that is not live");
            if (it->second != row) return bad("retracts another row than " + it->second);
            live.erase(it);
          } else {
            if (kind == RowKind::kInsert && it != live.end()) return bad("inserts a live key");
            live[key] = row;
          }
        }
      }
    }
  }
  std::vector<std::string> rows;
  for (auto& [key, row] : live) rows.push_back(std::move(row));
  std::sort(rows.begin(), rows.end());
  return rows;
}

}  // namespace fjord::crash
