#include "fjord/format/orc/orc_tail.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <arrow/io/memory.h>
#include <arrow/json/from_string.h>
#include <lz4.h>
#include <snappy.h>
#include <zlib.h>
#include <zstd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>

#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Every ORC file among the Java fixtures: data files and the ORC manifests (no extension) of
// tables with manifest.format=orc, recognised by the "ORC" magic at the start.
std::vector<std::string> OrcFixtures() {
  std::vector<std::string> out;
  fs::path root = fs::path(testing::FixturesDir()) / "paimon-java";
  for (const auto& entry : fs::recursive_directory_iterator(root)) {
    if (!entry.is_regular_file()) continue;
    std::ifstream in(entry.path(), std::ios::binary);
    char magic[3] = {};
    if (in.read(magic, 3) && std::string_view(magic, 3) == "ORC") {
      out.push_back(entry.path().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool IsNullableMapKeyDataFile(const std::string& path) {
  return path.find("nullable_map_key.db") != std::string::npos &&
         path.find("/bucket-0/") != std::string::npos;
}

// --- A minimal protobuf writer for hand-made tails ----------------------------------------------

void PutVarint(std::string* out, uint64_t v) {
  while (v >= 0x80) {
    out->push_back(static_cast<char>((v & 0x7f) | 0x80));
    v >>= 7;
  }
  out->push_back(static_cast<char>(v));
}

class Pb {
 public:
  Pb& Varint(uint32_t field, uint64_t v) {
    PutVarint(&out_, uint64_t{field} << 3);
    PutVarint(&out_, v);
    return *this;
  }
  Pb& Bytes(uint32_t field, std::string_view b) {
    PutVarint(&out_, (uint64_t{field} << 3) | 2);
    PutVarint(&out_, b.size());
    out_.append(b);
    return *this;
  }
  Pb& Fixed64(uint32_t field, uint64_t v) {
    PutVarint(&out_, (uint64_t{field} << 3) | 1);
    for (int i = 0; i < 8; ++i) out_.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  Pb& Fixed32(uint32_t field, uint32_t v) {
    PutVarint(&out_, (uint64_t{field} << 3) | 5);
    for (int i = 0; i < 4; ++i) out_.push_back(static_cast<char>(v >> (8 * i)));
    return *this;
  }
  Pb& Packed(uint32_t field, const std::vector<uint64_t>& values) {
    std::string packed;
    for (uint64_t v : values) PutVarint(&packed, v);
    return Bytes(field, packed);
  }
  const std::string& str() const { return out_; }

 private:
  std::string out_;
};

std::string TypeMsg(OrcTypeKind kind, const std::vector<uint64_t>& subtypes = {},
                    const std::vector<std::string>& names = {}, bool packed = true) {
  Pb t;
  t.Varint(1, static_cast<uint64_t>(kind));
  if (packed && !subtypes.empty()) t.Packed(2, subtypes);
  if (!packed) {
    for (uint64_t s : subtypes) t.Varint(2, s);
  }
  for (const auto& n : names) t.Bytes(3, n);
  return t.str();
}

std::string StatsMsg(std::optional<uint64_t> values, std::optional<bool> has_null) {
  Pb s;
  if (values) s.Varint(1, *values);
  if (has_null) s.Varint(10, *has_null ? 1 : 0);
  return s.str();
}

// struct<id:int, attrs:map<string,int>>, with `key_has_null` as the key column's hasNull.
std::string MapFooter(std::optional<bool> key_has_null, uint64_t rows = 3, bool with_stats = true) {
  Pb f;
  f.Varint(1, 3).Varint(2, 100);
  f.Bytes(3, Pb().Varint(1, 3).Varint(5, 3).str());  // one stripe
  f.Bytes(4, TypeMsg(OrcTypeKind::kStruct, {1, 2}, {"id", "attrs"}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kInt));
  f.Bytes(4, TypeMsg(OrcTypeKind::kMap, {3, 4}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kString));
  f.Bytes(4, TypeMsg(OrcTypeKind::kInt));
  f.Varint(6, rows);
  if (with_stats) {
    f.Bytes(7, StatsMsg(rows, false));
    f.Bytes(7, StatsMsg(rows, false));
    f.Bytes(7, StatsMsg(rows, false));
    f.Bytes(7, StatsMsg(rows, key_has_null));
    f.Bytes(7, StatsMsg(rows, true));
  }
  f.Varint(8, 10000);
  return f.str();
}

// Frames `raw` in ORC compression chunks of at most `chunk` input bytes.
std::string Frame(OrcCompression codec, std::string_view raw, size_t chunk, bool original = false) {
  std::string out;
  while (!raw.empty()) {
    std::string_view piece = raw.substr(0, chunk);
    raw.remove_prefix(piece.size());
    std::string body;
    switch (original ? OrcCompression::kNone : codec) {
      case OrcCompression::kZlib: {
        z_stream s{};
        deflateInit2(&s, 6, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
        body.resize(deflateBound(&s, piece.size()));
        s.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(piece.data()));
        s.avail_in = static_cast<uInt>(piece.size());
        s.next_out = reinterpret_cast<Bytef*>(body.data());
        s.avail_out = static_cast<uInt>(body.size());
        deflate(&s, Z_FINISH);
        body.resize(s.total_out);
        deflateEnd(&s);
        break;
      }
      case OrcCompression::kSnappy: {
        size_t n = 0;
        body.resize(snappy::MaxCompressedLength(piece.size()));
        snappy::RawCompress(piece.data(), piece.size(), body.data(), &n);
        body.resize(n);
        break;
      }
      case OrcCompression::kLz4: {
        body.resize(LZ4_compressBound(static_cast<int>(piece.size())));
        int n = LZ4_compress_default(piece.data(), body.data(), static_cast<int>(piece.size()),
                                     static_cast<int>(body.size()));
        body.resize(static_cast<size_t>(n));
        break;
      }
      case OrcCompression::kZstd: {
        body.resize(ZSTD_compressBound(piece.size()));
        body.resize(ZSTD_compress(body.data(), body.size(), piece.data(), piece.size(), 3));
        break;
      }
      default:
        body.assign(piece);
        original = true;
        break;
    }
    uint32_t header = static_cast<uint32_t>(body.size() << 1) | (original ? 1 : 0);
    out.push_back(static_cast<char>(header));
    out.push_back(static_cast<char>(header >> 8));
    out.push_back(static_cast<char>(header >> 16));
    out += body;
  }
  return out;
}

struct FileSpec {
  OrcCompression codec = OrcCompression::kNone;
  std::optional<uint64_t> block_size = 256 << 10;
  size_t chunk = 1 << 20;  // input bytes per compression chunk
  bool original_chunks = false;
  bool magic = true;
  std::string header = "ORC";
  std::string metadata = "meta";
};

// A whole ORC file around `footer` (stripes are filler bytes).
std::string MakeFile(const std::string& footer, const FileSpec& spec = {}) {
  std::string framed = spec.codec == OrcCompression::kNone
                           ? footer
                           : Frame(spec.codec, footer, spec.chunk, spec.original_chunks);
  Pb ps;
  ps.Varint(1, framed.size()).Varint(2, static_cast<uint64_t>(spec.codec));
  if (spec.block_size) ps.Varint(3, *spec.block_size);
  ps.Packed(4, {0, 12}).Varint(5, spec.metadata.size()).Varint(6, 9);
  if (spec.magic) ps.Bytes(8000, "ORC");
  std::string file = spec.header + "stripe-bytes" + spec.metadata + framed + ps.str();
  file.push_back(static_cast<char>(ps.str().size()));
  return file;
}

MATCHER(IsCorruptionNamingSource, "") {
  Status st = StatusOf(arg);
  *result_listener << "status is " << st.ToString();
  return st.IsCorruption() && st.message().rfind("src.orc: ", 0) == 0;
}

// --- Java fixtures ------------------------------------------------------------------------------

TEST(OrcTailTest, JavaFixturesMatchArrow) {
  std::vector<std::string> files = OrcFixtures();
  ASSERT_GE(files.size(), 100u);
  int manifests = 0;
  int flagged = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::string bytes = ReadBytes(path);
    ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, path));
    if (path.size() < 4 || path.substr(path.size() - 4) != ".orc") ++manifests;

    // Same answer reading only the tail through Arrow's file interface.
    auto file = arrow::io::ReadableFile::Open(path);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    ASSERT_OK_AND_ASSIGN(OrcTail tail2, ReadOrcTail(file->get(), path));
    EXPECT_EQ(tail2.rows, tail.rows);
    EXPECT_EQ(tail2.types.size(), tail.types.size());
    EXPECT_EQ(tail2.stats.size(), tail.stats.size());

    auto reader = arrow::adapters::orc::ORCFileReader::Open(*file, arrow::default_memory_pool());
    ASSERT_TRUE(reader.ok()) << reader.status().ToString();
    EXPECT_EQ(static_cast<int64_t>(tail.rows), (*reader)->NumberOfRows());
    auto schema = (*reader)->ReadSchema();
    ASSERT_TRUE(schema.ok()) << schema.status().ToString();
    ASSERT_EQ(tail.types[0].kind, OrcTypeKind::kStruct);
    EXPECT_EQ(tail.types[0].field_names, (*schema)->field_names());
    EXPECT_EQ(tail.stats.size(), tail.types.size());
    EXPECT_EQ(tail.compression, OrcCompression::kZstd);  // Paimon's default for ORC
    EXPECT_EQ(tail.stats[0].number_of_values, tail.rows);

    std::vector<std::string> with_null_keys = MapColumnsWithNullKeys(tail);
    if (IsNullableMapKeyDataFile(path)) {
      ++flagged;
      EXPECT_EQ(with_null_keys, std::vector<std::string>{"attrs"});
      EXPECT_THAT(CheckArrowCanReadOrc(tail, {}, path),
                  IsError(StatusCode::kNotImplemented,
                          "column 'attrs' is a MAP with NULL keys, which Arrow's ORC reader "
                          "cannot represent"));
      EXPECT_OK(CheckArrowCanReadOrc(tail, {"id"}, path));
    } else {
      EXPECT_TRUE(with_null_keys.empty());
      EXPECT_OK(CheckArrowCanReadOrc(tail, {}, path));
    }
  }
  EXPECT_EQ(flagged, 1);
  EXPECT_GT(manifests, 0);
}

TEST(OrcTailTest, NullableMapKeyFixtureDetails) {
  std::string path;
  for (const std::string& f : OrcFixtures()) {
    if (IsNullableMapKeyDataFile(f)) path = f;
  }
  ASSERT_FALSE(path.empty());
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(ReadBytes(path), path));
  ASSERT_EQ(tail.types.size(), 5u);
  EXPECT_EQ(tail.types[0].field_names, (std::vector<std::string>{"id", "attrs"}));
  EXPECT_EQ(tail.types[1].kind, OrcTypeKind::kInt);
  EXPECT_EQ(tail.types[2].kind, OrcTypeKind::kMap);
  EXPECT_EQ(tail.types[2].subtypes, (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(tail.types[3].kind, OrcTypeKind::kString);
  ASSERT_EQ(tail.stats.size(), 5u);
  EXPECT_EQ(tail.stats[3].has_null, true);
  EXPECT_EQ(tail.version, (std::vector<uint32_t>{0, 12}));
  EXPECT_EQ(tail.writer, 0u);  // ORC Java
  // Java records the Paimon field ids as type attributes.
  bool has_attribute = false;
  for (const OrcType& t : tail.types) has_attribute |= !t.attributes.empty();
  EXPECT_TRUE(has_attribute);
}

// --- Files written by Arrow's ORC writer, with every codec ---------------------------------------

std::shared_ptr<arrow::Table> SampleTable() {
  auto map_type = arrow::map(arrow::utf8(), arrow::int32());
  auto nested_type = arrow::struct_({arrow::field("ls", arrow::list(map_type))});
  auto schema = arrow::schema({
      arrow::field("i", arrow::int64()),
      arrow::field("d", arrow::float64()),
      arrow::field("s", arrow::utf8()),
      arrow::field("dt", arrow::date32()),
      arrow::field("dec", arrow::decimal128(10, 2)),
      arrow::field("ts", arrow::timestamp(arrow::TimeUnit::MILLI)),
      arrow::field("m", map_type),
      arrow::field("nested", nested_type),
  });
  std::vector<std::string> json = {
      "[1, -5, null, 42]",
      "[1.5, -2.25, null, 3]",
      R"(["b", "a", null, "zz"])",
      "[0, 10, null, -3]",
      R"(["1.50", "-12.25", null, "3.00"])",
      "[1000, 2000, null, 0]",
      R"([[["k", 1]], null, [], [["x", 2], ["y", null]]])",
      R"([{"ls": [[["a", 1]], null]}, null, {"ls": null}, {"ls": [[]]}])",
  };
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int i = 0; i < schema->num_fields(); ++i) {
    auto array = arrow::json::ArrayFromJSONString(schema->field(i)->type(), json[i]);
    EXPECT_TRUE(array.ok()) << array.status().ToString();
    if (!array.ok()) return nullptr;
    columns.push_back(*array);
  }
  return arrow::Table::Make(schema, columns);
}

std::string WriteWithArrow(const arrow::Table& table, arrow::Compression::type codec) {
  auto out = arrow::io::BufferOutputStream::Create();
  EXPECT_TRUE(out.ok());
  arrow::adapters::orc::WriteOptions options;
  options.compression = codec;
  auto writer = arrow::adapters::orc::ORCFileWriter::Open(out->get(), options);
  EXPECT_TRUE(writer.ok()) << writer.status().ToString();
  arrow::Status written = (*writer)->Write(table);
  EXPECT_TRUE(written.ok()) << written.ToString();
  EXPECT_TRUE((*writer)->Close().ok());
  auto buffer = (*out)->Finish();
  EXPECT_TRUE(buffer.ok());
  return (*buffer)->ToString();
}

TEST(OrcTailTest, ArrowWrittenFilesWithEveryCodec) {
  std::shared_ptr<arrow::Table> table = SampleTable();
  ASSERT_NE(table, nullptr);
  const std::pair<arrow::Compression::type, OrcCompression> codecs[] = {
      {arrow::Compression::UNCOMPRESSED, OrcCompression::kNone},
      {arrow::Compression::GZIP, OrcCompression::kZlib},
      {arrow::Compression::SNAPPY, OrcCompression::kSnappy},
      {arrow::Compression::LZ4, OrcCompression::kLz4},
      {arrow::Compression::ZSTD, OrcCompression::kZstd},
  };
  for (const auto& [arrow_codec, orc_codec] : codecs) {
    SCOPED_TRACE(std::string(OrcCompressionName(orc_codec)));
    std::string bytes = WriteWithArrow(*table, arrow_codec);
    ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes, "arrow.orc"));
    EXPECT_EQ(tail.compression, orc_codec);
    EXPECT_EQ(tail.rows, 4u);
    EXPECT_EQ(tail.writer, 1u);  // ORC C++
    if (orc_codec != OrcCompression::kNone) {
      EXPECT_EQ(tail.compression_block_size, 64u << 10);  // Arrow's default
    }

    std::vector<OrcTypeKind> kinds;
    for (const OrcType& t : tail.types) kinds.push_back(t.kind);
    using K = OrcTypeKind;
    EXPECT_EQ(kinds, (std::vector<K>{K::kStruct, K::kLong, K::kDouble, K::kString, K::kDate,
                                     K::kDecimal, K::kTimestamp, K::kMap, K::kString, K::kInt,
                                     K::kStruct, K::kList, K::kMap, K::kString, K::kInt}));
    EXPECT_EQ(tail.types[0].field_names, table->schema()->field_names());
    EXPECT_EQ(tail.types[10].field_names, std::vector<std::string>{"ls"});
    EXPECT_EQ(tail.types[5].precision, 10u);
    EXPECT_EQ(tail.types[5].scale, 2u);
    ASSERT_EQ(tail.stats.size(), tail.types.size());

    const OrcColumnStats& i = tail.stats[1];
    EXPECT_EQ(i.number_of_values, 3u);
    EXPECT_EQ(i.has_null, true);
    ASSERT_TRUE(std::holds_alternative<OrcIntegerStats>(i.typed));
    EXPECT_EQ(std::get<OrcIntegerStats>(i.typed).minimum, -5);
    EXPECT_EQ(std::get<OrcIntegerStats>(i.typed).maximum, 42);
    EXPECT_EQ(std::get<OrcIntegerStats>(i.typed).sum, 38);

    ASSERT_TRUE(std::holds_alternative<OrcDoubleStats>(tail.stats[2].typed));
    EXPECT_EQ(std::get<OrcDoubleStats>(tail.stats[2].typed).minimum, -2.25);
    EXPECT_EQ(std::get<OrcDoubleStats>(tail.stats[2].typed).maximum, 3.0);

    ASSERT_TRUE(std::holds_alternative<OrcStringStats>(tail.stats[3].typed));
    EXPECT_EQ(std::get<OrcStringStats>(tail.stats[3].typed).minimum, "a");
    EXPECT_EQ(std::get<OrcStringStats>(tail.stats[3].typed).maximum, "zz");
    EXPECT_EQ(std::get<OrcStringStats>(tail.stats[3].typed).sum, 4);

    ASSERT_TRUE(std::holds_alternative<OrcDateStats>(tail.stats[4].typed));
    EXPECT_EQ(std::get<OrcDateStats>(tail.stats[4].typed).minimum, -3);
    EXPECT_EQ(std::get<OrcDateStats>(tail.stats[4].typed).maximum, 10);

    ASSERT_TRUE(std::holds_alternative<OrcDecimalStats>(tail.stats[5].typed));
    const auto& dec = std::get<OrcDecimalStats>(tail.stats[5].typed);
    ASSERT_TRUE(dec.minimum && dec.maximum);
    EXPECT_EQ(dec.minimum->rfind("-12.25", 0), 0u) << *dec.minimum;
    EXPECT_EQ(dec.maximum->rfind("3", 0), 0u) << *dec.maximum;

    ASSERT_TRUE(std::holds_alternative<OrcTimestampStats>(tail.stats[6].typed));
    const auto& ts = std::get<OrcTimestampStats>(tail.stats[6].typed);
    EXPECT_EQ(ts.minimum_utc, 0);
    EXPECT_EQ(ts.maximum_utc, 2000);

    // Arrow's maps never hold NULL keys, and its writer records that.
    EXPECT_EQ(tail.stats[8].has_null, false);
    EXPECT_EQ(tail.stats[13].has_null, false);
    EXPECT_TRUE(MapColumnsWithNullKeys(tail).empty());
    EXPECT_OK(CheckArrowCanReadOrc(tail, {}, "arrow.orc"));
  }
}

