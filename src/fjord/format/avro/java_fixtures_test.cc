// Reads the Avro files that Java Paimon wrote (fixtures, read in place) and writes them back.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "fjord/format/avro/container.h"
#include "fjord/testing/test_util.h"

namespace fjord::avro {
namespace {

namespace fs = std::filesystem;

constexpr Codec kAllCodecs[] = {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard};

std::string JavaDir() { return fjord::testing::FixturesDir() + "/paimon-java"; }

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool IsAvro(const std::string& path) { return ReadFile(path).substr(0, 4) == kMagic; }

// Every regular file under the Java fixture tables, sorted.
std::vector<std::string> AllFixtureFiles() {
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(JavaDir())) {
    if (e.is_regular_file()) out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Manifest, manifest-list and index-manifest files: everything in a table's manifest/ folder.
std::vector<std::string> ManifestFolderFiles() {
  std::vector<std::string> out;
  for (const std::string& f : AllFixtureFiles()) {
    if (fs::path(f).parent_path().filename() == "manifest") out.push_back(f);
  }
  return out;
}

// The record type of a file's schema: Paimon 0.8 wrapped it in ["null", record] (0.9.0 no longer).
const Node& RecordType(const Schema& schema) {
  const Node& root = schema.root();
  if (root.type() == Type::kUnion) {
    for (const Node* b : root.branches()) {
      if (b->type() == Type::kRecord) return *b;
    }
  }
  return root;
}

const Datum& Field(const Node& record_type, const Datum& record, std::string_view name) {
  auto index = record_type.FieldIndex(name);
  EXPECT_TRUE(index.has_value()) << name;
  return record[*index];
}

// Writes the file's records again with every codec and reads them back: identical values,
// identical extra metadata.
void ExpectRoundTrip(const ContainerFile& file, const std::string& name) {
  Metadata extra;
  for (const auto& kv : file.metadata) {
    if (!kv.first.starts_with("avro.")) extra.push_back(kv);
  }
  for (Codec codec : kAllCodecs) {
    WriterOptions o;
    o.codec = codec;
    o.metadata = extra;
    ASSERT_OK_AND_ASSIGN(std::string bytes, WriteContainerFile(file.schema, file.records, o));
    ASSERT_OK_AND_ASSIGN(ContainerFile back, ReadContainerFile(bytes, name + " (rewritten)"));
    EXPECT_EQ(back.schema->ToJson(), file.schema->ToJson());
    ASSERT_EQ(back.records.size(), file.records.size());
    for (size_t i = 0; i < file.records.size(); ++i) {
      ASSERT_EQ(back.records[i], file.records[i]) << name << " record " << i;
    }
    for (const auto& [k, v] : extra) {
      ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, name));
      EXPECT_EQ(reader->GetMetadata(k), v);
    }
  }
}

Result<ContainerFile> ReadJavaFile(const std::string& path, std::string* bytes) {
  *bytes = ReadFile(path);
  return ReadContainerFile(*bytes, path);
}

TEST(AvroJavaFixturesTest, SampleManifestsAndManifestLists) {
  struct Sample {
    const char* name;
    bool list;      // manifest list (else manifest)
    bool nullable;  // Paimon 0.8: the schema is ["null", record]
  };
  const Sample samples[] = {
      {"avro_manifest_08", false, true},
      {"avro_manifest_11", false, false},
      {"avro_manifest_list_08", true, true},
      {"avro_manifest_list_11", true, false},
      {"manifest", false, false},
  };
  for (const Sample& s : samples) {
    SCOPED_TRACE(s.name);
    std::string path = JavaDir() + "/avro/manifest/" + s.name;
    std::string bytes;
    ASSERT_OK_AND_ASSIGN(ContainerFile file, ReadJavaFile(path, &bytes));
    EXPECT_EQ(file.codec, Codec::kZstandard);
    ASSERT_FALSE(file.records.empty());
    // Our printer reproduces the schema text Java wrote, byte for byte.
    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, path));
    EXPECT_EQ(file.schema->ToJson(), *reader->GetMetadata("avro.schema"));

