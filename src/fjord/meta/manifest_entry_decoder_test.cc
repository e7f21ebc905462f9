#include "fjord/meta/manifest_entry_decoder.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "fjord/format/avro/container.h"
#include "fjord/meta/manifest_writer.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

// Every field of an entry, as text: two entries print the same exactly when they are equal.
std::string Print(const ManifestEntry& e) {
  std::ostringstream out;
  auto opt = [&](const auto& v) {
    if (v) {
      out << *v;
    } else {
      out << "-";
    }
    out << "|";
  };
  auto strings = [&](const std::vector<std::string>& v) {
    out << v.size() << "[";
    for (const std::string& s : v) out << s << ",";
    out << "]|";
  };
  auto stats = [&](const SimpleStats& s) {
    out << s.min_values.size() << ":" << s.min_values << "/" << s.max_values.size() << ":"
        << s.max_values << "/";
    if (s.null_counts) {
      for (const auto& n : *s.null_counts) opt(n);
    } else {
      out << "none";
    }
    out << "|";
  };
  const DataFileMeta& f = e.file;
  out << static_cast<int>(e.kind) << "|" << e.partition.size() << ":" << e.partition << "|"
      << e.bucket << "|" << e.total_buckets << "|" << f.file_name << "|" << f.file_size << "|"
      << f.row_count << "|" << f.min_key.size() << ":" << f.min_key << "|" << f.max_key.size()
      << ":" << f.max_key << "|";
  stats(f.key_stats);
  stats(f.value_stats);
  out << f.min_sequence_number << "|" << f.max_sequence_number << "|" << f.schema_id << "|"
      << f.level << "|";
  strings(f.extra_files);
  opt(f.creation_time_millis);
  opt(f.delete_row_count);
  opt(f.embedded_index);
  opt(f.file_source);
  if (f.value_stats_cols) strings(*f.value_stats_cols);
  opt(f.external_path);
  opt(f.first_row_id);
  if (f.write_cols) strings(*f.write_cols);
  out << (f.value_stats_cols ? "c" : "-") << (f.write_cols ? "w" : "-");
  return out.str();
}

std::vector<std::string> Printed(const std::vector<ManifestEntry>& entries) {
  std::vector<std::string> out;
  for (const ManifestEntry& e : entries) out.push_back(Print(e));
  return out;
}

