// Bucket rescale (Table::Rescale, Java Paimon's "Rescale Bucket"): rows identical before and
// after, every file in the bucket Java's hashing gives its rows under the new count, one
// OVERWRITE snapshot; partial rescales; writers and commits that still use the old count refused
// where Java refuses them; what Fjord refuses to rescale.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/write/row_router.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;
using Row = std::tuple<std::string, int32_t, int64_t>;  // p, k, v

// Rows p, k in [from, to), v = k * 10 + round; "-D" rows when `kind` says so.
std::shared_ptr<arrow::RecordBatch> Rows(const std::string& p, int32_t from, int32_t to,
                                         int64_t round, const std::string& kind = "") {
  arrow::StringBuilder pb, kb;
  arrow::Int32Builder k;
  arrow::Int64Builder v;
  for (int32_t i = from; i < to; ++i) {
    EXPECT_TRUE(pb.Append(p).ok());
    EXPECT_TRUE(k.Append(i).ok());
    EXPECT_TRUE(v.Append(int64_t{i} * 10 + round).ok());
    EXPECT_TRUE(kb.Append(kind.empty() ? "+I" : kind).ok());
  }
  auto schema =
      arrow::schema({arrow::field("p", arrow::utf8()), arrow::field("k", arrow::int32()),
                     arrow::field("v", arrow::int64()), arrow::field("_row_kind", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, to - from,
                                  {*pb.Finish(), *k.Finish(), *v.Finish(), *kb.Finish()});
}

class RescaleTest : public ::testing::Test {
 protected:
  std::unique_ptr<Table> Create(const std::string& name, bool pk, bool partitioned,
                                std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList(pk ? "p STRING NOT NULL, k INT NOT NULL, v BIGINT"
                                      : "p STRING NOT NULL, k INT, v BIGINT");
    if (pk) spec.primary_keys = {"p", "k"};
    if (partitioned) spec.partition_keys = {"p"};
    spec.options = std::move(options);
    TableIdentifier id{"db", name};
    EXPECT_OK(catalog->CreateTable(id, spec));
    return *catalog->GetTable(id);
  }

  void Commit(const Table& table, std::vector<std::shared_ptr<arrow::RecordBatch>> batches) {
    auto writer = *table.NewWrite();
    for (const auto& b : batches) ASSERT_OK(WriteBatch(*writer, *b));
    ASSERT_OK_AND_ASSIGN(CommitMessages messages, writer->PrepareCommit(++identifier_));
    auto commit = *table.NewCommit("writer");
    ASSERT_OK(commit->Commit(messages, identifier_).status());
  }

  static std::multiset<Row> ReadRows(const Table& table, const std::string& where = "") {
    std::multiset<Row> out;
    ReadBuilder builder = table.NewRead();
    if (!where.empty()) builder.Where(where);
    auto reader = OpenArrowReader(builder);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      auto p = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("p"));
      auto k = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("k"));
      auto v = std::static_pointer_cast<arrow::Int64Array>(batch->GetColumnByName("v"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        out.insert({p->GetString(r), k->Value(r), v->Value(r)});
      }
    }
    return out;
  }

  // partition text -> the total bucket count of its live files; every file's rows must route to
  // the file's own bucket under that count, as Java's writers route them.
  static std::map<std::string, int32_t> CheckLayout(const std::string& path) {
    std::map<std::string, int32_t> totals;
    auto table = *FileStoreTable::Open(path);
    auto latest = *table->snapshots().Latest();
    EXPECT_TRUE(latest.has_value());
    TableScan scan(table->io(), table->path(), table->schema());
    auto entries = *scan.LiveEntries(*latest, nullptr);
    std::map<std::pair<std::string, int32_t>, int32_t> bucket_totals;
    for (const ManifestEntry& e : entries) {
      std::string p = PartitionDisplay(e.partition, table->schema(), table->core_options());
      auto [it, inserted] = totals.emplace(p, e.total_buckets);
      EXPECT_EQ(it->second, e.total_buckets) << "partition " << p << " mixes bucket counts";
      EXPECT_GE(e.bucket, 0);
      EXPECT_LT(e.bucket, e.total_buckets) << e.file.file_name;
      bucket_totals[{e.partition, e.bucket}] = e.total_buckets;
    }
    ScanSelector at;
    at.snapshot_id = latest->id;
    auto plan = *table->Plan(at);
    for (const DataSplit& split : plan.splits) {
      // Route with the count the split's files were written with.
      TableSchema schema = table->schema();
      for (auto& [k, v] : schema.options) {
        if (k == "bucket") v = std::to_string(split.total_buckets);
      }
      auto core = *CoreOptions::Make(schema);
      auto router = *RowRouter::Make(schema, core);
      std::vector<DataField> fields;
      auto options = *table->SplitOptionsFor(table->schema(), ReadRequest{}, 4096, &fields);
      std::shared_ptr<arrow::Schema> arrow_schema;
      auto rows = *table->OpenSplits(table->schema(), {split}, options, &arrow_schema);
      int64_t n = 0;
      while (true) {
        auto batch = *rows->Next();
        if (!batch) break;
        auto routed = *router.Route(*batch);
        for (const auto& [key, indices] : routed) {
          EXPECT_EQ(key.first, split.partition);
          EXPECT_EQ(key.second, split.bucket) << indices.size() << " rows in the wrong bucket";
          n += static_cast<int64_t>(indices.size());
        }
      }
      EXPECT_GT(n, 0);
    }
    return totals;
  }

  static int64_t SnapshotCount(const Table& table) { return (*table.Snapshots()).size(); }

  TempDir dir_;
  int64_t identifier_ = 0;
};

