#include "fjord/format/data_file_writer.h"

#include <arrow/api.h>
#include <gtest/gtest.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>
#include <parquet/schema.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>

#include "fjord/common/batch_bytes.h"
#include "fjord/common/executor.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

Decimal Dec(const char* text, int p, int s) { return *Decimal::FromString(text, p, s); }

struct Column {
  DataField field;
  std::vector<Value> values;
};

// Every type, three rows: ordinary values, nulls, edge values.
std::vector<Column> AllTypes(bool with_nanos) {
  auto ts = [](int64_t millis, int32_t nanos) { return Value(Timestamp{millis, nanos}); };
  std::vector<Column> cols = {
      {{0, "id", DataType::Int(false)}, {int32_t{1}, int32_t{2}, int32_t{3}}},
      {{1, "b", DataType::Boolean()}, {true, Value(), false}},
      {{2, "ti", DataType::TinyInt()}, {int8_t{-128}, Value(), int8_t{127}}},
      {{3, "si", DataType::SmallInt()}, {int16_t{-32768}, Value(), int16_t{32767}}},
      {{4, "bi", DataType::BigInt()}, {int64_t{-1}, Value(), int64_t{9223372036854775807LL}}},
      {{5, "f", DataType::Float()}, {1.5f, Value(), -0.25f}},
      {{6, "d", DataType::Double()}, {2.5, Value(), -1e300}},
      {{7, "dec5", DataType::Decimal(5, 2)}, {Dec("-123.45", 5, 2), Value(), Dec("0.01", 5, 2)}},
      {{8, "dec18", DataType::Decimal(18, 4)},
       {Dec("12345678901234.5678", 18, 4), Value(), Dec("-1", 18, 4)}},
      {{9, "dec38", DataType::Decimal(38, 10)},
       {Dec("1234567890123456789012345678.0123456789", 38, 10), Value(), Dec("-0.5", 38, 10)}},
      {{10, "s", DataType::String()}, {"hello", Value(), ""}},
      {{11, "s2", DataType::VarChar(20)}, {"日本語 ✓ 😀", Value(), "\xf4\x8f\xbf\xbf"}},
      {{12, "bin", DataType::Bytes()}, {std::string("\x00\xff\x10", 3), Value(), ""}},
      {{13, "date", DataType::Date()}, {int32_t{19000}, Value(), int32_t{-1}}},
      {{14, "time", DataType::Time(3)}, {int32_t{3723004}, Value(), int32_t{0}}},
      {{15, "ts0", DataType::Timestamp(0)}, {ts(1700000000000, 0), Value(), ts(-1000, 0)}},
      {{16, "ts3", DataType::Timestamp(3)}, {ts(1700000000123, 0), Value(), ts(-1, 0)}},
      {{17, "ts6", DataType::Timestamp(6)}, {ts(1700000000123, 456000), Value(), ts(-1, 999000)}},
      {{18, "ltz3", DataType::TimestampLtz(3)}, {ts(1700000000123, 0), Value(), ts(0, 0)}},
      {{19, "ltz6", DataType::TimestampLtz(6)}, {ts(1700000000123, 1000), Value(), ts(-5, 0)}},
      {{20, "arr", DataType::Array(DataType::Int())},
       {Value::List({int32_t{1}, Value(), int32_t{3}}), Value(), Value::List({})}},
      {{21, "m", DataType::Map(DataType::String(false), DataType::Int())},
       {Value::Map({{"a", int32_t{1}}, {"b", Value()}}), Value(), Value::Map({})}},
      {{22, "m2", DataType::Map(DataType::Int(false), DataType::String())},
       {Value::Map({{int32_t{7}, "x"}}), Value(), Value::Map({{int32_t{-1}, Value()}})}},
      {{23, "ms", DataType::Multiset(DataType::String(false))},
       {Value::Map({{"k", int32_t{2}}}), Value(), Value::Map({})}},
      {{24, "r",
        DataType::Row(
            {{25, "x", DataType::Int()},
             {26, "y", DataType::String()},
             {27, "z", DataType::Row({{28, "q", DataType::Array(DataType::String())}})}})},
       {Value::List({int32_t{5}, "why", Value::List({Value::List({"a", "b"})})}), Value(),
        Value::List({Value(), Value(), Value()})}},
  };
  if (with_nanos) {
    cols.push_back(
        {{29, "ts9", DataType::Timestamp(9)}, {ts(1700000000123, 456789), Value(), ts(-1, 1)}});
    cols.push_back({{30, "ltz9", DataType::TimestampLtz(9)},
                    {ts(1700000000123, 999999), Value(), ts(-100000000000, 5)}});
    cols.push_back(
        {{31, "ts7", DataType::Timestamp(7)}, {ts(1700000000123, 456700), Value(), ts(0, 100)}});
  }
  return cols;
}

