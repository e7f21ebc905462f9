// Small-file compaction of append tables: Java's picking rules on synthetic files (bucketed
// sliding window, full compaction, the bucket-unaware coordinator's bins and ages), then the
// writer's and the dedicated job's commit messages on real tables: which files go in, sequence
// ranges and row order kept, file counts bounded, every row read back.
#include "fjord/table/write/append_compact.h"
#include "fjord/table/compact/append_compact_job.h"

#include <arrow/api.h>

#include <algorithm>
#include <map>
#include <random>

#include "fjord/format/binary_row.h"
#include "fjord/meta/table_paths.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/read/table_read.h"
#include "fjord/table/write/append_write.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

DataFileMeta File(const std::string& name, int64_t size, int64_t min_seq, int64_t rows = 10) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = size;
  f.row_count = rows;
  f.min_sequence_number = min_seq;
  f.max_sequence_number = min_seq + rows - 1;
  return f;
}

std::vector<std::string> Names(const std::vector<DataFileMeta>& files) {
  std::vector<std::string> out;
  for (const DataFileMeta& f : files) out.push_back(f.file_name);
  return out;
}

AppendCompactOptions Small(int64_t target = 100) {
  AppendCompactOptions o;
  o.target_file_size = target;
  o.compaction_file_size = target / 10 * 7;
  o.open_file_cost = 0;
  return o;
}

using Strings = std::vector<std::string>;

// ---- Fixed buckets: Java's BucketedAppendCompactManager ----------------------------------------

TEST(BucketCompactQueueTest, PicksMinFileNumFilesInSequenceOrder) {
  // Added out of order; picked by sequence number.
  BucketCompactQueue queue(Small(), {File("c", 10, 20), File("a", 10, 0)});
  EXPECT_FALSE(queue.PickBestEffort());
  EXPECT_EQ(Names(queue.files()), (Strings{"a", "c"}));  // too few: all stay queued
  queue.Add(File("f", 10, 50));
  queue.Add(File("b", 10, 10));
  queue.Add(File("e", 10, 40));
  queue.Add(File("d", 10, 30));
  auto picked = queue.PickBestEffort();
  ASSERT_TRUE(picked);
  EXPECT_EQ(Names(*picked), (Strings{"a", "b", "c", "d", "e"}));
  EXPECT_EQ(Names(queue.files()), (Strings{"f"}));
}

TEST(BucketCompactQueueTest, WindowDropsItsOldestFileAtTwiceTheTarget) {
  // target 100: a window reaching 200 bytes loses its oldest file, which leaves the queue.
  BucketCompactQueue queue(
      Small(), {File("big1", 150, 0), File("big2", 150, 10), File("s1", 10, 20), File("s2", 10, 30),
                File("s3", 10, 40), File("s4", 10, 50), File("s5", 10, 60)});
  auto picked = queue.PickBestEffort();
  ASSERT_TRUE(picked);
  // big1 slid out (150 + 150 >= 200); big2 + s1..s4 = 190 < 200 reached 5 files. A big file
  // inside the window is rewritten too, as in Java.
  EXPECT_EQ(Names(*picked), (Strings{"big2", "s1", "s2", "s3", "s4"}));
  EXPECT_EQ(Names(queue.files()), (Strings{"s5"}));
}

TEST(BucketCompactQueueTest, NothingPickedForgetsOnlyTheFilesThatSlidOut) {
  BucketCompactQueue queue(
      Small(), {File("a", 120, 0), File("b", 120, 10), File("c", 10, 20), File("d", 10, 30)});
  EXPECT_FALSE(queue.PickBestEffort());
  EXPECT_EQ(Names(queue.files()), (Strings{"b", "c", "d"}));
  AppendCompactOptions o = Small();
  o.min_file_num = 3;
  BucketCompactQueue three(o, {File("x", 10, 0), File("y", 10, 10), File("z", 10, 20)});
  EXPECT_EQ(Names(*three.PickBestEffort()), (Strings{"x", "y", "z"}));
}