std::string ReadBytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The Avro manifests (not lists, not index manifests) that Java Paimon 0.9 to 1.4 wrote.
std::vector<std::string> JavaManifests() {
  std::vector<std::string> out;
  fs::path root = fs::path(testing::FixturesDir()) / "paimon-java";
  for (const auto& e : fs::recursive_directory_iterator(root)) {
    if (!e.is_regular_file() || e.path().parent_path().filename() != "manifest") continue;
    std::string name = e.path().filename().string();
    if (name.find("manifest-list") != std::string::npos ||
        name.find("manifest_list") != std::string::npos ||
        name.find("index-manifest") != std::string::npos) {
      continue;
    }
    if (ReadBytes(e.path().string()).rfind("Obj\x01", 0) != 0) continue;
    out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

bool TakesDirectPath(const std::string& bytes) {
  auto reader = avro::ContainerReader::Open(bytes, "test");
  return reader.ok() && ManifestEntryDecoder::ForSchema((*reader)->schema()->root()) != nullptr;
}

TEST(ManifestEntryDecoderTest, JavaManifestsDecodeAsTheGenericReaderDecodesThem) {
  auto io = FileIO::Local();
  int files = 0, entries = 0;
  for (const std::string& path : JavaManifests()) {
    SCOPED_TRACE(path);
    EXPECT_TRUE(TakesDirectPath(ReadBytes(path)));
    ASSERT_OK_AND_ASSIGN(auto direct, ReadManifestFile(io.get(), path, "avro"));
    ASSERT_OK_AND_ASSIGN(auto generic, ReadManifestFileGeneric(io.get(), path, "avro", nullptr));
    EXPECT_EQ(Printed(direct), Printed(generic));
    ++files;
    entries += static_cast<int>(direct.size());
  }
  std::printf("%d Java manifests, %d entries\n", files, entries);
  EXPECT_GT(files, 20);
  EXPECT_GT(entries, files);
}

ManifestEntry FullEntry(int i) {
  ManifestEntry e;
  e.kind = i % 3 == 0 ? FileKind::kDelete : FileKind::kAdd;
  e.partition = std::string("\0\0\0\1", 4) + std::string(8, static_cast<char>('a' + i % 5));
  e.bucket = i % 7;
  e.total_buckets = 7;
  DataFileMeta& f = e.file;
  f.file_name = "data-" + std::to_string(i) + ".parquet";
  f.file_size = 1000 + i;
  f.row_count = 10 * i;
  f.min_key = std::string("\0\0\0\1", 4) + std::string(8, '\0');
  f.max_key = std::string("\0\0\0\1", 4) + std::string(8, '\x7f');
  f.key_stats = {f.min_key, f.max_key, std::vector<std::optional<int64_t>>{0}};
  f.value_stats = {"min", "max", std::vector<std::optional<int64_t>>{1, std::nullopt, 3}};
  f.min_sequence_number = i;
  f.max_sequence_number = i + 100;
  f.schema_id = i % 2;
  f.level = i % 5;
  f.extra_files = {"x-" + std::to_string(i), "y"};
  f.creation_time_millis = 1'700'000'000'000 + i;
  if (i % 2) f.delete_row_count = i;
  if (i % 4 == 1) f.embedded_index = std::string("idx\0x", 5);
  f.file_source = i % 2;
  if (i % 3 == 1) f.value_stats_cols = std::vector<std::string>{"a", "b"};
  if (i % 5 == 2) f.external_path = "s3://b/" + f.file_name;
  if (i % 6 == 3) f.first_row_id = 1000 * i;
  if (i % 7 == 4) f.write_cols = std::vector<std::string>{"c"};
  return e;
}

TEST(ManifestEntryDecoderTest, EveryFieldOfFjordsManifestsAndThePartitionTest) {
  TempDir tmp;
  auto io = FileIO::Local();
  std::vector<ManifestEntry> entries;
  for (int i = 0; i < 300; ++i) entries.push_back(FullEntry(i));
  ManifestWriterOptions options;
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeManifestFile(entries, options));
  EXPECT_TRUE(TakesDirectPath(bytes));
  std::string path = tmp.Join("manifest-full");
  ASSERT_OK(io->CreateIfAbsent(path, bytes));
  ASSERT_OK_AND_ASSIGN(auto direct, ReadManifestFile(io.get(), path, "avro"));
  EXPECT_EQ(Printed(direct), Printed(entries));

  // Partitions 'b' and 'd' only: the rest is skipped, the entries after it still decode.
  int asked = 0;
  std::function<bool(const std::string&)> keep = [&](const std::string& partition) {
    ++asked;
    return partition.back() == 'b' || partition.back() == 'd';
  };
  ASSERT_OK_AND_ASSIGN(auto some, ReadManifestFile(io.get(), path, "avro", &keep));
  EXPECT_EQ(asked, 300);
  std::vector<ManifestEntry> want;
  for (const ManifestEntry& e : entries) {
    if (keep(e.partition)) want.push_back(e);
  }
  EXPECT_EQ(want.size(), 120u);
  EXPECT_EQ(Printed(some), Printed(want));
  ASSERT_OK_AND_ASSIGN(auto generic, ReadManifestFileGeneric(io.get(), path, "avro", &keep));
  EXPECT_EQ(Printed(generic), Printed(want));
}

// A file of the shape `schema` with one record `record`.
std::string OneRecordFile(const std::string& schema, const avro::Datum& record) {
  auto parsed = avro::Schema::Parse(schema);
  EXPECT_TRUE(parsed.ok()) << parsed.status().ToString();
  auto bytes = avro::WriteContainerFile(*parsed, {record});
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return *bytes;
}

const char* kStats =
    R"({"type":"record","name":"S","fields":[{"name":"_MIN_VALUES","type":"bytes"},)"
    R"({"name":"_MAX_VALUES","type":"bytes"}]})";

avro::Datum Stats() {
  return avro::Datum::Record({avro::Datum::Bytes("lo"), avro::Datum::Bytes("hi")});
}

// A minimal file record (required fields only, int where Java writes int), with `extra` fields
// before the last one.
std::string FileSchema(const std::string& extra) {
  return R"({"type":"record","name":"F","fields":[{"name":"_FILE_NAME","type":"string"},)"
         R"({"name":"_FILE_SIZE","type":"long"},{"name":"_ROW_COUNT","type":"long"},)"
         R"({"name":"_MIN_KEY","type":"bytes"},{"name":"_MAX_KEY","type":"bytes"},)"
         R"({"name":"_KEY_STATS","type":)" +
         std::string(kStats) + R"(},{"name":"_VALUE_STATS","type":"S"},)" +
         R"({"name":"_MIN_SEQUENCE_NUMBER","type":"long"},)"
         R"({"name":"_MAX_SEQUENCE_NUMBER","type":"long"},{"name":"_SCHEMA_ID","type":"long"},)" +
         extra + R"({"name":"_LEVEL","type":"int"}]})";
}

std::vector<avro::Datum> FileValues() {
  return {avro::Datum::String("f.parquet"),
          avro::Datum::Long(5),
          avro::Datum::Long(2),
          avro::Datum::Bytes("k0"),
          avro::Datum::Bytes("k9"),
          Stats(),
          Stats(),
          avro::Datum::Long(1),
          avro::Datum::Long(2),
          avro::Datum::Long(0),
          avro::Datum::Int(0)};
}

std::string EntrySchema(const std::string& file, const std::string& kind_type = "int") {
  return R"({"type":"record","name":"E","fields":[{"name":"_KIND","type":")" + kind_type +
         R"("},{"name":"_PARTITION","type":"bytes"},{"name":"_BUCKET","type":"int"},)"
         R"({"name":"_TOTAL_BUCKETS","type":"int"},{"name":"_FILE","type":)" +
         file + "}]}";
}

