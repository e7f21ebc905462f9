#include "fjord/table/write/primary_key_write.h"

#include <arrow/api.h>

#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <tuple>

#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"
#include "fjord/lsm/kv_file_reader.h"
#include "fjord/meta/hash_index.h"
#include "fjord/meta/snapshot_manager.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/read/scan.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;
using Row = std::tuple<std::string, int32_t, int64_t, std::string>;  // p, id, v, s
using Model = std::map<std::pair<std::string, int32_t>, Row>;

class PrimaryKeyWriteTest : public ::testing::Test {
 protected:
  std::unique_ptr<FileStoreTable> Create(std::vector<std::pair<std::string, std::string>> options) {
    auto catalog = FileSystemCatalog::Open(dir_.Join("wh")).value();
    EXPECT_OK(catalog->CreateDatabase("db", true));
    TableSpec spec;
    spec.fields = ParseColumnList("p STRING NOT NULL, id INT NOT NULL, v BIGINT, s STRING").value();
    spec.partition_keys = {"p"};
    spec.primary_keys = {"p", "id"};
    spec.options = std::move(options);
    auto id = TableIdentifier::Parse("db.t" + std::to_string(counter_)).value();
    ++counter_;
    EXPECT_OK(catalog->CreateTable(id, spec));
    return std::move(catalog->GetTable(id)).value();
  }

  static std::shared_ptr<arrow::Table> Rows(const std::vector<Row>& rows,
                                            const std::vector<std::string>& kinds = {}) {
    arrow::StringBuilder p, s, k;
    arrow::Int32Builder id;
    arrow::Int64Builder v;
    for (size_t i = 0; i < rows.size(); ++i) {
      (void)p.Append(std::get<0>(rows[i]));
      (void)id.Append(std::get<1>(rows[i]));
      (void)v.Append(std::get<2>(rows[i]));
      (void)s.Append(std::get<3>(rows[i]));
      if (!kinds.empty()) (void)k.Append(kinds[i]);
    }
    arrow::FieldVector fields = {
        arrow::field("p", arrow::utf8()), arrow::field("id", arrow::int32()),
        arrow::field("v", arrow::int64()), arrow::field("s", arrow::utf8())};
    arrow::ArrayVector columns = {p.Finish().ValueOrDie(), id.Finish().ValueOrDie(),
                                  v.Finish().ValueOrDie(), s.Finish().ValueOrDie()};
    if (!kinds.empty()) {
      fields.push_back(arrow::field("_row_kind", arrow::utf8()));
      columns.push_back(k.Finish().ValueOrDie());
    }
    return arrow::Table::Make(arrow::schema(fields), columns);
  }

  // Appends `row` with `kind` to a batch being built, and applies it to `model` (-D removes).
  static void Upsert(const Row& row, const std::string& kind, std::vector<Row>* rows,
                     std::vector<std::string>* kinds, Model* model) {
    rows->push_back(row);
    kinds->push_back(kind);
    std::pair<std::string, int32_t> key(std::get<0>(row), std::get<1>(row));
    if (kind == "-D") {
      model->erase(key);
    } else {
      (*model)[key] = row;
    }
  }

