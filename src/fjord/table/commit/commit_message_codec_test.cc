#include "fjord/table/commit/commit_message_codec.h"

#include <zlib.h>

#include <random>

#include "fjord/format/binary_row.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

DataFileMeta File(const std::string& name, int level, bool optionals) {
  DataFileMeta f;
  f.file_name = name;
  f.file_size = 1234 + level;
  f.row_count = 17;
  f.min_key = std::string("\0\0\0\1minkey", 10);
  f.max_key = std::string("\0\0\0\1maxkey", 10);
  f.key_stats.min_values = std::string("\0\0\0\0", 4);
  f.key_stats.max_values = std::string("\0\0\0\0", 4);
  f.key_stats.null_counts = std::vector<std::optional<int64_t>>{};
  f.value_stats.min_values = std::string("\0\0\0\2ab\xff", 7);
  f.value_stats.max_values = std::string("\0\0\0\2cd\x00", 7);
  f.value_stats.null_counts = std::vector<std::optional<int64_t>>{0, std::nullopt, 3};
  f.min_sequence_number = 5;
  f.max_sequence_number = 21;
  f.schema_id = 2;
  f.level = level;
  f.extra_files = {"extra-1"};
  f.creation_time_millis = 1700000000123;
  if (optionals) {
    f.delete_row_count = 4;
    f.embedded_index = std::string("\x01\x02", 2);
    f.file_source = 1;
    f.value_stats_cols = std::vector<std::string>{"a", "b"};
    f.external_path = "s3://bucket/x/" + name;
    f.first_row_id = 99;
    f.write_cols = std::vector<std::string>{"a"};
  }
  return f;
}

IndexFileMeta Index(const std::string& type, const std::string& name, bool dv) {
  IndexFileMeta f;
  f.index_type = type;
  f.file_name = name;
  f.file_size = 300;
  f.row_count = 12;
  if (dv) {
    f.dv_ranges = std::vector<DeletionVectorMeta>{{"data-1.parquet", 1, 22, 3},
                                                  {"data-2.parquet", 23, 9, std::nullopt}};
    f.external_path = "s3://bucket/idx/" + name;
  }
  return f;
}

std::vector<CommitMessage> Messages() {
  std::vector<CommitMessage> out;
  out.push_back(CommitMessage{std::string("\0\0\0\1part-a", 10),
                              0,
                              4,
                              {File("data-1.parquet", 0, false), File("data-2.parquet", 0, true)},
                              {}});
  out.push_back(CommitMessage{std::string("\0\0\0\1part-b", 10),
                              3,
                              4,
                              {File("data-3.orc", 0, true)},
                              {File("data-0.orc", 1, false), File("data-00.orc", 2, true)}});
  out.back().compact_before = {File("data-4.orc", 0, false), File("data-5.orc", 1, true)};
  out.back().compact_after = {File("data-6.orc", 2, true)};
  out.back().changelog_files = {File("changelog-1.orc", 0, true)};
  out.back().compact_changelog_files = {File("changelog-2.orc", 0, false),
                                        File("changelog-3.orc", 0, true)};
  out.back().new_index_files = {Index("HASH", "index-1", false)};
  out.back().deleted_index_files = {Index("HASH", "index-0", false)};
  out.back().compact_new_index_files = {Index("DELETION_VECTORS", "index-2", true)};
  out.back().compact_deleted_index_files = {Index("DELETION_VECTORS", "index-3", true),
                                            Index("DELETION_VECTORS", "index-4", false)};
  out.push_back(CommitMessage{std::string("\0\0\0\0", 4), -1, -1, {}, {}});  // empty
  out.push_back(CommitMessage{std::string("\0\0\0\0", 4), 1, 2, {}, {}});    // compaction only
  out.back().compact_before = {File("data-7.avro", 0, true)};
  out.back().compact_after = {File("data-8.avro", 1, true)};
  return out;
}

