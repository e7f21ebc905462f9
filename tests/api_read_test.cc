// Reads through the public API stream: batches bounded by WithBatchRows, merge-on-read of many
// sorted runs pulled batch by batch, projection and filter pushed into the file reads, the C
// Stream interface.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

std::shared_ptr<arrow::RecordBatch> Rows(int32_t from, int32_t to, int64_t v) {
  arrow::Int32Builder id;
  arrow::Int64Builder value;
  arrow::StringBuilder text;
  for (int32_t i = from; i < to; ++i) {
    EXPECT_TRUE(id.Append(i).ok());
    EXPECT_TRUE(value.Append(v).ok());
    EXPECT_TRUE(text.Append("s" + std::to_string(i)).ok());
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32(), false), arrow::field("v", arrow::int64()),
                     arrow::field("s", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, to - from,
                                  {*id.Finish(), *value.Finish(), *text.Finish()});
}

class ApiReadTest : public ::testing::Test {
 protected:
  // A table with `commits` commits of ids [0, 2000), v = commit number; write-only, so every
  // commit leaves one more sorted run per bucket for merge-on-read.
  std::unique_ptr<Table> MakeTable(bool primary_key, int commits,
                                   std::vector<std::pair<std::string, std::string>> options = {}) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList("id INT NOT NULL, v BIGINT, s STRING");
    if (primary_key) spec.primary_keys = {"id"};
    spec.options = {{"bucket", "2"}, {"write-only", "true"}, {"file.format", "parquet"}};
    if (!primary_key) spec.options[0].second = "-1";
    for (auto& kv : options) spec.options.push_back(kv);
    TableIdentifier id{"db", primary_key ? "pk" : "append"};
    EXPECT_OK(catalog->CreateTable(id, spec));
    auto table = *catalog->GetTable(id);
    auto commit = *table->NewCommit("test");
    for (int c = 1; c <= commits; ++c) {
      auto opened = table->NewWrite();
      EXPECT_TRUE(opened.ok()) << opened.status().ToString();
      if (!opened.ok()) return table;
      auto writer = *std::move(opened);
      EXPECT_OK(WriteBatch(*writer, *Rows(0, 2000, c)));
      auto messages = writer->PrepareCommit(c);
      EXPECT_TRUE(messages.ok()) << messages.status().ToString();
      EXPECT_TRUE(commit->Commit(*messages, c).ok());
    }
    return table;
  }

  // Pulls every batch; checks the bound; returns the rows as id -> (v, s) and the batch count.
  std::map<int32_t, std::pair<int64_t, std::string>> ReadAll(const ReadBuilder& builder,
                                                             int64_t bound, int* batches) {
    std::map<int32_t, std::pair<int64_t, std::string>> out;
    auto reader = OpenArrowReader(builder);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    *batches = 0;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      ++*batches;
      EXPECT_GT(batch->num_rows(), 0);
      EXPECT_LE(batch->num_rows(), bound);
      auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
      auto v = std::static_pointer_cast<arrow::Int64Array>(batch->GetColumnByName("v"));
      auto s = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("s"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        int32_t key = id ? id->Value(r) : static_cast<int32_t>(out.size());
        EXPECT_EQ(out.count(key), 0u) << "id " << key << " twice";
        out[key] = {v ? v->Value(r) : -1, s ? s->GetString(r) : ""};
      }
    }
    return out;
  }

  TempDir dir_;
};

TEST_F(ApiReadTest, MergeOnReadStreamsBoundedBatches) {
  auto table = MakeTable(true, 5);
  ASSERT_OK_AND_ASSIGN(ReadPlan plan, table->NewRead().Plan());
  EXPECT_EQ(plan.files.size(), 10u);  // 5 runs in each of 2 buckets
  int batches = 0;
  auto rows = ReadAll(table->NewRead().WithBatchRows(128), 128, &batches);
  ASSERT_EQ(rows.size(), 2000u);
  for (const auto& [id, vs] : rows) {
    ASSERT_EQ(vs.first, 5) << "id " << id;  // the last commit wins
    ASSERT_EQ(vs.second, "s" + std::to_string(id));
  }
  EXPECT_GE(batches, 2000 / 128);
}