  static Model ReadBack(const std::string& path) {
    auto table = std::move(FileStoreTable::Open(path)).value();
    auto result = table->Read(ReadRequest{}).value();
    auto rows = result.rows->CombineChunks().ValueOrDie();
    Model out;
    if (rows->num_rows() == 0) return out;
    auto p = std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("p")->chunk(0));
    auto id = std::static_pointer_cast<arrow::Int32Array>(rows->GetColumnByName("id")->chunk(0));
    auto v = std::static_pointer_cast<arrow::Int64Array>(rows->GetColumnByName("v")->chunk(0));
    auto s = std::static_pointer_cast<arrow::StringArray>(rows->GetColumnByName("s")->chunk(0));
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      Row row(p->GetString(r), id->Value(r), v->Value(r), s->GetString(r));
      EXPECT_TRUE(out.emplace(std::make_pair(p->GetString(r), id->Value(r)), row).second)
          << "key returned twice";
    }
    return out;
  }

  Result<std::optional<int64_t>> Commit(const FileStoreTable& table, PrimaryKeyTableWrite& writer,
                                        int64_t identifier,
                                        std::vector<CommitMessage>* out = nullptr) {
    FJORD_ASSIGN_OR_RAISE(auto messages, writer.PrepareCommit());
    if (out) *out = messages;
    FileStoreCommit commit(table.io(), table.path(), table.schema(), "test-user");
    return commit.Commit(messages, identifier);
  }

  // Random upserts and deletes over a few partitions, several commits; the table must equal the
  // model after each commit, and every commit's files of one bucket must be sorted and disjoint.
  void RunModel(std::vector<std::pair<std::string, std::string>> options, uint64_t seed,
                TableWriteMetrics* metrics_out, int rows_per_batch = 400, int key_space = 700,
                int threads = 0) {
    auto table = Create(std::move(options));
    std::mt19937_64 rng(seed);
    Model model;
    TableWriteMetrics total;
    int64_t last_max_seq = -1;
    for (int commit = 0; commit < 4; ++commit) {
      TableWriteOptions write_options;
      write_options.threads = threads;
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get(), write_options));
      for (int batch = 0; batch < 6; ++batch) {
        std::vector<Row> rows;
        std::vector<std::string> kinds;
        for (int i = 0; i < rows_per_batch; ++i) {
          std::string p = "p" + std::to_string(rng() % 3);
          int32_t id = static_cast<int32_t>(rng() % static_cast<uint64_t>(key_space));
          bool del = rng() % 6 == 0;
          Row row{p, id, static_cast<int64_t>(rng() % 1000000),
                  std::string(rng() % 40, static_cast<char>('a' + rng() % 26))};
          Upsert(row, del ? "-D" : (rng() % 2 ? "+I" : "+U"), &rows, &kinds, &model);
        }
        ASSERT_OK(writer->Write(Rows(rows, kinds)));
      }
      std::vector<CommitMessage> messages;
      ASSERT_OK_AND_ASSIGN(auto snapshot, Commit(*table, *writer, commit, &messages));
      ASSERT_TRUE(snapshot.has_value());
      for (const CommitMessage& m : messages) {
        for (size_t i = 0; i < m.new_files.size(); ++i) {
          const DataFileMeta& f = m.new_files[i];
          EXPECT_EQ(f.level, 0);
          EXPECT_GT(f.min_sequence_number, last_max_seq - 100000000);
          // One flush per bucket: its rolled files are in key order and disjoint.
          if (i > 0 && writer->metrics().buffer_flushes == 0) {
            auto key = [](const std::string& row) {
              return DecodeStoredBinaryRow(row, {DataType::Int(false)}).value()[0].get<int32_t>();
            };
            EXPECT_LT(key(m.new_files[i - 1].max_key), key(f.min_key));
          }
        }
      }
      int64_t max_seq = -1;
      for (const CommitMessage& m : messages) {
        for (const DataFileMeta& f : m.new_files)
          max_seq = std::max(max_seq, f.max_sequence_number);
      }
      EXPECT_GT(max_seq, last_max_seq);
      last_max_seq = max_seq;
      const TableWriteMetrics& m = writer->metrics();
      total.spills += m.spills;
      total.buffer_flushes += m.buffer_flushes;
      total.files_written += m.files_written;
      total.compactions += m.compactions;
      ASSERT_EQ(ReadBack(table->path()), model) << "after commit " << commit;
    }
    if (metrics_out) *metrics_out = total;
  }

  TempDir dir_;
  int counter_ = 0;
};

TEST_F(PrimaryKeyWriteTest, UpsertsAndDeletesMatchAModelAcrossCommits) {
  TableWriteMetrics m;
  RunModel({{"bucket", "3"}}, 1, &m);
  EXPECT_EQ(m.spills, 0);
}

