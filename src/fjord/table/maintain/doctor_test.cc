// `fjord doctor` on real tables (fjord/table_doctor.h): a healthy table has no finding and the
// analysis writes nothing; write-only writers leave sorted runs and unexpired snapshots; a
// consumer pins snapshots and the bytes only they hold; a tag alone keeps compacted-away files;
// a consumer past the latest snapshot; an old orphan. The numbers are checked against the files.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/meta/consumer.h"
#include "fjord/table/file_store_table.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;

std::shared_ptr<arrow::RecordBatch> Batch(int32_t from, int32_t to, const std::string& v) {
  arrow::Int32Builder id;
  arrow::StringBuilder value;
  for (int32_t i = from; i < to; ++i) {
    EXPECT_TRUE(id.Append(i).ok());
    EXPECT_TRUE(value.Append(v + std::to_string(i)).ok());
  }
  auto schema =
      arrow::schema({arrow::field("id", arrow::int32(), false), arrow::field("v", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, to - from, {*id.Finish(), *value.Finish()});
}

// Path -> (size, mtime) of every file under `root`.
std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> Listing(const std::string& root) {
  std::map<std::string, std::pair<uintmax_t, fs::file_time_type>> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (e.is_regular_file()) out[e.path().string()] = {e.file_size(), e.last_write_time()};
  }
  return out;
}

std::vector<std::string> Codes(const DoctorReport& r) {
  std::vector<std::string> out;
  for (const DoctorFinding& f : r.findings) out.push_back(f.code + ":" + f.message);
  return out;
}

const DoctorFinding* Find(const DoctorReport& r, const std::string& code) {
  for (const DoctorFinding& f : r.findings) {
    if (f.code == code) return &f;
  }
  return nullptr;
}

class DoctorTest : public ::testing::Test {
 protected:
  std::unique_ptr<Table> MakeTable(std::map<std::string, std::string> options) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList("id INT NOT NULL, v STRING");
    spec.primary_keys = {"id"};
    options.emplace("bucket", "2");
    spec.options.assign(options.begin(), options.end());
    TableIdentifier id{"db", "t" + std::to_string(++tables_)};
    EXPECT_OK(catalog->CreateTable(id, spec));
    auto t = *catalog->GetTable(id);
    root_ = t->store()->path();
    return t;
  }

  void Commit(Table& table, int32_t from, int32_t to, const std::string& v) {
    auto writer = *table.NewWrite();
    ASSERT_OK(WriteBatch(*writer, *Batch(from, to, v)));
    auto messages = writer->PrepareCommit(++identifier_);
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    auto commit = *table.NewCommit("test");
    ASSERT_TRUE(commit->Commit(*messages, identifier_).ok());
    ASSERT_OK(commit->Close());
  }

  void FullCompact(Table& table) {
    CompactionOptions options;
    options.full = true;
    auto compaction = *table.NewCompaction(options);
    ASSERT_OK(compaction->Run().status());
  }

  DoctorReport Diagnose(const Table& table) {
    auto report = DiagnoseTable(table);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    return report.ok() ? *report : DoctorReport{};
  }

  testing::TempDir dir_;
  std::string root_;
  int tables_ = 0;
  int64_t identifier_ = 0;
};

TEST_F(DoctorTest, HealthyTableHasNoFindingAndNothingIsWritten) {
  auto table = MakeTable({});
  Commit(*table, 0, 50, "a");
  Commit(*table, 0, 50, "b");
  auto before = Listing(root_);
  DoctorReport r = Diagnose(*table);
  EXPECT_EQ(Listing(root_), before);
  EXPECT_TRUE(r.findings.empty()) << ::testing::PrintToString(Codes(r));
  EXPECT_TRUE(r.notes.empty());
  ASSERT_EQ(r.snapshots.size(), 2u);
  EXPECT_EQ(r.latest_snapshot, 2);
  ASSERT_EQ(r.buckets.size(), 2u);
  int64_t bytes = 0, files = 0, rows = 0;
  for (const DoctorBucket& b : r.buckets) {
    bytes += b.bytes;
    files += b.files;
    rows += b.rows;
    EXPECT_EQ(b.sorted_runs, 2);  // two level-0 files
    EXPECT_EQ(b.small_files, b.files);
  }
  EXPECT_EQ(rows, 100);
  EXPECT_EQ(r.snapshots[1].bytes, bytes);
  EXPECT_EQ(r.snapshots[1].files, files);
  // The first snapshot's files are all in the second: nothing is its own.
  EXPECT_EQ(r.snapshots[0].own_bytes, 0);
  EXPECT_EQ(r.snapshots[1].own_bytes, r.snapshots[1].bytes - r.snapshots[0].bytes);
  // Java 1.4's defaults.
  EXPECT_EQ(r.settings.target_file_size, 128 << 20);
  EXPECT_EQ(r.settings.small_file_size, (128 << 20) / 10 * 7);
  EXPECT_EQ(r.settings.compaction_trigger, 5);
  EXPECT_EQ(r.settings.stop_trigger, 8);
  EXPECT_EQ(r.settings.compaction_min_file_num, 5);
  EXPECT_EQ(r.settings.retain_min, 10);
  EXPECT_EQ(r.settings.time_retained_millis, 3600 * 1000);
  EXPECT_EQ(r.settings.expire_limit, 50);
  EXPECT_FALSE(r.settings.consumer_expiration_millis);
}