TEST(BucketCompactQueueTest, LastOutputIsRequeuedOnlyWhileSmall) {
  BucketCompactQueue queue(Small(), {File("q", 10, 100)});
  queue.Compacted({File("out1", 90, 0), File("out2", 69, 50)});  // 69 < 70 % of 100
  EXPECT_EQ(Names(queue.files()), (Strings{"out2", "q"}));
  BucketCompactQueue other(Small(), {});
  other.Compacted({File("out", 70, 0)});
  EXPECT_TRUE(other.files().empty());
  other.Compacted({});
  EXPECT_TRUE(other.files().empty());
}

TEST(BucketCompactQueueTest, FullCompactionRules) {
  // Fewer than 3 files: nothing, the queue is kept.
  BucketCompactQueue two(Small(), {File("a", 10, 0), File("b", 10, 10)});
  EXPECT_TRUE(two.PickFull().empty());
  EXPECT_EQ(two.files().size(), 2u);
  // Leading big files (>= 70) are skipped; then small must outnumber big.
  BucketCompactQueue q(Small(), {File("big1", 80, 0), File("big2", 75, 10), File("s1", 10, 20),
                                 File("big3", 90, 30), File("s2", 10, 40)});
  EXPECT_EQ(Names(q.PickFull()), (Strings{"s1", "big3", "s2"}));
  EXPECT_TRUE(q.files().empty());
  BucketCompactQueue even(
      Small(), {File("s1", 10, 0), File("big", 90, 10), File("s2", 10, 20), File("big2", 90, 30)});
  EXPECT_TRUE(even.PickFull().empty());  // 2 small, 2 big
  EXPECT_TRUE(even.files().empty());     // emptied anyway, as Java's queue is
  // compaction.force-rewrite-all-files: everything, even a single big file.
  AppendCompactOptions force = Small();
  force.force_rewrite_all_files = true;
  BucketCompactQueue forced(force, {File("big", 90, 0)});
  EXPECT_EQ(Names(forced.PickFull()), (Strings{"big"}));
}

TEST(AppendCompactOptionsTest, DefaultsAndOptions) {
  ASSERT_OK_AND_ASSIGN(AppendCompactOptions d,
                       AppendCompactOptions::FromOptions(CoreOptions::FromMap({}).value()));
  EXPECT_EQ(d.min_file_num, 5);
  EXPECT_EQ(d.target_file_size, int64_t{256} << 20);
  EXPECT_EQ(d.compaction_file_size, (int64_t{256} << 20) / 10 * 7);
  EXPECT_EQ(d.open_file_cost, int64_t{4} << 20);
  EXPECT_EQ(d.file_num_limit, 100000);
  EXPECT_FALSE(d.write_only);
  ASSERT_OK_AND_ASSIGN(
      CoreOptions table,
      CoreOptions::FromMap({{"compaction.min.file-num", "3"},
                            {"target-file-size", "1 kb"},
                            {"write.compaction-skip", "true"},
                            // Java 1.0's option; 1.1+ ignore it, and so does Fjord.
                            {"compaction.max.file-num", "2"}}));
  ASSERT_OK_AND_ASSIGN(AppendCompactOptions o, AppendCompactOptions::FromOptions(table));
  EXPECT_EQ(o.min_file_num, 3);
  EXPECT_EQ(o.compaction_file_size, 1024 / 10 * 7);
  EXPECT_TRUE(o.write_only);
  EXPECT_THAT(AppendCompactOptions::FromOptions(
                  CoreOptions::FromMap({{"compaction.min.file-num", "0"}}).value()),
              IsError(StatusCode::kInvalid, "compaction.min.file-num"));
}

// ---- Bucket-unaware: Java's AppendCompactCoordinator -------------------------------------------

