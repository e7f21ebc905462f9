// Consumers (spec/behaviour.md §7.3): one file per named streaming reader, recording the snapshot
// it reads next, so that a restarted reader goes on from there and expiration keeps what it has
// not read yet. The file is `<table>/consumer/consumer-<id>` (on a branch other than main,
// `<table>/branch/branch-<b>/consumer/consumer-<id>`), holding `{"nextSnapshot" : N}` laid out as
// Java Paimon writes it. Thread-safe (stateless apart from the FileIO).
//
// Compatibility with Java Paimon 1.4.2 (interop/java/STREAM_NOTES.md, compat.java_consumer_files):
// the files Fjord writes are byte-identical to Java's, each reads the other's. Reading is
// stricter than Java's Jackson, which coerces what no Paimon writer produces: Fjord refuses a
// missing or null `nextSnapshot` (Java reads 0), a string, a fraction (Java truncates 4.5 to 4)
// and text after the object; unknown keys are ignored as Java ignores them.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/result.h"

namespace fjord {

inline constexpr std::string_view kConsumerFilePrefix = "consumer-";

struct Consumer {
  int64_t next_snapshot = 0;

  bool operator==(const Consumer&) const = default;

  // Java's bytes: `{`, newline, `  "nextSnapshot" : N`, newline, `}`; no trailing newline.
  std::string ToJson() const;
  // Parses a consumer file's text; `source` (the file) names every error (Corruption).
  static Result<Consumer> FromJson(std::string_view text, std::string_view source);
};

// Java refuses only the empty id (`consumer id cannot be empty string.`). Fjord also refuses an
// id holding '/' (Java would write the file into a subdirectory, which no listing finds as that
// consumer) or a NUL character. Invalid naming the id otherwise.
Status ValidateConsumerId(std::string_view id);

class ConsumerManager {
 public:
  // `branch` empty, blank or "main": the table's own consumers; any other name, the branch's
  // (Java's BranchManager.branchPath).
  ConsumerManager(std::shared_ptr<FileIO> io, std::string_view table_root,
                  std::string_view branch = "main");

  // The consumer directory and the file of one consumer.
  const std::string& dir() const { return dir_; }
  std::string PathOf(std::string_view id) const;

  // The consumer, or nullopt when it has no file. A file that does not parse is read again
  // (Java's writers overwrite in place, so a reader may see it half-written), `read_attempts`
  // times in all with `retry_pause` between, then it is a Corruption naming the file.
  Result<std::optional<Consumer>> Read(std::string_view id) const;
  // Creates or replaces the consumer's file atomically (FileIO::Overwrite: readers see the old
  // or the new contents). `next_snapshot` must be at least 1 (Invalid otherwise). Whether that
  // snapshot exists is the caller's business (Java's reset_consumer checks it; a streaming
  // reader records the snapshot it waits for).
  Status Write(std::string_view id, const Consumer& consumer) const;
  // Removes the consumer's file; a consumer without one is not an error.
  Status Delete(std::string_view id) const;

  // The ids of every consumer file (names starting with "consumer-"; directories and other
  // names are skipped), sorted.
  Result<std::vector<std::string>> ListIds() const;
  // Every consumer and its next snapshot. A file deleted while listing is left out; a damaged
  // one is an error naming it.
  Result<std::map<std::string, int64_t>> List() const;
  // The smallest next snapshot of all consumers (what expiration must keep); nullopt when there
  // is none.
  Result<std::optional<int64_t>> MinNextSnapshot() const;

  // Java's clear_consumers: deletes every consumer whose whole id matches `including` and does
  // not match `excluding`; a blank `including` matches every id, a blank `excluding` none (as
  // the procedure and action read them). Patterns are ECMAScript regular expressions (std::regex),
  // which agree with Java's for the usual syntax (classes, groups, alternation, quantifiers); one
  // that does not compile is Invalid naming it. Returns the ids deleted, sorted.
  Result<std::vector<std::string>> Clear(std::string_view including,
                                         std::string_view excluding = {}) const;
  // `consumer.expiration-time`: deletes every consumer file last modified before
  // `before_millis` (milliseconds since the epoch; Java: now minus the expiration time).
  // Returns the ids deleted, sorted.
  Result<std::vector<std::string>> Expire(int64_t before_millis) const;

  void set_read_retries(int read_attempts, std::chrono::milliseconds retry_pause) {
    read_attempts_ = read_attempts < 1 ? 1 : read_attempts;
    retry_pause_ = retry_pause;
  }

 private:
  // Consumer files in the directory: (id, status), sorted by id.
  Result<std::vector<std::pair<std::string, FileStatus>>> ListFiles() const;

  std::shared_ptr<FileIO> io_;
  std::string dir_;
  int read_attempts_ = 10;
  std::chrono::milliseconds retry_pause_{50};
};

}  // namespace fjord
