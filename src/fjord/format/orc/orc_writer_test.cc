// Fjord's ORC writer: every type Paimon writes to ORC, with every codec, read back by Arrow's ORC
// reader (the path ReadDataFile takes) and by Fjord's own (orc_reader.h); the type tree with
// Java's `paimon.id` attributes; Java's timestamp convention (the streams Java's writer produced
// for the same values, decoded from a Java-written file); statistics; stripes.
#include "fjord/format/orc/orc_writer.h"

#include <arrow/api.h>
#include <arrow/io/interfaces.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "fjord/file_io.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/orc/int_rle.h"
#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/format/orc/stripe.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

using testing::TempDir;

// The columns of the Java-written file the attribute and timestamp expectations come from
// (`fjord-oracle write` into a table of these columns, Java Paimon 1.4.2, ORC 1.9).
constexpr const char* kJavaColumns =
    "id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, bi BIGINT, f FLOAT, d DOUBLE, "
    "dec5 DECIMAL(5, 2), dec18 DECIMAL(18, 4), dec38 DECIMAL(38, 10), c CHAR(5), vc VARCHAR(10), "
    "s STRING, bin BINARY(3), vb BYTES, day DATE, t0 TIME(0), t3 TIME(3), "
    "ts0 TIMESTAMP(0), ts1 TIMESTAMP(1), ts2 TIMESTAMP(2), ts3 TIMESTAMP(3), ts4 TIMESTAMP(4), "
    "ts5 TIMESTAMP(5), ts6 TIMESTAMP(6), ts7 TIMESTAMP(7), ts8 TIMESTAMP(8), ts9 TIMESTAMP(9), "
    "ltz0 TIMESTAMP_LTZ(0), ltz1 TIMESTAMP_LTZ(1), ltz2 TIMESTAMP_LTZ(2), ltz3 TIMESTAMP_LTZ(3), "
    "ltz4 TIMESTAMP_LTZ(4), ltz5 TIMESTAMP_LTZ(5), ltz6 TIMESTAMP_LTZ(6), ltz7 TIMESTAMP_LTZ(7), "
    "ltz8 TIMESTAMP_LTZ(8), ltz9 TIMESTAMP_LTZ(9), arr ARRAY<ARRAY<INT>>, "
    "m MAP<STRING, ROW<a INT, b STRING>>, ms MULTISET<STRING>, "
    "r ROW<x INT, y ARRAY<STRING>, z ROW<w DOUBLE>>, mk MAP<INT NOT NULL, BIGINT NOT NULL>";

std::vector<DataField> JavaFields() { return ParseColumnList(kJavaColumns).value(); }

using Rng = std::mt19937_64;

std::string RandomText(Rng& rng, int64_t max_chars) {
  static const char* kPieces[] = {"a", "b", "z", "0", " ", "é", "✓", "😀", "x"};
  std::string out;
  int64_t n = static_cast<int64_t>(rng() % static_cast<uint64_t>(max_chars + 1));
  for (int64_t i = 0; i < n; ++i) out += kPieces[rng() % std::size(kPieces)];
  return out;
}

// A timestamp of `precision` digits, before 1970 (back to 1900) as often as after, never in the
// last second before 1970 (see TimestampsInTheLastSecondBefore1970ReadBackASecondLate).
Timestamp RandomTimestamp(Rng& rng, int32_t precision) {
  int64_t seconds = static_cast<int64_t>(rng() % 4000000000ull) - 2208988800;
  if (seconds == -1) seconds = -2;
  int64_t nanos = static_cast<int64_t>(rng() % 1000000000);
  int64_t unit = 1;
  for (int i = precision; i < 9; ++i) unit *= 10;
  nanos -= nanos % unit;
  if (rng() % 4 == 0) nanos = 0;
  return Timestamp{seconds * 1000 + nanos / 1000000, static_cast<int32_t>(nanos % 1000000)};
}