TEST_F(PrimaryKeyWriteTest, SpillingUnderASmallBufferGivesTheSameRows) {
  TableWriteMetrics m;
  RunModel(
      {{"bucket", "2"}, {"write-buffer-size", "24 kb"}, {"local-sort.max-num-file-handles", "4"}},
      2, &m);
  EXPECT_GT(m.spills, 10);
  EXPECT_EQ(m.buffer_flushes, 0);
}

// Buckets sort, spill, flush and compact on several threads at once; one thread does it all in
// turn. Both must give the model's rows (each bucket's records in their order) after every commit.
TEST_F(PrimaryKeyWriteTest, BucketsWrittenOnSeveralThreadsGiveTheSameRowsAsOnOne) {
  for (int threads : {1, 4}) {
    SCOPED_TRACE("threads " + std::to_string(threads));
    TableWriteMetrics m;
    RunModel({{"bucket", "4"},
              {"write-buffer-size", "48 kb"},
              {"num-sorted-run.compaction-trigger", "2"},
              {"changelog-producer", "lookup"},
              {"deletion-vectors.enabled", "true"}},
             7, &m, 400, 700, threads);
    EXPECT_GT(m.spills, 0);
    EXPECT_GT(m.compactions, 0);
    // On threads, spills are written while new records are buffered; the caller waits at 1.5x
    // the budget (as seen between batches: one batch more at most).
    EXPECT_LE(m.peak_buffer_bytes, 48 * 1024 * 3 / 2) << m.peak_buffer_bytes;
  }
}

// With several threads, batches spread over several buckets are held and dealt out together, a
// batch all of one bucket goes at once after them: each bucket must get its records in the order
// written, with the sequence numbers one thread gives them, whatever the batches' sizes.
TEST_F(PrimaryKeyWriteTest, BatchesHeldOnThreadsKeepTheOneThreadSequenceNumbers) {
  // (partition, bucket, rows, min sequence number, max sequence number) of each new file.
  using FileKey = std::tuple<std::string, int32_t, int64_t, int64_t, int64_t>;
  std::map<int, std::set<FileKey>> files;
  std::map<int, Model> read;
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    auto table = Create({{"bucket", "2"}});
    std::mt19937_64 rng(5);
    Model model;
    for (int commit = 0; commit < 2; ++commit) {
      TableWriteOptions write_options;
      write_options.threads = threads;
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get(), write_options));
      for (int batch = 0; batch < 40; ++batch) {
        // Every fifth batch all of partition p1 and one bucket (key 7); the others spread.
        const bool one_bucket = batch % 5 == 4;
        const int n = batch % 3 == 0 ? 1 : 37 * (batch % 7 + 1);
        std::vector<Row> rows;
        std::vector<std::string> kinds;
        for (int i = 0; i < n; ++i) {
          // Key (p1, 7) in every batch: its last write must win.
          std::string p = one_bucket || i == 0 ? "p1" : "p" + std::to_string(rng() % 3);
          int32_t id = one_bucket || i == 0 ? 7 : static_cast<int32_t>(rng() % 300);
          bool del = !one_bucket && i > 0 && rng() % 5 == 0;
          Upsert(Row{p, id, batch * 1000 + i, std::to_string(rng() % 100000)}, del ? "-D" : "+I",
                 &rows, &kinds, &model);
        }
        ASSERT_OK(writer->Write(Rows(rows, kinds)));
      }
      std::vector<CommitMessage> messages;
      ASSERT_OK(Commit(*table, *writer, commit, &messages).status());
      for (const CommitMessage& m : messages) {
        for (const DataFileMeta& f : m.new_files) {
          files[threads].insert(
              {m.partition, m.bucket, f.row_count, f.min_sequence_number, f.max_sequence_number});
        }
      }
      ASSERT_EQ(ReadBack(table->path()), model) << "after commit " << commit;
    }
    read[threads] = ReadBack(table->path());
  }
  EXPECT_FALSE(files[1].empty());
  EXPECT_TRUE(files[1] == files[2]);
  EXPECT_EQ(read[1], read[2]);
}