TEST(UnawareCompactCoordinatorTest, OnlySmallFilesBinnedBySize) {
  AppendCompactOptions o = Small();
  o.open_file_cost = 5;
  UnawareCompactCoordinator c(o);
  // 70 and up is not small. Bins close at >= 200 bytes (size + 5 per file) with > 1 file.
  c.AddFiles("p", {File("big", 70, 0), File("f60", 60, 1), File("f50", 50, 2), File("f10", 10, 3),
                   File("f40", 40, 4), File("f45", 45, 5), File("f1", 1, 6)});
  c.AddFiles("p", {File("f1", 1, 6)});  // the same file again counts once
  auto tasks = c.Plan();
  ASSERT_EQ(tasks.size(), 1u);
  // By size: f1 f10 f40 f45 f50 -> 146 + 25 = 171; + f60 -> 237 >= 200.
  EXPECT_EQ(Names(tasks[0].files), (Strings{"f1", "f10", "f40", "f45", "f50", "f60"}));
  EXPECT_TRUE(c.Waiting().empty());
}

TEST(UnawareCompactCoordinatorTest, RemainderNeedsMinFileNum) {
  UnawareCompactCoordinator c(Small());
  c.AddFiles("a", {File("a1", 10, 0), File("a2", 10, 1), File("a3", 10, 2), File("a4", 10, 3)});
  c.AddFiles("b", {File("b1", 10, 0), File("b2", 10, 1), File("b3", 10, 2), File("b4", 10, 3),
                   File("b5", 10, 4)});
  auto tasks = c.Plan();
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(tasks[0].partition, "b");
  EXPECT_EQ(tasks[0].files.size(), 5u);
  EXPECT_EQ(c.Waiting().at("a").size(), 4u);
  // --full: any remainder of at least two files.
  auto full = c.Plan(/*full=*/true);
  ASSERT_EQ(full.size(), 1u);
  EXPECT_EQ(Names(full[0].files), (Strings{"a1", "a2", "a3", "a4"}));
  UnawareCompactCoordinator lone(Small());
  lone.AddFiles("a", {File("a1", 10, 0)});
  EXPECT_TRUE(lone.Plan(/*full=*/true).empty());
}

TEST(UnawareCompactCoordinatorTest, UnpackedPartitionsAgeIntoACompaction) {
  UnawareCompactCoordinator c(Small());
  c.AddFiles("a", {File("a1", 10, 0), File("a2", 10, 1)});
  c.AddFiles("z", {File("z1", 10, 0)});
  for (int round = 1; round <= UnawareCompactCoordinator::kCompactAge; ++round) {
    EXPECT_TRUE(c.Plan().empty()) << round;
  }
  auto tasks = c.Plan();  // sixth round without a bin
  ASSERT_EQ(tasks.size(), 1u);
  EXPECT_EQ(Names(tasks[0].files), (Strings{"a1", "a2"}));
  // A lone file never compacts; its partition is forgotten after 10 idle rounds, and new files
  // reset the age.
  for (int round = 7; round <= UnawareCompactCoordinator::kRemoveAge; ++round) c.Plan();
  EXPECT_EQ(c.Waiting().count("z"), 1u);
  c.Plan();
  EXPECT_EQ(c.Waiting().count("z"), 0u);
}

// ---- Tables ------------------------------------------------------------------------------------

struct Fixture {
  testing::TempDir dir;
  std::unique_ptr<FileStoreTable> table;

  void Create(std::vector<std::pair<std::string, std::string>> options,
              std::vector<std::string> partition_keys = {}) {
    auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
    ASSERT_OK(catalog->CreateDatabase("db"));
    TableSpec spec;
    spec.fields = ParseColumnList("id BIGINT NOT NULL, p STRING, s STRING").value();
    spec.partition_keys = std::move(partition_keys);
    spec.options = std::move(options);
    auto id = TableIdentifier::Parse("db.t").value();
    ASSERT_OK(catalog->CreateTable(id, spec));
    table = std::move(catalog->GetTable(id)).value();
  }
  void Reopen() { table = std::move(FileStoreTable::Open(table->path())).value(); }
  // Gives the table `options` in a next schema file, as Java Paimon would (Fjord's catalog refuses
  // options it does not honour).
  void SetAsJava(const std::vector<std::pair<std::string, std::string>>& options) {
    TableSchema next = table->schema();
    next.id += 1;
    for (const auto& kv : options) next.options.push_back(kv);
    ASSERT_OK(table->io()->WriteFile(TablePaths{table->path()}.SchemaFile(next.id), next.ToJson()));
    Reopen();
  }
};