// Timestamps in the last second before 1970 with at least a millisecond of fraction moved one
// second earlier: ORC stores them as Java's writer does, and every reader returns them a second
// late (orc/column_writer.h, OrcTimestampParts).
std::vector<Column> OrcSafe(std::vector<Column> cols) {
  for (Column& c : cols) {
    for (Value& v : c.values) {
      if (!v.is<Timestamp>()) continue;
      Timestamp t = v.get<Timestamp>();
      if (t.millis < 0 && t.millis > -1000) v = Value(Timestamp{t.millis - 1000, t.nanos_of_milli});
    }
  }
  return cols;
}

std::vector<DataField> FieldsOf(const std::vector<Column>& cols) {
  std::vector<DataField> out;
  for (const auto& c : cols) out.push_back(c.field);
  return out;
}

std::shared_ptr<arrow::Table> TableOf(const std::vector<Column>& cols) {
  arrow::ArrayVector arrays;
  int64_t rows = 0;
  for (const auto& c : cols) {
    auto type = *ToArrowType(*c.field.type);
    std::unique_ptr<arrow::ArrayBuilder> b;
    EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &b).ok());
    for (const Value& v : c.values) {
      Status st = AppendValueToBuilder(b.get(), v, *c.field.type);
      EXPECT_TRUE(st.ok()) << c.field.name << ": " << st.ToString();
    }
    arrays.push_back(*b->Finish());
    rows = static_cast<int64_t>(c.values.size());
  }
  return arrow::Table::Make(*ToArrowSchema(FieldsOf(cols)), arrays, rows);
}

int64_t DiskSize(const std::string& path) {
  return static_cast<int64_t>(std::filesystem::file_size(path));
}

void RoundTrip(FileFormat format, bool with_nanos) {
  TempDir dir;
  auto cols = format == FileFormat::kOrc ? OrcSafe(AllTypes(with_nanos)) : AllTypes(with_nanos);
  auto fields = FieldsOf(cols);
  auto table = TableOf(cols);
  std::string path = dir.Join(std::string("data-0.") + std::string(FileFormatName(format)));
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(DataFileWriteResult res,
                       WriteDataFile(io.get(), path, format, fields, *table));
  EXPECT_EQ(res.file_size, DiskSize(path));
  EXPECT_EQ(res.row_count, 3);
  ASSERT_EQ(res.stats.size(), fields.size());
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, format, fields));
  ASSERT_EQ(read->num_columns(), table->num_columns());
  for (int c = 0; c < table->num_columns(); ++c) {
    EXPECT_TRUE(read->column(c)->Equals(*table->column(c)))
        << FileFormatName(format) << " column " << fields[c].name << "\nwrote "
        << table->column(c)->ToString() << "\nread " << read->column(c)->ToString();
  }
}

TEST(DataFileWriterTest, ParquetRoundTripsEveryType) { RoundTrip(FileFormat::kParquet, true); }
TEST(DataFileWriterTest, OrcRoundTripsEveryType) { RoundTrip(FileFormat::kOrc, true); }
TEST(DataFileWriterTest, AvroRoundTripsEveryType) { RoundTrip(FileFormat::kAvro, false); }

TEST(DataFileWriterTest, OrcWritesTimestampsBefore1970WithAFraction) {
  TempDir dir;
  auto io = FileIO::Local();
  std::vector<Column> cols = {
      {{0, "r", DataType::Row({{1, "ts", DataType::Timestamp(6)}})},
       {Value::List({Value(Timestamp{-1001, 999000})}), Value::List({Value(Timestamp{-1500, 0})})}},
      {{2, "l", DataType::Array(DataType::TimestampLtz(9))},
       {Value::List({Value(Timestamp{-86400001, 1})}), Value::List({})}}};
  std::string path = dir.Join("f.orc");
  auto table = TableOf(cols);
  ASSERT_OK(WriteDataFile(io.get(), path, FileFormat::kOrc, FieldsOf(cols), *table).status());
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kOrc, FieldsOf(cols)));
  for (int c = 0; c < table->num_columns(); ++c) {
    EXPECT_TRUE(read->column(c)->Equals(*table->column(c))) << read->column(c)->ToString();
  }
}

TEST(DataFileWriterTest, AvroRejectsNanosTimestamps) {
  TempDir dir;
  auto io = FileIO::Local();
  std::vector<DataField> fields = {{0, "t", DataType::Timestamp(9)}};
  auto st = DataFileWriter::Open(io.get(), dir.Join("x.avro"), FileFormat::kAvro, fields);
  EXPECT_FALSE(st.ok());
}

