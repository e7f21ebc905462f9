#include "fjord/io/fault_injection_file_io.h"

#include <arrow/io/interfaces.h>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

TEST(FaultInjectionFileIOTest, FailOnceThenRecover) {
  TempDir dir;
  auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
  io->FailAt(2, FaultInjectionFileIO::Mode::kFail);
  ASSERT_OK(io->WriteFile(dir.Join("a"), "a"));
  EXPECT_THAT(io->WriteFile(dir.Join("b"), "b"), IsError(StatusCode::kIOError, "injected failure"));
  ASSERT_OK_AND_ASSIGN(bool exists, FileIO::Local()->Exists(dir.Join("b")));
  EXPECT_FALSE(exists);
  ASSERT_OK(io->WriteFile(dir.Join("c"), "c"));
  EXPECT_FALSE(io->crashed());
  EXPECT_EQ(io->operations(), 3);
  EXPECT_EQ(io->log().size(), 3u);
}

TEST(FaultInjectionFileIOTest, CrashStopsEverythingAndTearsWrites) {
  TempDir dir;
  auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
  io->FailAt(1, FaultInjectionFileIO::Mode::kCrash);
  EXPECT_THAT(io->WriteFile(dir.Join("data"), "0123456789"),
              IsError(StatusCode::kIOError, "injected crash"));
  EXPECT_TRUE(io->crashed());
  EXPECT_THAT(io->ReadFile(dir.Join("data")), HasStatusCode(StatusCode::kIOError));
  // The torn file is there, half written, as a dying process would leave it.
  EXPECT_EQ(*FileIO::Local()->ReadFile(dir.Join("data")), "01234");
}

TEST(FaultInjectionFileIOTest, CrashedCreateLeavesNoTarget) {
  TempDir dir;
  auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
  io->FailAt(1, FaultInjectionFileIO::Mode::kCrash);
  EXPECT_FALSE(io->CreateIfAbsent(dir.Join("snapshot-1"), "{}").ok());
  ASSERT_OK_AND_ASSIGN(bool exists, FileIO::Local()->Exists(dir.Join("snapshot-1")));
  EXPECT_FALSE(exists);
  ASSERT_OK_AND_ASSIGN(auto list, FileIO::Local()->List(dir.path()));
  ASSERT_EQ(list.size(), 1u);  // only the hidden temp file
  EXPECT_EQ(BaseName(list[0].path).rfind(".snapshot-1.", 0), 0u);
}

TEST(FaultInjectionFileIOTest, StreamWritesCount) {
  TempDir dir;
  auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
  io->FailAt(3, FaultInjectionFileIO::Mode::kCrash);  // open, write, [write]
  ASSERT_OK_AND_ASSIGN(auto out, io->OpenOutput(dir.Join("f")));
  ASSERT_TRUE(out->Write("abcd", 4).ok());
  EXPECT_FALSE(out->Write("efgh", 4).ok());
  EXPECT_FALSE(out->Close().ok());
  EXPECT_TRUE(io->crashed());
}

TEST(FaultInjectionFileIOTest, EveryOperationCanBeChosen) {
  // Enumerate all crash points of a small sequence; each must fail exactly at its operation.
  TempDir dir;
  auto run = [&](FaultInjectionFileIO* io) -> Status {
    FJORD_RETURN_NOT_OK(io->MakeDirs(dir.Join("m")));
    FJORD_RETURN_NOT_OK(io->WriteFile(dir.Join("m/x"), "x"));
    FJORD_RETURN_NOT_OK(io->CreateIfAbsent(dir.Join("m/y"), "y"));
    FJORD_RETURN_NOT_OK(io->Overwrite(dir.Join("m/LATEST"), "1"));
    return Status::OK();
  };
  for (int n = 1; n <= 4; ++n) {
    auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
    io->FailAt(n, FaultInjectionFileIO::Mode::kCrash);
    EXPECT_FALSE(run(io.get()).ok()) << n;
    EXPECT_EQ(io->operations(), n);
    ASSERT_OK(FileIO::Local()->DeleteDirRecursive(dir.Join("m")));
  }
  auto io = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
  io->FailAt(5, FaultInjectionFileIO::Mode::kCrash);
  EXPECT_OK(run(io.get()));
}

}  // namespace
}  // namespace fjord
