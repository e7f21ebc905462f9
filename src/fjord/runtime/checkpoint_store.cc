#include "fjord/runtime/checkpoint_store.h"

#include <fcntl.h>
#include <unistd.h>
#include <zlib.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fjord/runtime/fault_hook.h"

namespace fjord::runtime {

namespace {

namespace fs = std::filesystem;

constexpr std::string_view kMagic = "FJORD-CHECKPOINT\n";
// 1: one table's messages per pending commit; 2: a (table, messages) list.
constexpr uint32_t kVersion = 2;
constexpr std::string_view kPrefix = "checkpoint-";

void PutU32(std::string* out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void PutI64(std::string* out, int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>((u >> (8 * i)) & 0xff));
}
void PutBytes(std::string* out, std::string_view s) {
  PutI64(out, static_cast<int64_t>(s.size()));
  out->append(s);
}

class Reader {
 public:
  Reader(std::string_view bytes, std::string_view source) : b_(bytes), source_(source) {}
  Status Fail(const char* what) const {
    return Status::Corruption(source_, ": damaged checkpoint file (", what, " at byte ", pos_, ")");
  }
  Result<uint32_t> U32() {
    if (b_.size() - pos_ < 4) return Fail("truncated");
    uint32_t v = 0;
    for (int i = 0; i < 4; ++i)
      v |= static_cast<uint32_t>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    pos_ += 4;
    return v;
  }
  Result<int64_t> I64() {
    if (b_.size() - pos_ < 8) return Fail("truncated");
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
      v |= static_cast<uint64_t>(static_cast<uint8_t>(b_[pos_ + i])) << (8 * i);
    pos_ += 8;
    return static_cast<int64_t>(v);
  }
  Result<std::string> Bytes() {
    FJORD_ASSIGN_OR_RAISE(int64_t n, I64());
    if (n < 0 || static_cast<uint64_t>(n) > b_.size() - pos_) return Fail("bad length");
    std::string s(b_.substr(pos_, static_cast<size_t>(n)));
    pos_ += static_cast<size_t>(n);
    return s;
  }
  bool AtEnd() const { return pos_ == b_.size(); }

 private:
  std::string_view b_;
  std::string_view source_;
  size_t pos_ = 0;
};

Status SysError(const std::string& what, const std::string& path) {
  return Status::IOError(what, " ", path, ": ", std::strerror(errno));
}

// Writes `bytes` to `path` durably: temp file, fsync, rename, fsync of the directory.
Status WriteAtomically(const std::string& path, const std::string& bytes) {
  std::string tmp = path + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return SysError("cannot create", tmp);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      Status st = SysError("cannot write", tmp);
      ::close(fd);
      return st;
    }
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) {
    Status st = SysError("cannot sync", tmp);
    ::close(fd);
    return st;
  }
  ::close(fd);
  if (::rename(tmp.c_str(), path.c_str()) != 0) return SysError("cannot rename to", path);
  std::string dir = fs::path(path).parent_path().string();
  int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
  return Status::OK();
}

Result<std::string> ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return Status::IOError("cannot read ", path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

// Checkpoint ids of the files in `dir`, ascending (temporary files left out).
std::vector<int64_t> ListIds(const std::string& dir) {
  std::vector<int64_t> ids;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind(kPrefix, 0) != 0) continue;
    std::string digits = name.substr(kPrefix.size());
    if (digits.empty() || digits.size() > 18 ||
        digits.find_first_not_of("0123456789") != std::string::npos)
      continue;
    ids.push_back(std::stoll(digits));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

}  // namespace

std::string EncodeCheckpoint(const CheckpointState& state) {
  std::string out(kMagic);
  PutU32(&out, kVersion);
  PutI64(&out, state.checkpoint_id);
  PutBytes(&out, state.commit_user);
  PutBytes(&out, state.job_name);
  PutBytes(&out, state.source_position);
  PutI64(&out, static_cast<int64_t>(state.pending.size()));
  for (const PendingCommit& p : state.pending) {
    PutI64(&out, p.checkpoint_id);
    PutBytes(&out, p.source_position);
    PutI64(&out, static_cast<int64_t>(p.tables.size()));
    for (const auto& [table, messages] : p.tables) {
      PutBytes(&out, table);
      PutBytes(&out, messages);
    }
  }
  uLong crc = crc32(0L, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size()));
  PutU32(&out, static_cast<uint32_t>(crc));
  return out;
}