std::shared_ptr<arrow::Table> Rows(int64_t first_id, int64_t n, int partitions = 2) {
  arrow::Int64Builder ids;
  arrow::StringBuilder p, s;
  for (int64_t i = first_id; i < first_id + n; ++i) {
    EXPECT_TRUE(ids.Append(i).ok());
    EXPECT_TRUE(p.Append(std::string(1, static_cast<char>('a' + i % partitions))).ok());
    EXPECT_TRUE(s.Append("value-" + std::to_string(i * 7919 % 100003)).ok());
  }
  return arrow::Table::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("p", arrow::utf8()),
                     arrow::field("s", arrow::utf8())}),
      {ids.Finish().ValueOrDie(), p.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
}

// The ids of `files` of one bucket, read in sequence order.
std::vector<int64_t> IdsInSequenceOrder(const FileStoreTable& table, const std::string& bucket_dir,
                                        std::vector<DataFileMeta> files) {
  std::sort(files.begin(), files.end(), [](const DataFileMeta& a, const DataFileMeta& b) {
    return a.min_sequence_number < b.min_sequence_number;
  });
  TableRead read(table.io(), table.path(), table.schema());
  std::vector<int64_t> ids;
  for (const DataFileMeta& f : files) {
    DataSplit split;
    split.bucket_path = bucket_dir;
    split.files = {f};
    auto rows = read.Read(split);
    EXPECT_TRUE(rows.ok()) << rows.status().ToString();
    if (!rows.ok()) return ids;
    for (const auto& chunk : (*rows)->GetColumnByName("id")->chunks()) {
      auto a = std::static_pointer_cast<arrow::Int64Array>(chunk);
      for (int64_t i = 0; i < a->length(); ++i) ids.push_back(a->Value(i));
    }
  }
  return ids;
}

// A compact increment keeps the sequence range of what it replaces: inputs contiguous in
// sequence order, outputs tiling the same range, same rows, written by compaction.
void ExpectSequenceRangeKept(const CommitMessage& m) {
  ASSERT_FALSE(m.compact_before.empty());
  ASSERT_FALSE(m.compact_after.empty());
  int64_t rows_before = 0, rows_after = 0;
  for (size_t i = 0; i < m.compact_before.size(); ++i) {
    rows_before += m.compact_before[i].row_count;
    if (i > 0) {
      EXPECT_EQ(m.compact_before[i].min_sequence_number,
                m.compact_before[i - 1].max_sequence_number + 1);
    }
  }
  int64_t next = m.compact_before.front().min_sequence_number;
  for (const DataFileMeta& f : m.compact_after) {
    EXPECT_EQ(f.min_sequence_number, next);
    EXPECT_EQ(f.max_sequence_number, next + f.row_count - 1);
    EXPECT_EQ(f.file_source, std::optional<int32_t>(1));
    EXPECT_EQ(f.level, 0);
    next += f.row_count;
    rows_after += f.row_count;
  }
  EXPECT_EQ(next - 1, m.compact_before.back().max_sequence_number);
  EXPECT_EQ(rows_before, rows_after);
}

