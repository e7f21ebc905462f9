#include "fjord/meta/manifest_writer.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "fjord/format/avro/container.h"
#include "fjord/testing/test_util.h"

namespace fjord {

// Field-wise equality, for these tests only (internal linkage; found by ADL in fjord).
static bool operator==(const SimpleStats& a, const SimpleStats& b) {
  return a.min_values == b.min_values && a.max_values == b.max_values &&
         a.null_counts == b.null_counts;
}

static bool operator==(const DataFileMeta& a, const DataFileMeta& b) {
  return a.file_name == b.file_name && a.file_size == b.file_size && a.row_count == b.row_count &&
         a.min_key == b.min_key && a.max_key == b.max_key && a.key_stats == b.key_stats &&
         a.value_stats == b.value_stats && a.min_sequence_number == b.min_sequence_number &&
         a.max_sequence_number == b.max_sequence_number && a.schema_id == b.schema_id &&
         a.level == b.level && a.extra_files == b.extra_files &&
         a.creation_time_millis == b.creation_time_millis &&
         a.delete_row_count == b.delete_row_count && a.embedded_index == b.embedded_index &&
         a.file_source == b.file_source && a.value_stats_cols == b.value_stats_cols &&
         a.external_path == b.external_path && a.first_row_id == b.first_row_id &&
         a.write_cols == b.write_cols;
}

static bool operator==(const ManifestEntry& a, const ManifestEntry& b) {
  return a.kind == b.kind && a.partition == b.partition && a.bucket == b.bucket &&
         a.total_buckets == b.total_buckets && a.file == b.file;
}

static bool operator==(const ManifestFileMeta& a, const ManifestFileMeta& b) {
  return a.file_name == b.file_name && a.file_size == b.file_size &&
         a.num_added_files == b.num_added_files && a.num_deleted_files == b.num_deleted_files &&
         a.partition_stats == b.partition_stats && a.schema_id == b.schema_id &&
         a.min_bucket == b.min_bucket && a.max_bucket == b.max_bucket &&
         a.min_level == b.min_level && a.max_level == b.max_level && a.min_row_id == b.min_row_id &&
         a.max_row_id == b.max_row_id;
}

static bool operator==(const DeletionVectorMeta& a, const DeletionVectorMeta& b) {
  return a.data_file_name == b.data_file_name && a.offset == b.offset && a.length == b.length &&
         a.cardinality == b.cardinality;
}

static bool operator==(const IndexManifestEntry& a, const IndexManifestEntry& b) {
  return a.kind == b.kind && a.partition == b.partition && a.bucket == b.bucket &&
         a.index_type == b.index_type && a.file_name == b.file_name && a.file_size == b.file_size &&
         a.row_count == b.row_count && a.dv_ranges == b.dv_ranges &&
         a.external_path == b.external_path;
}

namespace {

namespace fs = std::filesystem;
using testing::TempDir;

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool IsAvro(const std::string& path) { return ReadText(path).rfind("Obj\x01", 0) == 0; }

enum class Kind { kList, kManifest, kIndex };

// Every Avro metadata file of the Java fixtures, by kind (file names as Java gives them, plus
// the loose samples under avro/manifest/).
std::vector<std::pair<std::string, Kind>> FixtureManifests() {
  std::vector<std::pair<std::string, Kind>> out;
  fs::path root = fs::path(testing::FixturesDir()) / "paimon-java";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "manifest") continue;
    std::string name = e.path().filename().string();
    if (!IsAvro(e.path().string())) continue;
    Kind kind = Kind::kManifest;
    if (name.find("index-manifest") != std::string::npos) {
      kind = Kind::kIndex;
    } else if (name.find("manifest-list") != std::string::npos ||
               name.find("manifest_list") != std::string::npos) {
      kind = Kind::kList;
    }
    out.emplace_back(e.path().string(), kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ManifestWriterOptions Fixed() {
  ManifestWriterOptions o;
  o.sync_marker = std::string(16, '\x5a');
  return o;
}

struct Header {
  std::string schema, codec;
  std::vector<std::string> keys;
};

Header HeaderOf(const std::string& bytes) {
  Header h;
  auto file = avro::ReadContainerFile(bytes, "test");
  EXPECT_TRUE(file.ok()) << file.status().ToString();
  if (!file.ok()) return h;
  for (const auto& [k, v] : file->metadata) {
    h.keys.push_back(k);
    if (k == "avro.schema") h.schema = v;
    if (k == "avro.codec") h.codec = v;
  }
  return h;
}

template <typename T, typename ReadFn, typename EncodeFn>
void RoundTrip(const std::string& path, ReadFn read, EncodeFn encode, std::string_view schema,
               const TempDir& tmp, int* rows) {
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(std::vector<T> original, read(io.get(), path, "avro"));
  ASSERT_OK_AND_ASSIGN(std::string bytes, encode(original, Fixed()));
  Header h = HeaderOf(bytes);
  EXPECT_EQ(h.schema, schema);
  EXPECT_EQ(h.codec, "zstandard");
  EXPECT_EQ(h.keys, (std::vector<std::string>{"avro.schema", "avro.codec"}));
  std::string copy = tmp.Join(fs::path(path).filename().string());
  ASSERT_OK(io->CreateIfAbsent(copy, bytes));
  ASSERT_OK_AND_ASSIGN(std::vector<T> again, read(io.get(), copy, "avro"));
  ASSERT_EQ(original.size(), again.size()) << path;
  for (size_t i = 0; i < original.size(); ++i)
    EXPECT_TRUE(original[i] == again[i]) << path << " #" << i;
  // Writing what was read back gives the same bytes (same sync marker).
  ASSERT_OK_AND_ASSIGN(std::string bytes2, encode(again, Fixed()));
  EXPECT_EQ(bytes, bytes2) << path;
  *rows += static_cast<int>(original.size());
}

// The schema texts are Java's own: JavaWritten14FilesHaveOurSchemas compares them with the
// files Java Paimon 1.4.2 wrote (tests/fixtures/paimon-java).
TEST(ManifestWriterTest, SchemasPrintAsJavaPrintsThem) {
  // What Java's Schema.toString() prints for them.
  for (std::string_view s :
       {ManifestListAvroSchema(), ManifestFileAvroSchema(), IndexManifestAvroSchema()}) {
    ASSERT_OK_AND_ASSIGN(auto schema, avro::Schema::Parse(s));
    EXPECT_EQ(schema->ToJson(), s);
  }
}

TEST(ManifestWriterTest, JavaWritten14FilesHaveOurSchemas) {
  // Java files that carry the full 1.4 schema have exactly our schema text.
  int list = 0, manifest = 0, index = 0;
  for (const auto& [path, kind] : FixtureManifests()) {
    Header h = HeaderOf(ReadText(path));
    std::string_view ours = kind == Kind::kList       ? ManifestListAvroSchema()
                            : kind == Kind::kManifest ? ManifestFileAvroSchema()
                                                      : IndexManifestAvroSchema();
    EXPECT_EQ(h.codec, "zstandard") << path;
    if (h.schema.find(kind == Kind::kList       ? "_MAX_ROW_ID"
                      : kind == Kind::kManifest ? "_WRITE_COLS"
                                                : "_GLOBAL_INDEX") == std::string::npos) {
      continue;
    }
    EXPECT_EQ(h.schema, ours) << path;
    (kind == Kind::kList ? list : kind == Kind::kManifest ? manifest : index)++;
  }
  EXPECT_GT(list, 0);
  EXPECT_GT(manifest, 0);
  EXPECT_GT(index, 0);
}

TEST(ManifestWriterTest, EveryFixtureManifestRoundTrips) {
  TempDir tmp;
  int files[3] = {0, 0, 0}, rows[3] = {0, 0, 0};
  for (const auto& [path, kind] : FixtureManifests()) {
    SCOPED_TRACE(path);
    switch (kind) {
      case Kind::kList:
        RoundTrip<ManifestFileMeta>(path, ReadManifestList, EncodeManifestList,
                                    ManifestListAvroSchema(), tmp, &rows[0]);
        break;
      case Kind::kManifest:
        RoundTrip<ManifestEntry>(
            path,
            [](FileIO* io, const std::string& p, const std::string& f) {
              return ReadManifestFile(io, p, f);
            },
            EncodeManifestFile, ManifestFileAvroSchema(), tmp, &rows[1]);
        break;
      case Kind::kIndex:
        RoundTrip<IndexManifestEntry>(path, ReadIndexManifest, EncodeIndexManifest,
                                      IndexManifestAvroSchema(), tmp, &rows[2]);
        break;
    }
    files[static_cast<int>(kind)]++;
  }
  std::printf(
      "round-tripped %d manifest lists (%d rows), %d manifests (%d rows), "
      "%d index manifests (%d rows)\n",
      files[0], rows[0], files[1], rows[1], files[2], rows[2]);
  EXPECT_GT(files[0], 0);
  EXPECT_GT(files[1], 0);
  EXPECT_GT(files[2], 0);
}

// With Java's sync marker, a Java 1.4 file (full schema) re-encodes to the same header bytes and
// the same records. (The compressed blocks differ: zstd-jni's streaming frames are not libzstd's
// one-shot frames.)
TEST(ManifestWriterTest, JavaWritten14FilesReencodeToSameHeaderAndRecords) {
  auto io = FileIO::Local();
  int checked = 0;
  for (const auto& [path, kind] : FixtureManifests()) {
    std::string original = ReadText(path);
    Header h = HeaderOf(original);
    std::string_view ours = kind == Kind::kList       ? ManifestListAvroSchema()
                            : kind == Kind::kManifest ? ManifestFileAvroSchema()
                                                      : IndexManifestAvroSchema();
    if (h.schema != ours) continue;
    ASSERT_OK_AND_ASSIGN(auto reader, avro::ContainerReader::Open(original, path));
    ManifestWriterOptions o;
    o.sync_marker = reader->sync_marker();
    std::string bytes;
    if (kind == Kind::kList) {
      ASSERT_OK_AND_ASSIGN(auto rows, ReadManifestList(io.get(), path, "avro"));
      ASSERT_OK_AND_ASSIGN(bytes, EncodeManifestList(rows, o));
    } else if (kind == Kind::kManifest) {
      ASSERT_OK_AND_ASSIGN(auto rows, ReadManifestFile(io.get(), path, "avro"));
      ASSERT_OK_AND_ASSIGN(bytes, EncodeManifestFile(rows, o));
    } else {
      ASSERT_OK_AND_ASSIGN(auto rows, ReadIndexManifest(io.get(), path, "avro"));
      ASSERT_OK_AND_ASSIGN(bytes, EncodeIndexManifest(rows, o));
    }
    ++checked;
    size_t header_end = original.find(reader->sync_marker()) + avro::kSyncSize;
    EXPECT_EQ(bytes.substr(0, header_end), original.substr(0, header_end)) << path;
    ASSERT_OK_AND_ASSIGN(avro::ContainerFile a, avro::ReadContainerFile(original, path));
    ASSERT_OK_AND_ASSIGN(avro::ContainerFile b, avro::ReadContainerFile(bytes, "ours"));
    EXPECT_EQ(a.records, b.records) << path;
  }
  std::printf("%d Java 1.4 files re-encoded to the same header and records\n", checked);
  EXPECT_GT(checked, 0);
}

TEST(ManifestWriterTest, WritePublishesOnceAndReturnsSize) {
  TempDir tmp;
  auto io = FileIO::Local();
  ManifestEntry e;
  e.partition = std::string("\0\0\0\0\0\0\0\0\0\0\0\0", 12);
  e.file.file_name = "data-1.parquet";
  e.file.min_key = e.file.max_key = e.partition;
  e.file.key_stats = {e.partition, e.partition, std::vector<std::optional<int64_t>>{}};
  e.file.value_stats = {e.partition, e.partition,
                        std::vector<std::optional<int64_t>>{std::nullopt, 3}};
  e.file.creation_time_millis = 1700000000000;
  e.file.file_source = 0;
  std::string path = tmp.Join("manifest-x-0");
  ASSERT_OK_AND_ASSIGN(int64_t size, WriteManifestFile(io.get(), path, {e}));
  ASSERT_OK_AND_ASSIGN(FileStatus st, io->GetStatus(path));
  EXPECT_EQ(size, st.size);
  EXPECT_THAT(WriteManifestFile(io.get(), path, {e}), HasStatusCode(StatusCode::kAlreadyExists));
  ASSERT_OK_AND_ASSIGN(auto back, ReadManifestFile(io.get(), path, "avro"));
  ASSERT_EQ(back.size(), 1u);
  EXPECT_TRUE(back[0] == e);

  ManifestFileMeta m;
  m.file_name = "manifest-x-0";
  m.file_size = size;
  m.num_added_files = 1;
  m.partition_stats = e.file.key_stats;
  m.min_bucket = m.max_bucket = 0;
  ASSERT_OK_AND_ASSIGN(int64_t list_size,
                       WriteManifestList(io.get(), tmp.Join("manifest-list-x-0"), {m}));
  EXPECT_GT(list_size, 0);
  ASSERT_OK_AND_ASSIGN(auto metas,
                       ReadManifestList(io.get(), tmp.Join("manifest-list-x-0"), "avro"));
  ASSERT_EQ(metas.size(), 1u);
  EXPECT_TRUE(metas[0] == m);

  IndexManifestEntry ie;
  ie.partition = e.partition;
  ie.index_type = "DELETION_VECTORS";
  ie.file_name = "index-1";
  ie.dv_ranges = std::vector<DeletionVectorMeta>{{"data-1.parquet", 1, 20, 5}, {"d2", 30, 9, {}}};
  ASSERT_OK_AND_ASSIGN(int64_t isize,
                       WriteIndexManifest(io.get(), tmp.Join("index-manifest-0"), {ie}));
  EXPECT_GT(isize, 0);
  ASSERT_OK_AND_ASSIGN(auto idx, ReadIndexManifest(io.get(), tmp.Join("index-manifest-0"), "avro"));
  ASSERT_EQ(idx.size(), 1u);
  EXPECT_TRUE(idx[0] == ie);
}

TEST(ManifestWriterTest, OptionsFromTableOptions) {
  ASSERT_OK_AND_ASSIGN(auto d, ManifestWriterOptions::FromTableOptions({}));
  EXPECT_EQ(d.codec, avro::Codec::kZstandard);
  EXPECT_FALSE(d.compression_level.has_value());
  ASSERT_OK_AND_ASSIGN(
      auto z, ManifestWriterOptions::FromTableOptions({{"file.compression.zstd-level", "3"}}));
  EXPECT_EQ(z.compression_level, 3);
  ASSERT_OK_AND_ASSIGN(auto n,
                       ManifestWriterOptions::FromTableOptions({{"manifest.compression", "null"}}));
  EXPECT_EQ(n.codec, avro::Codec::kNull);
  ASSERT_OK_AND_ASSIGN(auto a, ManifestWriterOptions::FromTableOptions(
                                   {{"manifest.compression", "zstd"}, {"avro.codec", "deflate"}}));
  EXPECT_EQ(a.codec, avro::Codec::kDeflate);
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions({{"manifest.compression", "lzma9"}}),
              HasStatusCode(StatusCode::kInvalid));
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions({{"file.compression.zstd-level", "x"}}),
              HasStatusCode(StatusCode::kInvalid));
  // Each codec writes a file our reader reads.
  for (avro::Codec c : {avro::Codec::kNull, avro::Codec::kDeflate, avro::Codec::kSnappy}) {
    ManifestWriterOptions o;
    o.codec = c;
    ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeManifestList({}, o));
    EXPECT_EQ(HeaderOf(bytes).codec, avro::CodecName(c));
  }
}