TEST(OrcTailTest, FooterLargerThanTheFirstRead) {
  // Many columns with long, random names make a footer well past the 16 KiB first read, even
  // compressed.
  arrow::FieldVector fields;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  std::mt19937_64 rng(7);
  for (int c = 0; c < 1500; ++c) {
    std::string name = "c" + std::to_string(c) + "_";
    for (int k = 0; k < 24; ++k) name.push_back(static_cast<char>('a' + rng() % 26));
    fields.push_back(arrow::field(name, arrow::int32()));
    auto array = arrow::json::ArrayFromJSONString(arrow::int32(), "[1, 2, 3]");
    ASSERT_TRUE(array.ok());
    columns.push_back(*array);
  }
  auto table = arrow::Table::Make(arrow::schema(fields), columns);
  for (auto codec : {arrow::Compression::UNCOMPRESSED, arrow::Compression::ZSTD}) {
    std::string bytes = WriteWithArrow(*table, codec);
    int reads = 0;
    OrcReadAt read_at = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
      ++reads;
      return bytes.substr(offset, length);
    };
    ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(bytes.size(), read_at, "wide.orc"));
    EXPECT_GT(tail.footer_length, 16u << 10);
    EXPECT_EQ(reads, 2);  // the last 16 KiB, then the footer
    EXPECT_EQ(tail.types.size(), 1501u);
    EXPECT_EQ(tail.rows, 3u);
    EXPECT_EQ(tail.types[0].field_names, table->schema()->field_names());

    auto reader = std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(bytes));
    ASSERT_OK_AND_ASSIGN(OrcTail tail2, ReadOrcTail(reader.get(), "wide.orc"));
    EXPECT_EQ(tail2.types.size(), tail.types.size());
  }
}

