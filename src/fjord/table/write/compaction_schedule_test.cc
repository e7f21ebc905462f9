// Compaction scheduling in the primary-key writer: full-compaction.delta-commits (a full
// compaction at exactly the commit identifiers Java's Flink sink uses), first-row tables
// (level 0 always pushed up, first row per key kept across levels as Java's lookup compaction
// keeps it), tables the writer refuses, and per-bucket compaction metrics.
#include <arrow/api.h>

#include <map>
#include <random>
#include <set>

#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/read/table_read.h"
#include "fjord/table/write/kv_batch_test_util.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using Row = std::tuple<int32_t, int64_t, std::string>;  // k, v, row kind

std::shared_ptr<arrow::Table> Batch(const std::vector<testing_kv::KvRow>& rows) {
  return testing_kv::KvBatch(rows);
}

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<FileSystemCatalog> catalog;
  std::unique_ptr<FileStoreTable> table;

  void Create(std::vector<std::pair<std::string, std::string>> options) {
    catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
    ASSERT_OK(catalog->CreateDatabase("db"));
    TableSpec spec;
    spec.fields = ParseColumnList("k INT NOT NULL, v BIGINT").value();
    spec.primary_keys = {"k"};
    options.emplace_back("bucket", "1");
    spec.options = options;
    auto id = TableIdentifier::Parse("db.t").value();
    ASSERT_OK(catalog->CreateTable(id, spec));
    table = std::move(catalog->GetTable(id)).value();
  }

  // A table whose options Fjord's catalog refuses (they are not honoured): created plain, then
  // given `options` in a next schema file, as Java Paimon would have written it.
  void CreateAsJava(const std::vector<std::pair<std::string, std::string>>& options) {
    Create({});
    TableSchema next = table->schema();
    next.id += 1;
    for (const auto& kv : options) next.options.push_back(kv);
    ASSERT_OK(table->io()->WriteFile(TablePaths{table->path()}.SchemaFile(next.id), next.ToJson()));
    table = std::move(FileStoreTable::Open(table->path())).value();
  }

  // Commits the messages (new files, then the compaction as a COMPACT snapshot).
  void Commit(const std::vector<CommitMessage>& messages, int64_t identifier) {
    FileStoreCommit commit(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(commit.Commit(messages, identifier).status());
  }

  Result<std::vector<DataFileMeta>> LiveFiles() const {
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, table->snapshots().Latest());
    std::vector<DataFileMeta> files;
    if (!latest) return files;
    TableScan scan(table->io(), table->path(), table->schema());
    FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> entries, scan.LiveEntries(*latest, nullptr));
    for (const ManifestEntry& e : entries) files.push_back(e.file);
    return files;
  }

  // (k, v) of `files`, every record (no merging), retractions included as v = -1.
  Result<std::multimap<int32_t, int64_t>> RawRows(const std::vector<DataFileMeta>& files) const {
    std::multimap<int32_t, int64_t> out;
    if (files.empty()) return out;
    TableRead read(table->io(), table->path(), table->schema());
    FJORD_ASSIGN_OR_RAISE(auto run, read.OpenKvRun(table->path() + "/bucket-0", files));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
      if (!batch) break;
      auto k = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
      auto v = std::static_pointer_cast<arrow::Int64Array>(batch->column(1));
      auto kind = std::static_pointer_cast<arrow::Int8Array>(batch->column(3));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        bool retract = kind->Value(r) == 1 || kind->Value(r) == 3;
        out.emplace(k->Value(r), retract ? -1 : v->Value(r));
      }
    }
    return out;
  }
};

// ---- full-compaction.delta-commits ----------------------------------------------------------

