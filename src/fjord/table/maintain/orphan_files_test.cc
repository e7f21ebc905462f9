// Orphan clean-up on real tables holding every kind of file (data and changelog files,
// compaction, an overwrite, dynamic-bucket hash index files, a tag, a long-lived changelog, a
// statistics file): exactly the planted orphans and stray temporary files go, every file in use
// stays, the age threshold is honoured, a future time is refused, a dry run deletes nothing, and a
// crash at any I/O step leaves a readable table that a rerun cleans.
#include "fjord/table/maintain/orphan_files.h"

#include <arrow/api.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>

#include "fjord/io/fault_injection_file_io.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using Row = std::tuple<std::string, int32_t, int64_t>;  // p, id, v

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

void SetAge(const fs::path& p, std::chrono::hours age) {
  fs::last_write_time(p, fs::file_time_type::clock::now() - age);
}

// Every file and directory under `dir` made `age` old.
void AgeAll(const std::string& dir, std::chrono::hours age) {
  for (const auto& e : fs::recursive_directory_iterator(dir)) SetAge(e.path(), age);
}

std::set<std::string> FilesUnder(const std::string& dir) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) out.insert(fs::relative(e.path(), dir).string());
  }
  return out;
}

void Plant(const std::string& root, const std::string& rel, const std::string& data = "orphan") {
  fs::create_directories(fs::path(root + "/" + rel).parent_path());
  std::ofstream(root + "/" + rel) << data;
}

std::shared_ptr<arrow::Table> Rows(const std::vector<Row>& rows) {
  arrow::StringBuilder p;
  arrow::Int32Builder id;
  arrow::Int64Builder v;
  for (const Row& r : rows) {
    (void)p.Append(std::get<0>(r));
    (void)id.Append(std::get<1>(r));
    (void)v.Append(std::get<2>(r));
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("p", arrow::utf8()), arrow::field("id", arrow::int32()),
                     arrow::field("v", arrow::int64())}),
      {p.Finish().ValueOrDie(), id.Finish().ValueOrDie(), v.Finish().ValueOrDie()});
}

// (p, id, v) rows of `selector`, sorted.
std::vector<Row> ReadRows(const std::string& path, ScanSelector selector = {}) {
  auto table = std::move(FileStoreTable::Open(path)).value();
  ReadRequest request;
  request.selector = std::move(selector);
  auto result = table->Read(request);
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  if (!result.ok()) return {};
  auto rows = result->rows->CombineChunks().ValueOrDie();
  std::vector<Row> out;
  if (rows->num_rows() == 0) return out;
  auto p = std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("p")->chunk(0));
  auto id = std::static_pointer_cast<arrow::Int32Array>(rows->GetColumnByName("id")->chunk(0));
  auto v = std::static_pointer_cast<arrow::Int64Array>(rows->GetColumnByName("v")->chunk(0));
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    out.emplace_back(p->GetString(r), id->Value(r), v->Value(r));
  }
  std::sort(out.begin(), out.end());
  return out;
}

