#include "fjord/format/avro/container.h"

#include <zstd.h>

#include <chrono>
#include <iostream>
#include <string>

#include "fjord/testing/test_util.h"

namespace fjord::avro {
namespace {

constexpr Codec kAllCodecs[] = {Codec::kNull, Codec::kDeflate, Codec::kSnappy, Codec::kZstandard};

std::shared_ptr<const Schema> MustParse(std::string_view json) {
  auto r = Schema::Parse(json);
  EXPECT_TRUE(r.ok()) << json << ": " << r.status().ToString();
  return *r;
}

// A manifest-entry-like schema: nested records, nullable fields, arrays, bytes.
constexpr std::string_view kEntrySchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[
    {"name":"_VERSION","type":"int"},
    {"name":"_KIND","type":"int"},
    {"name":"_PARTITION","type":"bytes"},
    {"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[
        {"name":"_FILE_NAME","type":"string"},
        {"name":"_FILE_SIZE","type":"long"},
        {"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null},
        {"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},
        {"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},
        {"name":"_RATIO","type":["null","double"],"default":null},
        {"name":"_TAGS","type":{"type":"map","values":"float"}},
        {"name":"_HASH","type":{"type":"fixed","name":"Hash","size":4}},
        {"name":"_LEVEL","type":{"type":"enum","name":"Level","symbols":["L0","L1","L2"]}},
        {"name":"_FLAG","type":"boolean"},
        {"name":"_NOTHING","type":"null"}]}}]})";

Datum Entry(int i) {
  std::vector<Datum> nulls;
  for (int k = 0; k < i % 5; ++k) {
    nulls.push_back(k % 2 ? Datum::Null() : Datum::Union(1, Datum::Long(k * i)));
  }
  std::vector<Datum> extra;
  for (int k = 0; k < i % 3; ++k) extra.push_back(Datum::String("extra-" + std::to_string(k)));
  std::string hash(4, '\0');
  for (int k = 0; k < 4; ++k) hash[k] = static_cast<char>(i >> (8 * k));
  return Datum::Record({
      Datum::Int(2),
      Datum::Int(i % 2),
      Datum::Bytes(std::string(4, static_cast<char>(i)) + "partition"),
      Datum::Record({
          Datum::String("data-" + std::to_string(i) + "-0123456789abcdef.parquet"),
          Datum::Long(1000 + i),
          i % 7 == 0 ? Datum::Null() : Datum::Union(1, Datum::Array(std::move(nulls))),
          Datum::Array(std::move(extra)),
          i % 2 ? Datum::Null() : Datum::Union(1, Datum::Long(1700000000000LL + i)),
          i % 3 ? Datum::Null() : Datum::Union(1, Datum::Double(i / 3.0)),
          Datum::Map({{"a", Datum::Float(1.0f * i)}, {"b", Datum::Float(-2.5f)}}),
          Datum::Fixed(hash),
          Datum::Enum(i % 3),
          Datum::Boolean(i % 4 == 0),
          Datum::Null(),
      }),
  });
}

std::vector<Datum> Entries(int n) {
  std::vector<Datum> out;
  for (int i = 0; i < n; ++i) out.push_back(Entry(i));
  return out;
}

std::string Write(const std::vector<Datum>& records, WriterOptions options) {
  auto bytes = WriteContainerFile(MustParse(kEntrySchema), records, std::move(options));
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::string();
}

WriterOptions Options(Codec codec, int64_t sync_interval = kDefaultSyncInterval) {
  WriterOptions o;
  o.codec = codec;
  o.sync_interval = sync_interval;
  return o;
}

TEST(AvroContainerTest, RoundTripEveryCodec) {
  const std::vector<Datum> records = Entries(3000);
  for (Codec codec : kAllCodecs) {
    SCOPED_TRACE(CodecName(codec));
    WriterOptions options = Options(codec);
    options.metadata = {{"fjord.note", "hello"}, {"binary", std::string("\x00\xff", 2)}};
    std::string bytes = Write(records, options);
    ASSERT_EQ(bytes.substr(0, 4), kMagic);

    ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, "mem.avro"));
    EXPECT_EQ(reader->codec(), codec);
    EXPECT_EQ(reader->GetMetadata("avro.codec"), CodecName(codec));
    EXPECT_EQ(reader->GetMetadata("fjord.note"), "hello");
    EXPECT_EQ(reader->GetMetadata("binary"), std::string_view("\x00\xff", 2));
    EXPECT_EQ(reader->GetMetadata("avro.schema"), MustParse(kEntrySchema)->ToJson());
    EXPECT_EQ(reader->metadata()[0].first, "avro.schema");
    EXPECT_EQ(reader->schema()->ToJson(), MustParse(kEntrySchema)->ToJson());
    ASSERT_OK_AND_ASSIGN(std::vector<Datum> back, reader->ReadAll());
    ASSERT_EQ(back.size(), records.size());
    for (size_t i = 0; i < records.size(); ++i) {
      ASSERT_EQ(back[i], records[i]) << i << ": " << back[i].ToString();
    }
    EXPECT_GT(reader->blocks_read(), 1);  // ~100 bytes a record: several 64000-byte blocks
  }
}

