// Concurrent committers on one table (issue 5, point 3): threads of this process and `fjord
// write` processes race for snapshot ids; every commit must land exactly once, ids contiguous,
// rows the union. Also the retry loop itself: lost races rebuild the base list from the new
// latest snapshot and reuse the delta manifests, backoff and give-up limits, and a snapshot
// whose creation reported an error but happened is not committed twice.
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "commit_test_util.h"
#include "fjord/common/ids.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/meta/manifest.h"

namespace fjord {
namespace {

using commit_test::CreateTable;
using commit_test::Prepare;
using commit_test::Range;
using commit_test::ReadIds;
using commit_test::Rows;

// Counts the files in the table's manifest/ directory: manifests and manifest lists.
std::pair<int, int> CountManifestFiles(const std::string& table) {
  int manifests = 0, lists = 0;
  for (const auto& e : std::filesystem::directory_iterator(table + "/manifest")) {
    std::string name = e.path().filename().string();
    if (name.rfind("manifest-list-", 0) == 0) {
      ++lists;
    } else if (name.rfind("manifest-", 0) == 0) {
      ++manifests;
    }
  }
  return {manifests, lists};
}

TEST(CommitConcurrencyTest, ThreadsAndProcessesCommitEveryCommitExactlyOnce) {
  testing::TempDir tmp;
  commit_test::TableDef def;
  def.partition_keys = {"p"};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  const std::string path = table->path();
  constexpr int kThreads = 4, kThreadCommits = 20, kProcesses = 3, kProcessCommits = 10;
  constexpr int kRowsPerCommit = 3;

  // Ids: thread t, commit c -> [(t * 1000 + c) * 10, +3); process m -> 100000 + the same.
  std::vector<std::string> errors;
  std::mutex mu;
  auto report = [&](std::string e) {
    std::lock_guard<std::mutex> lock(mu);
    errors.push_back(std::move(e));
  };
  std::atomic<int> attempts{0};
  std::vector<std::thread> workers;
  for (int t = 0; t < kThreads; ++t) {
    workers.emplace_back([&, t] {
      auto opened = FileStoreTable::Open(path);
      if (!opened.ok()) return report(opened.status().ToString());
      FileStoreCommit commit((*opened)->io(), path, (*opened)->schema(),
                             "thread-" + std::to_string(t));
      for (int c = 1; c <= kThreadCommits; ++c) {
        auto rows = Rows(Range((t * 1000 + c) * 10, kRowsPerCommit), c % 2 ? "odd" : "even");
        auto messages = Prepare(**opened, rows);
        if (!messages.ok()) return report(messages.status().ToString());
        auto id = commit.Commit(*messages, c);
        if (!id.ok()) return report("thread " + std::to_string(t) + ": " + id.status().ToString());
        if (!id->has_value()) return report("thread commit reported as already committed");
        attempts += commit.last_stats().attempts;
      }
    });
  }
  for (int m = 0; m < kProcesses; ++m) {
    workers.emplace_back([&, m] {
      for (int c = 1; c <= kProcessCommits; ++c) {
        std::string input = tmp.Join("p" + std::to_string(m) + "-" + std::to_string(c) + ".jsonl");
        {
          std::ofstream out(input);
          for (int64_t id : Range(100000 + (m * 1000 + c) * 10, kRowsPerCommit)) {
            out << "{\"id\":" << id << ",\"p\":\"proc\",\"v\":\"v" << id << "-0\"}\n";
          }
        }
        std::string cmd = std::string(FJORD_CLI) + " write " + path + " --input " + input +
                          " --commit-user process-" + std::to_string(m) + " --commit-id " +
                          std::to_string(c) + " > " + input + ".log 2>&1";
        int rc = std::system(cmd.c_str());
        if (rc != 0) {
          std::ifstream log(input + ".log");
          std::string text((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
          return report("fjord write exited " + std::to_string(rc) + ": " + text);
        }
      }
    });
  }
  for (auto& w : workers) w.join();
  ASSERT_TRUE(errors.empty()) << errors.front();

  const int total = kThreads * kThreadCommits + kProcesses * kProcessCommits;
  ASSERT_OK_AND_ASSIGN(auto reopened, FileStoreTable::Open(path));
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> ids, reopened->snapshots().ListIds());
  ASSERT_EQ(ids.size(), static_cast<size_t>(total));
  std::set<std::pair<std::string, int64_t>> commits;
  for (size_t i = 0; i < ids.size(); ++i) {
    EXPECT_EQ(ids[i], static_cast<int64_t>(i + 1)) << "snapshot ids are not contiguous";
    ASSERT_OK_AND_ASSIGN(Snapshot s, reopened->snapshots().Load(ids[i]));
    EXPECT_EQ(s.commit_kind, CommitKind::kAppend);
    EXPECT_TRUE(commits.insert({s.commit_user, s.commit_identifier}).second)
        << s.commit_user << " committed " << s.commit_identifier << " twice";
    if (i + 1 == ids.size()) {
      EXPECT_EQ(s.total_record_count, total * kRowsPerCommit);
    }
  }
  for (int t = 0; t < kThreads; ++t) {
    for (int c = 1; c <= kThreadCommits; ++c) {
      EXPECT_TRUE(commits.count({"thread-" + std::to_string(t), c})) << "lost " << t << "/" << c;
    }
  }
  for (int m = 0; m < kProcesses; ++m) {
    for (int c = 1; c <= kProcessCommits; ++c) {
      EXPECT_TRUE(commits.count({"process-" + std::to_string(m), c})) << "lost " << m << "/" << c;
    }
  }
  std::vector<int64_t> expected;
  for (int t = 0; t < kThreads; ++t) {
    for (int c = 1; c <= kThreadCommits; ++c) {
      for (int64_t id : Range((t * 1000 + c) * 10, kRowsPerCommit)) expected.push_back(id);
    }
  }
  for (int m = 0; m < kProcesses; ++m) {
    for (int c = 1; c <= kProcessCommits; ++c) {
      for (int64_t id : Range(100000 + (m * 1000 + c) * 10, kRowsPerCommit)) {
        expected.push_back(id);
      }
    }
  }
  std::sort(expected.begin(), expected.end());
  ASSERT_OK_AND_ASSIGN(std::vector<int64_t> read, ReadIds(path));
  EXPECT_EQ(read, expected);
  // Lost races clean up after themselves: every manifest list left is referenced (base and
  // delta of each snapshot).
  EXPECT_EQ(CountManifestFiles(path).second, 2 * total);
  std::cout << "commits " << total << ", thread attempts " << attempts.load() << " for "
            << kThreads * kThreadCommits << " thread commits\n";
}

// A FileIO that lets a test act just before a snapshot file is created: to commit something else
// first (a real lost race), to refuse the creation, or to fail after creating it.
class RacingFileIO : public FaultInjectionFileIO {
 public:
  using FaultInjectionFileIO::FaultInjectionFileIO;
  // Returns the status to report instead of creating the file, or OK to create it.
  std::function<Status(const std::string& path, std::string_view data)> before_snapshot;
  std::atomic<int> snapshot_creations{0};

  Status CreateIfAbsent(const std::string& path, std::string_view data) override {
    if (path.find("/snapshot/snapshot-") != std::string::npos) {
      ++snapshot_creations;
      if (before_snapshot) {
        Status st = before_snapshot(path, data);
        if (!st.ok()) return st;
      }
    }
    return FaultInjectionFileIO::CreateIfAbsent(path, data);
  }
};

struct RacingSetup {
  testing::TempDir tmp;
  std::unique_ptr<FileStoreTable> table;
  std::shared_ptr<RacingFileIO> io;
};

void MakeRacing(RacingSetup* s, std::vector<std::pair<std::string, std::string>> options = {}) {
  commit_test::TableDef def;
  def.options = std::move(options);
  auto table = CreateTable(s->tmp.Join("wh"), "t", def);
  ASSERT_TRUE(table.ok()) << table.status().ToString();
  s->table = std::move(*table);
  s->io = std::make_shared<RacingFileIO>(s->table->io());
}

TEST(CommitConcurrencyTest, LostRaceRebuildsBaseFromNewLatestAndReusesDelta) {
  RacingSetup s;
  MakeRacing(&s);
  const std::string path = s.table->path();
  ASSERT_OK_AND_ASSIGN(auto first, Prepare(*s.table, Rows(Range(0, 5), "x")));
  FileStoreCommit other(s.table->io(), path, s.table->schema(), "other");
  ASSERT_OK(other.Commit(first, 1).status());

  // Three times, another writer commits just before our snapshot is created.
  int stolen = 0;
  s.io->before_snapshot = [&](const std::string&, std::string_view) -> Status {
    if (stolen == 3) return Status::OK();
    ++stolen;
    auto messages = Prepare(*s.table, Rows(Range(100 * stolen, 2), "x"));
    if (!messages.ok()) return messages.status();
    return other.Commit(*messages, 1 + stolen).status();
  };
  FileStoreCommit mine(s.io, path, s.table->schema(), "mine");
  ASSERT_OK_AND_ASSIGN(auto messages, Prepare(*s.table, Rows(Range(1000, 4), "x")));
  auto started = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto id, mine.Commit(messages, 7));
  auto elapsed = std::chrono::steady_clock::now() - started;
  ASSERT_EQ(id, std::optional<int64_t>(5));
  EXPECT_EQ(mine.last_stats().attempts, 4);
  // Backoff 10 + 20 + 40 ms (plus up to 20 % jitter) between the four attempts.
  EXPECT_GE(elapsed, std::chrono::milliseconds(70));

  std::vector<int64_t> expected = Range(0, 5);
  for (int i = 1; i <= 3; ++i) {
    for (int64_t v : Range(100 * i, 2)) expected.push_back(v);
  }
  for (int64_t v : Range(1000, 4)) expected.push_back(v);
  std::sort(expected.begin(), expected.end());
  ASSERT_OK_AND_ASSIGN(auto ids, ReadIds(path));
  EXPECT_EQ(ids, expected);
  // One manifest per commit (our delta written once, reused by all four attempts), two lists
  // per snapshot: the lost attempts left nothing behind.
  EXPECT_EQ(CountManifestFiles(path), std::make_pair(5, 10));
}

TEST(CommitConcurrencyTest, GivesUpAfterMaxRetriesWithBackoffAndCleansUp) {
  RacingSetup s;
  MakeRacing(&s);
  const std::string path = s.table->path();
  ASSERT_OK_AND_ASSIGN(auto first, Prepare(*s.table, Rows(Range(0, 5), "x")));
  ASSERT_OK(FileStoreCommit(s.table->io(), path, s.table->schema(), "a").Commit(first, 1).status());
  auto before = CountManifestFiles(path);

  s.io->before_snapshot = [](const std::string& p, std::string_view) {
    return Status::AlreadyExists(p, " exists");
  };
  FileStoreCommit mine(s.io, path, s.table->schema(), "mine",
                       {{"commit.max-retries", "3"}, {"commit.min-retry-wait", "20 ms"}});
  ASSERT_OK_AND_ASSIGN(auto messages, Prepare(*s.table, Rows(Range(10, 5), "x")));
  auto started = std::chrono::steady_clock::now();
  auto result = mine.Commit(messages, 1);
  auto elapsed = std::chrono::steady_clock::now() - started;
  EXPECT_THAT(result, IsError(StatusCode::kConflict, "failed after 4 attempts"));
  EXPECT_EQ(s.io->snapshot_creations.load(), 4);
  EXPECT_GE(elapsed, std::chrono::milliseconds(20 + 40 + 80));
  EXPECT_EQ(CountManifestFiles(path), before);  // nothing of the failed commit is left

  // commit.timeout ends the retries early.
  s.io->snapshot_creations = 0;
  FileStoreCommit timed(s.io, path, s.table->schema(), "timed",
                        {{"commit.max-retries", "1000"},
                         {"commit.min-retry-wait", "30 ms"},
                         {"commit.timeout", "50 ms"}});
  EXPECT_THAT(timed.Commit(messages, 1), IsError(StatusCode::kConflict, "failed after"));
  EXPECT_LE(s.io->snapshot_creations.load(), 3);
  ASSERT_OK_AND_ASSIGN(auto ids, ReadIds(path));
  EXPECT_EQ(ids, Range(0, 5));
}

TEST(CommitConcurrencyTest, SnapshotCreatedDespiteAnErrorIsNotCommittedTwice) {
  RacingSetup s;
  MakeRacing(&s);
  const std::string path = s.table->path();
  // The first creation succeeds on disk but reports an I/O error (an unknown outcome).
  auto base = s.table->io();
  bool failed_once = false;
  s.io->before_snapshot = [&](const std::string& p, std::string_view data) -> Status {
    if (failed_once) return Status::OK();
    failed_once = true;
    FJORD_RETURN_NOT_OK(base->CreateIfAbsent(p, data));
    return Status::IOError("connection reset after writing ", p);
  };
  FileStoreCommit mine(s.io, path, s.table->schema(), "mine");
  ASSERT_OK_AND_ASSIGN(auto messages, Prepare(*s.table, Rows(Range(0, 5), "x")));
  ASSERT_OK_AND_ASSIGN(auto id, mine.Commit(messages, 1));
  EXPECT_EQ(id, std::optional<int64_t>(1));
  EXPECT_EQ(mine.last_stats().attempts, 2);
  ASSERT_OK_AND_ASSIGN(auto ids, s.table->snapshots().ListIds());
  EXPECT_EQ(ids, std::vector<int64_t>{1});
  ASSERT_OK_AND_ASSIGN(auto rows, ReadIds(path));
  EXPECT_EQ(rows, Range(0, 5));
}

// Dedicated compaction (issue 6 point 2): `write-only` writers commit while a compaction job
// compacts the same buckets over and over; neither fails (lost races are retried), snapshot ids
// stay contiguous, the job's COMPACT snapshots land between the writers' APPENDs, and the table
// reads as the writes.
TEST(CommitConcurrencyTest, DedicatedCompactionRunsWhileWritersCommit) {
  testing::TempDir tmp;
  commit_test::TableDef def;
  def.primary_keys = {"id"};
  def.options = {{"bucket", "2"}, {"write-only", "true"}};
  ASSERT_OK_AND_ASSIGN(auto table, CreateTable(tmp.Join("wh"), "t", def));
  const std::string path = table->path();
  constexpr int kWriters = 2, kCommits = 12, kKeys = 40;
  std::vector<std::string> errors;
  std::mutex mu;
  auto report = [&](std::string e) {
    std::lock_guard<std::mutex> lock(mu);
    errors.push_back(std::move(e));
  };
  std::atomic<int> writers_done{0};
  std::vector<std::thread> threads;
  for (int w = 0; w < kWriters; ++w) {
    threads.emplace_back([&, w] {
      auto t = FileStoreTable::Open(path);
      if (!t.ok()) return report(t.status().ToString());
      FileStoreCommit commit((*t)->io(), path, (*t)->schema(), "writer-" + std::to_string(w));
      for (int c = 1; c <= kCommits; ++c) {
        auto messages = Prepare(**t, Rows(Range(w * 1000, kKeys), "", c));
        if (!messages.ok()) return report(messages.status().ToString());
        auto done = commit.Commit(*messages, c);
        if (!done.ok())
          return report("writer " + std::to_string(w) + ": " + done.status().ToString());
      }
      ++writers_done;
    });
  }
  std::atomic<int> compactions{0};
  threads.emplace_back([&] {
    int round = 0;
    while (writers_done.load() < kWriters) {
      auto t = FileStoreTable::Open(path);
      if (!t.ok()) return report(t.status().ToString());
      TableWriteOptions options;
      options.dynamic_options["write-only"] = "false";
      auto writer = PrimaryKeyTableWrite::Create(t->get(), options);
      if (!writer.ok()) return report(writer.status().ToString());
      auto buckets = (*writer)->LiveBuckets();
      if (!buckets.ok()) return report(buckets.status().ToString());
      for (const PartitionBucket& b : *buckets) {
        Status st = (*writer)->CompactBucket(b, /*full=*/round % 2 == 0);
        if (!st.ok()) return report("compaction: " + st.ToString());
      }
      auto messages = (*writer)->PrepareCommit();
      if (!messages.ok()) return report(messages.status().ToString());
      FileStoreCommit commit((*t)->io(), path, (*t)->schema(), RandomUuid());
      commit.set_filter_committed(false);
      auto done = commit.Commit(*messages, Snapshot::kBatchCommitIdentifier);
      if (!done.ok()) return report("compaction commit: " + done.status().ToString());
      if (done->has_value()) ++compactions;
      ++round;
    }
  });
  for (auto& th : threads) th.join();
  ASSERT_TRUE(errors.empty()) << errors.front();
  EXPECT_GE(compactions.load(), 1);

  // Ids 1..latest all present; the writers' APPENDs each once; the job's COMPACTs in between.
  ASSERT_OK_AND_ASSIGN(auto reopened, FileStoreTable::Open(path));
  ASSERT_OK_AND_ASSIGN(std::optional<Snapshot> latest, reopened->snapshots().Latest());
  ASSERT_TRUE(latest.has_value());
  std::map<std::string, int> appends;
  int compact_snapshots = 0;
  for (int64_t id = 1; id <= latest->id; ++id) {
    ASSERT_OK_AND_ASSIGN(Snapshot s, reopened->snapshots().Load(id));
    if (s.commit_kind == CommitKind::kCompact) {
      ++compact_snapshots;
    } else {
      EXPECT_EQ(s.commit_kind, CommitKind::kAppend) << id;
      ++appends[s.commit_user];
    }
  }
  for (int w = 0; w < kWriters; ++w) EXPECT_EQ(appends["writer-" + std::to_string(w)], kCommits);
  EXPECT_EQ(compact_snapshots, compactions.load());
  ASSERT_OK_AND_ASSIGN(auto rows, commit_test::ReadRows(path));
  std::vector<std::pair<int64_t, std::string>> expected;
  for (int w = 0; w < kWriters; ++w) {
    for (int64_t id : Range(w * 1000, kKeys)) {
      expected.emplace_back(id, "v" + std::to_string(id) + "-" + std::to_string(kCommits));
    }
  }
  EXPECT_EQ(rows, expected);
}

}  // namespace
}  // namespace fjord
