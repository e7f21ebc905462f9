// Fjord's ORC reader against Arrow's (the path ReadDataFile takes for files without NULL map
// keys): Arrow-written files of every type Paimon writes, with each compression kind, both RLE
// versions (file versions 0.11 and 0.12) and direct and dictionary strings; and every ORC file
// among the Java fixtures (data files and ORC manifests).
#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "fjord/file_io.h"
#include "fjord/format/data_file_reader.h"
#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"
#include "fjord/testing/test_util.h"

namespace fjord::orc {
namespace {

namespace fs = std::filesystem;

struct TestColumn {
  DataField field;
  std::shared_ptr<arrow::Array> data;
};

template <typename Builder, typename Gen>
std::shared_ptr<arrow::Array> Build(Builder&& b, int64_t n, std::mt19937_64& rng, int null_pct,
                                    Gen&& gen) {
  for (int64_t i = 0; i < n; ++i) {
    if (static_cast<int>(rng() % 100) < null_pct) {
      EXPECT_TRUE(b.AppendNull().ok());
    } else {
      gen(b, i);
    }
  }
  std::shared_ptr<arrow::Array> out;
  EXPECT_TRUE(b.Finish(&out).ok());
  return out;
}

// Integers shaped to exercise every RLE v2 sub-encoding: random (direct), monotonic (delta),
// short runs (short repeat), small values with rare outliers (patched base).
int64_t Shaped(int64_t i, std::mt19937_64& rng) {
  switch ((i / 300) % 5) {
    case 0:
      return static_cast<int64_t>(rng());
    case 1:
      return 1000 + 7 * i;
    case 2:
      return (i / 6) * 13 - 500;
    case 3:
      return rng() % 33 == 0 ? (int64_t{1} << 40) + i : static_cast<int64_t>(rng() % 100);
    default:
      return 5000000 - 3 * i;
  }
}

arrow::Decimal128 RandomDecimal(std::mt19937_64& rng, int digits) {
  arrow::Decimal128 v(0);
  for (int d = 0; d < digits; ++d) v = v * arrow::Decimal128(10) + arrow::Decimal128(rng() % 10);
  return rng() % 2 ? v : v.Negate();
}

std::vector<TestColumn> MakeColumns(int64_t n, uint64_t seed) {
  std::mt19937_64 rng(seed);
  auto pool = arrow::default_memory_pool();
  std::vector<TestColumn> cols;
  auto add = [&](const std::string& name, DataTypePtr type, std::shared_ptr<arrow::Array> data) {
    cols.push_back({DataField{static_cast<int32_t>(cols.size()), name, type, {}, {}}, data});
  };
  std::vector<std::string> vocab = {"", "a", "paimon", "fjord", "ünïcödé", "x y z"};
  auto word = [&](int64_t i) {
    return rng() % 2 ? vocab[rng() % vocab.size()] : "w" + std::to_string(i * 7919 % 1000);
  };
  add("b", DataType::Boolean(), Build(arrow::BooleanBuilder(), n, rng, 10, [&](auto& b, int64_t i) {
        (void)b.Append(i % 7 < 3 || rng() % 5 == 0);
      }));
  add("i8", DataType::TinyInt(), Build(arrow::Int8Builder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(static_cast<int8_t>(i % 50 < 20 ? 7 : static_cast<int64_t>(rng())));
      }));
  add("i16", DataType::SmallInt(), Build(arrow::Int16Builder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(static_cast<int16_t>(Shaped(i, rng)));
      }));
  add("i32", DataType::Int(), Build(arrow::Int32Builder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(static_cast<int32_t>(Shaped(i, rng)));
      }));
  add("i64", DataType::BigInt(), Build(arrow::Int64Builder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(i == 0 ? INT64_MIN : i == 1 ? INT64_MAX : Shaped(i, rng));
      }));
  add("f32", DataType::Float(), Build(arrow::FloatBuilder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(i % 100 == 0   ? std::numeric_limits<float>::quiet_NaN()
                       : i % 100 == 1 ? -0.0f
                                      : static_cast<float>(static_cast<int64_t>(rng())) / 7.0f);
      }));
  add("f64", DataType::Double(), Build(arrow::DoubleBuilder(), n, rng, 5, [&](auto& b, int64_t i) {
        (void)b.Append(i % 100 == 0 ? -std::numeric_limits<double>::infinity()
                                    : static_cast<double>(static_cast<int64_t>(rng())) / 3.0);
      }));
  add("dec10", DataType::Decimal(10, 2),
      Build(arrow::Decimal128Builder(arrow::decimal128(10, 2)), n, rng, 5,
            [&](auto& b, int64_t) { (void)b.Append(RandomDecimal(rng, 1 + rng() % 10)); }));
  add("dec38", DataType::Decimal(38, 10),
      Build(arrow::Decimal128Builder(arrow::decimal128(38, 10)), n, rng, 5,
            [&](auto& b, int64_t) { (void)b.Append(RandomDecimal(rng, 1 + rng() % 38)); }));
  add("s", DataType::String(), Build(arrow::StringBuilder(), n, rng, 8, [&](auto& b, int64_t i) {
        (void)b.Append(word(i));
      }));
  add("c", DataType::Char(6), Build(arrow::StringBuilder(), n, rng, 8, [&](auto& b, int64_t i) {
        (void)b.Append(std::to_string(i % 9));
      }));
  add("bin", DataType::Bytes(), Build(arrow::BinaryBuilder(), n, rng, 8, [&](auto& b, int64_t) {
        std::string s(rng() % 20, '\0');
        for (char& ch : s) ch = static_cast<char>(rng());
        (void)b.Append(s);
      }));
  add("d", DataType::Date(), Build(arrow::Date32Builder(), n, rng, 5, [&](auto& b, int64_t) {
        (void)b.Append(static_cast<int32_t>(static_cast<int64_t>(rng() % 200000) - 100000));
      }));
  add("t", DataType::Time(3), Build(arrow::Int32Builder(), n, rng, 5, [&](auto& b, int64_t) {
        (void)b.Append(static_cast<int32_t>(rng() % 86400000));
      }));
  auto ts = [&](arrow::TimeUnit::type unit, const std::string& tz, int64_t range) {
    return Build(
        arrow::TimestampBuilder(arrow::timestamp(unit, tz), pool), n, rng, 5,
        [&](auto& b, int64_t i) {
          (void)b.Append(i % 10 == 0 ? -(i + 1) : static_cast<int64_t>(rng() % range) - range / 2);
        });
  };
  add("ts3", DataType::Timestamp(3), ts(arrow::TimeUnit::MILLI, "", int64_t{6} << 40));
  add("ts6", DataType::Timestamp(6), ts(arrow::TimeUnit::MICRO, "", int64_t{6} << 50));
  add("ts9", DataType::Timestamp(9), ts(arrow::TimeUnit::NANO, "", int64_t{6} << 60));
  add("ltz", DataType::TimestampLtz(6), ts(arrow::TimeUnit::MICRO, "UTC", int64_t{6} << 50));

  auto list_builder =
      std::make_shared<arrow::ListBuilder>(pool, std::make_shared<arrow::Int32Builder>());
  add("list", DataType::Array(DataType::Int()),
      Build(*list_builder, n, rng, 10, [&](auto& b, int64_t) {
        (void)b.Append();
        auto* v = static_cast<arrow::Int32Builder*>(b.value_builder());
        for (uint64_t k = rng() % 5; k > 0; --k) {
          (void)(rng() % 6 == 0 ? v->AppendNull() : v->Append(static_cast<int32_t>(rng() % 1000)));
        }
      }));
  arrow::MapBuilder map_builder(pool, std::make_shared<arrow::StringBuilder>(),
                                std::make_shared<arrow::Int64Builder>());
  add("map", DataType::Map(DataType::String(false), DataType::BigInt()),
      Build(map_builder, n, rng, 10, [&](auto& b, int64_t i) {
        (void)b.Append();
        for (uint64_t k = rng() % 4; k > 0; --k) {
          (void)static_cast<arrow::StringBuilder*>(b.key_builder())->Append(word(i));
          auto* v = static_cast<arrow::Int64Builder*>(b.item_builder());
          (void)(rng() % 5 == 0 ? v->AppendNull() : v->Append(Shaped(i, rng)));
        }
      }));
  auto row_type =
      arrow::struct_({arrow::field("a", arrow::int32()), arrow::field("b", arrow::utf8()),
                      arrow::field("c", arrow::list(arrow::float64()))});
  std::unique_ptr<arrow::ArrayBuilder> row_builder;
  EXPECT_TRUE(arrow::MakeBuilder(pool, row_type, &row_builder).ok());
  auto* rb = static_cast<arrow::StructBuilder*>(row_builder.get());
  add("row",
      DataType::Row({{10, "a", DataType::Int(), {}, {}},
                     {11, "b", DataType::String(), {}, {}},
                     {12, "c", DataType::Array(DataType::Double()), {}, {}}}),
      Build(*rb, n, rng, 10, [&](auto& b, int64_t i) {
        (void)b.Append();
        auto* a = static_cast<arrow::Int32Builder*>(b.field_builder(0));
        (void)(i % 4 == 0 ? a->AppendNull() : a->Append(static_cast<int32_t>(i)));
        (void)static_cast<arrow::StringBuilder*>(b.field_builder(1))->Append(word(i));
        auto* c = static_cast<arrow::ListBuilder*>(b.field_builder(2));
        (void)c->Append();
        for (uint64_t k = rng() % 3; k > 0; --k) {
          (void)static_cast<arrow::DoubleBuilder*>(c->value_builder())->Append(0.5 * k);
        }
      }));
  auto nested_type =
      arrow::list(arrow::struct_({arrow::field("k", arrow::utf8()),
                                  arrow::field("m", arrow::map(arrow::int32(), arrow::utf8()))}));
  std::unique_ptr<arrow::ArrayBuilder> nested_builder;
  EXPECT_TRUE(arrow::MakeBuilder(pool, nested_type, &nested_builder).ok());
  add("nested",
      DataType::Array(DataType::Row(
          {{20, "k", DataType::String(), {}, {}},
           {21, "m", DataType::Map(DataType::Int(false), DataType::String()), {}, {}}})),
      Build(static_cast<arrow::ListBuilder&>(*nested_builder), n, rng, 10, [&](auto& b, int64_t i) {
        (void)b.Append();
        auto* st = static_cast<arrow::StructBuilder*>(b.value_builder());
        for (uint64_t k = rng() % 3; k > 0; --k) {
          if (rng() % 5 == 0) {
            (void)st->AppendNull();
            (void)st->field_builder(0)->AppendNull();
            (void)st->field_builder(1)->AppendNull();
            continue;
          }
          (void)st->Append();
          (void)static_cast<arrow::StringBuilder*>(st->field_builder(0))->Append(word(i));
          auto* m = static_cast<arrow::MapBuilder*>(st->field_builder(1));
          (void)m->Append();
          (void)static_cast<arrow::Int32Builder*>(m->key_builder())
              ->Append(static_cast<int32_t>(k));
          (void)static_cast<arrow::StringBuilder*>(m->item_builder())->Append(word(i + 1));
        }
      }));
  return cols;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Our reader's table of `bytes` equals ReadDataFile's through Arrow, column by column.
