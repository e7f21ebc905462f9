// Lookup compaction in the primary-key writer (issue 19): tables with deletion vectors and/or
// changelog-producer = lookup get the same random upserts and retractions as a twin table without
// them, commit after commit, with a fresh writer now and then (restoring the bucket's deletion
// vectors from the index manifest). After every commit: the table reads as its twin; level 0 is
// empty (lookup-wait); deletion-vector tables read without merging (their index files are what
// makes them right); and the lookup changelog of every snapshot, applied in order, gives the table.
#include <arrow/api.h>

#include <random>

#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/read/scan.h"
#include "fjord/table/write/changelog_test_util.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;
using testing_changelog::Apply;
using testing_changelog::LiveRows;
using testing_changelog::SnapshotChanges;
using testing_changelog::SortedRows;
using testing_changelog::TableRows;

using Options = std::vector<std::pair<std::string, std::string>>;

struct In {
  int32_t id;
  std::optional<int64_t> v;
  std::optional<std::string> s;
  std::string kind = "+I";
};

std::shared_ptr<arrow::Table> Batch(const std::vector<In>& rows) {
  arrow::StringBuilder s, k;
  arrow::Int32Builder id;
  arrow::Int64Builder v;
  for (const In& r : rows) {
    EXPECT_TRUE(id.Append(r.id).ok());
    EXPECT_TRUE((r.v ? v.Append(*r.v) : v.AppendNull()).ok());
    EXPECT_TRUE((r.s ? s.Append(*r.s) : s.AppendNull()).ok());
    EXPECT_TRUE(k.Append(r.kind).ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("id", arrow::int32()), arrow::field("v", arrow::int64()),
                     arrow::field("s", arrow::utf8()), arrow::field("_row_kind", arrow::utf8())}),
      {id.Finish().ValueOrDie(), v.Finish().ValueOrDie(), s.Finish().ValueOrDie(),
       k.Finish().ValueOrDie()});
}

// The keys whose rows differ, for failure messages.
std::string Diff(const LiveRows& a, const LiveRows& b) {
  std::string out;
  for (const auto& [key, row] : a) {
    auto it = b.find(key);
    if (it == b.end()) {
      out += "\n  only left: " + row;
    } else if (it->second != row) {
      out += "\n  left " + row + " right " + it->second;
    }
  }
  for (const auto& [key, row] : b) {
    if (!a.count(key)) out += "\n  only right: " + row;
  }
  return out;
}

struct Seen {
  int64_t vectors = 0;       // deletion vectors in index files, summed over commits
  int64_t deleted_rows = 0;  // their cardinalities
  std::map<RowKind, int> changes;
};

class LookupWriteTest : public ::testing::Test {
 protected:
  std::unique_ptr<FileStoreTable> Create(Options options) {
    auto catalog = FileSystemCatalog::Open(dir_.Join("wh")).value();
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = ParseColumnList("id INT NOT NULL, v BIGINT, s STRING").value();
    spec.primary_keys = {"id"};
    spec.options = std::move(options);
    auto id = TableIdentifier::Parse("db.t" + std::to_string(counter_++)).value();
    EXPECT_OK(catalog->CreateTable(id, spec));
    return std::move(catalog->GetTable(id)).value();
  }

  static void Commit(const FileStoreTable& table, PrimaryKeyTableWrite& writer, int64_t id) {
    ASSERT_OK_AND_ASSIGN(auto messages, writer.PrepareCommit(true, id));
    FileStoreCommit commit(table.io(), table.path(), table.schema(), "test-user");
    ASSERT_OK(commit.Commit(messages, id).status());
  }