// ---- ORC manifests ----------------------------------------------------------------------

bool IsOrc(const std::string& path) { return ReadText(path).rfind("ORC", 0) == 0; }

// Every ORC metadata file of the Java fixtures (tables with manifest.format = orc), by kind.
std::vector<std::pair<std::string, Kind>> OrcFixtureManifests() {
  std::vector<std::pair<std::string, Kind>> out;
  fs::path root = fs::path(testing::FixturesDir()) / "paimon-java";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "manifest") continue;
    if (!IsOrc(e.path().string())) continue;
    std::string name = e.path().filename().string();
    Kind kind = name.rfind("index-manifest", 0) == 0  ? Kind::kIndex
                : name.rfind("manifest-list", 0) == 0 ? Kind::kList
                                                      : Kind::kManifest;
    out.emplace_back(e.path().string(), kind);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ManifestWriterOptions Orc(const std::string& compression = "ZSTD") {
  ManifestWriterOptions o;
  o.format = ManifestFormat::kOrc;
  o.orc_compression = compression;
  return o;
}

std::shared_ptr<arrow::Schema> OrcSchemaOf(const std::string& bytes) {
  auto reader = arrow::adapters::orc::ORCFileReader::Open(
      std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(bytes)),
      arrow::default_memory_pool());
  EXPECT_TRUE(reader.ok()) << reader.status().ToString();
  if (!reader.ok()) return nullptr;
  auto schema = (*reader)->ReadSchema();
  EXPECT_TRUE(schema.ok()) << schema.status().ToString();
  return schema.ok() ? *schema : nullptr;
}

