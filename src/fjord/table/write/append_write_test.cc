#include "fjord/table/write/append_write.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>

#include <algorithm>
#include <functional>
#include <map>

#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// Table db.t of `columns` in a fresh warehouse under `dir`.
std::unique_ptr<FileStoreTable> NewTable(const testing::TempDir& dir, const std::string& columns,
                                         std::vector<std::string> partition_keys,
                                         std::vector<std::pair<std::string, std::string>> options) {
  auto catalog = std::move(FileSystemCatalog::Open(dir.Join("wh"))).value();
  EXPECT_OK(catalog->CreateDatabase("db"));
  TableSpec spec;
  spec.fields = ParseColumnList(columns).value();
  spec.partition_keys = std::move(partition_keys);
  spec.options = std::move(options);
  auto id = TableIdentifier::Parse("db.t").value();
  EXPECT_OK(catalog->CreateTable(id, spec));
  return std::move(catalog->GetTable(id)).value();
}

TEST(AppendWriteTest, FilesRollAtTargetFileSizeWithContiguousSequenceNumbers) {
  testing::TempDir dir;
  auto table = NewTable(dir, "id BIGINT NOT NULL, s STRING", {},
                        {{"target-file-size", "16 kb"}, {"file.format", "orc"}});

  const int64_t n = 20000;
  arrow::Int64Builder ids;
  arrow::StringBuilder s;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE(s.Append("row-" + std::to_string(i * 7919 % 100003)).ok());
  }
  auto rows = arrow::Table::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8())}),
      {ids.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
  for (int commit = 0; commit < 2; ++commit) {
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get()));
    ASSERT_OK(writer->Write(rows));
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    ASSERT_EQ(messages.size(), 1u);
    const auto& files = messages[0].new_files;
    EXPECT_GT(files.size(), 3u);
    int64_t expected_seq = commit * n;
    int64_t total = 0;
    for (const DataFileMeta& f : files) {
      EXPECT_EQ(f.min_sequence_number, expected_seq);
      EXPECT_EQ(f.max_sequence_number, expected_seq + f.row_count - 1);
      expected_seq += f.row_count;
      total += f.row_count;
    }
    EXPECT_EQ(total, n);
    FileStoreCommit committer(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, commit).status());
  }
  auto reopened = std::move(FileStoreTable::Open(table->path())).value();
  ASSERT_OK_AND_ASSIGN(auto result, reopened->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), 2 * n);
}

// With two threads the partitions' row groups are encoded and their rolled files finished beside
// the lanes (first row groups staggered): every bucket still gets all its rows, in the order
// written, in files with contiguous sequence numbers, and no file bigger than with one thread.
TEST(AppendWriteTest, TwoThreadsWriteEachBucketsRowsInOrder) {
  const int64_t n = 60000;
  arrow::Int64Builder ids;
  arrow::Int32Builder ps;
  arrow::StringBuilder s;
  for (int64_t i = 0; i < n; ++i) {
    ASSERT_TRUE(ids.Append(i).ok());
    ASSERT_TRUE(ps.Append(static_cast<int32_t>(i * 2654435761 % 4)).ok());
    ASSERT_TRUE(s.Append("row-" + std::to_string(i * 7919 % 100003)).ok());
  }
  auto rows = arrow::Table::Make(
      arrow::schema({arrow::field("id", arrow::int64()), arrow::field("p", arrow::int32()),
                     arrow::field("s", arrow::utf8())}),
      {ids.Finish().ValueOrDie(), ps.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
  std::map<int, std::map<std::string, std::vector<int64_t>>> files_by_threads;
  for (int threads : {1, 2}) {
    testing::TempDir dir;
    auto table = NewTable(dir, "id BIGINT NOT NULL, p INT, s STRING", {"p"},
                          {{"target-file-size", "24 kb"}, {"parquet.block.size", "8 kb"}});
    AppendWriteOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get(), options));
    for (int64_t offset = 0; offset < n; offset += 4000) {
      ASSERT_OK(writer->Write(rows->Slice(offset, 4000)));
    }
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    ASSERT_EQ(messages.size(), 4u);
    int64_t total = 0;
    for (const CommitMessage& m : messages) {
      EXPECT_GT(m.new_files.size(), 3u);
      int64_t expected_seq = 0;
      for (const DataFileMeta& f : m.new_files) {
        EXPECT_EQ(f.min_sequence_number, expected_seq);
        EXPECT_EQ(f.max_sequence_number, expected_seq + f.row_count - 1);
        expected_seq += f.row_count;
        files_by_threads[threads][m.partition].push_back(f.file_size);
      }
      total += expected_seq;
    }
    EXPECT_EQ(total, n);
    FileStoreCommit committer(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, 1).status());
    for (int32_t p = 0; p < 4; ++p) {
      ReadRequest request;
      request.where = "p = " + std::to_string(p);
      request.in_split_order = true;
      ASSERT_OK_AND_ASSIGN(auto result, table->Read(request));
      auto combined = result.rows->CombineChunksToBatch().ValueOrDie();
      auto got = std::static_pointer_cast<arrow::Int64Array>(combined->GetColumnByName("id"));
      int64_t expected = 0, count = 0;
      for (int64_t i = 0; i < got->length(); ++i, ++expected, ++count) {
        while (expected * 2654435761 % 4 != p) ++expected;
        ASSERT_EQ(got->Value(i), expected) << "partition " << p << " row " << i;
      }
      EXPECT_GT(count, n / 5);
    }
  }
  for (const auto& [partition, sizes] : files_by_threads[2]) {
    int64_t largest_one_thread = *std::max_element(files_by_threads[1][partition].begin(),
                                                   files_by_threads[1][partition].end());
    for (int64_t size : sizes) EXPECT_LE(size, largest_one_thread + 16 * 1024);
  }
}