class OrphanFilesTest : public ::testing::Test {
 protected:
  // A partitioned primary-key table with input changelog and deletion vectors: snapshot 1
  // (APPEND), 2 (APPEND), 3 (full compaction), 4 (OVERWRITE of p=a). snapshot-1
  // lives on only as tag `t1` (with a statistics file), snapshot-2 only as the long-lived
  // changelog/changelog-2, as expiration leaves them.
  void SetUp() override {
    auto catalog = std::move(FileSystemCatalog::Open(dir_.Join("wh"))).value();
    ASSERT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = ParseColumnList("p STRING NOT NULL, id INT NOT NULL, v BIGINT").value();
    spec.partition_keys = {"p"};
    spec.primary_keys = {"p", "id"};
    spec.options = {{"bucket", "-1"}, {"changelog-producer", "input"}};
    auto id = TableIdentifier::Parse("db.t").value();
    ASSERT_OK(catalog->CreateTable(id, spec));
    auto table = std::move(catalog->GetTable(id)).value();
    root_ = table->path();

    std::vector<Row> first, second;
    for (int i = 0; i < 40; ++i) first.emplace_back(i % 2 ? "a" : "b", i, i);
    for (int i = 20; i < 60; ++i) second.emplace_back(i % 2 ? "a" : "b", i, 100 + i);
    FileStoreCommit commit(table->io(), table->path(), table->schema(), "test-user");
    {
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
      ASSERT_OK(writer->Write(Rows(first)));
      ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
      ASSERT_OK(commit.Commit(messages, 1).status());
    }
    tag_rows_ = ReadRows(root_);
    {
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
      ASSERT_OK(writer->Write(Rows(second)));
      ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(/*wait_compaction=*/true));
      ASSERT_OK(commit.Commit(messages, 2).status());
      // A full compaction: deletion vectors and compacted files.
      auto table2 = std::move(FileStoreTable::Open(root_)).value();
      ASSERT_OK_AND_ASSIGN(auto compactor, PrimaryKeyTableWrite::Create(table2.get()));
      ASSERT_OK_AND_ASSIGN(auto buckets, compactor->LiveBuckets());
      ASSERT_FALSE(buckets.empty());
      for (const PartitionBucket& b : buckets) ASSERT_OK(compactor->CompactBucket(b, true));
      ASSERT_OK_AND_ASSIGN(auto compacted, compactor->PrepareCommit(true));
      FileStoreCommit commit2(table2->io(), table2->path(), table2->schema(), "test-user");
      ASSERT_OK(commit2.Commit(compacted, 3).status());
    }
    {
      auto table3 = std::move(FileStoreTable::Open(root_)).value();
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table3.get()));
      ASSERT_OK(writer->Write(Rows({{"a", 7, 7000}, {"a", 9, 9000}})));
      ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit(true));
      FileStoreCommit commit3(table3->io(), table3->path(), table3->schema(), "test-user");
      // Overwrite commits no changelog: the input changelog files its writer made would be
      // orphans from the start; drop them so that every file below is in use.
      for (CommitMessage& m : messages) {
        for (const DataFileMeta& f : m.changelog_files) {
          fs::remove(root_ + "/p=a/bucket-" + std::to_string(m.bucket) + "/" + f.file_name);
        }
        m.changelog_files.clear();
      }
      ASSERT_OK(commit3.Overwrite(messages, 4, {{"p", "a"}}).status());
    }
    latest_rows_ = ReadRows(root_);

    // snapshot-1 -> tag/tag-t1 with a statistics file; snapshot-2 -> changelog/changelog-2.
    std::string snap1;
    {
      std::ifstream in(root_ + "/snapshot/snapshot-1");
      snap1.assign(std::istreambuf_iterator<char>(in), {});
    }
    size_t brace = snap1.rfind('}');
    snap1.insert(brace, ",\n  \"statistics\" : \"stat-in-use-1\"\n");
    Plant(root_, "tag/tag-t1", snap1);
    Plant(root_, "statistics/stat-in-use-1", "{}");
    fs::create_directories(root_ + "/changelog");
    fs::rename(root_ + "/snapshot/snapshot-2", root_ + "/changelog/changelog-2");
    ASSERT_TRUE(fs::exists(root_ + "/index"));
    fs::remove(root_ + "/snapshot/snapshot-1");
    std::ofstream(root_ + "/snapshot/EARLIEST") << "3";
    in_use_ = FilesUnder(root_);

    // One orphan of each kind, and files that are never candidates.
    std::string bucket_dir = DataFileDir();
    orphans_ = {
        bucket_dir + "/data-00000000-0000-0000-0000-000000000001-0.parquet",
        bucket_dir + "/changelog-00000000-0000-0000-0000-000000000002-0.parquet",
        bucket_dir + "/data-00000000-0000-0000-0000-000000000003-0.parquet.index",
        "p=zz/bucket-0/data-00000000-0000-0000-0000-000000000004-0.parquet",
        "manifest/manifest-00000000-0000-0000-0000-000000000005-0",
        "manifest/manifest-list-00000000-0000-0000-0000-000000000006-0",
        "manifest/index-manifest-00000000-0000-0000-0000-000000000007-0",
        "index/index-00000000-0000-0000-0000-000000000008-0",
        "statistics/stat-00000000-0000-0000-0000-000000000009-0",
        "snapshot/.snapshot-9.00000000-0000-0000-0000-00000000000a.tmp",
        "changelog/.changelog-9.00000000-0000-0000-0000-00000000000b.tmp",
    };
    for (const std::string& o : orphans_) Plant(root_, o);
    never_ = {"schema/.schema-1.tmp", "tag/.tag-x.tmp", "consumer/consumer-c1",
              "branch/not-a-branch"};
    for (const std::string& o : never_) Plant(root_, o);
    AgeAll(root_, std::chrono::hours(48));
  }

  // A bucket directory holding files in use.
  std::string DataFileDir() const {
    for (const std::string& f : in_use_) {
      if (f.rfind("p=a/bucket-", 0) == 0) return fs::path(f).parent_path().string();
    }
    return "p=a/bucket-0";
  }

  std::set<std::string> Expected() const {
    std::set<std::string> out = in_use_;
    for (const std::string& n : never_) out.insert(n);
    return out;
  }

  void ExpectTableReads() {
    EXPECT_EQ(ReadRows(root_), latest_rows_);
    ScanSelector tag;
    tag.tag = "t1";
    EXPECT_EQ(ReadRows(root_, tag), tag_rows_);
  }

  TempDir dir_;
  std::string root_;
  std::vector<Row> tag_rows_, latest_rows_;
  std::set<std::string> in_use_;
  std::vector<std::string> orphans_, never_;
};