TEST(DataFileWriterTest, EmptyFilesAndManyBatches) {
  for (FileFormat format : {FileFormat::kParquet, FileFormat::kOrc, FileFormat::kAvro}) {
    TempDir dir;
    auto io = FileIO::Local();
    auto cols = OrcSafe(AllTypes(false));
    auto fields = FieldsOf(cols);
    std::string path = dir.Join("f." + std::string(FileFormatName(format)));
    ASSERT_OK_AND_ASSIGN(auto w, DataFileWriter::Open(io.get(), path, format, fields));
    auto table = TableOf(cols);
    for (int i = 0; i < 5; ++i) ASSERT_OK(w->Write(*table));
    EXPECT_GT(w->EstimatedSize(), 0);
    ASSERT_OK_AND_ASSIGN(auto res, w->Finish());
    EXPECT_EQ(res.row_count, 15);
    EXPECT_EQ(res.file_size, DiskSize(path));
    ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, format, fields));
    EXPECT_EQ(read->num_rows(), 15);
    // Null count of "b" over 5 batches.
    EXPECT_EQ(res.stats[1].null_count, 5);

    std::string empty = dir.Join("e." + std::string(FileFormatName(format)));
    ASSERT_OK_AND_ASSIGN(auto w2, DataFileWriter::Open(io.get(), empty, format, fields));
    ASSERT_OK_AND_ASSIGN(auto res2, w2->Finish());
    EXPECT_EQ(res2.row_count, 0);
    EXPECT_EQ(res2.file_size, DiskSize(empty));
    ASSERT_OK_AND_ASSIGN(auto read2, ReadDataFile(io.get(), empty, format, fields));
    EXPECT_EQ(read2->num_rows(), 0);
  }
}

// parquet_hold_row_group writes each row group at once when it closes: the same row groups (a new
// one at the first write after parquet.block.size bytes), rows and statistics as encoding batch by
// batch, for every type.
TEST(DataFileWriterTest, ParquetHeldRowGroupsAsBuffered) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = AllTypes(true);
  auto fields = FieldsOf(cols);
  auto table = TableOf(cols);
  std::vector<DataFileWriteResult> results;
  std::vector<std::shared_ptr<arrow::Table>> reads;
  for (bool hold : {false, true}) {
    std::string path = dir.Join(hold ? "held.parquet" : "buffered.parquet");
    DataFileWriterOptions options;
    options.parquet_block_size = 1;  // every write after the first starts a row group
    options.parquet_hold_row_group = hold;
    ASSERT_OK_AND_ASSIGN(
        auto w, DataFileWriter::Open(io.get(), path, FileFormat::kParquet, fields, options));
    for (int i = 0; i < 4; ++i) ASSERT_OK(w->Write(*table));
    ASSERT_OK_AND_ASSIGN(auto res, w->Finish());
    EXPECT_EQ(res.file_size, DiskSize(path));
    EXPECT_EQ(parquet::ParquetFileReader::OpenFile(path)->metadata()->num_row_groups(), 4) << hold;
    ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kParquet, fields));
    results.push_back(res);
    reads.push_back(read);
  }
  EXPECT_EQ(results[0].row_count, 4 * table->num_rows());
  EXPECT_EQ(results[1].row_count, results[0].row_count);
  EXPECT_EQ(results[1].stats, results[0].stats);
  EXPECT_TRUE(reads[1]->Equals(*reads[0]));
  auto concatenated = arrow::ConcatenateTables({table, table, table, table});
  ASSERT_TRUE(concatenated.ok());
  EXPECT_TRUE(reads[0]->Equals(**concatenated)) << reads[0]->ToString();
}