// A writer dropped (never committed) while its lanes still buffer and spill waits for them and
// leaves no spill file behind; the table is unchanged.
TEST_F(PrimaryKeyWriteTest, AWriterDroppedWhileSpillingEndsCleanly) {
  auto table = Create({{"bucket", "4"}, {"write-buffer-size", "16 kb"}});
  std::mt19937_64 rng(3);
  for (int round = 0; round < 20; ++round) {
    TableWriteOptions write_options;
    write_options.threads = 2;
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get(), write_options));
    for (int batch = 0; batch < 8; ++batch) {
      std::vector<Row> rows;
      for (int i = 0; i < 300; ++i) {
        rows.push_back(Row{"p" + std::to_string(rng() % 2), static_cast<int32_t>(rng() % 5000),
                           static_cast<int64_t>(rng() % 1000),
                           std::string(30, static_cast<char>('a' + rng() % 26))});
      }
      ASSERT_OK(writer->Write(Rows(rows)));
    }
    writer.reset();  // spills may still be queued or being written
  }
  SnapshotManager snapshots(table->io(), table->path());
  ASSERT_OK_AND_ASSIGN(auto latest, snapshots.LatestId());
  EXPECT_FALSE(latest.has_value());
}

// A writer dropped without PrepareCommit deletes what it wrote since the last one (as Java's
// writer close): early flushes, their input changelog, compaction outputs and changelog, new
// deletion-vector index files. A compaction's upgrade of a committed file keeps the file.
TEST_F(PrimaryKeyWriteTest, AWriterDroppedUnpreparedLeavesOnlyCommittedFiles) {
  auto files_of = [](const std::string& root) {
    std::set<std::string> out;
    for (const auto& e : std::filesystem::recursive_directory_iterator(root)) {
      std::string rel = std::filesystem::relative(e.path(), root).string();
      if (e.is_regular_file() && rel.rfind("snapshot", 0) != 0 && rel.rfind("manifest", 0) != 0 &&
          rel.rfind("schema", 0) != 0) {
        out.insert(rel);
      }
    }
    return out;
  };
  const std::vector<std::vector<std::pair<std::string, std::string>>> configs = {
      {{"bucket", "2"},
       {"write-buffer-size", "24 kb"},
       {"write-buffer-spillable", "false"},
       {"num-sorted-run.compaction-trigger", "2"},
       {"changelog-producer", "input"}},
      {{"bucket", "2"},
       {"write-buffer-size", "24 kb"},
       {"write-buffer-spillable", "false"},
       {"num-sorted-run.compaction-trigger", "2"},
       {"changelog-producer", "lookup"},
       {"deletion-vectors.enabled", "true"}}};
  for (int threads : {1, 2}) {
    for (size_t c = 0; c < configs.size(); ++c) {
      SCOPED_TRACE("config " + std::to_string(c) + ", threads " + std::to_string(threads));
      auto table = Create(configs[c]);
      std::mt19937_64 rng(11 + c);
      auto batch = [&]() {
        std::vector<Row> rows;
        for (int i = 0; i < 300; ++i) {
          rows.push_back(Row{"p" + std::to_string(rng() % 2), static_cast<int32_t>(rng() % 3000),
                             static_cast<int64_t>(rng() % 1000),
                             std::string(30, static_cast<char>('a' + rng() % 26))});
        }
        return Rows(rows);
      };
      TableWriteOptions write_options;
      write_options.threads = threads;
      {
        ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get(), write_options));
        for (int b = 0; b < 10; ++b) ASSERT_OK(writer->Write(batch()));
        ASSERT_OK(Commit(*table, *writer, 1).status());
      }
      const std::set<std::string> committed = files_of(table->path());
      const Model before = ReadBack(table->path());
      ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get(), write_options));
      for (int b = 0; b < 30; ++b) ASSERT_OK(writer->Write(batch()));
      // Flushes and compactions have written files (so the check below can fail).
      EXPECT_GT(writer->metrics().buffer_flushes, 3);
      EXPECT_GT(files_of(table->path()).size(), committed.size() + 3);
      writer.reset();
      EXPECT_EQ(files_of(table->path()), committed);
      EXPECT_EQ(ReadBack(table->path()), before);
    }
  }
}

