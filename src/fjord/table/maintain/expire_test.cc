// Snapshot and changelog expiration (table/maintain/): the picking rules one by one, what is
// deleted and what is kept (upgraded files, tagged files, changelog files, long-lived
// changelogs), crashes at every I/O step of a run, post-commit maintenance, and a randomised
// history checked after every step: every retained snapshot reads exactly its rows, every file a
// retained snapshot, tag or long-lived changelog reaches is on disk.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/meta/changelog_manager.h"
#include "fjord/meta/consumer.h"
#include "fjord/meta/manifest.h"
#include "fjord/meta/partition_path.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/maintain/changelog_expire.h"
#include "fjord/table/maintain/commit_maintenance.h"
#include "fjord/table/maintain/snapshot_expire.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;
using Rows = std::map<int32_t, std::string>;

struct Change {
  std::string kind;
  int32_t id;
  std::string v;
};

// Partitioned tables also get p = id % 3.
std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<Change>& changes, bool partitioned) {
  arrow::StringBuilder kind, v;
  arrow::Int32Builder id, p;
  for (const Change& c : changes) {
    EXPECT_TRUE(kind.Append(c.kind).ok());
    EXPECT_TRUE(id.Append(c.id).ok());
    EXPECT_TRUE(v.Append(c.v).ok());
    EXPECT_TRUE(p.Append(c.id % 3).ok());
  }
  std::vector<std::shared_ptr<arrow::Field>> fields = {
      arrow::field("_row_kind", arrow::utf8(), false), arrow::field("id", arrow::int32(), false),
      arrow::field("v", arrow::utf8())};
  std::vector<std::shared_ptr<arrow::Array>> columns = {*kind.Finish(), *id.Finish(), *v.Finish()};
  if (partitioned) {
    fields.push_back(arrow::field("p", arrow::int32(), false));
    columns.push_back(*p.Finish());
  }
  return arrow::RecordBatch::Make(arrow::schema(fields), static_cast<int64_t>(changes.size()),
                                  columns);
}

void Apply(const std::vector<Change>& changes, Rows* rows) {
  for (const Change& c : changes) {
    if (c.kind == "+I" || c.kind == "+U") {
      (*rows)[c.id] = c.v;
    } else {
      rows->erase(c.id);
    }
  }
}

// Every file under the table directory except schema, hints and consumer files, relative.
std::set<std::string> FilesOnDisk(const std::string& root) {
  std::set<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file()) continue;
    std::string rel = fs::relative(e.path(), root).string();
    std::string name = e.path().filename().string();
    if (rel.rfind("schema/", 0) == 0 || rel.rfind("consumer/", 0) == 0) continue;
    if (name == "LATEST" || name == "EARLIEST" || name[0] == '.') continue;
    out.insert(rel);
  }
  return out;
}

// The value of `r`, or a test failure naming `what` and a default value.
template <typename T>
T Must(Result<T> r, const std::string& what) {
  if (!r.ok()) {
    ADD_FAILURE() << what << ": " << r.status().ToString();
    return T{};
  }
  return std::move(r).value();
}