void ExpectSameAsArrow(const std::string& bytes, const std::string& path,
                       const std::vector<DataField>& fields, size_t* stripes = nullptr) {
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
  if (stripes != nullptr) *stripes = tail.stripes.size();
  OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
    return bytes.substr(o, n);
  };
  ASSERT_OK_AND_ASSIGN(auto mine, ReadOrcFile(tail, bytes.size(), read_at, path, fields));
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(auto arrows, ReadDataFile(io.get(), path, FileFormat::kOrc, fields));
  ASSERT_EQ(mine->num_rows(), arrows->num_rows());
  ASSERT_TRUE(mine->ValidateFull().ok()) << mine->ValidateFull().ToString();
  for (int c = 0; c < mine->num_columns(); ++c) {
    SCOPED_TRACE(fields[static_cast<size_t>(c)].name);
    EXPECT_EQ(mine->column(c)->num_chunks(),
              static_cast<int>(std::max<size_t>(tail.stripes.size(), 1)));
    ASSERT_TRUE(mine->schema()->field(c)->Equals(*arrows->schema()->field(c)))
        << mine->schema()->field(c)->ToString() << " vs " << arrows->schema()->field(c)->ToString();
    auto a = arrow::Concatenate(mine->column(c)->chunks());
    auto b = arrow::Concatenate(arrows->column(c)->chunks());
    ASSERT_TRUE(a.ok() && b.ok());
    EXPECT_TRUE((*a)->Equals(**b, arrow::EqualOptions::Defaults().nans_equal(true)))
        << (*a)->Diff(**b);
  }
}

