#include "fjord/runtime/fault_hook.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>

namespace fjord::runtime {

namespace {

class RandomFaultFileIO : public FileIO {
 public:
  RandomFaultFileIO(std::shared_ptr<FileIO> base, double rate, uint64_t seed)
      : base_(std::move(base)), rate_(rate), rng_(seed) {}

  Result<std::string> ReadFile(const std::string& path) override { return base_->ReadFile(path); }
  Status WriteFile(const std::string& path, std::string_view data) override {
    FJORD_RETURN_NOT_OK(Maybe("write", path));
    return base_->WriteFile(path, data);
  }
  Status CreateIfAbsent(const std::string& path, std::string_view data) override {
    FJORD_RETURN_NOT_OK(Maybe("create", path));
    return base_->CreateIfAbsent(path, data);
  }
  Status Overwrite(const std::string& path, std::string_view data) override {
    FJORD_RETURN_NOT_OK(Maybe("overwrite", path));
    return base_->Overwrite(path, data);
  }
  Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(const std::string& path) override {
    return base_->OpenInput(path);
  }
  Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string& path) override {
    FJORD_RETURN_NOT_OK(Maybe("open for writing", path));
    return base_->OpenOutput(path);
  }
  Result<bool> Exists(const std::string& path) override { return base_->Exists(path); }
  Result<FileStatus> GetStatus(const std::string& path) override { return base_->GetStatus(path); }
  Result<std::vector<FileStatus>> List(const std::string& dir) override { return base_->List(dir); }
  Status MakeDirs(const std::string& dir) override { return base_->MakeDirs(dir); }
  Status Delete(const std::string& path) override { return base_->Delete(path); }
  Status DeleteDirRecursive(const std::string& dir) override {
    return base_->DeleteDirRecursive(dir);
  }
  Result<bool> DeleteEmptyDir(const std::string& dir) override {
    return base_->DeleteEmptyDir(dir);
  }
  Status Rename(const std::string& from, const std::string& to) override {
    FJORD_RETURN_NOT_OK(Maybe("rename", from));
    return base_->Rename(from, to);
  }
  bool IsObjectStore() const override { return base_->IsObjectStore(); }

 private:
  Status Maybe(const char* op, const std::string& path) {
    std::lock_guard<std::mutex> lock(mu_);
    if (std::uniform_real_distribution<double>(0, 1)(rng_) >= rate_) return Status::OK();
    return Status::IOError("injected fault (FJORD_TEST_FAULT_RATE): ", op, " ", path);
  }

  std::shared_ptr<FileIO> base_;
  double rate_;
  std::mutex mu_;
  std::mt19937_64 rng_;
};

// FJORD_TEST_FAULT_RATE when it is a probability, else 0.
double FaultRate() {
  const char* rate = std::getenv("FJORD_TEST_FAULT_RATE");
  if (!rate) return 0;
  double p = std::atof(rate);
  return p > 0 && p <= 1 ? p : 0;
}

}  // namespace

std::shared_ptr<FileIO> MaybeInjectFaults(std::shared_ptr<FileIO> base) {
  double p = FaultRate();
  if (p == 0) return base;
  std::random_device seed;
  return std::make_shared<RandomFaultFileIO>(std::move(base), p, seed());
}

bool InjectCheckpointFault() {
  static const double rate = FaultRate();
  if (rate == 0) return false;
  static std::mutex mu;
  static std::mt19937_64 rng{std::random_device{}()};
  std::lock_guard<std::mutex> lock(mu);
  return std::uniform_real_distribution<double>(0, 1)(rng) < rate;
}

void MaybeCrashBetweenTableCommits(int64_t checkpoint, const std::string& committed,
                                   const std::vector<std::string>& left) {
  static const bool armed = [] {
    const char* v = std::getenv("FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS");
    return v != nullptr && std::string(v) == "1";
  }();
  if (!armed || left.empty()) return;
  std::string names;
  for (const std::string& t : left) names += (names.empty() ? "" : ",") + t;
  std::fprintf(stderr,
               "FJORD_TEST_CRASH_BETWEEN_TABLE_COMMITS: checkpoint %lld committed table %s, "
               "not %s: killing the process\n",
               static_cast<long long>(checkpoint), committed.c_str(), names.c_str());
  std::fflush(stderr);
  std::raise(SIGKILL);
}

}  // namespace fjord::runtime
