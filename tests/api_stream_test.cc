// Streaming reads through the public API (table_stream.h): the starting read of each scan.mode,
// the follow-up per changelog producer, positions restored from a checkpoint, and the errors of
// expired snapshots and re-created tables. The changes handed out, applied in order to an empty
// keyed table, must equal a batch read of the snapshot reached, at every step.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>

#include "fjord/arrow.h"
#include "fjord/fjord.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;
using Rows = std::map<int32_t, std::string>;  // id -> v

struct Change {
  std::string kind;
  int32_t id;
  std::string v;
};

std::shared_ptr<arrow::RecordBatch> Batch(const std::vector<Change>& changes) {
  arrow::StringBuilder kind;
  arrow::Int32Builder id;
  arrow::StringBuilder v;
  for (const Change& c : changes) {
    EXPECT_TRUE(kind.Append(c.kind).ok());
    EXPECT_TRUE(id.Append(c.id).ok());
    EXPECT_TRUE(v.Append(c.v).ok());
  }
  auto schema =
      arrow::schema({arrow::field("_row_kind", arrow::utf8(), false),
                     arrow::field("id", arrow::int32(), false), arrow::field("v", arrow::utf8())});
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(changes.size()),
                                  {*kind.Finish(), *id.Finish(), *v.Finish()});
}

// One step of a stream: its snapshot and changes.
struct Step {
  StreamStep::Kind kind;
  std::optional<int64_t> snapshot;
  bool full = false;
  std::vector<Change> changes;
};

Step NextStep(StreamReader* stream) {
  Step out;
  auto step = stream->NextStep();
  EXPECT_TRUE(step.ok()) << step.status().ToString();
  if (!step.ok()) return {StreamStep::Kind::kEnd, std::nullopt, false, {}};
  out.kind = step->kind;
  out.snapshot = step->snapshot_id;
  out.full = step->full;
  while (true) {
    struct ArrowArray array;
    EXPECT_OK(stream->Next(&array));
    if (array.release == nullptr) break;
    struct ArrowSchema schema;
    EXPECT_OK(stream->ExportSchema(&schema));
    auto batch = *arrow::ImportRecordBatch(&array, &schema);
    EXPECT_EQ(batch->schema()->field(0)->name(), "_row_kind");
    auto kind = std::static_pointer_cast<arrow::StringArray>(batch->column(0));
    auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
    auto v = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("v"));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      out.changes.push_back(
          {kind->GetString(r), id->Value(r), v->IsNull(r) ? "" : v->GetString(r)});
    }
  }
  return out;
}

// Applies changes as a downstream upsert sink does: +I/+U put, -D/-U remove.
void Apply(const std::vector<Change>& changes, Rows* rows) {
  for (const Change& c : changes) {
    if (c.kind == "+I" || c.kind == "+U") {
      (*rows)[c.id] = c.v;
    } else {
      rows->erase(c.id);
    }
  }
}

class ApiStreamTest : public ::testing::Test {
 protected:
  std::unique_ptr<Table> MakeTable(std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = *Catalog::Open(dir_.path());
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = *ParseColumnList("id INT NOT NULL, v STRING");
    spec.primary_keys = {"id"};
    spec.options = {{"bucket", "2"}, {"file.format", "parquet"}};
    for (auto& kv : options) spec.options.push_back(kv);
    TableIdentifier id{"db", "t" + std::to_string(++tables_)};
    EXPECT_OK(catalog->CreateTable(id, spec));
    return *catalog->GetTable(id);
  }

  void Commit(Table& table, const std::vector<Change>& changes) {
    auto writer = *table.NewWrite();
    EXPECT_OK(WriteBatch(*writer, *Batch(changes)));
    auto messages = writer->PrepareCommit(++identifier_);
    ASSERT_TRUE(messages.ok()) << messages.status().ToString();
    auto commit = *table.NewCommit("test");
    ASSERT_OK(commit->Commit(*messages, identifier_).status());
  }

  void FullCompact(Table& table) {
    CompactionOptions options;
    options.full = true;
    auto compaction = *table.NewCompaction(options);
    ASSERT_OK(compaction->Run().status());
  }