// Held row groups encoded by a background executor: the same file contents as encoded in
// place; a first row group of its own size; a task the executor never ran is run by Finish; an
// encoding error reaches the writer's caller with the file's path.
TEST(DataFileWriterTest, ParquetHeldRowGroupsEncodedInTheBackground) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = AllTypes(true);
  auto fields = FieldsOf(cols);
  auto table = TableOf(cols);
  ThreadPool pool(1);
  std::atomic<int> handed{0};
  BackgroundExecutor on_pool = [&](std::function<Status()> run) {
    ++handed;
    pool.Submit([run = std::move(run)] { (void)run(); });
  };
  BackgroundExecutor dropping = [&](std::function<Status()>) { ++handed; };
  auto write = [&](const std::string& name, BackgroundExecutor background, FileIO* to) {
    DataFileWriterOptions options;
    options.parquet_hold_row_group = true;
    options.parquet_block_size = 1;        // a row group per write, after the first
    options.parquet_first_block_size = 0;  // (none of its own)
    options.parquet_background = std::move(background);
    std::string path = dir.Join(name);
    auto w = DataFileWriter::Open(to, path, FileFormat::kParquet, fields, options);
    if (!w.ok()) return Result<DataFileWriteResult>(w.status());
    for (int i = 0; i < 5; ++i) {
      Status st = (*w)->Write(*table);
      if (!st.ok()) return Result<DataFileWriteResult>(st);
    }
    return (*w)->Finish();
  };
  ASSERT_OK_AND_ASSIGN(auto inline_written, write("inline.parquet", nullptr, io.get()));
  ASSERT_OK_AND_ASSIGN(auto pooled, write("pooled.parquet", on_pool, io.get()));
  EXPECT_EQ(handed.load(), 4);  // the groups closed by the next write (Finish writes the last)
  ASSERT_OK_AND_ASSIGN(auto dropped, write("dropped.parquet", dropping, io.get()));
  EXPECT_EQ(handed.load(), 8);
  ASSERT_OK_AND_ASSIGN(auto expected, ReadDataFile(io.get(), dir.Join("inline.parquet"),
                                                   FileFormat::kParquet, fields));
  for (const auto* written : {&pooled, &dropped}) {
    EXPECT_EQ(written->file_size, DiskSize(written->path));
    EXPECT_EQ(written->row_count, inline_written.row_count);
    EXPECT_EQ(written->stats, inline_written.stats);
    EXPECT_EQ(parquet::ParquetFileReader::OpenFile(written->path)->metadata()->num_row_groups(), 5);
    ASSERT_OK_AND_ASSIGN(auto read,
                         ReadDataFile(io.get(), written->path, FileFormat::kParquet, fields));
    EXPECT_TRUE(read->Equals(*expected)) << written->path;
  }

  // The first row group closes at parquet_first_block_size, the others at parquet.block.size.
  {
    DataFileWriterOptions options;
    options.parquet_hold_row_group = true;
    ASSERT_OK_AND_ASSIGN(int64_t bytes, RowBytes(*table->CombineChunksToBatch().ValueOrDie()));
    options.parquet_block_size = 3 * bytes;
    options.parquet_first_block_size = 1;
    options.parquet_background = on_pool;
    std::string path = dir.Join("first.parquet");
    ASSERT_OK_AND_ASSIGN(
        auto w, DataFileWriter::Open(io.get(), path, FileFormat::kParquet, fields, options));
    for (int i = 0; i < 7; ++i) ASSERT_OK(w->Write(*table));
    ASSERT_OK(w->Finish().status());
    auto footer = parquet::ParquetFileReader::OpenFile(path)->metadata();
    ASSERT_EQ(footer->num_row_groups(), 3);
    EXPECT_EQ(footer->RowGroup(0)->num_rows(), table->num_rows());
    EXPECT_EQ(footer->RowGroup(1)->num_rows(), 3 * table->num_rows());
    EXPECT_EQ(footer->RowGroup(2)->num_rows(), 3 * table->num_rows());
  }

  // Every output operation fails from the second on: the first group's encoding, in the
  // background, fails; the next write (or Finish) says so.
  auto faulty = std::make_shared<FaultInjectionFileIO>(io);
  faulty->FailAt(2, FaultInjectionFileIO::Mode::kCrash);
  auto failed = write("failed.parquet", on_pool, faulty.get());
  ASSERT_FALSE(failed.ok());
  EXPECT_NE(failed.status().ToString().find("failed.parquet"), std::string::npos)
      << failed.status().ToString();
}