TEST(CompactionScheduleTest, DeltaCommitsCompactFullyAtMultiplesOfTheIdentifier) {
  Fixture fx;
  // A trigger the universal picker never reaches here: only the schedule compacts.
  fx.Create({{"full-compaction.delta-commits", "3"}, {"num-sorted-run.compaction-trigger", "50"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  std::vector<int64_t> full_at;
  for (int64_t id = 1; id <= 9; ++id) {
    ASSERT_OK(writer->Write(Batch({{static_cast<int32_t>(id), id, "+I"}, {0, id, "+I"}})));
    // Streaming checkpoints do not wait for compaction by themselves.
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(false, id));
    ASSERT_EQ(messages.size(), 1u);
    if (!messages[0].compact_after.empty()) full_at.push_back(id);
    fx.Commit(messages, id);
    ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
    if (id % 3 == 0) {
      // One sorted run at the max level (num-levels = trigger + 1 = 51): the full compaction
      // finished before the commit.
      ASSERT_FALSE(live.empty());
      for (const DataFileMeta& f : live) EXPECT_EQ(f.level, 50) << "commit " << id;
    } else {
      EXPECT_EQ(std::count_if(live.begin(), live.end(),
                              [](const DataFileMeta& f) { return f.level == 0; }),
                id % 3)
          << "commit " << id;
    }
  }
  EXPECT_EQ(full_at, (std::vector<int64_t>{3, 6, 9}));
  // Nothing written since commit 9: commit 12 has nothing to compact.
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(false, 12));
  EXPECT_TRUE(messages.empty());
  // The rows survive: key 0 holds the last value, keys 1..9 theirs.
  ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
  ASSERT_OK_AND_ASSIGN(auto rows, fx.RawRows(live));
  EXPECT_EQ(rows.size(), 10u);
  EXPECT_EQ(rows.find(0)->second, 9);
}

TEST(CompactionScheduleTest, DeltaCommitsCompactEveryBatchCommit) {
  Fixture fx;
  fx.Create({{"full-compaction.delta-commits", "5"}, {"num-sorted-run.compaction-trigger", "50"}});
  for (int round = 0; round < 3; ++round) {
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
    ASSERT_OK(writer->Write(Batch({{round, round, "+I"}})));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());  // the batch identifier
    ASSERT_EQ(messages.size(), 1u);
    fx.Commit(messages, Snapshot::kBatchCommitIdentifier);
    ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
    for (const DataFileMeta& f : live) EXPECT_EQ(f.level, 50) << "round " << round;
    EXPECT_EQ(writer->BucketMetrics().begin()->second.full_compactions, 1);
  }
}