class ExpireTest : public ::testing::Test {
 protected:
  std::unique_ptr<Table> MakeTable(std::vector<std::pair<std::string, std::string>> options,
                                   bool partitioned = false) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList(partitioned ? "id INT NOT NULL, v STRING, p INT NOT NULL"
                                               : "id INT NOT NULL, v STRING");
    spec.primary_keys =
        partitioned ? std::vector<std::string>{"id", "p"} : std::vector<std::string>{"id"};
    if (partitioned) spec.partition_keys = {"p"};
    std::map<std::string, std::string> merged = {{"bucket", "2"}, {"file.format", "parquet"}};
    for (auto& [k, v] : options) merged[k] = v;
    spec.options.assign(merged.begin(), merged.end());
    TableIdentifier id{"db", "t" + std::to_string(++tables_)};
    EXPECT_OK(catalog->CreateTable(id, spec));
    auto t = *catalog->GetTable(id);
    root_ = t->store()->path();
    partitioned_ = partitioned;
    return t;
  }

  std::unique_ptr<Table> Reopen(std::shared_ptr<FileIO> io = nullptr) {
    if (io) return *Table::Open(root_, io);
    return *Table::Open(root_);
  }

  // Commits `changes` and records the model of the snapshots made.
  void Commit(Table& table, const std::vector<Change>& changes,
              std::map<std::string, std::string> dynamic = {}) {
    WriteOptions wo;
    wo.dynamic_options = dynamic;
    auto writer = *table.NewWrite(wo);
    ASSERT_OK(WriteBatch(*writer, *Batch(changes, partitioned_)));
    auto messages = writer->PrepareCommit(++identifier_);
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    CommitOptions co;
    co.dynamic_options = dynamic;
    auto commit = *table.NewCommit("test", co);
    auto result = commit->Commit(*messages, identifier_);
    ASSERT_TRUE(result.ok()) << result.status().ToString();
    ASSERT_OK(commit->Close());
    Apply(changes, &rows_);
    for (int64_t id : result->snapshots) model_[id] = rows_;
  }

  void FullCompact(Table& table) {
    CompactionOptions options;
    options.full = true;
    auto compaction = *table.NewCompaction(options);
    ASSERT_OK(compaction->Run().status());
    auto latest = *table.LatestSnapshot();
    if (latest) model_[latest->id] = rows_;
  }

  Result<Rows> Read(const Table& table, std::optional<int64_t> snapshot,
                    std::optional<std::string> tag = std::nullopt) {
    Rows out;
    ReadBuilder read = table.NewRead();
    if (snapshot) read.AtSnapshot(*snapshot);
    if (tag) read.AtTag(*tag);
    FJORD_ASSIGN_OR_RAISE(auto reader, OpenArrowReader(read));
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      auto st = reader->ReadNext(&batch);
      if (!st.ok()) return Status::IOError(st.ToString());
      if (!batch) break;
      auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
      auto v = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("v"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        out[id->Value(r)] = v->IsNull(r) ? "" : v->GetString(r);
      }
    }
    return out;
  }

  std::vector<int64_t> SnapshotIds() {
    auto table = Reopen();
    return *table->store()->snapshots().ListIds();
  }

  // Creates tag `name` on snapshot `id` (the snapshot's JSON, as Java's tag files hold).
  void Tag(const std::string& name, int64_t id) {
    fs::create_directories(root_ + "/tag");
    fs::copy_file(root_ + "/snapshot/snapshot-" + std::to_string(id), root_ + "/tag/tag-" + name);
    tags_[name] = id;
  }

  // Every retained snapshot and tag reads exactly its model rows.
  void CheckRetainedRead() {
    auto table = Reopen();
    for (int64_t id : SnapshotIds()) {
      ASSERT_TRUE(model_.count(id)) << id;
      auto rows = Read(*table, id);
      ASSERT_TRUE(rows.ok()) << "snapshot " << id << ": " << rows.status().ToString();
      EXPECT_EQ(*rows, model_[id]) << "snapshot " << id;
    }
    for (const auto& [name, id] : tags_) {
      auto rows = Read(*table, std::nullopt, name);
      ASSERT_TRUE(rows.ok()) << "tag " << name << ": " << rows.status().ToString();
      EXPECT_EQ(*rows, model_[id]) << "tag " << name;
    }
  }

  // The files the retained snapshots, tags and long-lived changelogs reach, relative.
  std::set<std::string> Reachable() {
    auto table = Reopen();
    const FileStoreTable& t = *table->store();
    std::set<std::string> out;
    std::vector<Snapshot> all;
    std::vector<int64_t> snapshot_ids = Must(t.snapshots().ListIds(), "list");
    for (int64_t id : snapshot_ids) {
      all.push_back(Must(t.snapshots().Load(id), "snapshot"));
      out.insert("snapshot/snapshot-" + std::to_string(id));
    }
    std::vector<std::string> tag_names = Must(t.snapshots().ListTags(), "tags");
    for (const std::string& name : tag_names) {
      // A tag keeps the table as of its snapshot, not that snapshot's changelog (Java's skipping
      // sets leave changelog manifest lists out).
      Snapshot tag = Must(t.snapshots().LoadTag(name), "tag");
      tag.changelog_manifest_list.reset();
      all.push_back(std::move(tag));
      out.insert("tag/tag-" + name);
    }
    ChangelogManager changelogs(t.io(), t.path());
    std::set<int64_t> long_lived;
    std::vector<int64_t> changelog_ids = Must(changelogs.ListIds(), "changelogs");
    for (int64_t id : changelog_ids) {
      all.push_back(Must(changelogs.Load(id), "changelog"));
      long_lived.insert(id);
      out.insert("changelog/changelog-" + std::to_string(id));
    }
    std::string format = t.core_options().manifest_format();
    auto file_of = [&](const ManifestEntry& e) {
      std::string dir = *BucketPath("", t.schema(), t.core_options(), e.partition, e.bucket);
      if (!dir.empty() && dir[0] == '/') dir = dir.substr(1);
      return dir + "/" + e.file.file_name;
    };
    for (const Snapshot& s : all) {
      bool changelog_only = long_lived.count(s.id) && !t.snapshots().Load(s.id).ok();
      bool none = t.core_options().changelog_producer() == ChangelogProducer::kNone;
      std::vector<std::string> lists;
      if (!changelog_only || none) lists = {s.base_manifest_list, s.delta_manifest_list};
      // A snapshot or tag: the live files of base + delta. A long-lived changelog of producer
      // none: the files its APPEND delta added (its changelog) and the manifests it keeps.
      std::map<std::string, int> live;
      for (const std::string& list : lists) {
        out.insert("manifest/" + list);
        for (const ManifestFileMeta& m :
             Must(ReadManifestList(t.io().get(), t.path() + "/manifest/" + list, format), list)) {
          out.insert("manifest/" + m.file_name);
          if (changelog_only && list != s.delta_manifest_list) continue;
          for (const ManifestEntry& e :
               Must(ReadManifestFile(t.io().get(), t.path() + "/manifest/" + m.file_name, format),
                    m.file_name)) {
            if (changelog_only) {
              if (s.commit_kind == CommitKind::kAppend && e.kind == FileKind::kAdd &&
                  e.file.file_source.value_or(0) == 0) {
                live[file_of(e)] = 1;
              }
            } else if (e.kind == FileKind::kAdd) {
              live[file_of(e)]++;
            } else {
              live[file_of(e)]--;
            }
          }
        }
      }
      for (const auto& [f, n] : live) {
        if (n > 0) out.insert(f);
      }
      if (s.changelog_manifest_list) {
        out.insert("manifest/" + *s.changelog_manifest_list);
        for (const ManifestFileMeta& m :
             Must(ReadManifestList(t.io().get(),
                                   t.path() + "/manifest/" + *s.changelog_manifest_list, format),
                  "ReadManifestList")) {
          out.insert("manifest/" + m.file_name);
          for (const ManifestEntry& e :
               Must(ReadManifestFile(t.io().get(), t.path() + "/manifest/" + m.file_name, format),
                    "ReadManifestFile")) {
            out.insert(file_of(e));
          }
        }
      }
      if (s.index_manifest && !changelog_only) {
        out.insert("manifest/" + *s.index_manifest);
        for (const IndexManifestEntry& e :
             Must(ReadIndexManifest(t.io().get(), t.path() + "/manifest/" + *s.index_manifest,
                                    format),
                  "ReadIndexManifest")) {
          out.insert("index/" + e.file_name);
        }
      }
    }
    return out;
  }

  void CheckReachableOnDisk() {
    std::set<std::string> disk = FilesOnDisk(root_);
    for (const std::string& f : Reachable()) EXPECT_TRUE(disk.count(f)) << "missing " << f;
  }

  ExpireReport Expire(const ExpireConfig& config, std::optional<int64_t> now = std::nullopt) {
    auto table = Reopen();
    ExpireRunOptions run;
    run.now_millis = now;
    auto report = ExpireSnapshots(*table->store(), config, run);
    EXPECT_TRUE(report.ok()) << report.status().ToString();
    if (config.ChangelogDecoupled() && report.ok()) {
      auto c = ExpireChangelogs(*table->store(), config, run);
      EXPECT_TRUE(c.ok()) << c.status().ToString();
    }
    return report.ok() ? *report : ExpireReport{};
  }

  static ExpireConfig Keep(int64_t min, int64_t max = 1 << 30) {
    ExpireConfig c;
    c.snapshot_retain_min = min;
    c.snapshot_retain_max = max;
    c.snapshot_time_retain_millis = 0;
    return c;
  }

  // `n` commits of upserts and deletes over ids [0, 30).
  void Commits(Table& table, int n, std::mt19937* rng) {
    for (int i = 0; i < n; ++i) {
      std::vector<Change> changes;
      std::uniform_int_distribution<int> id(0, 29), count(1, 8), op(0, 9);
      int c = count(*rng);
      for (int j = 0; j < c; ++j) {
        int32_t key = id(*rng);
        if (op(*rng) < 3 && rows_.count(key)) {
          changes.push_back({"-D", key, ""});
        } else {
          changes.push_back({"+I", key, "v" + std::to_string((*rng)() % 1000)});
        }
      }
      Commit(table, changes);
    }
  }

  TempDir dir_;
  std::string root_;
  bool partitioned_ = false;
  int tables_ = 0;
  int64_t identifier_ = 0;
  Rows rows_;
  std::map<int64_t, Rows> model_;
  std::map<std::string, int64_t> tags_;
};

