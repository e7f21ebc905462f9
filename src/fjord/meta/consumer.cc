#include "fjord/meta/consumer.h"

#include <algorithm>
#include <regex>
#include <thread>
#include <utility>

#include "fjord/common/json.h"
#include "fjord/common/strings.h"

namespace fjord {

namespace {

constexpr std::string_view kNextSnapshotKey = "nextSnapshot";

bool Blank(std::string_view s) { return Trim(s).empty(); }

Result<std::regex> CompilePattern(std::string_view pattern, std::string_view what) {
  try {
    return std::regex(pattern.begin(), pattern.end(), std::regex::ECMAScript);
  } catch (const std::regex_error& e) {
    return Status::Invalid(what, " pattern '", pattern,
                           "' is not a valid regular expression: ", e.what());
  }
}

}  // namespace

std::string Consumer::ToJson() const {
  Json j = Json::object();
  j[std::string(kNextSnapshotKey)] = next_snapshot;
  return ToJacksonPretty(j);
}

Result<Consumer> Consumer::FromJson(std::string_view text, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(Json j, ParseJson(text, source));
  if (!j.is_object()) {
    return Status::Corruption(source, ": a consumer file must hold a JSON object, got ",
                              j.type_name());
  }
  Consumer c;
  FJORD_ASSIGN_OR_RAISE(c.next_snapshot, JsonGetInt(j, kNextSnapshotKey, source));
  return c;
}

Status ValidateConsumerId(std::string_view id) {
  if (id.empty()) return Status::Invalid("consumer id cannot be empty");
  if (id.find('/') != std::string_view::npos) {
    return Status::Invalid("consumer id '", id, "' must not contain '/'");
  }
  if (id.find('\0') != std::string_view::npos) {
    return Status::Invalid("consumer id must not contain a NUL character");
  }
  return Status::OK();
}

ConsumerManager::ConsumerManager(std::shared_ptr<FileIO> io, std::string_view table_root,
                                 std::string_view branch)
    : io_(std::move(io)) {
  std::string root(table_root);
  while (root.size() > 1 && root.back() == '/') root.pop_back();
  if (!Blank(branch) && branch != "main") {
    root += "/branch/branch-";
    root += branch;
  }
  dir_ = root + "/consumer";
}

std::string ConsumerManager::PathOf(std::string_view id) const {
  std::string path = dir_;
  path += '/';
  path += kConsumerFilePrefix;
  path += id;
  return path;
}

Result<std::optional<Consumer>> ConsumerManager::Read(std::string_view id) const {
  FJORD_RETURN_NOT_OK(ValidateConsumerId(id));
  const std::string path = PathOf(id);
  Status last;
  for (int attempt = 0; attempt < read_attempts_; ++attempt) {
    if (attempt > 0 && retry_pause_.count() > 0) std::this_thread::sleep_for(retry_pause_);
    Result<std::string> text = io_->ReadFile(path);
    if (!text.ok()) {
      if (text.status().IsNotFound()) return std::optional<Consumer>();
      return text.status();
    }
    Result<Consumer> c = Consumer::FromJson(*text, path);
    if (c.ok()) return std::optional<Consumer>(*c);
    last = c.status();
  }
  return last.WithContext("damaged consumer file (", read_attempts_, " reads)");
}

Status ConsumerManager::Write(std::string_view id, const Consumer& consumer) const {
  FJORD_RETURN_NOT_OK(ValidateConsumerId(id));
  if (consumer.next_snapshot < 1) {
    return Status::Invalid("consumer '", id, "': next snapshot must be at least 1, got ",
                           consumer.next_snapshot);
  }
  const std::string path = PathOf(id);
  return io_->Overwrite(path, consumer.ToJson());
}

Status ConsumerManager::Delete(std::string_view id) const {
  FJORD_RETURN_NOT_OK(ValidateConsumerId(id));
  return io_->Delete(PathOf(id));
}

Result<std::vector<std::pair<std::string, FileStatus>>> ConsumerManager::ListFiles() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<FileStatus> files, io_->List(dir_));
  std::vector<std::pair<std::string, FileStatus>> out;
  for (FileStatus& f : files) {
    std::string name = BaseName(f.path);
    if (f.is_dir || name.size() <= kConsumerFilePrefix.size() ||
        name.compare(0, kConsumerFilePrefix.size(), kConsumerFilePrefix) != 0) {
      continue;
    }
    out.emplace_back(name.substr(kConsumerFilePrefix.size()), std::move(f));
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

Result<std::vector<std::string>> ConsumerManager::ListIds() const {
  FJORD_ASSIGN_OR_RAISE(auto files, ListFiles());
  std::vector<std::string> ids;
  ids.reserve(files.size());
  for (auto& [id, status] : files) ids.push_back(std::move(id));
  return ids;
}

Result<std::map<std::string, int64_t>> ConsumerManager::List() const {
  FJORD_ASSIGN_OR_RAISE(std::vector<std::string> ids, ListIds());
  std::map<std::string, int64_t> out;
  for (const std::string& id : ids) {
    FJORD_ASSIGN_OR_RAISE(std::optional<Consumer> c, Read(id));
    if (c) out.emplace(id, c->next_snapshot);
  }
  return out;
}

Result<std::optional<int64_t>> ConsumerManager::MinNextSnapshot() const {
  FJORD_ASSIGN_OR_RAISE(auto all, List());
  std::optional<int64_t> min;
  for (const auto& [id, next] : all) {
    if (!min || next < *min) min = next;
  }
  return min;
}

Result<std::vector<std::string>> ConsumerManager::Clear(std::string_view including,
                                                        std::string_view excluding) const {
  std::optional<std::regex> include;
  std::optional<std::regex> exclude;
  if (!Blank(including)) {
    FJORD_ASSIGN_OR_RAISE(include, CompilePattern(including, "including"));
  }
  if (!Blank(excluding)) {
    FJORD_ASSIGN_OR_RAISE(exclude, CompilePattern(excluding, "excluding"));
  }
  FJORD_ASSIGN_OR_RAISE(auto files, ListFiles());
  std::vector<std::string> deleted;
  for (const auto& [id, status] : files) {
    if (include && !std::regex_match(id, *include)) continue;
    if (exclude && std::regex_match(id, *exclude)) continue;
    FJORD_RETURN_NOT_OK(io_->Delete(status.path));
    deleted.push_back(id);
  }
  return deleted;
}

Result<std::vector<std::string>> ConsumerManager::Expire(int64_t before_millis) const {
  FJORD_ASSIGN_OR_RAISE(auto files, ListFiles());
  std::vector<std::string> deleted;
  for (const auto& [id, status] : files) {
    if (status.mtime_millis >= before_millis) continue;
    FJORD_RETURN_NOT_OK(io_->Delete(status.path));
    deleted.push_back(id);
  }
  return deleted;
}

}  // namespace fjord
