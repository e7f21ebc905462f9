// FileIO on S3, against a loopback S3 server (tests/s3/with_moto.sh starts it).
#include <arrow/io/interfaces.h>
#include <arrow/result.h>

#include <cstdlib>

#include "fjord/file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* endpoint = std::getenv("FJORD_TEST_S3_ENDPOINT");
    ASSERT_NE(endpoint, nullptr) << "run through tests/s3/with_moto.sh";
    std::map<std::string, std::string> options = {{"s3.endpoint", endpoint},
                                                  {"s3.access-key", "testing"},
                                                  {"s3.secret-key", "testing"},
                                                  {"s3.region", "us-east-1"},
                                                  {"s3.path-style-access", "true"},
                                                  {"s3.allow-bucket-creation", "true"}};
    ASSERT_OK_AND_ASSIGN(io_, FileIO::Open("s3://fjord-test/warehouse", options));
    ASSERT_OK(io_->MakeDirs("s3://fjord-test/warehouse"));
  }
  std::shared_ptr<FileIO> io_;
};

TEST_F(S3FileIOTest, WriteReadListDelete) {
  EXPECT_TRUE(io_->IsObjectStore());
  std::string f = "s3://fjord-test/warehouse/db.db/t/bucket-0/data-1.parquet";
  ASSERT_OK(io_->WriteFile(f, "parquet bytes"));
  ASSERT_OK_AND_ASSIGN(std::string data, io_->ReadFile(f));
  EXPECT_EQ(data, "parquet bytes");
  ASSERT_OK_AND_ASSIGN(FileStatus st, io_->GetStatus(f));
  EXPECT_EQ(st.size, 13);
  ASSERT_OK(io_->WriteFile("s3://fjord-test/warehouse/db.db/t/bucket-0/data-0.parquet", "x"));
  ASSERT_OK_AND_ASSIGN(auto list, io_->List("s3://fjord-test/warehouse/db.db/t/bucket-0"));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].path, "s3://fjord-test/warehouse/db.db/t/bucket-0/data-0.parquet");
  EXPECT_EQ(list[1].path, f);
  ASSERT_OK(io_->Delete(f));
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists(f));
  EXPECT_FALSE(exists);
  EXPECT_THAT(io_->ReadFile(f), HasStatusCode(StatusCode::kNotFound));
  ASSERT_OK_AND_ASSIGN(auto none, io_->List("s3://fjord-test/warehouse/nothing-here"));
  EXPECT_TRUE(none.empty());
}

TEST_F(S3FileIOTest, CreateIfAbsentRefusesExisting) {
  std::string snap = "s3://fjord-test/warehouse/db.db/t/snapshot/snapshot-1";
  ASSERT_OK(io_->CreateIfAbsent(snap, "{}"));
  EXPECT_THAT(io_->CreateIfAbsent(snap, "{\"x\":1}"), HasStatusCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(*io_->ReadFile(snap), "{}");
  ASSERT_OK(io_->Overwrite("s3://fjord-test/warehouse/db.db/t/snapshot/LATEST", "1"));
  ASSERT_OK(io_->Overwrite("s3://fjord-test/warehouse/db.db/t/snapshot/LATEST", "2"));
  EXPECT_EQ(*io_->ReadFile("s3://fjord-test/warehouse/db.db/t/snapshot/LATEST"), "2");
}

TEST_F(S3FileIOTest, ArrowStreams) {
  std::string f = "s3://fjord-test/warehouse/stream.bin";
  ASSERT_OK(io_->WriteFile(f, std::string(100000, 'z')));
  ASSERT_OK_AND_ASSIGN(auto in, io_->OpenInput(f));
  EXPECT_EQ(in->GetSize().ValueOrDie(), 100000);
}

class ShutdownEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { FileIO::ShutdownFileSystems(); }
};
const auto* const kShutdown = ::testing::AddGlobalTestEnvironment(new ShutdownEnvironment);

}  // namespace
}  // namespace fjord