TEST_F(PrimaryKeyWriteTest, WithoutSpillingAFullBufferIsFlushedToLevelZeroFiles) {
  TableWriteMetrics m;
  RunModel({{"bucket", "2"}, {"write-buffer-size", "24 kb"}, {"write-buffer-spillable", "false"}},
           3, &m);
  EXPECT_GT(m.buffer_flushes, 10);
  EXPECT_EQ(m.spills, 0);
}

TEST_F(PrimaryKeyWriteTest, FilesRollAtTargetFileSize) {
  TableWriteMetrics m;
  // Java checks the size every 1000 records, so a bucket needs a few thousand keys to roll.
  RunModel({{"bucket", "1"}, {"target-file-size", "8 kb"}, {"file.format", "avro"}}, 4, &m, 3000,
           30000);
  EXPECT_GT(m.files_written, 4 * 3 * 3);
}

TEST_F(PrimaryKeyWriteTest, OrcAndPartialUpdate) {
  auto table =
      Create({{"bucket", "2"}, {"file.format", "orc"}, {"merge-engine", "partial-update"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  // Partial update: NULLs do not overwrite.
  auto rows = Rows({{"a", 1, 10, "x"}, {"a", 2, 20, "y"}});
  ASSERT_OK(writer->Write(rows));
  arrow::StringBuilder p, s;
  arrow::Int32Builder id;
  arrow::Int64Builder v;
  (void)p.Append("a");
  (void)id.Append(1);
  (void)v.AppendNull();
  (void)s.Append("x2");
  auto update =
      arrow::Table::Make(rows->schema(), {p.Finish().ValueOrDie(), id.Finish().ValueOrDie(),
                                          v.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
  ASSERT_OK(writer->Write(update));
  ASSERT_OK(Commit(*table, *writer, 1).status());
  Model expected = {{{"a", 1}, Row{"a", 1, 10, "x2"}}, {{"a", 2}, Row{"a", 2, 20, "y"}}};
  EXPECT_EQ(ReadBack(table->path()), expected);
}

TEST_F(PrimaryKeyWriteTest, NullInNotNullColumnIsRefusedAndKeepsEarlierRows) {
  auto table = Create({{"bucket", "2"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(Rows({{"a", 1, 10, "x"}})));
  arrow::StringBuilder p, s;
  arrow::Int32Builder id;
  arrow::Int64Builder v;
  (void)p.Append("a");
  (void)id.AppendNull();
  (void)v.Append(1);
  (void)s.Append("bad");
  auto bad =
      arrow::Table::Make(Rows({})->schema(), {p.Finish().ValueOrDie(), id.Finish().ValueOrDie(),
                                              v.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
  EXPECT_THAT(writer->Write(bad), IsError(StatusCode::kInvalid, "column 'id' is NOT NULL"));
  ASSERT_OK(Commit(*table, *writer, 1).status());
  Model expected = {{{"a", 1}, Row{"a", 1, 10, "x"}}};
  EXPECT_EQ(ReadBack(table->path()), expected);
}

TEST_F(PrimaryKeyWriteTest, IgnoreDeleteAndRowKindField) {
  auto table = Create({{"bucket", "1"}, {"ignore-delete", "true"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(Rows({{"a", 1, 10, "x"}})));
  ASSERT_OK(writer->Write(Rows({{"a", 1, 0, ""}}, {"-D"})));
  ASSERT_OK(Commit(*table, *writer, 1).status());
  EXPECT_EQ(writer->metrics().records_dropped, 1);
  EXPECT_EQ(ReadBack(table->path()).size(), 1u);

  // rowkind.field: the kind comes from the column `s`.
  auto t2 = Create({{"bucket", "1"}, {"rowkind.field", "s"}});
  ASSERT_OK_AND_ASSIGN(auto w2, PrimaryKeyTableWrite::Create(t2.get()));
  ASSERT_OK(w2->Write(Rows({{"a", 1, 10, "+I"}, {"a", 2, 20, "+I"}, {"a", 1, 0, "-D"}})));
  EXPECT_THAT(w2->Write(Rows({{"a", 3, 1, "??"}})), HasStatusCode(StatusCode::kInvalid));
  ASSERT_OK(Commit(*t2, *w2, 1).status());
  Model expected = {{{"a", 2}, Row{"a", 2, 20, "+I"}}};
  EXPECT_EQ(ReadBack(t2->path()), expected);
}

// changelog-producer = input: each flush also writes every input record (after the row-kind
// filter), in key and sequence order and not merged, as level-0 changelog files; the commit
// lists them in the snapshot's changelog manifest list (Java's MergeTreeWriter).
TEST_F(PrimaryKeyWriteTest, InputChangelogHoldsTheRawRecordsOfEachCommit) {
  auto table =
      Create({{"bucket", "1"}, {"changelog-producer", "input"}, {"ignore-delete", "false"}});
  auto changes = [&](const std::vector<CommitMessage>& messages) {
    std::vector<std::string> out;
    KvFileReaderFactory readers(table->io(), table->path(), table->schema());
    for (const CommitMessage& m : messages) {
      EXPECT_FALSE(m.new_files.empty());
      for (const DataFileMeta& f : m.changelog_files) {
        EXPECT_EQ(f.file_name.rfind("changelog-", 0), 0u) << f.file_name;
        EXPECT_EQ(f.level, 0);
      }
      auto run = readers.OpenRun(JoinPath(table->path(), "p=a/bucket-0"), m.changelog_files);
      EXPECT_TRUE(run.ok()) << run.status().ToString();
      while (run.ok()) {
        auto batch = (*run)->Next();
        EXPECT_TRUE(batch.ok());
        if (!batch.ok() || !*batch) break;
        auto id = std::static_pointer_cast<arrow::Int32Array>((*batch)->GetColumnByName("id"));
        auto v = std::static_pointer_cast<arrow::Int64Array>((*batch)->GetColumnByName("v"));
        auto kind =
            std::static_pointer_cast<arrow::Int8Array>((*batch)->GetColumnByName(kValueKindColumn));
        for (int64_t r = 0; r < (*batch)->num_rows(); ++r) {
          static const char* kKinds[] = {"+I", "-U", "+U", "-D"};
          out.push_back(std::string(kKinds[kind->Value(r) & 3]) + std::to_string(id->Value(r)) +
                        "=" + std::to_string(v->Value(r)));
        }
      }
    }
    return out;
  };
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(Rows({{"a", 2, 20, "x"}, {"a", 1, 10, "x"}})));
  ASSERT_OK(writer->Write(Rows({{"a", 1, 10, "x"}, {"a", 1, 11, "y"}}, {"-U", "+U"})));
  std::vector<CommitMessage> first;
  ASSERT_OK(Commit(*table, *writer, 1, &first).status());
  EXPECT_EQ(changes(first), (std::vector<std::string>{"+I1=10", "-U1=10", "+U1=11", "+I2=20"}));

  ASSERT_OK(writer->Write(Rows({{"a", 2, 20, "x"}, {"a", 3, 30, "z"}}, {"-D", "+I"})));
  std::vector<CommitMessage> second;
  ASSERT_OK(Commit(*table, *writer, 2, &second).status());
  EXPECT_EQ(changes(second), (std::vector<std::string>{"-D2=20", "+I3=30"}));

  SnapshotManager snapshots(table->io(), table->path());
  ASSERT_OK_AND_ASSIGN(Snapshot s1, snapshots.Load(1));
  ASSERT_OK_AND_ASSIGN(Snapshot s2, snapshots.Load(2));
  ASSERT_TRUE(s1.changelog_manifest_list && s2.changelog_manifest_list);
  EXPECT_EQ(s1.changelog_record_count, 4);
  EXPECT_EQ(s2.changelog_record_count, 2);
  Model expected = {{{"a", 1}, Row{"a", 1, 11, "y"}}, {{"a", 3}, Row{"a", 3, 30, "z"}}};
  EXPECT_EQ(ReadBack(table->path()), expected);

  // Without a producer there is no changelog.
  auto plain = Create({{"bucket", "1"}});
  ASSERT_OK_AND_ASSIGN(auto w2, PrimaryKeyTableWrite::Create(plain.get()));
  ASSERT_OK(w2->Write(Rows({{"a", 1, 10, "x"}})));
  std::vector<CommitMessage> none;
  ASSERT_OK(Commit(*plain, *w2, 1, &none).status());
  ASSERT_EQ(none.size(), 1u);
  EXPECT_TRUE(none[0].changelog_files.empty());
}

// A table created without a bucket option has dynamic buckets: every commit uses a new writer
// (which loads the hash index), keys stay in their bucket, the index lists exactly the keys of
// each bucket, and buckets do not grow past the target.
TEST_F(PrimaryKeyWriteTest, DynamicBucketsKeepEveryKeyInOneBucketAcrossWriters) {
  constexpr int64_t kTarget = 40;
  auto table = Create({{"dynamic-bucket.target-row-num", std::to_string(kTarget)}});
  std::mt19937_64 rng(7);
  Model model;
  for (int commit = 0; commit < 4; ++commit) {
    ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
    std::vector<Row> rows;
    std::vector<std::string> kinds;
    for (int i = 0; i < 150; ++i) {
      std::string p = "p" + std::to_string(rng() % 3);
      auto id = static_cast<int32_t>(rng() % 120);
      bool del = rng() % 8 == 0;
      Upsert(Row{p, id, static_cast<int64_t>(rng() % 1000), "s" + std::to_string(commit)},
             del ? "-D" : "+I", &rows, &kinds, &model);
    }
    ASSERT_OK(writer->Write(Rows(rows, kinds)));
    std::vector<CommitMessage> messages;
    ASSERT_OK_AND_ASSIGN(auto snapshot, Commit(*table, *writer, commit, &messages));
    ASSERT_TRUE(snapshot.has_value());
    for (const CommitMessage& m : messages) {
      EXPECT_EQ(m.total_buckets, -1);
      for (const IndexFileMeta& f : m.new_index_files) EXPECT_EQ(f.index_type, "HASH");
      EXPECT_LE(m.deleted_index_files.size(), 1u);
    }
    EXPECT_EQ(ReadBack(table->path()), model);
  }

  // The latest snapshot's hash index: one file per (partition, bucket), no hash in two buckets
  // of a partition, none over the target.
  auto reopened = std::move(FileStoreTable::Open(table->path())).value();
  ASSERT_OK_AND_ASSIGN(std::optional<Snapshot> latest, reopened->snapshots().Latest());
  ASSERT_TRUE(latest && latest->index_manifest);
  TablePaths paths{table->path()};
  ASSERT_OK_AND_ASSIGN(
      auto index,
      ReadIndexManifest(table->io().get(), paths.ManifestFile(*latest->index_manifest), "avro"));
  std::map<std::string, std::map<int32_t, int32_t>> bucket_of_hash;  // partition -> hash -> bucket
  std::map<std::string, std::set<int32_t>> buckets;
  for (const IndexManifestEntry& e : index) {
    ASSERT_EQ(e.index_type, "HASH");
    EXPECT_TRUE(buckets[e.partition].insert(e.bucket).second) << "two files for one bucket";
    ASSERT_OK_AND_ASSIGN(std::vector<int32_t> hashes,
                         ReadHashIndexFile(table->io().get(), paths, e));
    EXPECT_LE(static_cast<int64_t>(hashes.size()), kTarget);
    for (int32_t h : hashes) {
      EXPECT_TRUE(bucket_of_hash[e.partition].emplace(h, e.bucket).second)
          << "hash " << h << " is in two buckets";
    }
  }
  EXPECT_EQ(buckets.size(), 3u);
  for (const auto& [p, b] : buckets) EXPECT_GE(b.size(), 2u);  // ~120 keys, 40 a bucket
  // Every live data file sits in the bucket its keys are indexed in (checked on min/max keys).
  TableScan scan(table->io(), table->path(), table->schema());
  ASSERT_OK_AND_ASSIGN(std::vector<ManifestEntry> live, scan.LiveEntries(*latest, nullptr));
  ASSERT_FALSE(live.empty());
  for (const ManifestEntry& e : live) {
    EXPECT_EQ(e.total_buckets, -1);
    for (const std::string* key : {&e.file.min_key, &e.file.max_key}) {
      int32_t h = HashBinaryRow(std::string_view(*key).substr(4));
      auto it = bucket_of_hash[e.partition].find(h);
      ASSERT_NE(it, bucket_of_hash[e.partition].end());
      EXPECT_EQ(it->second, e.bucket);
    }
  }
}

TEST_F(PrimaryKeyWriteTest, CrossPartitionDynamicBucketTablesAreRefusedClearly) {
  auto catalog = FileSystemCatalog::Open(dir_.Join("wh")).value();
  EXPECT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  spec.fields = ParseColumnList("p STRING NOT NULL, id INT NOT NULL, v BIGINT").value();
  spec.partition_keys = {"p"};
  spec.primary_keys = {"id"};
  auto id = TableIdentifier::Parse("db.cross").value();
  ASSERT_OK(catalog->CreateTable(id, spec));
  auto table = std::move(catalog->GetTable(id)).value();
  EXPECT_THAT(PrimaryKeyTableWrite::Create(table.get()),
              IsError(StatusCode::kNotImplemented, "cross-partition"));
}

// First-row reads skip level 0 (behaviour.md §7.1): a partition whose files are all at level 0
// reads as empty, next to a compacted one read from its Parquet files. That mix once failed the
// read ("Schema at index 1 was different": the empty part had the schema's NOT NULL flags).
TEST_F(PrimaryKeyWriteTest, FirstRowReadSkipsPartitionsWithOnlyLevelZeroFiles) {
  auto table = Create({{"bucket", "1"}, {"merge-engine", "first-row"}, {"write-only", "true"}});
  ASSERT_OK_AND_ASSIGN(auto writer, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(Rows({{"a", 1, 10, "x"}, {"a", 2, 20, "y"}, {"a", 1, 11, "z"}})));
  ASSERT_OK(Commit(*table, *writer, 1).status());
  TableWriteOptions options;
  options.dynamic_options["write-only"] = "false";
  ASSERT_OK_AND_ASSIGN(auto compactor, PrimaryKeyTableWrite::Create(table.get(), options));
  ASSERT_OK_AND_ASSIGN(auto buckets, compactor->LiveBuckets());
  ASSERT_EQ(buckets.size(), 1u);
  ASSERT_OK(compactor->CompactBucket(buckets[0], true));
  ASSERT_OK(Commit(*table, *compactor, 2).status());
  ASSERT_OK_AND_ASSIGN(auto writer2, PrimaryKeyTableWrite::Create(table.get()));
  ASSERT_OK(writer2->Write(Rows({{"b", 1, 30, "w"}, {"a", 2, 21, "ignored"}})));
  ASSERT_OK(Commit(*table, *writer2, 3).status());
  Model expected = {{{"a", 1}, Row{"a", 1, 10, "x"}}, {{"a", 2}, Row{"a", 2, 20, "y"}}};
  EXPECT_EQ(ReadBack(table->path()), expected);
}

}  // namespace
}  // namespace fjord
