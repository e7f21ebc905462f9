// Compaction inside the primary-key writer: after every prepare-commit the bucket's live files
// (committed files, plus new files, minus compaction inputs, plus compaction outputs) read back
// exactly as a model of the upserts and deletes, levels >= 1 stay sorted runs, and the number of
// sorted runs stays bounded.
#include <arrow/api.h>

#include <map>
#include <random>
#include <set>

#include "fjord/lsm/interval_partition.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/table_read.h"
#include "fjord/table/write/kv_batch_test_util.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

struct Model {
  std::map<int32_t, int64_t> rows;
};

std::shared_ptr<arrow::Table> Batch(const std::vector<testing_kv::KvRow>& rows) {
  return testing_kv::KvBatch(rows);
}

void RunCompactionModel(const std::string& engine_options_name,
                        std::vector<std::pair<std::string, std::string>> options, uint64_t seed) {
  SCOPED_TRACE(engine_options_name);
  testing::TempDir dir;
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  ASSERT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  spec.fields = ParseColumnList("k INT NOT NULL, v BIGINT").value();
  spec.primary_keys = {"k"};
  options.emplace_back("bucket", "1");
  options.emplace_back("num-sorted-run.compaction-trigger", "3");
  spec.options = options;
  auto id = TableIdentifier::Parse("db.t").value();
  ASSERT_OK(catalog->CreateTable(id, spec));
  auto table = std::move(catalog->GetTable(id)).value();
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));

  std::mt19937_64 rng(seed);
  std::map<int32_t, int64_t> model;
  std::vector<DataFileMeta> live;
  std::string bucket_dir;
  int64_t max_runs = 0;
  for (int round = 0; round < 14; ++round) {
    std::vector<std::tuple<int32_t, int64_t, std::string>> rows;
    int n = 50 + static_cast<int>(rng() % 400);
    for (int i = 0; i < n; ++i) {
      int32_t key = static_cast<int32_t>(rng() % 500);
      int64_t value = static_cast<int64_t>(rng() % 1000);
      bool del = rng() % 5 == 0;
      rows.emplace_back(key, value, del ? "-D" : "+I");
      if (del) {
        model.erase(key);
      } else {
        model[key] = value;
      }
    }
    ASSERT_OK(writer->Write(Batch(rows)));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    ASSERT_EQ(messages.size(), 1u);
    const CommitMessage& m = messages[0];
    for (const DataFileMeta& f : m.new_files) live.push_back(f);
    for (const DataFileMeta& f : m.compact_before) {
      auto it = std::find_if(live.begin(), live.end(), [&](const DataFileMeta& x) {
        return x.file_name == f.file_name && x.level == f.level;
      });
      ASSERT_NE(it, live.end()) << "compaction consumed a file that is not live: " << f.file_name;
      live.erase(it);
    }
    for (const DataFileMeta& f : m.compact_after) live.push_back(f);
    FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(
        commit
            .Commit({CommitMessage{m.partition, m.bucket, m.total_buckets, m.new_files, {}}}, round)
            .status());

    // The live set reads as the model.
    DataSplit split;
    split.bucket = 0;
    split.total_buckets = 1;
    split.bucket_path = table->path() + "/bucket-0";
    split.files = live;
    TableRead read(table->io(), table->path(), table->schema());
    ASSERT_OK_AND_ASSIGN(auto result, read.Read(split));
    auto combined = result->CombineChunks().ValueOrDie();
    std::map<int32_t, int64_t> got;
    if (combined->num_rows() > 0) {
      auto k = std::static_pointer_cast<arrow::Int32Array>(combined->column(0)->chunk(0));
      auto v = std::static_pointer_cast<arrow::Int64Array>(combined->column(1)->chunk(0));
      for (int64_t r = 0; r < combined->num_rows(); ++r) got[k->Value(r)] = v->Value(r);
    }
    ASSERT_EQ(got, model) << "round " << round;

    // Levels >= 1 are sorted runs; count the runs.
    std::map<int32_t, std::vector<DataFileMeta>> by_level;
    for (const DataFileMeta& f : live) by_level[f.level].push_back(f);
    int64_t runs = 0;
    for (auto& [level, files] : by_level) {
      if (level == 0) {
        runs += static_cast<int64_t>(files.size());
        continue;
      }
      ++runs;
      ASSERT_OK_AND_ASSIGN(auto ranges, FileKeyRanges(files, {DataType::Int(false)}));
      EXPECT_EQ(PartitionIntervals(ranges).size(), files.size())
          << "files of level " << level << " overlap";
    }
    max_runs = std::max(max_runs, runs);
  }
  EXPECT_GT(writer->metrics().compactions, 0);
  EXPECT_LE(max_runs, 4);  // trigger 3: at most trigger + 1 runs after a flush
}

