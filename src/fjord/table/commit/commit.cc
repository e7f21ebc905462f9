#include "fjord/table/commit/commit.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <random>
#include <set>
#include <thread>

#include "fjord/common/ids.h"
#include "fjord/format/binary_row.h"
#include "fjord/meta/manifest_writer.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/commit/conflict_check.h"
#include "fjord/table/commit/file_entry.h"
#include "fjord/table/commit/index_manifest_combine.h"
#include "fjord/table/commit/manifest_merge.h"
#include "fjord/table/commit/strict_mode.h"

namespace fjord {

namespace {

int64_t NowMillis() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

// The options a commit reads, parsed once per snapshot attempt loop.
struct Settings {
  int64_t max_retries = 0;
  int64_t min_wait_ms = 0;
  int64_t max_wait_ms = 0;
  std::optional<int64_t> timeout_ms;
  ManifestMergeOptions merge;
  ManifestWriterOptions writer;
  std::string format;
  bool dynamic_overwrite = false;
  bool overwrite_upgrade = false;
  int32_t max_level = 0;
  int64_t bucket = 0;
};

Result<Settings> ReadSettings(const Result<CoreOptions>& options) {
  if (!options.ok()) return options.status();
  const CoreOptions& o = options.value();
  Settings s;
  s.max_retries = o.commit_max_retries();
  s.min_wait_ms = o.commit_min_retry_wait_millis();
  s.max_wait_ms = o.commit_max_retry_wait_millis();
  s.timeout_ms = o.commit_timeout_millis();
  FJORD_ASSIGN_OR_RAISE(s.merge, ManifestMergeOptions::FromOptions(o));
  FJORD_ASSIGN_OR_RAISE(s.writer, ManifestWriterOptions::FromOptions(o));
  s.dynamic_overwrite = o.dynamic_partition_overwrite();
  s.overwrite_upgrade = o.overwrite_upgrade();
  s.bucket = o.bucket();
  s.max_level = o.num_levels() - 1;
  s.format = o.manifest_format();
  return s;
}

Options CommitOptions(const TableSchema& schema,
                      const std::map<std::string, std::string>& dynamic_options) {
  Options options = Options::FromTable(schema.EffectiveOptions());
  for (const auto& [key, value] : dynamic_options) options.Set(OptionLayer::kDynamic, key, value);
  return options;
}

// Java's RetryWaiter: min(min_wait * 2^retry, max_wait) plus up to 20 % random jitter.
void WaitBeforeRetry(int retry, const Settings& s) {
  double base = static_cast<double>(s.min_wait_ms) * std::pow(2.0, retry);
  int64_t wait = static_cast<int64_t>(std::min(base, static_cast<double>(s.max_wait_ms)));
  thread_local std::mt19937_64 rng{std::random_device{}()};
  int64_t jitter_range = std::max<int64_t>(1, wait / 5);
  wait += std::uniform_int_distribution<int64_t>(0, jitter_range - 1)(rng);
  std::this_thread::sleep_for(std::chrono::milliseconds(wait));
}

// Java's ManifestEntryChanges: a message's data increment and compact increment as entries.
struct Collected {
  std::vector<ManifestEntry> append_table, append_changelog, compact_table, compact_changelog;
  std::vector<IndexManifestEntry> append_index, compact_index;
};

Collected Collect(const std::vector<CommitMessage>& messages) {
  Collected c;
  for (const CommitMessage& m : messages) {
    auto put = [&](std::vector<ManifestEntry>* out, FileKind kind,
                   const std::vector<DataFileMeta>& files) {
      for (const DataFileMeta& f : files) {
        out->push_back(ManifestEntry{kind, m.partition, m.bucket, m.total_buckets, f});
      }
    };
    auto put_index = [&](std::vector<IndexManifestEntry>* out, FileKind kind,
                         const std::vector<IndexFileMeta>& files) {
      for (const IndexFileMeta& f : files) {
        out->push_back(MakeIndexManifestEntry(kind, m.partition, m.bucket, f));
      }
    };
    put(&c.append_table, FileKind::kAdd, m.new_files);
    put(&c.append_table, FileKind::kDelete, m.deleted_files);
    put(&c.append_changelog, FileKind::kAdd, m.changelog_files);
    put_index(&c.append_index, FileKind::kAdd, m.new_index_files);
    put_index(&c.append_index, FileKind::kDelete, m.deleted_index_files);
    put(&c.compact_table, FileKind::kDelete, m.compact_before);
    put(&c.compact_table, FileKind::kAdd, m.compact_after);
    put(&c.compact_changelog, FileKind::kAdd, m.compact_changelog_files);
    put_index(&c.compact_index, FileKind::kAdd, m.compact_new_index_files);
    put_index(&c.compact_index, FileKind::kDelete, m.compact_deleted_index_files);
  }
  return c;
}

int64_t RecordDelta(const std::vector<ManifestEntry>& entries) {
  int64_t delta = 0;
  for (const ManifestEntry& e : entries) {
    delta += e.kind == FileKind::kAdd ? e.file.row_count : -e.file.row_count;
  }
  return delta;
}

std::set<std::string> PartitionsOf(const std::vector<ManifestEntry>& entries) {
  std::set<std::string> out;
  for (const ManifestEntry& e : entries) out.insert(e.partition);
  return out;
}

// Java's tryUpgrade for overwrites of primary-key tables without a compaction part: when every
// new file is at level 0 in a real bucket and, per bucket, their key ranges do not overlap, they
// go straight to the highest level.
Result<std::vector<ManifestEntry>> TryUpgrade(std::vector<ManifestEntry> entries,
                                              const TableSchema& schema, const Settings& s) {
  if (!s.overwrite_upgrade || schema.primary_keys.empty()) return entries;
  for (const ManifestEntry& e : entries) {
    if (e.kind != FileKind::kAdd || e.file.level > 0 || e.bucket < 0) return entries;
  }
  std::vector<DataTypePtr> types;
  for (const DataField& f : schema.FieldsByName(schema.TrimmedPrimaryKeys())) {
    types.push_back(f.type->WithNullable(true));
  }
  auto compare = [&](const std::vector<Value>& a, const std::vector<Value>& b) {
    for (size_t i = 0; i < types.size(); ++i) {
      if (a[i].is_null() || b[i].is_null()) {
        if (a[i].is_null() != b[i].is_null()) return a[i].is_null() ? -1 : 1;
        continue;
      }
      int c = CompareValues(a[i], b[i], *types[i]);
      if (c != 0) return c;
    }
    return 0;
  };
  std::map<std::pair<std::string, int32_t>, std::vector<size_t>> buckets;
  for (size_t i = 0; i < entries.size(); ++i) {
    buckets[{entries[i].partition, entries[i].bucket}].push_back(i);
  }
  for (auto& [key, indexes] : buckets) {
    std::vector<std::pair<std::vector<Value>, std::vector<Value>>> ranges;
    for (size_t i : indexes) {
      FJORD_ASSIGN_OR_RAISE(auto min, DecodeStoredBinaryRow(entries[i].file.min_key, types));
      FJORD_ASSIGN_OR_RAISE(auto max, DecodeStoredBinaryRow(entries[i].file.max_key, types));
      ranges.emplace_back(std::move(min), std::move(max));
    }
    std::sort(ranges.begin(), ranges.end(),
              [&](const auto& a, const auto& b) { return compare(a.first, b.first) < 0; });
    bool overlap = false;
    for (size_t i = 0; i + 1 < ranges.size() && !overlap; ++i) {
      overlap = compare(ranges[i].second, ranges[i + 1].first) >= 0;
    }
    if (overlap) continue;
    for (size_t i : indexes) entries[i].file.level = s.max_level;
  }
  return entries;
}

}  // namespace

FileStoreCommit::FileStoreCommit(std::shared_ptr<FileIO> io, std::string table_root,
                                 TableSchema schema, std::string commit_user,
                                 std::map<std::string, std::string> dynamic_options)
    : io_(std::move(io)),
      root_(std::move(table_root)),
      schema_(std::move(schema)),
      commit_user_(std::move(commit_user)),
      options_(CommitOptions(schema_, dynamic_options)),
      core_options_(CoreOptions::FromOptions(options_)) {
  // A value that does not parse fails every commit through core_options_.
  Result<std::optional<int64_t>> strict = options_.GetInt("commit.strict-mode.last-safe-snapshot");
  if (strict.ok()) strict_safe_snapshot_ = *strict;
}

Result<std::optional<FileStoreCommit::UserCommit>> FileStoreCommit::LatestOfUser() const {
  if (!filter_committed_) return std::optional<UserCommit>();
  // Java's filter-committed rule: scan back from the latest snapshot for this commit user; if
  // it committed this identifier or a later one, the messages are already in the table.
  // Walks back until a snapshot is missing (expired, or before the first) rather than asking for
  // the earliest id, which without an EARLIEST hint lists the snapshot directory: a cost that
  // would grow with every commit.
  SnapshotManager sm(io_, root_);
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> latest, sm.LatestId());
  if (!latest) return std::optional<UserCommit>();
  for (int64_t id = *latest; id >= 1; --id) {
    Result<Snapshot> s = sm.Load(id);
    if (!s.ok()) {
      if (s.status().IsNotFound()) break;  // expired (or expiring under us)
      return s.status();
    }
    if (s->commit_user == commit_user_) {
      return std::optional<UserCommit>(UserCommit{s->commit_identifier, s->commit_kind});
    }
  }
  return std::optional<UserCommit>();
}