    EXPECT_EQ(file.schema->root().type() == Type::kUnion, s.nullable);
    const Node& rec = RecordType(*file.schema);
    EXPECT_EQ(rec.full_name(), "org.apache.paimon.avro.generated.record");
    EXPECT_EQ(rec.FieldIndex("_VERSION"), 0u);
    for (const Datum& d : file.records) {
      EXPECT_EQ(d.type(), Type::kRecord);
      EXPECT_EQ(d.branch(), s.nullable ? 1 : 0);
      const Datum& version = Field(rec, d, "_VERSION");
      EXPECT_GE(version.int_value(), 1);
      EXPECT_LE(version.int_value(), 3);
      if (s.list) {
        const std::string& name = Field(rec, d, "_FILE_NAME").bytes();
        EXPECT_TRUE(name.starts_with("manifest-")) << name;
        EXPECT_GT(Field(rec, d, "_FILE_SIZE").long_value(), 0);
        EXPECT_GE(Field(rec, d, "_NUM_ADDED_FILES").long_value(), 0);
      } else {
        int32_t kind = Field(rec, d, "_KIND").int_value();
        EXPECT_TRUE(kind == 0 || kind == 1) << kind;  // ADD, DELETE
        auto file_index = rec.FieldIndex("_FILE");
        ASSERT_TRUE(file_index);
        const Node* file_type = rec.fields()[*file_index].type;
        const Datum& meta = d[*file_index];
        if (file_type->type() == Type::kUnion) {
          ASSERT_EQ(meta.branch(), 1);
          file_type = file_type->branches()[1];
        }
        const std::string& name = Field(*file_type, meta, "_FILE_NAME").bytes();
        EXPECT_TRUE(name.starts_with("data-")) << name;
        EXPECT_GT(Field(*file_type, meta, "_ROW_COUNT").long_value(), 0);
        const Datum& created = Field(*file_type, meta, "_CREATION_TIME");
        if (!created.is_null()) {
          EXPECT_GT(created.long_value(), 1'600'000'000'000LL);  // millis, after 2020
        }
      }
    }
    ExpectRoundTrip(file, path);
  }
}

TEST(AvroJavaFixturesTest, SampleDataFiles) {
  {
    std::string path = JavaDir() + "/avro/data/avro_all_types";
    std::string bytes;
    ASSERT_OK_AND_ASSIGN(ContainerFile file, ReadJavaFile(path, &bytes));
    EXPECT_EQ(file.codec, Codec::kZstandard);
    ASSERT_FALSE(file.records.empty());
    const Node& rec = file.schema->root();
    const Node& ts = *rec.fields()[*rec.FieldIndex("f12")].type->branches()[1];
    EXPECT_EQ(ts.logical_type(), "timestamp-micros");
    const Node& dec = *rec.fields()[*rec.FieldIndex("f16")].type->branches()[1];
    EXPECT_EQ(dec.logical_type(), "decimal");
    EXPECT_EQ(dec.precision(), 19);
    EXPECT_EQ(dec.scale(), 19);
    EXPECT_EQ(rec.fields()[*rec.FieldIndex("f11")].type->branches()[1]->full_name(),
              "org.apache.paimon.avro.generated.record_f11");
    // Every field is nullable; between them the rows hold both nulls and values of every field.
    std::set<size_t> seen_value, seen_null;
    for (const Datum& d : file.records) {
      ASSERT_EQ(d.size(), rec.fields().size());
      for (size_t i = 0; i < d.size(); ++i) {
        (d[i].is_null() ? seen_null : seen_value).insert(i);
        if (!d[i].is_null()) {
          EXPECT_EQ(d[i].branch(), 1);
          EXPECT_EQ(d[i].type(), rec.fields()[i].type->branches()[1]->type());
        }
      }
    }
    EXPECT_EQ(seen_value.size(), rec.fields().size());
    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, path));
    EXPECT_EQ(file.schema->ToJson(), *reader->GetMetadata("avro.schema"));
    ExpectRoundTrip(file, path);
  }
  {
    std::string path = JavaDir() + "/avro/data/avro_with_null";
    std::string bytes;
    ASSERT_OK_AND_ASSIGN(ContainerFile file, ReadJavaFile(path, &bytes));
    ASSERT_FALSE(file.records.empty());
    const Node& rec = file.schema->root();
    size_t f2 = *rec.FieldIndex("f2"), f3 = *rec.FieldIndex("f3");
    int nulls = 0;
    for (const Datum& d : file.records) {
      EXPECT_EQ(d[*rec.FieldIndex("_KEY_f0")].type(), Type::kString);
      EXPECT_EQ(d[*rec.FieldIndex("_SEQUENCE_NUMBER")].type(), Type::kLong);
      nulls += d[f2].is_null() + d[f3].is_null();
    }
    EXPECT_GT(nulls, 0);
    ExpectRoundTrip(file, path);
  }
}

