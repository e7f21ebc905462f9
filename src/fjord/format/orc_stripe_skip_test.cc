// ORC stripes skipped by their statistics (orc_stripe_stats.h), as Parquet row groups are: what
// the chunk filter is asked, positions and rows_skipped() across skipped stripes, deletion
// vectors by position, through Arrow's reader (stripe by stripe) and through Fjord's own (chosen
// when Arrow refuses a TIMESTAMP beyond what nanoseconds hold, from the start or mid-file).
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>

#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/format/evolved_file_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/format/orc_stripe_stats.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

constexpr int64_t kFarMillis = 253402214400000;  // 9999-12-31 00:00:00, beyond nanoseconds
constexpr int64_t kNearMillis = 1577836800000;   // 2020-01-01 00:00:00

std::vector<DataField> Fields() {
  return {DataField{0, "id", DataType::Int(false), {}, {}},
          DataField{1, "name", DataType::String(true), {}, {}},
          DataField{2, "amount", DataType::Decimal(10, 2, true), {}, {}},
          DataField{3, "day", DataType::Date(true), {}, {}},
          DataField{4, "ts", DataType::Timestamp(3, true), {}, {}}};
}

// Ten stripes of 100 rows: id 0..999, name "n<id>" (NULL when id % 10 == 3), amount id / 4,
// day 1000 + id, ts 2020-01-01, or 9999-12-31 from row `far_from` on (Arrow's reader refuses
// those: Fjord's reader takes over).
std::string WriteFile(const TempDir& dir, int far_from = 1000) {
  std::string path = dir.Join("data-0.orc");
  auto io = FileIO::Local();
  DataFileWriterOptions options;
  options.orc_stripe_size = 1;  // a stripe at every check
  options.orc_rows_between_checks = 100;
  auto writer = *DataFileWriter::Open(io.get(), path, FileFormat::kOrc, Fields(), options);
  auto schema = arrow::schema(
      {arrow::field("id", arrow::int32(), false), arrow::field("name", arrow::utf8()),
       arrow::field("amount", arrow::decimal128(10, 2)), arrow::field("day", arrow::date32()),
       arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MILLI))});
  for (int g = 0; g < 10; ++g) {
    arrow::Int32Builder ids;
    arrow::StringBuilder names;
    arrow::Decimal128Builder amounts(arrow::decimal128(10, 2));
    arrow::Date32Builder days;
    arrow::TimestampBuilder ts(arrow::timestamp(arrow::TimeUnit::MILLI),
                               arrow::default_memory_pool());
    for (int i = g * 100; i < (g + 1) * 100; ++i) {
      EXPECT_TRUE(ids.Append(i).ok());
      EXPECT_TRUE((i % 10 == 3 ? names.AppendNull() : names.Append("n" + std::to_string(i))).ok());
      EXPECT_TRUE(amounts.Append(arrow::Decimal128(i * 25)).ok());
      EXPECT_TRUE(days.Append(1000 + i).ok());
      EXPECT_TRUE(ts.Append(i >= far_from ? kFarMillis : kNearMillis).ok());
    }
    auto batch = arrow::RecordBatch::Make(
        schema, 100,
        {*ids.Finish(), *names.Finish(), *amounts.Finish(), *days.Finish(), *ts.Finish()});
    EXPECT_OK(writer->Write(*batch));
  }
  EXPECT_TRUE(writer->Finish().ok());
  return path;
}

struct Read {
  std::vector<int32_t> ids;
  std::vector<int64_t> ts;
};

// Every row; checks that each batch's position is its first id (id = position here).
Read ReadAll(BatchReader* reader) {
  Read out;
  while (true) {
    auto batch = reader->Next();
    EXPECT_TRUE(batch.ok()) << batch.status().ToString();
    if (!batch.ok() || !*batch) break;
    auto ids = std::static_pointer_cast<arrow::Int32Array>((*batch)->column(0));
    EXPECT_EQ(ids->Value(0), reader->position());
    auto ts = std::static_pointer_cast<arrow::TimestampArray>((*batch)->column(4));
    for (int64_t r = 0; r < ids->length(); ++r) {
      out.ids.push_back(ids->Value(r));
      out.ts.push_back(ts->Value(r));
    }
  }
  return out;
}

