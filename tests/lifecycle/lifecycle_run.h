// One run of the lifecycle test (tests/lifecycle/): a fresh table, a seeded random history of
// commits, compactions, tags, rollbacks, consumers, expiration and orphan clean-up, checked
// against the model after every step; with `crash`, every maintenance operation is also crashed
// at each of its I/O operations and retried. docs/testing.md, "Lifecycle test".
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "fjord/fjord.h"
#include "lifecycle_model.h"

namespace fjord::lifecycle {

struct Stats {
  int64_t runs = 0;
  int64_t steps = 0;
  std::map<std::string, int64_t> ops;  // steps by kind
  int64_t snapshot_reads = 0;
  int64_t tag_reads = 0;
  int64_t crash_ops = 0;     // maintenance operations crashed at every step
  int64_t crash_points = 0;  // crashes injected (each followed by the checks and a retry)
  int64_t orphans_deleted = 0;
  int64_t final_files = 0;          // files compared with the reachable set at the ends of runs
  int64_t kept_for_changelogs = 0;  // of those, kept only as a long-lived changelog names them
};

struct RunOptions {
  uint64_t seed = 1;
  bool primary_key = true;
  int steps = 40;
  bool crash = false;    // crash every maintenance operation at every I/O step
  bool rollback = true;  // rollback steps (RollbackTable)
  bool verbose = false;
  std::string scratch;  // a directory for the table; empty: the system temp directory
};

class Run {
 public:
  explicit Run(const RunOptions& options, Stats* stats);
  ~Run();
  // Throws Failure.
  void Execute();
  const TableConfig& config() const { return config_; }
  // The steps done so far, one per line.
  std::string Trace() const;

 private:
  std::unique_ptr<Table> Open() const;
  std::map<std::string, std::string> Retention();
  void Log(const std::string& line);

  // Steps.
  void Commit();
  void Tick();
  void Compact();
  void CreateTag();
  void DeleteTag();
  void Rollback();
  void ConsumerRead();
  void ConsumerReset();
  void Expire();
  void Orphans();
  void FinalCleanUp();

  // The fake clock: every new snapshot and file takes the step's time.
  void Stamp();
  void Advance();
  // Tags that appeared (automatic ones) join the model.
  void AdoptNewTags();

  // Checks.
  struct Exempt {
    std::set<int64_t> snapshots;  // may be present and unreadable (their expiration was cut off)
    std::set<std::string> tags;
    bool strict = true;  // every listed snapshot and tag must be in the model, no tag lost
    // Every consumer's next snapshot is present or the next to commit (not while a rollback is
    // cut off: the consumers it will report are ahead of the snapshots left).
    bool consumers = true;
  };
  void CheckAll(const Exempt& exempt, const std::string& when);
  std::multiset<std::string> Read(const Table& table, std::optional<int64_t> snapshot,
                                  std::optional<std::string> tag, const std::string& when);
  void CheckReachableOnDisk(const Table& table, const Exempt& exempt, const std::string& when);

  // Runs `op` on the table; in crash mode first on a healthy FileIO (the reference), then from
  // the same start crashed at operation k = 1, 2, ... until it completes: after each crash
  // `after_crash` checks the table, a retry on a healthy FileIO must succeed and leave exactly the
  // reference's files.
  void Maintain(const std::string& what, const std::function<Status(const Table&)>& op,
                const std::function<void(const std::string&)>& after_crash);

  RunOptions options_;
  Stats* stats_;
  std::mt19937_64 rng_;
  TableConfig config_;
  std::string dir_;
  std::string root_;
  Model model_;
  int64_t identifier_ = 0;
  int step_ = 0;
  int64_t fake_now_ = 0;
  int64_t real_start_ = 0;
  std::vector<int64_t> step_times_;
  std::map<std::string, int64_t> stamped_;
  std::set<int64_t> ref_snapshots_;  // the snapshots after the reference run of Maintain  //
                                     // relative path -> the time the fake clock gave it
  std::string tag_period_option_, tag_period_value_;
  std::vector<std::string> trace_;
};

}  // namespace fjord::lifecycle