Result<bool> FileStoreCommit::AlreadyCommitted(int64_t identifier) const {
  FJORD_ASSIGN_OR_RAISE(std::optional<UserCommit> mine, LatestOfUser());
  return mine && mine->identifier >= identifier;
}

Result<int64_t> FileStoreCommit::TryCommit(const ChangesProvider& provide, bool fixed,
                                           int64_t identifier, CommitKind kind,
                                           bool detect_conflicts) {
  FJORD_ASSIGN_OR_RAISE(Settings settings, ReadSettings(core_options_));
  TablePaths paths{root_};
  SnapshotManager sm(io_, root_);
  ManifestFileWriter writer(io_, paths, schema_, settings.writer, settings.format,
                            settings.merge.target_file_size);
  const auto started = std::chrono::steady_clock::now();

  // The delta of a `fixed` commit, written by the first attempt and reused by the others.
  struct Delta {
    Changes changes;
    std::vector<ManifestFileMeta> manifests;  // table and changelog manifests
    std::string list;
    int64_t list_size = 0;
    std::optional<std::string> changelog_list;
    int64_t changelog_list_size = 0;
  };
  std::optional<Delta> reused;
  auto delete_delta = [&](const Delta& d) {
    writer.DeleteQuietly(d.manifests);
    if (!d.list.empty()) (void)io_->Delete(paths.ManifestFile(d.list));
    if (d.changelog_list) (void)io_->Delete(paths.ManifestFile(*d.changelog_list));
  };
  // Conflict base of the previous attempt, refreshed incrementally on the next.
  std::optional<int64_t> base_id;
  std::set<std::string> base_partitions;
  std::vector<ManifestEntry> base_entries;

  std::optional<Snapshot> previous_latest;
  bool uncertain = false;  // some attempt failed without knowing whether its snapshot exists
  Status last;
  for (int retry = 0;; ++retry) {
    ++stats_.attempts;
    FJORD_ASSIGN_OR_RAISE(std::optional<Snapshot> latest, sm.Latest());
    if (uncertain && latest) {
      // Java's check after an unknown outcome: did one of our attempts create a snapshot?
      int64_t from = previous_latest ? previous_latest->id + 1 : 1;
      for (int64_t id = from; id <= latest->id; ++id) {
        Result<Snapshot> s = sm.Load(id);
        if (!s.ok()) {
          if (s.status().IsNotFound()) continue;
          return s.status();
        }
        if (s->commit_user == commit_user_ && s->commit_identifier == identifier &&
            s->commit_kind == kind) {
          stats_.snapshots.push_back(id);
          return id;
        }
      }
    }

    Delta attempt;  // this attempt's own files (all of them when not `fixed`)
    std::vector<ManifestFileMeta> merged_written;
    std::vector<std::string> lists_written;
    auto delete_attempt = [&] {
      writer.DeleteQuietly(merged_written);
      for (const std::string& l : lists_written) (void)io_->Delete(paths.ManifestFile(l));
      delete_delta(attempt);
    };
    auto fail = [&](Status st) {
      delete_attempt();
      if (reused && !uncertain) delete_delta(*reused);
      return st;
    };

    Changes fresh;
    if (!reused) {
      Result<Changes> provided = provide(latest);
      if (!provided.ok()) return fail(provided.status());
      fresh = std::move(*provided);
    }
    const Changes& changes = reused ? reused->changes : fresh;

    if (strict_safe_snapshot_ && latest) {
      // -1: the first commit is not checked (the option's documented meaning).
      if (*strict_safe_snapshot_ >= 0) {
        Status st = CheckStrictMode(io_, root_, settings.format, commit_user_,
                                    *strict_safe_snapshot_, latest->id, kind);
        if (!st.ok()) return fail(st);
      }
      strict_safe_snapshot_ = latest->id;
    }

    if (detect_conflicts && latest) {
      std::set<std::string> partitions = PartitionsOf(changes.table_files);
      Status st = [&]() -> Status {
        FJORD_ASSIGN_OR_RAISE(PartitionFilter filter, PartitionFilter::Of(partitions, schema_));
        bool incremental = base_id && base_partitions == partitions && *base_id <= latest->id;
        if (incremental) {
          // The base of the previous attempt plus the deltas committed since.
          EntryMerger merger;
          FJORD_RETURN_NOT_OK(merger.AddAll(std::move(base_entries)));
          for (int64_t id = *base_id + 1; id <= latest->id && incremental; ++id) {
            Result<Snapshot> s = sm.Load(id);
            if (!s.ok()) {
              if (!s.status().IsNotFound()) return s.status();
              incremental = false;  // expired meanwhile: read everything again
              break;
            }
            FJORD_ASSIGN_OR_RAISE(
                std::vector<ManifestFileMeta> delta,
                ReadManifestList(io_.get(), paths.ManifestFile(s->delta_manifest_list),
                                 settings.format));
            FJORD_ASSIGN_OR_RAISE(
                std::vector<ManifestEntry> entries,
                ReadMergedEntries(io_.get(), paths, settings.format, delta, filter));
            FJORD_RETURN_NOT_OK(merger.AddAll(std::move(entries)));
          }
          base_entries = merger.Take();
        }
        if (!incremental) {
          FJORD_ASSIGN_OR_RAISE(
              std::vector<ManifestFileMeta> manifests,
              ReadDataManifests(io_.get(), paths, settings.format, latest->base_manifest_list,
                                latest->delta_manifest_list));
          FJORD_ASSIGN_OR_RAISE(base_entries, ReadMergedEntries(io_.get(), paths, settings.format,
                                                                manifests, filter));
        }
        base_id = latest->id;
        base_partitions = std::move(partitions);
        return CheckConflicts(base_entries, changes.table_files, kind, schema_,
                              core_options_.value(),
                              ConflictContext{commit_user_, latest->commit_user, latest->id});
      }();
      if (!st.ok()) {
        base_id.reset();  // the base may be half-updated
        return fail(st);
      }
    }

    // Prepare the snapshot: merged base manifests, the lists, the index manifest.
    Result<Snapshot> prepared = [&]() -> Result<Snapshot> {
      std::vector<ManifestFileMeta> before;
      if (latest) {
        FJORD_ASSIGN_OR_RAISE(
            before, ReadDataManifests(io_.get(), paths, settings.format, latest->base_manifest_list,
                                      latest->delta_manifest_list));
      }
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> base,
          MergeManifests(before, writer, schema_, settings.merge, &merged_written));
      stats_.manifests_merged += static_cast<int64_t>(merged_written.size());
      std::string base_name = "manifest-list-" + RandomUuid() + "-0";
      FJORD_ASSIGN_OR_RAISE(
          int64_t base_size,
          WriteManifestList(io_.get(), paths.ManifestFile(base_name), base, settings.writer));
      lists_written.push_back(base_name);

      Delta* delta = reused ? &*reused : &attempt;
      if (!reused) {
        FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> table_manifests,
                              writer.Write(changes.table_files));
        attempt.manifests = table_manifests;
        attempt.list = "manifest-list-" + RandomUuid() + "-0";
        FJORD_ASSIGN_OR_RAISE(attempt.list_size,
                              WriteManifestList(io_.get(), paths.ManifestFile(attempt.list),
                                                table_manifests, settings.writer));
        if (!changes.changelog_files.empty()) {
          FJORD_ASSIGN_OR_RAISE(std::vector<ManifestFileMeta> changelog,
                                writer.Write(changes.changelog_files));
          attempt.manifests.insert(attempt.manifests.end(), changelog.begin(), changelog.end());
          attempt.changelog_list = "manifest-list-" + RandomUuid() + "-0";
          FJORD_ASSIGN_OR_RAISE(
              attempt.changelog_list_size,
              WriteManifestList(io_.get(), paths.ManifestFile(*attempt.changelog_list), changelog,
                                settings.writer));
        }
      }

      Snapshot s;
      s.id = latest ? latest->id + 1 : 1;
      s.schema_id = schema_.id;
      s.base_manifest_list = base_name;
      s.base_manifest_list_size = base_size;
      s.delta_manifest_list = delta->list;
      s.delta_manifest_list_size = delta->list_size;
      if (delta->changelog_list) {
        s.changelog_manifest_list = delta->changelog_list;
        s.changelog_manifest_list_size = delta->changelog_list_size;
        int64_t rows = 0;
        for (const ManifestEntry& e : changes.changelog_files) rows += e.file.row_count;
        s.changelog_record_count = rows;
      }
      if (latest) s.index_manifest = latest->index_manifest;
      if (!changes.index_files.empty()) {
        // Recomputed on every attempt: another commit may have changed the index meanwhile.
        std::vector<IndexManifestEntry> previous;
        if (s.index_manifest) {
          FJORD_ASSIGN_OR_RAISE(
              previous,
              ReadIndexManifest(io_.get(), paths.ManifestFile(*s.index_manifest), settings.format));
        }
        bool unaware = settings.bucket == -1 && schema_.primary_keys.empty();
        FJORD_ASSIGN_OR_RAISE(std::vector<IndexManifestEntry> index,
                              CombineIndexManifest(previous, changes.index_files, unaware));
        std::string name = "index-manifest-" + RandomUuid() + "-0";
        FJORD_RETURN_NOT_OK(
            WriteIndexManifest(io_.get(), paths.ManifestFile(name), index, settings.writer)
                .status());
        lists_written.push_back(name);
        s.index_manifest = name;
      }
      s.commit_user = commit_user_;
      s.commit_identifier = identifier;
      s.commit_kind = kind;
      s.time_millis = NowMillis();
      s.log_offsets = std::map<int32_t, int64_t>{};
      int64_t delta_records = RecordDelta(changes.table_files);
      s.total_record_count = (latest ? latest->total_record_count.value_or(0) : 0) + delta_records;
      s.delta_record_count = delta_records;
      if (latest && latest->watermark) s.watermark = latest->watermark;
      if (latest && latest->statistics && latest->schema_id == schema_.id) {
        s.statistics = latest->statistics;  // inherited while the schema stays the same
      }
      s.next_row_id = latest ? latest->next_row_id.value_or(0) : 0;
      if (!snapshot_properties_.empty()) s.properties = snapshot_properties_;
      return s;
    }();
    if (!prepared.ok()) return fail(prepared.status());
    if (fixed && !reused) {
      reused = std::move(attempt);
      reused->changes = std::move(fresh);
      attempt = Delta{};
    }

    Status created = io_->CreateIfAbsent(paths.SnapshotFile(prepared->id), prepared->ToJson());
    if (created.ok()) {
      (void)io_->Overwrite(paths.LatestHint(), std::to_string(prepared->id));  // a hint
      stats_.snapshots.push_back(prepared->id);
      return prepared->id;
    }
    if (created.IsAlreadyExists()) {
      delete_attempt();  // another committer took the id: nothing references these files
    } else {
      uncertain = true;  // the snapshot may exist: keep every file it could reference
    }
    last = created;
    previous_latest = std::move(latest);
    auto elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::steady_clock::now() - started)
                       .count();
    if (retry >= settings.max_retries || (settings.timeout_ms && elapsed > *settings.timeout_ms)) {
      if (reused && !uncertain) delete_delta(*reused);
      return Status::Conflict(
          "commit of identifier ", identifier, " (", CommitKindName(kind), ") by user '",
          commit_user_, "' failed after ", retry + 1, " attempts in ", elapsed,
          " ms; concurrent commits kept taking the snapshot id: ", last.message());
    }
    WaitBeforeRetry(retry, settings);
  }
}

