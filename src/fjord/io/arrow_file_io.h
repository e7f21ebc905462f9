// FileIO over an arrow::fs::FileSystem (local disk or S3).
#pragma once

#include <arrow/filesystem/filesystem.h>

#include <memory>
#include <string>

#include "fjord/file_io.h"

namespace fjord {

class ArrowFileIO : public FileIO {
 public:
  // `strip_prefix` is removed from paths before they reach `fs` ("s3://" for S3).
  ArrowFileIO(std::shared_ptr<arrow::fs::FileSystem> fs, std::string strip_prefix, bool local);

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
  Status Rename(const std::string& from, const std::string& to) override;
  bool IsObjectStore() const override { return !local_; }

 private:
  std::string FsPath(const std::string& path) const;
  Status LocalCreateIfAbsent(const std::string& path, std::string_view data);

  std::shared_ptr<arrow::fs::FileSystem> fs_;
  std::string strip_prefix_;
  bool local_;
};

}  // namespace fjord