  Rows BatchRead(const Table& table, std::optional<int64_t> snapshot) {
    Rows out;
    ReadBuilder read = table.NewRead();
    if (snapshot) read.AtSnapshot(*snapshot);
    auto reader = *OpenArrowReader(read);
    while (true) {
      std::shared_ptr<arrow::RecordBatch> batch;
      EXPECT_TRUE(reader->ReadNext(&batch).ok());
      if (!batch) break;
      auto id = std::static_pointer_cast<arrow::Int32Array>(batch->GetColumnByName("id"));
      auto v = std::static_pointer_cast<arrow::StringArray>(batch->GetColumnByName("v"));
      for (int64_t r = 0; r < batch->num_rows(); ++r) {
        out[id->Value(r)] = v->IsNull(r) ? "" : v->GetString(r);
      }
    }
    return out;
  }

  // Random upserts and deletes of ids [0, 40).
  std::vector<Change> RandomChanges(std::mt19937* rng, const Rows& current) {
    std::vector<Change> out;
    std::uniform_int_distribution<int> id(0, 39), n(1, 25), op(0, 9);
    int count = n(*rng);
    for (int i = 0; i < count; ++i) {
      int32_t key = id(*rng);
      if (op(*rng) < 3 && current.count(key)) {
        out.push_back({"-D", key, ""});
      } else {
        out.push_back({"+I", key, "v" + std::to_string((*rng)())});
      }
    }
    return out;
  }

  TempDir dir_;
  int tables_ = 0;
  int64_t identifier_ = 0;
};

// For each producer: a stream opened before any snapshot follows every commit and compaction;
// after each step the applied changes equal the batch read of the snapshot reached.
TEST_F(ApiStreamTest, ChangesAppliedInOrderEqualTheTableAtEveryStep) {
  for (const char* producer : {"none", "input"}) {
    SCOPED_TRACE(producer);
    auto table = MakeTable({{"changelog-producer", producer}, {"write-only", "true"}});
    auto stream = *table->NewRead().OpenStreaming();
    EXPECT_EQ(NextStep(stream.get()).kind, StreamStep::Kind::kWait);  // no snapshot yet
    std::mt19937 rng(7);
    Rows applied;
    Rows model;
    std::vector<int64_t> planned;  // the snapshots of the steps
    for (int round = 0; round < 12; ++round) {
      std::vector<Change> changes = RandomChanges(&rng, model);
      Commit(*table, changes);
      Apply(changes, &model);
      if (round % 4 == 3) FullCompact(*table);
      while (true) {
        Step step = NextStep(stream.get());
        if (step.kind == StreamStep::Kind::kWait) break;
        ASSERT_EQ(step.kind, StreamStep::Kind::kChanges);
        EXPECT_EQ(step.full, planned.empty());
        planned.push_back(*step.snapshot);
        Apply(step.changes, &applied);
      }
      ASSERT_EQ(applied, model) << "round " << round;
      ASSERT_EQ(applied, BatchRead(*table, std::nullopt)) << "round " << round;
    }
    // Exactly the APPEND snapshots are planned: compactions add no changes (none: they are not
    // APPEND; input: they have no changelog).
    std::vector<int64_t> appends;
    std::vector<SnapshotInfo> snapshots = *table->Snapshots();
    for (const SnapshotInfo& s : snapshots) {
      if (s.commit_kind == "APPEND") appends.push_back(s.id);
    }
    EXPECT_EQ(planned, appends);
  }
}

