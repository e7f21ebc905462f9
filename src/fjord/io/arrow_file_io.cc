#include "fjord/io/arrow_file_io.h"

#include <arrow/filesystem/localfs.h>
#include <arrow/filesystem/s3fs.h>
#include <arrow/io/interfaces.h>
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <mutex>

#include "fjord/common/arrow_status.h"
#include "fjord/common/ids.h"
#include "fjord/io/s3_client.h"
#include "fjord/options.h"

namespace fjord {

namespace {

Status ErrnoStatus(const std::string& what, const std::string& path, int err) {
  if (err == EEXIST) return Status::AlreadyExists(path, ": already exists");
  if (err == ENOENT) return Status::NotFound(path, ": ", what, ": no such file or directory");
  return Status::IOError(path, ": ", what, ": ", std::strerror(err));
}

// Writes all of `data` to fd, then syncs it.
Status WriteAllAndSync(int fd, std::string_view data, const std::string& path) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return ErrnoStatus("write", path, errno);
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) return ErrnoStatus("fsync", path, errno);
  return Status::OK();
}

std::string TempSibling(const std::string& path) {
  return JoinPath(ParentPath(path), "." + BaseName(path) + "." + RandomUuid() + ".tmp");
}

Status WriteTempFile(const std::string& tmp, std::string_view data) {
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0) return ErrnoStatus("create", tmp, errno);
  Status st = WriteAllAndSync(fd, data, tmp);
  if (::close(fd) != 0 && st.ok()) st = ErrnoStatus("close", tmp, errno);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

std::once_flag s3_once;
Status s3_init_status;
std::atomic<bool> s3_initialized{false};

Status EnsureS3() {
  std::call_once(s3_once, [] {
    arrow::fs::FileSystemGlobalOptions global;
    if (std::filesystem::exists("/etc/ssl/certs/ca-certificates.crt")) {
      global.tls_ca_file_path = "/etc/ssl/certs/ca-certificates.crt";
    }
    arrow::Status st = arrow::fs::Initialize(global);
    if (st.ok()) {
      arrow::fs::S3GlobalOptions s3 = arrow::fs::S3GlobalOptions::Defaults();
      st = arrow::fs::InitializeS3(s3);
    }
    s3_init_status = FromArrow(st);
    s3_initialized = st.ok();
  });
  return s3_init_status;
}

}  // namespace

std::string JoinPath(std::string_view a, std::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  std::string out(a);
  if (out.back() != '/') out += '/';
  out.append(b.front() == '/' ? b.substr(1) : b);
  return out;
}