// Planning reads the manifest files on several threads (scan.manifest.parallelism) and folds them
// in order: a compaction's DELETE entries, in a later manifest, still cancel the files they
// replace, whatever the thread count.
TEST_F(ApiReadTest, ManifestsReadOnSeveralThreadsPlanTheSameFiles) {
  auto table = MakeTable(true, 6, {{"manifest.merge-min-count", "1000"}});
  CompactionOptions full;
  full.full = true;
  ASSERT_OK_AND_ASSIGN(auto compaction, table->NewCompaction(full));
  ASSERT_OK(compaction->Run().status());
  auto commit = *table->NewCommit("test");
  for (int c = 7; c <= 9; ++c) {
    auto writer = *table->NewWrite();
    ASSERT_OK(WriteBatch(*writer, *Rows(c * 100, c * 100 + 300, c)));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(c));
    ASSERT_OK(commit->Commit(messages, c).status());
  }
  auto names = [](const ReadPlan& plan) {
    std::vector<std::string> out;
    for (const PlannedFile& f : plan.files) {
      out.push_back(std::to_string(f.bucket) + "/" + f.file_name);
    }
    std::sort(out.begin(), out.end());
    return out;
  };
  ASSERT_OK_AND_ASSIGN(ReadPlan one,
                       table->NewRead().WithOptions({{"scan.manifest.parallelism", "1"}}).Plan());
  // 2 compacted files and 3 commits' files in each bucket with rows (300 ids may miss one).
  EXPECT_GE(one.files.size(), 5u);
  EXPECT_LE(one.files.size(), 8u);
  for (const char* threads : {"2", "3", "16"}) {
    ASSERT_OK_AND_ASSIGN(
        ReadPlan many,
        table->NewRead().WithOptions({{"scan.manifest.parallelism", threads}}).Plan());
    EXPECT_EQ(names(many), names(one)) << threads << " threads";
  }
  ASSERT_OK_AND_ASSIGN(ReadPlan unset, table->NewRead().Plan());
  EXPECT_EQ(names(unset), names(one));
  int batches = 0;
  auto rows =
      ReadAll(table->NewRead().WithOptions({{"scan.manifest.parallelism", "3"}}), 8192, &batches);
  ASSERT_EQ(rows.size(), 2000u);
  EXPECT_EQ(rows[0].first, 6);
  EXPECT_EQ(rows[700].first, 7);
  EXPECT_EQ(rows[1199].first, 9);
  auto bad = table->NewRead().WithOptions({{"scan.manifest.parallelism", "0"}}).Plan();
  EXPECT_THAT(bad, IsError(StatusCode::kInvalid, "scan.manifest.parallelism"));
}

