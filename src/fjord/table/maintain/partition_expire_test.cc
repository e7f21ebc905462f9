// Partition expiration on real tables: which partitions each strategy picks, the order, max-num
// and batches, the check interval, partitions whose values do not parse, and the OVERWRITE
// snapshots that drop them.
#include "fjord/table/maintain/partition_expire.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <mutex>
#include <set>

#include "fjord/meta/snapshot_manager.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/write/append_write.h"
#include "fjord/testing/test_util.h"
#include "fjord/warning.h"

namespace fjord {
namespace {

using Opts = std::vector<std::pair<std::string, std::string>>;

std::shared_ptr<FileStoreTable> MakeTable(const testing::TempDir& dir, const std::string& columns,
                                          std::vector<std::string> partition_keys, Opts options) {
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  EXPECT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  spec.fields = ParseColumnList(columns).value();
  spec.partition_keys = std::move(partition_keys);
  spec.options = std::move(options);
  auto id = TableIdentifier::Parse("db.t").value();
  EXPECT_OK(catalog->CreateTable(id, spec));
  return std::shared_ptr<FileStoreTable>(std::move(catalog->GetTable(id)).value());
}

// Rows (dt, v) of table "dt STRING, v BIGINT"; a null dt for std::nullopt.
std::shared_ptr<arrow::Table> DtRows(const std::vector<std::optional<std::string>>& dts) {
  arrow::StringBuilder dt;
  arrow::Int64Builder v;
  int64_t i = 0;
  for (const auto& d : dts) {
    EXPECT_TRUE((d ? dt.Append(*d) : dt.AppendNull()).ok());
    EXPECT_TRUE(v.Append(i++).ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("dt", arrow::utf8()), arrow::field("v", arrow::int64())}),
      {dt.Finish().ValueOrDie(), v.Finish().ValueOrDie()});
}

// Writes `rows` and commits them as one APPEND snapshot; `creation_millis` (local) overrides the
// files' creation time when set.
void Append(const FileStoreTable& table, const std::shared_ptr<arrow::Table>& rows,
            int64_t identifier, std::optional<int64_t> creation_millis = std::nullopt) {
  auto writer = std::move(AppendTableWrite::Create(&table)).value();
  ASSERT_OK(writer->Write(rows));
  auto messages = std::move(writer->PrepareCommit()).value();
  if (creation_millis) {
    for (CommitMessage& m : messages) {
      for (DataFileMeta& f : m.new_files) f.creation_time_millis = *creation_millis;
    }
  }
  FileStoreCommit commit(table.io(), table.path(), table.schema(), "writer");
  ASSERT_OK(commit.Commit(messages, identifier).status());
}

// The partitions of the latest snapshot's live files, as text.
std::set<std::string> LivePartitions(const FileStoreTable& table) {
  std::set<std::string> out;
  auto latest = std::move(table.snapshots().Latest()).value();
  if (!latest) return out;
  TablePaths paths{table.path()};
  const std::string& format = table.core_options().manifest_format();
  auto manifests =
      std::move(ReadDataManifests(table.io().get(), paths, format, latest->base_manifest_list,
                                  latest->delta_manifest_list))
          .value();
  auto live = std::move(ReadMergedEntries(table.io().get(), paths, format, manifests,
                                          PartitionFilter::All()))
                  .value();
  for (const ManifestEntry& e : live) {
    out.insert(PartitionDisplay(e.partition, table.schema(), table.core_options()));
  }
  return out;
}

std::vector<std::string> Texts(const std::vector<ExpiredPartition>& ps) {
  std::vector<std::string> out;
  for (const auto& p : ps) out.push_back(p.text);
  return out;
}

LocalDateTime At(const std::string& text) { return ParseLocalDateTime(text).value(); }

// Collects warnings while alive.
class Warnings {
 public:
  Warnings() {
    previous_ = SetWarningSink([this](const std::string& w) {
      std::lock_guard<std::mutex> lock(mu_);
      texts_.push_back(w);
    });
  }
  ~Warnings() { SetWarningSink(previous_); }
  std::vector<std::string> texts() {
    std::lock_guard<std::mutex> lock(mu_);
    return texts_;
  }