// latest-full reads the latest snapshot whole (+I), then changes; latest starts after it;
// from-snapshot starts with the changes of that snapshot; from-snapshot-full reads it whole.
TEST_F(ApiStreamTest, StartingReadOfEachScanMode) {
  auto table = MakeTable({{"changelog-producer", "input"}});
  Commit(*table, {{"+I", 1, "a"}, {"+I", 2, "b"}});  // snapshot 1
  Commit(*table, {{"+I", 1, "a2"}, {"-D", 2, ""}});  // snapshot 2 (+ compaction snapshots?)
  auto snapshots = *table->Snapshots();
  int64_t latest = snapshots.back().id;

  auto full = *table->NewRead().OpenStreaming();
  Step first = NextStep(full.get());
  EXPECT_TRUE(first.full);
  EXPECT_EQ(first.snapshot, latest);
  ASSERT_EQ(first.changes.size(), 1u);
  EXPECT_EQ(first.changes[0].id, 1);
  EXPECT_EQ(first.changes[0].v, "a2");
  EXPECT_EQ(NextStep(full.get()).kind, StreamStep::Kind::kWait);
  EXPECT_EQ(full->Checkpoint(), latest + 1);

  auto latest_stream = *table->NewRead().WithOptions({{"scan.mode", "latest"}}).OpenStreaming();
  EXPECT_EQ(NextStep(latest_stream.get()).kind, StreamStep::Kind::kWait);  // nothing new yet
  EXPECT_EQ(latest_stream->Checkpoint(), latest + 1);
  Commit(*table, {{"+I", 3, "c"}});
  Step next = NextStep(latest_stream.get());
  ASSERT_EQ(next.kind, StreamStep::Kind::kChanges);
  EXPECT_FALSE(next.full);
  ASSERT_EQ(next.changes.size(), 1u);
  EXPECT_EQ(next.changes[0].kind, "+I");
  EXPECT_EQ(next.changes[0].id, 3);

  // from-snapshot 2: the raw input changes of snapshot 2 first.
  auto from2 = *table->NewRead().WithOptions({{"scan.snapshot-id", "2"}}).OpenStreaming();
  Step s2 = NextStep(from2.get());
  ASSERT_EQ(s2.kind, StreamStep::Kind::kChanges);
  EXPECT_EQ(s2.snapshot, 2);
  std::multiset<std::string> kinds;
  for (const Change& c : s2.changes) kinds.insert(c.kind + std::to_string(c.id));
  EXPECT_EQ(kinds, (std::multiset<std::string>{"+I1", "-D2"}));

  auto full1 = *table->NewRead()
                    .WithOptions({{"scan.mode", "from-snapshot-full"}, {"scan.snapshot-id", "1"}})
                    .OpenStreaming();
  Step f1 = NextStep(full1.get());
  EXPECT_TRUE(f1.full);
  EXPECT_EQ(f1.snapshot, 1);
  EXPECT_EQ(f1.changes.size(), 2u);
  Step f2 = NextStep(full1.get());
  EXPECT_EQ(f2.snapshot, 2);

  // Contradicting options are refused as Java refuses them.
  auto bad = table->NewRead()
                 .WithOptions({{"scan.mode", "latest"}, {"scan.snapshot-id", "1"}})
                 .OpenStreaming();
  EXPECT_FALSE(bad.ok());
  auto missing =
      table->NewRead().WithOptions({{"scan.mode", "from-snapshot-full"}}).OpenStreaming();
  EXPECT_FALSE(missing.ok());
}

// latest-full of a deletion-vector or first-row table: Java plans the buckets of such tables
// (level 0 skipped) as raw-convertible splits when no file holds delete rows, whatever their
// levels (MergeTreeSplitGenerator#splitForBatch), and reads them raw, every row as +I, also the
// rows written as +U. A table of neither kind whose bucket holds two levels merges and keeps +U.
TEST_F(ApiStreamTest, LatestFullReadsDeletionVectorAndFirstRowTablesAsInserts) {
  struct Case {
    std::vector<std::pair<std::string, std::string>> options;
    bool inserts_only;
  };
  for (const Case& c : std::vector<Case>{
           {{{"deletion-vectors.enabled", "true"}}, true},
           {{{"merge-engine", "first-row"}}, true},
           // write-only: level 0 stays beside the level the first compaction wrote
           {{{"write-only", "true"}}, false},
       }) {
    SCOPED_TRACE(c.options[0].first);
    auto table = MakeTable(c.options);
    Commit(*table, {{"+I", 1, "a"}, {"+I", 2, "b"}, {"+I", 3, "c"}, {"+I", 4, "d"}});
    if (!c.inserts_only) FullCompact(*table);
    Commit(*table, {{"+U", 1, "a2"}, {"+U", 2, "b2"}, {"+U", 5, "e"}});
    auto stream = *table->NewRead().OpenStreaming();
    Step first = NextStep(stream.get());
    ASSERT_TRUE(first.full);
    Rows rows;
    std::multiset<std::string> kinds;
    for (const Change& ch : first.changes) {
      kinds.insert(ch.kind);
      rows[ch.id] = ch.v;
    }
    EXPECT_EQ(rows, BatchRead(*table, std::nullopt));
    if (c.inserts_only) {
      EXPECT_EQ(kinds.count("+I"), first.changes.size());
    } else {
      EXPECT_EQ(kinds.count("+U"), 3u);
    }
  }
}

