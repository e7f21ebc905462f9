// Lock: named mutual exclusion between Fjord writers, for storages whose create-if-absent cannot
// be made atomic by the storage itself (S3 without conditional put; see docs/storage.md).
//
//   std::shared_ptr<Lock> lock = *MakeFileLock("/var/lock/fjord");
//   FJORD_ASSIGN_OR_RAISE(auto guard, lock->Acquire("s3://bkt/t/snapshot", kTimeout));
//   ...  // exclusive among every holder of a Lock over the same directory
//   guard.reset();  // or let it go out of scope: releases
//
// A lock only excludes writers that take the same lock: it is advisory, and it does not exclude
// writers of other engines (Java Paimon's catalog locks are a different mechanism).
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "fjord/result.h"

namespace fjord {

// A held lock. Destroying it releases the lock. Not copyable; not thread-safe (one owner).
class LockGuard {
 public:
  LockGuard() = default;
  LockGuard(const LockGuard&) = delete;
  LockGuard& operator=(const LockGuard&) = delete;
  virtual ~LockGuard() = default;
};

class Lock {
 public:
  virtual ~Lock() = default;

  // Blocks until the caller holds the lock called `name`, or until `timeout` has passed (then an
  // IOError saying so; a timeout of zero tries once). Any string is a valid name; distinct names
  // are distinct locks. Not reentrant: a thread that already holds `name` and acquires it again
  // waits for itself until the timeout. Thread-safe. The guard may outlive the Lock object.
  virtual Result<std::unique_ptr<LockGuard>> Acquire(const std::string& name,
                                                     std::chrono::milliseconds timeout) = 0;

  // Where the lock lives, for error messages and logs.
  virtual std::string Describe() const = 0;
};

// A Lock over lock files in the local directory `dir` (created if missing): one file per name,
// held with flock(2). It excludes threads and processes of this host that use the same
// directory, and needs no clean-up after a crash: the kernel releases the lock of a process that
// dies, however it dies. A child made by fork() without exec shares the parent's held locks
// until both have released them. Lock files are never deleted (deleting one while another process
// waits on it would let two holders in); they are empty and there is one per name ever used. On
// network file systems flock is only as good as the file system's lock support: use a local
// directory.
Result<std::shared_ptr<Lock>> MakeFileLock(const std::string& dir);

}  // namespace fjord