TEST(OrcTailTest, ShortReadsAreCorruption) {
  std::string bytes = MakeFile(MapFooter(false));
  OrcReadAt short_read = [&](uint64_t offset, uint64_t length) -> Result<std::string> {
    return bytes.substr(offset, length / 2);
  };
  EXPECT_THAT(ReadOrcTail(bytes.size(), short_read, "src.orc"), IsCorruptionNamingSource());
  OrcReadAt failing = [](uint64_t, uint64_t) -> Result<std::string> {
    return Status::IOError("disk on fire");
  };
  EXPECT_THAT(ReadOrcTail(bytes.size(), failing, "src.orc"),
              IsError(StatusCode::kIOError, "disk on fire"));
}

// --- Hand-made tails ----------------------------------------------------------------------------

TEST(OrcTailTest, MapKeyNullStatistics) {
  auto flagged = [](const std::string& footer) {
    auto tail = ReadOrcTail(MakeFile(footer), "src.orc");
    EXPECT_TRUE(tail.ok()) << tail.status().ToString();
    return tail.ok() ? MapColumnsWithNullKeys(*tail) : std::vector<std::string>{"<error>"};
  };
  const std::vector<std::string> attrs{"attrs"};
  EXPECT_EQ(flagged(MapFooter(true)), attrs);
  EXPECT_TRUE(flagged(MapFooter(false)).empty());
  // Unknown (hasNull or all statistics absent): assume NULL keys may be there.
  EXPECT_EQ(flagged(MapFooter(std::nullopt)), attrs);
  EXPECT_EQ(flagged(MapFooter(false, 3, /*with_stats=*/false)), attrs);
  // ... unless the file has no rows at all.
  EXPECT_TRUE(flagged(MapFooter(std::nullopt, 0)).empty());
  EXPECT_TRUE(flagged(MapFooter(std::nullopt, 0, false)).empty());
}

