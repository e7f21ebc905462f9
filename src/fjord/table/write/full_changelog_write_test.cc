// changelog-producer = full-compaction in the primary-key writer (issue 14 point 1): every full
// compaction writes the changes it makes to changelog files of the compact increment; applied in
// order to an empty table they give the table's rows after each full compaction.
#include <arrow/api.h>

#include <random>

#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/write/changelog_test_util.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;
using testing_changelog::Apply;
using testing_changelog::Change;
using testing_changelog::CompactChanges;
using testing_changelog::LiveRows;
using testing_changelog::TableRows;

// p, id, v (nullable), s (nullable), kind.
struct In {
  std::string p;
  int32_t id;
  std::optional<int64_t> v;
  std::optional<std::string> s;
  std::string kind = "+I";
};

std::shared_ptr<arrow::Table> Batch(const std::vector<In>& rows) {
  arrow::StringBuilder p, s, k;
  arrow::Int32Builder id;
  arrow::Int64Builder v;
  for (const In& r : rows) {
    EXPECT_TRUE(p.Append(r.p).ok());
    EXPECT_TRUE(id.Append(r.id).ok());
    EXPECT_TRUE((r.v ? v.Append(*r.v) : v.AppendNull()).ok());
    EXPECT_TRUE((r.s ? s.Append(*r.s) : s.AppendNull()).ok());
    EXPECT_TRUE(k.Append(r.kind).ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("p", arrow::utf8()), arrow::field("id", arrow::int32()),
                     arrow::field("v", arrow::int64()), arrow::field("s", arrow::utf8()),
                     arrow::field("_row_kind", arrow::utf8())}),
      {p.Finish().ValueOrDie(), id.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
       s.Finish().ValueOrDie(), k.Finish().ValueOrDie()});
}

class FullChangelogWriteTest : public ::testing::Test {
 protected:
  std::unique_ptr<FileStoreTable> Create(std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = FileSystemCatalog::Open(dir_.Join("wh")).value();
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = ParseColumnList("p STRING NOT NULL, id INT NOT NULL, v BIGINT, s STRING").value();
    spec.partition_keys = {"p"};
    spec.primary_keys = {"p", "id"};
    options.emplace_back("changelog-producer", "full-compaction");
    spec.options = std::move(options);
    auto id = TableIdentifier::Parse("db.t" + std::to_string(counter_++)).value();
    EXPECT_OK(catalog->CreateTable(id, spec));
    return std::move(catalog->GetTable(id)).value();
  }

  // Prepares and commits one identifier; returns the compact-increment changes, checking the
  // files: no changelog in the data increment, changelog files named and levelled as Java's.
  std::vector<Change> CommitAndRead(const FileStoreTable& table, PrimaryKeyTableWrite& writer,
                                    int64_t identifier) {
    auto messages = writer.PrepareCommit(true, identifier);
    EXPECT_TRUE(messages.ok()) << messages.status().ToString();
    if (!messages.ok()) return {};
    int32_t max_level = table.core_options().num_levels() - 1;
    int64_t rows = 0;
    for (const CommitMessage& m : *messages) {
      EXPECT_TRUE(m.changelog_files.empty());
      for (const DataFileMeta& f : m.compact_changelog_files) {
        EXPECT_EQ(f.file_name.rfind("changelog-", 0), 0u) << f.file_name;
        EXPECT_EQ(f.level, max_level);
        EXPECT_EQ(f.file_source, 0) << "a changelog file's source is APPEND, as Java's";
        rows += f.row_count;
        // One uuid per bucket writer for data and changelog files, as Java's path factory.
        for (const DataFileMeta& d : m.compact_after) {
          EXPECT_EQ(d.file_name.substr(5, 36), f.file_name.substr(10, 36));
        }
      }
    }
    FileStoreCommit commit(table.io(), table.path(), table.schema(), "test-user");
    EXPECT_OK(commit.Commit(*messages, identifier).status());
    auto changes = CompactChanges(table, *messages);
    EXPECT_TRUE(changes.ok()) << changes.status().ToString();
    if (rows > 0) {
      SnapshotManager snapshots(table.io(), table.path());
      auto latest = snapshots.Latest();
      EXPECT_TRUE(latest.ok() && latest->has_value());
      if (latest.ok() && latest->has_value()) {
        EXPECT_EQ((*latest)->commit_kind, CommitKind::kCompact);
        EXPECT_TRUE((*latest)->changelog_manifest_list.has_value());
        EXPECT_EQ((*latest)->changelog_record_count, rows);
      }
    }
    return changes.ok() ? *changes : std::vector<Change>{};
  }