TEST_F(RescaleTest, PrimaryKeyTableWholeTableInOneOverwrite) {
  auto table = Create("pk", true, true, {{"bucket", "2"}});
  Commit(*table, {Rows("a", 0, 300, 1), Rows("b", 0, 200, 1)});
  Commit(*table, {Rows("a", 100, 400, 2), Rows("b", 50, 60, 0, "-D")});
  Commit(*table, {Rows("b", 150, 250, 3)});
  auto before = ReadRows(*table);
  ASSERT_EQ(before.size(), 400u + 240u);
  int64_t snapshots = SnapshotCount(*table);

  ASSERT_OK_AND_ASSIGN(RescaleResult r, table->Rescale({.buckets = 5}));
  EXPECT_TRUE(r.altered);
  EXPECT_EQ(r.previous_bucket, 2);
  EXPECT_EQ(r.partitions, (std::vector<std::string>{"p=a", "p=b"}));
  EXPECT_EQ(r.rows, 640);
  ASSERT_TRUE(r.snapshot_id);

  auto reopened = *Table::Open(table->path());
  EXPECT_EQ(reopened->options().Get("bucket").value_or(""), "5");
  EXPECT_EQ(SnapshotCount(*reopened), snapshots + 1);
  auto latest = **reopened->LatestSnapshot();
  EXPECT_EQ(latest.id, *r.snapshot_id);
  EXPECT_EQ(latest.commit_kind, "OVERWRITE");
  EXPECT_EQ(ReadRows(*reopened), before);
  auto totals = CheckLayout(table->path());
  EXPECT_EQ(totals, (std::map<std::string, int32_t>{{"p=a", 5}, {"p=b", 5}}));
  // A filter on the key prunes buckets with the new count and still finds its rows.
  EXPECT_EQ(ReadRows(*reopened, "k = 155").size(), 2u);

  // A writer with the new count writes on; the table keeps merging by key.
  Commit(*reopened, {Rows("a", 0, 10, 9)});
  auto after = ReadRows(*reopened);
  EXPECT_EQ(after.size(), before.size());
  EXPECT_EQ(after.count({"a", 3, 39}), 1u);
}