// Several splits (4 partitions of one bucket, 3 commits each) read on 3 threads: with
// InSplitOrder() exactly the rows one thread reads, in its order; by default the same rows of
// each split, a split read in pieces of disjoint keys by threads that have no split left
// (parallel_read.h), so only each key's rows keep their order.
TEST_F(ApiReadTest, ThreadsInterleaveSplitsOrKeepSplitOrder) {
  auto catalog = *Catalog::Open(dir_.path());
  ASSERT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  spec.fields = *ParseColumnList("id INT NOT NULL, p INT NOT NULL, v BIGINT");
  spec.primary_keys = {"id", "p"};
  spec.partition_keys = {"p"};
  spec.options = {{"bucket", "1"}, {"write-only", "true"}};
  TableIdentifier id{"db", "parts"};
  ASSERT_OK(catalog->CreateTable(id, spec));
  auto table = *catalog->GetTable(id);
  auto commit = *table->NewCommit("test");
  for (int c = 1; c <= 3; ++c) {
    arrow::Int32Builder ids, ps;
    arrow::Int64Builder vs;
    for (int32_t i = 0; i < 4000; ++i) {
      ASSERT_TRUE(ids.Append(i).ok());
      ASSERT_TRUE(ps.Append(i % 4).ok());
      ASSERT_TRUE(vs.Append(c * 10000 + i).ok());
    }
    auto schema = arrow::schema({arrow::field("id", arrow::int32(), false),
                                 arrow::field("p", arrow::int32(), false),
                                 arrow::field("v", arrow::int64())});
    auto batch =
        arrow::RecordBatch::Make(schema, 4000, {*ids.Finish(), *ps.Finish(), *vs.Finish()});
    auto writer = *table->NewWrite();
    ASSERT_OK(WriteBatch(*writer, *batch));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(c));
    ASSERT_OK(commit->Commit(messages, c).status());
  }
  // (id, v) in the order read.
  auto read = [&](const ReadBuilder& builder) {
    std::vector<std::pair<int32_t, int64_t>> out;
    auto reader = OpenArrowReader(builder);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE((*reader)->ReadNext(&batch).ok());
      if (!batch) break;
      auto ids = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
      auto vs = std::static_pointer_cast<arrow::Int64Array>(batch->GetColumnByName("v"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) out.emplace_back(ids->Value(r), vs->Value(r));
    }
    return out;
  };
  auto one = read(table->NewRead().WithThreads(1).WithBatchRows(64));
  ASSERT_EQ(one.size(), 4000u);
  EXPECT_EQ(one.front().second, 30000);  // merged: the last commit's value
  EXPECT_EQ(read(table->NewRead().WithThreads(3).WithBatchRows(64).InSplitOrder()), one);
  auto by_split = [](const std::vector<std::pair<int32_t, int64_t>>& rows) {
    std::map<int32_t, std::vector<std::pair<int32_t, int64_t>>> out;
    for (const auto& row : rows) out[row.first % 4].push_back(row);
    for (auto& [p, split] : out) std::sort(split.begin(), split.end());
    return out;
  };
  for (int attempt = 0; attempt < 5; ++attempt) {
    auto interleaved = read(table->NewRead().WithThreads(3).WithBatchRows(64));
    EXPECT_EQ(by_split(interleaved), by_split(one));
  }
  // A partition filter skips the other partitions' entries while the manifests are decoded.
  auto two = read(table->NewRead().WithThreads(1).Where("p = 2"));
  EXPECT_EQ(two, by_split(one)[2]);
}

TEST_F(ApiReadTest, ProjectionAndFilterOnMergedRows) {
  auto table = MakeTable(true, 3);
  int batches = 0;
  auto rows = ReadAll(table->NewRead().Select({"s", "id"}).Where("id >= 1500").WithBatchRows(64),
                      64, &batches);
  ASSERT_EQ(rows.size(), 500u);
  EXPECT_EQ(rows.begin()->first, 1500);
  EXPECT_EQ(rows.begin()->second.first, -1);  // `v` was not asked for
  // The stream's schema is the projection, in the order asked.
  auto reader = *OpenArrowReader(table->NewRead().Select({"s", "id"}));
  ASSERT_EQ(reader->schema()->num_fields(), 2);
  EXPECT_EQ(reader->schema()->field(0)->name(), "s");
  EXPECT_EQ(reader->schema()->field(1)->name(), "id");
}

TEST_F(ApiReadTest, AppendTableFilterSkipsRowGroupsAndKeepsExactRows) {
  auto table = MakeTable(false, 2);
  int batches = 0;
  auto reader = *OpenArrowReader(table->NewRead().Where("id < 10 OR id = 1999").WithBatchRows(7));
  int64_t rows = 0;
  while (true) {
    std::shared_ptr<arrow::RecordBatch> batch;
    ASSERT_TRUE(reader->ReadNext(&batch).ok());
    if (!batch) break;
    ++batches;
    EXPECT_LE(batch->num_rows(), 7);
    auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      EXPECT_TRUE(id->Value(r) < 10 || id->Value(r) == 1999) << id->Value(r);
    }
    rows += batch->num_rows();
  }
  EXPECT_EQ(rows, 22);  // 11 ids x 2 commits
}

TEST_F(ApiReadTest, FirstRowTablesReadWithoutMergingThroughTheStream) {
  // Deletion-vector tables take the same path (read by compat.java_read on Java-written tables:
  // Fjord does not write deletion vectors yet).
  auto table = MakeTable(true, 2, {{"merge-engine", "first-row"}});
  // write-only: the level-0 files are not compacted, and a first-row table's readers skip level
  // 0, as Java's do.
  int batches = 0;
  EXPECT_EQ(ReadAll(table->NewRead().WithBatchRows(100), 100, &batches).size(), 0u);
  CompactionOptions full;
  full.full = true;
  ASSERT_OK_AND_ASSIGN(auto compaction, table->NewCompaction(full));
  ASSERT_OK_AND_ASSIGN(CompactionResult done, compaction->Run());
  ASSERT_TRUE(done.snapshot_id.has_value());
  auto rows = ReadAll(table->NewRead().WithBatchRows(100).Where("v = 1"), 100, &batches);
  ASSERT_EQ(rows.size(), 2000u);  // the first row of each key
  EXPECT_GE(batches, 20);
  EXPECT_EQ(ReadAll(table->NewRead().Where("v = 2"), 100, &batches).size(), 0u);
}