Value RandomValue(const DataType& t, Rng& rng, bool may_be_null = true) {
  if (may_be_null && t.nullable() && rng() % 7 == 0) return Value();
  switch (t.root()) {
    case TypeRoot::kBoolean:
      return rng() % 3 == 0;
    case TypeRoot::kTinyInt:
      return static_cast<int8_t>(rng());
    case TypeRoot::kSmallInt:
      return static_cast<int16_t>(rng() % 5 == 0 ? 7 : rng());
    case TypeRoot::kInt:
      return static_cast<int32_t>(rng() % 3 == 0 ? rng() % 100 : rng());
    case TypeRoot::kBigInt: {
      static const int64_t kEdges[] = {INT64_MIN, INT64_MAX, 0, -1, 1};
      if (rng() % 10 == 0) return kEdges[rng() % 5];
      return static_cast<int64_t>(rng() % 2 ? rng() : rng() % 1000);
    }
    case TypeRoot::kFloat: {
      static const float kEdges[] = {0.0f, -0.0f, INFINITY, -INFINITY, 3.4028235e38f, 1e-45f};
      if (rng() % 10 == 0) return kEdges[rng() % 6];
      return static_cast<float>(static_cast<int64_t>(rng() % 2000000) - 1000000) / 64.0f;
    }
    case TypeRoot::kDouble: {
      static const double kEdges[] = {0.0,     -0.0, INFINITY, -INFINITY, 1.7976931348623157e308,
                                      4.9e-324};
      if (rng() % 10 == 0) return kEdges[rng() % 6];
      return static_cast<double>(static_cast<int64_t>(rng())) / 1024.0;
    }
    case TypeRoot::kDecimal: {
      Int128 limit = 1;
      for (int i = 0; i < t.precision(); ++i) limit *= 10;
      Int128 v = (static_cast<Int128>(rng()) << 64 | rng()) % limit;
      if (v < 0) v = -v;
      if (rng() % 2) v = -v;
      if (rng() % 10 == 0) v = rng() % 2 ? limit - 1 : -(limit - 1);
      return Decimal{v, t.precision(), t.scale()};
    }
    case TypeRoot::kChar: {
      // No trailing blanks: Java's reader (and Fjord's) strips them from CHAR values.
      std::string s = RandomText(rng, t.length());
      while (!s.empty() && s.back() == ' ') s.pop_back();
      return s;
    }
    case TypeRoot::kVarChar:
      return RandomText(rng, std::min<int64_t>(t.length(), 30));
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary: {
      std::string s;
      for (uint64_t i = rng() % 9; i > 0; --i) s.push_back(static_cast<char>(rng()));
      return s;
    }
    case TypeRoot::kDate:
      return static_cast<int32_t>(static_cast<int64_t>(rng() % 3000000) - 719162);
    case TypeRoot::kTime:
      return static_cast<int32_t>(rng() % 86400000);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz:
      return RandomTimestamp(rng, t.precision());
    case TypeRoot::kArray: {
      ValueList items;
      for (uint64_t i = rng() % 4; i > 0; --i) items.push_back(RandomValue(*t.element(), rng));
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      ValueMap entries;
      DataTypePtr count = DataType::Int(false);
      const DataType& key = t.root() == TypeRoot::kMap ? *t.key() : *t.element();
      const DataType& value = t.root() == TypeRoot::kMap ? *t.value() : *count;
      for (uint64_t i = rng() % 4; i > 0; --i) {
        Value k = RandomValue(key, rng, false);
        bool dup = false;
        for (const auto& e : entries) dup = dup || e.first == k;
        if (dup) continue;
        Value v = t.root() == TypeRoot::kMap ? RandomValue(value, rng)
                                             : Value(static_cast<int32_t>(1 + rng() % 5));
        entries.emplace_back(std::move(k), std::move(v));
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      ValueList values;
      for (const DataField& f : t.fields()) values.push_back(RandomValue(*f.type, rng));
      return Value::List(std::move(values));
    }
    default:
      return Value();
  }
}

// `v` as Java's writer stores it: CHAR(n) values padded with blanks to n characters.
Value Padded(const Value& v, const DataType& t) {
  if (v.is_null()) return v;
  switch (t.root()) {
    case TypeRoot::kChar: {
      std::string s = v.get<std::string>();
      int64_t chars = 0;
      for (char c : s) chars += (static_cast<uint8_t>(c) & 0xc0) != 0x80;
      if (chars < t.length()) s.append(static_cast<size_t>(t.length() - chars), ' ');
      return s;
    }
    case TypeRoot::kArray: {
      ValueList items;
      for (const Value& x : v.list()) items.push_back(Padded(x, *t.element()));
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap: {
      ValueMap entries;
      for (const auto& [k, x] : v.map()) {
        entries.emplace_back(Padded(k, *t.key()), Padded(x, *t.value()));
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kMultiset: {
      ValueMap entries;
      for (const auto& [k, x] : v.map()) entries.emplace_back(Padded(k, *t.element()), x);
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      ValueList values;
      for (size_t i = 0; i < t.fields().size(); ++i) {
        values.push_back(Padded(v.list()[i], *t.fields()[i].type));
      }
      return Value::List(std::move(values));
    }
    default:
      return v;
  }
}

using Rows = std::vector<std::vector<Value>>;  // by column

std::shared_ptr<arrow::Table> TableOf(const std::vector<DataField>& fields, const Rows& columns) {
  arrow::ArrayVector arrays;
  for (size_t c = 0; c < fields.size(); ++c) {
    auto type = ToArrowType(*fields[c].type).value();
    std::unique_ptr<arrow::ArrayBuilder> b;
    EXPECT_TRUE(arrow::MakeBuilder(arrow::default_memory_pool(), type, &b).ok());
    for (const Value& v : columns[c]) {
      Status st = AppendValueToBuilder(b.get(), v, *fields[c].type);
      EXPECT_TRUE(st.ok()) << fields[c].name << ": " << st.ToString();
    }
    arrays.push_back(b->Finish().ValueOrDie());
  }
  return arrow::Table::Make(ToArrowSchema(fields).value(), arrays);
}

Rows RandomRows(const std::vector<DataField>& fields, int64_t n, uint64_t seed) {
  Rng rng(seed);
  Rows columns(fields.size());
  for (int64_t r = 0; r < n; ++r) {
    for (size_t c = 0; c < fields.size(); ++c) {
      columns[c].push_back(c == 0 ? Value(static_cast<int32_t>(r))
                                  : RandomValue(*fields[c].type, rng));
    }
  }
  return columns;
}

Rows PaddedRows(const std::vector<DataField>& fields, const Rows& columns) {
  Rows out(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) {
    for (const Value& v : columns[c]) out[c].push_back(Padded(v, *fields[c].type));
  }
  return out;
}

Result<int64_t> WriteOrc(const std::string& path, const std::vector<DataField>& fields,
                         const arrow::Table& table, OrcWriterOptions options,
                         int64_t batch_rows = 1000) {
  auto io = FileIO::Local();
  FJORD_ASSIGN_OR_RAISE(auto out, io->OpenOutput(path));
  FJORD_ASSIGN_OR_RAISE(auto writer, OrcWriter::Open(out, fields, options));
  arrow::TableBatchReader reader(table);
  reader.set_chunksize(batch_rows);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (reader.ReadNext(&batch).ok() && batch) FJORD_RETURN_NOT_OK(writer->Write(*batch));
  FJORD_ASSIGN_OR_RAISE(int64_t size, writer->Finish());
  if (!out->Close().ok()) return Status::IOError("close");
  return size;
}

std::string FileBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Fjord's own reader over the whole file.
Result<std::shared_ptr<arrow::Table>> ReadOwn(const std::string& path,
                                              const std::vector<DataField>& fields) {
  std::string bytes = FileBytes(path);
  FJORD_ASSIGN_OR_RAISE(OrcTail tail, ReadOrcTail(bytes, path));
  OrcReadAt read_at = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    return bytes.substr(offset, length);
  };
  return ReadOrcFile(tail, bytes.size(), read_at, path, fields);
}

void ExpectTablesEqual(const arrow::Table& got, const arrow::Table& want, const std::string& what) {
  ASSERT_EQ(got.num_rows(), want.num_rows()) << what;
  ASSERT_EQ(got.num_columns(), want.num_columns()) << what;
  for (int c = 0; c < want.num_columns(); ++c) {
    const auto& g = got.column(c);
    const auto& w = want.column(c);
    if (g->Equals(*w)) continue;
    // Report the first differing row.
    for (int64_t r = 0; r < w->length(); ++r) {
      auto gs = g->GetScalar(r).ValueOrDie();
      auto ws = w->GetScalar(r).ValueOrDie();
      if (!gs->Equals(*ws)) {
        ADD_FAILURE() << what << ": column " << want.schema()->field(c)->name() << " row " << r
                      << ": read " << gs->ToString() << ", wrote " << ws->ToString();
        break;
      }
    }
  }
}

const OrcCompression kCodecs[] = {OrcCompression::kNone, OrcCompression::kZlib,
                                  OrcCompression::kSnappy, OrcCompression::kLz4,
                                  OrcCompression::kZstd};

TEST(OrcWriterTest, EveryTypeAndCodecReadsBackInArrowsReaderAndFjords) {
  auto fields = JavaFields();
  Rows rows = RandomRows(fields, 3000, 42);
  auto table = TableOf(fields, rows);
  auto padded = TableOf(fields, PaddedRows(fields, rows));
  auto io = FileIO::Local();
  for (OrcCompression codec : kCodecs) {
    TempDir dir;
    std::string path = dir.Join("f.orc");
    OrcWriterOptions options;
    options.compression = codec;
    options.compression_level = codec == OrcCompression::kZlib ? -1 : 3;
    ASSERT_OK_AND_ASSIGN(int64_t size, WriteOrc(path, fields, *table, options));
    EXPECT_EQ(size, static_cast<int64_t>(std::filesystem::file_size(path)));
    std::string what(OrcCompressionName(codec));
    // ReadDataFile: Arrow's ORC reader (no MAP key is NULL), CHAR values trimmed as Java does.
    ASSERT_OK_AND_ASSIGN(auto arrow_read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
    ExpectTablesEqual(*arrow_read, *table, what + " via Arrow");
    // Fjord's own reader returns CHAR values as stored: padded.
    ASSERT_OK_AND_ASSIGN(auto own, ReadOwn(path, fields));
    ExpectTablesEqual(*own, *padded, what + " via Fjord's reader");
  }
}

TEST(OrcWriterTest, ManyStripesAndBatchSizes) {
  auto fields = JavaFields();
  Rows rows = RandomRows(fields, 5000, 7);
  auto table = TableOf(fields, rows);
  auto padded = TableOf(fields, PaddedRows(fields, rows));
  auto io = FileIO::Local();
  for (int64_t batch_rows : {1, 777, 5000}) {
    TempDir dir;
    std::string path = dir.Join("f.orc");
    OrcWriterOptions options;
    options.stripe_size = 96 << 10;
    options.rows_between_checks = 300;
    options.compression_block_size = 8 << 10;
    ASSERT_OK(WriteOrc(path, fields, *table, options, batch_rows).status());
    ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(FileBytes(path), path));
    EXPECT_GT(tail.stripes.size(), 3u) << batch_rows;
    EXPECT_EQ(tail.rows, 5000u);
    EXPECT_LE(tail.compression_block_size, 8u << 10);
    uint64_t rows_in_stripes = 0;
    for (const auto& s : tail.stripes) rows_in_stripes += s.rows;
    EXPECT_EQ(rows_in_stripes, 5000u);
    ASSERT_OK_AND_ASSIGN(auto arrow_read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
    ExpectTablesEqual(*arrow_read, *table, "batches of " + std::to_string(batch_rows));
    ASSERT_OK_AND_ASSIGN(auto own, ReadOwn(path, fields));
    ExpectTablesEqual(*own, *padded, "own, batches of " + std::to_string(batch_rows));
  }
}

TEST(OrcWriterTest, EmptyFileHasTheSchemaAndNoStripe) {
  TempDir dir;
  auto fields = JavaFields();
  auto table = TableOf(fields, Rows(fields.size()));
  std::string path = dir.Join("e.orc");
  ASSERT_OK(WriteOrc(path, fields, *table, {}).status());
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(FileBytes(path), path));
  EXPECT_EQ(tail.stripes.size(), 0u);
  EXPECT_EQ(tail.rows, 0u);
  EXPECT_EQ(tail.types.size(), 59u);
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
  EXPECT_EQ(read->num_rows(), 0);
  ASSERT_OK_AND_ASSIGN(auto own, ReadOwn(path, fields));
  EXPECT_EQ(own->num_rows(), 0);
}

// The type tree and attributes Java's writer produced for kJavaColumns.
TEST(OrcWriterTest, TypesAndPaimonIdsAreJavas) {
  TempDir dir;
  auto fields = JavaFields();
  auto table = TableOf(fields, RandomRows(fields, 10, 1));
  std::string path = dir.Join("f.orc");
  ASSERT_OK(WriteOrc(path, fields, *table, {}).status());
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(FileBytes(path), path));
  using K = OrcTypeKind;
  struct Want {
    K kind;
    int64_t id;  // -1: no attribute
  };
  std::vector<Want> want = {{K::kStruct, -1},  {K::kInt, 0},     {K::kBoolean, 1}, {K::kByte, 2},
                            {K::kShort, 3},    {K::kLong, 4},    {K::kFloat, 5},   {K::kDouble, 6},
                            {K::kDecimal, 7},  {K::kDecimal, 8}, {K::kDecimal, 9}, {K::kChar, 10},
                            {K::kVarchar, 11}, {K::kString, 12}, {K::kBinary, 13}, {K::kBinary, 14},
                            {K::kDate, 15},    {K::kInt, 16},    {K::kInt, 17}};
  for (int p = 0; p < 10; ++p) want.push_back({K::kTimestamp, 18 + p});
  for (int p = 0; p < 10; ++p) want.push_back({K::kTimestampInstant, 28 + p});
  // A ROW's field is numbered after the fields inside its type (Java's ReassignFieldId): z
  // of r is 47, its w 46.
  std::vector<Want> nested = {
      {K::kList, 38},          {K::kList, 536909824},   {K::kInt, 536909825},  // arr
      {K::kMap, 39},           {K::kString, 536830974}, {K::kStruct, 536910848},
      {K::kInt, 40},           {K::kString, 41},                               // m
      {K::kMap, 42},           {K::kString, 536827902}, {K::kInt, 536913920},  // ms
      {K::kStruct, 43},        {K::kInt, 44},           {K::kList, 45},
      {K::kString, 536916992}, {K::kStruct, 47},        {K::kDouble, 46},        // r
      {K::kMap, 48},           {K::kInt, 536821758},    {K::kLong, 536920064}};  // mk
  want.insert(want.end(), nested.begin(), nested.end());
  ASSERT_EQ(tail.types.size(), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const OrcType& t = tail.types[i];
    EXPECT_EQ(t.kind, want[i].kind) << "type " << i;
    if (want[i].id < 0) {
      EXPECT_TRUE(t.attributes.empty()) << "type " << i;
    } else {
      ASSERT_EQ(t.attributes.size(), 1u) << "type " << i;
      EXPECT_EQ(t.attributes[0].first, "paimon.id");
      EXPECT_EQ(t.attributes[0].second, std::to_string(want[i].id)) << "type " << i;
    }
  }
  EXPECT_EQ(tail.types[8].precision, 5u);
  EXPECT_EQ(tail.types[8].scale, 2u);
  EXPECT_EQ(tail.types[10].precision, 38u);
  EXPECT_EQ(tail.types[11].maximum_length, 5u);
  EXPECT_EQ(tail.types[12].maximum_length, 10u);
  EXPECT_FALSE(tail.types[13].maximum_length.has_value());
  EXPECT_EQ(tail.types[0].field_names.front(), "id");
  EXPECT_EQ(tail.types[44].field_names, (std::vector<std::string>{"a", "b"}));
  EXPECT_EQ(tail.version, (std::vector<uint32_t>{0, 12}));
  EXPECT_EQ(tail.writer_version, 9u);
  EXPECT_EQ(tail.row_index_stride, 0u);
  EXPECT_EQ(tail.compression, OrcCompression::kZstd);
  // Java's buffer size for 59 columns and 64 MiB stripes.
  EXPECT_EQ(tail.compression_block_size, 65536u);
  ASSERT_TRUE(tail.software_version.has_value());
  EXPECT_EQ(tail.software_version->rfind("Fjord ", 0), 0u);
}

// The timestamps of the Java-written file, stored exactly as Java's writer stored them.
TEST(OrcWriterTest, TimestampsAreStoredAsJavaStoresThem) {
  TempDir dir;
  std::vector<DataField> fields = {{0, "ts1", DataType::Timestamp(1)},
                                   {1, "ts9", DataType::Timestamp(9)},
                                   {2, "ltz3", DataType::TimestampLtz(3)}};
  // 1969-12-31T23:59:59.1, 1969-12-31T23:59:58.1, 1900-01-01T00:00:00.1, 1970-01-01T00:00:00.1,
  // 2024-02-29T12:00:00.1 and 1969-12-31T23:59:59.9 (ts1); the same with .123456789 (ts9, the
  // last .999999999) and .123 (ltz3, the last .999).
  const int64_t seconds[] = {-1, -2, -2208988800, 0, 1709208000, -1};
  Rows rows(3);
  for (int i = 0; i < 6; ++i) {
    int64_t s = seconds[i];
    rows[0].push_back(Timestamp{s * 1000 + (i == 5 ? 900 : 100), 0});
    rows[1].push_back(Timestamp{s * 1000 + (i == 5 ? 999 : 123), i == 5 ? 999999 : 456789});
    rows[2].push_back(Timestamp{s * 1000 + (i == 5 ? 999 : 123), 0});
  }
  auto table = TableOf(fields, rows);
  std::string path = dir.Join("ts.orc");
  OrcWriterOptions options;
  options.compression = OrcCompression::kNone;
  ASSERT_OK(WriteOrc(path, fields, *table, options).status());

  std::string bytes = FileBytes(path);
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
  OrcReadAt read_at = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    return bytes.substr(offset, length);
  };
  Decompressor d(tail.compression, tail.compression_block_size);
  ASSERT_OK_AND_ASSIGN(StripeData stripe, ReadStripe(tail, bytes.size(), read_at, 0,
                                                     {true, true, true, true}, &d, path));
  EXPECT_EQ(stripe.writer_timezone, "UTC");
  auto ints = [&](uint32_t column, StreamKind kind, bool is_signed) {
    std::vector<int64_t> out(6);
    const std::string* s = stripe.Stream(column, kind);
    EXPECT_NE(s, nullptr);
    if (s == nullptr) return out;
    EXPECT_OK(MakeIntRleDecoder(*s, RleVersion::kV2, is_signed)->Next(out.data(), 6));
    return out;
  };
  // What the Java-written file holds (decoded with the same decoders).
  const std::vector<int64_t> java_seconds = {-1420070400, -1420070401, -3629059199,
                                             -1420070400, 289137600,   -1420070400};
  EXPECT_EQ(ints(1, StreamKind::kData, true), java_seconds);
  EXPECT_EQ(ints(1, StreamKind::kSecondary, false), (std::vector<int64_t>{15, 15, 15, 15, 15, 79}));
  EXPECT_EQ(ints(2, StreamKind::kData, true), java_seconds);
  EXPECT_EQ(
      ints(2, StreamKind::kSecondary, false),
      (std::vector<int64_t>{987654312, 987654312, 987654312, 987654312, 987654312, 7999999992}));
  EXPECT_EQ(ints(3, StreamKind::kData, true), java_seconds);
  EXPECT_EQ(ints(3, StreamKind::kSecondary, false),
            (std::vector<int64_t>{989, 989, 989, 989, 989, 7997}));
  // Statistics: milliseconds (as the readers return them) and nanoseconds within them.
  const auto& ts9 = std::get<OrcTimestampStats>(tail.stats[2].typed);
  EXPECT_EQ(ts9.minimum_utc, -2208988800000 + 123);
  EXPECT_EQ(ts9.minimum_nanos, 456789 + 1);
  EXPECT_EQ(ts9.maximum_utc, 1709208000123);
}

// Java's writer stores a value in (-1 s, 0) with at least a millisecond of fraction with seconds
// 0 (its epoch milliseconds / 1000, truncated), and every ORC reader, Java's included, reads it
// back one second late. Fjord writes the same, and reads it as Java does.
TEST(OrcWriterTest, TimestampsInTheLastSecondBefore1970ReadBackASecondLate) {
  TempDir dir;
  std::vector<DataField> fields = {{0, "ts", DataType::Timestamp(9)}};
  Rows rows(1);
  rows[0] = {Timestamp{-100, 0},  Timestamp{-1, 999999}, Timestamp{-1, 1},
             Timestamp{-1000, 5}, Timestamp{-1001, 0},   Timestamp{0, 999999}};
  auto table = TableOf(fields, rows);
  std::string path = dir.Join("ts.orc");
  ASSERT_OK(WriteOrc(path, fields, *table, {}).status());
  Rows expected(1);
  // -0.1 s, -0.000000001 s and -0.000999999 s come back 1 s late; -0.999999995 s (5 ns past
  // -1 s, less than a millisecond) and -1.001 s read back as written.
  expected[0] = {Timestamp{900, 0},   Timestamp{999, 999999}, Timestamp{999, 1},
                 Timestamp{-1000, 5}, Timestamp{-1001, 0},    Timestamp{0, 999999}};
  auto want = TableOf(fields, expected);
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto arrow_read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
  ExpectTablesEqual(*arrow_read, *want, "via Arrow");
  ASSERT_OK_AND_ASSIGN(auto own, ReadOwn(path, fields));
  ExpectTablesEqual(*own, *want, "via Fjord's reader");
}

TEST(OrcWriterTest, CharIsPaddedAndVarcharCutAsJavaWrites) {
  TempDir dir;
  std::vector<DataField> fields = {{0, "c", DataType::Char(5)}, {1, "v", DataType::VarChar(3)}};
  Rows rows(2);
  rows[0] = {"ab", "é", "abcde", "", Value(), "ab  "};
  rows[1] = {"abcdef", "ééé", "", "✓✓✓✓", Value(), "a"};
  auto table = TableOf(fields, rows);
  std::string path = dir.Join("c.orc");
  ASSERT_OK(WriteOrc(path, fields, *table, {}).status());
  ASSERT_OK_AND_ASSIGN(auto own, ReadOwn(path, fields));
  Rows stored(2);
  stored[0] = {"ab   ", "é    ", "abcde", "     ", Value(), "ab   "};
  stored[1] = {"abc", "ééé", "", "✓✓✓", Value(), "a"};
  ExpectTablesEqual(*own, *TableOf(fields, stored), "stored");
  // Read as Java reads: trailing blanks of CHAR values removed.
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto read, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
  Rows trimmed(2);
  trimmed[0] = {"ab", "é", "abcde", "", Value(), "ab"};
  trimmed[1] = stored[1];
  ExpectTablesEqual(*read, *TableOf(fields, trimmed), "read");
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(FileBytes(path), path));
  const auto& c = std::get<OrcStringStats>(tail.stats[1].typed);
  EXPECT_EQ(c.minimum, "     ");
  EXPECT_EQ(c.maximum, "é    ");
  EXPECT_EQ(c.sum, 5 * 5 + 1);
}