TEST(CompactionScheduleTest, WithoutDeltaCommitsNothingIsScheduled) {
  Fixture fx;
  fx.Create({{"num-sorted-run.compaction-trigger", "50"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  for (int64_t id = 1; id <= 4; ++id) {
    ASSERT_OK(writer->Write(Batch({{0, id, "+I"}})));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(true, id));
    EXPECT_TRUE(messages[0].compact_after.empty());
  }
}

// ---- first-row tables -------------------------------------------------------------------------

// Keys 0..299, inserts with deletes in between (ignored), 12 commits by fresh writers. After each
// commit levels >= 1 hold each key once with its first value (what Java's and Fjord's readers,
// which skip level 0 and do not merge, return); keys not there yet are in level 0. With one
// level-0 file per commit the forced level-0 pick leaves level 0 empty. A final full compaction
// leaves exactly the model.
void RunFirstRow(std::vector<std::pair<std::string, std::string>> extra, uint64_t seed,
                 bool expect_empty_level0) {
  Fixture fx;
  std::vector<std::pair<std::string, std::string>> options = {
      {"merge-engine", "first-row"},
      {"ignore-delete", "true"},
      {"num-sorted-run.compaction-trigger", "3"}};
  options.insert(options.end(), extra.begin(), extra.end());
  fx.Create(options);
  std::mt19937_64 rng(seed);
  std::map<int32_t, int64_t> model;
  int64_t value = 0;
  int64_t compacted = 0;
  for (int64_t id = 1; id <= 12; ++id) {
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
    std::vector<Row> rows;
    for (int i = 0; i < 80; ++i) {
      int32_t key = static_cast<int32_t>(rng() % 300);
      bool del = rng() % 6 == 0;
      rows.emplace_back(key, ++value, del ? "-D" : "+I");
      if (!del) model.emplace(key, value);  // the first insert wins
    }
    ASSERT_OK(writer->Write(Batch(rows)));
    // lookup-wait: the prepare-commit waits for the level-0 compaction even when not asked to.
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(false, id));
    compacted += writer->metrics().compactions;
    fx.Commit(messages, id);
    ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
    std::vector<DataFileMeta> upper, level0;
    for (const DataFileMeta& f : live) (f.level == 0 ? level0 : upper).push_back(f);
    if (expect_empty_level0) {
      EXPECT_TRUE(level0.empty()) << "commit " << id;
    }
    ASSERT_OK_AND_ASSIGN(auto upper_rows, fx.RawRows(upper));
    ASSERT_OK_AND_ASSIGN(auto level0_rows, fx.RawRows(level0));
    std::map<int32_t, int64_t> got;
    for (const auto& [k, v] : upper_rows) {
      EXPECT_TRUE(got.emplace(k, v).second) << "key " << k << " twice at commit " << id;
      auto it = model.find(k);
      ASSERT_NE(it, model.end()) << "key " << k << " was never inserted";
      EXPECT_EQ(v, it->second) << "key " << k << " at commit " << id;
    }
    for (const auto& [k, v] : model) {
      if (!got.count(k)) {
        EXPECT_TRUE(level0_rows.count(k)) << "key " << k << " lost";
      }
    }
  }
  EXPECT_GT(compacted, 0);
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  ASSERT_OK_AND_ASSIGN(auto buckets, writer->LiveBuckets());
  ASSERT_OK(writer->CompactBucket(buckets.at(0), true));
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
  fx.Commit(messages, 100);
  ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
  ASSERT_OK_AND_ASSIGN(auto rows_out, fx.RawRows(live));
  std::map<int32_t, int64_t> got(rows_out.begin(), rows_out.end());
  EXPECT_EQ(rows_out.size(), got.size());
  EXPECT_EQ(got, model);
}

TEST(CompactionScheduleTest, FirstRowKeepsTheFirstRowAcrossLevels) { RunFirstRow({}, 7, true); }

TEST(CompactionScheduleTest, FirstRowWithSmallFilesAndUpgrades) {
  RunFirstRow({{"target-file-size", "2 kb"}}, 8, false);
}

TEST(CompactionScheduleTest, FirstRowGentleLookupCompaction) {
  RunFirstRow({{"lookup-compact", "gentle"}}, 9, false);
}

TEST(CompactionScheduleTest, FirstRowWithoutLookupWaitStillCompactsLevel0) {
  Fixture fx;
  fx.Create({{"merge-engine", "first-row"}, {"lookup-wait", "false"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  ASSERT_OK(writer->Write(Batch({{1, 1, "+I"}})));
  // wait_compaction (batch) waits anyway; the level-0 file goes straight to the max level.
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(true, 1));
  ASSERT_EQ(messages.size(), 1u);
  ASSERT_EQ(messages[0].compact_after.size(), 1u);
  EXPECT_EQ(messages[0].compact_after[0].level, 5);
}

TEST(CompactionScheduleTest, FirstRowRetractWithoutIgnoreDeleteIsAnError) {
  Fixture fx;
  fx.Create({{"merge-engine", "first-row"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  ASSERT_OK(writer->Write(Batch({{1, 1, "+I"}})));
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(false, 1));
  fx.Commit(messages, 1);
  // A lone retract passes the write buffer (single records are not merged) but not Java's
  // first-row lookup compaction.
  ASSERT_OK_AND_ASSIGN(writer, PrimaryKeyTableWrite::Create(fx.table.get()));
  ASSERT_OK(writer->Write(Batch({{2, 2, "-D"}})));
  EXPECT_THAT(writer->PrepareCommit(false, 2), IsError(StatusCode::kInvalid, "ignore-delete"));
}

// ---- refused tables -----------------------------------------------------------------------------

// Tables that need lookup are written (issue 19), as table options or dynamic options; first-row
// with deletion vectors is refused, as Java's validation refuses it.
TEST(CompactionScheduleTest, LookupTablesAreWrittenButFirstRowWithDeletionVectors) {
  for (const auto& options : std::vector<std::vector<std::pair<std::string, std::string>>>{
           {{"deletion-vectors.enabled", "true"}},
           {{"changelog-producer", "lookup"}},
           {{"force-lookup", "true"}, {"merge-engine", "partial-update"}}}) {
    Fixture fx;
    fx.CreateAsJava(options);
    EXPECT_OK(PrimaryKeyTableWrite::Create(fx.table.get()).status());
    Fixture plain;
    plain.Create({});
    TableWriteOptions dyn;
    for (const auto& [k, v] : options) dyn.dynamic_options[k] = v;
    EXPECT_OK(PrimaryKeyTableWrite::Create(plain.table.get(), dyn).status());
  }
  Fixture first_row;
  first_row.CreateAsJava({{"merge-engine", "first-row"}, {"deletion-vectors.enabled", "true"}});
  EXPECT_THAT(PrimaryKeyTableWrite::Create(first_row.table.get()),
              IsError(StatusCode::kInvalid, "deletion-vectors.enabled"));
}

// ---- metrics ----------------------------------------------------------------------------------

TEST(CompactionScheduleTest, BucketMetricsDescribeTheTreeAndTheCompactions) {
  Fixture fx;
  fx.Create({{"num-sorted-run.compaction-trigger", "3"}, {"write-only", "true"}});
  TableWriteOptions write_only;
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(fx.table.get(), write_only));
  for (int64_t id = 1; id <= 5; ++id) {
    ASSERT_OK(writer->Write(Batch({{static_cast<int32_t>(id), id, "+I"}})));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(true, id));
    fx.Commit(messages, id);
  }
  auto m = writer->BucketMetrics();
  ASSERT_EQ(m.size(), 1u);
  const BucketCompactionMetrics& b = m.begin()->second;
  ASSERT_OK_AND_ASSIGN(auto live, fx.LiveFiles());
  int64_t total = 0;
  for (const DataFileMeta& f : live) total += f.file_size;
  EXPECT_EQ(b.level0_files, 5);
  EXPECT_EQ(b.sorted_runs, 5);
  EXPECT_EQ(b.runs_above_trigger, 2);
  EXPECT_EQ(b.total_file_size, total);
  EXPECT_EQ(b.files_per_level.at(0), 5);
  EXPECT_EQ(b.compactions, 0);
  // 5 runs >= trigger 3 and sizes equal: the picker would take every run.
  EXPECT_EQ(b.backlog_files, 5);
  EXPECT_EQ(b.backlog_bytes, total);

  // A compacting writer on the same table: one compaction, everything into the max level.
  TableWriteOptions compacting;
  compacting.dynamic_options["write-only"] = "false";
  ASSERT_OK_AND_ASSIGN(auto compactor, PrimaryKeyTableWrite::Create(fx.table.get(), compacting));
  ASSERT_OK_AND_ASSIGN(auto buckets, compactor->LiveBuckets());
  ASSERT_EQ(buckets.size(), 1u);
  ASSERT_OK(compactor->CompactBucket(buckets[0], false));
  ASSERT_OK_AND_ASSIGN(auto messages, compactor->PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  const BucketCompactionMetrics c = compactor->BucketMetrics().begin()->second;
  EXPECT_EQ(c.compactions, 1);
  EXPECT_EQ(c.full_compactions, 1);
  EXPECT_EQ(c.files_in, 5);
  EXPECT_EQ(c.bytes_in, total);
  EXPECT_EQ(c.files_out, static_cast<int64_t>(messages[0].compact_after.size()));
  int64_t out = 0;
  for (const DataFileMeta& f : messages[0].compact_after) out += f.file_size;
  EXPECT_EQ(c.bytes_out, out);
  EXPECT_EQ(c.rewritten_bytes, total);
  EXPECT_EQ(c.level0_files, 0);
  EXPECT_EQ(c.sorted_runs, 1);
  EXPECT_EQ(c.backlog_bytes, 0);
  EXPECT_EQ(c.runs_above_trigger, 0);
  EXPECT_GE(c.total_millis, c.last_millis);
  EXPECT_FALSE(c.running);
}

}  // namespace
}  // namespace fjord