// Rows go to data files as they are written, not at prepare-commit; a writer dropped without
// preparing leaves no file behind; rows of a kind other than +I are refused whole.
TEST(AppendWriteTest, WritesStreamToFilesAndRefuseNonInsertRows) {
  testing::TempDir dir;
  auto table = NewTable(dir, "id BIGINT NOT NULL, s STRING", {}, {{"target-file-size", "16 kb"}});
  auto make_rows = [](int64_t first, int64_t n, const char* kind) {
    arrow::Int64Builder ids;
    arrow::StringBuilder s, kinds;
    for (int64_t i = first; i < first + n; ++i) {
      (void)ids.Append(i);
      (void)s.Append("row-" + std::to_string(i * 7919 % 100003));
      (void)kinds.Append(kind);
    }
    return arrow::Table::Make(
        arrow::schema({arrow::field("id", arrow::int64()), arrow::field("s", arrow::utf8()),
                       arrow::field("_row_kind", arrow::utf8())}),
        {ids.Finish().ValueOrDie(), s.Finish().ValueOrDie(), kinds.Finish().ValueOrDie()});
  };
  auto data_files = [&] {
    std::vector<FileStatus> out;
    auto listed = table->io()->List(table->path() + "/bucket-0");
    if (listed.ok()) out = *listed;
    return out.size();
  };
  {
    // One thread: the rows of a batch of more than kPendingRows are in the files when Write
    // returns (with more threads, on the lanes later).
    AppendWriteOptions one_thread;
    one_thread.threads = 1;
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get(), one_thread));
    ASSERT_OK(writer->Write(make_rows(0, AppendTableWrite::kPendingRows + 1000, "+I")));
    EXPECT_GT(data_files(), 2u);  // rolled while writing
    EXPECT_THAT(writer->Write(make_rows(20000, 10, "-D")),
                IsError(StatusCode::kInvalid, "append tables take only +I rows"));
  }  // dropped unprepared: its files are deleted
  EXPECT_EQ(data_files(), 0u);
  {
    // The same with the rows still on the lanes when the writer goes.
    AppendWriteOptions two_threads;
    two_threads.threads = 2;
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get(), two_threads));
    for (int i = 0; i < 4; ++i) ASSERT_OK(writer->Write(make_rows(i * 5000, 5000, "+I")));
  }
  EXPECT_EQ(data_files(), 0u);

  ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(make_rows(0, 3000, "+I")));
  EXPECT_THAT(writer->Write(make_rows(3000, 10, "+U")),
              IsError(StatusCode::kInvalid, "has kind 2"));
  ASSERT_OK(writer->Write(make_rows(3000, 3000, "+I")));
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
  FileStoreCommit committer(table->io(), table->path(), table->schema(), "u");
  ASSERT_OK(committer.Commit(messages, 1).status());
  ASSERT_OK_AND_ASSIGN(auto result, table->Read(ReadRequest{}));
  EXPECT_EQ(result.rows->num_rows(), 6000);
}