TEST_F(ExpireTest, RetainMinKeepsTheNewestAndDeletesEverythingElse) {
  auto table = MakeTable({{"num-sorted-run.compaction-trigger", "2"}});
  std::mt19937 rng(1);
  Commits(*table, 12, &rng);
  ASSERT_EQ(SnapshotIds().front(), 1);
  int64_t latest = SnapshotIds().back();
  ExpireReport r = Expire(Keep(4));
  EXPECT_EQ(r.begin, 1);
  EXPECT_EQ(r.end, latest - 3);
  EXPECT_EQ(r.expired, latest - 4);
  std::vector<int64_t> ids = SnapshotIds();
  ASSERT_EQ(ids.size(), 4u);
  EXPECT_EQ(ids.front(), latest - 3);
  EXPECT_EQ(*ReadIdHint(FileIO::Local().get(), root_ + "/snapshot/EARLIEST"), latest - 3);
  CheckRetainedRead();
  // Nothing unreachable is left behind: the files on disk are exactly the reachable ones.
  EXPECT_EQ(FilesOnDisk(root_), Reachable());
}

TEST_F(ExpireTest, RetainMaxWinsOverTimeAndLimitCapsOneRun) {
  auto table = MakeTable({});
  std::mt19937 rng(2);
  Commits(*table, 10, &rng);
  int64_t latest = SnapshotIds().back();
  // Every snapshot is younger than a day: only retain-max expires.
  ExpireConfig c = Keep(1, 6);
  c.snapshot_time_retain_millis = 24 * 3600 * 1000LL;
  Expire(c);
  EXPECT_EQ(SnapshotIds().front(), latest - 5);
  // Limit: at most 2 per run.
  c = Keep(1);
  c.snapshot_max_deletes = 2;
  Expire(c);
  EXPECT_EQ(SnapshotIds().front(), latest - 3);
  CheckRetainedRead();
  CheckReachableOnDisk();
}