TEST_F(ApiReadTest, FiltersOnDeletionVectorTablesKeepTheRowsOfTheUnfilteredRead) {
  // The filter's columns decoded first and the others only at the kept rows (late
  // materialization), the deletion vectors folded in: the same rows as filtering the whole read.
  auto table = MakeTable(true, 1, {{"deletion-vectors.enabled", "true"}});
  CompactionOptions full;
  full.full = true;
  ASSERT_OK_AND_ASSIGN(auto compaction, table->NewCompaction(full));
  ASSERT_OK(compaction->Run().status());
  {
    // Ids [0, 700) again with v = 2, and a compaction that marks their old rows deleted.
    auto writer = *table->NewWrite();
    ASSERT_OK(WriteBatch(*writer, *Rows(0, 700, 2)));
    auto commit = *table->NewCommit("test");
    ASSERT_OK(commit->Commit(*writer->PrepareCommit(2), 2).status());
    ASSERT_OK_AND_ASSIGN(auto minor, table->NewCompaction(CompactionOptions{}));
    ASSERT_OK(minor->Run().status());
  }
  ASSERT_OK_AND_ASSIGN(ReadPlan plan, table->NewRead().Plan());
  bool deletion_vectors = false;
  for (const PlannedFile& f : plan.files) deletion_vectors |= f.has_deletion_vector;
  ASSERT_TRUE(deletion_vectors);
  int batches = 0;
  auto all = ReadAll(table->NewRead().WithBatchRows(64), 64, &batches);
  ASSERT_EQ(all.size(), 2000u);
  using Row = std::pair<int64_t, std::string>;
  const std::vector<std::pair<std::string, std::function<bool(int32_t, const Row&)>>> cases = {
      {"v = 1", [](int32_t, const Row& r) { return r.first == 1; }},
      {"v = 2 AND id >= 300", [](int32_t id, const Row& r) { return r.first == 2 && id >= 300; }},
      {"id < 1000 AND s <> 's5'",
       [](int32_t id, const Row& r) { return id < 1000 && r.second != "s5"; }},
      {"v = 1 AND id < 700", [](int32_t id, const Row& r) { return r.first == 1 && id < 700; }},
      {"s = 's1999' OR id = 3",
       [](int32_t id, const Row& r) { return r.second == "s1999" || id == 3; }}};
  for (const auto& [where, wanted] : cases) {
    SCOPED_TRACE(where);
    auto got =
        ReadAll(table->NewRead().WithBatchRows(64).WithThreads(2).Where(where), 64, &batches);
    std::map<int32_t, Row> expected;
    for (const auto& [id, row] : all) {
      if (wanted(id, row)) expected[id] = row;
    }
    EXPECT_EQ(got, expected);
  }
  EXPECT_EQ(ReadAll(table->NewRead().Where("v = 1"), 8192, &batches).size(), 1300u);
}

TEST_F(ApiReadTest, CStreamReportsRowsAndEnd) {
  auto table = MakeTable(true, 2);
  struct ArrowArrayStream stream;
  ASSERT_OK(table->NewRead().WithBatchRows(500).OpenStream(&stream));
  struct ArrowSchema schema;
  ASSERT_EQ(stream.get_schema(&stream, &schema), 0);
  EXPECT_EQ(schema.n_children, 3);
  schema.release(&schema);
  int64_t rows = 0;
  while (true) {
    struct ArrowArray batch;
    ASSERT_EQ(stream.get_next(&stream, &batch), 0);
    if (batch.release == nullptr) break;
    EXPECT_LE(batch.length, 500);
    rows += batch.length;
    batch.release(&batch);
  }
  stream.release(&stream);
  EXPECT_EQ(rows, 2000);
}

}  // namespace
}  // namespace fjord