Result<std::vector<ManifestEntry>> ReadOne(const std::string& bytes, const std::string& name) {
  auto io = FileIO::Local();
  TempDir tmp;
  std::string path = tmp.Join(name);
  FJORD_RETURN_NOT_OK(io->CreateIfAbsent(path, bytes));
  return ReadManifestFile(io.get(), path, "avro");
}

TEST(ManifestEntryDecoderTest, UnknownFieldsOfEveryKindAreSkipped) {
  std::string extra =
      R"({"name":"_M","type":{"type":"map","values":["null","long"]}},)"
      R"({"name":"_A","type":{"type":"array","items":{"type":"record","name":"R",)"
      R"("fields":[{"name":"x","type":"double"},{"name":"y","type":"string"}]}}},)"
      R"({"name":"_X","type":["null",{"type":"fixed","name":"X","size":3},"float"]},)"
      R"({"name":"_B","type":"boolean"},{"name":"_N","type":"null"},)"
      R"({"name":"_EN","type":{"type":"enum","name":"En","symbols":["A","B"]}},)";
  std::vector<avro::Datum> file = FileValues();
  avro::Datum level = file.back();
  file.pop_back();
  file.push_back(avro::Datum::Map({{"a", avro::Datum::Union(1, avro::Datum::Long(-3))},
                                   {"b", avro::Datum::Union(0, avro::Datum::Null())}}));
  file.push_back(avro::Datum::Array(
      {avro::Datum::Record({avro::Datum::Double(1.5), avro::Datum::String("q")}),
       avro::Datum::Record({avro::Datum::Double(2.5), avro::Datum::String("rr")})}));
  file.push_back(avro::Datum::Union(1, avro::Datum::Fixed("abc")));
  file.push_back(avro::Datum::Boolean(true));
  file.push_back(avro::Datum::Null());
  file.push_back(avro::Datum::Enum(1));
  file.push_back(level);
  avro::Datum record =
      avro::Datum::Record({avro::Datum::Int(1), avro::Datum::Bytes("p"), avro::Datum::Int(3),
                           avro::Datum::Int(4), avro::Datum::Record(std::move(file))});
  std::string bytes = OneRecordFile(EntrySchema(FileSchema(extra)), record);
  EXPECT_TRUE(TakesDirectPath(bytes));
  ASSERT_OK_AND_ASSIGN(auto got, ReadOne(bytes, "manifest-extra"));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].kind, FileKind::kDelete);
  EXPECT_EQ(got[0].partition, "p");
  EXPECT_EQ(got[0].bucket, 3);
  EXPECT_EQ(got[0].total_buckets, 4);
  EXPECT_EQ(got[0].file.file_name, "f.parquet");
  EXPECT_EQ(got[0].file.key_stats.max_values, "hi");
  EXPECT_FALSE(got[0].file.key_stats.null_counts.has_value());
  EXPECT_EQ(got[0].file.max_sequence_number, 2);
  EXPECT_EQ(got[0].file.level, 0);
}