void ExpectSameFile(const DataFileMeta& a, const DataFileMeta& b) {
  EXPECT_EQ(a.file_name, b.file_name);
  EXPECT_EQ(a.file_size, b.file_size);
  EXPECT_EQ(a.row_count, b.row_count);
  EXPECT_EQ(a.min_key, b.min_key);
  EXPECT_EQ(a.max_key, b.max_key);
  EXPECT_EQ(a.key_stats.min_values, b.key_stats.min_values);
  EXPECT_EQ(a.value_stats.max_values, b.value_stats.max_values);
  EXPECT_EQ(a.value_stats.null_counts, b.value_stats.null_counts);
  EXPECT_EQ(a.min_sequence_number, b.min_sequence_number);
  EXPECT_EQ(a.max_sequence_number, b.max_sequence_number);
  EXPECT_EQ(a.schema_id, b.schema_id);
  EXPECT_EQ(a.level, b.level);
  EXPECT_EQ(a.extra_files, b.extra_files);
  EXPECT_EQ(a.creation_time_millis, b.creation_time_millis);
  EXPECT_EQ(a.delete_row_count, b.delete_row_count);
  EXPECT_EQ(a.embedded_index, b.embedded_index);
  EXPECT_EQ(a.file_source, b.file_source);
  EXPECT_EQ(a.value_stats_cols, b.value_stats_cols);
  EXPECT_EQ(a.external_path, b.external_path);
  EXPECT_EQ(a.first_row_id, b.first_row_id);
  EXPECT_EQ(a.write_cols, b.write_cols);
}

void ExpectSame(const std::vector<CommitMessage>& a, const std::vector<CommitMessage>& b) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) {
    EXPECT_EQ(a[i].partition, b[i].partition);
    EXPECT_EQ(a[i].bucket, b[i].bucket);
    EXPECT_EQ(a[i].total_buckets, b[i].total_buckets);
    ASSERT_EQ(a[i].new_files.size(), b[i].new_files.size());
    ASSERT_EQ(a[i].deleted_files.size(), b[i].deleted_files.size());
    for (size_t j = 0; j < a[i].new_files.size(); ++j) {
      ExpectSameFile(a[i].new_files[j], b[i].new_files[j]);
    }
    for (size_t j = 0; j < a[i].deleted_files.size(); ++j) {
      ExpectSameFile(a[i].deleted_files[j], b[i].deleted_files[j]);
    }
    auto same_files = [](const std::vector<DataFileMeta>& x, const std::vector<DataFileMeta>& y) {
      ASSERT_EQ(x.size(), y.size());
      for (size_t j = 0; j < x.size(); ++j) ExpectSameFile(x[j], y[j]);
    };
    same_files(a[i].changelog_files, b[i].changelog_files);
    same_files(a[i].compact_changelog_files, b[i].compact_changelog_files);
    auto same_index = [](const std::vector<IndexFileMeta>& x, const std::vector<IndexFileMeta>& y) {
      ASSERT_EQ(x.size(), y.size());
      for (size_t j = 0; j < x.size(); ++j) {
        EXPECT_EQ(x[j].index_type, y[j].index_type);
        EXPECT_EQ(x[j].file_name, y[j].file_name);
        EXPECT_EQ(x[j].file_size, y[j].file_size);
        EXPECT_EQ(x[j].row_count, y[j].row_count);
        EXPECT_EQ(x[j].external_path, y[j].external_path);
        ASSERT_EQ(x[j].dv_ranges.has_value(), y[j].dv_ranges.has_value());
        if (!x[j].dv_ranges) continue;
        ASSERT_EQ(x[j].dv_ranges->size(), y[j].dv_ranges->size());
        for (size_t k = 0; k < x[j].dv_ranges->size(); ++k) {
          EXPECT_EQ((*x[j].dv_ranges)[k].data_file_name, (*y[j].dv_ranges)[k].data_file_name);
          EXPECT_EQ((*x[j].dv_ranges)[k].offset, (*y[j].dv_ranges)[k].offset);
          EXPECT_EQ((*x[j].dv_ranges)[k].length, (*y[j].dv_ranges)[k].length);
          EXPECT_EQ((*x[j].dv_ranges)[k].cardinality, (*y[j].dv_ranges)[k].cardinality);
        }
      }
    };
    same_index(a[i].new_index_files, b[i].new_index_files);
    same_index(a[i].deleted_index_files, b[i].deleted_index_files);
    same_index(a[i].compact_new_index_files, b[i].compact_new_index_files);
    same_index(a[i].compact_deleted_index_files, b[i].compact_deleted_index_files);
    ASSERT_EQ(a[i].compact_before.size(), b[i].compact_before.size());
    ASSERT_EQ(a[i].compact_after.size(), b[i].compact_after.size());
    for (size_t j = 0; j < a[i].compact_before.size(); ++j) {
      ExpectSameFile(a[i].compact_before[j], b[i].compact_before[j]);
    }
    for (size_t j = 0; j < a[i].compact_after.size(); ++j) {
      ExpectSameFile(a[i].compact_after[j], b[i].compact_after[j]);
    }
  }
}