TEST_F(DoctorTest, WriteOnlyWritersLeaveRunsAndSnapshots) {
  auto table = MakeTable({{"write-only", "true"},
                          {"snapshot.num-retained.min", "1"},
                          {"snapshot.num-retained.max", "3"}});
  for (int i = 0; i < 9; ++i) Commit(*table, 0, 20, "v" + std::to_string(i));
  DoctorReport r = Diagnose(*table);
  ASSERT_EQ(r.snapshots.size(), 9u);
  const DoctorFinding* runs = Find(r, "sorted-runs");
  ASSERT_NE(runs, nullptr) << ::testing::PrintToString(Codes(r));
  EXPECT_EQ(runs->severity, DoctorSeverity::kError);
  EXPECT_EQ(runs->numbers.at("sorted_runs"), 9);
  EXPECT_EQ(r.findings[0].severity, DoctorSeverity::kError);
  const DoctorFinding* exp = Find(r, "expiration-not-running");
  ASSERT_NE(exp, nullptr);
  EXPECT_EQ(exp->numbers.at("missed_snapshots"), 6);
  EXPECT_EQ(exp->numbers.at("missed_bytes"), 0);  // no compaction: the latest holds every file
  EXPECT_NE(exp->message.find("write-only=true"), std::string::npos);
  // Expiration's own dry run agrees.
  EXPECT_EQ(r.expirable_snapshots, 6);
  EXPECT_GT(r.expirable_bytes, 0);  // manifests and snapshot files
  EXPECT_EQ(r.snapshots[5].kept_by, "");
  EXPECT_EQ(r.snapshots[6].kept_by, "time-retained");
  EXPECT_EQ(r.snapshots[8].kept_by, "retain-min");
}

TEST_F(DoctorTest, ConsumerPinsAndTagKeepsBytes) {
  auto table = MakeTable({{"snapshot.num-retained.min", "1"}, {"snapshot.num-retained.max", "2"}});
  Commit(*table, 0, 30, "a");
  ASSERT_OK(CreateTableTag(*table, "t1"));
  ASSERT_OK(ResetConsumer(*table, "reader", 1));
  Commit(*table, 0, 30, "b");
  ASSERT_OK(ResetConsumer(*table, "slow", 2));
  Commit(*table, 0, 30, "c");
  FullCompact(*table);  // snapshot 4 deletes every earlier file
  Commit(*table, 30, 40, "d");
  DoctorReport r = Diagnose(*table);
  ASSERT_EQ(r.snapshots.size(), 5u) << "the consumer keeps them all";
  const DoctorFinding* pin = Find(r, "consumer-pins-snapshots");
  ASSERT_NE(pin, nullptr) << ::testing::PrintToString(Codes(r));
  EXPECT_EQ(pin->consumer, "reader");
  EXPECT_EQ(pin->numbers.at("pinned_snapshots"), 3);  // 1..3; 4 and 5 stay by retain-max
  // The files of snapshots 2 and 3 (snapshot 1's are the tag's).
  int64_t expected = r.snapshots[2].bytes - r.snapshots[0].bytes;
  EXPECT_EQ(pin->numbers.at("pinned_bytes"), expected);
  EXPECT_GT(expected, 0);
  EXPECT_EQ(r.snapshots[0].kept_by, "consumer:reader");
  // The second consumer is behind too: it alone would keep 2..3.
  int pins = 0;
  for (const DoctorFinding& f : r.findings) {
    if (f.code != "consumer-pins-snapshots" || f.consumer != "slow") continue;
    ++pins;
    EXPECT_EQ(f.numbers.at("pinned_snapshots"), 2);
    EXPECT_EQ(f.numbers.at("pinned_bytes"), expected);
    EXPECT_EQ(f.numbers.at("snapshots_behind"), 4);
  }
  EXPECT_EQ(pins, 1);
  ASSERT_EQ(r.tags.size(), 1u);
  EXPECT_TRUE(r.tags[0].snapshot_present);
  EXPECT_EQ(Find(r, "tag-only-bytes"), nullptr);  // its snapshot is still there

  // The consumer goes; the next commit expires 1..4 (retain-max 2), the tag alone keeps the
  // files of snapshot 1.
  ASSERT_OK(ResetConsumer(*table, "reader", std::nullopt));
  ASSERT_OK(ResetConsumer(*table, "slow", std::nullopt));
  Commit(*table, 40, 50, "e");
  r = Diagnose(*table);
  EXPECT_EQ(r.earliest_snapshot, 5);
  ASSERT_EQ(r.tags.size(), 1u);
  EXPECT_FALSE(r.tags[0].snapshot_present);
  EXPECT_GT(r.tags[0].bytes, 0);
  EXPECT_EQ(r.tags[0].own_bytes, r.tags[0].bytes);
  EXPECT_EQ(r.tag_only_bytes, r.tags[0].bytes);
  const DoctorFinding* tag = Find(r, "tag-only-bytes");
  ASSERT_NE(tag, nullptr) << ::testing::PrintToString(Codes(r));
  EXPECT_EQ(tag->tag, "t1");
  EXPECT_EQ(tag->numbers.at("own_bytes"), r.tags[0].bytes);
  EXPECT_EQ(Find(r, "consumer-pins-snapshots"), nullptr);
  EXPECT_EQ(Find(r, "expiration-not-running"), nullptr);
}