TEST_F(ExpireTest, TimeRetainedStopsAtTheFirstYoungSnapshot) {
  auto table = MakeTable({});
  std::mt19937 rng(3);
  Commits(*table, 6, &rng);
  auto t = Reopen();
  int64_t time4 = t->store()->snapshots().Load(4)->time_millis;
  ExpireConfig c = Keep(1);
  c.snapshot_time_retain_millis = 1000;
  // "now" = snapshot 4's time + 1 s: snapshot 4 is exactly at the boundary, so it stays.
  Expire(c, time4 + 1000);
  std::vector<int64_t> ids = SnapshotIds();
  ASSERT_FALSE(ids.empty());
  EXPECT_LE(ids.front(), 4);
  auto s = t->store()->snapshots().Load(ids.front());
  EXPECT_GE(s->time_millis, time4 - 0);
  if (ids.front() > 1) {
    EXPECT_LT(t->store()->snapshots().Load(ids.front() - 1).status().ok(), true);
  }
  // Far in the future: all but retain-min go.
  Expire(c, time4 + 1000LL * 3600 * 1000);
  EXPECT_EQ(SnapshotIds().size(), 1u);
  CheckRetainedRead();
}

TEST_F(ExpireTest, ConsumerProtectsItsNextSnapshot) {
  auto table = MakeTable({});
  std::mt19937 rng(4);
  Commits(*table, 8, &rng);
  ConsumerManager consumers(FileIO::Local(), root_);
  ASSERT_OK(consumers.Write("reader", Consumer{3}));
  Expire(Keep(1));
  EXPECT_EQ(SnapshotIds().front(), 3);
  // consumer.changelog-only: consumers no longer hold snapshots.
  ExpireConfig c = Keep(1);
  c.consumer_changelog_only = true;
  Expire(c);
  EXPECT_EQ(SnapshotIds().size(), 1u);
  CheckRetainedRead();
  CheckReachableOnDisk();
}

TEST_F(ExpireTest, TaggedFilesSurviveAndTheTagReads) {
  auto table = MakeTable({{"num-sorted-run.compaction-trigger", "2"}});
  std::mt19937 rng(5);
  Commits(*table, 5, &rng);
  Tag("t3", 3);
  Commits(*table, 4, &rng);
  FullCompact(*table);
  Commits(*table, 3, &rng);
  Expire(Keep(2));
  EXPECT_EQ(SnapshotIds().size(), 2u);
  CheckRetainedRead();  // includes the tag
  EXPECT_EQ(FilesOnDisk(root_), Reachable());
}

TEST_F(ExpireTest, UpgradedFilesAreKeptAndDeletedFilesGo) {
  // A full compaction of a single level-0 file per bucket upgrades it (DELETE + ADD of the same
  // name in one delta): expiring the snapshots before must keep it.
  auto table = MakeTable({{"bucket", "1"}});
  Commit(*table, {{"+I", 1, "a"}, {"+I", 2, "b"}});
  FullCompact(*table);  // upgrade
  Commit(*table, {{"+I", 3, "c"}});
  Commit(*table, {{"-D", 1, ""}});
  FullCompact(*table);  // rewrite: old files deleted
  Commit(*table, {{"+I", 4, "d"}});
  Expire(Keep(1));
  EXPECT_EQ(SnapshotIds().size(), 1u);
  CheckRetainedRead();
  EXPECT_EQ(FilesOnDisk(root_), Reachable());
}