Result<std::optional<int64_t>> FileStoreCommit::Commit(const std::vector<CommitMessage>& messages,
                                                       int64_t identifier, CommitKind kind) {
  stats_ = {};
  if (kind != CommitKind::kAppend && kind != CommitKind::kCompact) {
    return Status::Invalid("Commit takes APPEND or COMPACT, not ", CommitKindName(kind),
                           " (use Overwrite)");
  }
  Collected c = Collect(messages);
  bool has_compact =
      !c.compact_table.empty() || !c.compact_changelog.empty() || !c.compact_index.empty();
  FJORD_ASSIGN_OR_RAISE(std::optional<UserCommit> mine, LatestOfUser());
  // The APPEND snapshot of this identifier landed but its COMPACT snapshot did not (the commit
  // failed or the process died between the two): only the compaction is left to commit. Java's
  // filter-committed rule skips the whole identifier, leaving the compaction's output orphaned,
  // which is safe only when every writer is rebuilt from the table afterwards; a writer that
  // lives on (or a later checkpoint it prepared) builds on that compaction, and its next one
  // would delete files the table never had. Opt-in (complete_compaction_).
  bool compact_only = complete_compaction_ && kind == CommitKind::kAppend && has_compact && mine &&
                      mine->identifier == identifier && mine->kind != CommitKind::kCompact;
  if (mine && mine->identifier >= identifier && !compact_only) {
    stats_.already_committed = true;
    return std::optional<int64_t>();
  }
  auto fixed = [](Changes changes) -> ChangesProvider {
    return [changes = std::move(changes)](const std::optional<Snapshot>&) -> Result<Changes> {
      return changes;
    };
  };
  std::optional<int64_t> last;
  if (kind == CommitKind::kCompact) {
    Changes all;
    all.table_files = c.append_table;
    all.table_files.insert(all.table_files.end(), c.compact_table.begin(), c.compact_table.end());
    all.changelog_files = c.append_changelog;
    all.changelog_files.insert(all.changelog_files.end(), c.compact_changelog.begin(),
                               c.compact_changelog.end());
    all.index_files = c.append_index;
    all.index_files.insert(all.index_files.end(), c.compact_index.begin(), c.compact_index.end());
    if (all.table_files.empty() && all.changelog_files.empty() && all.index_files.empty()) {
      return std::optional<int64_t>();  // nothing was compacted
    }
    FJORD_ASSIGN_OR_RAISE(
        int64_t id, TryCommit(fixed(std::move(all)), true, identifier, CommitKind::kCompact, true));
    return std::optional<int64_t>(id);
  }
  bool ignore_empty = true;
  if (ignore_empty_commit_) {
    ignore_empty = *ignore_empty_commit_;
  } else {
    if (!core_options_.ok()) return core_options_.status();
    // Batch commits ignore empty commits unless the table says otherwise.
    ignore_empty = core_options_.value().snapshot_ignore_empty_commit().value_or(true);
  }
  if (!compact_only && (!ignore_empty || !c.append_table.empty() || !c.append_changelog.empty() ||
                        !c.append_index.empty())) {
    // An append that deletes files or carries deletion vectors is an overwrite, checked for
    // conflicts (Java 1.3+).
    bool deletes =
        std::any_of(c.append_table.begin(), c.append_table.end(),
                    [](const ManifestEntry& e) { return e.kind == FileKind::kDelete; }) ||
        std::any_of(c.append_index.begin(), c.append_index.end(),
                    [](const IndexManifestEntry& e) { return e.index_type == "DELETION_VECTORS"; });
    Changes append{std::move(c.append_table), std::move(c.append_changelog),
                   std::move(c.append_index)};
    FJORD_ASSIGN_OR_RAISE(
        last, TryCommit(fixed(std::move(append)), true, identifier,
                        deletes ? CommitKind::kOverwrite : CommitKind::kAppend, deletes));
  }
  if (has_compact) {
    Changes compact{std::move(c.compact_table), std::move(c.compact_changelog),
                    std::move(c.compact_index)};
    FJORD_ASSIGN_OR_RAISE(
        last, TryCommit(fixed(std::move(compact)), true, identifier, CommitKind::kCompact, true));
  }
  return last;
}

