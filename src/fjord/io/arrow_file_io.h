// FileIO over an arrow::fs::FileSystem (local disk or S3).
#pragma once

#include <arrow/filesystem/filesystem.h>

#include <chrono>
#include <memory>
#include <string>

#include "fjord/file_io.h"
#include "fjord/lock.h"

namespace fjord {

namespace s3 {
class Client;
}

// How CreateIfAbsent is made safe on an object store (option fjord.s3.create-if-absent).
enum class CreateIfAbsentMode {
  kConditionalPut,  // HEAD, then PutObject with If-None-Match: * (atomic in the store)
  kLock,            // under `lock`: HEAD, then a plain put (atomic among holders of the lock)
  kUnsafe,          // HEAD, then a plain put (racing creators can both "win")
};

struct ObjectStoreCreate {
  CreateIfAbsentMode mode = CreateIfAbsentMode::kUnsafe;
  std::shared_ptr<s3::Client> client;  // kConditionalPut
  std::shared_ptr<Lock> lock;          // kLock
  std::chrono::milliseconds lock_timeout{60000};
};

class ArrowFileIO : public FileIO {
 public:
  // `strip_prefix` is removed from paths before they reach `fs` ("s3://" for S3).
  // `create` is used by object stores only.
  ArrowFileIO(std::shared_ptr<arrow::fs::FileSystem> fs, std::string strip_prefix, bool local,
              ObjectStoreCreate create = {});

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
  bool IsObjectStore() const override { return !local_; }

 private:
  std::string FsPath(const std::string& path) const;
  Status LocalCreateIfAbsent(const std::string& path, std::string_view data);
  Status ObjectStoreCreateIfAbsent(const std::string& path, std::string_view data);

  std::shared_ptr<arrow::fs::FileSystem> fs_;
  std::string strip_prefix_;
  bool local_;
  ObjectStoreCreate create_;
};

}  // namespace fjord