TEST(OrcReaderTest, MatchesArrowForEveryTypeCodecAndEncoding) {
  std::vector<TestColumn> cols = MakeColumns(12000, 42);
  arrow::FieldVector fields;
  arrow::ArrayVector arrays;
  std::vector<DataField> paimon;
  for (const TestColumn& c : cols) {
    fields.push_back(arrow::field(c.field.name, c.data->type()));
    arrays.push_back(c.data);
    paimon.push_back(c.field);
  }
  auto table = arrow::Table::Make(arrow::schema(fields), arrays);
  fjord::testing::TempDir dir;
  using arrow::Compression;
  std::map<Compression::type, OrcCompression> codecs = {
      {Compression::UNCOMPRESSED, OrcCompression::kNone},
      {Compression::GZIP, OrcCompression::kZlib},
      {Compression::SNAPPY, OrcCompression::kSnappy},
      {Compression::LZ4, OrcCompression::kLz4},
      {Compression::ZSTD, OrcCompression::kZstd}};
  for (const auto& [codec, orc_codec] : codecs) {
    for (int minor : {11, 12}) {
      for (double dictionary : {0.0, 1.0}) {
        SCOPED_TRACE(std::string(OrcCompressionName(orc_codec)) + " 0." + std::to_string(minor) +
                     (dictionary > 0 ? " dictionary" : " direct"));
        arrow::adapters::orc::WriteOptions options;
        options.compression = codec;
        options.file_version = arrow::adapters::orc::FileVersion(0, minor);
        options.dictionary_key_size_threshold = dictionary;
        options.batch_size = 500;
        options.stripe_size = 256 * 1024;
        options.compression_block_size = 64 * 1024;
        auto sink = arrow::io::BufferOutputStream::Create();
        ASSERT_TRUE(sink.ok());
        auto writer = arrow::adapters::orc::ORCFileWriter::Open(sink->get(), options);
        ASSERT_TRUE(writer.ok()) << writer.status().ToString();
        auto written = (*writer)->Write(*table);
        ASSERT_TRUE(written.ok()) << written.ToString();
        ASSERT_TRUE((*writer)->Close().ok());
        auto buffer = (*sink)->Finish();
        ASSERT_TRUE(buffer.ok());
        std::string bytes = (*buffer)->ToString();
        std::string path = dir.Join("all.orc");
        std::ofstream(path, std::ios::binary) << bytes;
        ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
        EXPECT_EQ(tail.compression, orc_codec);
        size_t stripes = 0;
        ExpectSameAsArrow(bytes, path, paimon, &stripes);
        EXPECT_GT(stripes, 1u);
        // A projection in another order.
        ExpectSameAsArrow(bytes, path, {paimon[20], paimon[4], paimon[17]});
      }
    }
  }
}