std::vector<int32_t> Range(int32_t from, int32_t to) {
  std::vector<int32_t> out;
  for (int32_t i = from; i < to; ++i) out.push_back(i);
  return out;
}

TEST(OrcStripeSkipTest, SkipsStripesByStatistics) {
  TempDir dir;
  std::string path = WriteFile(dir);
  auto io = FileIO::Local();
  FileReadOptions options;
  options.batch_rows = 64;
  int asked = 0;
  options.chunk_filter = [&asked](const std::vector<std::optional<ColumnStats>>& stats,
                                  int64_t rows) {
    int g = asked++;
    EXPECT_EQ(rows, 100);
    EXPECT_EQ(stats.size(), 5u);
    if (stats.size() != 5u || !stats[0] || !stats[1] || !stats[2] || !stats[3] || !stats[4]) {
      ADD_FAILURE() << "stripe " << g << " lacks statistics";
      return true;
    }
    EXPECT_EQ(stats[0]->min, Value(int32_t{g * 100}));
    EXPECT_EQ(stats[0]->max, Value(int32_t{g * 100 + 99}));
    EXPECT_EQ(stats[0]->null_count, 0);
    EXPECT_EQ(stats[1]->null_count, 10);
    EXPECT_EQ(stats[1]->min, Value("n" + std::to_string(g * 100)));
    EXPECT_EQ(stats[1]->max, Value("n" + std::to_string(g * 100 + 99)));
    EXPECT_EQ(stats[2]->min, Value(Decimal{g * 2500, 10, 2}));
    EXPECT_EQ(stats[2]->max, Value(Decimal{g * 2500 + 99 * 25, 10, 2}));
    EXPECT_EQ(stats[3]->min, Value(int32_t{1000 + g * 100}));
    EXPECT_EQ(stats[3]->max, Value(int32_t{1099 + g * 100}));
    // Timestamps: the null count only.
    EXPECT_EQ(stats[4]->null_count, 0);
    EXPECT_FALSE(stats[4]->min.has_value());
    return stats[0]->max->AsInt64() >= 750;  // id >= 750
  };
  ASSERT_OK_AND_ASSIGN(auto reader,
                       OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), options));
  EXPECT_EQ(asked, 10);
  EXPECT_EQ(reader->rows_skipped(), 700);
  Read read = ReadAll(reader.get());
  EXPECT_EQ(read.ids, Range(700, 1000));
}

// Stripes kept and skipped alternately (Arrow reads the kept ones one by one), every stripe kept
// (the read equals an unfiltered one), none kept.
TEST(OrcStripeSkipTest, KeptStripesReadAsWithoutFilter) {
  TempDir dir;
  std::string path = WriteFile(dir);
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto plain, OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), {}));
  Read all = ReadAll(plain.get());
  ASSERT_EQ(all.ids, Range(0, 1000));

  FileReadOptions keep_all;
  keep_all.chunk_filter = [](const std::vector<std::optional<ColumnStats>>&, int64_t) {
    return true;
  };
  ASSERT_OK_AND_ASSIGN(auto kept,
                       OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), keep_all));
  EXPECT_EQ(kept->rows_skipped(), 0);
  Read every = ReadAll(kept.get());
  EXPECT_EQ(every.ids, all.ids);
  EXPECT_EQ(every.ts, all.ts);

  FileReadOptions odd;
  odd.batch_rows = 30;
  odd.chunk_filter = [](const std::vector<std::optional<ColumnStats>>& stats, int64_t) {
    return stats[0]->min->AsInt64() / 100 % 2 == 1;
  };
  ASSERT_OK_AND_ASSIGN(auto halves, OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), odd));
  EXPECT_EQ(halves->rows_skipped(), 500);
  std::vector<int32_t> expected;
  for (int g = 1; g < 10; g += 2) {
    for (int32_t id : Range(g * 100, g * 100 + 100)) expected.push_back(id);
  }
  EXPECT_EQ(ReadAll(halves.get()).ids, expected);

  FileReadOptions none;
  none.chunk_filter = [](const std::vector<std::optional<ColumnStats>>&, int64_t) { return false; };
  ASSERT_OK_AND_ASSIGN(auto empty, OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), none));
  EXPECT_EQ(empty->rows_skipped(), 1000);
  ASSERT_OK_AND_ASSIGN(auto batch, empty->Next());
  EXPECT_EQ(batch, nullptr);
}

