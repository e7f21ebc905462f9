#include "fjord/format/parquet_footer_stats.h"

#include <arrow/api.h>

#include <random>
#include <string>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

std::vector<DataField> Fields() {
  return {DataField{0, "t", DataType::TinyInt(), {}, {}},
          DataField{1, "s", DataType::SmallInt(), {}, {}},
          DataField{2, "i", DataType::Int(), {}, {}},
          DataField{3, "d", DataType::Date(), {}, {}},
          DataField{4, "b", DataType::BigInt(), {}, {}},
          DataField{5, "str", DataType::String(), {}, {}},
          DataField{6, "bin", DataType::Bytes(), {}, {}},
          DataField{7, "nn", DataType::BigInt(false), {}, {}}};
}

// Random bytes, high bytes included (Java orders them unsigned); now and then a value longer
// than Arrow's default statistics limit (4 KB).
std::string RandomBytes(std::mt19937_64& rng, bool printable) {
  size_t n = rng() % 40 == 0 ? 5000 + rng() % 100 : rng() % 12;
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(printable ? 'a' + rng() % 26 : rng() % 256);
  if (printable && n > 0 && rng() % 3 == 0) s[0] = static_cast<char>(0xc3), s += '\xa9';
  return s;
}

std::shared_ptr<arrow::RecordBatch> RandomBatch(std::mt19937_64& rng, int64_t rows,
                                                double null_share) {
  std::bernoulli_distribution is_null(null_share);
  arrow::Int8Builder t;
  arrow::Int16Builder s;
  arrow::Int32Builder i;
  arrow::Date32Builder d;
  arrow::Int64Builder b, nn;
  arrow::StringBuilder str;
  arrow::BinaryBuilder bin;
  for (int64_t r = 0; r < rows; ++r) {
    auto maybe = [&](auto* builder, auto value) {
      (void)(is_null(rng) ? builder->AppendNull() : builder->Append(value));
    };
    maybe(&t, static_cast<int8_t>(rng()));
    maybe(&s, static_cast<int16_t>(rng()));
    maybe(&i, static_cast<int32_t>(rng()));
    maybe(&d, static_cast<int32_t>(rng() % 100000) - 50000);
    maybe(&b, static_cast<int64_t>(rng()));
    maybe(&str, RandomBytes(rng, true));
    maybe(&bin, RandomBytes(rng, false));
    (void)nn.Append(static_cast<int64_t>(rng() % 1000) - 500);
  }
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (arrow::ArrayBuilder* builder :
       std::vector<arrow::ArrayBuilder*>{&t, &s, &i, &d, &b, &str, &bin, &nn}) {
    columns.push_back(builder->Finish().ValueOrDie());
  }
  auto schema = *ToArrowSchema(Fields());
  return arrow::RecordBatch::Make(schema, rows, std::move(columns));
}

// The stats a Parquet file's footer gives are the ones the accumulator computes from the rows
// (FooterStats), whatever the row groups, nulls and value lengths.
TEST(ParquetFooterStatsTest, FooterStatsAreTheAccumulatorsOverRowGroupsNullsAndLongValues) {
  std::mt19937_64 rng(20261204);
  auto io = FileIO::Local();
  const double null_shares[] = {0.0, 0.3, 1.0};
  for (int trial = 0; trial < 12; ++trial) {
    testing::TempDir dir;
    DataFileWriterOptions options;
    options.parquet_block_size = 8 << 10;  // several row groups
    options.stats_modes.assign(Fields().size(), StatsMode::Full());
    std::string path = dir.Join("f.parquet");
    ASSERT_OK_AND_ASSIGN(
        auto writer, DataFileWriter::Open(io.get(), path, FileFormat::kParquet, Fields(), options));
    std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
    int batch_count = trial % 4;  // 0: an empty file
    for (int k = 0; k < batch_count; ++k) {
      batches.push_back(
          RandomBatch(rng, 1 + static_cast<int64_t>(rng() % 700), null_shares[(trial + k) % 3]));
      ASSERT_OK(writer->Write(*batches.back()));
    }
    ASSERT_OK_AND_ASSIGN(DataFileWriteResult written, writer->Finish());
    for (size_t c = 0; c < Fields().size(); ++c) {
      const DataField& f = Fields()[c];
      ASSERT_TRUE(StatsFromParquetFooter(*f.type)) << f.name;
      arrow::ArrayVector chunks;
      for (const auto& batch : batches) chunks.push_back(batch->column(static_cast<int>(c)));
      auto column = std::make_shared<arrow::ChunkedArray>(chunks, *ToArrowType(*f.type));
      ASSERT_OK_AND_ASSIGN(DataColumnStats expected,
                           FooterStats(*column, *f.type, FileFormat::kParquet));
      EXPECT_EQ(written.stats[c], expected) << "trial " << trial << ", column " << f.name;
    }
  }
}

TEST(ParquetFooterStatsTest, OtherTypesAreLeftToTheAccumulator) {
  EXPECT_FALSE(StatsFromParquetFooter(*DataType::Double()));
  EXPECT_FALSE(StatsFromParquetFooter(*DataType::Decimal(10, 2)));
  EXPECT_FALSE(StatsFromParquetFooter(*DataType::Timestamp(3)));
  EXPECT_FALSE(StatsFromParquetFooter(*DataType::Char(3)));
  EXPECT_FALSE(StatsFromParquetFooter(*DataType::Boolean()));
}

}  // namespace
}  // namespace fjord