// Paimon's types for the ORC type tree below `id` (the widest timestamp precision).
DataTypePtr PaimonTypeOf(const OrcTail& tail, uint32_t id) {
  const OrcType& t = tail.types[id];
  switch (t.kind) {
    case OrcTypeKind::kBoolean:
      return DataType::Boolean();
    case OrcTypeKind::kByte:
      return DataType::TinyInt();
    case OrcTypeKind::kShort:
      return DataType::SmallInt();
    case OrcTypeKind::kInt:
      return DataType::Int();
    case OrcTypeKind::kLong:
      return DataType::BigInt();
    case OrcTypeKind::kFloat:
      return DataType::Float();
    case OrcTypeKind::kDouble:
      return DataType::Double();
    case OrcTypeKind::kBinary:
      return DataType::Bytes();
    case OrcTypeKind::kDate:
      return DataType::Date();
    case OrcTypeKind::kTimestamp:
      return DataType::Timestamp(9);
    case OrcTypeKind::kTimestampInstant:
      return DataType::TimestampLtz(9);
    case OrcTypeKind::kDecimal:
      return DataType::Decimal(static_cast<int32_t>(t.precision.value_or(38)),
                               static_cast<int32_t>(t.scale.value_or(10)));
    case OrcTypeKind::kList:
      return DataType::Array(PaimonTypeOf(tail, t.subtypes[0]));
    case OrcTypeKind::kMap:
      return DataType::Map(PaimonTypeOf(tail, t.subtypes[0]), PaimonTypeOf(tail, t.subtypes[1]));
    case OrcTypeKind::kStruct: {
      std::vector<DataField> fields;
      for (size_t i = 0; i < t.subtypes.size(); ++i) {
        fields.push_back(
            {static_cast<int32_t>(i), t.field_names[i], PaimonTypeOf(tail, t.subtypes[i]), {}, {}});
      }
      return DataType::Row(fields);
    }
    default:
      return DataType::String();
  }
}

