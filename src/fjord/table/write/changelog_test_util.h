// Test helpers for changelog files: their rows as (kind, key, row) in canonical JSON, read with
// the key-value file readers, applied in order to a map of live rows, and a table's rows in the
// same form to compare with.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "fjord/format/binary_row.h"
#include "fjord/format/row_json.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"

namespace fjord::testing_changelog {

struct Change {
  RowKind kind = RowKind::kInsert;
  std::string key;  // the primary key columns as a JSON object
  std::string row;  // all columns as a JSON object
};

using LiveRows = std::map<std::string, std::string>;  // key -> row

inline Result<std::string> JsonOf(const arrow::RecordBatch& batch,
                                  const std::vector<DataField>& fields,
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

inline std::vector<int> KeyColumns(const TableSchema& schema) {
  std::vector<int> out;
  for (const std::string& k : schema.primary_keys) {
    for (size_t f = 0; f < schema.fields.size(); ++f) {
      if (schema.fields[f].name == k) out.push_back(static_cast<int>(f));
    }
  }
  return out;
}

inline std::vector<int> AllColumns(const TableSchema& schema) {
  std::vector<int> out;
  for (size_t f = 0; f < schema.fields.size(); ++f) out.push_back(static_cast<int>(f));
  return out;
}

// The directory of a (partition, bucket).
inline Result<std::string> BucketDir(const FileStoreTable& table, const std::string& partition,
                                     int32_t bucket) {
  const TableSchema& schema = table.schema();
  std::vector<DataField> fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataTypePtr> types;
  for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
  FJORD_ASSIGN_OR_RAISE(std::vector<Value> values, DecodeStoredBinaryRow(partition, types));
  std::string dir = table.path();
  std::string ppath = PartitionPath(fields, values, table.core_options().partition_default_name());
  if (!ppath.empty()) dir = JoinPath(dir, ppath);
  return JoinPath(dir, "bucket-" + std::to_string(bucket));
}

// The rows of changelog `files` of `bucket_dir`, file after file, in file order.
inline Result<std::vector<Change>> ReadChanges(const FileStoreTable& table,
                                               const std::string& bucket_dir,
                                               const std::vector<DataFileMeta>& files) {
  std::vector<Change> out;
  KvFileReaderFactory readers(table.io(), table.path(), table.schema());
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(table.schema()));
  std::vector<int> keys = KeyColumns(table.schema());
  std::vector<int> all = AllColumns(table.schema());
  for (const DataFileMeta& f : files) {
    FJORD_ASSIGN_OR_RAISE(auto run, readers.OpenRun(bucket_dir, {f}));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
      if (!batch) break;
      auto kinds =
          std::static_pointer_cast<arrow::Int8Array>(batch->column(layout.value_kind_column()));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        Change c;
        c.kind = static_cast<RowKind>(kinds->Value(r));
        FJORD_ASSIGN_OR_RAISE(c.key, JsonOf(*batch, table.schema().fields, keys, r));
        FJORD_ASSIGN_OR_RAISE(c.row, JsonOf(*batch, table.schema().fields, all, r));
        out.push_back(std::move(c));
      }
    }
  }
  return out;
}

// The compact-increment changelog of `messages`, bucket after bucket.
inline Result<std::vector<Change>> CompactChanges(const FileStoreTable& table,
                                                  const std::vector<CommitMessage>& messages) {
  std::vector<Change> out;
  for (const CommitMessage& m : messages) {
    FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(table, m.partition, m.bucket));
    FJORD_ASSIGN_OR_RAISE(auto part, ReadChanges(table, dir, m.compact_changelog_files));
    out.insert(out.end(), part.begin(), part.end());
  }
  return out;
}

// The changelog files snapshot `id` lists in its changelog manifest list, in manifest order.
inline Result<std::vector<Change>> SnapshotChanges(const FileStoreTable& table, int64_t id) {
  SnapshotManager snapshots(table.io(), table.path());
  FJORD_ASSIGN_OR_RAISE(Snapshot snapshot, snapshots.Load(id));
  std::vector<Change> out;
  if (!snapshot.changelog_manifest_list) return out;
  TablePaths paths{table.path()};
  const std::string& format = table.core_options().manifest_format();
  FJORD_ASSIGN_OR_RAISE(
      auto manifests,
      ReadManifestList(table.io().get(), paths.ManifestFile(*snapshot.changelog_manifest_list),
                       format));
  for (const ManifestFileMeta& manifest : manifests) {
    FJORD_ASSIGN_OR_RAISE(
        auto entries,
        ReadManifestFile(table.io().get(), paths.ManifestFile(manifest.file_name), format));
    for (const ManifestEntry& e : entries) {
      FJORD_ASSIGN_OR_RAISE(std::string dir, BucketDir(table, e.partition, e.bucket));
      FJORD_ASSIGN_OR_RAISE(auto part, ReadChanges(table, dir, {e.file}));
      out.insert(out.end(), part.begin(), part.end());
    }
  }
  return out;
}

// Applies `changes` in order: a retraction must name the row `live` holds for its key.
inline void Apply(const std::vector<Change>& changes, LiveRows* live) {
  for (const Change& c : changes) {
    if (IsRetract(c.kind)) {
      auto it = live->find(c.key);
      ASSERT_NE(it, live->end()) << RowKindShortString(c.kind) << " of a missing key " << c.key;
      EXPECT_EQ(it->second, c.row) << RowKindShortString(c.kind) << " of another row";
      live->erase(it);
    } else {
      (*live)[c.key] = c.row;
    }
  }
}

// Every row a read of the table's latest snapshot on `threads` threads returns, as JSON, sorted
// (a row read twice shows twice).
inline Result<std::vector<std::string>> SortedRows(const FileStoreTable& table, int threads) {
  FJORD_ASSIGN_OR_RAISE(auto fresh, FileStoreTable::Open(table.path()));
  ReadRequest request;
  request.threads = threads;
  FJORD_ASSIGN_OR_RAISE(ReadResult result, fresh->Read(request));
  std::vector<std::string> out;
  if (result.rows->num_rows() == 0) return out;
  auto combined = result.rows->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(combined.status().ToString());
  std::vector<int> all = AllColumns(result.schema);
  for (int64_t r = 0; r < (*combined)->num_rows(); ++r) {
    FJORD_ASSIGN_OR_RAISE(std::string row, JsonOf(**combined, result.schema.fields, all, r));
    out.push_back(std::move(row));
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The table's rows (latest snapshot) by key.
inline Result<LiveRows> TableRows(const FileStoreTable& table) {
  FJORD_ASSIGN_OR_RAISE(auto fresh, FileStoreTable::Open(table.path()));
  FJORD_ASSIGN_OR_RAISE(ReadResult result, fresh->Read(ReadRequest{}));
  LiveRows out;
  if (result.rows->num_rows() == 0) return out;
  auto combined = result.rows->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(combined.status().ToString());
  std::vector<int> keys = KeyColumns(result.schema);
  std::vector<int> all = AllColumns(result.schema);
  for (int64_t r = 0; r < (*combined)->num_rows(); ++r) {
    FJORD_ASSIGN_OR_RAISE(std::string key, JsonOf(**combined, result.schema.fields, keys, r));
    FJORD_ASSIGN_OR_RAISE(std::string row, JsonOf(**combined, result.schema.fields, all, r));
    out[key] = row;
  }
  return out;
}

}  // namespace fjord::testing_changelog