std::string BaseName(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

std::string ParentPath(std::string_view path) {
  while (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return "";
  if (slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

ArrowFileIO::ArrowFileIO(std::shared_ptr<arrow::fs::FileSystem> fs, std::string strip_prefix,
                         bool local, ObjectStoreCreate create)
    : fs_(std::move(fs)),
      strip_prefix_(std::move(strip_prefix)),
      local_(local),
      create_(std::move(create)) {}

std::string ArrowFileIO::FsPath(const std::string& path) const {
  if (local_) {
    std::string_view p = path;
    if (p.rfind("file://", 0) == 0) p.remove_prefix(7);
    return std::filesystem::absolute(std::string(p)).lexically_normal().string();
  }
  if (!strip_prefix_.empty() && path.rfind(strip_prefix_, 0) == 0) {
    return path.substr(strip_prefix_.size());
  }
  return path;
}

Result<std::string> ArrowFileIO::ReadFile(const std::string& path) {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::io::RandomAccessFile> in, OpenInput(path));
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, in->GetSize());
  std::string out(static_cast<size_t>(size), '\0');
  FJORD_ARROW_ASSIGN_OR_RAISE(int64_t n, in->ReadAt(0, size, out.data()));
  if (n != size) return Status::IOError(path, ": short read (", n, " of ", size, " bytes)");
  return out;
}

Status ArrowFileIO::WriteFile(const std::string& path, std::string_view data) {
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::io::OutputStream> out, OpenOutput(path));
  Status st = FromArrow(out->Write(data.data(), static_cast<int64_t>(data.size())));
  Status closed = FromArrow(out->Close());
  if (!st.ok()) return st.WithContext(path);
  return closed.WithContext(path);
}

Status ArrowFileIO::LocalCreateIfAbsent(const std::string& path, std::string_view data) {
  std::string target = FsPath(path);
  std::string parent = ParentPath(target);
  if (!parent.empty()) FJORD_RETURN_NOT_OK(MakeDirs(parent));
  std::string tmp = TempSibling(target);
  FJORD_RETURN_NOT_OK(WriteTempFile(tmp, data));
  // link() publishes the complete file and fails if the target exists: exactly one racing
  // creator wins. Storages without hard links get renameat2(RENAME_NOREPLACE).
  Status st;
  if (::link(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    if (err == EPERM || err == ENOTSUP || err == EOPNOTSUPP || err == EXDEV) {
      if (::renameat2(AT_FDCWD, tmp.c_str(), AT_FDCWD, target.c_str(), RENAME_NOREPLACE) != 0) {
        st = ErrnoStatus("rename", path, errno);
      }
    } else {
      st = ErrnoStatus("link", path, err);
    }
  }
  ::unlink(tmp.c_str());
  return st;
}

Status ArrowFileIO::CreateIfAbsent(const std::string& path, std::string_view data) {
  if (local_) return LocalCreateIfAbsent(path, data);
  return ObjectStoreCreateIfAbsent(path, data);
}

// Every mode looks first (a HEAD): a lost race is then found without uploading anything, and a
// store that silently ignores If-None-Match still gets the check. See docs/storage.md.
Status ArrowFileIO::ObjectStoreCreateIfAbsent(const std::string& path, std::string_view data) {
  std::unique_ptr<LockGuard> guard;
  if (create_.mode == CreateIfAbsentMode::kLock) {
    // One lock per folder, named by the object store path ("s3://bucket/dir") whatever scheme
    // the caller spelt, so that every creator of one object takes the same lock.
    std::string name = "s3://" + ParentPath(FsPath(path));
    FJORD_ASSIGN_OR_RAISE(guard, create_.lock->Acquire(name, create_.lock_timeout));
  }
  FJORD_ASSIGN_OR_RAISE(bool exists, Exists(path));
  if (exists) return Status::AlreadyExists(path, ": already exists");
  if (create_.mode != CreateIfAbsentMode::kConditionalPut) return WriteFile(path, data);
  std::string bucket_key = FsPath(path);
  size_t slash = bucket_key.find('/');
  if (slash == std::string::npos || slash + 1 == bucket_key.size()) {
    return Status::Invalid(path, ": not an object path (s3://bucket/key)");
  }
  Status st =
      create_.client->PutIfAbsent(bucket_key.substr(0, slash), bucket_key.substr(slash + 1), data);
  if (st.code() == StatusCode::kAlreadyExists) {
    return Status::AlreadyExists(path, ": already exists");
  }
  return st;
}

Status ArrowFileIO::Overwrite(const std::string& path, std::string_view data) {
  if (!local_) return WriteFile(path, data);
  std::string target = FsPath(path);
  std::string parent = ParentPath(target);
  if (!parent.empty()) FJORD_RETURN_NOT_OK(MakeDirs(parent));
  std::string tmp = TempSibling(target);
  FJORD_RETURN_NOT_OK(WriteTempFile(tmp, data));
  if (::rename(tmp.c_str(), target.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return ErrnoStatus("rename", path, err);
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::io::RandomAccessFile>> ArrowFileIO::OpenInput(
    const std::string& path) {
  FJORD_ASSIGN_OR_RAISE(bool exists, Exists(path));
  if (!exists) return Status::NotFound(path, ": no such file");
  auto r = fs_->OpenInputFile(FsPath(path));
  if (!r.ok()) return FromArrow(r.status()).WithContext(path);
  return *r;
}

Result<std::shared_ptr<arrow::io::OutputStream>> ArrowFileIO::OpenOutput(const std::string& path) {
  std::string parent = ParentPath(path);
  if (local_ && !parent.empty()) FJORD_RETURN_NOT_OK(MakeDirs(parent));
  auto r = fs_->OpenOutputStream(FsPath(path));
  if (!r.ok()) return FromArrow(r.status()).WithContext(path);
  return *r;
}

Result<bool> ArrowFileIO::Exists(const std::string& path) {
  auto info = fs_->GetFileInfo(FsPath(path));
  if (!info.ok()) return FromArrow(info.status()).WithContext(path);
  return info->type() != arrow::fs::FileType::NotFound;
}

Result<FileStatus> ArrowFileIO::GetStatus(const std::string& path) {
  auto info = fs_->GetFileInfo(FsPath(path));
  if (!info.ok()) return FromArrow(info.status()).WithContext(path);
  if (info->type() == arrow::fs::FileType::NotFound) {
    return Status::NotFound(path, ": no such file or directory");
  }
  FileStatus st;
  st.path = path;
  st.is_dir = info->type() == arrow::fs::FileType::Directory;
  st.size = st.is_dir ? 0 : info->size();
  st.mtime_millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(info->mtime().time_since_epoch())
          .count();
  return st;
}

namespace {

// A local directory listing that tolerates concurrent writers: an entry that disappears between
// readdir and stat (a committer's temporary sibling, renamed or unlinked meanwhile) is skipped,
// where Arrow's listing fails the whole call ("Cannot list directory"). A missing directory lists
// as empty.
Result<std::vector<FileStatus>> ListLocal(const std::string& dir, const std::string& fs_dir) {
  std::vector<FileStatus> out;
  DIR* d = ::opendir(fs_dir.c_str());
  if (d == nullptr) {
    if (errno == ENOENT) return out;
    return ErrnoStatus("list", dir, errno);
  }
  std::unique_ptr<DIR, int (*)(DIR*)> closer(d, ::closedir);
  int fd = ::dirfd(d);
  while (true) {
    errno = 0;
    struct dirent* e = ::readdir(d);
    if (e == nullptr) {
      if (errno != 0) return ErrnoStatus("list", dir, errno);
      break;
    }
    std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(fd, name.c_str(), &st, 0) != 0) {
      if (errno == ENOENT) continue;  // gone since readdir
      return ErrnoStatus("stat", JoinPath(dir, name), errno);
    }
    FileStatus f;
    f.path = JoinPath(dir, name);
    f.is_dir = S_ISDIR(st.st_mode);
    f.size = f.is_dir ? 0 : static_cast<int64_t>(st.st_size);
    f.mtime_millis = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000 + st.st_mtim.tv_nsec / 1000000;
    out.push_back(std::move(f));
  }
  return out;
}

}  // namespace

Result<std::vector<FileStatus>> ArrowFileIO::List(const std::string& dir) {
  if (local_) {
    FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> out, ListLocal(dir, FsPath(dir)));
    std::sort(out.begin(), out.end(),
              [](const FileStatus& a, const FileStatus& b) { return a.path < b.path; });
    return out;
  }
  arrow::fs::FileSelector sel;
  sel.base_dir = FsPath(dir);
  sel.allow_not_found = true;
  sel.recursive = false;
  auto infos = fs_->GetFileInfo(sel);
  if (!infos.ok()) return FromArrow(infos.status()).WithContext(dir);
  std::vector<FileStatus> out;
  for (const auto& info : *infos) {
    FileStatus st;
    st.path = JoinPath(dir, info.base_name());
    st.is_dir = info.type() == arrow::fs::FileType::Directory;
    st.size = st.is_dir ? 0 : info.size();
    st.mtime_millis =
        std::chrono::duration_cast<std::chrono::milliseconds>(info.mtime().time_since_epoch())
            .count();
    out.push_back(std::move(st));
  }
  std::sort(out.begin(), out.end(),
            [](const FileStatus& a, const FileStatus& b) { return a.path < b.path; });
  return out;
}

Status ArrowFileIO::MakeDirs(const std::string& dir) {
  return FromArrow(fs_->CreateDir(FsPath(dir), /*recursive=*/true)).WithContext(dir);
}

Status ArrowFileIO::Delete(const std::string& path) {
  FJORD_ASSIGN_OR_RAISE(bool exists, Exists(path));
  if (!exists) return Status::OK();
  return FromArrow(fs_->DeleteFile(FsPath(path))).WithContext(path);
}

Status ArrowFileIO::DeleteDirRecursive(const std::string& dir) {
  FJORD_ASSIGN_OR_RAISE(bool exists, Exists(dir));
  if (!exists) return Status::OK();
  return FromArrow(fs_->DeleteDir(FsPath(dir))).WithContext(dir);
}

Result<bool> ArrowFileIO::DeleteEmptyDir(const std::string& dir) {
  if (!local_) return FileIO::DeleteEmptyDir(dir);
  std::string local = FsPath(dir);
  if (::rmdir(local.c_str()) == 0 || errno == ENOENT) return true;
  if (errno == ENOTEMPTY || errno == EEXIST) return false;
  return ErrnoStatus("rmdir", dir, errno);
}

Status ArrowFileIO::Rename(const std::string& from, const std::string& to) {
  if (local_) {
    std::string src = FsPath(from), dst = FsPath(to);
    if (::renameat2(AT_FDCWD, src.c_str(), AT_FDCWD, dst.c_str(), RENAME_NOREPLACE) != 0) {
      return ErrnoStatus("rename", to, errno);
    }
    return Status::OK();
  }
  FJORD_ASSIGN_OR_RAISE(bool exists, Exists(to));
  if (exists) return Status::AlreadyExists(to, ": already exists");
  return FromArrow(fs_->Move(FsPath(from), FsPath(to))).WithContext(from);
}

Result<bool> FileIO::DeleteEmptyDir(const std::string& dir) {
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> children, List(dir));
  return children.empty();
}

void FileIO::ShutdownFileSystems() {
  if (s3_initialized.exchange(false)) (void)arrow::fs::FinalizeS3();
}

std::shared_ptr<FileIO> FileIO::Local() {
  static std::shared_ptr<FileIO> local = std::make_shared<ArrowFileIO>(
      std::make_shared<arrow::fs::LocalFileSystem>(), "", /*local=*/true);
  return local;
}

Result<std::shared_ptr<FileIO>> FileIO::Open(std::string_view uri_or_path,
                                             const std::map<std::string, std::string>& options,
                                             std::shared_ptr<Lock> lock) {
  if (uri_or_path.rfind("s3://", 0) != 0 && uri_or_path.rfind("s3a://", 0) != 0) {
    if (uri_or_path.find("://") != std::string_view::npos && uri_or_path.rfind("file://", 0) != 0) {
      return Status::NotImplemented("unsupported file system scheme in '", uri_or_path, "'");
    }
    return Local();
  }
  FJORD_RETURN_NOT_OK(EnsureS3());
  arrow::fs::S3Options s3 = arrow::fs::S3Options::Defaults();
  auto get = [&](const char* key) -> std::string {
    auto it = options.find(key);
    return it == options.end() ? "" : it->second;
  };
  std::string endpoint = get("s3.endpoint");
  if (endpoint.empty() && std::getenv("AWS_ENDPOINT_URL"))
    endpoint = std::getenv("AWS_ENDPOINT_URL");
  if (!endpoint.empty()) {
    if (endpoint.rfind("http://", 0) == 0) {
      s3.scheme = "http";
      endpoint = endpoint.substr(7);
    } else if (endpoint.rfind("https://", 0) == 0) {
      endpoint = endpoint.substr(8);
    }
    s3.endpoint_override = endpoint;
  }
  std::string access = get("s3.access-key"), secret = get("s3.secret-key");
  if (!access.empty()) s3.ConfigureAccessKey(access, secret);
  std::string region = get("s3.region");
  if (!region.empty()) s3.region = region;
  if (get("s3.path-style-access") == "true") s3.force_virtual_addressing = false;
  if (get("s3.allow-bucket-creation") == "true") s3.allow_bucket_creation = true;
  auto fs = arrow::fs::S3FileSystem::Make(s3);
  if (!fs.ok()) return FromArrow(fs.status()).WithContext("S3 file system for ", uri_or_path);

  ObjectStoreCreate create;
  std::string mode = get("fjord.s3.create-if-absent");
  if (mode.empty() || mode == "conditional-put") {
    create.mode = CreateIfAbsentMode::kConditionalPut;
    s3::ClientOptions client;
    client.scheme = s3.scheme;
    client.endpoint = s3.endpoint_override;
    client.region = s3.region.empty() ? (*fs)->region() : s3.region;
    for (const char* var : {"AWS_REGION", "AWS_DEFAULT_REGION"}) {
      if (client.region.empty() && std::getenv(var)) client.region = std::getenv(var);
    }
    // As Arrow addresses buckets, unless path style is asked for.
    client.virtual_addressing = (s3.endpoint_override.empty() || s3.force_virtual_addressing) &&
                                get("s3.path-style-access") != "true";
    // Arrow's credential provider (given keys, or the AWS default chain), asked per request.
    client.credentials = [s3] {
      return s3::Credentials{s3.GetAccessKey(), s3.GetSecretKey(), s3.GetSessionToken()};
    };
    FJORD_ASSIGN_OR_RAISE(std::unique_ptr<s3::Client> c, s3::Client::Make(std::move(client)));
    create.client = std::move(c);
  } else if (mode == "lock") {
    create.mode = CreateIfAbsentMode::kLock;
    std::string timeout = get("fjord.s3.lock-timeout");
    auto millis = ParseDurationMillis(timeout.empty() ? "1 min" : timeout);
    if (!millis.ok()) return millis.status().WithContext("option fjord.s3.lock-timeout");
    create.lock_timeout = std::chrono::milliseconds(*millis);
    if (lock) {
      create.lock = std::move(lock);
    } else {
      std::string dir = get("fjord.s3.lock-dir");
      FJORD_ASSIGN_OR_RAISE(create.lock, MakeFileLock(dir.empty() ? "/tmp/fjord-locks" : dir));
    }
  } else if (mode == "unsafe") {
    create.mode = CreateIfAbsentMode::kUnsafe;
  } else {
    return Status::Invalid("option fjord.s3.create-if-absent: unknown value '", mode,
                           "' (conditional-put, lock or unsafe)");
  }
  std::string prefix = uri_or_path.rfind("s3a://", 0) == 0 ? "s3a://" : "s3://";
  return std::shared_ptr<FileIO>(
      std::make_shared<ArrowFileIO>(*fs, prefix, /*local=*/false, std::move(create)));
}

}  // namespace fjord