TEST(AvroContainerTest, CodecLevels) {
  const std::vector<Datum> records = Entries(500);
  for (int level : {-5, 1, 3, 19}) {
    WriterOptions o = Options(Codec::kZstandard);
    o.compression_level = level;
    ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(Write(records, o), "zstd.avro"));
    EXPECT_EQ(f.records, records);
  }
  for (int level : {-1, 0, 1, 9}) {
    WriterOptions o = Options(Codec::kDeflate);
    o.compression_level = level;
    ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(Write(records, o), "deflate.avro"));
    EXPECT_EQ(f.records, records);
  }
  WriterOptions o = Options(Codec::kDeflate);
  o.compression_level = 10;
  EXPECT_THAT(ContainerWriter::Create(MustParse(kEntrySchema), o),
              IsError(StatusCode::kInvalid, "deflate level 10"));
  o = Options(Codec::kZstandard);
  o.compression_level = 1000;
  EXPECT_THAT(ContainerWriter::Create(MustParse(kEntrySchema), o),
              IsError(StatusCode::kInvalid, "zstandard level 1000"));
}

TEST(AvroContainerTest, IteratorsAgree) {
  const std::vector<Datum> records = Entries(2000);
  std::string bytes = Write(records, Options(Codec::kZstandard, 4096));

  ASSERT_OK_AND_ASSIGN(auto by_record, ContainerReader::Open(bytes, "x.avro"));
  Datum d;
  size_t n = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool more, by_record->Next(&d));
    if (!more) break;
    ASSERT_LT(n, records.size());
    ASSERT_EQ(d, records[n]) << n;
    ++n;
  }
  EXPECT_EQ(n, records.size());
  ASSERT_OK_AND_ASSIGN(bool more, by_record->Next(&d));
  EXPECT_FALSE(more);

  ASSERT_OK_AND_ASSIGN(auto by_block, ContainerReader::Open(bytes, "x.avro"));
  std::vector<Datum> block;
  n = 0;
  int blocks = 0;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool got, by_block->ReadBlock(&block));
    if (!got) break;
    ++blocks;
    EXPECT_FALSE(block.empty());
    for (const Datum& r : block) ASSERT_EQ(r, records[n++]);
  }
  EXPECT_EQ(n, records.size());
  EXPECT_GT(blocks, 10);
  EXPECT_EQ(by_block->blocks_read(), blocks);

  // ReadAll after a partial read returns the rest.
  ASSERT_OK_AND_ASSIGN(auto mixed, ContainerReader::Open(bytes, "x.avro"));
  for (int i = 0; i < 5; ++i) ASSERT_OK(mixed->Next(&d).status());
  EXPECT_THAT(mixed->ReadBlock(&block), IsError(StatusCode::kInvalid, "middle of a block"));
  ASSERT_OK_AND_ASSIGN(std::vector<Datum> rest, mixed->ReadAll());
  EXPECT_EQ(rest.size(), records.size() - 5);
  EXPECT_EQ(rest.front(), records[5]);
}

