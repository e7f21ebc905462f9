// The Parquet reader's late materialization (FileReadOptions::row_filter): the kept rows of
// every decodable type, with NULLs, dictionary and plain pages, pages and row groups that end
// inside a batch, batches where nothing or everything is kept, read alike with and without the
// row filter; the columns it cannot decode read every row; and the evolved reader's deletion
// vector folded into the filter, its row count check, and a filter column whose type changed.
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <gtest/gtest.h>

#include <random>

#include "fjord/format/arrow_types.h"
#include "fjord/format/batch_reader_test_util.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/format/evolved_file_reader.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

constexpr int kRows = 3000;

std::vector<DataField> AllFields() {
  return {DataField{0, "i", DataType::Int(false), {}, {}},
          DataField{1, "b", DataType::Boolean(), {}, {}},
          DataField{2, "t", DataType::TinyInt(), {}, {}},
          DataField{3, "s", DataType::SmallInt(), {}, {}},
          DataField{4, "d", DataType::Date(), {}, {}},
          DataField{5, "l", DataType::BigInt(), {}, {}},
          DataField{6, "f", DataType::Float(), {}, {}},
          DataField{7, "x", DataType::Double(), {}, {}},
          DataField{8, "few", DataType::String(), {}, {}},   // repeats: dictionary pages
          DataField{9, "many", DataType::String(), {}, {}},  // unique: plain pages
          DataField{10, "y", DataType::Bytes(), {}, {}},
          DataField{11, "c", DataType::Char(3), {}, {}},
          DataField{12, "m", DataType::Decimal(10, 2), {}, {}},    // INT64
          DataField{13, "m5", DataType::Decimal(5, 2), {}, {}},    // INT32
          DataField{14, "m30", DataType::Decimal(30, 4), {}, {}},  // FIXED_LEN_BYTE_ARRAY
          DataField{15, "tm", DataType::Time(), {}, {}},
          DataField{16, "ts3", DataType::Timestamp(3), {}, {}},
          DataField{17, "ts6", DataType::TimestampLtz(6), {}, {}},
          DataField{18, "ts9", DataType::Timestamp(9), {}, {}}};  // INT96: not decoded here
}