// Rebuilds a file around `body` with a valid length and checksum.
std::string Frame(std::string_view body, uint16_t version = kCommitMessageFormatVersion) {
  std::string out = "FJCOMMIT";
  out.push_back(static_cast<char>(version >> 8));
  out.push_back(static_cast<char>(version & 0xff));
  for (int i = 7; i >= 0; --i) out.push_back(static_cast<char>((body.size() >> (8 * i)) & 0xff));
  out.append(body);
  uint32_t crc = static_cast<uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(out.data()), static_cast<uInt>(out.size())));
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return out;
}

std::string Body(const std::string& file) { return file.substr(18, file.size() - 18 - 4); }

std::string Rec(uint16_t tag, std::string_view value) {
  std::string out;
  out.push_back(static_cast<char>(tag >> 8));
  out.push_back(static_cast<char>(tag & 0xff));
  uint32_t n = static_cast<uint32_t>(value.size());
  for (int i = 3; i >= 0; --i) out.push_back(static_cast<char>((n >> (8 * i)) & 0xff));
  out.append(value);
  return out;
}

TEST(CommitMessageCodecTest, RoundTrips) {
  std::vector<CommitMessage> messages = Messages();
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(messages));
  ASSERT_OK_AND_ASSIGN(std::vector<CommitMessage> back, DecodeCommitMessages(bytes));
  ExpectSame(messages, back);
  // Deterministic, and stable through a second round trip.
  ASSERT_OK_AND_ASSIGN(std::string again, EncodeCommitMessages(back));
  EXPECT_EQ(bytes, again);
}

TEST(CommitMessageCodecTest, RoundTripsNoMessagesAndNoFiles) {
  ASSERT_OK_AND_ASSIGN(std::string none, EncodeCommitMessages({}));
  ASSERT_OK_AND_ASSIGN(auto back, DecodeCommitMessages(none));
  EXPECT_TRUE(back.empty());
  std::vector<CommitMessage> empty = {CommitMessage{std::string("\0\0\0\0", 4), 1, 2, {}, {}}};
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(empty));
  ASSERT_OK_AND_ASSIGN(back, DecodeCommitMessages(bytes));
  ExpectSame(empty, back);
}

TEST(CommitMessageCodecTest, RoundTripsManyFiles) {
  std::vector<CommitMessage> messages;
  for (int m = 0; m < 50; ++m) {
    CommitMessage msg{std::string("\0\0\0\1p", 5) + std::to_string(m), m % 7, 7, {}, {}};
    for (int f = 0; f < m % 5; ++f) {
      msg.new_files.push_back(File("f-" + std::to_string(m) + "-" + std::to_string(f), 0, f % 2));
    }
    messages.push_back(std::move(msg));
  }
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(messages));
  ASSERT_OK_AND_ASSIGN(auto back, DecodeCommitMessages(bytes));
  ExpectSame(messages, back);
}