TEST(OrcTailTest, NestedMapIsFoundAndNamedByItsTopLevelColumn) {
  // struct<a: list<struct<m: map<string,int>>>, b: int>
  Pb f;
  f.Bytes(4, TypeMsg(OrcTypeKind::kStruct, {1, 6}, {"a", "b"}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kList, {2}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kStruct, {3}, {"m"}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kMap, {4, 5}, {}, /*packed=*/false));
  f.Bytes(4, TypeMsg(OrcTypeKind::kString));
  f.Bytes(4, TypeMsg(OrcTypeKind::kInt));
  f.Bytes(4, TypeMsg(OrcTypeKind::kInt));
  f.Varint(6, 7);
  for (int i = 0; i < 7; ++i) f.Bytes(7, StatsMsg(7, i == 4));
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(MakeFile(f.str()), "src.orc"));
  EXPECT_EQ(tail.types[3].subtypes, (std::vector<uint32_t>{4, 5}));  // unpacked encoding
  EXPECT_EQ(MapColumnsWithNullKeys(tail), std::vector<std::string>{"a"});
  EXPECT_TRUE(HasMapWithNullKeys(tail, 3));
  EXPECT_FALSE(HasMapWithNullKeys(tail, 6));
  EXPECT_THAT(CheckArrowCanReadOrc(tail, {"b", "a"}, "src.orc"),
              IsError(StatusCode::kNotImplemented, "src.orc: column 'a' holds a MAP with NULL"));
  EXPECT_OK(CheckArrowCanReadOrc(tail, {"b"}, "src.orc"));
}