// `kRows` rows, i = 0..kRows-1 (i = position), the other columns random with about 10% NULLs;
// row groups of about 400 rows and pages of 512 bytes, so that both end inside batches.
std::string WriteFile(const TempDir& dir) {
  std::string path = dir.Join("data-0.parquet");
  auto io = FileIO::Local();
  DataFileWriterOptions options;
  options.parquet_block_size = 24 << 10;
  options.parquet_page_size = 512;
  std::vector<DataField> fields = AllFields();
  auto schema = *ToArrowSchema(fields);
  auto writer = *DataFileWriter::Open(io.get(), path, FileFormat::kParquet, fields, options);
  std::mt19937_64 rng(7);
  auto null = [&] { return rng() % 10 == 0; };
  for (int start = 0; start < kRows; start += 250) {
    std::vector<std::unique_ptr<arrow::ArrayBuilder>> b;
    for (const auto& f : schema->fields()) {
      std::unique_ptr<arrow::ArrayBuilder> builder;
      EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), f->type(), &builder).ok());
      b.push_back(std::move(builder));
    }
    for (int i = start; i < start + 250; ++i) {
      auto as = [&](int c) { return b[static_cast<size_t>(c)].get(); };
      EXPECT_TRUE(static_cast<arrow::Int32Builder*>(as(0))->Append(i).ok());
      null() ? (void)as(1)->AppendNull()
             : (void)static_cast<arrow::BooleanBuilder*>(as(1))->Append(rng() % 2 == 0);
      null() ? (void)as(2)->AppendNull()
             : (void)static_cast<arrow::Int8Builder*>(as(2))->Append(
                   static_cast<int8_t>(rng() % 256 - 128));
      null() ? (void)as(3)->AppendNull()
             : (void)static_cast<arrow::Int16Builder*>(as(3))->Append(
                   static_cast<int16_t>(rng() % 65536 - 32768));
      null() ? (void)as(4)->AppendNull()
             : (void)static_cast<arrow::Date32Builder*>(as(4))->Append(
                   static_cast<int32_t>(rng() % 40000));
      null() ? (void)as(5)->AppendNull()
             : (void)static_cast<arrow::Int64Builder*>(as(5))->Append(static_cast<int64_t>(rng()));
      null() ? (void)as(6)->AppendNull()
             : (void)static_cast<arrow::FloatBuilder*>(as(6))->Append(
                   static_cast<float>(rng() % 1000) / 7.0f);
      null() ? (void)as(7)->AppendNull()
             : (void)static_cast<arrow::DoubleBuilder*>(as(7))->Append(
                   static_cast<double>(rng() % 100000) / 3.0);
      null() ? (void)as(8)->AppendNull()
             : (void)static_cast<arrow::StringBuilder*>(as(8))->Append("few-" +
                                                                       std::to_string(rng() % 5));
      null() ? (void)as(9)->AppendNull()
             : (void)static_cast<arrow::StringBuilder*>(as(9))->Append(
                   "many-" + std::to_string(i) + std::string(rng() % 20, 'z'));
      null() ? (void)as(10)->AppendNull()
             : (void)static_cast<arrow::BinaryBuilder*>(as(10))->Append(
                   std::string(rng() % 9, static_cast<char>(rng() % 256)));
      null() ? (void)as(11)->AppendNull()
             : (void)static_cast<arrow::StringBuilder*>(as(11))->Append(
                   std::string(1, static_cast<char>('a' + rng() % 26)) + "  ");
      null() ? (void)as(12)->AppendNull()
             : (void)static_cast<arrow::Decimal128Builder*>(as(12))->Append(
                   arrow::Decimal128(static_cast<int64_t>(rng() % 100000) - 50000));
      null() ? (void)as(13)->AppendNull()
             : (void)static_cast<arrow::Decimal128Builder*>(as(13))->Append(
                   arrow::Decimal128(static_cast<int64_t>(rng() % 199999) - 99999));
      null() ? (void)as(14)->AppendNull()
             : (void)static_cast<arrow::Decimal128Builder*>(as(14))->Append(
                   arrow::Decimal128(static_cast<int64_t>(rng() >> 1)) *
                   arrow::Decimal128(rng() % 2 ? 1000000007 : -99991));
      null() ? (void)as(15)->AppendNull()
             : (void)static_cast<arrow::Time32Builder*>(as(15))->Append(
                   static_cast<int32_t>(rng() % 86400000));
      for (int c = 16; c <= 18; ++c) {
        null() ? (void)as(c)->AppendNull()
               : (void)static_cast<arrow::TimestampBuilder*>(as(c))->Append(
                     static_cast<int64_t>(rng() % 4000000000000LL) - 1000000000000LL);
      }
    }
    arrow::ArrayVector columns;
    for (auto& builder : b) columns.push_back(*builder->Finish());
    EXPECT_OK(writer->Write(*arrow::RecordBatch::Make(schema, 250, columns)));
  }
  EXPECT_TRUE(writer->Finish().ok());
  return path;
}

std::vector<DataField> Pick(const std::vector<int>& ids) {
  std::vector<DataField> all = AllFields(), out;
  for (int id : ids) out.push_back(all[static_cast<size_t>(id)]);
  return out;
}

// Every batch of `reader`, as one table (null when there is none).
std::shared_ptr<arrow::Table> ReadAll(BatchReader* reader, int64_t batch_rows) {
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches =
      testing::ReadBatches(reader, batch_rows);
  if (batches.empty()) return nullptr;
  return *arrow::Table::FromRecordBatches(batches);
}

// A row filter on column `column` (an index into the fields, holding i) keeping the rows whose i
// `wanted` takes; counts the rows it was asked about.
RowFilter KeepIds(int column, std::function<bool(int32_t)> wanted, int64_t* asked) {
  RowFilter filter;
  filter.columns = {column};
  filter.keep = [wanted, asked](const arrow::RecordBatch& batch,
                                int64_t first) -> Result<std::vector<uint8_t>> {
    EXPECT_EQ(batch.num_columns(), 1);
    const auto& ids = static_cast<const arrow::Int32Array&>(*batch.column(0));
    EXPECT_EQ(batch.schema()->field(0)->name(), "i");
    std::vector<uint8_t> keep;
    for (int64_t r = 0; r < ids.length(); ++r) {
      EXPECT_EQ(ids.Value(r), first + r);  // positions are the rows'
      keep.push_back(wanted(ids.Value(r)));
    }
    *asked += ids.length();
    return keep;
  };
  return filter;
}

