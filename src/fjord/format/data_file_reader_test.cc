// The batch readers of data files: bounded batches that never span a row group, positions, the
// chunk filter on Parquet row-group statistics, and the evolved reader's deletion vectors across
// skipped row groups; Parquet row groups both read whole and streamed, string columns read as
// dictionaries or not.
#include "fjord/format/data_file_reader.h"

#include <arrow/api.h>
#include <arrow/util/thread_pool.h>
#include <gtest/gtest.h>

#include <atomic>

#include "fjord/format/arrow_types.h"
#include "fjord/format/batch_reader_test_util.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/format/evolved_file_reader.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

std::vector<DataField> Fields() {
  return {DataField{0, "id", DataType::Int(false), {}, {}},
          DataField{1, "name", DataType::String(true), {}, {}}};
}

// Ten row groups (Parquet) of 100 rows: ids 0..999, names "n<id>".
std::string WriteFile(const TempDir& dir, FileFormat format) {
  std::string path = dir.Join(std::string("data-0.") + std::string(FileFormatName(format)));
  auto io = FileIO::Local();
  DataFileWriterOptions options;
  options.parquet_block_size = 1;  // a new row group for every batch after the first
  auto writer = *DataFileWriter::Open(io.get(), path, format, Fields(), options);
  for (int g = 0; g < 10; ++g) {
    arrow::Int32Builder ids;
    arrow::StringBuilder names;
    for (int i = g * 100; i < (g + 1) * 100; ++i) {
      EXPECT_TRUE(ids.Append(i).ok());
      EXPECT_TRUE(names.Append("n" + std::to_string(i)).ok());
    }
    auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("id", arrow::int32(), false),
                                                         arrow::field("name", arrow::utf8())}),
                                          100, {*ids.Finish(), *names.Finish()});
    EXPECT_OK(writer->Write(*batch));
  }
  EXPECT_TRUE(writer->Finish().ok());
  return path;
}

// Reads every batch; checks the bounds and that positions follow the ids (id = position here).
std::vector<int32_t> ReadIds(BatchReader* reader, int64_t batch_rows) {
  std::vector<int32_t> out;
  for (const auto& batch : testing::ReadBatches(reader, batch_rows)) {
    auto ids = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
    for (int64_t r = 0; r < ids->length(); ++r) out.push_back(ids->Value(r));
  }
  return out;
}

// Parquet row groups read whole (the default for small ones) and streamed page by page.
const int64_t kWholeOrStreamed[] = {FileReadOptions().whole_row_group_bytes_per_column, 0};

TEST(DataFileReaderTest, BatchesAreBoundedInEveryFormat) {
  for (FileFormat format : {FileFormat::kParquet, FileFormat::kOrc, FileFormat::kAvro}) {
    for (int64_t whole : kWholeOrStreamed) {
      TempDir dir;
      std::string path = WriteFile(dir, format);
      auto io = FileIO::Local();
      FileReadOptions options;
      options.batch_rows = 64;
      options.whole_row_group_bytes_per_column = whole;
      ASSERT_OK_AND_ASSIGN(auto reader, OpenDataFile(io.get(), path, format, Fields(), options));
      std::vector<int32_t> ids = ReadIds(reader.get(), 64);
      ASSERT_EQ(ids.size(), 1000u) << FileFormatName(format);
      for (int i = 0; i < 1000; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);
    }
  }
}

TEST(DataFileReaderTest, ParquetBatchesNeverSpanRowGroupsAndKnowTheirPosition) {
  for (int64_t whole : kWholeOrStreamed) {
    TempDir dir;
    std::string path = WriteFile(dir, FileFormat::kParquet);
    auto io = FileIO::Local();
    FileReadOptions options;
    options.batch_rows = 30;
    options.whole_row_group_bytes_per_column = whole;
    ASSERT_OK_AND_ASSIGN(auto reader,
                         OpenDataFile(io.get(), path, FileFormat::kParquet, Fields(), options));
    int64_t rows = 0;
    while (true) {
      ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
      if (!batch) break;
      EXPECT_EQ(reader->position(), rows);
      // A batch ends at a row group boundary or holds 30 rows.
      EXPECT_EQ(reader->position() / 100, (reader->position() + batch->num_rows() - 1) / 100);
      auto ids = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
      EXPECT_EQ(ids->Value(0), reader->position());
      rows += batch->num_rows();
    }
    EXPECT_EQ(rows, 1000);
  }
}

