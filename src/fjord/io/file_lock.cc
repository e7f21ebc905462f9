// MakeFileLock (fjord/lock.h): flock(2) on one lock file per name.
//
// flock locks belong to the open file description, so every Acquire opens the file afresh: two
// threads of one process then exclude each other as two processes do. The lock file is opened
// with O_CLOEXEC so that programs the holder starts do not inherit the lock.
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <thread>

#include "fjord/lock.h"

namespace fjord {

namespace {

class FileLockGuard : public LockGuard {
 public:
  explicit FileLockGuard(int fd) : fd_(fd) {}
  ~FileLockGuard() override { ::close(fd_); }  // closing the last descriptor releases the lock

 private:
  int fd_;
};

// FNV-1a, 64 bits: stable across builds and processes, unlike std::hash.
uint64_t Fnv1a64(const std::string& s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

// "<hash>-<readable tail>.lock": the hash keeps distinct names apart (a collision could only make
// two names share a lock, never let two holders in); the tail helps whoever looks at the folder.
std::string LockFileName(const std::string& name) {
  char hex[17];
  std::snprintf(hex, sizeof(hex), "%016llx", static_cast<unsigned long long>(Fnv1a64(name)));
  std::string tail = name.size() > 80 ? name.substr(name.size() - 80) : name;
  for (char& c : tail) {
    bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                c == '-' || c == '_' || c == '.';
    if (!keep) c = '_';
  }
  return std::string(hex) + "-" + tail + ".lock";
}

class FileLock : public Lock {
 public:
  explicit FileLock(std::string dir) : dir_(std::move(dir)) {}

  Result<std::unique_ptr<LockGuard>> Acquire(const std::string& name,
                                             std::chrono::milliseconds timeout) override {
    using Clock = std::chrono::steady_clock;
    const std::string path = dir_ + "/" + LockFileName(name);
    const Clock::time_point deadline = Clock::now() + timeout;
    std::chrono::milliseconds pause(1);
    while (true) {
      int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0666);
      if (fd < 0) {
        return Status::IOError("lock '", name, "': cannot open lock file ", path, ": ",
                               std::strerror(errno));
      }
      bool held = false;
      while (true) {
        if (::flock(fd, LOCK_EX | LOCK_NB) == 0) {
          held = true;
          break;
        }
        int err = errno;
        if (err == EINTR) continue;
        if (err != EWOULDBLOCK) {
          ::close(fd);
          return Status::IOError("lock '", name, "': flock ", path, ": ", std::strerror(err));
        }
        Clock::time_point now = Clock::now();
        if (now >= deadline) break;
        std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
        pause = std::min(pause * 2, std::chrono::milliseconds(20));
      }
      if (!held) {
        ::close(fd);
        return Status::IOError("lock '", name, "' (", path, "): not acquired within ",
                               timeout.count(), " ms; another thread or process holds it");
      }
      // Someone may have deleted or replaced the lock file between our open and flock; then we
      // hold a lock nobody else will ever see. Only the file still at `path` counts.
      struct stat held_st, path_st;
      if (::fstat(fd, &held_st) == 0 && ::stat(path.c_str(), &path_st) == 0 &&
          held_st.st_dev == path_st.st_dev && held_st.st_ino == path_st.st_ino) {
        return std::unique_ptr<LockGuard>(new FileLockGuard(fd));
      }
      ::close(fd);
    }
  }

  std::string Describe() const override { return "file lock in " + dir_; }

 private:
  std::string dir_;
};

}  // namespace

Result<std::shared_ptr<Lock>> MakeFileLock(const std::string& dir) {
  if (dir.empty()) return Status::Invalid("file lock: empty directory name");
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return Status::IOError("file lock: cannot create directory ", dir, ": ", ec.message());
  std::string abs = std::filesystem::absolute(dir, ec).lexically_normal().string();
  if (ec) abs = dir;
  while (abs.size() > 1 && abs.back() == '/') abs.pop_back();
  return std::shared_ptr<Lock>(std::make_shared<FileLock>(abs));
}

}  // namespace fjord