  // `base` options for both tables, `extra` for the lookup one only.
  // Retractions: a retraction that compaction drops (at the highest level; always with deletion
  // vectors) can no longer win over a later record by sequence.field, nor hand its values to a
  // later partial update (Java's partial-update starts a deleted row from the -D's values): Java
  // behaves alike, so tables with sequence.field or partial-update get no retractions here
  // (compat.java_lookup covers them against Java itself).
  void RunTwins(Options base, const Options& extra, const std::vector<std::string>& retract,
                uint64_t seed, Seen* seen) {
    SCOPED_TRACE("seed " + std::to_string(seed));
    base.emplace_back("bucket", "2");
    base.emplace_back("num-sorted-run.compaction-trigger", "3");
    auto twin = Create(base);
    Options mine = base;
    mine.insert(mine.end(), extra.begin(), extra.end());
    auto table = Create(mine);
    bool changelog = table->core_options().changelog_producer() == ChangelogProducer::kLookup;
    bool vectors = table->core_options().deletion_vectors_enabled();
    std::mt19937_64 rng(seed);
    std::unique_ptr<PrimaryKeyTableWrite> writer, twin_writer;
    LiveRows replayed;
    int64_t last_snapshot = 0;
    for (int c = 1; c <= 12; ++c) {
      SCOPED_TRACE("commit " + std::to_string(c));
      if (c % 4 == 1) {  // a fresh writer restores the table's state
        ASSERT_OK_AND_ASSIGN(writer, PrimaryKeyTableWrite::Create(table.get()));
        ASSERT_OK_AND_ASSIGN(twin_writer, PrimaryKeyTableWrite::Create(twin.get()));
      }
      std::vector<In> rows;
      for (int i = 0, n = 10 + static_cast<int>(rng() % 60); i < n; ++i) {
        In r{static_cast<int32_t>(rng() % 80)};
        if (rng() % 5) r.v = static_cast<int64_t>(rng() % 7);
        if (rng() % 4) r.s = std::string(1, static_cast<char>('w' + rng() % 3));
        uint64_t k = rng() % 10;
        r.kind = k < 2 && !retract.empty() ? retract[k % retract.size()] : (k < 6 ? "+I" : "+U");
        rows.push_back(r);
      }
      ASSERT_OK(writer->Write(Batch(rows)));
      ASSERT_OK(twin_writer->Write(Batch(rows)));
      Commit(*table, *writer, c);
      Commit(*twin, *twin_writer, c);
      ASSERT_OK_AND_ASSIGN(LiveRows got, TableRows(*table));
      ASSERT_OK_AND_ASSIGN(LiveRows want, TableRows(*twin));
      ASSERT_EQ(got, want) << Diff(got, want);
      if (vectors) {
        // On several threads a bucket's files are read at once (read_parts.h): the same rows.
        ASSERT_OK_AND_ASSIGN(auto one, SortedRows(*table, 1));
        ASSERT_OK_AND_ASSIGN(auto three, SortedRows(*table, 3));
        ASSERT_EQ(one.size(), got.size());
        ASSERT_EQ(three, one);
      }
      ASSERT_OK_AND_ASSIGN(auto fresh, FileStoreTable::Open(table->path()));
      ASSERT_OK_AND_ASSIGN(ScanPlan plan, fresh->Plan(ScanSelector{}));
      for (const DataSplit& split : plan.splits) {
        for (const DataFileMeta& f : split.files) {
          ASSERT_NE(f.level, 0) << f.file_name << " left in level 0";
        }
        for (const auto& [file, dv] : split.deletion_files) {
          seen->vectors++;
          seen->deleted_rows += dv.cardinality.value_or(0);
        }
      }
      if (changelog) {
        SnapshotManager snapshots(table->io(), table->path());
        ASSERT_OK_AND_ASSIGN(std::optional<Snapshot> latest, snapshots.Latest());
        for (int64_t s = last_snapshot + 1; s <= latest->id; ++s) {
          ASSERT_OK_AND_ASSIGN(auto changes, SnapshotChanges(*table, s));
          for (const auto& ch : changes) seen->changes[ch.kind]++;
          Apply(changes, &replayed);
        }
        last_snapshot = latest->id;
        ASSERT_EQ(replayed, got) << "the changelog does not replay the table: "
                                 << Diff(replayed, got);
      }
    }
    if (vectors) {
      EXPECT_GT(seen->deleted_rows, 0) << "no row was ever marked deleted";
    }
  }

  TempDir dir_;
  int counter_ = 0;
};

const Options kVectors = {{"deletion-vectors.enabled", "true"}};
const Options kLookup = {{"changelog-producer", "lookup"}};
const Options kBoth = {{"deletion-vectors.enabled", "true"}, {"changelog-producer", "lookup"}};
const Options kPartial = {{"merge-engine", "partial-update"},
                          {"partial-update.remove-record-on-delete", "true"}};
const Options kSum = {{"merge-engine", "aggregation"},
                      {"fields.v.aggregate-function", "sum"},
                      {"fields.s.aggregate-function", "last_non_null_value"}};

TEST_F(LookupWriteTest, DeletionVectorsReadAsTheTwin) {
  Seen seen;
  RunTwins({}, kVectors, {"-D", "-U"}, 1, &seen);
  RunTwins(kPartial, kVectors, {}, 2, &seen);
  RunTwins(kSum, kVectors, {}, 3, &seen);
  RunTwins({{"sequence.field", "v"}}, kVectors, {}, 4, &seen);
  RunTwins({}, Options{{"deletion-vectors.enabled", "true"}, {"deletion-vectors.bitmap64", "true"}},
           {"-D", "-U"}, 5, &seen);
}

TEST_F(LookupWriteTest, LookupChangelogReplaysTheTable) {
  Seen seen;
  RunTwins({}, kLookup, {"-D", "-U"}, 11, &seen);
  RunTwins({{"changelog-producer.row-deduplicate", "true"}}, kLookup, {"-D", "-U"}, 12, &seen);
  RunTwins(kPartial, kLookup, {}, 13, &seen);
  RunTwins(kSum, kLookup, {}, 14, &seen);
  EXPECT_GT(seen.changes[RowKind::kInsert], 0);
  EXPECT_GT(seen.changes[RowKind::kUpdateBefore], 0);
  EXPECT_EQ(seen.changes[RowKind::kUpdateBefore], seen.changes[RowKind::kUpdateAfter]);
  EXPECT_GT(seen.changes[RowKind::kDelete], 0);
  // First-row: the new keys' first records as they are (+I or +U), never a retraction.
  Seen first;
  RunTwins({{"merge-engine", "first-row"}}, kLookup, {}, 15, &first);
  EXPECT_GT(first.changes[RowKind::kInsert], 0);
  EXPECT_EQ(first.changes[RowKind::kUpdateBefore] + first.changes[RowKind::kDelete], 0);
}

TEST_F(LookupWriteTest, LookupChangelogWithDeletionVectors) {
  Seen seen;
  RunTwins({}, kBoth, {"-D", "-U"}, 21, &seen);
  RunTwins(kSum, kBoth, {}, 22, &seen);
  EXPECT_GT(seen.changes[RowKind::kUpdateBefore], 0);
}

TEST_F(LookupWriteTest, FirstRowWithDeletionVectorsIsRefusedAsJava) {
  auto table = Create(
      {{"bucket", "1"}, {"merge-engine", "first-row"}, {"deletion-vectors.enabled", "true"}});
  EXPECT_THAT(PrimaryKeyTableWrite::Create(table.get()).status(),
              IsError(StatusCode::kInvalid, "first-row"));
}

}  // namespace
}  // namespace fjord
