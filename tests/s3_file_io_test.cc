// FileIO on S3, against a loopback S3 server (tests/s3/with_moto.sh starts it).
#include <arrow/io/interfaces.h>
#include <arrow/result.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <barrier>
#include <cstdio>
#include <cstdlib>
#include <thread>

#include "fjord/common/ids.h"
#include "fjord/file_io.h"
#include "fjord/io/s3_client.h"
#include "fjord/lock.h"
#include "fjord/testing/test_util.h"

extern char** environ;

namespace fjord {
namespace {

using std::chrono::milliseconds;

std::string Env(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v ? v : fallback;
}

// The options of every S3 FileIO here; `extra` adds or replaces some.
std::map<std::string, std::string> MotoOptions(std::map<std::string, std::string> extra = {}) {
  std::map<std::string, std::string> options = {
      {"s3.endpoint", Env("FJORD_TEST_S3_ENDPOINT", "")},
      {"s3.access-key", Env("FJORD_TEST_S3_ACCESS_KEY", "testing")},
      {"s3.secret-key", Env("FJORD_TEST_S3_SECRET_KEY", "testing")},
      {"s3.region", "us-east-1"},
      {"s3.path-style-access", "true"},
      {"s3.allow-bucket-creation", "true"}};
  for (auto& [k, v] : extra) options[k] = v;
  return options;
}

class S3FileIOTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(std::getenv("FJORD_TEST_S3_ENDPOINT"), nullptr)
        << "run through tests/s3/with_moto.sh";
    ASSERT_OK_AND_ASSIGN(io_, FileIO::Open("s3://fjord-test/warehouse", MotoOptions()));
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

// ---- create-if-absent mechanisms (fjord.s3.create-if-absent) --------------------------------

// The conditional put itself, without the FileIO's HEAD in front: the store refuses the second.
TEST_F(S3FileIOTest, StoreDecidesConditionalPut) {
  std::string endpoint = Env("FJORD_TEST_S3_ENDPOINT", "");
  s3::ClientOptions options;
  options.scheme = "http";
  options.endpoint = endpoint.substr(endpoint.find("://") + 3);
  options.credentials = [] {
    return s3::Credentials{Env("FJORD_TEST_S3_ACCESS_KEY", "testing"),
                           Env("FJORD_TEST_S3_SECRET_KEY", "testing"), ""};
  };
  ASSERT_OK_AND_ASSIGN(auto client, s3::Client::Make(options));
  std::string key = "warehouse/conditional/" + RandomUuid() + "/a b+c";  // needs encoding
  ASSERT_OK(client->PutIfAbsent("fjord-test", key, "first"));
  EXPECT_THAT(client->PutIfAbsent("fjord-test", key, "second"),
              IsError(StatusCode::kAlreadyExists, "s3://fjord-test/" + key));
  EXPECT_EQ(*io_->ReadFile("s3://fjord-test/" + key), "first");
  // An empty object is an object too.
  ASSERT_OK(client->PutIfAbsent("fjord-test", key + "-empty", ""));
  EXPECT_THAT(client->PutIfAbsent("fjord-test", key + "-empty", ""),
              HasStatusCode(StatusCode::kAlreadyExists));
  // Other failures carry the HTTP status and the store's error code.
  EXPECT_THAT(client->PutIfAbsent("no-such-bucket-fjord", "k", "x"),
              IsError(StatusCode::kIOError, "HTTP 404: NoSuchBucket"));
}

TEST_F(S3FileIOTest, BadMechanismOptions) {
  EXPECT_THAT(
      FileIO::Open("s3://fjord-test/w", MotoOptions({{"fjord.s3.create-if-absent", "cas"}})),
      IsError(StatusCode::kInvalid, "fjord.s3.create-if-absent"));
  EXPECT_THAT(FileIO::Open("s3://fjord-test/w", MotoOptions({{"fjord.s3.create-if-absent", "lock"},
                                                             {"fjord.s3.lock-timeout", "soon"}})),
              IsError(StatusCode::kInvalid, "fjord.s3.lock-timeout"));
}

// Under the lock mode, a creator waits for whoever holds the folder's lock, here the test.
TEST_F(S3FileIOTest, LockModeWaitsForTheHolder) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(auto io, FileIO::Open("s3://fjord-test/w",
                                             MotoOptions({{"fjord.s3.create-if-absent", "lock"},
                                                          {"fjord.s3.lock-dir", dir.path()},
                                                          {"fjord.s3.lock-timeout", "200 ms"}})));
  std::string folder = "s3://fjord-test/warehouse/locked-" + RandomUuid();
  ASSERT_OK_AND_ASSIGN(auto lock, MakeFileLock(dir.path()));
  ASSERT_OK_AND_ASSIGN(auto held, lock->Acquire(folder, milliseconds(0)));
  EXPECT_THAT(io->CreateIfAbsent(folder + "/snapshot-1", "x"),
              IsError(StatusCode::kIOError, "not acquired within 200 ms"));
  ASSERT_OK_AND_ASSIGN(bool exists, io->Exists(folder + "/snapshot-1"));
  EXPECT_FALSE(exists);
  held.reset();
  ASSERT_OK(io->CreateIfAbsent(folder + "/snapshot-1", "x"));
  EXPECT_THAT(io->CreateIfAbsent(folder + "/snapshot-1", "y"),
              HasStatusCode(StatusCode::kAlreadyExists));
  // A Lock given to Open replaces the file lock.
  ASSERT_OK_AND_ASSIGN(auto io2, FileIO::Open("s3://fjord-test/w",
                                              MotoOptions({{"fjord.s3.create-if-absent", "lock"},
                                                           {"fjord.s3.lock-timeout", "100 ms"}}),
                                              lock));
  ASSERT_OK_AND_ASSIGN(held, lock->Acquire(folder, milliseconds(0)));
  EXPECT_THAT(io2->CreateIfAbsent(folder + "/snapshot-2", "x"),
              IsError(StatusCode::kIOError, dir.path()));
}

TEST_F(S3FileIOTest, UnsafeModeStillChecks) {
  ASSERT_OK_AND_ASSIGN(
      auto io,
      FileIO::Open("s3://fjord-test/w", MotoOptions({{"fjord.s3.create-if-absent", "unsafe"}})));
  std::string f = "s3://fjord-test/warehouse/unsafe-" + RandomUuid();
  ASSERT_OK(io->CreateIfAbsent(f, "a"));
  EXPECT_THAT(io->CreateIfAbsent(f, "b"), HasStatusCode(StatusCode::kAlreadyExists));
  EXPECT_EQ(*io->ReadFile(f), "a");
}

// Racing creators of one object, for each mechanism that promises exactly one winner.
class CreateRaceTest : public S3FileIOTest, public ::testing::WithParamInterface<std::string> {
 protected:
  std::map<std::string, std::string> RaceOptions() {
    return MotoOptions(
        {{"fjord.s3.create-if-absent", GetParam()}, {"fjord.s3.lock-dir", locks_.path()}});
  }
  // Checks one round: exactly one "won", everybody else "exists", and the object holds the
  // winner's bytes.
  void CheckRound(const std::string& path, const std::vector<std::string>& outcomes,
                  const std::string& content_prefix) {
    int winner = -1, winners = 0;
    for (size_t i = 0; i < outcomes.size(); ++i) {
      if (outcomes[i] == "won") {
        winner = static_cast<int>(i);
        ++winners;
      } else {
        EXPECT_EQ(outcomes[i], "exists") << "contender " << i << " of " << path;
      }
    }
    ASSERT_EQ(winners, 1) << path;
    EXPECT_EQ(*io_->ReadFile(path), content_prefix + std::to_string(winner)) << path;
  }
  testing::TempDir locks_;
};

TEST_P(CreateRaceTest, Threads) {
  constexpr int kThreads = 8, kRounds = 10;
  std::vector<std::shared_ptr<FileIO>> ios;
  for (int t = 0; t < kThreads; ++t) {
    ASSERT_OK_AND_ASSIGN(auto io, FileIO::Open("s3://fjord-test/w", RaceOptions()));
    ios.push_back(io);
  }
  std::string dir = "s3://fjord-test/warehouse/race-threads-" + RandomUuid();
  std::vector<std::vector<std::string>> outcomes(kRounds, std::vector<std::string>(kThreads));
  std::barrier start(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int r = 0; r < kRounds; ++r) {
        start.arrive_and_wait();
        Status st = ios[t]->CreateIfAbsent(dir + "/snapshot-" + std::to_string(r),
                                           "thread-" + std::to_string(t));
        outcomes[r][t] = st.ok()                                   ? "won"
                         : st.code() == StatusCode::kAlreadyExists ? "exists"
                                                                   : st.ToString();
      }
    });
  }
  for (auto& t : threads) t.join();
  for (int r = 0; r < kRounds; ++r) {
    CheckRound(dir + "/snapshot-" + std::to_string(r), outcomes[r], "thread-");
  }
}

