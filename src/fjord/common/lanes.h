// Pipelined work for the writers: tasks grouped by lane (a bucket), one lane's tasks running one
// after another in the order given, different lanes' at once on a pool's threads, while the
// caller goes on producing the next batch. Without it a writer's caller waits at the end of every
// batch for its slowest bucket (a sort or a spill), and the threads wait while it routes.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "fjord/common/executor.h"
#include "fjord/status.h"

namespace fjord {

class Lanes {
 public:
  // Runs tasks on `threads` threads of its own, holding at most `max_batches` submitted batches
  // with tasks not yet finished (SubmitBatch waits for an earlier one to end beyond that).
  Lanes(int threads, int max_batches);
  // Waits for every task (as Drain does); an error not yet returned is dropped.
  ~Lanes();
  Lanes(const Lanes&) = delete;
  Lanes& operator=(const Lanes&) = delete;

  struct Task {
    const void* lane;
    std::function<Status()> run;
  };

  // Queues one batch's tasks behind the earlier tasks of their lanes. Returns the first error
  // of an earlier task instead (nothing is queued then: the caller's writer is broken and must be
  // discarded, as after any failed write).
  Status SubmitBatch(std::vector<Task> tasks);

  // Queues one task (a batch of one).
  Status Submit(const void* lane, std::function<Status()> run);

  // Runs `run` on the pool's threads outside any lane and any batch (SubmitBatch does not wait
  // for it), e.g. the slow end of a lane's task, so that the lane goes on meanwhile. Drain waits
  // for it; its error is the lanes' error. May be called from a task. A lane running on the
  // pool lets spawned work that waits for a thread go first (between two of its tasks). After
  // an error `run` is dropped without running.
  void Spawn(std::function<Status()> run);

  // Waits until no task is queued or running; the first error of any task, or OK. The error
  // stays: later calls return it too.
  Status Drain();

  // The first error so far, without waiting.
  Status error() const;

 private:
  struct Pending {
    std::function<Status()> run;
    std::shared_ptr<int> batch_left;  // tasks of its batch not yet finished
  };
  struct Lane {
    std::deque<Pending> queue;
    bool scheduled = false;  // a pool thread is running (or about to run) this lane
  };

  void RunLane(const void* lane);

  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::unordered_map<const void*, Lane> lanes_;
  int batches_in_flight_ = 0;
  int tasks_in_flight_ = 0;
  int spawned_waiting_ = 0;  // Spawned, not started yet
  const int max_batches_;
  Status error_;
  std::unique_ptr<ThreadPool> pool_;  // last: its threads stop before the members above go
};

}  // namespace fjord