TEST(AvroContainerTest, BlocksAreCutAtTheSyncInterval) {
  auto schema = MustParse(R"("string")");
  WriterOptions o = Options(Codec::kNull, 1000);
  ASSERT_OK_AND_ASSIGN(auto w, ContainerWriter::Create(schema, o));
  for (int i = 0; i < 100; ++i) ASSERT_OK(w->Append(Datum::String(std::string(99, 'x'))));
  EXPECT_EQ(w->record_count(), 100);
  ASSERT_OK_AND_ASSIGN(std::string bytes, w->Finish());
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "s.avro"));
  std::vector<Datum> block;
  ASSERT_OK_AND_ASSIGN(bool got, r->ReadBlock(&block));
  ASSERT_TRUE(got);
  EXPECT_EQ(block.size(), 10u);  // 10 records of 100 bytes reach 1000
  EXPECT_THAT(w->Append(Datum::String("late")), IsError(StatusCode::kInvalid, "after Finish"));
}

TEST(AvroContainerTest, EmptyFileAndReproducibleOutput) {
  WriterOptions o = Options(Codec::kSnappy);
  o.sync_marker = std::string("0123456789abcdef");
  std::string a = Write({}, o);
  ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(a, "empty.avro"));
  EXPECT_TRUE(f.records.empty());
  EXPECT_EQ(f.codec, Codec::kSnappy);
  // Header only: magic, metadata, the sync marker at the end.
  EXPECT_EQ(a.substr(a.size() - 16), "0123456789abcdef");
  std::vector<Datum> records = Entries(100);
  EXPECT_EQ(Write(records, o), Write(records, o));
}

TEST(AvroContainerTest, WriterRejectsBadInput) {
  auto schema = MustParse(kEntrySchema);
  WriterOptions o;
  o.metadata = {{"avro.custom", "x"}};
  EXPECT_THAT(ContainerWriter::Create(schema, o), IsError(StatusCode::kInvalid, "reserved"));
  o.metadata = {{"k", "1"}, {"k", "2"}};
  EXPECT_THAT(ContainerWriter::Create(schema, o), IsError(StatusCode::kInvalid, "given twice"));
  o = WriterOptions();
  o.sync_marker = std::string("short");
  EXPECT_THAT(ContainerWriter::Create(schema, o), IsError(StatusCode::kInvalid, "16 bytes"));

  o = WriterOptions();
  o.source = "out.avro";
  ASSERT_OK_AND_ASSIGN(auto w, ContainerWriter::Create(schema, o));
  ASSERT_OK(w->Append(Entry(0)));
  Datum bad = Entry(1);
  (*bad.mutable_items())[3] = Datum::Null();
  EXPECT_THAT(w->Append(bad),
              IsError(StatusCode::kInvalid,
                      "out.avro: record 1: field '_FILE': expected a value of type record"));
  ASSERT_OK(w->Append(Entry(2)));
  ASSERT_OK_AND_ASSIGN(std::string bytes, w->Finish());
  ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(bytes, "out.avro"));
  EXPECT_EQ(f.records, (std::vector<Datum>{Entry(0), Entry(2)}));
}

// ---- Corruption: every damaged file gives a Corruption error naming the file, never a crash.

void ExpectCorruption(std::string_view bytes, const char* what) {
  auto file = ReadContainerFile(bytes, "damaged.avro");
  ASSERT_FALSE(file.ok()) << "expected an error: " << what;
  EXPECT_EQ(file.status().code(), StatusCode::kCorruption) << file.status().ToString();
  EXPECT_THAT(file.status().message(), ::testing::StartsWith("damaged.avro: "));
  EXPECT_THAT(file.status().message(), ::testing::HasSubstr(what));
}

TEST(AvroContainerTest, BadMagic) {
  std::string bytes = Write(Entries(10), Options(Codec::kNull));
  ExpectCorruption("", "bad magic");
  ExpectCorruption("Obj", "bad magic");
  ExpectCorruption("PAR1" + bytes.substr(4), "bad magic");
  bytes[3] = 2;
  ExpectCorruption(bytes, "not an Avro container file");
}