Result<CheckpointState> DecodeCheckpoint(std::string_view bytes, std::string_view source) {
  if (bytes.size() < kMagic.size() + 8 || bytes.substr(0, kMagic.size()) != kMagic) {
    return Status::Corruption(source, ": not a Fjord checkpoint file (torn or foreign)");
  }
  std::string_view body = bytes.substr(0, bytes.size() - 4);
  uLong crc =
      crc32(0L, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
  Reader tail(bytes.substr(bytes.size() - 4), source);
  FJORD_ASSIGN_OR_RAISE(uint32_t stored, tail.U32());
  if (stored != static_cast<uint32_t>(crc)) {
    return Status::Corruption(source, ": damaged checkpoint file (checksum mismatch)");
  }
  Reader r(body.substr(kMagic.size()), source);
  FJORD_ASSIGN_OR_RAISE(uint32_t version, r.U32());
  if (version != 1 && version != kVersion) {
    return Status::Corruption(source, ": checkpoint format version ", version,
                              " (this Fjord reads ", kVersion, ")");
  }
  CheckpointState s;
  FJORD_ASSIGN_OR_RAISE(s.checkpoint_id, r.I64());
  FJORD_ASSIGN_OR_RAISE(s.commit_user, r.Bytes());
  FJORD_ASSIGN_OR_RAISE(s.job_name, r.Bytes());
  FJORD_ASSIGN_OR_RAISE(s.source_position, r.Bytes());
  FJORD_ASSIGN_OR_RAISE(int64_t n, r.I64());
  if (n < 0 || n > (1 << 20)) return r.Fail("bad pending count");
  for (int64_t i = 0; i < n; ++i) {
    PendingCommit p;
    FJORD_ASSIGN_OR_RAISE(p.checkpoint_id, r.I64());
    FJORD_ASSIGN_OR_RAISE(p.source_position, r.Bytes());
    if (version == 1) {
      FJORD_ASSIGN_OR_RAISE(p.tables[""], r.Bytes());
    } else {
      FJORD_ASSIGN_OR_RAISE(int64_t tables, r.I64());
      if (tables < 0 || tables > (1 << 20)) return r.Fail("bad table count");
      for (int64_t t = 0; t < tables; ++t) {
        FJORD_ASSIGN_OR_RAISE(std::string table, r.Bytes());
        FJORD_ASSIGN_OR_RAISE(p.tables[table], r.Bytes());
      }
    }
    s.pending.push_back(std::move(p));
  }
  if (!r.AtEnd()) return r.Fail("trailing bytes");
  return s;
}

Status CheckpointStore::Init() const {
  std::error_code ec;
  fs::create_directories(fs::path(dir_) / "checkpoints", ec);
  if (ec) return Status::IOError("cannot create state directory ", dir_, ": ", ec.message());
  return Status::OK();
}

std::string CheckpointStore::CheckpointPath(int64_t id) const {
  return (fs::path(dir_) / "checkpoints" / (std::string(kPrefix) + std::to_string(id))).string();
}

Result<std::optional<CheckpointState>> CheckpointStore::LoadLatest() const {
  std::vector<int64_t> ids = ListIds((fs::path(dir_) / "checkpoints").string());
  if (ids.empty()) return std::optional<CheckpointState>();
  std::string path = CheckpointPath(ids.back());
  FJORD_ASSIGN_OR_RAISE(std::string bytes, ReadFile(path));
  FJORD_ASSIGN_OR_RAISE(CheckpointState state, DecodeCheckpoint(bytes, path));
  if (state.checkpoint_id != ids.back()) {
    return Status::Corruption(path, ": holds checkpoint ", state.checkpoint_id);
  }
  return std::optional<CheckpointState>(std::move(state));
}

Status CheckpointStore::Save(const CheckpointState& state) const {
  std::string path = CheckpointPath(state.checkpoint_id);
  std::string bytes = EncodeCheckpoint(state);
  if (InjectCheckpointFault()) {
    // As a write that failed half way: a torn temporary file, no checkpoint.
    (void)WriteAtomically(path + ".tmp", bytes.substr(0, bytes.size() / 2));
    return Status::IOError("injected fault (FJORD_TEST_FAULT_RATE): cannot write ", path);
  }
  FJORD_RETURN_NOT_OK(WriteAtomically(path, bytes));
  std::string dir = (fs::path(dir_) / "checkpoints").string();
  std::vector<int64_t> ids = ListIds(dir);
  std::error_code ec;
  for (size_t i = 0; i + static_cast<size_t>(retained_) < ids.size(); ++i) {
    fs::remove(CheckpointPath(ids[i]), ec);
  }
  // Temporary files of failed writes (ours are renamed by now).
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    if (e.path().extension() == ".tmp") fs::remove(e.path(), ec);
  }
  return Status::OK();
}

Status CheckpointStore::MarkCommitted(int64_t checkpoint_id) const {
  return WriteAtomically((fs::path(dir_) / "committed").string(),
                         std::to_string(checkpoint_id) + "\n");
}

Result<std::optional<int64_t>> CheckpointStore::LoadCommitted() const {
  std::string path = (fs::path(dir_) / "committed").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<int64_t>();
  FJORD_ASSIGN_OR_RAISE(std::string text, ReadFile(path));
  while (!text.empty() && text.back() == '\n') text.pop_back();
  int64_t id = 0;
  auto [end, err] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (text.empty() || err != std::errc() || end != text.data() + text.size() || id <= 0) {
    return Status::Corruption(path, ": not a checkpoint id");
  }
  return std::optional<int64_t>(id);
}

Result<std::optional<std::string>> CheckpointStore::StoredCommitUser() const {
  std::string path = (fs::path(dir_) / "commit-user").string();
  std::error_code ec;
  if (!fs::exists(path, ec)) return std::optional<std::string>();
  FJORD_ASSIGN_OR_RAISE(std::string text, ReadFile(path));
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  if (text.empty() || text.find_first_of("\n\r") != std::string::npos) {
    return Status::Corruption(path, ": not a commit user");
  }
  return std::optional<std::string>(text);
}

Result<std::string> CheckpointStore::CommitUser(const std::string& fresh) const {
  FJORD_ASSIGN_OR_RAISE(std::optional<std::string> stored, StoredCommitUser());
  if (stored) return *stored;
  FJORD_RETURN_NOT_OK(WriteAtomically((fs::path(dir_) / "commit-user").string(), fresh + "\n"));
  return fresh;
}

}  // namespace fjord::runtime