// The manifest format of a table, from its newest schema file ("avro" when not set).
std::string ManifestFormat(const fs::path& table_dir) {
  std::string format = "avro";
  int newest = -1;
  for (const auto& e : fs::directory_iterator(table_dir / "schema")) {
    std::string name = e.path().filename().string();
    if (!name.starts_with("schema-")) continue;
    int id = std::stoi(name.substr(7));
    if (id < newest) continue;
    newest = id;
    auto json = ParseJson(ReadFile(e.path().string()), e.path().string());
    EXPECT_TRUE(json.ok()) << json.status().ToString();
    if (!json.ok()) continue;
    auto opts = json->find("options");
    format = "avro";
    if (opts != json->end() && opts->contains("manifest.format")) {
      format = (*opts)["manifest.format"].get<std::string>();
    }
  }
  return format;
}

TEST(AvroJavaFixturesTest, EveryAvroManifestInTheFixtureTables) {
  int avro_files = 0, orc_files = 0;
  int64_t records = 0;
  std::set<std::string> codecs;
  for (const std::string& path : ManifestFolderFiles()) {
    SCOPED_TRACE(path);
    fs::path table_dir = fs::path(path).parent_path().parent_path();
    std::string bytes = ReadFile(path);
    bool has_schema = fs::exists(table_dir / "schema");
    if (bytes.substr(0, 4) != kMagic) {
      // Not Avro: an ORC manifest, in a table that says so.
      EXPECT_EQ(bytes.substr(0, 3), "ORC");
      if (has_schema) {
        EXPECT_EQ(ManifestFormat(table_dir), "orc");
      }
      ++orc_files;
      continue;
    }
    if (has_schema) {
      EXPECT_EQ(ManifestFormat(table_dir), "avro");
    }
    ++avro_files;
    ASSERT_OK_AND_ASSIGN(ContainerFile file, ReadContainerFile(bytes, path));
    codecs.insert(std::string(CodecName(file.codec)));
    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, path));
    EXPECT_EQ(file.schema->ToJson(), *reader->GetMetadata("avro.schema"));
    const Node& rec = RecordType(*file.schema);
    EXPECT_TRUE(rec.FieldIndex("_VERSION").has_value());
    std::string name = fs::path(path).filename().string();
    if (name.starts_with("manifest-list-")) {
      EXPECT_TRUE(rec.FieldIndex("_FILE_NAME").has_value());
      // A manifest list names manifest files of the same folder.
      for (const Datum& d : file.records) {
        const std::string& manifest = Field(rec, d, "_FILE_NAME").bytes();
        EXPECT_TRUE(fs::exists(fs::path(path).parent_path() / manifest)) << manifest;
      }
    } else if (name.starts_with("manifest-")) {
      EXPECT_TRUE(rec.FieldIndex("_FILE").has_value());
    }
    records += static_cast<int64_t>(file.records.size());
    ExpectRoundTrip(file, path);
  }
  std::cout << avro_files << " Avro files (" << records << " records, codecs:";
  for (const auto& c : codecs) std::cout << " " << c;
  std::cout << "), " << orc_files << " ORC files\n";
  EXPECT_GT(avro_files, 100);
  EXPECT_GT(records, avro_files);
}