TEST(ManifestEntryDecoderTest, BadValuesNameTheFileAndTheField) {
  // _KIND 2.
  avro::Datum record =
      avro::Datum::Record({avro::Datum::Int(2), avro::Datum::Bytes("p"), avro::Datum::Int(0),
                           avro::Datum::Int(1), avro::Datum::Record(FileValues())});
  std::string bytes = OneRecordFile(EntrySchema(FileSchema("")), record);
  EXPECT_TRUE(TakesDirectPath(bytes));
  auto got = ReadOne(bytes, "manifest-kind");
  ASSERT_FALSE(got.ok());
  EXPECT_TRUE(got.status().IsCorruption()) << got.status().ToString();
  EXPECT_NE(got.status().message().find("manifest-kind"), std::string::npos);
  EXPECT_NE(got.status().message().find("field '_KIND': must be 0 or 1"), std::string::npos)
      << got.status().ToString();

  // A required field that is null in a nullable declaration.
  std::string nullable = R"(["null",)" + FileSchema("") + "]";
  avro::Datum null_file =
      avro::Datum::Record({avro::Datum::Int(0), avro::Datum::Bytes("p"), avro::Datum::Int(0),
                           avro::Datum::Int(1), avro::Datum::Union(0, avro::Datum::Null())});
  bytes = OneRecordFile(EntrySchema(nullable), null_file);
  EXPECT_TRUE(TakesDirectPath(bytes));
  got = ReadOne(bytes, "manifest-null");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("field '_FILE': is missing or null"), std::string::npos)
      << got.status().ToString();

  // A field of another type goes to the generic reader, which names it.
  std::string as_string = EntrySchema(FileSchema(""), "string");
  avro::Datum text_kind =
      avro::Datum::Record({avro::Datum::String("ADD"), avro::Datum::Bytes("p"), avro::Datum::Int(0),
                           avro::Datum::Int(1), avro::Datum::Record(FileValues())});
  bytes = OneRecordFile(as_string, text_kind);
  EXPECT_FALSE(TakesDirectPath(bytes));
  got = ReadOne(bytes, "manifest-type");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("'_KIND' must be an int or long"), std::string::npos)
      << got.status().ToString();

  // A truncated file.
  bytes = OneRecordFile(
      EntrySchema(FileSchema("")),
      avro::Datum::Record({avro::Datum::Int(0), avro::Datum::Bytes("p"), avro::Datum::Int(0),
                           avro::Datum::Int(1), avro::Datum::Record(FileValues())}));
  got = ReadOne(bytes.substr(0, bytes.size() - 20), "manifest-cut");
  ASSERT_FALSE(got.ok());
  EXPECT_NE(got.status().message().find("manifest-cut"), std::string::npos);
}

}  // namespace
}  // namespace fjord
