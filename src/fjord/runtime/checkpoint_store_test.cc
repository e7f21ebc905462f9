#include "fjord/runtime/checkpoint_store.h"

#include <gtest/gtest.h>
#include <zlib.h>

#include <filesystem>
#include <fstream>

#include "fjord/testing/test_util.h"

namespace fjord::runtime {
namespace {

CheckpointState Sample(int64_t id) {
  CheckpointState s;
  s.checkpoint_id = id;
  s.commit_user = "user-1";
  s.job_name = "job";
  s.source_position = R"({"file":"a","offset":12,"line":3})";
  s.pending.push_back({id - 1, "p1", {{"", std::string("\0\1\2bytes", 8)}}});
  s.pending.push_back({id, s.source_position, {{"db.a", "more"}, {"db.b", "other"}}});
  return s;
}

TEST(CheckpointStoreTest, RoundTrip) {
  CheckpointState s = Sample(7);
  std::string bytes = EncodeCheckpoint(s);
  ASSERT_OK_AND_ASSIGN(CheckpointState back, DecodeCheckpoint(bytes, "f"));
  EXPECT_EQ(back.checkpoint_id, 7);
  EXPECT_EQ(back.commit_user, "user-1");
  EXPECT_EQ(back.job_name, "job");
  EXPECT_EQ(back.source_position, s.source_position);
  ASSERT_EQ(back.pending.size(), 2u);
  EXPECT_EQ(back.pending[0].checkpoint_id, 6);
  EXPECT_EQ(back.pending[0].tables, s.pending[0].tables);
  EXPECT_EQ(back.pending[1].source_position, s.source_position);
  EXPECT_EQ(back.pending[1].tables, s.pending[1].tables);
}

// Checkpoints of Fjord before CDC jobs (format version 1: one table's messages per pending
// commit) are read as the messages of the job's one table.
TEST(CheckpointStoreTest, ReadsVersionOne) {
  auto u32 = [](std::string* out, uint32_t v) {
    for (int i = 0; i < 4; ++i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  };
  auto i64 = [](std::string* out, int64_t v) {
    for (int i = 0; i < 8; ++i)
      out->push_back(static_cast<char>((static_cast<uint64_t>(v) >> (8 * i)) & 0xff));
  };
  auto bytes = [&](std::string* out, const std::string& b) {
    i64(out, static_cast<int64_t>(b.size()));
    out->append(b);
  };
  std::string v1 = "FJORD-CHECKPOINT\n";
  u32(&v1, 1);
  i64(&v1, 5);
  bytes(&v1, "user");
  bytes(&v1, "job");
  bytes(&v1, "pos");
  i64(&v1, 1);
  i64(&v1, 5);
  bytes(&v1, "pos");
  bytes(&v1, "msgs");
  u32(&v1, static_cast<uint32_t>(
               crc32(0L, reinterpret_cast<const Bytef*>(v1.data()), static_cast<uInt>(v1.size()))));
  ASSERT_OK_AND_ASSIGN(CheckpointState back, DecodeCheckpoint(v1, "old"));
  EXPECT_EQ(back.checkpoint_id, 5);
  ASSERT_EQ(back.pending.size(), 1u);
  EXPECT_EQ(back.pending[0].tables, (std::map<std::string, std::string>{{"", "msgs"}}));
}

TEST(CheckpointStoreTest, DamagedOrTornRefused) {
  std::string bytes = EncodeCheckpoint(Sample(3));
  // Every truncation and every single-byte change is refused.
  for (size_t n = 0; n < bytes.size(); ++n) {
    auto r = DecodeCheckpoint(std::string_view(bytes).substr(0, n), "cp");
    ASSERT_FALSE(r.ok()) << n;
    EXPECT_EQ(r.status().code(), StatusCode::kCorruption);
    EXPECT_NE(r.status().message().find("cp"), std::string::npos);
  }
  for (size_t i = 0; i < bytes.size(); ++i) {
    std::string damaged = bytes;
    damaged[i] = static_cast<char>(damaged[i] ^ 0x20);
    EXPECT_FALSE(DecodeCheckpoint(damaged, "cp").ok()) << i;
  }
}

TEST(CheckpointStoreTest, SaveLoadRetainAndCommitUser) {
  fjord::testing::TempDir dir;
  CheckpointStore store(dir.path(), 2);
  ASSERT_OK(store.Init());
  ASSERT_OK_AND_ASSIGN(auto none, store.LoadLatest());
  EXPECT_FALSE(none.has_value());
  for (int64_t id = 1; id <= 4; ++id) ASSERT_OK(store.Save(Sample(id)));
  ASSERT_OK_AND_ASSIGN(auto latest, store.LoadLatest());
  ASSERT_TRUE(latest.has_value());
  EXPECT_EQ(latest->checkpoint_id, 4);
  EXPECT_FALSE(std::filesystem::exists(store.CheckpointPath(2)));
  EXPECT_TRUE(std::filesystem::exists(store.CheckpointPath(3)));
  // A leftover temporary file (a crash mid-write) is not a checkpoint.
  std::ofstream(store.CheckpointPath(5) + ".tmp") << "half";
  ASSERT_OK_AND_ASSIGN(latest, store.LoadLatest());
  EXPECT_EQ(latest->checkpoint_id, 4);
  // The latest damaged: refused naming it, never an older one instead.
  std::ofstream(store.CheckpointPath(9), std::ios::binary) << "FJORD-CHECKPOINT\nxx";
  auto damaged = store.LoadLatest();
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("checkpoint-9"), std::string::npos);

  ASSERT_OK_AND_ASSIGN(std::string user, store.CommitUser("first"));
  EXPECT_EQ(user, "first");
  ASSERT_OK_AND_ASSIGN(user, store.CommitUser("second"));
  EXPECT_EQ(user, "first");  // generated once, kept
}

}  // namespace
}  // namespace fjord::runtime