TEST(CompactionTest, DeduplicateTableStaysEqualToTheModel) {
  RunCompactionModel("deduplicate", {}, 1);
}

TEST(CompactionTest, SmallTargetFilesRollAndUpgrade) {
  RunCompactionModel("small files", {{"target-file-size", "2 kb"}}, 2);
}

TEST(CompactionTest, WriteOnlyNeverCompacts) {
  testing::TempDir dir;
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  ASSERT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  spec.fields = ParseColumnList("k INT NOT NULL, v BIGINT").value();
  spec.primary_keys = {"k"};
  spec.options = {
      {"bucket", "1"}, {"write-only", "true"}, {"num-sorted-run.compaction-trigger", "2"}};
  auto id = TableIdentifier::Parse("db.t").value();
  ASSERT_OK(catalog->CreateTable(id, spec));
  auto table = std::move(catalog->GetTable(id)).value();
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  for (int round = 0; round < 5; ++round) {
    ASSERT_OK(writer->Write(Batch({{round, round, "+I"}})));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    EXPECT_TRUE(messages[0].compact_before.empty());
  }
  EXPECT_EQ(writer->metrics().compactions, 0);
}

// First-row compactions below the max level drop level-0 records whose key a higher level holds
// (Java looks them up): small level-0 files compacted into level 1 under a big max-level file
// once put keys 0..4 in two levels, and the read (which does not merge first-row tables) returned
// them twice, the second time with a later row.
TEST(CompactionTest, FirstRowKeysInHigherLevelsAreNotCompactedIntoLowerLevels) {
  testing::TempDir dir;
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  ASSERT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  spec.fields = ParseColumnList("k INT NOT NULL, v BIGINT").value();
  spec.primary_keys = {"k"};
  spec.options = {
      {"bucket", "1"}, {"merge-engine", "first-row"}, {"num-sorted-run.compaction-trigger", "2"}};
  auto id = TableIdentifier::Parse("db.t").value();
  ASSERT_OK(catalog->CreateTable(id, spec));
  auto table = std::move(catalog->GetTable(id)).value();
  auto commit = [&](PrimaryKeyTableWrite& writer, int64_t identifier) {
    auto messages = writer.PrepareCommit();
    ASSERT_OK(messages.status());
    FileStoreCommit c(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(c.Commit(*messages, identifier).status());
  };
  {
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    std::vector<std::tuple<int32_t, int64_t, std::string>> rows;
    for (int32_t k = 0; k < 20000; ++k) rows.emplace_back(k, 1, "+I");
    ASSERT_OK(writer->Write(Batch(rows)));
    commit(*writer, 1);
    ASSERT_OK_AND_ASSIGN(auto compactor, PrimaryKeyTableWrite::Create(table.get()));
    ASSERT_OK_AND_ASSIGN(auto buckets, compactor->LiveBuckets());
    ASSERT_EQ(buckets.size(), 1u);
    ASSERT_OK(compactor->CompactBucket(buckets[0], true));
    commit(*compactor, 2);
  }
  for (int64_t round = 2; round <= 5; ++round) {
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    ASSERT_OK(writer->Write(Batch({{0, round, "+I"},
                                   {1, round, "+I"},
                                   {2, round, "+I"},
                                   {3, round, "+I"},
                                   {4, round, "+I"},
                                   {20000 + round, round, "+I"}})));
    commit(*writer, round + 1);
  }
  ASSERT_OK_AND_ASSIGN(ScanPlan plan, table->Plan(ScanSelector{}));
  ASSERT_EQ(plan.splits.size(), 1u);
  std::set<int32_t> levels_above_zero;
  for (const DataFileMeta& f : plan.splits[0].files) {
    if (f.level > 0) levels_above_zero.insert(f.level);
  }
  EXPECT_GE(levels_above_zero.size(), 2u) << "the scenario needs a compaction below the max level";
  ASSERT_OK_AND_ASSIGN(ReadResult read, table->Read(ReadRequest{}));
  auto rows = read.rows->CombineChunks().ValueOrDie();
  std::map<int32_t, int64_t> got;
  int64_t duplicates = 0;
  if (rows->num_rows() > 0) {
    auto k = std::static_pointer_cast<arrow::Int32Array>(rows->column(0)->chunk(0));
    auto v = std::static_pointer_cast<arrow::Int64Array>(rows->column(1)->chunk(0));
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      duplicates += got.emplace(k->Value(r), v->Value(r)).second ? 0 : 1;
    }
  }
  EXPECT_EQ(duplicates, 0);
  for (int32_t k = 0; k < 5; ++k) EXPECT_EQ(got[k], 1) << "key " << k;
}

}  // namespace
}  // namespace fjord