TEST(OrcTailTest, RootMustBeAStructForArrow) {
  Pb f;
  f.Bytes(4, TypeMsg(OrcTypeKind::kMap, {1, 2}));
  f.Bytes(4, TypeMsg(OrcTypeKind::kString));
  f.Bytes(4, TypeMsg(OrcTypeKind::kInt));
  f.Varint(6, 1);
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(MakeFile(f.str()), "src.orc"));
  EXPECT_TRUE(MapColumnsWithNullKeys(tail).empty());
  EXPECT_THAT(CheckArrowCanReadOrc(tail, {}, "src.orc"),
              IsError(StatusCode::kNotImplemented, "root type is MAP, not a STRUCT"));
}

TEST(OrcTailTest, EveryCodecAndFraming) {
  // A footer of a few KiB so that small chunks make several of them.
  Pb f;
  std::vector<uint64_t> subtypes;
  std::vector<std::string> names;
  for (int c = 1; c <= 200; ++c) {
    subtypes.push_back(static_cast<uint64_t>(c));
    names.push_back("column_" + std::to_string(c));
  }
  f.Bytes(4, TypeMsg(OrcTypeKind::kStruct, subtypes, names));
  for (int c = 1; c <= 200; ++c) f.Bytes(4, TypeMsg(OrcTypeKind::kLong));
  f.Varint(6, 5);
  for (int c = 0; c <= 200; ++c) {
    Pb ints;
    ints.Varint(1, (static_cast<uint64_t>(c) << 1) | 1).Varint(2, static_cast<uint64_t>(c) << 1);
    f.Bytes(7, Pb().Varint(1, 5).Bytes(2, ints.str()).Varint(10, 0).str());
  }
  for (OrcCompression codec :
       {OrcCompression::kNone, OrcCompression::kZlib, OrcCompression::kSnappy, OrcCompression::kLz4,
        OrcCompression::kZstd}) {
    for (size_t chunk : {size_t{100}, size_t{1000}, size_t{1} << 20}) {
      for (bool original : {false, true}) {
        SCOPED_TRACE(std::string(OrcCompressionName(codec)) + " chunk " + std::to_string(chunk) +
                     (original ? " original" : ""));
        FileSpec spec;
        spec.codec = codec;
        spec.chunk = chunk;
        spec.block_size = std::max<size_t>(chunk, 8192);
        spec.original_chunks = original;
        ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(MakeFile(f.str(), spec), "src.orc"));
        EXPECT_EQ(tail.compression, codec);
        EXPECT_EQ(tail.rows, 5u);
        ASSERT_EQ(tail.types.size(), 201u);
        ASSERT_EQ(tail.stats.size(), 201u);
        EXPECT_EQ(tail.types[0].field_names[199], "column_200");
        const auto& ints = std::get<OrcIntegerStats>(tail.stats[200].typed);
        EXPECT_EQ(ints.minimum, -201);
        EXPECT_EQ(ints.maximum, 200);
      }
    }
  }
}