TEST(DataFileReaderTest, ChunkFilterSkipsParquetRowGroupsByStatistics) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kParquet);
  auto io = FileIO::Local();
  FileReadOptions options;
  int asked = 0;
  options.chunk_filter = [&asked](const std::vector<std::optional<ColumnStats>>& stats,
                                  int64_t rows) {
    ++asked;
    EXPECT_EQ(rows, 100);
    EXPECT_EQ(stats.size(), 2u);
    EXPECT_TRUE(stats[0] && stats[0]->max && stats[0]->min);
    EXPECT_EQ(stats[0]->null_count, 0);
    EXPECT_TRUE(stats[1] && stats[1]->min);  // strings too
    return stats[0]->max->AsInt64() >= 750;  // id >= 750
  };
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenDataFile(io.get(), path, FileFormat::kParquet, Fields(), options));
  EXPECT_EQ(asked, 10);
  EXPECT_EQ(reader->rows_skipped(), 700);
  std::vector<int32_t> ids = ReadIds(reader.get(), 8192);
  ASSERT_EQ(ids.size(), 300u);
  EXPECT_EQ(ids.front(), 700);
  EXPECT_EQ(ids.back(), 999);
}

TEST(DataFileReaderTest, EvolvedReaderAppliesDeletionVectorsAcrossSkippedRowGroups) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kParquet);
  auto io = FileIO::Local();
  EvolvedReadSpec spec;
  spec.file_fields = Fields();
  // The read schema renamed `id` to `key` (same field id) and added `extra`.
  spec.read_fields = {DataField{0, "key", DataType::BigInt(false), {}, {}},
                      DataField{7, "extra", DataType::String(true), {}, {}}};
  spec.deletion = std::make_shared<DeletionVector>(std::vector<int64_t>{0, 705, 706, 999});
  spec.expected_rows = 1000;
  spec.options.batch_rows = 50;
  spec.options.whole_row_group_bytes_per_column = 0;  // streamed (the default reads these whole)
  spec.options.chunk_filter = [](const std::vector<std::optional<ColumnStats>>& stats, int64_t) {
    EXPECT_EQ(stats.size(), 2u);
    EXPECT_EQ(stats[1]->null_count, 100);  // `extra` is NULL in every row of the file
    return stats[0] && stats[0]->max && stats[0]->max->AsInt64() >= 750;
  };
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenEvolvedFile(io.get(), path, FileFormat::kParquet, std::move(spec)));
  std::vector<int64_t> keys;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    ASSERT_EQ(batch->schema()->field(0)->name(), "key");
    ASSERT_EQ(batch->column(0)->type()->id(), arrow::Type::INT64);
    EXPECT_EQ(batch->column(1)->null_count(), batch->num_rows());
    auto k = std::static_pointer_cast<arrow::Int64Array>(batch->column(0));
    for (int64_t r = 0; r < k->length(); ++r) keys.push_back(k->Value(r));
  }
  ASSERT_EQ(keys.size(), 297u);
  EXPECT_EQ(keys.front(), 700);
  EXPECT_EQ(std::count(keys.begin(), keys.end(), 705), 0);
  EXPECT_EQ(std::count(keys.begin(), keys.end(), 706), 0);
  EXPECT_EQ(keys.back(), 998);
}

// A changed column type converts as Java Paimon's schema evolution does (evolution_cast.h): INT
// narrowed to TINYINT keeps the low bits, STRING cut to VARCHAR(2); the narrowed column's
// statistics are not offered to the filter (they do not bound wrapped values).
TEST(DataFileReaderTest, EvolvedReaderCastsAsJava) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kParquet);
  auto io = FileIO::Local();
  EvolvedReadSpec spec;
  spec.file_fields = Fields();
  spec.read_fields = {DataField{0, "id", DataType::TinyInt(false), {}, {}},
                      DataField{1, "name", DataType::VarChar(2, true), {}, {}}};
  spec.options.chunk_filter = [](const std::vector<std::optional<ColumnStats>>& stats, int64_t) {
    EXPECT_FALSE(stats[0].has_value());
    EXPECT_FALSE(stats[1].has_value());
    return true;
  };
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenEvolvedFile(io.get(), path, FileFormat::kParquet, std::move(spec)));
  std::vector<int64_t> ids;
  std::vector<std::string> names;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    auto id = std::static_pointer_cast<arrow::Int8Array>(batch->column(0));
    auto name = std::static_pointer_cast<arrow::StringArray>(batch->column(1));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      ids.push_back(id->Value(r));
      names.push_back(name->GetString(r));
    }
  }
  ASSERT_EQ(ids.size(), 1000u);
  EXPECT_EQ(ids[127], 127);
  EXPECT_EQ(ids[128], -128);
  EXPECT_EQ(ids[383], 127);
  EXPECT_EQ(names[383], "n3");
}

