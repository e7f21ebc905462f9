// A FileIO for tests that fails, or "crashes", at a chosen operation of another FileIO, in the
// manner of leveldb's fault-injection Env. Every call (read or write) counts as one operation,
// and so does every Write and Close on a stream from OpenOutput.
//
//   kFail:  operation N returns an IOError, nothing happens, later operations work.
//   kCrash: operation N and every later one fail as if the process died at N. A crashing
//           WriteFile or stream write leaves a torn file (the first half of its bytes); a
//           crashing CreateIfAbsent leaves only a hidden temp file, never the target; a crashing
//           Overwrite leaves the old contents.
// Thread-safe.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "fjord/file_io.h"

namespace fjord {

class FaultInjectionFileIO : public FileIO,
                             public std::enable_shared_from_this<FaultInjectionFileIO> {
 public:
  enum class Mode { kFail, kCrash };

  explicit FaultInjectionFileIO(std::shared_ptr<FileIO> base) : base_(std::move(base)) {}

  // Arms the fault at the `n`-th operation from now (1 = the next one). 0 disarms.
  void FailAt(int64_t n, Mode mode);
  // Operations counted since construction or the last FailAt.
  int64_t operations() const { return ops_.load(); }
  bool crashed() const { return crashed_.load(); }
  // Log of operations "<op> <path>", for tests that enumerate crash points.
  std::vector<std::string> log() const;

  Result<std::string> ReadFile(const std::string& path) override;
  Status WriteFile(const std::string& path, std::string_view data) override;
  Status CreateIfAbsent(const std::string& path, std::string_view data) override;
  Status Overwrite(const std::string& path, std::string_view data) override;
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(const std::string& path) override;
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string& path) override;
  Result<bool> Exists(const std::string& path) override;
  Result<FileStatus> GetStatus(const std::string& path) override;
  Result<std::vector<FileStatus>> List(const std::string& dir) override;
  Status MakeDirs(const std::string& dir) override;
  Status Delete(const std::string& path) override;
  Status DeleteDirRecursive(const std::string& dir) override;
  Result<bool> DeleteEmptyDir(const std::string& dir) override;
  Status Rename(const std::string& from, const std::string& to) override;
  bool IsObjectStore() const override { return base_->IsObjectStore(); }

  // Counts one operation; returns the injected error if this operation is the chosen one or the
  // FileIO has crashed. `*crash_now` tells the caller to leave its torn state.
  Status Tick(const char* op, const std::string& path, bool* crash_now = nullptr);

 private:
  std::shared_ptr<FileIO> base_;
  std::atomic<int64_t> ops_{0};
  std::atomic<int64_t> fail_at_{0};
  std::atomic<bool> crashed_{false};
  Mode mode_ = Mode::kFail;
  mutable std::mutex log_mu_;
  std::vector<std::string> log_;
};

}  // namespace fjord