// The rows of `table` (column `column` holding i) that `wanted` takes.
std::shared_ptr<arrow::Table> Expected(const std::shared_ptr<arrow::Table>& table, int column,
                                       const std::function<bool(int32_t)>& wanted) {
  EnsureArrowCompute();
  auto ids = std::static_pointer_cast<arrow::Int32Array>(table->column(column)->chunk(0));
  arrow::BooleanBuilder keep;
  for (int64_t r = 0; r < ids->length(); ++r) EXPECT_TRUE(keep.Append(wanted(ids->Value(r))).ok());
  auto mask = *keep.Finish();
  arrow::ArrayVector columns;
  for (int c = 0; c < table->num_columns(); ++c) {
    auto filtered = arrow::compute::Filter(table->column(c)->chunk(0), mask);
    EXPECT_TRUE(filtered.ok());
    columns.push_back(filtered->make_array());
  }
  return arrow::Table::Make(table->schema(), columns);
}

// The whole file's columns `ids`, one chunk each, without a row filter.
std::shared_ptr<arrow::Table> ReadPlain(const std::string& path, const std::vector<int>& ids) {
  auto io = FileIO::Local();
  FileReadOptions options;
  auto reader = *OpenDataFile(io.get(), path, FileFormat::kParquet, Pick(ids), options);
  return *ReadAll(reader.get(), options.batch_rows)->CombineChunks();
}

TEST(ParquetRowFilterTest, KeptRowsOfEveryTypeReadAsWithoutTheFilter) {
  TempDir dir;
  std::string path = WriteFile(dir);
  const std::vector<int> ids = {1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17};
  std::shared_ptr<arrow::Table> plain = ReadPlain(path, ids);
  ASSERT_EQ(plain->num_rows(), kRows);
  const std::vector<std::pair<std::string, std::function<bool(int32_t)>>> cases = {
      {"a few rows of every batch", [](int32_t i) { return i % 7 < 2; }},
      {"none of the first batches, all of the last", [](int32_t i) { return i >= 2200; }},
      {"every row", [](int32_t) { return true; }},
      {"no row", [](int32_t) { return false; }},
      {"runs across page and group ends", [](int32_t i) { return (i / 97) % 2 == 0; }}};
  for (int64_t batch_rows : {64, 1000}) {
    for (bool parallel : {false, true}) {
      for (const auto& [what, wanted] : cases) {
        SCOPED_TRACE(what + ", batches of " + std::to_string(batch_rows) +
                     (parallel ? ", columns in parallel" : ""));
        auto io = FileIO::Local();
        FileReadOptions options;
        options.batch_rows = batch_rows;
        options.parallel_columns = parallel;
        int64_t asked = 0;
        options.row_filter = KeepIds(3, wanted, &asked);
        ASSERT_OK_AND_ASSIGN(
            auto reader, OpenDataFile(io.get(), path, FileFormat::kParquet, Pick(ids), options));
        EXPECT_TRUE(reader->applies_row_filter());
        std::shared_ptr<arrow::Table> got = ReadAll(reader.get(), batch_rows);
        std::shared_ptr<arrow::Table> expected = Expected(plain, 3, wanted);
        EXPECT_EQ(asked, kRows);
        if (expected->num_rows() == 0) {
          EXPECT_EQ(got, nullptr);
          EXPECT_EQ(reader->rows_filtered(), kRows);
          continue;
        }
        ASSERT_NE(got, nullptr);
        EXPECT_EQ(reader->rows_filtered(), kRows - expected->num_rows());
        ASSERT_TRUE(got->schema()->Equals(*expected->schema())) << got->schema()->ToString() << "\n"
                                                                << expected->schema()->ToString();
        EXPECT_TRUE(got->Equals(*expected));
      }
    }
  }
}