TEST(AvroContainerTest, TruncatedAnywhere) {
  for (Codec codec : kAllCodecs) {
    std::string bytes = Write(Entries(60), Options(codec, 1000));
    ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "x"));
    const size_t header_size = bytes.find(r->sync_marker()) + 16;
    for (size_t len = 0; len < bytes.size(); ++len) {
      auto file = ReadContainerFile(std::string_view(bytes).substr(0, len), "damaged.avro");
      // Cutting exactly after a block leaves a valid, shorter file; anything else is an error.
      if (file.ok()) {
        EXPECT_TRUE(len == header_size || bytes.substr(len - 16, 16) == r->sync_marker()) << len;
        continue;
      }
      EXPECT_EQ(file.status().code(), StatusCode::kCorruption) << file.status().ToString();
      EXPECT_THAT(file.status().message(), ::testing::StartsWith("damaged.avro: "));
    }
  }
  std::string bytes = Write(Entries(300), Options(Codec::kZstandard));
  ExpectCorruption(bytes.substr(0, bytes.size() - 1), "block 0 (file offset ");
  ExpectCorruption(bytes.substr(0, bytes.size() - 1), "truncated file?");
  ExpectCorruption(bytes.substr(0, 20), "invalid header metadata");
}

TEST(AvroContainerTest, WrongSyncMarker) {
  std::string bytes = Write(Entries(300), Options(Codec::kDeflate, 2000));
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "x"));
  // Damage the marker after the second block.
  size_t first = bytes.find(r->sync_marker());
  size_t second = bytes.find(r->sync_marker(), first + 16);
  size_t third = bytes.find(r->sync_marker(), second + 16);
  ASSERT_NE(third, std::string::npos);
  bytes[third + 7] ^= 0x40;
  ExpectCorruption(bytes, "block 1 (file offset ");
  ExpectCorruption(bytes, "sync marker after the block does not match");
  // The records before the damaged block are still readable one by one.
  ASSERT_OK_AND_ASSIGN(auto reader, ContainerReader::Open(bytes, "damaged.avro"));
  Datum d;
  int read = 0;
  Result<bool> more = true;
  while ((more = reader->Next(&d)).ok() && *more) ++read;
  EXPECT_GT(read, 0);
  EXPECT_THAT(more, IsError(StatusCode::kCorruption, "sync marker"));
  // And the error sticks.
  EXPECT_THAT(reader->Next(&d), IsError(StatusCode::kCorruption, "sync marker"));
}

TEST(AvroContainerTest, FlippedBytesInCompressedBlocks) {
  for (Codec codec : kAllCodecs) {
    SCOPED_TRACE(CodecName(codec));
    std::string bytes = Write(Entries(50), Options(codec));
    ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "x"));
    const size_t block_start = bytes.find(r->sync_marker()) + 16;
    const size_t block_end = bytes.size() - 16;
    int errors = 0, flips = 0;
    for (size_t pos = block_start; pos < block_end; pos += 3) {
      for (uint8_t mask : {0x01, 0x80, 0xff}) {
        std::string damaged = bytes;
        damaged[pos] ^= static_cast<char>(mask);
        ++flips;
        auto file = ReadContainerFile(damaged, "damaged.avro");
        if (file.ok()) {
          // Without a checksum (null, deflate) a flip may still decode, to other values. With one
          // (snappy, zstandard) it may only if the data came out the same anyway, e.g. a copy
          // that now points at an identical earlier run of bytes.
          if (codec == Codec::kSnappy || codec == Codec::kZstandard) {
            EXPECT_EQ(file->records, Entries(50)) << pos;
          }
          continue;
        }
        ++errors;
        EXPECT_EQ(file.status().code(), StatusCode::kCorruption) << file.status().ToString();
        EXPECT_THAT(file.status().message(), ::testing::StartsWith("damaged.avro: block 0"));
      }
    }
    EXPECT_GT(errors, codec == Codec::kNull ? 0 : flips / 2);
  }
  // The checksum catches a damaged literal in the middle of the data.
  std::string bytes = Write(Entries(200), Options(Codec::kSnappy));
  bytes[bytes.size() - 40] ^= 0x20;
  ExpectCorruption(bytes, "snappy codec: snappy block checksum mismatch");
}

