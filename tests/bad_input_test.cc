// Corrupt tables give clear errors naming the file (and field), never a crash or partial rows.
#include <arrow/table.h>

#include <filesystem>
#include <fstream>

#include "fjord/file_io.h"
#include "fjord/table/file_store_table.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;

class BadInputTest : public ::testing::Test {
 protected:
  // A private copy of a Java-written fixture table that the test may damage.
  std::string CopyFixture(const std::string& rel) {
    fs::path src = fs::path(testing::FixturesDir()) / "paimon-java" / rel;
    fs::path dst = fs::path(dir_.path()) / src.filename();
    fs::copy(src, dst, fs::copy_options::recursive);
    return dst.string();
  }

  static std::vector<std::string> Files(const std::string& dir, const std::string& prefix) {
    std::vector<std::string> out;
    for (const auto& e : fs::directory_iterator(dir)) {
      if (e.path().filename().string().rfind(prefix, 0) == 0) out.push_back(e.path().string());
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  static std::string Slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  }
  static void Spit(const std::string& path, const std::string& data) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out << data;
  }

  static Result<ReadResult> ReadLatest(const std::string& table_dir) {
    FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(table_dir));
    return table->Read(ReadRequest{});
  }

  testing::TempDir dir_;
};

constexpr const char* kTable = "parquet/append_09.db/append_09";

TEST_F(BadInputTest, IntactCopyReads) {
  std::string t = CopyFixture(kTable);
  ASSERT_OK_AND_ASSIGN(ReadResult r, ReadLatest(t));
  EXPECT_EQ(r.rows->num_rows(), 11);
}

TEST_F(BadInputTest, TruncatedManifest) {
  std::string t = CopyFixture(kTable);
  for (const std::string& m : Files(t + "/manifest", "manifest-")) {
    if (m.find("manifest-list") != std::string::npos) continue;
    std::string data = Slurp(m);
    Spit(m, data.substr(0, data.size() / 2));
  }
  auto r = ReadLatest(t);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("/manifest/manifest-"), std::string::npos)
      << r.status().ToString();
}

TEST_F(BadInputTest, CorruptedAvroBlock) {
  std::string t = CopyFixture("parquet/pk_table_scan_and_read_mor.db/pk_table_scan_and_read_mor");
  std::string victim;
  for (const std::string& m : Files(t + "/manifest", "manifest-")) {
    if (m.find("manifest-list") == std::string::npos) victim = m;
  }
  ASSERT_FALSE(victim.empty());
  std::string data = Slurp(victim);
  ASSERT_EQ(data.substr(0, 4), std::string("Obj\x01", 4));
  // Flip bytes well inside the last (compressed) block, before its sync marker.
  for (size_t i = data.size() - 40; i < data.size() - 24; ++i)
    data[i] = static_cast<char>(~data[i]);
  Spit(victim, data);
  auto r = ReadLatest(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kCorruption) << r.status().ToString();
  EXPECT_NE(r.status().message().find(fs::path(victim).filename().string()), std::string::npos)
      << r.status().ToString();
}

TEST_F(BadInputTest, SnapshotWithWrongTypedField) {
  std::string t = CopyFixture(kTable);
  std::string snap = Files(t + "/snapshot", "snapshot-").back();
  std::string data = Slurp(snap);
  size_t pos = data.find("\"totalRecordCount\" : ");
  ASSERT_NE(pos, std::string::npos);
  size_t end = data.find(',', pos);
  data.replace(pos, end - pos, "\"totalRecordCount\" : \"eleven\"");
  Spit(snap, data);
  auto r = ReadLatest(t);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r, IsError(StatusCode::kCorruption, "field 'totalRecordCount' must be an integer"));
  EXPECT_NE(r.status().message().find(snap), std::string::npos) << r.status().ToString();
}

TEST_F(BadInputTest, MissingDataFile) {
  std::string t = CopyFixture(kTable);
  // A file the latest snapshot reads (files that a compaction replaced stay on disk).
  ASSERT_OK_AND_ASSIGN(auto table, FileStoreTable::Open(t));
  ASSERT_OK_AND_ASSIGN(ScanPlan plan, table->Plan(ScanSelector{}));
  ASSERT_FALSE(plan.splits.empty() || plan.splits[0].files.empty());
  std::string removed = plan.splits[0].bucket_path + "/" + plan.splits[0].files[0].file_name;
  ASSERT_TRUE(fs::path(removed).extension() == ".parquet") << removed;
  ASSERT_TRUE(fs::remove(removed)) << removed;
  auto r = ReadLatest(t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound) << r.status().ToString();
  EXPECT_NE(r.status().message().find(fs::path(removed).filename().string()), std::string::npos)
      << r.status().ToString();
}

TEST_F(BadInputTest, UnknownTypeString) {
  std::string t = CopyFixture(kTable);
  std::string schema = Files(t + "/schema", "schema-").back();
  std::string data = Slurp(schema);
  size_t pos = data.find("\"DOUBLE\"");
  ASSERT_NE(pos, std::string::npos);
  data.replace(pos, 8, "\"DOUBLE_TROUBLE\"");
  Spit(schema, data);
  auto r = FileStoreTable::Open(t);
  ASSERT_FALSE(r.ok());
  EXPECT_THAT(r, IsError(StatusCode::kCorruption, "unknown type 'DOUBLE_TROUBLE'"));
  EXPECT_NE(r.status().message().find(schema), std::string::npos) << r.status().ToString();
  EXPECT_NE(r.status().message().find("field 'f3'"), std::string::npos) << r.status().ToString();
}

TEST_F(BadInputTest, TruncatedDataFile) {
  std::string t = CopyFixture(kTable);
  for (const auto& e : fs::recursive_directory_iterator(t)) {
    if (e.path().extension() == ".parquet") {
      std::string data = Slurp(e.path().string());
      Spit(e.path().string(), data.substr(0, data.size() - 10));
    }
  }
  auto r = ReadLatest(t);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(".parquet"), std::string::npos) << r.status().ToString();
}

TEST_F(BadInputTest, NotATable) {
  EXPECT_THAT(FileStoreTable::Open(dir_.path()),
              IsError(StatusCode::kNotFound, "not a Paimon table"));
}

}  // namespace
}  // namespace fjord