// Many small commits into a fixed-bucket table; after each, the bucket's live files must tile
// the sequence range, hold the rows in write order, and stay few.
void RunWriterCompaction(bool fresh_writer_per_commit, uint64_t seed) {
  SCOPED_TRACE(fresh_writer_per_commit ? "fresh writers" : "one writer");
  Fixture fx;
  fx.Create({{"bucket", "2"}, {"bucket-key", "id"}, {"target-file-size", "64 kb"}});
  std::mt19937_64 rng(seed);
  std::map<int32_t, std::vector<DataFileMeta>> live;
  std::map<int32_t, int64_t> rows_in_bucket;
  std::unique_ptr<AppendTableWrite> writer;
  int64_t next_id = 0, compactions = 0;
  for (int round = 0; round < 23; ++round) {
    if (!writer || fresh_writer_per_commit) {
      fx.Reopen();
      ASSERT_OK_AND_ASSIGN(writer, AppendTableWrite::Create(fx.table.get()));
    }
    int64_t n = 20 + static_cast<int64_t>(rng() % 60);
    ASSERT_OK(writer->Write(Rows(next_id, n)));
    next_id += n;
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    for (const CommitMessage& m : messages) {
      SCOPED_TRACE("round " + std::to_string(round) + " bucket " + std::to_string(m.bucket));
      EXPECT_EQ(m.total_buckets, 2);
      for (const DataFileMeta& f : m.new_files) rows_in_bucket[m.bucket] += f.row_count;
      auto& files = live[m.bucket];
      files.insert(files.end(), m.new_files.begin(), m.new_files.end());
      if (!m.compact_before.empty()) {
        ++compactions;
        ExpectSequenceRangeKept(m);
        // Inputs are live files (committed or new), the oldest first.
        EXPECT_EQ(m.compact_before.size(), 5u);
        for (const DataFileMeta& f : m.compact_before) {
          auto it = std::find_if(files.begin(), files.end(),
                                 [&](const DataFileMeta& l) { return l.file_name == f.file_name; });
          ASSERT_NE(it, files.end()) << f.file_name;
          files.erase(it);
        }
        files.insert(files.end(), m.compact_after.begin(), m.compact_after.end());
      }
    }
    FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, round).status());
    for (auto& [bucket, files] : live) {
      // Java's window: at most min.file-num - 1 small files wait after a commit.
      EXPECT_LE(files.size(), 4u) << "round " << round << " bucket " << bucket;
      std::vector<DataFileMeta> sorted = files;
      std::sort(sorted.begin(), sorted.end(), [](const DataFileMeta& a, const DataFileMeta& b) {
        return a.min_sequence_number < b.min_sequence_number;
      });
      int64_t next_seq = 0;
      for (const DataFileMeta& f : sorted) {
        EXPECT_EQ(f.min_sequence_number, next_seq);
        next_seq = f.max_sequence_number + 1;
      }
      EXPECT_EQ(next_seq, rows_in_bucket[bucket]);
    }
  }
  EXPECT_GE(compactions, 8);
  for (auto& [bucket, files] : live) {
    std::vector<int64_t> ids = IdsInSequenceOrder(
        *fx.table, JoinPath(fx.table->path(), "bucket-" + std::to_string(bucket)), files);
    EXPECT_EQ(static_cast<int64_t>(ids.size()), rows_in_bucket[bucket]);
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end())) << "bucket " << bucket;
  }
  fx.Reopen();
  ASSERT_OK_AND_ASSIGN(auto result, fx.table->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), next_id);
  ASSERT_OK_AND_ASSIGN(ScanPlan plan, fx.table->Plan(ScanSelector{}));
  size_t files = 0;
  for (const DataSplit& s : plan.splits) files += s.files.size();
  EXPECT_LE(files, 8u);
}

TEST(AppendCompactTest, WriterCompactsFixedBucketsKeepingOrderAndSequenceRanges) {
  RunWriterCompaction(/*fresh_writer_per_commit=*/false, 1);
  RunWriterCompaction(/*fresh_writer_per_commit=*/true, 2);
}

Result<size_t> LiveFileCount(const FileStoreTable& table) {
  FJORD_ASSIGN_OR_RAISE(ScanPlan plan, table.Plan(ScanSelector{}));
  size_t n = 0;
  for (const DataSplit& s : plan.splits) n += s.files.size();
  return n;
}

