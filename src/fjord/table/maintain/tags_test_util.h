// A small append table "v BIGINT" for the tag tests: commits, snapshot times, simulated snapshot
// expiration, the files on disk and the rows of a tag.
#pragma once

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/tags.h"
#include "fjord/table/write/append_write.h"
#include "fjord/testing/test_util.h"

namespace fjord::testing {

class TagTestTable {
 public:
  TagTestTable(const TempDir& dir, std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = ParseColumnList("v BIGINT").value();
    spec.options = std::move(options);
    auto id = TableIdentifier::Parse("db.t").value();
    EXPECT_OK(catalog->CreateTable(id, spec));
    table = std::shared_ptr<FileStoreTable>(std::move(catalog->GetTable(id)).value());
  }

  void Append(const std::vector<int64_t>& values) { Commit(values, false); }
  void Overwrite(const std::vector<int64_t>& values) { Commit(values, true); }

  // Rewrites snapshot `id` with another commit time and watermark.
  void SetSnapshotTime(int64_t id, int64_t time_millis, std::optional<int64_t> watermark) {
    Snapshot s = table->snapshots().Load(id).value();
    s.time_millis = time_millis;
    s.watermark = watermark;
    ASSERT_OK(table->io()->Overwrite(table->snapshots().paths().SnapshotFile(id), s.ToJson()));
  }

  // Deletes the snapshot files below `earliest` (not their data: tags hold it) and writes the
  // EARLIEST hint, as snapshot expiration leaves a table whose old snapshots are tagged.
  void ExpireSnapshotsBefore(int64_t earliest) {
    const TablePaths& paths = table->snapshots().paths();
    std::vector<int64_t> ids = table->snapshots().ListIds().value();
    for (int64_t id : ids) {
      if (id < earliest) ASSERT_OK(table->io()->Delete(paths.SnapshotFile(id)));
    }
    ASSERT_OK(table->io()->Overwrite(paths.EarliestHint(), std::to_string(earliest)));
  }

  // Snapshots 1 (1), 2 (1, 2), 3 (overwrite: 3) and 4 (3, 4).
  void WriteFourSnapshots() {
    Append({1});
    Append({2});
    Overwrite({3});
    Append({4});
  }

  // Tags snapshot `id` as `name` (created now, no time retained).
  void Tag(const std::string& name, int64_t id) {
    CreateTagRequest r;
    r.name = name;
    r.snapshot_id = id;
    ASSERT_TRUE(CreateTag(*table, r, LocalDateTime::Now()).value());
  }

  // t1 @1 (1), t2 @2 (1, 2), t3 @3 (overwrite: 3); snapshot 4 (3, 4) is the earliest.
  void BuildThreeTagsAndExpire() {
    WriteFourSnapshots();
    for (int64_t id : {1, 2, 3}) Tag("t" + std::to_string(id), id);
    ExpireSnapshotsBefore(4);
  }

  // A copy of the table directory under `dir`; its path.
  std::string CopyTo(const TempDir& dir) const {
    std::string path = dir.Join("t");
    std::filesystem::copy(table->path(), path, std::filesystem::copy_options::recursive);
    return path;
  }

  std::set<std::string> Files() const { return FilesOf(table->path()); }

  // The data file (relative path) written for `value`.
  std::string DataFileOf(int64_t value) const { return data_files_.at(value); }

  std::multiset<int64_t> TagRows(const std::string& tag) const {
    return TagRowsOf(table->path(), tag);
  }
  std::multiset<int64_t> LatestRows() const { return RowsOf(table->path(), ReadRequest{}); }

  // Every file under a table directory, relative to it.
  static std::set<std::string> FilesOf(const std::string& path) {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(path)) {
      if (e.is_regular_file()) out.insert(std::filesystem::relative(e.path(), path).string());
    }
    return out;
  }
  static std::multiset<int64_t> TagRowsOf(const std::string& path, const std::string& tag) {
    ReadRequest request;
    request.selector.tag = tag;
    return RowsOf(path, request);
  }
  static std::multiset<int64_t> RowsOf(const std::string& path, const ReadRequest& request) {
    std::multiset<int64_t> out;
    auto fresh = std::move(FileStoreTable::Open(path)).value();
    Result<ReadResult> read = fresh->Read(request);
    EXPECT_TRUE(read.ok()) << read.status().ToString();
    if (!read.ok() || !read->rows) return out;
    for (const auto& chunk : read->rows->column(0)->chunks()) {
      auto ints = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < ints->length(); ++i) out.insert(ints->Value(i));
    }
    return out;
  }

  std::shared_ptr<FileStoreTable> table;

 private:
  void Commit(const std::vector<int64_t>& values, bool overwrite) {
    arrow::Int64Builder b;
    for (int64_t v : values) ASSERT_TRUE(b.Append(v).ok());
    auto rows = arrow::Table::Make(arrow::schema({arrow::field("v", arrow::int64())}),
                                   {b.Finish().ValueOrDie()});
    auto writer = std::move(AppendTableWrite::Create(table.get())).value();
    ASSERT_OK(writer->Write(rows));
    auto messages = std::move(writer->PrepareCommit()).value();
    for (const CommitMessage& m : messages) {
      for (const DataFileMeta& f : m.new_files) {
        for (int64_t v : values) data_files_[v] = "bucket-0/" + f.file_name;
      }
    }
    FileStoreCommit commit(table->io(), table->path(), table->schema(), "writer");
    if (overwrite) {
      ASSERT_OK(commit.Overwrite(messages, ++identifier_).status());
    } else {
      ASSERT_OK(commit.Commit(messages, ++identifier_).status());
    }
  }

  std::map<int64_t, std::string> data_files_;
  int64_t identifier_ = 0;
};

}  // namespace fjord::testing
