// FileIO: every byte Fjord reads or writes goes through one of these, so tests can swap in a
// fault-injecting one (fault_injection_file_io.h) and tables can live on local disks or S3.
//
// Paths are given in the FileIO's own form: local paths (absolute or relative to the working
// directory) for a local FileIO, "s3://bucket/key" URIs for S3. All methods are thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/result.h"

namespace arrow::io {
class RandomAccessFile;
class OutputStream;
}  // namespace arrow::io

namespace fjord {

class Lock;  // fjord/lock.h

struct FileStatus {
  std::string path;  // in the FileIO's form
  bool is_dir = false;
  int64_t size = 0;
  int64_t mtime_millis = 0;  // last modification, milliseconds since the Unix epoch
};

class FileIO {
 public:
  virtual ~FileIO() = default;

  // A FileIO for `uri_or_path`: "s3://..." gives the S3 one (configured by `options`:
  // s3.endpoint, s3.access-key, s3.secret-key, s3.region, s3.path-style-access,
  // s3.allow-bucket-creation, or the usual AWS_* environment variables); anything else the
  // local one. How the S3 one makes CreateIfAbsent atomic is chosen by
  // fjord.s3.create-if-absent: "conditional-put" (default; the store must honour
  // If-None-Match), "lock" (a Lock: `lock` if given, else a file lock in fjord.s3.lock-dir,
  // default /tmp/fjord-locks, waiting at most fjord.s3.lock-timeout, default 1 min) or "unsafe"
  // (check, then put). docs/storage.md says what each guarantees.
  static Result<std::shared_ptr<FileIO>> Open(
      std::string_view uri_or_path, const std::map<std::string, std::string>& options = {},
      std::shared_ptr<Lock> lock = nullptr);
  static std::shared_ptr<FileIO> Local();
  // Releases the global state of remote file systems (Arrow's S3 client). Call once before the
  // process exits, after every FileIO and stream is gone; S3 FileIOs cannot be used afterwards.
  static void ShutdownFileSystems();

  // Whole-file read. NotFound when the file does not exist.
  virtual Result<std::string> ReadFile(const std::string& path) = 0;
  // Writes `data`, replacing any existing file. Not atomic: use for data files only, which are
  // published by a later metadata commit.
  virtual Status WriteFile(const std::string& path, std::string_view data) = 0;
  // Atomically publishes `data` at `path` iff no file is there: the file appears whole or not at
  // all. Exactly one of several racing creators succeeds; the others get AlreadyExists. On
  // object stores "racing creators" means those covered by the chosen mechanism (see Open).
  // An IOError may leave the outcome unknown (the object may have been created).
  virtual Status CreateIfAbsent(const std::string& path, std::string_view data) = 0;
  // Replaces `path` with `data` atomically where the storage allows (temp file + rename; a
  // reader sees the old or the new contents, never a mix), for files that are overwritten in
  // place: hints such as snapshot/LATEST, consumer files. Creates missing parent directories.
  virtual Status Overwrite(const std::string& path, std::string_view data) = 0;

  virtual Result<std::shared_ptr<arrow::io::RandomAccessFile>> OpenInput(
      const std::string& path) = 0;
  virtual Result<std::shared_ptr<arrow::io::OutputStream>> OpenOutput(const std::string& path) = 0;

  virtual Result<bool> Exists(const std::string& path) = 0;
  // NotFound when nothing is at `path`.
  virtual Result<FileStatus> GetStatus(const std::string& path) = 0;
  // Direct children of `dir`, sorted by path; an empty list when `dir` does not exist.
  virtual Result<std::vector<FileStatus>> List(const std::string& dir) = 0;
  virtual Status MakeDirs(const std::string& dir) = 0;
  // Deleting a missing file is not an error.
  virtual Status Delete(const std::string& path) = 0;
  virtual Status DeleteDirRecursive(const std::string& dir) = 0;
  // Removes `dir` only if it is empty: true when it is gone (or was never there), false when it
  // holds something. Local file systems check and remove in one step (rmdir); object stores have
  // no directories to remove, so this only reports whether anything is under `dir`.
  virtual Result<bool> DeleteEmptyDir(const std::string& dir);
  // Renames; fails with AlreadyExists if `to` exists.
  virtual Status Rename(const std::string& from, const std::string& to) = 0;

  // True for storages without atomic rename/link (S3): CreateIfAbsent is then only as strong as
  // the store's conditional put or the lock (see Open and docs/storage.md).
  virtual bool IsObjectStore() const { return false; }
};

// Joins path segments with '/'.
std::string JoinPath(std::string_view a, std::string_view b);
// The last path segment.
std::string BaseName(std::string_view path);
// Everything before the last '/'; "" when there is none.
std::string ParentPath(std::string_view path);

}  // namespace fjord