TEST(AvroJavaFixturesTest, EveryAvroFileInTheFixtures) {
  int files = 0, empty = 0;
  for (const std::string& path : AllFixtureFiles()) {
    if (!IsAvro(path)) continue;
    SCOPED_TRACE(path);
    ++files;
    std::string bytes;
    ASSERT_OK_AND_ASSIGN(ContainerFile file, ReadJavaFile(path, &bytes));
    if (file.records.empty()) {
      // Java writes a header without blocks for an empty file: the base manifest list of a
      // table's first snapshot.
      ++empty;
      EXPECT_TRUE(fs::path(path).filename().string().starts_with("manifest-list-")) << path;
      ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, path));
      EXPECT_TRUE(bytes.ends_with(reader->sync_marker()));
    }
    ExpectRoundTrip(file, path);
  }
  std::cout << files << " Avro files, " << empty << " of them without records\n";
  EXPECT_GT(files, 150);
  EXPECT_LT(empty, files / 4);
}

// Damage a Java file every way a single byte can be damaged, and cut it at every length: always a
// Corruption error naming the file (or, rarely, a file that still reads), never a crash.
TEST(AvroJavaFixturesTest, DamagedJavaFiles) {
  for (const char* name : {"avro_manifest_08", "avro_manifest_list_11"}) {
    std::string path = JavaDir() + "/avro/manifest/" + name;
    const std::string bytes = ReadFile(path);
    ASSERT_OK_AND_ASSIGN(ContainerFile original, ReadContainerFile(bytes, path));
    int errors = 0;
    for (size_t pos = 0; pos < bytes.size(); ++pos) {
      for (uint8_t mask : {0x01, 0x10, 0xff}) {
        std::string damaged = bytes;
        damaged[pos] ^= static_cast<char>(mask);
        auto file = ReadContainerFile(damaged, "damaged.avro");
        if (file.ok()) continue;  // e.g. a flip inside a literal of an unchecksummed zstd frame
        ++errors;
        EXPECT_THAT(file.status().message(), ::testing::StartsWith("damaged.avro: "))
            << file.status().ToString();
        EXPECT_TRUE(file.status().code() == StatusCode::kCorruption ||
                    file.status().code() == StatusCode::kNotImplemented)
            << file.status().ToString();
      }
    }
    EXPECT_GT(errors, static_cast<int>(bytes.size()));
    for (size_t len = 0; len + 1 < bytes.size(); ++len) {
      auto file = ReadContainerFile(std::string_view(bytes).substr(0, len), "cut.avro");
      if (file.ok()) {
        // Only a cut right after the header leaves a valid (empty) file.
        EXPECT_TRUE(file->records.empty());
        EXPECT_EQ(bytes.substr(len - 16, 16), bytes.substr(bytes.size() - 16)) << len;
        continue;
      }
      EXPECT_EQ(file.status().code(), StatusCode::kCorruption);
      EXPECT_THAT(file.status().message(), ::testing::StartsWith("cut.avro: "));
    }
    // Specific damage: bad magic, a wrong sync marker after the block, a broken zstd frame.
    std::string bad_magic = bytes;
    bad_magic[0] = 'X';
    EXPECT_THAT(ReadContainerFile(bad_magic, "damaged.avro"),
                IsError(StatusCode::kCorruption, "damaged.avro: not an Avro container file"));
    std::string bad_sync = bytes;
    bad_sync[bad_sync.size() - 3] ^= 1;
    EXPECT_THAT(ReadContainerFile(bad_sync, "damaged.avro"),
                IsError(StatusCode::kCorruption, "sync marker after the block does not match"));
    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, path));
    size_t block = bytes.find(reader->sync_marker()) + 16;
    size_t frame = bytes.find("\x28\xb5\x2f\xfd", block);  // the zstd frame magic
    ASSERT_NE(frame, std::string::npos);
    std::string bad_frame = bytes;
    bad_frame[frame + 1] ^= 0x55;
    EXPECT_THAT(ReadContainerFile(bad_frame, "damaged.avro"),
                IsError(StatusCode::kCorruption, "damaged.avro: block 0 (file offset " +
                                                     std::to_string(block) +
                                                     "): zstandard codec: invalid zstandard data"));
  }
}

}  // namespace
}  // namespace fjord::avro