TEST(ParquetRowFilterTest, ColumnsItCannotDecodeReadEveryRow) {
  TempDir dir;
  std::string path = WriteFile(dir);
  auto io = FileIO::Local();
  FileReadOptions options;
  int64_t asked = 0;
  options.row_filter = KeepIds(
      0, [](int32_t i) { return i % 2 == 0; }, &asked);
  // The TIMESTAMP(9) column (INT96): the filter is not applied, every row comes back.
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenDataFile(io.get(), path, FileFormat::kParquet, Pick({0, 18}), options));
  EXPECT_FALSE(reader->applies_row_filter());
  std::shared_ptr<arrow::Table> got = ReadAll(reader.get(), options.batch_rows);
  EXPECT_EQ(got->num_rows(), kRows);
  EXPECT_EQ(asked, 0);
  EXPECT_TRUE(got->Equals(*ReadPlain(path, {0, 18})));
}

// The evolved reader over the file: `read` fields (ids), deletion vector `deleted`.
Result<std::unique_ptr<BatchReader>> OpenEvolved(const std::string& path,
                                                 std::vector<DataField> read,
                                                 std::vector<int64_t> deleted, RowFilter filter,
                                                 int64_t expected_rows = kRows) {
  EvolvedReadSpec spec;
  spec.file_fields = AllFields();
  spec.read_fields = std::move(read);
  spec.deletion = std::make_shared<DeletionVector>(std::move(deleted));
  spec.expected_rows = expected_rows;
  spec.options.batch_rows = 100;
  spec.options.row_filter = std::move(filter);
  auto io = FileIO::Local();
  return OpenEvolvedFile(io.get(), path, FileFormat::kParquet, std::move(spec));
}

TEST(ParquetRowFilterTest, EvolvedReaderFoldsTheDeletionVectorIntoTheFilter) {
  TempDir dir;
  std::string path = WriteFile(dir);
  std::vector<int64_t> deleted;
  for (int64_t p = 0; p < kRows; p += 5) deleted.push_back(p);  // every fifth row
  auto wanted = [](int32_t i) { return i % 3 == 0; };
  // Fields in another order than the file's, the filter's column (i) last.
  std::vector<DataField> read = Pick({9, 5, 0});
  int64_t asked = 0;
  ASSERT_OK_AND_ASSIGN(auto reader, OpenEvolved(path, read, deleted, KeepIds(2, wanted, &asked)));
  EXPECT_TRUE(reader->applies_row_filter());
  std::shared_ptr<arrow::Table> got = ReadAll(reader.get(), 100);
  ASSERT_NE(got, nullptr);
  std::shared_ptr<arrow::Table> expected =
      Expected(ReadPlain(path, {9, 5, 0}), 2, [&](int32_t i) { return wanted(i) && i % 5 != 0; });
  ASSERT_EQ(got->num_rows(), expected->num_rows());
  for (int c = 0; c < 3; ++c) {  // the values (the evolved reader names its fields its own way)
    EXPECT_TRUE(got->column(c)->Equals(*expected->column(c))) << c;
  }
  EXPECT_EQ(asked, kRows);

  // The row count is still checked against the file's, the filtered rows counted.
  ASSERT_OK_AND_ASSIGN(auto short_count,
                       OpenEvolved(path, read, deleted, KeepIds(2, wanted, &asked), kRows + 1));
  Status st = testing::ReadToEnd(short_count.get());
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_NE(st.ToString().find("has 3000 rows, manifest says 3001"), std::string::npos)
      << st.ToString();
}

TEST(ParquetRowFilterTest, EvolvedReaderLeavesAChangedFilterColumnToTheCaller) {
  TempDir dir;
  std::string path = WriteFile(dir);
  // i read as BIGINT (widened since the file was written): the filter would see the file's INT.
  std::vector<DataField> read = {DataField{0, "i", DataType::BigInt(false), {}, {}},
                                 AllFields()[8]};
  int64_t asked = 0;
  ASSERT_OK_AND_ASSIGN(auto reader, OpenEvolved(path, read, {0, 1, 2},
                                                KeepIds(
                                                    0, [](int32_t) { return false; }, &asked)));
  EXPECT_FALSE(reader->applies_row_filter());
  std::shared_ptr<arrow::Table> got = ReadAll(reader.get(), 100);
  ASSERT_NE(got, nullptr);
  EXPECT_EQ(got->num_rows(), kRows - 3);  // the deletion vector applied, no row filtered
  EXPECT_EQ(asked, 0);
}

}  // namespace
}  // namespace fjord