Result<std::optional<int64_t>> FileStoreCommit::OverwriteScoped(
    std::vector<ManifestEntry> new_files, std::vector<IndexManifestEntry> new_index,
    Changes compact, int64_t identifier, const PartitionFilter& scope) {
  FJORD_ASSIGN_OR_RAISE(Settings settings, ReadSettings(core_options_));
  TablePaths paths{root_};
  // Every live file in scope is deleted (real buckets only, except in postpone-bucket tables),
  // so are the index files of those partitions; then the new files are added.
  ChangesProvider provide = [&, new_files,
                             new_index](const std::optional<Snapshot>& latest) -> Result<Changes> {
    Changes changes;
    if (latest) {
      FJORD_ASSIGN_OR_RAISE(
          std::vector<ManifestFileMeta> manifests,
          ReadDataManifests(io_.get(), paths, settings.format, latest->base_manifest_list,
                            latest->delta_manifest_list));
      FJORD_ASSIGN_OR_RAISE(std::vector<ManifestEntry> live,
                            ReadMergedEntries(io_.get(), paths, settings.format, manifests, scope));
      for (ManifestEntry& e : live) {
        if (e.kind != FileKind::kAdd || (e.bucket < 0 && settings.bucket != -2)) continue;
        e.kind = FileKind::kDelete;
        changes.table_files.push_back(std::move(e));
      }
      if (latest->index_manifest) {
        FJORD_ASSIGN_OR_RAISE(
            std::vector<IndexManifestEntry> index,
            ReadIndexManifest(io_.get(), paths.ManifestFile(*latest->index_manifest),
                              settings.format));
        for (IndexManifestEntry& e : index) {
          FJORD_ASSIGN_OR_RAISE(bool in_scope, scope.Contains(e.partition));
          if (!in_scope) continue;
          e.kind = FileKind::kDelete;
          changes.index_files.push_back(std::move(e));
        }
      }
    }
    changes.table_files.insert(changes.table_files.end(), new_files.begin(), new_files.end());
    changes.index_files.insert(changes.index_files.end(), new_index.begin(), new_index.end());
    return changes;
  };
  std::optional<int64_t> last;
  FJORD_ASSIGN_OR_RAISE(last, TryCommit(provide, false, identifier, CommitKind::kOverwrite, true));
  if (!compact.table_files.empty() || !compact.index_files.empty()) {
    ChangesProvider fixed =
        [changes = std::move(compact)](const std::optional<Snapshot>&) -> Result<Changes> {
      return changes;
    };
    FJORD_ASSIGN_OR_RAISE(last, TryCommit(fixed, true, identifier, CommitKind::kCompact, true));
  }
  return last;
}