TEST_F(ExpireTest, ChangelogFilesExpireWithTheirSnapshots) {
  auto table = MakeTable({{"changelog-producer", "input"}});
  std::mt19937 rng(6);
  Commits(*table, 6, &rng);
  size_t changelog_files = 0;
  for (const std::string& f : FilesOnDisk(root_)) {
    if (f.find("/changelog-") != std::string::npos) ++changelog_files;
  }
  ASSERT_GT(changelog_files, 0u);
  Expire(Keep(1));
  CheckRetainedRead();
  EXPECT_EQ(FilesOnDisk(root_), Reachable());
  EXPECT_FALSE(fs::exists(root_ + "/changelog"));
}

class DecoupledTest : public ExpireTest, public ::testing::WithParamInterface<std::string> {};

TEST_P(DecoupledTest, LongLivedChangelogsOutliveSnapshotsThenExpire) {
  auto table =
      MakeTable({{"changelog-producer", GetParam()}, {"num-sorted-run.compaction-trigger", "2"}});
  std::mt19937 rng(7);
  Commits(*table, 10, &rng);
  int64_t latest = SnapshotIds().back();
  ExpireConfig c = Keep(2);
  c.changelog_retain_min = 6;
  c.changelog_retain_max = 6;
  c.changelog_time_retain_millis = 0;
  ASSERT_TRUE(c.ChangelogDecoupled());
  Expire(c);
  EXPECT_EQ(SnapshotIds().size(), 2u);
  auto t = Reopen();
  ChangelogManager changelogs(t->store()->io(), root_);
  std::vector<int64_t> kept = *changelogs.ListIds();
  // changelog.num-retained = 6: the 4 long-lived ones before the 2 snapshots.
  ASSERT_FALSE(kept.empty());
  EXPECT_EQ(kept.back(), latest - 2);
  EXPECT_EQ(kept.front(), latest - 5);
  CheckRetainedRead();
  CheckReachableOnDisk();
  // Coupled again: the long-lived ones go once the changelog retention is the snapshot one.
  ExpireConfig d = Keep(1);
  d.changelog_retain_min = 2;
  d.changelog_retain_max = 2;
  d.changelog_time_retain_millis = 0;
  Expire(d);
  EXPECT_LE(changelogs.ListIds()->size(), 2u);
  CheckRetainedRead();
  CheckReachableOnDisk();
}

// All changes of a stream, applied to an empty keyed table (+I/+U put, -D/-U remove).
Status DrainStream(StreamReader* stream, Rows* rows, std::vector<int64_t>* planned) {
  for (int waits = 0; waits < 3;) {
    FJORD_ASSIGN_OR_RAISE(StreamStep step, stream->NextStep());
    if (step.kind != StreamStep::Kind::kChanges) {
      ++waits;
      continue;
    }
    if (step.snapshot_id) planned->push_back(*step.snapshot_id);
    while (true) {
      struct ArrowArray array;
      FJORD_RETURN_NOT_OK(stream->Next(&array));
      if (array.release == nullptr) break;
      struct ArrowSchema schema;
      FJORD_RETURN_NOT_OK(stream->ExportSchema(&schema));
      auto batch = *arrow::ImportRecordBatch(&array, &schema);
      auto kind = std::static_pointer_cast<arrow::StringArray>(batch->column(0));
      auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
      auto v = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("v"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        std::string k = kind->GetString(r);
        if (k == "+I" || k == "+U") {
          (*rows)[id->Value(r)] = v->IsNull(r) ? "" : v->GetString(r);
        } else {
          rows->erase(id->Value(r));
        }
      }
    }
  }
  return Status::OK();
}

// A stream positioned before the earliest snapshot but within the long-lived changelogs goes on
// through them (Java's DataTableStreamScan reads changelog-<id> when snapshot-<id> is gone), for
// a consumer and for scan.mode = from-snapshot; before the earliest long-lived changelog it
// starts there.
TEST_P(DecoupledTest, StreamsReadOnThroughLongLivedChangelogs) {
  auto table = MakeTable({{"changelog-producer", GetParam()}, {"bucket", "1"}});
  // Inserts and updates only: a stream over part of the history is then the model restricted
  // to the keys it saw.
  for (int i = 0; i < 8; ++i) Commit(*table, {{"+I", i % 5, "v" + std::to_string(i)}});
  std::vector<int64_t> ids = SnapshotIds();
  ConsumerManager consumers(FileIO::Local(), root_);
  ASSERT_OK(consumers.Write("reader", Consumer{3}));
  ExpireConfig c = Keep(2);
  c.consumer_changelog_only = true;  // the consumer holds the changelog, not the snapshots
  c.changelog_retain_min = 50;
  c.changelog_retain_max = 50;
  c.changelog_time_retain_millis = 0;
  Expire(c);
  ASSERT_EQ(SnapshotIds().size(), 2u);
  ChangelogManager changelogs(FileIO::Local(), root_);
  ASSERT_EQ(changelogs.ListIds()->front(), ids.front());
  auto t = Reopen();
  // The consumer continues at snapshot 3, now a long-lived changelog.
  {
    ReadBuilder read = t->NewRead();
    read.WithOptions({{"consumer-id", "reader"}});
    auto stream = read.OpenStreaming();
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    Rows got;
    std::vector<int64_t> planned;
    ASSERT_OK(DrainStream(stream->get(), &got, &planned));
    ASSERT_FALSE(planned.empty());
    EXPECT_EQ(planned.front(), 3);
    EXPECT_EQ(planned.back(), ids.back());
    // Every key written from snapshot 3 on, with its latest value.
    Rows want;
    for (int i = 2; i < 8; ++i) want[i % 5] = "v" + std::to_string(i);
    EXPECT_EQ(got, want);
  }
  // from-snapshot 1: the whole history from the first long-lived changelog.
  {
    ReadBuilder read = t->NewRead();
    read.WithOptions({{"scan.mode", "from-snapshot"}, {"scan.snapshot-id", "1"}});
    auto stream = read.OpenStreaming();
    ASSERT_TRUE(stream.ok()) << stream.status().ToString();
    Rows got;
    std::vector<int64_t> planned;
    ASSERT_OK(DrainStream(stream->get(), &got, &planned));
    EXPECT_EQ(planned.front(), 1);
    EXPECT_EQ(got, rows_);
  }
}