TEST(OrcReaderTest, MatchesArrowOnJavaFixtures) {
  int files = 0, beyond_nanos = 0;
  for (const auto& entry :
       fs::recursive_directory_iterator(fs::path(fjord::testing::FixturesDir()) / "paimon-java")) {
    if (!entry.is_regular_file()) continue;
    std::string path = entry.path().string();
    std::string bytes = ReadBytes(path);
    if (bytes.rfind("ORC", 0) != 0) continue;
    SCOPED_TRACE(path);
    ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
    if (!CheckArrowCanReadOrc(tail, {}, path).ok()) continue;  // Arrow would abort
    std::vector<DataField> fields = PaimonTypeOf(tail, 0)->fields();
    // The tail has no TIMESTAMP precision, so these are read in nanoseconds, as Arrow reads
    // them: a file with instants outside 1677-2262 (9999-12-31 in a Paimon TIMESTAMP(3)) has no
    // such reading to compare (Fjord reads it at the table's precision: compat.java_read).
    OrcReadAt read_at = [&](uint64_t o, uint64_t n) -> Result<std::string> {
      return bytes.substr(o, n);
    };
    auto nanos = ReadOrcFile(tail, bytes.size(), read_at, path, fields);
    if (!nanos.ok() &&
        nanos.status().message().find("out of range for timestamp[ns]") != std::string::npos) {
      ++beyond_nanos;
      continue;
    }
    ExpectSameAsArrow(bytes, path, fields);
    ++files;
  }
  EXPECT_GE(files, 100);
  EXPECT_LE(beyond_nanos, 1);  // orc/append_with_multiple_ts_precision_and_timezone
}

}  // namespace
}  // namespace fjord::orc