// Fjord's own reader skips the same stripes: chosen from the start (every TIMESTAMP beyond
// nanoseconds) or taking over from Arrow's at row 800, which then resumes after the rows Arrow
// returned.
TEST(OrcStripeSkipTest, OwnReaderSkipsStripesToo) {
  for (int far_from : {0, 800}) {
    TempDir dir;
    std::string path = WriteFile(dir, far_from);
    auto io = FileIO::Local();
    FileReadOptions options;
    options.batch_rows = 64;
    // Stripes 1 and 4..9.
    options.chunk_filter = [](const std::vector<std::optional<ColumnStats>>& stats, int64_t) {
      int64_t g = stats[0]->min->AsInt64() / 100;
      return g == 1 || g >= 4;
    };
    ASSERT_OK_AND_ASSIGN(auto reader,
                         OpenDataFile(io.get(), path, FileFormat::kOrc, Fields(), options));
    EXPECT_EQ(reader->rows_skipped(), 300);
    Read read = ReadAll(reader.get());
    std::vector<int32_t> expected = Range(100, 200);
    for (int32_t id : Range(400, 1000)) expected.push_back(id);
    EXPECT_EQ(read.ids, expected) << far_from;
    ASSERT_EQ(read.ts.size(), expected.size());
    for (size_t r = 0; r < expected.size(); ++r) {
      ASSERT_EQ(read.ts[r], expected[r] >= far_from ? kFarMillis : kNearMillis) << expected[r];
    }
  }
}

// As DataFileReaderTest.EvolvedReaderAppliesDeletionVectorsAcrossSkippedRowGroups, for ORC
// stripes, through both readers.
TEST(OrcStripeSkipTest, EvolvedReaderAppliesDeletionVectorsAcrossSkippedStripes) {
  for (int far_from : {1000, 0, 800}) {
    TempDir dir;
    std::string path = WriteFile(dir, far_from);
    auto io = FileIO::Local();
    EvolvedReadSpec spec;
    spec.file_fields = Fields();
    // The read schema renamed `id` to `key` (same field id) and added `extra`.
    spec.read_fields = {DataField{0, "key", DataType::BigInt(false), {}, {}},
                        DataField{7, "extra", DataType::String(true), {}, {}},
                        DataField{4, "ts", DataType::Timestamp(3, true), {}, {}}};
    spec.deletion = std::make_shared<DeletionVector>(std::vector<int64_t>{0, 705, 706, 999});
    spec.expected_rows = 1000;
    spec.options.batch_rows = 50;
    spec.options.chunk_filter = [](const std::vector<std::optional<ColumnStats>>& stats, int64_t) {
      EXPECT_EQ(stats.size(), 3u);
      EXPECT_EQ(stats[1]->null_count, 100);  // `extra` is NULL in every row of the file
      return stats[0] && stats[0]->max && stats[0]->max->AsInt64() >= 750;
    };
    ASSERT_OK_AND_ASSIGN(auto reader,
                         OpenEvolvedFile(io.get(), path, FileFormat::kOrc, std::move(spec)));
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
    EXPECT_EQ(reader->rows_skipped(), 700);
    ASSERT_EQ(keys.size(), 297u) << far_from;
    EXPECT_EQ(keys.front(), 700);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), 705), 0);
    EXPECT_EQ(std::count(keys.begin(), keys.end(), 706), 0);
    EXPECT_EQ(keys.back(), 998);
  }
}