 private:
  std::mutex mu_;
  std::vector<std::string> texts_;
  WarningSink previous_;
};

TEST(PartitionExpireTest, ValuesTimeDropsOldPartitionsInOneOverwrite) {
  testing::TempDir dir;
  auto table = MakeTable(dir, "dt STRING, v BIGINT", {"dt"},
                         {{"partition.expiration-time", "2 d"},
                          {"partition.timestamp-formatter", "yyyyMMdd"},
                          {"bucket", "-1"}});
  Append(*table, DtRows({"20240101", "20240102", "20240103"}), 1);
  Append(*table, DtRows({"20240104", "20240105", "not-a-date-1", std::nullopt}), 2);
  ASSERT_OK_AND_ASSIGN(auto expire, PartitionExpire::Make(table, "writer", At("2024-01-01")));
  ASSERT_NE(expire, nullptr);
  Warnings warnings;
  ASSERT_OK_AND_ASSIGN(auto expired, expire->ExpireIfDue(At("2024-01-05T12:00"), 7));
  ASSERT_TRUE(expired.has_value());
  // Older than 2024-01-03T12:00: the first three days; the unparseable value and NULL stay.
  EXPECT_EQ(Texts(*expired),
            (std::vector<std::string>{"dt=20240101", "dt=20240102", "dt=20240103"}));
  EXPECT_EQ(LivePartitions(*table),
            (std::set<std::string>{"dt=20240104", "dt=20240105", "dt=not-a-date-1",
                                   "dt=__DEFAULT_PARTITION__"}));
  // One OVERWRITE snapshot, by the committer's user and identifier.
  ASSERT_OK_AND_ASSIGN(auto latest, table->snapshots().Latest());
  EXPECT_EQ(latest->id, 3);
  EXPECT_EQ(latest->commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(latest->commit_user, "writer");
  EXPECT_EQ(latest->commit_identifier, 7);
  auto texts = warnings.texts();
  bool warned_bad = false;
  bool warned_null = false;
  for (const std::string& w : texts) {
    warned_bad |= w.find("dt:not-a-date-1") != std::string::npos;
    warned_null |= w.find("dt:null") != std::string::npos;
  }
  EXPECT_TRUE(warned_bad);
  EXPECT_TRUE(warned_null);
  // Nothing more is old enough: no snapshot.
  ASSERT_OK_AND_ASSIGN(expired, expire->ExpireIfDue(At("2024-01-05T23:00"), 8));
  ASSERT_TRUE(expired.has_value());
  EXPECT_TRUE(expired->empty());
  ASSERT_OK_AND_ASSIGN(latest, table->snapshots().Latest());
  EXPECT_EQ(latest->id, 3);
}

TEST(PartitionExpireTest, MaxNumKeepsTheFirstInOrderAndBatchesCommitSeparately) {
  testing::TempDir dir;
  auto table = MakeTable(dir, "dt STRING, v BIGINT", {"dt"},
                         {{"partition.expiration-time", "1 d"},
                          {"partition.expiration-max-num", "4"},
                          {"partition.expiration-batch-size", "3"},
                          {"bucket", "-1"}});
  // The default formatter (yyyy-MM-dd, 1-2 digit months and days); text order, not time order,
  // decides which four go: "2023-10-1" < "2023-2-1" < "2023-2-10" < "2023-9-9" < ...
  Append(*table,
         DtRows({"2023-9-9", "2023-2-10", "2023-10-1", "2023-2-1", "2023-11-30", "2023-12-01",
                 "2024-06-01"}),
         1);
  ASSERT_OK_AND_ASSIGN(auto expire, PartitionExpire::Make(table, "u", At("2000-01-01")));
  ASSERT_OK_AND_ASSIGN(auto selected, expire->Select(At("2024-01-01")));
  EXPECT_EQ(Texts(selected), (std::vector<std::string>{"dt=2023-10-1", "dt=2023-11-30",
                                                       "dt=2023-12-01", "dt=2023-2-1"}));
  ASSERT_OK_AND_ASSIGN(auto expired, expire->ExpireIfDue(At("2024-01-02"), 1));
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(Texts(*expired), Texts(selected));
  // Two OVERWRITE snapshots: three partitions, then one.
  ASSERT_OK_AND_ASSIGN(auto latest, table->snapshots().Latest());
  EXPECT_EQ(latest->id, 3);
  SnapshotManager sm(table->io(), table->path());
  ASSERT_OK_AND_ASSIGN(Snapshot second, sm.Load(2));
  EXPECT_EQ(second.commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(latest->commit_kind, CommitKind::kOverwrite);
  EXPECT_EQ(second.total_record_count, 4);  // 7 rows, 3 dropped
  EXPECT_EQ(latest->total_record_count, 3);
  EXPECT_EQ(LivePartitions(*table),
            (std::set<std::string>{"dt=2023-2-10", "dt=2023-9-9", "dt=2024-06-01"}));
}

TEST(PartitionExpireTest, PatternOverSeveralKeys) {
  testing::TempDir dir;
  auto table = MakeTable(dir, "dt STRING, hr INT, v BIGINT", {"dt", "hr"},
                         {{"partition.expiration-time", "1 h"},
                          {"partition.timestamp-pattern", "$dt $hr:00:00"},
                          {"partition.timestamp-formatter", "yyyy-MM-dd H:mm:ss"},
                          {"bucket", "-1"}});
  arrow::StringBuilder dt;
  arrow::Int32Builder hr;
  arrow::Int64Builder v;
  for (int h : {1, 8, 9, 10, 23}) {
    ASSERT_TRUE(dt.Append("2024-01-15").ok());
    ASSERT_TRUE(hr.Append(h).ok());
    ASSERT_TRUE(v.Append(h).ok());
  }
  auto rows = arrow::Table::Make(
      arrow::schema({arrow::field("dt", arrow::utf8()), arrow::field("hr", arrow::int32()),
                     arrow::field("v", arrow::int64())}),
      {dt.Finish().ValueOrDie(), hr.Finish().ValueOrDie(), v.Finish().ValueOrDie()});
  Append(*table, rows, 1);
  ASSERT_OK_AND_ASSIGN(auto expire, PartitionExpire::Make(table, "u", At("2000-01-01")));
  // Older than 09:00: hours 1 and 8 (09:00 itself is not older). Sorted as text "2024-01-15,1"
  // < "2024-01-15,8".
  ASSERT_OK_AND_ASSIGN(auto expired, expire->ExpireIfDue(At("2024-01-15T10:00"), 1));
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(Texts(*expired),
            (std::vector<std::string>{"dt=2024-01-15,hr=1", "dt=2024-01-15,hr=8"}));
  ASSERT_EQ((*expired)[0].spec.size(), 2u);
  EXPECT_EQ((*expired)[0].spec[1], (std::pair<std::string, std::string>{"hr", "1"}));
  EXPECT_EQ(
      LivePartitions(*table),
      (std::set<std::string>{"dt=2024-01-15,hr=10", "dt=2024-01-15,hr=23", "dt=2024-01-15,hr=9"}));
}

TEST(PartitionExpireTest, UpdateTimeUsesTheNewestFile) {
  testing::TempDir dir;
  auto table = MakeTable(dir, "dt STRING, v BIGINT", {"dt"},
                         {{"partition.expiration-time", "1 d"},
                          {"partition.expiration-strategy", "update-time"},
                          {"bucket", "-1"}});
  const int64_t day = 86400000;
  const int64_t now = At("2024-03-10T12:00").ToMillis();
  Append(*table, DtRows({"old", "mixed", "any text"}), 1, now - 3 * day);
  Append(*table, DtRows({"mixed"}), 2, now - 2 * 3600000);  // a newer file keeps "mixed"
  Append(*table, DtRows({"fresh"}), 3, now - 1000);
  ASSERT_OK_AND_ASSIGN(auto expire, PartitionExpire::Make(table, "u", At("2000-01-01")));
  ASSERT_OK_AND_ASSIGN(auto expired, expire->ExpireIfDue(LocalDateTime::FromMillis(now), 1));
  ASSERT_TRUE(expired.has_value());
  EXPECT_EQ(Texts(*expired), (std::vector<std::string>{"dt=any text", "dt=old"}));
  EXPECT_EQ(LivePartitions(*table), (std::set<std::string>{"dt=fresh", "dt=mixed"}));
}

TEST(PartitionExpireTest, CheckIntervalAndEndInput) {
  testing::TempDir dir;
  auto table = MakeTable(dir, "dt STRING, v BIGINT", {"dt"},
                         {{"partition.expiration-time", "1 d"},
                          {"partition.expiration-check-interval", "1 h"},
                          {"bucket", "-1"}});
  Append(*table, DtRows({"2020-01-01"}), 1);
  LocalDateTime t = At("2024-01-01T00:00");
  ASSERT_OK_AND_ASSIGN(auto expire, PartitionExpire::Make(table, "u", t));
  ASSERT_OK_AND_ASSIGN(auto r, expire->ExpireIfDue(t.MinusMillis(-30 * 60000), 1));
  EXPECT_FALSE(r.has_value());  // not due
  ASSERT_OK_AND_ASSIGN(r, expire->ExpireIfDue(t.MinusMillis(-3600000), 1));
  EXPECT_FALSE(r.has_value());  // exactly the interval: Java's isAfter is strict
  ASSERT_OK_AND_ASSIGN(r, expire->ExpireIfDue(t.MinusMillis(-61 * 60000), 1));
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(Texts(*r), (std::vector<std::string>{"dt=2020-01-01"}));
  EXPECT_EQ(expire->last_check(), t.MinusMillis(-61 * 60000));
  ASSERT_OK_AND_ASSIGN(r, expire->ExpireIfDue(t.MinusMillis(-90 * 60000), 2));
  EXPECT_FALSE(r.has_value());
  // The end of input (identifier INT64_MAX) checks only with end-input.check-partition-expire.
  ASSERT_OK_AND_ASSIGN(r, expire->ExpireIfDue(t.MinusMillis(-90 * 60000), INT64_MAX));
  EXPECT_FALSE(r.has_value());
  ASSERT_OK_AND_ASSIGN(auto end_input,
                       table->WithDynamicOptions({{"end-input.check-partition-expire", "true"}}));
  ASSERT_OK_AND_ASSIGN(auto expire2, PartitionExpire::Make(end_input, "u", t));
  ASSERT_OK_AND_ASSIGN(r, expire2->ExpireIfDue(t, INT64_MAX));
  EXPECT_TRUE(r.has_value());
  // Java's initial last check: now minus less than the interval.
  LocalDateTime before = LocalDateTime::Now();
  ASSERT_OK_AND_ASSIGN(auto fresh, PartitionExpire::Make(table, "u"));
  LocalDateTime after = LocalDateTime::Now();
  EXPECT_LE(fresh->last_check(), after);
  EXPECT_GT(fresh->last_check(), before.MinusMillis(3600000));
  // Interval 0: every call checks.
  ASSERT_OK_AND_ASSIGN(auto zero,
                       table->WithDynamicOptions({{"partition.expiration-check-interval", "0"}}));
  ASSERT_OK_AND_ASSIGN(auto always, PartitionExpire::Make(zero, "u", t));
  ASSERT_OK_AND_ASSIGN(r, always->ExpireIfDue(t, 3));
  EXPECT_TRUE(r.has_value());
}

TEST(PartitionExpireTest, DisabledOrRefused) {
  testing::TempDir dir;
  auto plain = MakeTable(dir, "dt STRING, v BIGINT", {"dt"}, {{"bucket", "-1"}});
  ASSERT_OK_AND_ASSIGN(auto none, PartitionExpire::Make(plain, "u"));
  EXPECT_EQ(none, nullptr);
  ASSERT_OK_AND_ASSIGN(auto bad_strategy,
                       plain->WithDynamicOptions({{"partition.expiration-time", "1 d"},
                                                  {"partition.expiration-strategy", "oldest"}}));
  EXPECT_THAT(PartitionExpire::Make(bad_strategy, "u").status(),
              IsError(StatusCode::kInvalid, "partition.expiration-strategy"));
  ASSERT_OK_AND_ASSIGN(auto bad_formatter,
                       plain->WithDynamicOptions({{"partition.expiration-time", "1 d"},
                                                  {"partition.timestamp-formatter", "dd MMM"}}));
  EXPECT_THAT(PartitionExpire::Make(bad_formatter, "u").status(),
              IsError(StatusCode::kInvalid, "partition.timestamp-formatter 'dd MMM'"));
}

}  // namespace
}  // namespace fjord