TEST(OrcTailTest, UnknownFieldsAreSkipped) {
  Pb root;
  root.Varint(1, 12).Varint(2, 1).Bytes(3, "x").Fixed32(99, 7).Fixed64(100, 8).Bytes(101, "?");
  root.Bytes(7, Pb().Bytes(1, "k").Bytes(2, "v").Varint(3, 1).str());
  Pb f;
  f.Fixed64(1000, 1).Bytes(4, root.str()).Bytes(4, TypeMsg(OrcTypeKind::kBoolean));
  f.Varint(6, 2).Bytes(12, "1.9.0").Varint(9, 1).Bytes(5, "user metadata").Fixed32(20, 0);
  // A known field with an unexpected wire type is ignored, as protobuf does.
  f.Bytes(6, "not a varint");
  FileSpec spec;
  spec.magic = false;  // Hive 0.11 style: the magic only at the start
  ASSERT_OK_AND_ASSIGN(OrcTail tail, ReadOrcTail(MakeFile(f.str(), spec), "src.orc"));
  EXPECT_EQ(tail.rows, 2u);
  EXPECT_EQ(tail.software_version, "1.9.0");
  EXPECT_EQ(tail.writer, 1u);
  ASSERT_EQ(tail.types.size(), 2u);
  EXPECT_EQ(tail.types[0].attributes,
            (std::vector<std::pair<std::string, std::string>>{{"k", "v"}}));
  EXPECT_TRUE(tail.stats.empty());

  spec.header = "XYZ";
  EXPECT_THAT(ReadOrcTail(MakeFile(f.str(), spec), "src.orc"), IsCorruptionNamingSource());
}

TEST(OrcTailTest, LzoIsNotImplemented) {
  Pb ps;
  std::string footer = MapFooter(false);
  ps.Varint(1, footer.size()).Varint(2, 3).Varint(3, 1024).Bytes(8000, "ORC");
  std::string lzo = "ORC" + footer + ps.str();
  lzo.push_back(static_cast<char>(ps.str().size()));
  EXPECT_THAT(ReadOrcTail(lzo, "src.orc"), IsError(StatusCode::kNotImplemented, "LZO"));
}