int64_t OneDayAgo() { return NowMillis() - 24LL * 3600 * 1000; }

TEST_F(OrphanFilesTest, DeletesExactlyThePlantedOrphans) {
  auto table = std::move(FileStoreTable::Open(root_)).value();
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult r, CleanOrphanFiles(*table, OneDayAgo(), false));
  std::set<std::string> deleted;
  int64_t bytes = 0;
  for (const OrphanFile& f : r.files) {
    deleted.insert(fs::relative(f.path, root_).string());
    bytes += f.size;
  }
  EXPECT_EQ(deleted, std::set<std::string>(orphans_.begin(), orphans_.end()));
  EXPECT_EQ(r.bytes, bytes);
  EXPECT_EQ(r.bytes, static_cast<int64_t>(orphans_.size() * std::string("orphan").size()));
  EXPECT_EQ(FilesUnder(root_), Expected());
  // The emptied data directories went with their files.
  EXPECT_FALSE(fs::exists(root_ + "/p=zz"));
  ExpectTableReads();
  // A second run finds nothing.
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult again, CleanOrphanFiles(*table, OneDayAgo(), false));
  EXPECT_TRUE(again.files.empty());
}

TEST_F(OrphanFilesTest, EveryInUseFileIsACandidateYetStays) {
  // With every file old enough, the used-file set alone keeps the table: deleting the tag and
  // the long-lived changelog first makes their files orphans too.
  fs::remove(root_ + "/tag/tag-t1");
  fs::remove(root_ + "/changelog/changelog-2");
  auto table = std::move(FileStoreTable::Open(root_)).value();
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult r, CleanOrphanFiles(*table, OneDayAgo(), false));
  std::set<std::string> deleted;
  for (const OrphanFile& f : r.files) deleted.insert(fs::relative(f.path, root_).string());
  for (const std::string& o : orphans_) EXPECT_TRUE(deleted.count(o)) << o;
  EXPECT_TRUE(deleted.count("statistics/stat-in-use-1"));
  EXPECT_GT(deleted.size(), orphans_.size() + 1);  // the tag's manifests and data files
  EXPECT_EQ(ReadRows(root_), latest_rows_);
}

TEST_F(OrphanFilesTest, DryRunListsWithSizesAndDeletesNothing) {
  std::set<std::string> before = FilesUnder(root_);
  auto table = std::move(FileStoreTable::Open(root_)).value();
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult r, CleanOrphanFiles(*table, OneDayAgo(), true));
  EXPECT_EQ(r.files.size(), orphans_.size());
  for (const OrphanFile& f : r.files) EXPECT_EQ(f.size, 6) << f.path;
  EXPECT_TRUE(r.directories.empty());
  EXPECT_EQ(FilesUnder(root_), before);
}