INSTANTIATE_TEST_SUITE_P(Producers, DecoupledTest, ::testing::Values("none", "input"));

TEST_F(ExpireTest, DryRunListsWithSizesAndDeletesNothing) {
  auto table = MakeTable({});
  std::mt19937 rng(8);
  Commits(*table, 6, &rng);
  std::set<std::string> before = FilesOnDisk(root_);
  auto t = Reopen();
  ExpireRunOptions run;
  run.dry_run = true;
  auto dry = ExpireSnapshots(*t->store(), Keep(2), run);
  ASSERT_TRUE(dry.ok()) << dry.status().ToString();
  EXPECT_EQ(FilesOnDisk(root_), before);
  EXPECT_EQ(dry->expired, static_cast<int64_t>(SnapshotIds().size()) - 2);
  ASSERT_FALSE(dry->deleted.empty());
  for (const DeletedFile& f : dry->deleted) EXPECT_GE(f.size, 0) << f.path;
  std::set<std::string> listed;
  for (const DeletedFile& f : dry->deleted) listed.insert(fs::relative(f.path, root_).string());
  Expire(Keep(2));
  std::set<std::string> after = FilesOnDisk(root_);
  std::set<std::string> gone;
  for (const std::string& f : before) {
    if (!after.count(f)) gone.insert(f);
  }
  EXPECT_EQ(listed, gone);
}

TEST_F(ExpireTest, BadRetentionIsRefusedNamingTheOption) {
  auto table = MakeTable({});
  auto t = Reopen();
  ExpireConfig c = Keep(5, 3);
  EXPECT_THAT(ExpireSnapshots(*t->store(), c), IsError(StatusCode::kInvalid, "num-retained.max"));
  c = Keep(0);
  EXPECT_THAT(ExpireSnapshots(*t->store(), c), IsError(StatusCode::kInvalid, "num-retained.min"));
}

// A crash at every I/O operation of an expiration run: every retained snapshot still reads, and
// a re-run with a healthy FileIO ends with exactly the files of an uninterrupted run.
TEST_F(ExpireTest, CrashAtEveryStepLeavesAReadableTableAndARerunFinishes) {
  for (std::string producer : {"none", "input"}) {
    for (bool decoupled : {false, true}) {
      SCOPED_TRACE(producer + (decoupled ? " decoupled" : ""));
      model_.clear();
      rows_.clear();
      tags_.clear();
      auto table =
          MakeTable({{"changelog-producer", producer}, {"num-sorted-run.compaction-trigger", "2"}});
      std::mt19937 rng(9);
      Commits(*table, 3, &rng);
      Tag("mid", 3);
      Commits(*table, 3, &rng);
      ExpireConfig c = Keep(2);
      if (decoupled) {
        c.changelog_retain_min = 4;
        c.changelog_retain_max = 4;
        c.changelog_time_retain_millis = 0;
      }
      std::string pristine = dir_.path() + "/pristine";
      fs::remove_all(pristine);
      fs::copy(root_, pristine, fs::copy_options::recursive);
      std::string base_root = root_;
      // The reference: an uninterrupted run.
      Expire(c);
      std::set<std::string> reference = FilesOnDisk(root_);
      std::map<int64_t, Rows> model = model_;
      int64_t crashes = 0;
      for (int64_t n = 1;; ++n) {
        fs::remove_all(base_root);
        fs::copy(pristine, base_root, fs::copy_options::recursive);
        auto faulty = std::make_shared<FaultInjectionFileIO>(FileIO::Local());
        auto t = Reopen(faulty);
        faulty->FailAt(n, FaultInjectionFileIO::Mode::kCrash);
        auto r = ExpireSnapshots(*t->store(), c);
        if (r.ok() && c.ChangelogDecoupled()) r = ExpireChangelogs(*t->store(), c);
        if (!faulty->crashed()) {
          ASSERT_TRUE(r.ok()) << r.status().ToString();
          break;  // n is past the last operation
        }
        ++crashes;
        // The retained snapshots (from the end of the range on) read as before.
        auto healthy = Reopen();
        auto latest = *healthy->LatestSnapshot();
        ASSERT_TRUE(latest.has_value());
        for (int64_t id = latest->id - 1; id <= latest->id; ++id) {
          auto rows = Read(*healthy, id);
          ASSERT_TRUE(rows.ok()) << "crash at " << n << ", snapshot " << id << ": "
                                 << rows.status().ToString();
          EXPECT_EQ(*rows, model[id]) << "crash at " << n;
        }
        auto tag_rows = Read(*healthy, std::nullopt, "mid");
        ASSERT_TRUE(tag_rows.ok()) << "crash at " << n;
        EXPECT_EQ(*tag_rows, model[3]);
        // A re-run finishes the job.
        Expire(c);
        EXPECT_EQ(FilesOnDisk(root_), reference) << "crash at " << n;
      }
      EXPECT_GT(crashes, 10);
      std::cout << producer << (decoupled ? " decoupled" : "") << ": crashed at each of " << crashes
                << " operations\n";
      fs::remove_all(pristine);
    }
  }
}