// A reader restored to a checkpoint continues with exactly the snapshots after it.
TEST_F(ApiStreamTest, RestoredReaderContinuesExactly) {
  auto table = MakeTable({{"changelog-producer", "none"}, {"write-only", "true"}});
  Commit(*table, {{"+I", 1, "a"}});
  auto stream = *table->NewRead().OpenStreaming();
  Rows applied;
  Apply(NextStep(stream.get()).changes, &applied);
  std::optional<int64_t> position = stream->Checkpoint();
  Commit(*table, {{"+I", 2, "b"}});
  Commit(*table, {{"-D", 1, ""}});
  auto restored = *table->NewRead().OpenStreaming();
  restored->Restore(position);
  while (true) {
    Step step = NextStep(restored.get());
    if (step.kind != StreamStep::Kind::kChanges) break;
    EXPECT_FALSE(step.full);
    Apply(step.changes, &applied);
  }
  EXPECT_EQ(applied, (Rows{{2, "b"}}));
}

// A snapshot deleted before it was read is "expired"; a position far beyond the latest means
// the table was re-created. Both are checked every 16 misses, as Java does.
TEST_F(ApiStreamTest, ExpiredAndRecreatedAreErrors) {
  auto table = MakeTable({{"write-only", "true"}});
  Commit(*table, {{"+I", 1, "a"}});
  Commit(*table, {{"+I", 2, "b"}});
  Commit(*table, {{"+I", 3, "c"}});
  auto stream = *table->NewRead().OpenStreaming();
  stream->Restore(2);
  std::filesystem::remove(table->path() + "/snapshot/snapshot-2");
  std::filesystem::remove(table->path() + "/snapshot/snapshot-1");
  std::filesystem::remove(table->path() + "/snapshot/EARLIEST");
  Result<StreamStep> step = StreamStep{};
  int calls = 0;
  while (step.ok() && step->kind == StreamStep::Kind::kWait && calls < 20) {
    step = stream->NextStep();
    ++calls;
  }
  ASSERT_FALSE(step.ok());
  EXPECT_EQ(calls, 16);
  EXPECT_NE(step.status().ToString().find("has expired"), std::string::npos)
      << step.status().ToString();

  auto ahead = *table->NewRead().OpenStreaming();
  ahead->Restore(10);
  Result<StreamStep> far = StreamStep{};
  for (int i = 0; i < 16 && far.ok(); ++i) far = ahead->NextStep();
  ASSERT_FALSE(far.ok());
  EXPECT_NE(far.status().ToString().find("re-created"), std::string::npos);
}