// The Metadata section read from the tail's first read or from the file, column ids asked for
// in any order (an id past the tree has none); cut short or placed past the end: Corruption.
TEST(OrcStripeSkipTest, StripeStatisticsOfTheColumnsAskedFor) {
  TempDir dir;
  std::string path = WriteFile(dir);
  std::ifstream in(path, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
  ASSERT_EQ(tail.stripes.size(), 10u);
  EXPECT_EQ(tail.metadata.size(), tail.metadata_length);  // held by the first read
  OrcReadAt read_at = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    if (offset > bytes.size() || length > bytes.size() - offset) {
      return Status::IOError("read past the end");
    }
    return bytes.substr(offset, length);
  };
  for (bool held : {true, false}) {
    OrcTail t = tail;
    if (!held) t.metadata.clear();
    std::vector<int64_t> days;
    std::vector<int64_t> ids;
    ASSERT_OK(ReadOrcStripeStats(
        t, bytes.size(), read_at, path, {4, 99, 1},
        [&](size_t index, const std::vector<OrcColumnStats>& stats) -> Status {
          EXPECT_EQ(index, ids.size());
          EXPECT_EQ(stats.size(), 3u);
          EXPECT_FALSE(stats[1].number_of_values.has_value());
          days.push_back(std::get<OrcDateStats>(stats[0].typed).minimum.value_or(-1));
          ids.push_back(std::get<OrcIntegerStats>(stats[2].typed).maximum.value_or(-1));
          EXPECT_EQ(stats[2].number_of_values, 100u);
          EXPECT_EQ(stats[2].has_null, false);
          return Status::OK();
        }));
    ASSERT_EQ(ids.size(), 10u);
    for (int g = 0; g < 10; ++g) {
      EXPECT_EQ(ids[static_cast<size_t>(g)], g * 100 + 99);
      EXPECT_EQ(days[static_cast<size_t>(g)], 1000 + g * 100);
    }
  }
  auto nothing = [](size_t, const std::vector<OrcColumnStats>&) { return Status::OK(); };
  for (uint64_t cut = 0; cut < tail.metadata_length; ++cut) {
    OrcTail t = tail;
    t.metadata.clear();
    t.metadata_length = cut;
    Status st = ReadOrcStripeStats(t, bytes.size(), read_at, path, {1}, nothing);
    EXPECT_TRUE(st.ok() || st.IsCorruption()) << st.ToString();
  }
  OrcTail past = tail;
  past.metadata.clear();
  past.metadata_offset = bytes.size() - 1;
  Status st = ReadOrcStripeStats(past, bytes.size(), read_at, path, {1}, nothing);
  EXPECT_TRUE(st.IsCorruption()) << st.ToString();
  EXPECT_EQ(st.message().rfind(path + ": ORC metadata", 0), 0u) << st.ToString();
}

OrcColumnStats Counted(uint64_t values, bool has_null, OrcTypedStats typed = {}) {
  OrcColumnStats s;
  s.number_of_values = values;
  s.has_null = has_null;
  s.typed = std::move(typed);
  return s;
}

OrcType Kind(OrcTypeKind kind) {
  OrcType t;
  t.kind = kind;
  return t;
}

