#include "fjord/io/fault_injection_file_io.h"

#include <arrow/buffer.h>
#include <arrow/io/interfaces.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"

namespace fjord {

namespace {

arrow::Status ToArrow(const Status& st) { return arrow::Status::IOError(st.message()); }

// Forwards to the real stream, ticking the owner on every write and on close.
class FaultyOutputStream : public arrow::io::OutputStream {
 public:
  FaultyOutputStream(std::shared_ptr<FaultInjectionFileIO> owner, std::string path,
                     std::shared_ptr<arrow::io::OutputStream> base)
      : owner_(std::move(owner)), path_(std::move(path)), base_(std::move(base)) {}

  arrow::Status Write(const void* data, int64_t nbytes) override {
    bool crash_now = false;
    Status st = owner_->Tick("write", path_, &crash_now);
    if (!st.ok()) {
      if (crash_now) {
        (void)base_->Write(data, nbytes / 2);  // torn write
        (void)base_->Flush();
      }
      return ToArrow(st);
    }
    return base_->Write(data, nbytes);
  }
  arrow::Status Write(const std::shared_ptr<arrow::Buffer>& data) override {
    return Write(data->data(), data->size());
  }
  arrow::Status Flush() override { return base_->Flush(); }
  arrow::Status Close() override {
    if (closed_) return arrow::Status::OK();
    Status st = owner_->Tick("close", path_);
    if (!st.ok()) {
      (void)base_->Flush();
      return ToArrow(st);
    }
    closed_ = true;
    return base_->Close();
  }
  arrow::Result<int64_t> Tell() const override { return base_->Tell(); }
  bool closed() const override { return closed_ || base_->closed(); }

 private:
  std::shared_ptr<FaultInjectionFileIO> owner_;
  std::string path_;
  std::shared_ptr<arrow::io::OutputStream> base_;
  bool closed_ = false;
};

}  // namespace

void FaultInjectionFileIO::FailAt(int64_t n, Mode mode) {
  mode_ = mode;
  ops_ = 0;
  crashed_ = false;
  fail_at_ = n;
  std::lock_guard<std::mutex> lock(log_mu_);
  log_.clear();
}

std::vector<std::string> FaultInjectionFileIO::log() const {
  std::lock_guard<std::mutex> lock(log_mu_);
  return log_;
}

Status FaultInjectionFileIO::Tick(const char* op, const std::string& path, bool* crash_now) {
  if (crash_now) *crash_now = false;
  if (crashed_) return Status::IOError("injected crash: ", op, " ", path, " after the crash");
  int64_t n = ++ops_;
  {
    std::lock_guard<std::mutex> lock(log_mu_);
    log_.push_back(std::string(op) + " " + path);
  }
  if (fail_at_ > 0 && n == fail_at_) {
    if (mode_ == Mode::kCrash) {
      crashed_ = true;
      if (crash_now) *crash_now = true;
      return Status::IOError("injected crash at operation ", n, ": ", op, " ", path);
    }
    return Status::IOError("injected failure at operation ", n, ": ", op, " ", path);
  }
  return Status::OK();
}

Result<std::string> FaultInjectionFileIO::ReadFile(const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("read", path));
  return base_->ReadFile(path);
}

Status FaultInjectionFileIO::WriteFile(const std::string& path, std::string_view data) {
  bool crash_now = false;
  Status st = Tick("write-file", path, &crash_now);
  if (!st.ok()) {
    if (crash_now) (void)base_->WriteFile(path, data.substr(0, data.size() / 2));
    return st;
  }
  return base_->WriteFile(path, data);
}

Status FaultInjectionFileIO::CreateIfAbsent(const std::string& path, std::string_view data) {
  bool crash_now = false;
  Status st = Tick("create-if-absent", path, &crash_now);
  if (!st.ok()) {
    if (crash_now) {
      std::string tmp =
          JoinPath(ParentPath(path), "." + BaseName(path) + "." + RandomUuid() + ".tmp");
      (void)base_->WriteFile(tmp, data.substr(0, data.size() / 2));
    }
    return st;
  }
  return base_->CreateIfAbsent(path, data);
}

Status FaultInjectionFileIO::Overwrite(const std::string& path, std::string_view data) {
  FJORD_RETURN_NOT_OK(Tick("overwrite", path));
  return base_->Overwrite(path, data);
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> FaultInjectionFileIO::OpenInput(
    const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("open-input", path));
  return base_->OpenInput(path);
}

Result<std::shared_ptr<arrow::io::OutputStream>> FaultInjectionFileIO::OpenOutput(
    const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("open-output", path));
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::io::OutputStream> base, base_->OpenOutput(path));
  return std::shared_ptr<arrow::io::OutputStream>(
      std::make_shared<FaultyOutputStream>(shared_from_this(), path, std::move(base)));
}

Result<bool> FaultInjectionFileIO::Exists(const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("exists", path));
  return base_->Exists(path);
}

Result<FileStatus> FaultInjectionFileIO::GetStatus(const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("status", path));
  return base_->GetStatus(path);
}

Result<std::vector<FileStatus>> FaultInjectionFileIO::List(const std::string& dir) {
  FJORD_RETURN_NOT_OK(Tick("list", dir));
  return base_->List(dir);
}

Status FaultInjectionFileIO::MakeDirs(const std::string& dir) {
  FJORD_RETURN_NOT_OK(Tick("mkdirs", dir));
  return base_->MakeDirs(dir);
}

Status FaultInjectionFileIO::Delete(const std::string& path) {
  FJORD_RETURN_NOT_OK(Tick("delete", path));
  return base_->Delete(path);
}

Status FaultInjectionFileIO::DeleteDirRecursive(const std::string& dir) {
  FJORD_RETURN_NOT_OK(Tick("delete-dir", dir));
  return base_->DeleteDirRecursive(dir);
}

Result<bool> FaultInjectionFileIO::DeleteEmptyDir(const std::string& dir) {
  FJORD_RETURN_NOT_OK(Tick("delete-empty-dir", dir));
  return base_->DeleteEmptyDir(dir);
}

Status FaultInjectionFileIO::Rename(const std::string& from, const std::string& to) {
  FJORD_RETURN_NOT_OK(Tick("rename", from));
  return base_->Rename(from, to);
}

}  // namespace fjord