TEST_F(OrphanFilesTest, AgeThresholdIsHonoured) {
  // Two orphans are young: they stay; the older ones go.
  SetAge(root_ + "/" + orphans_[0], std::chrono::hours(1));
  SetAge(root_ + "/" + orphans_[4], std::chrono::hours(1));
  auto table = std::move(FileStoreTable::Open(root_)).value();
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult r, CleanOrphanFiles(*table, OneDayAgo(), false));
  EXPECT_EQ(r.files.size(), orphans_.size() - 2);
  EXPECT_TRUE(fs::exists(root_ + "/" + orphans_[0]));
  EXPECT_TRUE(fs::exists(root_ + "/" + orphans_[4]));
  // With a threshold older than every file nothing is a candidate.
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult none,
                       CleanOrphanFiles(*table, NowMillis() - 72LL * 3600 * 1000, false));
  EXPECT_TRUE(none.files.empty());
  // Now-ish: the young ones go too.
  ASSERT_OK_AND_ASSIGN(OrphanCleanResult rest, CleanOrphanFiles(*table, NowMillis() - 1000, false));
  EXPECT_EQ(rest.files.size(), 2u);
  EXPECT_EQ(FilesUnder(root_), Expected());
  ExpectTableReads();
}

TEST_F(OrphanFilesTest, FutureTimeIsRefused) {
  int64_t now = NowMillis();
  EXPECT_THAT(CheckOrphanOlderThan(now + 60000, now), IsError(StatusCode::kInvalid, "past"));
  EXPECT_THAT(CheckOrphanOlderThan(now, now), IsError(StatusCode::kInvalid, "past"));
  EXPECT_OK(CheckOrphanOlderThan(now - 1, now));
}

TEST_F(OrphanFilesTest, ReadErrorAbortsBeforeDeletingUnusedFiles) {
  // A manifest list that cannot be parsed (not missing): the clean-up fails, no candidate goes.
  std::set<std::string> before = FilesUnder(root_);
  std::string list;
  for (const std::string& f : in_use_) {
    if (f.rfind("manifest/manifest-list-", 0) == 0) list = f;
  }
  ASSERT_FALSE(list.empty());
  std::ofstream(root_ + "/" + list, std::ios::trunc) << "not avro";
  SetAge(root_ + "/" + list, std::chrono::hours(48));
  auto table = std::move(FileStoreTable::Open(root_)).value();
  auto r = CleanOrphanFiles(*table, OneDayAgo(), false);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(list), std::string::npos) << r.status().ToString();
  for (const std::string& o : orphans_) {
    if (o.rfind("snapshot/", 0) == 0 || o.rfind("changelog/", 0) == 0) continue;  // strays go first
    EXPECT_TRUE(fs::exists(root_ + "/" + o)) << o;
  }
}

TEST_F(OrphanFilesTest, RefusesTablesWithBranches) {
  fs::create_directories(root_ + "/branch/branch-b1/schema");
  auto table = std::move(FileStoreTable::Open(root_)).value();
  EXPECT_THAT(CleanOrphanFiles(*table, OneDayAgo(), false),
              IsError(StatusCode::kNotImplemented, "branch-b1"));
  for (const std::string& o : orphans_) EXPECT_TRUE(fs::exists(root_ + "/" + o)) << o;
}

TEST_F(OrphanFilesTest, CrashAtEveryStepLeavesAReadableTableAndARerunFinishes) {
  // Count the operations of a clean run on a copy.
  std::string pristine = dir_.Join("pristine");
  fs::copy(root_, pristine, fs::copy_options::recursive);
  int64_t total = 0;
  {
    auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
    auto table = std::move(FileStoreTable::Open(root_, faulty)).value();
    faulty->FailAt(0, FaultInjectionFileIO::Mode::kCrash);
    int64_t before = faulty->operations();
    ASSERT_OK(CleanOrphanFiles(*table, OneDayAgo(), false).status());
    total = faulty->operations() - before;
  }
  ASSERT_GT(total, 20);
  for (int64_t c = 1; c <= total; ++c) {
    SCOPED_TRACE("crash at operation " + std::to_string(c));
    fs::remove_all(root_);
    fs::copy(pristine, root_, fs::copy_options::recursive);
    AgeAll(root_, std::chrono::hours(48));
    {
      auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
      auto table = std::move(FileStoreTable::Open(root_, faulty)).value();
      faulty->FailAt(c, FaultInjectionFileIO::Mode::kCrash);
      (void)CleanOrphanFiles(*table, OneDayAgo(), false);
    }
    for (const std::string& f : in_use_) ASSERT_TRUE(fs::exists(root_ + "/" + f)) << f;
    ExpectTableReads();
    auto table = std::move(FileStoreTable::Open(root_)).value();
    ASSERT_OK(CleanOrphanFiles(*table, OneDayAgo(), false).status());
    ASSERT_EQ(FilesUnder(root_), Expected());
  }
}

}  // namespace
}  // namespace fjord
