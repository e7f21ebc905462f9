#include "fjord/format/dictionary_probe.h"

#include <arrow/api.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <string>

#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

// A string made from `n` that never equals another's.
std::string Text(int64_t n) {
  return "v" + std::to_string(n * 7919 % 1000003) + "-" + std::to_string(n);
}

// `rows` rows from `first` on: id (unique BIGINT), uuid (unique strings), code (1,000 strings
// cycling), clustered (runs of 100 equal strings), twice (INT, each value twice), half_null
// (unique strings, 60% null), small (SMALLINT, unique: too narrow to judge).
std::shared_ptr<arrow::RecordBatch> Rows(int64_t first, int64_t rows) {
  arrow::Int64Builder id;
  arrow::StringBuilder uuid, code, clustered, half_null;
  arrow::Int32Builder twice;
  arrow::Int16Builder small;
  for (int64_t i = first; i < first + rows; ++i) {
    EXPECT_TRUE(id.Append(i).ok());
    EXPECT_TRUE(uuid.Append(Text(i)).ok());
    EXPECT_TRUE(code.Append(Text(i % 1000)).ok());
    EXPECT_TRUE(clustered.Append(Text(i / 100)).ok());
    EXPECT_TRUE(twice.Append(static_cast<int32_t>(i / 2)).ok());
    EXPECT_TRUE((i % 10 < 6 ? half_null.AppendNull() : half_null.Append(Text(i))).ok());
    EXPECT_TRUE(small.Append(static_cast<int16_t>(i)).ok());
  }
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int64()), arrow::field("uuid", arrow::utf8()),
       arrow::field("code", arrow::utf8()), arrow::field("clustered", arrow::utf8()),
       arrow::field("twice", arrow::int32()), arrow::field("half_null", arrow::utf8()),
       arrow::field("small", arrow::int16())});
  return arrow::RecordBatch::Make(
      schema, rows,
      {*id.Finish(), *uuid.Finish(), *code.Finish(), *clustered.Finish(), *twice.Finish(),
       *half_null.Finish(), *small.Finish()});
}

std::vector<DataField> Fields() {
  return {{0, "id", DataType::BigInt()},     {1, "uuid", DataType::String()},
          {2, "code", DataType::String()},   {3, "clustered", DataType::String()},
          {4, "twice", DataType::Int()},     {5, "half_null", DataType::String()},
          {6, "small", DataType::SmallInt()}};
}

TEST(DictionaryProbeTest, NamesTheColumnsWhoseValuesNeverRepeat) {
  // Three batches: sampled positions cross batch boundaries.
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {Rows(0, 25000), Rows(25000, 5),
                                                              Rows(25005, 34995)};
  EXPECT_EQ(DistinctValueColumns(batches), (std::vector<std::string>{"id", "uuid"}));
  // The same rows give the same answer; a slice is judged from its own rows.
  EXPECT_EQ(DistinctValueColumns(batches), (std::vector<std::string>{"id", "uuid"}));
  EXPECT_EQ(DistinctValueColumns({batches[0]->Slice(5000, 20000)}),
            (std::vector<std::string>{"id", "uuid"}));
}

TEST(DictionaryProbeTest, FewRowsAreNotJudged) {
  EXPECT_TRUE(DistinctValueColumns({Rows(0, 16383)}).empty());
  EXPECT_EQ(DistinctValueColumns({Rows(0, 16384)}), (std::vector<std::string>{"id", "uuid"}));
  EXPECT_TRUE(DistinctValueColumns({}).empty());
}

// Whether each column chunk of the file's row groups has a dictionary page, by column name.
std::map<std::string, std::vector<bool>> DictionaryPages(const std::string& path) {
  auto md = parquet::ParquetFileReader::OpenFile(path)->metadata();
  std::map<std::string, std::vector<bool>> out;
  for (int g = 0; g < md->num_row_groups(); ++g) {
    auto rg = md->RowGroup(g);
    for (int c = 0; c < rg->num_columns(); ++c) {
      out[md->schema()->Column(c)->name()].push_back(rg->ColumnChunk(c)->has_dictionary_page());
    }
  }
  return out;
}

// A Parquet file's columns whose first rows never repeat are written without a dictionary, in
// every row group, held or buffered; the others keep theirs; the rows read back the same.
TEST(DictionaryProbeTest, ParquetWritesNeverRepeatingColumnsPlain) {
  TempDir dir;
  auto io = FileIO::Local();
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches = {Rows(0, 30000), Rows(30000, 30000)};
  auto table = *arrow::Table::FromRecordBatches(batches);
  for (bool hold : {true, false}) {
    for (bool dictionary : {true, false}) {
      std::string path = dir.Join(std::string(hold ? "held" : "buffered") +
                                  (dictionary ? "-dict" : "-plain") + ".parquet");
      DataFileWriterOptions options;
      options.parquet_hold_row_group = hold;
      options.parquet_dictionary = dictionary;
      options.parquet_block_size = 2 << 20;  // a few row groups
      options.parquet_stage_bytes = 2 << 20;
      ASSERT_OK_AND_ASSIGN(
          auto w, DataFileWriter::Open(io.get(), path, FileFormat::kParquet, Fields(), options));
      for (const auto& b : batches) {
        for (int64_t r = 0; r < b->num_rows(); r += 5000) ASSERT_OK(w->Write(*b->Slice(r, 5000)));
      }
      ASSERT_OK(w->Finish().status());
      auto pages = DictionaryPages(path);
      ASSERT_GT(pages["id"].size(), 1u) << path;
      for (const auto& [column, has] : pages) {
        bool expected = dictionary && column != "id" && column != "uuid";
        for (bool h : has) EXPECT_EQ(h, expected) << path << " " << column;
      }
      ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kParquet, Fields()));
      ASSERT_EQ(read->num_rows(), table->num_rows());
      for (int c = 0; c < table->num_columns(); ++c) {
        EXPECT_TRUE(read->column(c)->Equals(*table->column(c))) << path << " " << c;
      }
    }
  }
}

}  // namespace
}  // namespace fjord