// Where Java's cast throws, the read fails naming the file, the column, the row and the value.
TEST(DataFileReaderTest, EvolvedReaderNamesFileAndColumnWhenJavasCastThrows) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kOrc);
  auto io = FileIO::Local();
  EvolvedReadSpec spec;
  spec.file_fields = Fields();
  spec.read_fields = {DataField{1, "flag", DataType::Boolean(true), {}, {}}};  // renamed, retyped
  spec.options.batch_rows = 100;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenEvolvedFile(io.get(), path, FileFormat::kOrc, std::move(spec)));
  auto batch = reader->Next();
  ASSERT_FALSE(batch.ok());
  EXPECT_THAT(batch.status(),
              IsError(StatusCode::kInvalid, path + ": column 'flag' (STRING in the file, BOOLEAN "
                                                   "now), in the batch from row 0 of the file"));
  EXPECT_THAT(batch.status().message(), ::testing::HasSubstr("row 0 of the batch"));
  EXPECT_THAT(batch.status().message(), ::testing::HasSubstr("Cannot parse 'n0' as BOOLEAN"));
}

// A Parquet file of 3 row groups of 5,000 rows: `id`, `city` (10 distinct values: every page
// dictionary-encoded, read as a dictionary), `tag` (1.5 MB of distinct values per row group,
// beyond the 1 MB dictionary page: falls back to plain pages) and `nums` (a list of strings:
// nested, never read as a dictionary).
TEST(DataFileReaderTest, ParquetStringColumnsReadAlikeWholeOrStreamed) {
  TempDir dir;
  std::string path = dir.Join("data-0.parquet");
  std::vector<DataField> fields = {
      DataField{0, "id", DataType::Int(false), {}, {}},
      DataField{1, "city", DataType::String(true), {}, {}},
      DataField{2, "tag", DataType::Bytes(true), {}, {}},
      DataField{3, "nums", DataType::Array(DataType::String(true), true), {}, {}}};
  auto io = FileIO::Local();
  DataFileWriterOptions write_options;
  write_options.parquet_block_size = 1;
  auto writer = *DataFileWriter::Open(io.get(), path, FileFormat::kParquet, fields, write_options);
  ASSERT_OK_AND_ASSIGN(auto schema, ToArrowSchema(fields));
  for (int g = 0; g < 3; ++g) {
    arrow::Int32Builder ids;
    arrow::StringBuilder cities;
    arrow::BinaryBuilder tags;
    auto values = std::make_shared<arrow::StringBuilder>();
    arrow::ListBuilder nums(arrow::default_memory_pool(), values);
    for (int i = g * 5000; i < (g + 1) * 5000; ++i) {
      ASSERT_TRUE(ids.Append(i).ok());
      ASSERT_TRUE(i % 7 == 0 ? cities.AppendNull().ok()
                             : cities.Append("city-" + std::to_string(i % 10)).ok());
      ASSERT_TRUE(tags.Append(std::to_string(i * 7919) + std::string(300, 't')).ok());
      ASSERT_TRUE(nums.Append().ok());
      ASSERT_TRUE(values->Append(std::to_string(i % 3)).ok());
    }
    auto batch = arrow::RecordBatch::Make(
        schema, 5000, {*ids.Finish(), *cities.Finish(), *tags.Finish(), *nums.Finish()});
    ASSERT_OK(writer->Write(*batch));
  }
  ASSERT_TRUE(writer->Finish().ok());

  // Without `nums` the row groups are read whole by default; with it (a nested column whose
  // pages are all dictionary-encoded might decode to far more than its pages) they stream.
  for (size_t projected : {size_t{3}, size_t{4}}) {
    std::vector<DataField> asked(fields.begin(), fields.begin() + static_cast<int64_t>(projected));
    std::vector<std::shared_ptr<arrow::RecordBatch>> read[2];
    for (int m = 0; m < 2; ++m) {
      FileReadOptions options;
      options.batch_rows = 2048;
      options.whole_row_group_bytes_per_column = kWholeOrStreamed[m];
      ASSERT_OK_AND_ASSIGN(auto reader,
                           OpenDataFile(io.get(), path, FileFormat::kParquet, asked, options));
      int64_t rows = 0;
      while (true) {
        ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
        if (!batch) break;
        EXPECT_EQ(reader->position(), rows);
        EXPECT_LE(batch->num_rows(), 2048);
        ASSERT_EQ(batch->num_columns(), static_cast<int>(projected));
        for (int c = 0; c < batch->num_columns(); ++c) {
          ASSERT_TRUE(batch->column(c)->type()->Equals(*schema->field(c)->type()));
        }
        rows += batch->num_rows();
        read[m].push_back(batch);
      }
      ASSERT_EQ(rows, 15000);
      EXPECT_EQ(reader->row_groups_read_whole(), m == 0 && projected == 3 ? 3 : 0);
    }
    auto whole = arrow::Table::FromRecordBatches(read[0]);
    auto streamed = arrow::Table::FromRecordBatches(read[1]);
    ASSERT_TRUE(whole.ok() && streamed.ok());
    EXPECT_TRUE((*whole)->Equals(**streamed));
    auto cities = std::static_pointer_cast<arrow::StringArray>(read[0][1]->column(1));
    EXPECT_EQ(cities->GetString(0), "city-8");  // row 2048
    EXPECT_TRUE(read[0][0]->column(1)->IsNull(7));
  }
}

