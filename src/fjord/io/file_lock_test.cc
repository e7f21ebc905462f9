#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <thread>

#include "fjord/lock.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using std::chrono::milliseconds;
using testing::TempDir;
using Clock = std::chrono::steady_clock;

// Runs `body` in a forked child and returns its pid; the child exits with body's return value.
// Children touch only the lock and plain files, so forking a test binary is safe here.
template <typename F>
pid_t Fork(F body) {
  pid_t pid = ::fork();
  if (pid == 0) ::_exit(body());
  return pid;
}

int WaitExit(pid_t pid) {
  int status = 0;
  ::waitpid(pid, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(FileLockTest, ExcludesThreads) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Lock> lock, MakeFileLock(dir.Join("locks")));
  std::atomic<int> inside{0};
  std::atomic<bool> overlap{false};
  int counter = 0;  // guarded by the lock alone
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int i = 0; i < 50; ++i) {
        auto guard = lock->Acquire("s3://bkt/t/snapshot", milliseconds(10000));
        ASSERT_TRUE(guard.ok()) << guard.status().ToString();
        if (inside.fetch_add(1) != 0) overlap = true;
        int seen = counter;
        std::this_thread::yield();
        counter = seen + 1;
        inside.fetch_sub(1);
      }
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_FALSE(overlap.load());
  EXPECT_EQ(counter, 400);
}

TEST(FileLockTest, NamesAreIndependent) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Lock> lock, MakeFileLock(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto a, lock->Acquire("s3://b/x/y", milliseconds(0)));
  // Same readable tail once sanitised, still a different lock.
  ASSERT_OK_AND_ASSIGN(auto b, lock->Acquire("s3://b/x_y", milliseconds(0)));
  ASSERT_OK_AND_ASSIGN(auto c,
                       lock->Acquire(std::string(500, 'n') + "/odd name\n", milliseconds(0)));
  EXPECT_THAT(lock->Acquire("s3://b/x/y", milliseconds(0)),
              IsError(StatusCode::kIOError, "not acquired within 0 ms"));
  a.reset();
  ASSERT_OK_AND_ASSIGN(a, lock->Acquire("s3://b/x/y", milliseconds(0)));
  EXPECT_NE(lock->Describe().find(dir.path()), std::string::npos);
}

TEST(FileLockTest, TimesOutWhileHeld) {
  TempDir dir;
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Lock> lock, MakeFileLock(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto held, lock->Acquire("t", milliseconds(0)));
  auto start = Clock::now();
  EXPECT_THAT(lock->Acquire("t", milliseconds(150)),
              IsError(StatusCode::kIOError, "'t' (" + dir.path()));
  EXPECT_GE(Clock::now() - start, milliseconds(150));
  // A waiter gets the lock soon after the holder lets go.
  std::thread release([&] {
    std::this_thread::sleep_for(milliseconds(100));
    held.reset();
  });
  start = Clock::now();
  ASSERT_OK_AND_ASSIGN(auto next, lock->Acquire("t", milliseconds(10000)));
  EXPECT_GE(Clock::now() - start, milliseconds(90));
  EXPECT_LT(Clock::now() - start, milliseconds(2000));
  release.join();
}

TEST(FileLockTest, BadDirectory) {
  TempDir dir;
  std::ofstream(dir.Join("file")) << "x";
  EXPECT_THAT(MakeFileLock(dir.Join("file/sub")), HasStatusCode(StatusCode::kIOError));
  EXPECT_THAT(MakeFileLock(""), HasStatusCode(StatusCode::kInvalid));
}

// Processes that increment a counter in a plain file under the lock lose no increment.
TEST(FileLockTest, ProcessesSerialize) {
  TempDir dir;
  std::string counter = dir.Join("counter");
  std::ofstream(counter) << 0;
  constexpr int kProcesses = 6, kRounds = 100;
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcesses; ++p) {
    pids.push_back(Fork([&] {
      auto lock = MakeFileLock(dir.Join("locks"));
      if (!lock.ok()) return 2;
      for (int i = 0; i < kRounds; ++i) {
        auto guard = (*lock)->Acquire("counter", milliseconds(30000));
        if (!guard.ok()) return 3;
        int value = 0;
        std::ifstream(counter) >> value;
        std::ofstream(counter, std::ios::trunc) << value + 1;
      }
      return 0;
    }));
  }
  for (pid_t pid : pids) EXPECT_EQ(WaitExit(pid), 0);
  int value = 0;
  std::ifstream(counter) >> value;
  EXPECT_EQ(value, kProcesses * kRounds);
}

// A child process holds the lock: the parent waits until the child lets go.
TEST(FileLockTest, ChildProcessHoldsLock) {
  TempDir dir;
  int held[2], go[2];
  ASSERT_EQ(::pipe(held), 0);
  ASSERT_EQ(::pipe(go), 0);
  pid_t child = Fork([&] {
    auto lock = MakeFileLock(dir.path());
    if (!lock.ok()) return 2;
    auto guard = (*lock)->Acquire("table", milliseconds(5000));
    if (!guard.ok()) return 3;
    char c = 'h';
    if (::write(held[1], &c, 1) != 1) return 4;
    if (::read(go[0], &c, 1) != 1) return 5;
    std::this_thread::sleep_for(milliseconds(300));
    return 0;  // exiting releases
  });
  char c;
  ASSERT_EQ(::read(held[0], &c, 1), 1);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Lock> lock, MakeFileLock(dir.path()));
  EXPECT_THAT(lock->Acquire("table", milliseconds(100)), HasStatusCode(StatusCode::kIOError));
  ASSERT_EQ(::write(go[1], &c, 1), 1);
  auto start = Clock::now();
  ASSERT_OK_AND_ASSIGN(auto guard, lock->Acquire("table", milliseconds(10000)));
  EXPECT_GE(Clock::now() - start, milliseconds(250));
  EXPECT_EQ(WaitExit(child), 0);
  for (int fd : {held[0], held[1], go[0], go[1]}) ::close(fd);
}

// A holder killed with SIGKILL leaves no stale lock behind.
TEST(FileLockTest, KilledHolderReleases) {
  TempDir dir;
  int held[2];
  ASSERT_EQ(::pipe(held), 0);
  pid_t child = Fork([&] {
    auto lock = MakeFileLock(dir.path());
    if (!lock.ok()) return 2;
    auto guard = (*lock)->Acquire("table", milliseconds(5000));
    if (!guard.ok()) return 3;
    char c = 'h';
    if (::write(held[1], &c, 1) != 1) return 4;
    while (true) ::pause();
  });
  char c;
  ASSERT_EQ(::read(held[0], &c, 1), 1);
  ASSERT_OK_AND_ASSIGN(std::shared_ptr<Lock> lock, MakeFileLock(dir.path()));
  EXPECT_THAT(lock->Acquire("table", milliseconds(50)), HasStatusCode(StatusCode::kIOError));
  ASSERT_EQ(::kill(child, SIGKILL), 0);
  EXPECT_EQ(WaitExit(child), 128 + SIGKILL);
  ASSERT_OK_AND_ASSIGN(auto guard, lock->Acquire("table", milliseconds(1000)));
  ::close(held[0]);
  ::close(held[1]);
}

}  // namespace
}  // namespace fjord