// Held row groups encoded with their columns at once on Arrow's pool while the writer has threads
// to spare: the same bytes as encoded column after column, for every type, one group per write or
// one for the file, the spare answer changing from group to group.
TEST(DataFileWriterTest, ParquetHeldGroupsColumnsEncodedAtOnceGiveTheSameBytes) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = AllTypes(true);
  auto fields = FieldsOf(cols);
  auto table = TableOf(cols);
  auto bytes_of = [](const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (int64_t block : {int64_t{1}, int64_t{1} << 30}) {
    std::string bytes[2];
    for (int spare : {0, 1}) {
      DataFileWriterOptions options;
      options.parquet_hold_row_group = true;
      options.parquet_block_size = block;  // 1: a row group per write; else one for the file
      std::atomic<int> asked{0};
      if (spare) options.parquet_spare_threads = [&asked] { return ++asked % 3 != 2; };
      std::string path = dir.Join("f" + std::to_string(block) + "-" + std::to_string(spare));
      ASSERT_OK_AND_ASSIGN(
          auto w, DataFileWriter::Open(io.get(), path, FileFormat::kParquet, fields, options));
      for (int i = 0; i < 4; ++i) ASSERT_OK(w->Write(*table));
      ASSERT_OK_AND_ASSIGN(auto res, w->Finish());
      EXPECT_EQ(res.file_size, DiskSize(path));
      EXPECT_EQ(parquet::ParquetFileReader::OpenFile(path)->metadata()->num_row_groups(),
                block == 1 ? 4 : 1);
      EXPECT_EQ(asked.load(), spare ? (block == 1 ? 4 : 1) : 0);
      ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kParquet, fields));
      auto expected = arrow::ConcatenateTables({table, table, table, table});
      ASSERT_TRUE(expected.ok());
      EXPECT_TRUE(read->Equals(**expected));
      bytes[spare] = bytes_of(path);
    }
    EXPECT_FALSE(bytes[0].empty());
    EXPECT_TRUE(bytes[1] == bytes[0]) << "block " << block;
  }
}

// Several files written at once get first row groups spread over the block: the first file the
// whole block, none below a sixteenth of it, no two alike among the first ten.
TEST(DataFileWriterTest, StaggeredFirstBlockSizes) {
  const int64_t block = int64_t{128} << 20;
  EXPECT_EQ(StaggeredFirstBlockSize(0, block), block);
  std::set<int64_t> seen;
  for (int64_t i = 0; i < 10; ++i) {
    int64_t size = StaggeredFirstBlockSize(i, block);
    EXPECT_GE(size, block / 16);
    EXPECT_LE(size, block);
    seen.insert(size);
  }
  EXPECT_EQ(seen.size(), 10u);
  // Spread out: sorted, no gap wider than a fifth of the block.
  std::vector<int64_t> sorted(seen.begin(), seen.end());
  for (size_t i = 1; i < sorted.size(); ++i) EXPECT_LT(sorted[i] - sorted[i - 1], block / 5);
}

TEST(DataFileWriterTest, RejectsNullsInNotNullColumnsAndWrongTypes) {
  TempDir dir;
  auto io = FileIO::Local();
  std::vector<DataField> fields = {{0, "a", DataType::Int(false)}};
  ASSERT_OK_AND_ASSIGN(
      auto w, DataFileWriter::Open(io.get(), dir.Join("x.parquet"), FileFormat::kParquet, fields));
  arrow::Int32Builder b;
  ASSERT_TRUE(b.AppendNull().ok());
  auto arr = *b.Finish();
  auto batch = arrow::RecordBatch::Make(arrow::schema({arrow::field("a", arrow::int32())}), 1,
                                        arrow::ArrayVector{arr});
  EXPECT_TRUE(w->Write(*batch).IsInvalid());
  arrow::Int64Builder b64;
  ASSERT_TRUE(b64.Append(1).ok());
  auto batch64 = arrow::RecordBatch::Make(arrow::schema({arrow::field("a", arrow::int64())}), 1,
                                          arrow::ArrayVector{*b64.Finish()});
  EXPECT_TRUE(w->Write(*batch64).IsInvalid());
}