// Post-commit maintenance through the public API: retention options of the table expire after
// every commit; write-only committers never expire; async runs finish by Close.
TEST_F(ExpireTest, CommitsExpireAsTheTableSays) {
  auto table = MakeTable({{"snapshot.num-retained.min", "1"},
                          {"snapshot.num-retained.max", "3"},
                          {"snapshot.time-retained", "1 h"}});
  std::mt19937 rng(10);
  Commits(*table, 6, &rng);
  EXPECT_EQ(SnapshotIds().size(), 3u);
  // write-only: nothing expires.
  for (int i = 0; i < 3; ++i) Commit(*table, {{"+I", 100 + i, "w"}}, {{"write-only", "true"}});
  EXPECT_EQ(SnapshotIds().size(), 6u);
  // async: done by Close.
  for (int i = 0; i < 3; ++i) {
    Commit(*table, {{"+I", 200 + i, "a"}}, {{"snapshot.expire.execution-mode", "async"}});
  }
  EXPECT_EQ(SnapshotIds().size(), 3u);
  CheckRetainedRead();
  CheckReachableOnDisk();
}

// A write-only table leaves expiration to its dedicated compaction job (Java's compact action
// runs with write-only = false): `fjord compact` beside write-only writers expires what the
// table's retention says, or nothing ever would.
TEST_F(ExpireTest, DedicatedCompactionOfAWriteOnlyTableExpires) {
  auto table = MakeTable({{"write-only", "true"},
                          {"snapshot.num-retained.min", "1"},
                          {"snapshot.num-retained.max", "3"},
                          {"snapshot.time-retained", "1 h"}});
  std::mt19937 rng(12);
  Commits(*table, 6, &rng);
  EXPECT_EQ(SnapshotIds().size(), 6u);  // the writers expire nothing
  // write-only asked of the dedicated compaction itself is refused, not overridden.
  CompactionOptions write_only;
  write_only.dynamic_options = {{"write-only", "TRUE"}};
  auto refused = table->NewCompaction(write_only);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalid);
  EXPECT_NE(refused.status().message().find("write-only = TRUE"), std::string::npos);
  write_only.dynamic_options = {{"write-only", "false"}};
  EXPECT_OK(table->NewCompaction(write_only).status());
  FullCompact(*table);
  std::vector<int64_t> ids = SnapshotIds();
  ASSERT_EQ(ids.size(), 3u);
  EXPECT_EQ(ids.back(), 7);
  CheckRetainedRead();
  CheckReachableOnDisk();
  // the writers still do not compact nor expire: the table's own option is unchanged
  Commits(*table, 2, &rng);
  EXPECT_EQ(SnapshotIds().size(), 5u);
  CheckRetainedRead();
}

TEST_F(ExpireTest, ConsumerExpirationAtCommitFreesSnapshots) {
  auto table = MakeTable({{"snapshot.num-retained.min", "1"},
                          {"snapshot.time-retained", "0 s"},
                          {"consumer.expiration-time", "1 h"}});
  std::mt19937 rng(11);
  Commits(*table, 3, &rng);
  ConsumerManager consumers(FileIO::Local(), root_);
  ASSERT_OK(consumers.Write("old", Consumer{SnapshotIds().back()}));
  Commits(*table, 3, &rng);
  // The consumer is fresh: it holds its snapshot.
  ASSERT_TRUE(consumers.Read("old")->has_value());
  int64_t held = **consumers.MinNextSnapshot();
  EXPECT_EQ(SnapshotIds().front(), held);
  // Age it by two hours: the next commit expires it, then the snapshots it held.
  auto two_hours_ago = fs::file_time_type::clock::now() - std::chrono::hours(2);
  fs::last_write_time(root_ + "/consumer/consumer-old", two_hours_ago);
  Commits(*table, 1, &rng);
  EXPECT_FALSE(consumers.Read("old")->has_value());
  EXPECT_EQ(SnapshotIds().size(), 1u);
  CheckRetainedRead();
}

