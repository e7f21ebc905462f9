#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "fjord/file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

TEST(PathTest, JoinBaseParent) {
  EXPECT_EQ(JoinPath("/a/b", "c"), "/a/b/c");
  EXPECT_EQ(JoinPath("/a/b/", "/c"), "/a/b/c");
  EXPECT_EQ(JoinPath("", "c"), "c");
  EXPECT_EQ(BaseName("/a/b/c"), "c");
  EXPECT_EQ(BaseName("s3://bkt/x/y/"), "y");
  EXPECT_EQ(ParentPath("/a/b/c"), "/a/b");
  EXPECT_EQ(ParentPath("/a"), "/");
  EXPECT_EQ(ParentPath("a"), "");
}

TEST(LocalFileIOTest, WriteReadListDelete) {
  TempDir dir;
  auto io = FileIO::Local();
  std::string f = dir.Join("sub/dir/file.txt");
  ASSERT_OK(io->WriteFile(f, "hello"));
  ASSERT_OK_AND_ASSIGN(std::string data, io->ReadFile(f));
  EXPECT_EQ(data, "hello");
  ASSERT_OK_AND_ASSIGN(FileStatus st, io->GetStatus(f));
  EXPECT_EQ(st.size, 5);
  EXPECT_FALSE(st.is_dir);
  ASSERT_OK(io->WriteFile(dir.Join("sub/dir/a"), ""));
  ASSERT_OK_AND_ASSIGN(auto list, io->List(dir.Join("sub/dir")));
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].path, dir.Join("sub/dir/a"));
  EXPECT_EQ(list[1].path, f);
  ASSERT_OK_AND_ASSIGN(auto missing_list, io->List(dir.Join("nope")));
  EXPECT_TRUE(missing_list.empty());
  ASSERT_OK(io->Delete(f));
  ASSERT_OK(io->Delete(f));  // deleting a missing file is fine
  ASSERT_OK_AND_ASSIGN(bool exists, io->Exists(f));
  EXPECT_FALSE(exists);
  EXPECT_THAT(io->ReadFile(f), IsError(StatusCode::kNotFound, f));
  EXPECT_THAT(io->GetStatus(f), HasStatusCode(StatusCode::kNotFound));
  ASSERT_OK(io->DeleteDirRecursive(dir.Join("sub")));
  ASSERT_OK_AND_ASSIGN(exists, io->Exists(dir.Join("sub")));
  EXPECT_FALSE(exists);
}

TEST(LocalFileIOTest, CreateIfAbsentPublishesOnce) {
  TempDir dir;
  auto io = FileIO::Local();
  std::string f = dir.Join("snapshot/snapshot-1");
  ASSERT_OK(io->CreateIfAbsent(f, "first"));
  EXPECT_THAT(io->CreateIfAbsent(f, "second"), IsError(StatusCode::kAlreadyExists, f));
  ASSERT_OK_AND_ASSIGN(std::string data, io->ReadFile(f));
  EXPECT_EQ(data, "first");
  // No temp files are left behind, win or lose.
  ASSERT_OK_AND_ASSIGN(auto list, io->List(dir.Join("snapshot")));
  ASSERT_EQ(list.size(), 1u);
}

TEST(LocalFileIOTest, RacingThreadsExactlyOneWins) {
  TempDir dir;
  auto io = FileIO::Local();
  for (int round = 0; round < 20; ++round) {
    std::string f = dir.Join("snapshot-" + std::to_string(round));
    std::atomic<int> wins{0}, exists{0}, other{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 8; ++t) {
      threads.emplace_back([&, t] {
        Status st = io->CreateIfAbsent(f, "writer-" + std::to_string(t));
        if (st.ok()) {
          ++wins;
        } else if (st.IsAlreadyExists()) {
          ++exists;
        } else {
          ++other;
        }
      });
    }
    for (auto& th : threads) th.join();
    EXPECT_EQ(wins.load(), 1);
    EXPECT_EQ(exists.load(), 7);
    EXPECT_EQ(other.load(), 0);
    ASSERT_OK_AND_ASSIGN(std::string data, io->ReadFile(f));
    EXPECT_EQ(data.rfind("writer-", 0), 0u);
  }
  ASSERT_OK_AND_ASSIGN(auto list, io->List(dir.path()));
  EXPECT_EQ(list.size(), 20u);  // no temp files
}