TEST_F(RescaleTest, AppendTablePartialRescaleAndOldWriters) {
  auto table = Create("append", false, true, {{"bucket", "2"}, {"bucket-key", "k"}});
  Commit(*table, {Rows("a", 0, 500, 1), Rows("b", 0, 300, 1)});
  Commit(*table, {Rows("a", 0, 100, 2)});
  auto before = ReadRows(*table);

  // A writer of the old count opened before the rescale, which has already restored the table
  // (it wrote partition b).
  auto stale = *table->NewWrite();
  ASSERT_OK(WriteBatch(*stale, *Rows("b", 0, 5, 7)));

  ASSERT_OK_AND_ASSIGN(RescaleResult r,
                       table->Rescale({.buckets = 3, .partitions = {{{"p", "a"}}}}));
  EXPECT_EQ(r.partitions, (std::vector<std::string>{"p=a"}));
  EXPECT_EQ(r.rows, 600);
  auto reopened = *Table::Open(table->path());
  EXPECT_EQ(ReadRows(*reopened), before);
  // Partition a has 3 buckets, b still 2; reads (also pruned by key) see both.
  EXPECT_EQ(CheckLayout(table->path()), (std::map<std::string, int32_t>{{"p=a", 3}, {"p=b", 2}}));
  EXPECT_EQ(ReadRows(*reopened, "k = 42").size(), 3u);  // a twice, b once

  // A new writer (3 buckets) may write a, but not b, whose files have 2 buckets (Java's
  // "previous bucket num" refusal, when the writer opens the bucket).
  {
    auto writer = *reopened->NewWrite();
    ASSERT_OK(WriteBatch(*writer, *Rows("a", 0, 50, 5)));
    Status st = WriteBatch(*writer, *Rows("b", 0, 50, 5));
    EXPECT_THAT(st, IsError(StatusCode::kInvalid,
                            "with a new bucket num 3, but the previous "
                            "bucket num is 2"));
    EXPECT_THAT(st, IsError(StatusCode::kInvalid, "partition p=b"));
    EXPECT_THAT(st, IsError(StatusCode::kInvalid, "fjord rescale"));
  }
  // The stale writer (2 buckets) opening buckets of the rescaled partition a is refused, as
  // Java checks each bucket against the latest snapshot when it creates its writer.
  Status st = WriteBatch(*stale, *Rows("a", 0, 200, 7));
  EXPECT_THAT(st, IsError(StatusCode::kInvalid,
                          "with a new bucket num 2, but the previous "
                          "bucket num is 3"));

  // Rescaling b too (the count is already 3: no schema change) makes b writable again.
  int64_t schemas = reopened->schema().id;
  ASSERT_OK_AND_ASSIGN(RescaleResult r2,
                       reopened->Rescale({.buckets = 3, .partitions = {{{"p", "b"}}}}));
  EXPECT_FALSE(r2.altered);
  auto again = *Table::Open(table->path());
  EXPECT_EQ(again->schema().id, schemas);
  EXPECT_EQ(CheckLayout(table->path()), (std::map<std::string, int32_t>{{"p=a", 3}, {"p=b", 3}}));
  EXPECT_EQ(ReadRows(*again), before);
  Commit(*again, {Rows("b", 0, 50, 5)});
  EXPECT_EQ(ReadRows(*again).size(), before.size() + 50);
}

TEST_F(RescaleTest, UnpartitionedAndScaleDown) {
  auto table = Create("flat", true, false, {{"bucket", "4"}});
  Commit(*table, {Rows("x", 0, 1000, 1)});
  Commit(*table, {Rows("y", 500, 1500, 2)});
  auto before = ReadRows(*table);
  ASSERT_OK_AND_ASSIGN(RescaleResult r, table->Rescale({.buckets = 1}));
  EXPECT_EQ(r.partitions, (std::vector<std::string>{""}));
  auto reopened = *Table::Open(table->path());
  EXPECT_EQ(ReadRows(*reopened), before);
  EXPECT_EQ(CheckLayout(table->path()), (std::map<std::string, int32_t>{{"", 1}}));
  ASSERT_OK_AND_ASSIGN(ReadPlan plan, reopened->NewRead().Plan());
  for (const PlannedFile& f : plan.files) EXPECT_EQ(f.bucket, 0);
}

TEST_F(RescaleTest, NoChangelogLeftBehind) {
  // changelog-producer = input: the rewrite's writer produces changelog files, which an overwrite
  // does not commit; none may stay on disk.
  auto table = Create("cl", true, true, {{"bucket", "2"}, {"changelog-producer", "input"}});
  Commit(*table, {Rows("a", 0, 100, 1)});
  Commit(*table, {Rows("a", 50, 150, 2)});
  auto changelog_files = [&] {
    int n = 0;
    for (const auto& e : std::filesystem::recursive_directory_iterator(table->path())) {
      if (e.path().filename().string().rfind("changelog-", 0) == 0) ++n;
    }
    return n;
  };
  int before = changelog_files();
  EXPECT_GT(before, 0);
  auto rows = ReadRows(*table);
  ASSERT_OK_AND_ASSIGN(RescaleResult r, table->Rescale({.buckets = 3}));
  EXPECT_EQ(changelog_files(), before);
  auto reopened = *Table::Open(table->path());
  EXPECT_EQ(ReadRows(*reopened), rows);
  auto latest = **reopened->LatestSnapshot();
  EXPECT_EQ(latest.commit_kind, "OVERWRITE");
  EXPECT_EQ(latest.changelog_record_count.value_or(0), 0);
}