TEST_F(DoctorTest, ConsumerPastLatestAndOldOrphan) {
  auto table = MakeTable({});
  Commit(*table, 0, 10, "a");
  ConsumerManager consumers(table->io(), root_);
  ASSERT_OK(consumers.Write("after-rollback", Consumer{7}));
  std::string bucket_dir;
  for (const auto& e : fs::recursive_directory_iterator(root_)) {
    if (e.is_directory() && e.path().filename().string().rfind("bucket-", 0) == 0) {
      bucket_dir = e.path().string();
    }
  }
  ASSERT_FALSE(bucket_dir.empty());
  std::string old_file = bucket_dir + "/data-00000000-0000-0000-0000-000000000000-0.parquet";
  std::ofstream(old_file) << "0123456789";
  fs::last_write_time(old_file, fs::file_time_type::clock::now() - std::chrono::hours(50));
  // A young orphan: a second old, since files of the very millisecond of the diagnosis are not
  // candidates (only files older than its time are).
  std::string young_file = bucket_dir + "/data-11111111-1111-1111-1111-111111111111-0.parquet";
  std::ofstream(young_file) << "01234";
  fs::last_write_time(young_file, fs::file_time_type::clock::now() - std::chrono::seconds(1));
  DoctorReport r = Diagnose(*table);
  const DoctorFinding* stale = Find(r, "stale-consumer");
  ASSERT_NE(stale, nullptr) << ::testing::PrintToString(Codes(r));
  EXPECT_EQ(stale->consumer, "after-rollback");
  EXPECT_EQ(stale->numbers.at("next_snapshot"), 7);
  const DoctorFinding* orphans = Find(r, "orphan-files");
  ASSERT_NE(orphans, nullptr);
  EXPECT_EQ(orphans->severity, DoctorSeverity::kWarning);
  EXPECT_EQ(r.orphan_files, 2);
  EXPECT_EQ(r.orphan_bytes, 15);
  EXPECT_EQ(r.old_orphan_files, 1);
  EXPECT_EQ(r.old_orphan_bytes, 10);
  EXPECT_TRUE(fs::exists(old_file));  // nothing deleted
}

// Expiration running beside (e.g. `fjord compact --follow`) deletes a snapshot's manifests before
// its file: doctor skips that snapshot as if already expired, and still fails when the latest
// snapshot's manifests are gone (a damaged table).
TEST_F(DoctorTest, SnapshotBeingExpiredIsSkipped) {
  auto table = MakeTable({});
  Commit(*table, 0, 50, "a");
  Commit(*table, 50, 100, "b");
  Commit(*table, 100, 150, "c");
  const SnapshotManager& sm = table->store()->snapshots();
  auto second = sm.Load(2);
  ASSERT_OK(second.status());
  auto latest = sm.Load(3);
  ASSERT_OK(latest.status());
  std::filesystem::remove(std::filesystem::path(root_) / "manifest" / second->delta_manifest_list);
  DoctorReport r = Diagnose(*table);
  ASSERT_EQ(r.snapshots.size(), 2u);
  EXPECT_EQ(r.snapshots[0].id, 1);
  EXPECT_EQ(r.snapshots[1].id, 3);
  int64_t rows = 0;
  for (const DoctorBucket& b : r.buckets) rows += b.rows;
  EXPECT_EQ(rows, 150);
  std::filesystem::remove(std::filesystem::path(root_) / "manifest" / latest->delta_manifest_list);
  EXPECT_EQ(DiagnoseTable(*table).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace fjord