TEST(OrcWriterTest, FooterStatistics) {
  TempDir dir;
  auto fields = ParseColumnList(
                    "i INT, b BOOLEAN, d DOUBLE, s STRING, bin BYTES, dec DECIMAL(10, 2), "
                    "day DATE, ts TIMESTAMP(6), l ARRAY<INT>, r ROW<x INT>, n INT")
                    .value();
  Rows rows(fields.size());
  rows[0] = {int32_t{5}, Value(), int32_t{-3}, int32_t{10}};
  rows[1] = {true, false, true, Value()};
  rows[2] = {1.5, -2.25, Value(), 8.0};
  rows[3] = {"b", "a", std::string(2000, 'z'), Value()};
  rows[4] = {"ab", Value(), "", "xyz"};
  rows[5] = {Decimal{150, 10, 2}, Decimal{-1, 10, 2}, Value(), Decimal{100000, 10, 2}};
  rows[6] = {int32_t{-1}, int32_t{19000}, Value(), int32_t{0}};
  rows[7] = {Timestamp{-1500, 123000}, Timestamp{1000, 0}, Value(), Timestamp{5, 999000}};
  rows[8] = {Value::List({int32_t{1}, int32_t{2}}), Value(), Value::List({}),
             Value::List({int32_t{3}})};
  rows[9] = {Value::List({int32_t{1}}), Value(), Value::List({Value()}), Value::List({int32_t{2}})};
  rows[10] = {Value(), Value(), Value(), Value()};
  auto table = TableOf(fields, rows);
  std::string path = dir.Join("s.orc");
  ASSERT_OK(WriteOrc(path, fields, *table, {}).status());
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(FileBytes(path), path));
  ASSERT_EQ(tail.stats.size(), tail.types.size());
  auto count = [&](size_t id) { return tail.stats[id].number_of_values.value_or(999); };
  auto has_null = [&](size_t id) { return tail.stats[id].has_null.value_or(true); };
  EXPECT_EQ(count(0), 4u);
  EXPECT_FALSE(has_null(0));
  const auto& i = std::get<OrcIntegerStats>(tail.stats[1].typed);
  EXPECT_EQ(count(1), 3u);
  EXPECT_TRUE(has_null(1));
  EXPECT_EQ(i.minimum, -3);
  EXPECT_EQ(i.maximum, 10);
  EXPECT_EQ(i.sum, 12);
  const auto& d = std::get<OrcDoubleStats>(tail.stats[3].typed);
  EXPECT_EQ(d.minimum, -2.25);
  EXPECT_EQ(d.maximum, 8.0);
  EXPECT_EQ(d.sum, 7.25);
  const auto& s = std::get<OrcStringStats>(tail.stats[4].typed);
  EXPECT_EQ(s.minimum, "a");
  EXPECT_FALSE(s.maximum.has_value());  // 2000 bytes: not kept
  EXPECT_EQ(s.sum, 2002);
  const auto& dec = std::get<OrcDecimalStats>(tail.stats[6].typed);
  EXPECT_EQ(dec.minimum, "-0.01");
  EXPECT_EQ(dec.maximum, "1000");
  EXPECT_EQ(dec.sum, "1001.49");
  const auto& day = std::get<OrcDateStats>(tail.stats[7].typed);
  EXPECT_EQ(day.minimum, -1);
  EXPECT_EQ(day.maximum, 19000);
  const auto& ts = std::get<OrcTimestampStats>(tail.stats[8].typed);
  EXPECT_EQ(ts.minimum_utc, -1500);
  EXPECT_EQ(ts.minimum_nanos, 123001);
  EXPECT_EQ(ts.maximum_utc, 1000);
  EXPECT_EQ(ts.maximum_nanos, 1);
  EXPECT_EQ(count(9), 3u);   // the list
  EXPECT_EQ(count(10), 3u);  // its elements
  EXPECT_EQ(count(11), 3u);  // the row
  EXPECT_EQ(count(12), 2u);  // its field, under non-NULL rows only
  EXPECT_TRUE(has_null(12));
  EXPECT_EQ(count(13), 0u);
  EXPECT_TRUE(has_null(13));
  EXPECT_FALSE(std::holds_alternative<OrcIntegerStats>(tail.stats[13].typed));
  EXPECT_FALSE(HasMapWithNullKeys(tail, 0));
}

TEST(OrcWriterTest, RejectsBatchesOfTheWrongShape) {
  TempDir dir;
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto out, io->OpenOutput(dir.Join("x.orc")));
  std::vector<DataField> fields = {{0, "a", DataType::Int()}};
  ASSERT_OK_AND_ASSIGN(auto writer, OrcWriter::Open(out, fields));
  auto wrong = arrow::RecordBatch::Make(arrow::schema({arrow::field("a", arrow::int64())}), 0,
                                        {arrow::MakeEmptyArray(arrow::int64()).ValueOrDie()});
  EXPECT_THAT(writer->Write(*wrong), IsError(StatusCode::kInvalid, "column 'a' is int64"));
  EXPECT_THAT(OrcCompressionFor("brotli"), IsError(StatusCode::kNotImplemented, "brotli"));
  ASSERT_OK(writer->Finish().status());
  EXPECT_THAT(writer->Finish(), IsError(StatusCode::kInvalid, "finished"));
}

}  // namespace
}  // namespace fjord::orc