Result<std::optional<int64_t>> FileStoreCommit::Overwrite(
    const std::vector<CommitMessage>& messages, int64_t identifier,
    const std::map<std::string, std::string>& static_partition) {
  FJORD_ASSIGN_OR_RAISE(Settings settings, ReadSettings(core_options_));
  if (!schema_.partition_keys.empty() && settings.dynamic_overwrite) {
    return OverwriteIn(messages, identifier, nullptr, "");
  }
  FJORD_ASSIGN_OR_RAISE(PartitionFilter scope, PartitionFilter::OfSpecs({static_partition}, schema_,
                                                                        core_options_.value()));
  std::string spec;
  for (const auto& [k, v] : static_partition) spec += (spec.empty() ? "" : ",") + k + "=" + v;
  return OverwriteIn(messages, identifier, &scope, spec);
}

Result<std::optional<int64_t>> FileStoreCommit::OverwritePartitions(
    const std::vector<CommitMessage>& messages, int64_t identifier,
    std::set<std::string> partitions) {
  if (!core_options_.ok()) return core_options_.status();
  if (schema_.partition_keys.empty()) {
    PartitionFilter all = PartitionFilter::All();
    return OverwriteIn(messages, identifier, &all, "");
  }
  std::string text;
  for (const std::string& p : partitions) {
    text += (text.empty() ? "" : "; ") + PartitionDisplay(p, schema_, core_options_.value());
  }
  FJORD_ASSIGN_OR_RAISE(PartitionFilter scope, PartitionFilter::Of(std::move(partitions), schema_));
  return OverwriteIn(messages, identifier, &scope, text);
}