TEST(OrcStripeSkipTest, StatisticsFjordTrusts) {
  constexpr uint32_t kOrc14 = 9;
  OrcIntegerStats ints{-5, 300, std::nullopt};
  auto s = OrcStripeColumnStats(Counted(90, true, ints), Kind(OrcTypeKind::kInt), *DataType::Int(),
                                100, kOrc14);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->null_count, 10);
  EXPECT_EQ(s->min, Value(int32_t{-5}));
  EXPECT_EQ(s->max, Value(int32_t{300}));
  // Bounds outside the type, a kind that does not match it, counts contradicting hasNull or the
  // rows, no hasNull at all.
  s = OrcStripeColumnStats(Counted(100, false, ints), Kind(OrcTypeKind::kByte),
                           *DataType::TinyInt(), 100, kOrc14);
  ASSERT_TRUE(s.has_value());
  EXPECT_FALSE(s->min.has_value());
  EXPECT_EQ(s->null_count, 0);
  s = OrcStripeColumnStats(Counted(100, false, ints), Kind(OrcTypeKind::kLong), *DataType::Int(),
                           100, kOrc14);
  EXPECT_FALSE(s->min.has_value());
  EXPECT_FALSE(OrcStripeColumnStats(Counted(100, true, ints), Kind(OrcTypeKind::kInt),
                                    *DataType::Int(), 100, kOrc14));
  EXPECT_FALSE(OrcStripeColumnStats(Counted(90, false, ints), Kind(OrcTypeKind::kInt),
                                    *DataType::Int(), 100, kOrc14));
  EXPECT_FALSE(OrcStripeColumnStats(Counted(101, true, ints), Kind(OrcTypeKind::kInt),
                                    *DataType::Int(), 100, kOrc14));
  OrcColumnStats no_has_null = Counted(100, false, ints);
  no_has_null.has_null.reset();
  EXPECT_FALSE(
      OrcStripeColumnStats(no_has_null, Kind(OrcTypeKind::kInt), *DataType::Int(), 100, kOrc14));
  // Every value NULL: the null count says it all.
  s = OrcStripeColumnStats(Counted(0, true), Kind(OrcTypeKind::kString), *DataType::String(), 100,
                           kOrc14);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->null_count, 100);

  // Decimals from their text, exactly at the column's scale; not from ORC 1.5.0-1.5.5 files
  // (writer version ORC-135) for precisions up to 18 (ORC-517).
  OrcDecimalStats dec{"-12.5", "1000", std::nullopt};
  OrcType decimal = Kind(OrcTypeKind::kDecimal);
  s = OrcStripeColumnStats(Counted(5, false, dec), decimal, *DataType::Decimal(10, 2), 5, kOrc14);
  ASSERT_TRUE(s.has_value());
  EXPECT_EQ(s->min, Value(Decimal{-1250, 10, 2}));
  EXPECT_EQ(s->max, Value(Decimal{100000, 10, 2}));
  s = OrcStripeColumnStats(Counted(5, false, dec), decimal, *DataType::Decimal(10, 2), 5, 6);
  EXPECT_FALSE(s->min.has_value());
  s = OrcStripeColumnStats(Counted(5, false, dec), decimal, *DataType::Decimal(20, 2), 5, 6);
  EXPECT_TRUE(s->min.has_value());
  for (const char* bad : {"1.005", "1e3", "", "-", "1.2.3", "123456789.5"}) {
    OrcDecimalStats odd{bad, "1000", std::nullopt};
    s = OrcStripeColumnStats(Counted(5, false, odd), decimal, *DataType::Decimal(10, 2), 5, kOrc14);
    EXPECT_FALSE(s->min.has_value()) << bad;
  }

  // Strings: VARCHAR/STRING by their bytes, not before HIVE-8732, not truncated bounds, not CHAR.
  OrcStringStats str{"a", "z", std::nullopt, std::nullopt, std::nullopt};
  s = OrcStripeColumnStats(Counted(5, false, str), Kind(OrcTypeKind::kVarchar),
                           *DataType::VarChar(3), 5, kOrc14);
  EXPECT_EQ(s->min, Value(std::string("a")));
  s = OrcStripeColumnStats(Counted(5, false, str), Kind(OrcTypeKind::kString), *DataType::String(),
                           5, 0);
  EXPECT_FALSE(s->min.has_value());
  s = OrcStripeColumnStats(Counted(5, false, str), Kind(OrcTypeKind::kChar), *DataType::Char(3), 5,
                           kOrc14);
  EXPECT_FALSE(s->min.has_value());
  OrcStringStats bounds{std::nullopt, std::nullopt, std::nullopt, "a", "z"};
  s = OrcStripeColumnStats(Counted(5, false, bounds), Kind(OrcTypeKind::kString),
                           *DataType::String(), 5, kOrc14);
  EXPECT_FALSE(s->min.has_value());

  // Floating point and timestamps: null counts only; nested columns: nothing.
  s = OrcStripeColumnStats(Counted(5, false, OrcDoubleStats{1.0, 2.0, 3.0}),
                           Kind(OrcTypeKind::kDouble), *DataType::Double(), 5, kOrc14);
  EXPECT_FALSE(s->min.has_value());
  EXPECT_EQ(s->null_count, 0);
  EXPECT_FALSE(OrcStripeColumnStats(Counted(5, false), Kind(OrcTypeKind::kList),
                                    *DataType::Array(DataType::Int()), 5, kOrc14));
}

}  // namespace
}  // namespace fjord