// Java's field `j` is ours (`o`): same name, type and (if Java wrote them) paimon.id attributes;
// Java's structs may lack fields that later versions appended (ours have all of 1.4).
void ExpectJavaFieldIsOurs(const arrow::Field& j, const arrow::Field& o, const std::string& where) {
  std::string at = where + "." + j.name();
  EXPECT_EQ(j.name(), o.name()) << at;
  if (j.metadata() != nullptr && j.metadata()->size() > 0) {
    ASSERT_NE(o.metadata(), nullptr) << at;
    EXPECT_TRUE(j.metadata()->Equals(*o.metadata()))
        << at << ": " << j.metadata()->ToString() << " vs " << o.metadata()->ToString();
  }
  ASSERT_EQ(j.type()->id(), o.type()->id())
      << at << ": " << j.type()->ToString() << " vs " << o.type()->ToString();
  const auto& jf = j.type()->fields();
  const auto& of = o.type()->fields();
  ASSERT_LE(jf.size(), of.size()) << at;
  for (size_t i = 0; i < jf.size(); ++i) ExpectJavaFieldIsOurs(*jf[i], *of[i], at);
}

template <typename T, typename ReadFn, typename EncodeFn>
void OrcRoundTrip(const std::string& path, ReadFn read, EncodeFn encode, const TempDir& tmp,
                  int* rows) {
  auto io = FileIO::Local();
  ASSERT_OK_AND_ASSIGN(std::vector<T> original, read(io.get(), path, "orc"));
  ASSERT_OK_AND_ASSIGN(std::string bytes, encode(original, Orc()));
  // Java's schema, field by field (ours may have the fields later versions added).
  std::shared_ptr<arrow::Schema> java = OrcSchemaOf(ReadText(path));
  std::shared_ptr<arrow::Schema> ours = OrcSchemaOf(bytes);
  ASSERT_TRUE(java && ours);
  ASSERT_LE(java->num_fields(), ours->num_fields());
  for (int i = 0; i < java->num_fields(); ++i) {
    ExpectJavaFieldIsOurs(*java->field(i), *ours->field(i), "");
  }
  // Fixture tables share file names (copies of one table): number the copies.
  static int copies = 0;
  std::string copy = tmp.Join(std::to_string(copies++) + "-" + fs::path(path).filename().string());
  ASSERT_OK(io->CreateIfAbsent(copy, bytes));
  ASSERT_OK_AND_ASSIGN(std::vector<T> again, read(io.get(), copy, "orc"));
  ASSERT_EQ(original.size(), again.size());
  for (size_t i = 0; i < original.size(); ++i) EXPECT_TRUE(original[i] == again[i]) << "#" << i;
  *rows += static_cast<int>(original.size());
}