// Primary-key layout with system fields; Parquet footer as Java writes it.
TEST(DataFileWriterTest, ParquetFooterMatchesJava) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = AllTypes(true);
  // Put PK-file system columns in front.
  std::vector<Column> pk = {
      {{1073741823 + 0, "_KEY_id", DataType::Int(false)}, {int32_t{1}, int32_t{2}, int32_t{3}}},
      {{2147483646, "_SEQUENCE_NUMBER", DataType::BigInt(false)},
       {int64_t{0}, int64_t{1}, int64_t{2}}},
      {{2147483645, "_VALUE_KIND", DataType::TinyInt(false)}, {int8_t{0}, int8_t{0}, int8_t{3}}},
  };
  pk.insert(pk.end(), cols.begin(), cols.end());
  auto fields = FieldsOf(pk);
  std::string path = dir.Join("data-1.parquet");
  ASSERT_OK_AND_ASSIGN(auto res,
                       WriteDataFile(io.get(), path, FileFormat::kParquet, fields, *TableOf(pk)));
  EXPECT_EQ(res.file_size, DiskSize(path));
  // _KEY_ and system columns default to truncate(128) in columnar files.
  EXPECT_EQ(res.stats_modes[0], StatsMode::Truncate(128));
  EXPECT_EQ(res.stats_modes[1], StatsMode::Truncate(128));
  EXPECT_EQ(res.stats_modes[3], StatsMode::Truncate(16));

  auto reader = parquet::ParquetFileReader::OpenFile(path);
  auto md = reader->metadata();
  EXPECT_EQ(md->key_value_metadata() == nullptr || md->key_value_metadata()->size() == 0, true);
  const parquet::schema::GroupNode* root = md->schema()->group_node();
  EXPECT_EQ(root->name(), "paimon_schema");
  ASSERT_EQ(root->field_count(), static_cast<int>(fields.size()));
  auto node = [&](const std::string& name) { return root->field(root->FieldIndex(name)); };
  for (int i = 0; i < root->field_count(); ++i) {
    EXPECT_EQ(root->field(i)->field_id(), fields[static_cast<size_t>(i)].id)
        << root->field(i)->name();
    EXPECT_EQ(root->field(i)->repetition(), fields[static_cast<size_t>(i)].type->nullable()
                                                ? parquet::Repetition::OPTIONAL
                                                : parquet::Repetition::REQUIRED)
        << root->field(i)->name();
  }
  auto prim = [&](const std::string& name) {
    return static_cast<const parquet::schema::PrimitiveNode*>(node(name).get());
  };
  auto expect_int = [&](const std::string& name, int bits) {
    EXPECT_EQ(prim(name)->physical_type(), parquet::Type::INT32) << name;
    EXPECT_TRUE(prim(name)->logical_type()->Equals(*parquet::LogicalType::Int(bits, true)))
        << name << " " << prim(name)->logical_type()->ToString();
  };
  expect_int("_VALUE_KIND", 8);
  expect_int("ti", 8);
  expect_int("si", 16);
  EXPECT_EQ(prim("_SEQUENCE_NUMBER")->physical_type(), parquet::Type::INT64);
  EXPECT_EQ(prim("dec5")->physical_type(), parquet::Type::INT32);
  EXPECT_EQ(prim("dec18")->physical_type(), parquet::Type::INT64);
  EXPECT_EQ(prim("dec38")->physical_type(), parquet::Type::FIXED_LEN_BYTE_ARRAY);
  EXPECT_EQ(prim("dec38")->type_length(), 16);
  EXPECT_TRUE(prim("dec38")->logical_type()->Equals(*parquet::LogicalType::Decimal(38, 10)));
  EXPECT_TRUE(prim("s")->logical_type()->Equals(*parquet::LogicalType::String()));
  EXPECT_EQ(prim("bin")->physical_type(), parquet::Type::BYTE_ARRAY);
  EXPECT_TRUE(prim("date")->logical_type()->Equals(*parquet::LogicalType::Date()));
  EXPECT_EQ(prim("time")->physical_type(), parquet::Type::INT32);
  EXPECT_TRUE(prim("time")->logical_type()->Equals(
      *parquet::LogicalType::Time(true, parquet::LogicalType::TimeUnit::MILLIS)))
      << prim("time")->logical_type()->ToString();
  auto expect_ts = [&](const std::string& name, bool utc, parquet::LogicalType::TimeUnit::unit u) {
    EXPECT_EQ(prim(name)->physical_type(), parquet::Type::INT64) << name;
    const auto& lt = static_cast<const parquet::TimestampLogicalType&>(*prim(name)->logical_type());
    ASSERT_TRUE(prim(name)->logical_type()->is_timestamp()) << name;
    EXPECT_EQ(lt.is_adjusted_to_utc(), utc) << name;
    EXPECT_EQ(lt.time_unit(), u) << name;
  };
  expect_ts("ts0", false, parquet::LogicalType::TimeUnit::MILLIS);
  expect_ts("ts3", false, parquet::LogicalType::TimeUnit::MILLIS);
  expect_ts("ts6", false, parquet::LogicalType::TimeUnit::MICROS);
  expect_ts("ltz3", true, parquet::LogicalType::TimeUnit::MILLIS);
  expect_ts("ltz6", true, parquet::LogicalType::TimeUnit::MICROS);
  EXPECT_EQ(prim("ts7")->physical_type(), parquet::Type::INT96);
  EXPECT_EQ(prim("ts9")->physical_type(), parquet::Type::INT96);
  EXPECT_EQ(prim("ltz9")->physical_type(), parquet::Type::INT96);

  // Nested: 3-level list with Java's element id, map key_value with required key.
  auto arr = static_cast<const parquet::schema::GroupNode*>(node("arr").get());
  EXPECT_TRUE(arr->logical_type()->is_list());
  auto list = static_cast<const parquet::schema::GroupNode*>(arr->field(0).get());
  EXPECT_EQ(list->name(), "list");
  EXPECT_EQ(list->repetition(), parquet::Repetition::REPEATED);
  EXPECT_EQ(list->field(0)->name(), "element");
  EXPECT_EQ(list->field(0)->field_id(), 2147483647 / 4 + 20 * 1024 + 1);
  auto m = static_cast<const parquet::schema::GroupNode*>(node("m").get());
  EXPECT_TRUE(m->logical_type()->is_map());
  auto kv = static_cast<const parquet::schema::GroupNode*>(m->field(0).get());
  EXPECT_EQ(kv->name(), "key_value");
  EXPECT_EQ(kv->field(0)->repetition(), parquet::Repetition::REQUIRED);
  EXPECT_EQ(kv->field(0)->field_id(), 2147483647 / 4 - 21 * 1024 - 1);
  EXPECT_EQ(kv->field(1)->field_id(), 2147483647 / 4 + 21 * 1024 + 1);
  auto r = static_cast<const parquet::schema::GroupNode*>(node("r").get());
  EXPECT_EQ(r->field(0)->field_id(), 25);
  EXPECT_EQ(r->field(1)->field_id(), 26);

  // ZSTD, dictionary, FileMetaData version 1.
  EXPECT_EQ(md->version(), parquet::ParquetVersion::PARQUET_1_0);
  ASSERT_GE(md->num_row_groups(), 1);
  auto rg = md->RowGroup(0);
  for (int c = 0; c < rg->num_columns(); ++c) {
    EXPECT_EQ(rg->ColumnChunk(c)->compression(), arrow::Compression::ZSTD);
  }
}

