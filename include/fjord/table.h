// A Paimon table, opened from its directory or from a Catalog. A Table is a handle on the table's
// files at the schema it was opened with; it hands out the operations (as iceberg-cpp's Table
// does): writes, commits, reads, compactions. Each operation keeps what it needs of the table
// alive, so it may outlive the Table that made it.
//
// Thread safety: the const methods of a Table may be called from several threads at once. The
// operations it hands out are not thread-safe unless their header says so: give each thread its
// own.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/options.h"
#include "fjord/partition.h"
#include "fjord/result.h"
#include "fjord/schema.h"
#include "fjord/table_commit.h"
#include "fjord/table_compaction.h"
#include "fjord/table_expire.h"
#include "fjord/table_read.h"
#include "fjord/table_rescale.h"
#include "fjord/table_stats.h"
#include "fjord/table_write.h"

namespace fjord {

class FileStoreTable;

// One snapshot of the table (snapshot/snapshot-N).
struct SnapshotInfo {
  int64_t id = 0;
  int64_t schema_id = 0;
  std::string commit_kind;  // APPEND, COMPACT, OVERWRITE, ANALYZE
  std::string commit_user;
  int64_t commit_identifier = 0;
  int64_t time_millis = 0;  // commit time, epoch milliseconds
  std::optional<int64_t> total_record_count;
  std::optional<int64_t> delta_record_count;
  std::optional<int64_t> changelog_record_count;
  std::optional<int64_t> watermark;
};

struct TagInfo {
  std::string name;
  SnapshotInfo snapshot;  // the snapshot the tag holds (it may outlive snapshot-N itself)
  // When the tag has a time retained (fjord/tags.h): its create time as Java's
  // LocalDateTime.toString() ("2026-01-03T05:07:09"), and the retention in milliseconds.
  std::optional<std::string> create_time;
  std::optional<int64_t> time_retained_millis;
};

class Table {
 public:
  // Opens the table at `path` (a local directory or an s3:// URI); `options` configure the file
  // system (`s3.*`, file_io.h). NotFound when the directory holds no schema.
  static Result<std::unique_ptr<Table>> Open(
      const std::string& path, const std::map<std::string, std::string>& options = {});
  // The same through `io`: every read and write of the table and of the operations it hands out
  // goes through it (tests pass a fault-injecting FileIO).
  static Result<std::unique_ptr<Table>> Open(const std::string& path, std::shared_ptr<FileIO> io);
  ~Table();
  Table(const Table&) = delete;
  Table& operator=(const Table&) = delete;

  const std::string& path() const;
  // The latest schema when the table was opened. Reopen the table to see a later ALTER.
  const TableSchema& schema() const;
  bool has_primary_key() const { return !schema().primary_keys.empty(); }
  // The table's options over the registry defaults (options.h: Get, Explain).
  const Options& options() const;
  const std::shared_ptr<FileIO>& io() const;

  // Every snapshot present, ascending by id (expired ones are gone).
  Result<std::vector<SnapshotInfo>> Snapshots() const;
  // nullopt for a table without snapshots.
  Result<std::optional<SnapshotInfo>> LatestSnapshot() const;
  // Tags, sorted by name.
  Result<std::vector<TagInfo>> Tags() const;

  // What the metadata says about compaction: LSM trees per bucket, compactions committed, the
  // small-file backlog of append tables (table_stats.h).
  // Only the partitions matching `partition` (fjord/partition.h) when it is not empty.
  Result<TableStats> Stats(const PartitionSpec& partition = {}) const;

  // OK when `partition` fits the table: its keys are partition columns and each value is one its
  // column can hold (fjord/partition.h); else Invalid naming the key or the value ("'2026-02-30'
  // is not a date"). Every operation taking a spec checks this itself; this checks early.
  Status CheckPartitionSpec(const PartitionSpec& partition) const;

  // A writer for this table: the same interface for append and primary-key tables
  // (table_write.h). NotImplemented, naming the option, for table features Fjord does not write
  // yet, and for options (of the table or dynamic) Fjord does not honour for writes
  // (docs/options.md; NewCommit and NewCompaction refuse them too, reads refuse those that
  // concern reads); Invalid for a bad dynamic option.
  Result<std::unique_ptr<TableWrite>> NewWrite(const WriteOptions& options = {}) const;
  // Invalid, naming `source`, when `messages` (prepared elsewhere, e.g. deserialised from a file)
  // cannot belong to this table: partitions that are not rows of its partition keys, bucket
  // numbers out of range. TableCommit checks this too.
  Status CheckCommitMessages(const CommitMessages& messages, std::string_view source) const;
  // A committer for `commit_user` (table_commit.h). An empty user is Invalid.
  Result<std::unique_ptr<TableCommit>> NewCommit(std::string commit_user,
                                                 const CommitOptions& options = {}) const;
  // A read of this table (table_read.h): choose columns, filter and snapshot, then Open().
  ReadBuilder NewRead() const;
  // A dedicated compaction of this table (table_compaction.h).
  Result<std::unique_ptr<TableCompaction>> NewCompaction(
      const CompactionOptions& options = {}) const;

  // Rescales the bucket count as Java Paimon documents it (maintenance/rescale-bucket): when the
  // table's latest `bucket` differs from `options.buckets`, ALTER TABLE sets it (a new schema,
  // with Java's rule: only between positive counts); then the rows of the chosen partitions, read
  // merged at the latest snapshot, are written again with the new count and committed as ONE
  // OVERWRITE snapshot of those partitions. Afterwards writers still using the old count are
  // refused where Java refuses them (a writer opening a bucket whose files have another count; a
  // conflict-checked commit that would mix counts in a partition). Partitions left out keep
  // their files and count, and read as before. Invalid, with nothing changed, for a table that
  // is not fixed-bucket (bucket = -1, -2), a count <= 0, a table without snapshot or a spec that
  // matches no data file; NotImplemented for tables Fjord does not write. A commit by another
  // user to a fixed bucket while the rewrite runs makes it fail (Status::Conflict, as Java's
  // strict mode): nothing is committed, the schema change stays, and running it again finishes.
  Result<RescaleResult> Rescale(const RescaleOptions& options) const;
  // Expires snapshots (and long-lived changelogs) now (table_expire.h). Invalid, naming the
  // option or field, for a retain-max below retain-min or a retain-min below 1; nothing is
  // deleted then.
  Result<ExpireResult> ExpireSnapshots(const ExpireOptions& options = {}) const;

  // For Fjord's own layers: the internal table this handle wraps.
  const std::shared_ptr<const FileStoreTable>& store() const { return store_; }

 private:
  explicit Table(std::shared_ptr<const FileStoreTable> store);
  std::shared_ptr<const FileStoreTable> store_;
};

}  // namespace fjord