  // Random upserts, retractions of the kinds `retract` and NULLs over a few keys, 8 commits
  // through one writer with identifiers 1, 2, ...: after every commit that is due for a full
  // compaction, the changelog applied so far equals the table.
  void RunModel(std::vector<std::pair<std::string, std::string>> options, int delta_commits,
                const std::vector<std::string>& retract, uint64_t seed,
                std::map<RowKind, int>* kinds_seen) {
    options.emplace_back("full-compaction.delta-commits", std::to_string(delta_commits));
    auto table = Create(std::move(options));
    std::mt19937_64 rng(seed);
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    LiveRows live;
    for (int c = 1; c <= 8; ++c) {
      std::vector<In> rows;
      for (int i = 0, n = 20 + static_cast<int>(rng() % 40); i < n; ++i) {
        In r{rng() % 3 ? "a" : "b", static_cast<int32_t>(rng() % 30)};
        if (rng() % 5) r.v = static_cast<int64_t>(rng() % 4);
        if (rng() % 4) r.s = std::string(1, static_cast<char>('w' + rng() % 3));
        uint64_t k = rng() % 10;
        if (k < 2 && !retract.empty()) {
          r.kind = retract[k % retract.size()];
        } else {
          r.kind = k < 6 ? "+I" : "+U";
        }
        rows.push_back(r);
      }
      ASSERT_OK(writer->Write(Batch(rows)));
      std::vector<Change> changes = CommitAndRead(*table, *writer, c);
      for (const Change& ch : changes) (*kinds_seen)[ch.kind]++;
      Apply(changes, &live);
      // Between full compactions only a compaction that picks every run writes the max level
      // (and its changelog); the table equals the max level after a full one.
      if (c % delta_commits != 0) continue;
      ASSERT_OK_AND_ASSIGN(LiveRows rows_now, TableRows(*table));
      ASSERT_EQ(live, rows_now) << "after commit " << c;
    }
  }

  TempDir dir_;
  int counter_ = 0;
};

TEST_F(FullChangelogWriteTest, DeduplicateChangelogReplaysTheTable) {
  std::map<RowKind, int> kinds;
  RunModel({{"bucket", "2"}}, 1, {"-D", "-U"}, 1, &kinds);
  RunModel({{"bucket", "1"}, {"num-sorted-run.compaction-trigger", "2"}}, 2, {"-D", "-U"}, 2,
           &kinds);
  RunModel({{"bucket", "1"}, {"num-levels", "3"}, {"num-sorted-run.compaction-trigger", "2"}}, 3,
           {"-D", "-U"}, 3, &kinds);
  EXPECT_GT(kinds[RowKind::kInsert], 0);
  EXPECT_GT(kinds[RowKind::kUpdateBefore], 0);
  EXPECT_EQ(kinds[RowKind::kUpdateBefore], kinds[RowKind::kUpdateAfter]);
  EXPECT_GT(kinds[RowKind::kDelete], 0);
}

TEST_F(FullChangelogWriteTest, PartialUpdateAndAggregationChangelogsReplayTheTable) {
  std::map<RowKind, int> kinds;
  RunModel({{"bucket", "1"}, {"merge-engine", "partial-update"}, {"ignore-delete", "true"}}, 1,
           {"-D", "-U"}, 4, &kinds);
  RunModel({{"bucket", "2"},
            {"merge-engine", "partial-update"},
            {"partial-update.remove-record-on-delete", "true"}},
           2, {"-D"}, 5, &kinds);
  RunModel({{"bucket", "1"},
            {"merge-engine", "aggregation"},
            {"fields.v.aggregate-function", "sum"},
            {"fields.s.aggregate-function", "last_non_null_value"},
            {"fields.s.ignore-retract", "true"}},
           1, {"-D", "-U"}, 6, &kinds);
  RunModel({{"bucket", "1"},
            {"merge-engine", "aggregation"},
            {"fields.v.aggregate-function", "max"},
            {"num-sorted-run.compaction-trigger", "2"}},
           2, {}, 7, &kinds);
  EXPECT_GT(kinds[RowKind::kUpdateBefore], 0);
  EXPECT_GT(kinds[RowKind::kDelete], 0);
}