TEST(DataFileWriterTest, CompressionOptions) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = AllTypes(false);
  auto fields = FieldsOf(cols);
  Options options = Options::FromTable({{"file.compression", "snappy"}});
  ASSERT_OK_AND_ASSIGN(auto wo,
                       DataFileWriterOptions::FromOptions(options, fields, FileFormat::kParquet));
  std::string path = dir.Join("s.parquet");
  ASSERT_OK(
      WriteDataFile(io.get(), path, FileFormat::kParquet, fields, *TableOf(cols), wo).status());
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  EXPECT_EQ(reader->metadata()->RowGroup(0)->ColumnChunk(0)->compression(),
            arrow::Compression::SNAPPY);

  ASSERT_OK_AND_ASSIGN(auto ao,
                       DataFileWriterOptions::FromOptions(Options(), fields, FileFormat::kAvro));
  std::string apath = dir.Join("a.avro");
  ASSERT_OK(WriteDataFile(io.get(), apath, FileFormat::kAvro, fields, *TableOf(cols), ao).status());
  ASSERT_OK_AND_ASSIGN(std::string bytes, io->ReadFile(apath));
  ASSERT_OK_AND_ASSIGN(auto file, avro::ReadContainerFile(bytes, apath));
  EXPECT_EQ(file.codec, avro::Codec::kZstandard);
}

TEST(DataFileWriterTest, OrcOptions) {
  TempDir dir;
  auto io = FileIO::Local();
  auto cols = OrcSafe(AllTypes(true));
  auto fields = FieldsOf(cols);
  Options options = Options::FromTable({{"file.compression", "lz4"},
                                        {"orc.stripe.size", "1 kb"},
                                        {"orc.compress.size", "8192"},
                                        {"orc.rows.between.memory.checks", "1"}});
  ASSERT_OK_AND_ASSIGN(auto wo,
                       DataFileWriterOptions::FromOptions(options, fields, FileFormat::kOrc));
  EXPECT_EQ(wo.orc_stripe_size, 1024);
  EXPECT_EQ(wo.orc_compress_size, 8192);
  EXPECT_EQ(wo.orc_rows_between_checks, 1);
  std::string path = dir.Join("o.orc");
  auto table =
      arrow::ConcatenateTables(std::vector<std::shared_ptr<arrow::Table>>(20, TableOf(cols)))
          .ValueOrDie();
  ASSERT_OK(WriteDataFile(io.get(), path, FileFormat::kOrc, fields, *table, wo).status());
  ASSERT_OK_AND_ASSIGN(std::string bytes, io->ReadFile(path));
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
  EXPECT_EQ(tail.compression, OrcCompression::kLz4);
  // Lowered as Java lowers it: 1 KiB / (20 x 43 columns), at least 4 KiB.
  EXPECT_EQ(tail.compression_block_size, 4096u);
  EXPECT_GT(tail.stripes.size(), 1u);
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
  for (int c = 0; c < table->num_columns(); ++c) {
    EXPECT_TRUE(read->column(c)->Equals(*table->column(c))) << fields[c].name;
  }
  wo.compression = "brotli";
  EXPECT_THAT(WriteDataFile(io.get(), dir.Join("b.orc"), FileFormat::kOrc, fields, *table, wo),
              IsError(StatusCode::kNotImplemented, "brotli"));
}