TEST(AppendCompactTest, WriteOnlyAndOverwriteWritersLeaveCommittedFilesAlone) {
  Fixture fx;
  fx.Create({{"bucket", "1"}, {"bucket-key", "id"}, {"write-only", "true"}});
  for (int round = 0; round < 7; ++round) {
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(fx.table.get()));
    ASSERT_OK(writer->Write(Rows(round * 10, 10)));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    ASSERT_EQ(messages.size(), 1u);
    EXPECT_TRUE(messages[0].compact_before.empty());
    FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, round).status());
  }
  ASSERT_OK_AND_ASSIGN(size_t files, LiveFileCount(*fx.table));
  EXPECT_EQ(files, 7u);
  // Without write-only, a writer that ignores previous files (an overwrite) compacts none of
  // them; a normal one takes the five oldest.
  ASSERT_OK_AND_ASSIGN(auto catalog, FileSystemCatalog::Open(fx.dir.Join("wh")));
  auto id = TableIdentifier::Parse("db.t").value();
  ASSERT_OK(catalog->AlterTable(id, {SchemaChange::SetOption("write-only", "false")}));
  fx.Reopen();
  ASSERT_OK_AND_ASSIGN(auto overwrite,
                       AppendTableWrite::Create(fx.table.get(), {.ignore_previous_files = true}));
  ASSERT_OK(overwrite->Write(Rows(100, 10)));
  ASSERT_OK_AND_ASSIGN(auto messages, overwrite->PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_TRUE(messages[0].compact_before.empty());
  ASSERT_OK_AND_ASSIGN(auto normal, AppendTableWrite::Create(fx.table.get()));
  ASSERT_OK(normal->Write(Rows(100, 10)));
  ASSERT_OK_AND_ASSIGN(messages, normal->PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  ExpectSequenceRangeKept(messages[0]);
  EXPECT_EQ(messages[0].compact_before.front().min_sequence_number, 0);
  EXPECT_EQ(messages[0].compact_before.size(), 5u);
}

TEST(AppendCompactTest, DedicatedCompactionOfFixedBuckets) {
  Fixture fx;
  fx.Create({{"bucket", "2"}, {"bucket-key", "id"}, {"write-only", "true"}}, {"p"});
  int64_t next_id = 0;
  for (int round = 0; round < 9; ++round) {
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(fx.table.get()));
    ASSERT_OK(writer->Write(Rows(next_id, 40)));
    next_id += 40;
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, round).status());
  }
  ASSERT_OK_AND_ASSIGN(size_t before, LiveFileCount(*fx.table));
  EXPECT_EQ(before, 9u * 4);  // 2 partitions x 2 buckets per commit

  // Best effort: each bucket once, its five oldest files.
  AppendCompactMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto messages, CompactAppendTable(*fx.table, nullptr, false, &metrics));
  EXPECT_EQ(metrics.scanned, 4);
  ASSERT_EQ(messages.size(), 4u);
  for (const CommitMessage& m : messages) {
    EXPECT_TRUE(m.new_files.empty());
    EXPECT_EQ(m.total_buckets, 2);
    EXPECT_EQ(m.compact_before.size(), 5u);
    EXPECT_EQ(m.compact_before.front().min_sequence_number, 0);
    ExpectSequenceRangeKept(m);
  }
  FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "compactor");
  ASSERT_OK_AND_ASSIGN(auto snapshot, committer.Commit(messages, 1));
  ASSERT_TRUE(snapshot);
  ASSERT_OK_AND_ASSIGN(auto snap, fx.table->snapshots().Load(*snapshot));
  EXPECT_EQ(snap.commit_kind, CommitKind::kCompact);
  ASSERT_OK_AND_ASSIGN(size_t after_best_effort, LiveFileCount(*fx.table));
  EXPECT_EQ(after_best_effort, 4u * (9 - 5 + 1));

  // Full, in partition p=a only: everything small there becomes one file per bucket.
  std::string a = EncodeStoredBinaryRow({Value("a")}, {DataType::String(true)}).value();
  ASSERT_OK_AND_ASSIGN(messages,
                       CompactAppendTable(
                           *fx.table, [&](const std::string& p) { return p == a; }, true, nullptr));
  ASSERT_EQ(messages.size(), 2u);
  for (const CommitMessage& m : messages) {
    EXPECT_EQ(m.partition, a);
    EXPECT_EQ(m.compact_before.size(), 5u);
    EXPECT_EQ(m.compact_after.size(), 1u);
    ExpectSequenceRangeKept(m);
  }
  ASSERT_OK(committer.Commit(messages, 2).status());
  ASSERT_OK_AND_ASSIGN(size_t after_full, LiveFileCount(*fx.table));
  EXPECT_EQ(after_full, 2u * 1 + 2u * 5);
  ASSERT_OK_AND_ASSIGN(auto result, fx.table->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), next_id);
}