// Randomised: commits (upserts and deletes), full compactions, tags, consumers advancing and
// expiration with random retention; after every step every retained snapshot and tag reads its
// rows, every consumer's next snapshot is readable (or not yet written), and every reachable
// file is on disk.
TEST_F(ExpireTest, RandomisedHistoryNeverLosesAReachableFile) {
  uint64_t seed = 20261202;
  if (const char* s = std::getenv("FJORD_EXPIRE_SEED")) seed = std::stoull(s);
  int runs = 4;
  if (const char* s = std::getenv("FJORD_EXPIRE_RUNS")) runs = std::stoi(s);
  int64_t steps_done = 0, expirations = 0, expired = 0;
  for (int run = 0; run < runs; ++run) {
    std::mt19937 rng(static_cast<uint32_t>(seed + run));
    SCOPED_TRACE("seed " + std::to_string(seed + run));
    model_.clear();
    rows_.clear();
    tags_.clear();
    const char* producers[] = {"none", "input", "full-compaction"};
    std::string producer = producers[rng() % 3];
    const bool decoupled = rng() % 2 == 0;
    auto table = MakeTable({{"changelog-producer", producer},
                            {"num-sorted-run.compaction-trigger", std::to_string(2 + rng() % 3)}},
                           rng() % 2 == 0);
    ConsumerManager consumers(FileIO::Local(), root_);
    for (int step = 0; step < 40; ++step) {
      int op = static_cast<int>(rng() % 10);
      if (op < 5 || model_.empty()) {
        Commits(*table, 1, &rng);
      } else if (op == 5) {
        FullCompact(*table);
      } else if (op == 6) {
        std::vector<int64_t> ids = SnapshotIds();
        int64_t id = ids[rng() % ids.size()];
        Tag("tag" + std::to_string(step), id);
      } else if (op == 7) {
        std::vector<int64_t> ids = SnapshotIds();
        int64_t next = ids[rng() % ids.size()];
        ASSERT_OK(consumers.Write("c" + std::to_string(rng() % 2), Consumer{next}));
      } else {
        ExpireConfig c = Keep(1 + rng() % 4, 0);
        c.snapshot_retain_max = c.snapshot_retain_min + rng() % 6;
        c.snapshot_max_deletes = 1 + rng() % 10;
        // Decoupled or not for the whole run: switching leaves long-lived changelogs that the
        // coupled expiration does not protect, in Java as in Fjord (docs/maintenance.md).
        if (decoupled) {
          c.changelog_retain_min = c.snapshot_retain_min + 1 + rng() % 4;
          c.changelog_retain_max = *c.changelog_retain_min + rng() % 4;
          c.changelog_time_retain_millis = 0;
        }
        ExpireReport r = Expire(c);
        if (std::getenv("FJORD_EXPIRE_VERBOSE")) {
          std::cout << "step " << step << " expire min " << c.snapshot_retain_min << " max "
                    << c.snapshot_retain_max << " limit " << c.snapshot_max_deletes << " decoupled "
                    << c.ChangelogDecoupled() << " -> [" << r.begin.value_or(-1) << ", "
                    << r.end.value_or(-1) << ")\n";
        }
        ++expirations;
        expired += r.expired;
      }
      ++steps_done;
      if (std::getenv("FJORD_EXPIRE_VERBOSE")) {
        std::cout << "step " << step << " op " << op << " producer " << producer << " snapshots "
                  << SnapshotIds().front() << ".." << SnapshotIds().back() << "\n";
      }
      CheckRetainedRead();
      CheckReachableOnDisk();
      std::map<std::string, int64_t> listed = Must(consumers.List(), "consumers");
      for (const auto& [id, next] : listed) {
        auto t = Reopen();
        auto latest = *t->LatestSnapshot();
        if (latest && next <= latest->id) {
          auto rows = Read(*t, next);
          EXPECT_TRUE(rows.ok()) << "consumer " << id << " at " << next;
        }
      }
      if (HasFatalFailure()) return;
    }
  }
  std::cout << "randomised expiration: " << runs << " runs, " << steps_done << " steps, "
            << expirations << " expirations, " << expired << " snapshots expired\n";
  EXPECT_GT(expired, 0);
}

}  // namespace
}  // namespace fjord