// --- Corruption ---------------------------------------------------------------------------------

TEST(OrcTailTest, BadLengthsAndStructures) {
  auto with_ps = [](const std::string& body, const Pb& ps) {
    std::string file = "ORC" + body + ps.str();
    file.push_back(static_cast<char>(ps.str().size()));
    return file;
  };
  std::string footer = MapFooter(false);
  auto expect_corrupt = [](const std::string& file, std::string_view what) {
    EXPECT_THAT(ReadOrcTail(file, "src.orc"), IsCorruptionNamingSource());
    EXPECT_THAT(ReadOrcTail(file, "src.orc"), IsError(StatusCode::kCorruption, what));
  };
  expect_corrupt("", "too small");
  expect_corrupt("ORC", "too small");
  expect_corrupt(std::string("ORC\x01\x02", 5) + std::string(1, '\0'), "postscript length is 0");
  expect_corrupt(std::string("ORC\x01\x02\xff", 6), "exceeds the file");
  expect_corrupt(with_ps(footer, Pb().Varint(1, footer.size() + 1).Bytes(8000, "ORC")),
                 "exceed the file");
  expect_corrupt(with_ps(footer, Pb().Varint(1, footer.size()).Varint(5, 1).Bytes(8000, "ORC")),
                 "exceed the file");
  expect_corrupt(
      with_ps(footer,
              Pb().Varint(1, uint64_t{1} << 63).Varint(5, uint64_t{1} << 63).Bytes(8000, "ORC")),
      "exceed the file");
  expect_corrupt(with_ps(footer, Pb().Varint(1, footer.size()).Bytes(8000, "ORK")), "magic");
  expect_corrupt(with_ps(footer, Pb().Varint(1, footer.size()).Varint(2, 6).Bytes(8000, "ORC")),
                 "unknown compression kind 6");
  expect_corrupt(with_ps(footer, Pb().Varint(1, footer.size())
                                     .Varint(2, 5)
                                     .Varint(3, uint64_t{1} << 40)
                                     .Bytes(8000, "ORC")),
                 "compression block size");
  expect_corrupt(with_ps("", Pb().Bytes(8000, "ORC")), "no types");
  // A varint of 11 bytes, and one cut short.
  {
    std::string ps = std::string("\x08") + std::string(10, '\xff') + "\x01";
    std::string file = "ORC" + ps;
    file.push_back(static_cast<char>(ps.size()));
    expect_corrupt(file, "truncated varint");
    ps = "\x08\xff";
    file = "ORC" + ps;
    file.push_back(static_cast<char>(ps.size()));
    expect_corrupt(file, "truncated varint");
  }
  // Compression framing.
  {
    FileSpec spec;
    spec.codec = OrcCompression::kZstd;
    spec.block_size = 16;  // smaller than the chunk
    expect_corrupt(MakeFile(footer, spec), "exceeds the block size");
    spec.block_size = 1 << 20;
    std::string file = MakeFile(footer, spec);
    // Make the first chunk claim more bytes than there are.
    size_t at = 3 + std::string("stripe-bytes").size() + spec.metadata.size();
    file[at + 2] = '\x7f';
    expect_corrupt(file, "claims");
  }
  for (OrcCompression codec : {OrcCompression::kZlib, OrcCompression::kSnappy, OrcCompression::kLz4,
                               OrcCompression::kZstd}) {
    FileSpec spec;
    spec.codec = codec;
    std::string file = MakeFile(footer, spec);
    size_t at = 3 + std::string("stripe-bytes").size() + spec.metadata.size();
    for (size_t i = at + 3; i < at + 3 + 8; ++i) file[i] = static_cast<char>(file[i] ^ 0x5a);
    EXPECT_THAT(ReadOrcTail(file, "src.orc"), IsCorruptionNamingSource())
        << OrcCompressionName(codec);
  }
  // Type trees that are not trees, or whose kinds lack their children.
  auto types_file = [](std::vector<std::string> types) {
    Pb f;
    for (const auto& t : types) f.Bytes(4, t);
    f.Varint(6, 1);
    return MakeFile(f.str());
  };
  using K = OrcTypeKind;
  expect_corrupt(types_file({TypeMsg(K::kStruct, {0}, {"a"})}), "out of range");
  expect_corrupt(types_file({TypeMsg(K::kStruct, {1}, {"a"})}), "out of range");
  expect_corrupt(types_file({TypeMsg(K::kStruct, {1, 1}, {"a", "b"}), TypeMsg(K::kInt)}),
                 "two parents");
  expect_corrupt(types_file({TypeMsg(K::kStruct, {1}, {"a"}), TypeMsg(K::kList, {2}),
                             TypeMsg(K::kInt), TypeMsg(K::kInt)}),
                 "not reachable");
  expect_corrupt(types_file({TypeMsg(K::kStruct, {1}, {}), TypeMsg(K::kInt)}), "field names");
  expect_corrupt(
      types_file({TypeMsg(K::kStruct, {1}, {"m"}), TypeMsg(K::kMap, {2}), TypeMsg(K::kInt)}),
      "MAP with 1 subtypes");
  expect_corrupt(types_file({TypeMsg(K::kStruct, {1}, {"l"}), TypeMsg(K::kList)}),
                 "LIST with 0 subtypes");
  expect_corrupt(
      types_file({TypeMsg(K::kStruct, {1}, {"i"}), TypeMsg(K::kInt, {2}), TypeMsg(K::kInt)}),
      "INT with 1 subtypes");
  // Kinds newer than this code are kept as numbers.
  ASSERT_OK_AND_ASSIGN(
      OrcTail future,
      ReadOrcTail(types_file({TypeMsg(K::kStruct, {1}, {"g"}), TypeMsg(static_cast<K>(19))}),
                  "src.orc"));
  EXPECT_EQ(OrcTypeKindName(future.types[1].kind), "KIND(19)");
}