// Small batches are held until together they are worth a share per bucket (kPendingRows) or
// prepare-commit: a batch all of one partition is written as it is, a mixed one gathered, and each
// partition's rows keep the order they were written in.
TEST(AppendWriteTest, SmallBatchesAreHeldAndWrittenTogetherInOrder) {
  testing::TempDir dir;
  auto table = NewTable(dir, "p INT NOT NULL, id BIGINT NOT NULL, s STRING", {"p"}, {});
  int64_t next_id = 0;
  std::map<int32_t, std::vector<int64_t>> written;  // partition -> ids in write order
  // `n` rows, partition of row i: `part(i)`.
  auto make_rows = [&](int64_t n, const std::function<int32_t(int64_t)>& part) {
    arrow::Int32Builder ps;
    arrow::Int64Builder ids;
    arrow::StringBuilder s;
    for (int64_t i = 0; i < n; ++i, ++next_id) {
      (void)ps.Append(part(i));
      (void)ids.Append(next_id);
      (void)s.Append("row-" + std::to_string(next_id * 7919 % 100003));
      written[part(i)].push_back(next_id);
    }
    return arrow::Table::Make(
        arrow::schema({arrow::field("p", arrow::int32()), arrow::field("id", arrow::int64()),
                       arrow::field("s", arrow::utf8())}),
        {ps.Finish().ValueOrDie(), ids.Finish().ValueOrDie(), s.Finish().ValueOrDie()});
  };
  auto files_of = [&](int32_t p) {
    auto listed = table->io()->List(table->path() + "/p=" + std::to_string(p) + "/bucket-0");
    return listed.ok() ? listed->size() : size_t{0};
  };
  for (int threads : {1, 2}) {
    SCOPED_TRACE(std::to_string(threads) + " threads");
    AppendWriteOptions options;
    options.threads = threads;
    ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get(), options));
    ASSERT_OK(writer->Write(make_rows(1000, [](int64_t) { return 0; })));
    ASSERT_OK(
        writer->Write(make_rows(1000, [](int64_t i) { return static_cast<int32_t>(i % 3); })));
    ASSERT_OK(writer->Write(make_rows(1000, [](int64_t) { return 2; })));
    ASSERT_OK(writer->Write(make_rows(10, [](int64_t) { return 1; })));
    if (threads == 1) {
      for (int32_t p = 0; p < 3; ++p) EXPECT_EQ(files_of(p), 0u) << p;  // all held
    }
    ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
    FileStoreCommit committer(table->io(), table->path(), table->schema(), "u");
    ASSERT_OK(committer.Commit(messages, threads).status());
  }
  ASSERT_OK_AND_ASSIGN(auto result, table->Read(ReadRequest{}));
  ASSERT_EQ(result.rows->num_rows(), next_id);
  std::map<int32_t, std::vector<int64_t>> read;
  for (int c = 0; c < result.rows->GetColumnByName("id")->num_chunks(); ++c) {
    auto p =
        std::static_pointer_cast<arrow::Int32Array>(result.rows->GetColumnByName("p")->chunk(c));
    auto i =
        std::static_pointer_cast<arrow::Int64Array>(result.rows->GetColumnByName("id")->chunk(c));
    auto s =
        std::static_pointer_cast<arrow::StringArray>(result.rows->GetColumnByName("s")->chunk(c));
    for (int64_t r = 0; r < i->length(); ++r) {
      read[p->Value(r)].push_back(i->Value(r));
      ASSERT_EQ(s->GetString(r), "row-" + std::to_string(i->Value(r) * 7919 % 100003));
    }
  }
  EXPECT_EQ(read, written);
}

}  // namespace
}  // namespace fjord

namespace fjord {
namespace {

TEST(AppendWriteTest, OrcWritesTimestampsBefore1970WithAFraction) {
  testing::TempDir dir;
  auto table = NewTable(dir, "id INT, ts TIMESTAMP(3)", {}, {{"file.format", "orc"}});
  auto rows = [](int32_t id, int64_t millis) {
    arrow::Int32Builder ids;
    arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MILLI),
                               arrow::default_memory_pool());
    EXPECT_TRUE(ids.Append(id).ok());
    EXPECT_TRUE(ts.Append(millis).ok());
    return arrow::Table::Make(
        arrow::schema({arrow::field("id", arrow::int32()), arrow::field("ts", ts.type())}),
        {ids.Finish().ValueOrDie(), ts.Finish().ValueOrDie()});
  };
  ASSERT_OK_AND_ASSIGN(auto writer, AppendTableWrite::Create(table.get()));
  ASSERT_OK(writer->Write(rows(1, -2000)));
  ASSERT_OK(writer->Write(rows(2, 1500)));
  ASSERT_OK(writer->Write(rows(3, -1500)));
  // In the last second before 1970 ORC (Java's writer and readers alike) cannot hold a value
  // with a fraction: it reads back one second late (docs/writing.md).
  ASSERT_OK(writer->Write(rows(4, -500)));
  ASSERT_OK_AND_ASSIGN(auto messages, writer->PrepareCommit());
  ASSERT_EQ(messages.size(), 1u);
  EXPECT_EQ(messages[0].new_files[0].row_count, 4);
  FileStoreCommit committer(table->io(), table->path(), table->schema(), "u");
  ASSERT_OK(committer.Commit(messages, 1).status());
  auto reopened = std::move(FileStoreTable::Open(table->path())).value();
  ASSERT_OK_AND_ASSIGN(auto result, reopened->Read(ReadRequest{}));
  ASSERT_EQ(result.rows->num_rows(), 4);
  auto ids = std::static_pointer_cast<arrow::Int32Array>(
      arrow::Concatenate(result.rows->GetColumnByName("id")->chunks()).ValueOrDie());
  auto ts = std::static_pointer_cast<arrow::TimestampArray>(
      arrow::Concatenate(result.rows->GetColumnByName("ts")->chunks()).ValueOrDie());
  std::map<int32_t, int64_t> got;
  for (int64_t i = 0; i < ids->length(); ++i) got[ids->Value(i)] = ts->Value(i);
  EXPECT_EQ(got, (std::map<int32_t, int64_t>{{1, -2000}, {2, 1500}, {3, -1500}, {4, 500}}));
}

}  // namespace
}  // namespace fjord