// Each key's change against what the max level held: -U/+U even for an unchanged row unless
// row-deduplicate (which ignores the ignore-fields), -D for a deleted key, nothing for a key no
// record touched.
TEST_F(FullChangelogWriteTest, RowDeduplicateSuppressesEqualUpdates) {
  auto run = [&](std::vector<std::pair<std::string, std::string>> options) {
    auto table = Create(std::move(options));
    auto writer = PrimaryKeyTableWrite::Create(table.get()).value();
    std::vector<std::vector<std::string>> out;
    auto commit = [&](const std::vector<In>& rows, int64_t id) {
      EXPECT_OK(writer->Write(Batch(rows)));
      std::vector<std::string> text;
      for (const Change& c : CommitAndRead(*table, *writer, id)) {
        text.push_back(std::string(RowKindShortString(c.kind)) + c.row);
      }
      out.push_back(text);
    };
    commit({{"a", 1, 10, "x"}, {"a", 2, 20, "y"}, {"a", 3, 30, "z"}}, 1);
    commit({{"a", 1, 10, "x"}, {"a", 2, 21, "y"}, {"a", 3, 30, "w"}}, 2);
    commit({{"a", 2, 21, "y", "-D"}, {"a", 4, 40, "q"}}, 3);
    return out;
  };
  auto row = [](int id, int v, const char* s) {
    return std::string("{\"p\":\"a\",\"id\":") + std::to_string(id) +
           ",\"v\":" + std::to_string(v) + ",\"s\":\"" + s + "\"}";
  };
  std::vector<std::string> first = {"+I" + row(1, 10, "x"), "+I" + row(2, 20, "y"),
                                    "+I" + row(3, 30, "z")};
  std::vector<std::string> third = {"-D" + row(2, 21, "y"), "+I" + row(4, 40, "q")};
  EXPECT_EQ(run({{"bucket", "1"}}),
            (std::vector<std::vector<std::string>>{
                first,
                {"-U" + row(1, 10, "x"), "+U" + row(1, 10, "x"), "-U" + row(2, 20, "y"),
                 "+U" + row(2, 21, "y"), "-U" + row(3, 30, "z"), "+U" + row(3, 30, "w")},
                third}));
  EXPECT_EQ(run({{"bucket", "1"}, {"changelog-producer.row-deduplicate", "true"}}),
            (std::vector<std::vector<std::string>>{first,
                                                   {"-U" + row(2, 20, "y"), "+U" + row(2, 21, "y"),
                                                    "-U" + row(3, 30, "z"), "+U" + row(3, 30, "w")},
                                                   third}));
  EXPECT_EQ(run({{"bucket", "1"},
                 {"changelog-producer.row-deduplicate", "true"},
                 {"changelog-producer.row-deduplicate-ignore-fields", "s"}}),
            (std::vector<std::vector<std::string>>{
                first, {"-U" + row(2, 20, "y"), "+U" + row(2, 21, "y")}, third}));
}

// Java's schema validation: first-row tables take no input or full-compaction changelog.
TEST_F(FullChangelogWriteTest, FirstRowTablesAreRefused) {
  auto table = Create({{"bucket", "1"}});
  TableWriteOptions options;
  options.dynamic_options = {{"merge-engine", "first-row"}};
  EXPECT_THAT(PrimaryKeyTableWrite::Create(table.get(), options),
              IsError(StatusCode::kInvalid, "supports only changelog-producer 'none' and"));
}

// A file upgraded into the max level is not rewritten; its records are the changelog, as +I.
TEST_F(FullChangelogWriteTest, UpgradedFileGivesInserts) {
  // Files above 70 % of the target are upgraded rather than rewritten.
  auto table = Create({{"bucket", "1"}, {"target-file-size", "1 b"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(Batch({{"a", 1, 10, "x", "+U"}, {"a", 2, 20, "y", "+I"}})));
  auto messages = writer->PrepareCommit(true, 1);
  ASSERT_OK(messages.status());
  ASSERT_EQ(messages->size(), 1u);
  const CommitMessage& m = (*messages)[0];
  ASSERT_EQ(m.compact_before.size(), 1u);
  ASSERT_EQ(m.compact_after.size(), 1u);
  EXPECT_EQ(m.compact_before[0].file_name, m.compact_after[0].file_name) << "upgraded";
  ASSERT_OK_AND_ASSIGN(auto changes, CompactChanges(*table, *messages));
  ASSERT_EQ(changes.size(), 2u);
  EXPECT_EQ(changes[0].kind, RowKind::kInsert);
  EXPECT_EQ(changes[1].kind, RowKind::kInsert);
}

}  // namespace
}  // namespace fjord