Result<std::optional<int64_t>> FileStoreCommit::OverwriteIn(
    const std::vector<CommitMessage>& messages, int64_t identifier,
    const PartitionFilter* static_scope, const std::string& scope_text) {
  stats_ = {};
  FJORD_ASSIGN_OR_RAISE(Settings settings, ReadSettings(core_options_));
  FJORD_ASSIGN_OR_RAISE(bool done, AlreadyCommitted(identifier));
  if (done) {
    stats_.already_committed = true;
    return std::optional<int64_t>();
  }
  // Overwrites commit no changelog (Java logs a warning and drops it).
  Collected c = Collect(messages);
  PartitionFilter scope = PartitionFilter::All();
  if (!static_scope) {
    if (c.append_table.empty()) {
      // Dynamic mode with no new data: nothing is replaced (a compaction part still commits).
      if (c.compact_table.empty() && c.compact_index.empty()) return std::optional<int64_t>();
      Changes compact{std::move(c.compact_table), {}, std::move(c.compact_index)};
      ChangesProvider fixed = [compact](const std::optional<Snapshot>&) -> Result<Changes> {
        return compact;
      };
      FJORD_ASSIGN_OR_RAISE(int64_t id,
                            TryCommit(fixed, true, identifier, CommitKind::kCompact, true));
      return std::optional<int64_t>(id);
    }
    FJORD_ASSIGN_OR_RAISE(scope, PartitionFilter::Of(PartitionsOf(c.append_table), schema_));
  } else {
    scope = *static_scope;
    for (const ManifestEntry& e : c.append_table) {
      FJORD_ASSIGN_OR_RAISE(bool inside, scope.Contains(e.partition));
      if (!inside) {
        return Status::Invalid("trying to overwrite partition ", scope_text, ", but the new file ",
                               e.file.file_name, " is in partition ",
                               PartitionDisplay(e.partition, schema_, core_options_.value()),
                               ", which does not belong to it");
      }
    }
  }
  if (c.compact_table.empty()) {
    FJORD_ASSIGN_OR_RAISE(c.append_table, TryUpgrade(std::move(c.append_table), schema_, settings));
  }
  return OverwriteScoped(std::move(c.append_table), std::move(c.append_index),
                         Changes{std::move(c.compact_table), {}, std::move(c.compact_index)},
                         identifier, scope);
}

Result<std::optional<int64_t>> FileStoreCommit::DropPartitions(
    const std::vector<std::map<std::string, std::string>>& partitions, int64_t identifier) {
  stats_ = {};
  if (partitions.empty()) return Status::Invalid("DropPartitions needs at least one partition");
  for (const auto& p : partitions) {
    if (p.empty()) return Status::Invalid("DropPartitions got an empty partition spec");
  }
  if (!core_options_.ok()) return core_options_.status();
  FJORD_ASSIGN_OR_RAISE(PartitionFilter scope,
                        PartitionFilter::OfSpecs(partitions, schema_, core_options_.value()));
  return OverwriteScoped({}, {}, {}, identifier, scope);
}

Result<std::optional<int64_t>> FileStoreCommit::Truncate(int64_t identifier) {
  stats_ = {};
  return OverwriteScoped({}, {}, {}, identifier, PartitionFilter::All());
}

}  // namespace fjord