// Java-written ORC manifests read, re-encoded as ORC and read back give the same structs, and our
// ORC schema carries Java's names, types and paimon.id attributes.
TEST(ManifestWriterTest, JavaOrcManifestsRoundTripThroughOrc) {
  TempDir tmp;
  int files[3] = {0, 0, 0}, rows[3] = {0, 0, 0};
  for (const auto& [path, kind] : OrcFixtureManifests()) {
    SCOPED_TRACE(path);
    switch (kind) {
      case Kind::kList:
        OrcRoundTrip<ManifestFileMeta>(path, ReadManifestList, EncodeManifestList, tmp, &rows[0]);
        break;
      case Kind::kManifest:
        OrcRoundTrip<ManifestEntry>(
            path,
            [](FileIO* io, const std::string& p, const std::string& f) {
              return ReadManifestFile(io, p, f);
            },
            EncodeManifestFile, tmp, &rows[1]);
        break;
      case Kind::kIndex:
        OrcRoundTrip<IndexManifestEntry>(path, ReadIndexManifest, EncodeIndexManifest, tmp,
                                         &rows[2]);
        break;
    }
    files[static_cast<int>(kind)]++;
  }
  std::printf(
      "ORC: round-tripped %d manifest lists (%d rows), %d manifests (%d rows), "
      "%d index manifests (%d rows)\n",
      files[0], rows[0], files[1], rows[1], files[2], rows[2]);
  EXPECT_GT(files[0], 0);
  EXPECT_GT(files[1], 0);
  EXPECT_GT(files[2], 0);
}