// One contender process (tests/s3/create_if_absent_main.cc), started but held at the gate.
struct Contender {
  pid_t pid = -1;
  int gate = -1;        // its stdin: closing it starts the race
  FILE* out = nullptr;  // its stdout
};

Contender Spawn(const std::vector<std::string>& args) {
  int in[2], out[2];
  Contender c;
  if (::pipe2(in, O_CLOEXEC) != 0 || ::pipe2(out, O_CLOEXEC) != 0) return c;
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  if (posix_spawn(&c.pid, argv[0], &actions, nullptr, argv.data(), environ) != 0) c.pid = -1;
  posix_spawn_file_actions_destroy(&actions);
  ::close(in[0]);
  ::close(out[1]);
  c.gate = in[1];
  c.out = ::fdopen(out[0], "r");
  return c;
}

std::string ReadLine(FILE* f) {
  char buf[4096];
  if (std::fgets(buf, sizeof(buf), f) == nullptr) return "(no output)";
  std::string line(buf);
  while (!line.empty() && line.back() == '\n') line.pop_back();
  return line;
}

TEST_P(CreateRaceTest, Processes) {
  constexpr int kProcesses = 6, kRounds = 3;
  std::string dir = "s3://fjord-test/warehouse/race-processes-" + RandomUuid();
  for (int r = 0; r < kRounds; ++r) {
    std::string path = dir + "/snapshot-" + std::to_string(r);
    std::vector<Contender> contenders;
    for (int p = 0; p < kProcesses; ++p) {
      contenders.push_back(
          Spawn({FJORD_S3_CREATE_HELPER, Env("FJORD_TEST_S3_ENDPOINT", ""), GetParam(),
                 locks_.path(), path, "process-" + std::to_string(p)}));
      ASSERT_GT(contenders.back().pid, 0);
    }
    for (auto& c : contenders) ASSERT_EQ(ReadLine(c.out), "ready");
    for (auto& c : contenders) ::close(c.gate);  // go
    std::vector<std::string> outcomes;
    for (auto& c : contenders) {
      outcomes.push_back(ReadLine(c.out));
      std::fclose(c.out);
      int status = 0;
      ::waitpid(c.pid, &status, 0);
      EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CheckRound(path, outcomes, "process-");
  }
}

INSTANTIATE_TEST_SUITE_P(Mechanisms, CreateRaceTest, ::testing::Values("conditional-put", "lock"),
                         [](const auto& info) {
                           return info.param == "lock" ? std::string("Lock")
                                                       : std::string("ConditionalPut");
                         });

// With FJORD_TEST_S3_AUTH=1 (ctest io.s3_moto_auth) the server checks every signature, so every
// test above also proves that Arrow's and our requests are signed right; this one shows that a
// bad signature is refused, not ignored.
TEST_F(S3FileIOTest, BadSignatureIsRefused) {
  if (Env("FJORD_TEST_S3_AUTH", "0") != "1") GTEST_SKIP() << "the server does not check signatures";
  std::string endpoint = Env("FJORD_TEST_S3_ENDPOINT", "");
  s3::ClientOptions options;
  options.scheme = "http";
  options.endpoint = endpoint.substr(endpoint.find("://") + 3);
  options.credentials = [] {
    return s3::Credentials{Env("FJORD_TEST_S3_ACCESS_KEY", ""), "not-the-secret", ""};
  };
  ASSERT_OK_AND_ASSIGN(auto client, s3::Client::Make(options));
  EXPECT_THAT(client->PutIfAbsent("fjord-test", "warehouse/forged", "x"),
              IsError(StatusCode::kIOError, "HTTP 403: SignatureDoesNotMatch"));
  ASSERT_OK_AND_ASSIGN(bool exists, io_->Exists("s3://fjord-test/warehouse/forged"));
  EXPECT_FALSE(exists);
}

class ShutdownEnvironment : public ::testing::Environment {
 public:
  void TearDown() override { FileIO::ShutdownFileSystems(); }
};
const auto* const kShutdown = ::testing::AddGlobalTestEnvironment(new ShutdownEnvironment);

}  // namespace
}  // namespace fjord