TEST(AvroContainerTest, DamagedHeaderAndBlocks) {
  auto schema = MustParse(R"("long")");
  auto header = [](std::string_view schema_json, std::string_view codec) {
    std::string h(kMagic);
    AppendLong(2, &h);
    AppendBytes("avro.schema", &h);
    AppendBytes(schema_json, &h);
    AppendBytes("avro.codec", &h);
    AppendBytes(codec, &h);
    AppendLong(0, &h);
    h += "SYNCSYNCSYNCSYNC";
    return h;
  };
  ExpectCorruption(header(R"("long")", "lzma"), "unknown Avro codec 'lzma'");
  EXPECT_THAT(ReadContainerFile(header(R"("long")", "bzip2"), "f.avro"),
              IsError(StatusCode::kNotImplemented, "f.avro: the Avro codec 'bzip2'"));
  ExpectCorruption(header(R"({"type":"nope"})", "null"), "bad avro.schema: invalid Avro schema");
  std::string no_schema(kMagic);
  AppendLong(0, &no_schema);
  no_schema += "SYNCSYNCSYNCSYNC";
  ExpectCorruption(no_schema, "no avro.schema");
  std::string huge_meta(kMagic);
  AppendLong(1000000, &huge_meta);
  ExpectCorruption(huge_meta, "metadata entries");

  auto block = [](int64_t count, std::string_view data) {
    std::string b;
    AppendLong(count, &b);
    AppendLong(static_cast<int64_t>(data.size()), &b);
    b += data;
    b += "SYNCSYNCSYNCSYNC";
    return b;
  };
  std::string two_longs = "\x02\x04";
  std::string good = header(R"("long")", "null") + block(2, two_longs);
  ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(good, "ok.avro"));
  EXPECT_EQ(f.records, (std::vector<Datum>{Datum::Long(1), Datum::Long(2)}));
  // Empty blocks are skipped.
  std::string with_empty = header(R"("long")", "null") + block(0, "") + block(2, two_longs);
  ASSERT_OK_AND_ASSIGN(f, ReadContainerFile(with_empty, "ok.avro"));
  EXPECT_EQ(f.records.size(), 2u);

  ExpectCorruption(header(R"("long")", "null") + block(3, two_longs),
                   "3 records of at least 1 bytes each cannot fit in the 2 bytes");
  ExpectCorruption(header(R"("long")", "null") + block(1, two_longs),
                   "1 bytes left over after its 1 records");
  ExpectCorruption(header(R"("long")", "null") + block(-1, two_longs), "negative record count");
  ExpectCorruption(header(R"("string")", "null") + block(1,
                                                         "\x08"
                                                         "ab"),
                   "record 0 (offsets are within the decompressed block): at offset 0: length 4");
  ExpectCorruption(header(R"("null")", "null") + block(int64_t{1} << 40, ""), "may take no bytes");
  ExpectCorruption(header(R"("long")", "zstandard") + block(1, "not zstd"),
                   "zstandard codec: invalid zstandard data");
  ExpectCorruption(header(R"("long")", "deflate") + block(1, "\xff\xff\xff"),
                   "deflate codec: invalid deflate data");
  ExpectCorruption(header(R"("long")", "snappy") + block(1, "\x01"),
                   "snappy block shorter than its 4-byte checksum");
}