TEST_F(RescaleTest, CompactionCommitOfTheOldCountIsRefused) {
  // Java's committer refuses, in the conflict check of COMPACT (and checked) commits, a
  // partition whose total bucket count would change without an overwrite.
  auto table =
      Create("pkc", true, true, {{"bucket", "2"}, {"num-sorted-run.compaction-trigger", "2"}});
  Commit(*table, {Rows("a", 0, 100, 1)});
  Commit(*table, {Rows("a", 0, 100, 2)});
  auto before = ReadRows(*table);
  auto stale = *table->NewWrite();
  ASSERT_OK(WriteBatch(*stale, *Rows("a", 0, 100, 3)));  // opens (restores) its buckets now
  ASSERT_OK(table->Rescale({.buckets = 4}).status());
  ASSERT_OK_AND_ASSIGN(CommitMessages messages, stale->PrepareCommit(100));
  auto commit = *table->NewCommit("stale");
  auto result = commit->Commit(messages, 100);
  EXPECT_THAT(result.status(),
              IsError(StatusCode::kConflict, "changed from 4 to 2 without overwrite"));
}

TEST_F(RescaleTest, RefusedWithNothingChanged) {
  auto dynamic = Create("dyn", true, true, {{"bucket", "-1"}});
  Commit(*dynamic, {Rows("a", 0, 10, 1)});
  EXPECT_THAT(dynamic->Rescale({.buckets = 4}).status(),
              IsError(StatusCode::kInvalid, "Cannot change bucket when it is -1"));
  auto unaware = Create("unaware", false, true, {{"bucket", "-1"}});
  Commit(*unaware, {Rows("a", 0, 10, 1)});
  EXPECT_THAT(unaware->Rescale({.buckets = 4}).status(),
              IsError(StatusCode::kInvalid, "no buckets (bucket = -1)"));

  auto fixed = Create("fixed", true, true, {{"bucket", "2"}});
  EXPECT_THAT(fixed->Rescale({.buckets = 4}).status(),
              IsError(StatusCode::kInvalid, "has no snapshot. No need to rescale"));
  Commit(*fixed, {Rows("a", 0, 10, 1)});
  EXPECT_THAT(fixed->Rescale({.buckets = 0}).status(),
              IsError(StatusCode::kInvalid, "must be greater than 0"));
  EXPECT_THAT(fixed->Rescale({.buckets = 4, .partitions = {{{"p", "zzz"}}}}).status(),
              IsError(StatusCode::kInvalid, "does not have any data files"));
  EXPECT_THAT(fixed->Rescale({.buckets = 4, .partitions = {{{"nope", "a"}}}}).status(),
              HasStatusCode(StatusCode::kInvalid));
  // Nothing changed: same schema, same snapshot.
  auto reopened = *Table::Open(fixed->path());
  EXPECT_EQ(reopened->schema().id, 0);
  EXPECT_EQ(SnapshotCount(*reopened), 1);
}

TEST_F(RescaleTest, StrictModeRefusesAConcurrentCommit) {
  // `commit.strict-mode.last-safe-snapshot` (what the rescale commits with): an OVERWRITE on top
  // of another user's APPEND to fixed buckets after the safe snapshot gives up.
  auto table = Create("strict", true, true, {{"bucket", "2"}});
  Commit(*table, {Rows("a", 0, 10, 1)});
  auto safe = (**table->LatestSnapshot()).id;
  Commit(*table, {Rows("a", 10, 20, 2)});
  auto store = table->store();
  FileStoreCommit commit(store->io(), store->path(), store->schema(), "rescaler",
                         {{"commit.strict-mode.last-safe-snapshot", std::to_string(safe)}});
  auto r = commit.OverwritePartitions({}, 1, {});
  EXPECT_THAT(r.status(), IsError(StatusCode::kConflict, "which committed files to fixed bucket"));
  // -1: the first commit is not checked.
  FileStoreCommit first(store->io(), store->path(), store->schema(), "rescaler",
                        {{"commit.strict-mode.last-safe-snapshot", "-1"}});
  EXPECT_OK(first.OverwritePartitions({}, 2, {}).status());
  // An APPEND of our own on top of others' APPENDs is fine.
  FileStoreCommit append(store->io(), store->path(), store->schema(), "rescaler",
                         {{"commit.strict-mode.last-safe-snapshot", std::to_string(safe)}});
  EXPECT_OK(append.Commit({}, 1).status());
}

}  // namespace
}  // namespace fjord