TEST(LocalFileIOTest, RacingProcessesExactlyOneWins) {
  TempDir dir;
  std::string f = dir.Join("snapshot-1");
  constexpr int kProcs = 6;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      Status st = FileIO::Local()->CreateIfAbsent(f, "proc-" + std::to_string(p));
      ::_exit(st.ok() ? 0 : (st.IsAlreadyExists() ? 1 : 2));
    }
    pids.push_back(pid);
  }
  int winners = 0, losers = 0;
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFEXITED(status));
    if (WEXITSTATUS(status) == 0) ++winners;
    if (WEXITSTATUS(status) == 1) ++losers;
  }
  EXPECT_EQ(winners, 1);
  EXPECT_EQ(losers, kProcs - 1);
}

TEST(LocalFileIOTest, OverwriteAndRename) {
  TempDir dir;
  auto io = FileIO::Local();
  std::string hint = dir.Join("LATEST");
  ASSERT_OK(io->Overwrite(hint, "1"));
  ASSERT_OK(io->Overwrite(hint, "2"));
  EXPECT_EQ(*io->ReadFile(hint), "2");
  ASSERT_OK(io->WriteFile(dir.Join("x"), "x"));
  EXPECT_THAT(io->Rename(dir.Join("x"), hint), HasStatusCode(StatusCode::kAlreadyExists));
  ASSERT_OK(io->Rename(dir.Join("x"), dir.Join("y")));
  EXPECT_EQ(*io->ReadFile(dir.Join("y")), "x");
}

TEST(LocalFileIOTest, OverwriteCreatesParentsAndLeavesNoTempFile) {
  TempDir dir;
  auto io = FileIO::Local();
  std::string f = dir.Join("consumer/consumer-a");
  ASSERT_OK(io->Overwrite(f, "one"));
  ASSERT_OK(io->Overwrite(f, "two"));
  EXPECT_EQ(*io->ReadFile(f), "two");
  ASSERT_OK_AND_ASSIGN(auto list, io->List(dir.Join("consumer")));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].path, f);
}

TEST(LocalFileIOTest, ModificationTimes) {
  TempDir dir;
  auto io = FileIO::Local();
  std::string f = dir.Join("f");
  ASSERT_OK(io->WriteFile(f, "x"));
  const int64_t now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                             std::chrono::system_clock::now().time_since_epoch())
                             .count();
  ASSERT_OK_AND_ASSIGN(FileStatus st, io->GetStatus(f));
  EXPECT_NEAR(static_cast<double>(st.mtime_millis), static_cast<double>(now_ms), 60000.0);
  // Set an old time: GetStatus and List both report it, to the millisecond.
  const std::filesystem::file_time_type old_time =
      std::filesystem::file_time_type::clock::now() - std::chrono::hours(48);
  std::filesystem::last_write_time(f, old_time);
  ASSERT_OK_AND_ASSIGN(st, io->GetStatus(f));
  ASSERT_OK_AND_ASSIGN(auto list, io->List(dir.path()));
  ASSERT_EQ(list.size(), 1u);
  EXPECT_EQ(list[0].mtime_millis, st.mtime_millis);
  EXPECT_NEAR(static_cast<double>(st.mtime_millis),
              static_cast<double>(now_ms - 48LL * 3600 * 1000), 60000.0);
}

TEST(LocalFileIOTest, FileUriAndUnknownScheme) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto io, FileIO::Open("file://" + dir.path()));
  ASSERT_OK(io->WriteFile("file://" + dir.Join("f"), "z"));
  EXPECT_EQ(*FileIO::Local()->ReadFile(dir.Join("f")), "z");
  EXPECT_THAT(FileIO::Open("hdfs://nn/x"), IsError(StatusCode::kNotImplemented, "hdfs://nn/x"));
}

}  // namespace
}  // namespace fjord