// Every field set (and every nullable one null), each compression kind, through the file API.
TEST(ManifestWriterTest, OrcWritesEveryFieldAndCompression) {
  TempDir tmp;
  auto io = FileIO::Local();
  std::string row = std::string("\0\0\0\1", 4) + std::string(16, '\0');
  ManifestEntry full;
  full.kind = FileKind::kDelete;
  full.partition = row;
  full.bucket = 3;
  full.total_buckets = 8;
  DataFileMeta& f = full.file;
  f.file_name = "data-1.orc";
  f.file_size = 1234;
  f.row_count = 77;
  f.min_key = f.max_key = row;
  f.key_stats = {row, row, std::vector<std::optional<int64_t>>{0}};
  f.value_stats = {row, row, std::vector<std::optional<int64_t>>{std::nullopt, 5}};
  f.min_sequence_number = -1;
  f.max_sequence_number = INT64_MAX;
  f.schema_id = 2;
  f.level = 5;
  f.extra_files = {"a", "b"};
  f.creation_time_millis = -86400001;  // before 1970, not whole seconds
  f.delete_row_count = 4;
  f.embedded_index = std::string("\0\1\2", 3);
  f.file_source = 1;
  f.value_stats_cols = std::vector<std::string>{"x", "y"};
  f.external_path = "s3://b/p/data-1.orc";
  f.first_row_id = 100;
  f.write_cols = std::vector<std::string>{"x"};
  ManifestEntry sparse;
  sparse.partition = std::string("\0\0\0\0", 4) + std::string(8, '\0');
  sparse.file.file_name = "data-2.orc";
  sparse.file.min_key = sparse.file.max_key = sparse.partition;
  sparse.file.key_stats = {sparse.partition, sparse.partition, std::nullopt};
  sparse.file.value_stats = {sparse.partition, sparse.partition, std::nullopt};
  sparse.file.creation_time_millis = 1742534966687;

  ManifestFileMeta m;
  m.file_name = "manifest-x-0";
  m.file_size = 99;
  m.num_added_files = 1;
  m.num_deleted_files = 1;
  m.partition_stats = f.key_stats;
  m.schema_id = 2;
  m.min_bucket = 0;
  m.max_bucket = 7;
  m.min_level = 0;
  m.max_level = 5;
  m.min_row_id = 100;
  m.max_row_id = 176;
  ManifestFileMeta m2;
  m2.file_name = "manifest-x-1";
  m2.partition_stats = sparse.file.key_stats;

  IndexManifestEntry ie;
  ie.partition = row;
  ie.bucket = 1;
  ie.index_type = "DELETION_VECTORS";
  ie.file_name = "index-1";
  ie.file_size = 10;
  ie.row_count = 2;
  ie.dv_ranges = std::vector<DeletionVectorMeta>{{"data-1.orc", 1, 20, 5}, {"d2", 30, 9, {}}};
  ie.external_path = "s3://b/p/index-1";
  IndexManifestEntry ie2;
  ie2.partition = sparse.partition;
  ie2.index_type = "HASH";
  ie2.file_name = "index-2";

  for (std::string kind : {"NONE", "ZLIB", "SNAPPY", "LZ4", "ZSTD"}) {
    SCOPED_TRACE(kind);
    ManifestWriterOptions o = Orc(kind);
    std::string dir = tmp.Join(kind);
    ASSERT_OK_AND_ASSIGN(int64_t size,
                         WriteManifestFile(io.get(), dir + "/manifest-0", {full, sparse}, o));
    ASSERT_OK_AND_ASSIGN(FileStatus st, io->GetStatus(dir + "/manifest-0"));
    EXPECT_EQ(size, st.size);
    std::string bytes = ReadText(dir + "/manifest-0");
    EXPECT_EQ(bytes.substr(0, 3), "ORC");
    ASSERT_OK_AND_ASSIGN(auto entries, ReadManifestFile(io.get(), dir + "/manifest-0", "orc"));
    ASSERT_EQ(entries.size(), 2u);
    EXPECT_TRUE(entries[0] == full);
    EXPECT_TRUE(entries[1] == sparse);

    ASSERT_OK(WriteManifestList(io.get(), dir + "/manifest-list-0", {m, m2}, o).status());
    ASSERT_OK_AND_ASSIGN(auto metas, ReadManifestList(io.get(), dir + "/manifest-list-0", "orc"));
    ASSERT_EQ(metas.size(), 2u);
    EXPECT_TRUE(metas[0] == m);
    EXPECT_TRUE(metas[1] == m2);

    ASSERT_OK(WriteIndexManifest(io.get(), dir + "/index-manifest-0", {ie, ie2}, o).status());
    ASSERT_OK_AND_ASSIGN(auto idx, ReadIndexManifest(io.get(), dir + "/index-manifest-0", "orc"));
    ASSERT_EQ(idx.size(), 2u);
    EXPECT_TRUE(idx[0] == ie);
    EXPECT_TRUE(idx[1] == ie2);

    // The compression the footer names.
    auto reader = arrow::adapters::orc::ORCFileReader::Open(
        std::make_shared<arrow::io::BufferReader>(arrow::Buffer::FromString(bytes)),
        arrow::default_memory_pool());
    ASSERT_TRUE(reader.ok());
    auto codec = (*reader)->GetCompression();
    ASSERT_TRUE(codec.ok());
    arrow::Compression::type expected = kind == "NONE"     ? arrow::Compression::UNCOMPRESSED
                                        : kind == "ZLIB"   ? arrow::Compression::GZIP
                                        : kind == "SNAPPY" ? arrow::Compression::SNAPPY
                                        : kind == "LZ4"    ? arrow::Compression::LZ4
                                                           : arrow::Compression::ZSTD;
    EXPECT_EQ(*codec, expected);
  }

  // Empty files still have their schema; a _KIND/_FILE_SOURCE that does not fit a byte fails.
  ASSERT_OK_AND_ASSIGN(std::string empty, EncodeManifestList({}, Orc()));
  ASSERT_OK(io->CreateIfAbsent(tmp.Join("manifest-list-empty"), empty));
  ASSERT_OK_AND_ASSIGN(auto none,
                       ReadManifestList(io.get(), tmp.Join("manifest-list-empty"), "orc"));
  EXPECT_TRUE(none.empty());
  EXPECT_EQ(OrcSchemaOf(empty)->num_fields(), 13);
  ManifestEntry bad = sparse;
  bad.file.file_source = 300;
  EXPECT_THAT(EncodeManifestFile({bad}, Orc()), IsError(StatusCode::kInvalid, "_FILE_SOURCE"));
}