// consumer-id: progress is recorded only when committed; a reader opened later with the same id
// continues exactly there, whatever scan.mode says, unless consumer.ignore-progress.
TEST_F(ApiStreamTest, ConsumerContinuesWhereItsProgressWasCommitted) {
  auto table = MakeTable({{"changelog-producer", "input"}});
  Commit(*table, {{"+I", 1, "a"}});
  std::map<std::string, std::string> options = {{"consumer-id", "c1"}};
  auto first = *table->NewRead().WithOptions(options).OpenStreaming();
  Step s1 = NextStep(first.get());
  EXPECT_TRUE(s1.full);
  ASSERT_OK(first->CommitProgress());
  std::string file = table->path() + "/consumer/consumer-c1";
  ASSERT_TRUE(std::filesystem::exists(file));
  Commit(*table, {{"+I", 2, "b"}});
  Step s2 = NextStep(first.get());  // handed out, never committed
  ASSERT_EQ(s2.changes.size(), 1u);
  Commit(*table, {{"-D", 1, ""}});

  auto second = *table->NewRead().WithOptions(options).OpenStreaming();
  std::vector<std::string> seen;
  while (true) {
    Step step = NextStep(second.get());
    if (step.kind != StreamStep::Kind::kChanges) break;
    EXPECT_FALSE(step.full);
    for (const Change& c : step.changes) seen.push_back(c.kind + std::to_string(c.id));
    ASSERT_OK(second->CommitProgress());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"+I2", "-D1"}));
  auto consumer = *table->NewRead().WithOptions(options).OpenStreaming();
  EXPECT_EQ(NextStep(consumer.get()).kind, StreamStep::Kind::kWait);  // all consumed

  options["consumer.ignore-progress"] = "true";
  auto ignoring = *table->NewRead().WithOptions(options).OpenStreaming();
  EXPECT_TRUE(NextStep(ignoring.get()).full);
  EXPECT_FALSE(table->NewRead().WithOptions({{"consumer-id", ""}}).OpenStreaming().ok());
}

// The differential test of point 7: for each producer and seed, random upserts, deletes and
// compactions, and a reader with a consumer id that is restarted at random, dropping what it
// handed out but had not committed (as a sink rolls back to its last checkpoint). The committed
// changes, applied in order to an empty table, equal the table's rows at every commit.
TEST_F(ApiStreamTest, DifferentialRestartsWithAConsumer) {
  int runs = 0, restarts = 0, steps = 0;
  // `make soak-stream` raises the seed count (FJORD_STREAM_SEEDS).
  const char* env = std::getenv("FJORD_STREAM_SEEDS");
  uint32_t seeds = env ? static_cast<uint32_t>(std::strtoul(env, nullptr, 10)) : 6;
  for (const char* producer : {"none", "input", "full-compaction"}) {
    for (uint32_t seed = 1; seed <= seeds; ++seed) {
      SCOPED_TRACE(std::string(producer) + " seed " + std::to_string(seed));
      bool full = std::string(producer) == "full-compaction";
      std::vector<std::pair<std::string, std::string>> options = {{"changelog-producer", producer}};
      if (full) {
        options.push_back({"full-compaction.delta-commits", "1"});
      } else {
        options.push_back({"write-only", "true"});
      }
      auto table = MakeTable(options);
      std::mt19937 rng(seed);
      std::map<std::string, std::string> read = {{"consumer-id", "diff"}};
      auto stream = *table->NewRead().WithOptions(read).OpenStreaming();
      Rows committed, pending, model;
      for (int round = 0; round < 10; ++round) {
        std::vector<Change> changes = RandomChanges(&rng, model);
        Commit(*table, changes);
        Apply(changes, &model);
        if (!full && rng() % 4 == 0) FullCompact(*table);
        while (true) {
          if (rng() % 5 == 0) {  // restart: what was not committed is lost downstream
            stream = *table->NewRead().WithOptions(read).OpenStreaming();
            pending = committed;
            ++restarts;
          }
          Step step = NextStep(stream.get());
          if (step.kind == StreamStep::Kind::kWait) break;
          ASSERT_EQ(step.kind, StreamStep::Kind::kChanges);
          ++steps;
          Apply(step.changes, &pending);
          if (rng() % 3 != 0) {
            ASSERT_OK(stream->CommitProgress());
            committed = pending;
          }
        }
        ASSERT_OK(stream->CommitProgress());
        committed = pending;
        ASSERT_EQ(committed, model) << "round " << round;
      }
      ++runs;
    }
  }
  std::cerr << runs << " runs, " << steps << " steps, " << restarts << " restarts\n";
}

}  // namespace
}  // namespace fjord