TEST(OrcTailTest, EveryTruncationIsCorruption) {
  std::vector<std::string> files = OrcFixtures();
  ASSERT_FALSE(files.empty());
  std::vector<std::string> samples = {ReadBytes(files.front()), ReadBytes(files.back())};
  FileSpec spec;
  spec.codec = OrcCompression::kZlib;
  samples.push_back(MakeFile(MapFooter(true), spec));
  int cases = 0;
  for (const std::string& bytes : samples) {
    for (size_t n = 0; n < bytes.size(); ++n) {
      // Cut at the end (a torn write) and at the start.
      EXPECT_THAT(ReadOrcTail(std::string_view(bytes).substr(0, n), "src.orc"),
                  IsCorruptionNamingSource())
          << "prefix " << n;
      // Losing the start leaves the tail intact, so that may parse; if not, it is corruption.
      auto suffix = ReadOrcTail(std::string_view(bytes).substr(n), "src.orc");
      if (!suffix.ok()) {
        EXPECT_THAT(suffix, IsCorruptionNamingSource()) << "suffix from " << n;
      }
      ++cases;
    }
  }
  EXPECT_GT(cases, 1000);
}

TEST(OrcTailTest, RandomBytesAndMutationsNeverCrash) {
  std::mt19937_64 rng(20240611);
  int errors = 0;
  auto check = [&](const std::string& bytes) {
    Result<OrcTail> tail = ReadOrcTail(bytes, "src.orc");
    if (tail.ok()) {
      // What parses is a usable tree.
      MapColumnsWithNullKeys(*tail);
      (void)CheckArrowCanReadOrc(*tail, {}, "src.orc");
      for (size_t i = 0; i < tail->types.size(); ++i) {
        for (uint32_t s : tail->types[i].subtypes) {
          EXPECT_GT(s, i);
          EXPECT_LT(s, tail->types.size());
        }
      }
      return;
    }
    ++errors;
    Status st = tail.status();
    EXPECT_TRUE(st.IsCorruption() || st.code() == StatusCode::kNotImplemented) << st.ToString();
    EXPECT_EQ(st.message().rfind("src.orc: ", 0), 0u) << st.ToString();
  };
  // Pure noise, with and without a plausible header and PostScript length.
  for (int i = 0; i < 3000; ++i) {
    std::string bytes(rng() % 600, '\0');
    for (char& c : bytes) c = static_cast<char>(rng());
    if (i % 2 == 0 && bytes.size() > 8) {
      bytes.replace(0, 3, "ORC");
      bytes.back() = static_cast<char>(rng() % std::min<size_t>(bytes.size() - 4, 255));
    }
    check(bytes);
  }
  // Real files with a few bytes of the tail changed.
  std::vector<std::string> files = OrcFixtures();
  std::vector<std::string> samples;
  for (size_t i = 0; i < files.size(); i += 15) samples.push_back(ReadBytes(files[i]));
  for (auto codec : {OrcCompression::kNone, OrcCompression::kZlib, OrcCompression::kSnappy,
                     OrcCompression::kLz4}) {
    FileSpec spec;
    spec.codec = codec;
    samples.push_back(MakeFile(MapFooter(true), spec));
  }
  for (const std::string& original : samples) {
    size_t tail_size = std::min<size_t>(original.size(), 600);
    for (int i = 0; i < 400; ++i) {
      std::string bytes = original;
      int flips = 1 + static_cast<int>(rng() % 4);
      for (int k = 0; k < flips; ++k) {
        size_t at = bytes.size() - 1 - rng() % tail_size;
        bytes[at] = static_cast<char>(rng() % 3 == 0 ? rng() : bytes[at] ^ (1 << (rng() % 8)));
      }
      check(bytes);
    }
  }
  EXPECT_GT(errors, 3000);
}

}  // namespace
}  // namespace fjord