TEST(ManifestWriterTest, OrcOptionsFromTableOptions) {
  using Map = std::map<std::string, std::string>;
  ASSERT_OK_AND_ASSIGN(auto d, ManifestWriterOptions::FromTableOptions({}));
  EXPECT_EQ(d.format, ManifestFormat::kAvro);
  ASSERT_OK_AND_ASSIGN(auto o,
                       ManifestWriterOptions::FromTableOptions(Map{{"manifest.format", "orc"}}));
  EXPECT_EQ(o.format, ManifestFormat::kOrc);
  EXPECT_EQ(o.orc_compression, "ZSTD");
  EXPECT_FALSE(o.compression_level.has_value());
  ASSERT_OK_AND_ASSIGN(
      auto u,
      ManifestWriterOptions::FromTableOptions(Map{
          {"manifest.format", "ORC"}, {"manifest.compression", "lz4"}, {"avro.codec", "deflate"}}));
  EXPECT_EQ(u.format, ManifestFormat::kOrc);
  EXPECT_EQ(u.orc_compression, "LZ4");
  ASSERT_OK_AND_ASSIGN(
      auto c, ManifestWriterOptions::FromTableOptions(Map{{"manifest.format", "orc"},
                                                          {"manifest.compression", "snappy"},
                                                          {"orc.compress", "zlib"}}));
  EXPECT_EQ(c.orc_compression, "ZLIB");
  ASSERT_OK_AND_ASSIGN(
      auto l, ManifestWriterOptions::FromTableOptions(Map{{"manifest.format", "orc"},
                                                          {"file.compression.zstd-level", "1"},
                                                          {"orc.compression.zstd.level", "3"}}));
  EXPECT_EQ(l.compression_level, 3);
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions(
                  Map{{"manifest.format", "orc"}, {"manifest.compression", "deflate"}}),
              HasStatusCode(StatusCode::kInvalid));
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions(
                  Map{{"manifest.format", "orc"}, {"manifest.compression", "lzo"}}),
              HasStatusCode(StatusCode::kNotImplemented));
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions(Map{{"manifest.format", "parquet"}}),
              HasStatusCode(StatusCode::kNotImplemented));
  EXPECT_THAT(ManifestWriterOptions::FromTableOptions(Map{{"manifest.format", "csv"}}),
              HasStatusCode(StatusCode::kInvalid));
}

}  // namespace
}  // namespace fjord