TEST(CommitMessageCodecTest, RejectsGarbageAndEmpty) {
  EXPECT_THAT(DecodeCommitMessages("", "m.bin"),
              IsError(StatusCode::kInvalid, "m.bin: not a Fjord commit-message file"));
  EXPECT_THAT(DecodeCommitMessages("{\"rows\": 1}\n", "m.bin"),
              IsError(StatusCode::kInvalid, "not a Fjord commit-message file"));
}

TEST(CommitMessageCodecTest, RejectsEveryTruncation) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = DecodeCommitMessages(std::string_view(bytes).substr(0, n), "m.bin");
    ASSERT_FALSE(r.ok()) << "prefix of " << n << " bytes decoded";
    if (n >= 8) {
      EXPECT_THAT(r, IsError(StatusCode::kCorruption, "truncated")) << n;
    }
  }
}

TEST(CommitMessageCodecTest, RejectsTrailingBytes) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  EXPECT_THAT(DecodeCommitMessages(bytes + "x", "m.bin"),
              IsError(StatusCode::kCorruption, "1 unexpected bytes after the body"));
}

TEST(CommitMessageCodecTest, RejectsOtherVersions) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  for (uint16_t v : {uint16_t{0}, uint16_t{2}, uint16_t{0xffff}}) {
    EXPECT_THAT(DecodeCommitMessages(Frame(Body(bytes), v), "m.bin"),
                IsError(StatusCode::kInvalid, "m.bin: commit-message format version " +
                                                  std::to_string(v) + " is not supported"));
  }
}

TEST(CommitMessageCodecTest, RejectsEveryFlippedByte) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string bad = bytes;
    bad[i] = static_cast<char>(bad[i] ^ 0x10);
    EXPECT_FALSE(DecodeCommitMessages(bad).ok()) << "flipped byte " << i;
  }
  std::string bad = bytes;
  bad[bytes.size() / 2] ^= 1;
  EXPECT_THAT(DecodeCommitMessages(bad), IsError(StatusCode::kCorruption, "checksum mismatch"));
}

TEST(CommitMessageCodecTest, RejectsUnknownTagsAndBadStructure) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  std::string body = Body(bytes);
  EXPECT_THAT(DecodeCommitMessages(Frame(body + Rec(9, "future"))),
              IsError(StatusCode::kInvalid, "unknown section tag 9 (written by a newer Fjord?)"));
  EXPECT_THAT(DecodeCommitMessages(Frame(body + Rec(3, "not avro"))),
              IsError(StatusCode::kCorruption, "two index-file sections"));

  std::string partition = Rec(1, std::string("\0\0\0\0", 4));
  std::string bucket = Rec(2, std::string("\0\0\0\1", 4));
  std::string total = Rec(3, std::string("\0\0\0\2", 4));
  EXPECT_OK(DecodeCommitMessages(Frame(Rec(2, partition + bucket + total))).status());
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + bucket + total + Rec(14, "")))),
              IsError(StatusCode::kInvalid, "message 0: unknown field tag 14"));
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + total))),
              IsError(StatusCode::kCorruption, "message 0: required field 'bucket' is missing"));
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + bucket + bucket + total))),
              IsError(StatusCode::kCorruption, "field tag 2 appears twice"));
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + Rec(2, "abc") + total))),
              IsError(StatusCode::kCorruption, "an int has 4 bytes, not 3"));
  // A range of files where there are none.
  std::string range = Rec(4, std::string("\0\0\0\0\0\0\0\1", 8));
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + bucket + total + range))),
              IsError(StatusCode::kCorruption, "out of range (0 data files)"));
  std::string index_range = Rec(11, std::string("\0\0\0\0\0\0\0\1", 8));
  EXPECT_THAT(DecodeCommitMessages(Frame(Rec(2, partition + bucket + total + index_range))),
              IsError(StatusCode::kCorruption,
                      "deleted index files: files 0..1 out of range (0 index files)"));
  // A record longer than what remains.
  std::string cut = Rec(2, partition + bucket + total);
  cut[5] = static_cast<char>(cut[5] + 1);
  EXPECT_THAT(DecodeCommitMessages(Frame(cut)), IsError(StatusCode::kCorruption, "only"));
  // A data-file section that is not Avro.
  EXPECT_FALSE(DecodeCommitMessages(Frame(Rec(1, "not avro"))).ok());
}