TEST(DataFileWriterTest, AvroSchemaAsJava) {
  std::vector<DataField> fields = {
      {0, "a", DataType::Int(false)},
      {1, "s", DataType::String()},
      {2, "t3", DataType::Timestamp(3)},
      {3, "l6", DataType::TimestampLtz(6)},
      {4, "d", DataType::Decimal(10, 2)},
      {5, "m", DataType::Map(DataType::Int(false), DataType::String())},
      {6, "r", DataType::Row({{7, "x", DataType::Int()}})},
  };
  ASSERT_OK_AND_ASSIGN(std::string json, AvroSchemaJsonFor(fields));
  EXPECT_EQ(
      json,
      R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
      R"({"name":"a","type":"int"},)"
      R"({"name":"s","type":["null","string"],"default":null},)"
      R"({"name":"t3","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
      R"({"name":"l6","type":["null",{"type":"long","logicalType":"local-timestamp-micros"}],"default":null},)"
      R"({"name":"d","type":["null",{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}],"default":null},)"
      R"({"name":"m","type":["null",{"type":"array","items":{"type":"record","name":"record_m","fields":[{"name":"key","type":"int"},{"name":"value","type":["null","string"],"default":null}]},"logicalType":"map"}],"default":null},)"
      R"({"name":"r","type":["null",{"type":"record","name":"record_r","fields":[{"name":"x","type":["null","int"],"default":null}]}],"default":null}]})");
}

TEST(DataFileWriterTest, StatsFromWriterPerFormat) {
  TempDir dir;
  auto io = FileIO::Local();
  std::vector<Column> cols = {
      {{0, "i", DataType::Int()}, {int32_t{5}, Value(), int32_t{-3}}},
      {{1, "s", DataType::String()},
       {"Two roads diverged in a yellow wood", Value(), "Two roads diverg"}},
      {{2, "a", DataType::Array(DataType::Int())}, {Value::List({}), Value(), Value()}},
      {{3, "t9", DataType::Timestamp(9)},
       {Value(Timestamp{1, 5}), Value(), Value(Timestamp{2, 0})}},
  };
  auto fields = FieldsOf(cols);
  auto table = TableOf(cols);
  ASSERT_OK_AND_ASSIGN(auto res, WriteDataFile(io.get(), dir.Join("x.parquet"),
                                               FileFormat::kParquet, fields, *table));
  EXPECT_EQ(res.stats[0], (DataColumnStats{int32_t{-3}, int32_t{5}, 1}));
  EXPECT_EQ(res.stats[1], (DataColumnStats{"Two roads diverg", "Two roads diverh", 1}));
  EXPECT_EQ(res.stats[2], (DataColumnStats{Value(), Value(), std::nullopt}));  // nested: unknown
  EXPECT_EQ(res.stats[3], (DataColumnStats{Value(), Value(), 1}));             // INT96
  ASSERT_OK_AND_ASSIGN(
      auto orc, WriteDataFile(io.get(), dir.Join("x.orc"), FileFormat::kOrc, fields, *table));
  EXPECT_EQ(orc.stats[3], (DataColumnStats{Timestamp{1, 5}, Timestamp{2, 0}, 1}));

  cols.pop_back();
  fields.pop_back();
  ASSERT_OK_AND_ASSIGN(auto avro, WriteDataFile(io.get(), dir.Join("x.avro"), FileFormat::kAvro,
                                                fields, *TableOf(cols)));
  EXPECT_EQ(avro.stats[0], (DataColumnStats{int32_t{-3}, int32_t{5}, 1}));
  EXPECT_EQ(avro.stats[1], (DataColumnStats{"Two roads diverg", "Two roads diverh", 1}));
  EXPECT_EQ(avro.stats[2], (DataColumnStats{Value(), Value(), 2}));  // row by row: nulls counted

  // Encoded as stored SimpleStats (dense store, all columns kept -> cols null).
  ASSERT_OK_AND_ASSIGN(auto rows, BuildSimpleStats(fields, avro.stats, avro.stats_modes, true));
  EXPECT_FALSE(rows.stats_cols.has_value());
  ASSERT_OK_AND_ASSIGN(auto enc, EncodeSimpleStats(rows));
  ASSERT_OK_AND_ASSIGN(auto min, DecodeStoredBinaryRow(enc.min_values, rows.types));
  EXPECT_EQ(min[0], Value(int32_t{-3}));
  EXPECT_EQ(min[1], Value("Two roads diverg"));
  EXPECT_TRUE(min[2].is_null());
}

}  // namespace
}  // namespace fjord