TEST(AvroContainerTest, DecompressionBombIsRejected) {
  auto schema = MustParse(R"("bytes")");
  std::string big(8 << 20, 'a');
  for (Codec codec : {Codec::kDeflate, Codec::kSnappy, Codec::kZstandard}) {
    SCOPED_TRACE(CodecName(codec));
    WriterOptions o;
    o.codec = codec;
    ASSERT_OK_AND_ASSIGN(std::string bytes, WriteContainerFile(schema, {Datum::Bytes(big)}, o));
    EXPECT_LT(bytes.size(), 1u << 20);
    ReaderOptions small;
    small.max_block_bytes = 1 << 20;
    auto file = ReadContainerFile(bytes, "bomb.avro", small);
    EXPECT_THAT(file, IsError(StatusCode::kCorruption, "more than the limit of 1048576"));
    ASSERT_OK_AND_ASSIGN(ContainerFile ok, ReadContainerFile(bytes, "bomb.avro"));
    EXPECT_EQ(ok.records[0].bytes().size(), big.size());
  }
}

TEST(AvroContainerTest, ZstdFramesWithoutContentSize) {
  // Java's ZstdOutputStream writes frames that do not record the decompressed size; build one with
  // the streaming API and check that the reader copes.
  auto schema = MustParse(R"("string")");
  WriterOptions o = Options(Codec::kZstandard);
  o.sync_marker = std::string(16, 'S');
  std::vector<Datum> records;
  for (int i = 0; i < 5000; ++i) records.push_back(Datum::String("value " + std::to_string(i)));
  ASSERT_OK_AND_ASSIGN(std::string bytes, WriteContainerFile(schema, records, o));
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "x"));
  // Re-compress each block as a streamed frame and rebuild the file.
  std::string rebuilt = bytes.substr(0, bytes.find(r->sync_marker()) + 16);
  std::vector<Datum> block;
  while (true) {
    ASSERT_OK_AND_ASSIGN(bool got, r->ReadBlock(&block));
    if (!got) break;
    std::string raw;
    for (const Datum& d : block) ASSERT_OK(EncodeDatum(schema->root(), d, &raw));
    // Compress with the streaming API, input first and end later, so the frame header cannot
    // record the content size.
    std::string frame(ZSTD_compressBound(raw.size()) + 64, '\0');
    ZSTD_CCtx* cctx = ZSTD_createCCtx();
    ZSTD_outBuffer out{frame.data(), frame.size(), 0};
    ZSTD_inBuffer in{raw.data(), raw.size(), 0};
    ASSERT_FALSE(ZSTD_isError(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_continue)));
    ASSERT_EQ(ZSTD_compressStream2(cctx, &out, &in, ZSTD_e_end), 0u);
    ZSTD_freeCCtx(cctx);
    frame.resize(out.pos);
    ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
    AppendLong(static_cast<int64_t>(block.size()), &rebuilt);
    AppendLong(static_cast<int64_t>(frame.size()), &rebuilt);
    rebuilt += frame;
    rebuilt += r->sync_marker();
  }
  ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(rebuilt, "streamed.avro"));
  EXPECT_EQ(f.records, records);
}

TEST(AvroContainerTest, ManyEntriesDecodeQuickly) {
  const std::vector<Datum> records = Entries(20000);
  std::string bytes = Write(records, Options(Codec::kZstandard));
  auto start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(ContainerFile f, ReadContainerFile(bytes, "many.avro"));
  auto read_all = std::chrono::steady_clock::now() - start;
  ASSERT_EQ(f.records.size(), records.size());
  start = std::chrono::steady_clock::now();
  ASSERT_OK_AND_ASSIGN(auto r, ContainerReader::Open(bytes, "many.avro"));
  Datum d;
  int64_t n = 0;
  while (*r->Next(&d)) ++n;
  auto reuse = std::chrono::steady_clock::now() - start;
  EXPECT_EQ(n, 20000);
  auto us = [](auto d) { return std::chrono::duration_cast<std::chrono::microseconds>(d).count(); };
  std::cout << "20000 entries, " << bytes.size() << " bytes: ReadAll " << us(read_all)
            << " us, Next() with reuse " << us(reuse) << " us\n";
  // Generous bound: well under a microsecond per field even in a debug build.
  EXPECT_LT(us(read_all), 2'000'000);
}

}  // namespace
}  // namespace fjord::avro