TEST(CommitMessageCodecTest, RejectsFilesUsedTwiceOrNotAtAll) {
  std::vector<CommitMessage> one = {
      CommitMessage{std::string("\0\0\0\0", 4), 0, 1, {File("a", 0, false)}, {}}};
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(one));
  std::string body = Body(bytes);
  // The body is: data-file section, then the message. Drop the message: the file is orphaned.
  std::vector<std::string> records;
  size_t pos = 0;
  while (pos < body.size()) {
    uint32_t n = (static_cast<unsigned char>(body[pos + 2]) << 24) |
                 (static_cast<unsigned char>(body[pos + 3]) << 16) |
                 (static_cast<unsigned char>(body[pos + 4]) << 8) |
                 static_cast<unsigned char>(body[pos + 5]);
    records.push_back(body.substr(pos, 6 + n));
    pos += 6 + n;
  }
  ASSERT_EQ(records.size(), 2u);
  EXPECT_THAT(DecodeCommitMessages(Frame(records[0])),
              IsError(StatusCode::kCorruption, "data file 0 (a) belongs to no message"));
  EXPECT_THAT(DecodeCommitMessages(Frame(records[0] + records[1] + records[1])),
              IsError(StatusCode::kCorruption, "is referenced twice"));

  // The same for index files: body = index section, then the message.
  CommitMessage with_index{std::string("\0\0\0\0", 4), 0, 1, {}, {}};
  with_index.new_index_files = {Index("HASH", "index-a", false)};
  ASSERT_OK_AND_ASSIGN(bytes, EncodeCommitMessages({with_index}));
  body = Body(bytes);
  uint32_t n = (static_cast<unsigned char>(body[2]) << 24) |
               (static_cast<unsigned char>(body[3]) << 16) |
               (static_cast<unsigned char>(body[4]) << 8) | static_cast<unsigned char>(body[5]);
  std::string index_section = body.substr(0, 6 + n), message = body.substr(6 + n);
  EXPECT_THAT(DecodeCommitMessages(Frame(index_section)),
              IsError(StatusCode::kCorruption, "index file 0 (index-a) belongs to no message"));
  EXPECT_THAT(DecodeCommitMessages(Frame(index_section + message + message)),
              IsError(StatusCode::kCorruption, "index file 0 (index-a) is referenced twice"));
  // An index file whose kind does not match the list it is in.
  CommitMessage wrong = with_index;
  wrong.deleted_index_files = wrong.new_index_files;
  wrong.new_index_files.clear();
  ASSERT_OK_AND_ASSIGN(std::string deleted_bytes, EncodeCommitMessages({wrong}));
  std::string deleted_body = Body(deleted_bytes);
  EXPECT_THAT(DecodeCommitMessages(Frame(index_section + deleted_body.substr(6 + n))),
              IsError(StatusCode::kCorruption, "does not match its message"));
}

TEST(CommitMessageCodecTest, RandomMutationsNeverCrash) {
  ASSERT_OK_AND_ASSIGN(std::string bytes, EncodeCommitMessages(Messages()));
  std::string body = Body(bytes);
  std::mt19937 rng(7);
  for (int i = 0; i < 2000; ++i) {
    std::string b = body;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t at = rng() % b.size();
      b[at] = static_cast<char>(rng());
    }
    // Framed with a valid checksum, so the decoder's structural checks are what stop it.
    (void)DecodeCommitMessages(Frame(b));
  }
}

}  // namespace
}  // namespace fjord
