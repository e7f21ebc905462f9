// Dedicated compaction (`fjord compact`) of a table with changelog-producer = full-compaction:
// the job compacts every bucket fully, with or without --full (as Java's compact action, whose
// writer schedules a full compaction at every commit for this producer), and commits the
// changelog in the COMPACT snapshot.
#include <arrow/api.h>

#include <random>

#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/compact/compaction_job.h"
#include "fjord/table/write/changelog_test_util.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_changelog::Apply;
using testing_changelog::Change;
using testing_changelog::LiveRows;
using testing_changelog::SnapshotChanges;
using testing_changelog::TableRows;

std::shared_ptr<arrow::Table> Rows(std::mt19937_64& rng, int n) {
  arrow::StringBuilder p, kind;
  arrow::Int32Builder k;
  arrow::Int64Builder v;
  for (int i = 0; i < n; ++i) {
    EXPECT_TRUE(p.Append(rng() % 2 ? "x" : "y").ok());
    EXPECT_TRUE(k.Append(static_cast<int32_t>(rng() % 40)).ok());
    EXPECT_TRUE(v.Append(static_cast<int64_t>(rng() % 5)).ok());
    EXPECT_TRUE(kind.Append(rng() % 6 == 0 ? "-D" : "+I").ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("p", arrow::utf8()), arrow::field("k", arrow::int32()),
                     arrow::field("v", arrow::int64()), arrow::field("_row_kind", arrow::utf8())}),
      {p.Finish().ValueOrDie(), k.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
       kind.Finish().ValueOrDie()});
}

TEST(FullChangelogCompactTest, DedicatedFullCompactionCommitsTheChangelog) {
  testing::TempDir dir;
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  ASSERT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  spec.fields = ParseColumnList("p STRING NOT NULL, k INT NOT NULL, v BIGINT").value();
  spec.partition_keys = {"p"};
  spec.primary_keys = {"p", "k"};
  // The writers only write; the compaction job compacts (Java's dedicated compaction setup).
  spec.options = {{"bucket", "2"},
                  {"changelog-producer", "full-compaction"},
                  {"write-only", "true"},
                  {"num-sorted-run.compaction-trigger", "3"}};
  TableIdentifier id{"db", "t"};
  ASSERT_OK(catalog->CreateTable(id, spec));
  ASSERT_OK_AND_ASSIGN(auto table, catalog->GetTable(id));
  std::mt19937_64 rng(19);
  LiveRows live;
  int64_t identifier = 0;
  int with_changes = 0;
  for (int round = 0; round < 4; ++round) {
    for (int c = 0; c < 3; ++c) {
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
      ASSERT_OK(writer->Write(Rows(rng, 30)));
      ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(true, ++identifier));
      for (const CommitMessage& m : messages) {
        EXPECT_TRUE(m.compact_after.empty()) << "write-only";
        EXPECT_TRUE(m.compact_changelog_files.empty());
      }
      FileStoreCommit commit(table->io(), table->path(), table->schema(), "writer");
      ASSERT_OK(commit.Commit(messages, identifier).status());
    }
    CompactionOptions options;
    options.full = round % 2 == 0;
    ASSERT_OK_AND_ASSIGN(CompactionResult result, RunCompactionJob(*table, options));
    ASSERT_TRUE(result.snapshot_id.has_value());
    SnapshotManager snapshots(table->io(), table->path());
    ASSERT_OK_AND_ASSIGN(Snapshot s, snapshots.Load(*result.snapshot_id));
    EXPECT_EQ(s.commit_kind, CommitKind::kCompact);
    ASSERT_OK_AND_ASSIGN(std::vector<Change> changes, SnapshotChanges(*table, s.id));
    EXPECT_EQ(s.changelog_record_count.value_or(0), static_cast<int64_t>(changes.size()));
    Apply(changes, &live);
    with_changes += changes.empty() ? 0 : 1;
    ASSERT_OK_AND_ASSIGN(LiveRows rows, TableRows(*table));
    EXPECT_EQ(live, rows) << "after the compaction of round " << round;
  }
  EXPECT_EQ(with_changes, 4);
}

}  // namespace
}  // namespace fjord