TEST(DataFileReaderTest, EvolvedReaderChecksTheRowCount) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kOrc);
  auto io = FileIO::Local();
  EvolvedReadSpec spec;
  spec.file_fields = Fields();
  spec.read_fields = Fields();
  spec.expected_rows = 999;
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenEvolvedFile(io.get(), path, FileFormat::kOrc, std::move(spec)));
  Status st = testing::ReadToEnd(reader.get());
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.ToString().find("manifest says 999"), std::string::npos) << st.ToString();
}

// Where a reader's allocations happen: on Arrow's CPU pool or another thread.
class ThreadRecordingPool : public arrow::MemoryPool {
 public:
  arrow::Status Allocate(int64_t size, int64_t alignment, uint8_t** out) override {
    Count();
    return base_->Allocate(size, alignment, out);
  }
  arrow::Status Reallocate(int64_t old_size, int64_t new_size, int64_t alignment,
                           uint8_t** ptr) override {
    Count();
    return base_->Reallocate(old_size, new_size, alignment, ptr);
  }
  void Free(uint8_t* buffer, int64_t size, int64_t alignment) override {
    base_->Free(buffer, size, alignment);
  }
  int64_t bytes_allocated() const override { return base_->bytes_allocated(); }
  int64_t max_memory() const override { return base_->max_memory(); }
  int64_t total_bytes_allocated() const override { return base_->total_bytes_allocated(); }
  int64_t num_allocations() const override { return base_->num_allocations(); }
  std::string backend_name() const override { return "recording"; }

  std::atomic<int64_t> on_cpu_pool{0}, elsewhere{0};

 private:
  void Count() {
    (arrow::internal::GetCpuThreadPool()->OwnsThisThread() ? on_cpu_pool : elsewhere)++;
  }
  arrow::MemoryPool* base_ = arrow::default_memory_pool();
};

// A file read alone on the caller's thread until the read's other threads run out of parts
// (FileReadOptions::spare_threads), then with its columns decoded on Arrow's CPU pool: the same
// rows, its buffers from the given pool throughout.
TEST(DataFileReaderTest, ParquetColumnsGoParallelOnceThreadsAreSpare) {
  TempDir dir;
  std::string path = WriteFile(dir, FileFormat::kParquet);
  for (int64_t whole : kWholeOrStreamed) {
    SCOPED_TRACE(whole == 0 ? "streamed" : "whole row groups");
    auto io = FileIO::Local();
    auto spare = std::make_shared<std::atomic<bool>>(false);
    ThreadRecordingPool pool;
    FileReadOptions options;
    options.batch_rows = 50;
    options.whole_row_group_bytes_per_column = whole;
    options.spare_threads = spare;
    options.pool = &pool;
    ASSERT_OK_AND_ASSIGN(auto reader,
                         OpenDataFile(io.get(), path, FileFormat::kParquet, Fields(), options));
    std::vector<int32_t> ids;
    auto take = [&](int batches) {
      for (int b = 0; b < batches; ++b) {
        ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
        ASSERT_NE(batch, nullptr);
        auto col = std::static_pointer_cast<arrow::Int32Array>(batch->column(0));
        auto names = std::static_pointer_cast<arrow::StringArray>(batch->column(1));
        for (int64_t r = 0; r < col->length(); ++r) {
          ids.push_back(col->Value(r));
          ASSERT_EQ(names->GetString(r), "n" + std::to_string(col->Value(r)));
        }
      }
    };
    take(8);  // four row groups
    EXPECT_EQ(pool.on_cpu_pool.load(), 0);
    EXPECT_GT(pool.elsewhere.load(), 0);
    spare->store(true);
    take(12);
    ASSERT_OK_AND_ASSIGN(auto end, reader->Next());
    EXPECT_EQ(end, nullptr);
    EXPECT_GT(pool.on_cpu_pool.load(), 0);
    ASSERT_EQ(ids.size(), 1000u);
    for (int i = 0; i < 1000; ++i) ASSERT_EQ(ids[static_cast<size_t>(i)], i);
  }
}

}  // namespace
}  // namespace fjord