TEST(AppendCompactTest, DedicatedCompactionOfBucketUnawareTable) {
  Fixture fx;
  // Open-file cost 8 kb: bins of about 2 x 64 kb / (8 kb + file) files.
  fx.Create({{"target-file-size", "64 kb"}, {"source.split.open-file-cost", "8 kb"}}, {"p"});
  int64_t next_id = 0;
  for (int round = 0; round < 25; ++round) {
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(fx.table.get()));
    ASSERT_OK(writer->Write(Rows(next_id, 30)));
    next_id += 30;
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    for (const CommitMessage& m : messages) EXPECT_TRUE(m.compact_before.empty());
    FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, round).status());
  }
  ASSERT_OK_AND_ASSIGN(auto expected, fx.table->Read(ReadRequest{}));
  AppendCompactMetrics metrics;
  ASSERT_OK_AND_ASSIGN(auto messages, CompactAppendTable(*fx.table, nullptr, false, &metrics));
  EXPECT_EQ(metrics.scanned, 2);
  ASSERT_GE(messages.size(), 4u);
  std::map<std::string, size_t> compacted;
  for (const CommitMessage& m : messages) {
    EXPECT_EQ(m.bucket, 0);
    EXPECT_EQ(m.total_buckets, -1);
    EXPECT_GE(m.compact_before.size(), 2u);
    // Smallest first, as Java packs them.
    EXPECT_TRUE(std::is_sorted(
        m.compact_before.begin(), m.compact_before.end(),
        [](const DataFileMeta& x, const DataFileMeta& y) { return x.file_size < y.file_size; }));
    int64_t rows = 0, out_rows = 0;
    for (const DataFileMeta& f : m.compact_before) rows += f.row_count;
    for (const DataFileMeta& f : m.compact_after) out_rows += f.row_count;
    EXPECT_EQ(rows, out_rows);
    compacted[m.partition] += m.compact_before.size();
  }
  for (const auto& [partition, n] : compacted) EXPECT_GT(n, 20u);
  FileStoreCommit committer(fx.table->io(), fx.table->path(), fx.table->schema(), "compactor");
  ASSERT_OK(committer.Commit(messages, 1).status());
  ASSERT_OK_AND_ASSIGN(size_t files, LiveFileCount(*fx.table));
  EXPECT_LT(files, 50u / 3);
  ASSERT_OK_AND_ASSIGN(auto result, fx.table->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), next_id);
  // Everything left is too few to compact without --full; --full takes the rest.
  ASSERT_OK_AND_ASSIGN(messages, CompactAppendTable(*fx.table, nullptr, false, nullptr));
  EXPECT_TRUE(messages.empty());
  ASSERT_OK_AND_ASSIGN(messages, CompactAppendTable(*fx.table, nullptr, true, nullptr));
  ASSERT_OK(committer.Commit(messages, 2).status());
  ASSERT_OK_AND_ASSIGN(files, LiveFileCount(*fx.table));
  EXPECT_EQ(files, 2u);
  ASSERT_OK_AND_ASSIGN(result, fx.table->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), next_id);
}

TEST(AppendCompactTest, UnsupportedTablesAreRefused) {
  Fixture fx;
  fx.Create({});
  fx.SetAsJava({{"deletion-vectors.enabled", "true"}});
  EXPECT_THAT(CompactAppendTable(*fx.table, nullptr, false, nullptr),
              IsError(StatusCode::kNotImplemented, "deletion-vectors.enabled"));
}

}  // namespace
}  // namespace fjord
