#include "fjord/lsm/write_buffer.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <future>
#include <map>
#include <random>
#include <thread>

#include "fjord/common/executor.h"
#include "fjord/common/recycling_pool.h"
#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Record;

// `n` records with random keys below `key_space`, kinds and values, numbered from `*seq` on; each
// becomes its key's entry in `model` (arrival order = sequence order: the last one wins).
std::vector<Record> RandomRecords(std::mt19937_64& rng, int n, uint64_t key_space, int64_t* seq,
                                  std::map<int32_t, Record>* model) {
  std::vector<Record> batch;
  for (int i = 0; i < n; ++i) {
    Record r{static_cast<int32_t>(rng() % key_space), (*seq)++, static_cast<int8_t>(rng() % 4),
             static_cast<int64_t>(rng())};
    batch.push_back(r);
    (*model)[r.key] = r;
  }
  return batch;
}

TEST(SortBufferTest, SpilledAndInMemoryRunsMergeToTheSameResultAsNoSpill) {
  std::mt19937_64 rng(5);
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  for (int round = 0; round < 12; ++round) {
    SpillOptions options;
    options.spill_dir = dir.Join("spill");
    options.max_spill_files = 3;  // forces merging of spill files too
    options.chunk_rows = 1 + static_cast<int64_t>(rng() % 50);
    options.compression = round % 3 == 0 ? "none" : (round % 3 == 1 ? "zstd" : "lz4");
    SortBuffer buffer(layout, options);
    std::map<int32_t, Record> model;
    int64_t seq = 0;
    int spills = 0;
    for (int b = 0; b < 20; ++b) {
      int n = static_cast<int>(rng() % 100);
      std::vector<Record> batch = RandomRecords(rng, n, 200, &seq, &model);
      ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
      if (rng() % 3 == 0) {
        ASSERT_OK(buffer.Spill());
        ++spills;
      }
    }
    EXPECT_LE(buffer.spill_file_count(), 3);
    EXPECT_EQ(buffer.record_count(), seq);
    // Even rounds: spill files read on threads of their own.
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns(/*read_ahead=*/round % 2 == 0));
    EXPECT_TRUE(buffer.empty());
    ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs)));
    ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
    std::vector<Record> expected;
    for (const auto& [k, r] : model) expected.push_back(r);
    ASSERT_EQ(out, expected) << "round " << round << " after " << spills << " spills";
    reader.reset();
    // Every spill file is gone once its run was read.
    size_t left = 0;
    if (std::filesystem::exists(options.spill_dir)) {
      for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(options.spill_dir))
        ++left;
    }
    EXPECT_EQ(left, 0u);
  }
}

// With a RecyclingPool the sorted chunks, the spill files read back and the merged batches all
// come from its arenas; a second round of the same size maps nothing more (its pages are those
// the first round freed), and every buffer is back once the runs are read.
TEST(SortBufferTest, ARecyclingPoolServesEveryRoundFromTheSamePages) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  RecyclingPool::Handle pool = RecyclingPool::Make();
  int64_t mapped_after_first = 0;
  for (int round = 0; round < 3; ++round) {
    SpillOptions options;
    options.spill_dir = dir.Join("spill");
    options.pool = pool.get();
    options.sort_chunk_bytes = int64_t{1} << 20;
    SortBuffer buffer(layout, options);
    std::map<int32_t, Record> model;
    std::mt19937_64 rng(round);
    int64_t seq = 0;
    for (int b = 0; b < 6; ++b) {
      std::vector<Record> batch;
      for (int i = 0; i < 30000; ++i) {
        Record r{static_cast<int32_t>(rng() % 100000), seq++, 0, static_cast<int64_t>(rng())};
        batch.push_back(r);
        model[r.key] = r;
      }
      ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
      if (b == 1 || b == 3) ASSERT_OK(buffer.Spill());
    }
    EXPECT_GT(pool->bytes_allocated(), 0);  // the last chunks, in memory
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns(/*read_ahead=*/round == 1));
    KvMergeOptions merge_options;
    merge_options.pool = pool.get();
    ASSERT_OK_AND_ASSIGN(auto reader,
                         KvMergeReader::Make(layout, nullptr, std::move(runs), merge_options));
    ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
    std::vector<Record> expected;
    for (const auto& [k, r] : model) expected.push_back(r);
    ASSERT_EQ(out, expected) << "round " << round;
    reader.reset();
    EXPECT_EQ(pool->bytes_allocated(), 0) << "round " << round;
    EXPECT_GT(pool->mapped_bytes(), 0);
    if (round == 0) mapped_after_first = pool->mapped_bytes();
    EXPECT_EQ(pool->mapped_bytes(), mapped_after_first) << "round " << round;
  }
}

// Runs read ahead on their own threads may be dropped unread or half read: their threads stop
// and their spill files are deleted.
TEST(SortBufferTest, RunsReadAheadCanBeDroppedBeforeTheEnd) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  for (int read_batches : {0, 1, 3}) {
    SpillOptions options;
    options.spill_dir = dir.Join("spill");
    options.chunk_rows = 10;
    SortBuffer buffer(layout, options);
    for (int s = 0; s < 4; ++s) {
      std::vector<Record> batch;
      for (int i = 0; i < 200; ++i) batch.push_back(Record{i, s * 200 + i, 0, i});
      ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
      ASSERT_OK(buffer.Spill());
    }
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns(/*read_ahead=*/true));
    ASSERT_EQ(runs.size(), 4u);
    for (int b = 0; b < read_batches; ++b) {
      ASSERT_OK_AND_ASSIGN(auto batch, runs[0]->Next());
      ASSERT_NE(batch, nullptr);
      EXPECT_EQ(batch->num_rows(), 10);
    }
    runs.clear();
    size_t left = 0;
    for ([[maybe_unused]] auto& e : std::filesystem::directory_iterator(options.spill_dir)) ++left;
    EXPECT_EQ(left, 0u) << read_batches;
  }
}

// Spill files are one compressed stream each: zstd and LZ4 files are smaller than uncompressed
// ones of the same (compressible) rows; an unknown codec fails naming the option, nothing lost.
TEST(SortBufferTest, SpillFilesAreCompressedAsAWhole) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  std::vector<Record> batch;
  for (int i = 0; i < 20000; ++i) batch.push_back(Record{i % 100, i, 0, i % 7});
  std::map<std::string, int64_t> sizes;
  for (std::string codec : {"none", "zstd", "lz4"}) {
    SpillOptions options;
    options.spill_dir = dir.Join("spill-" + codec);
    options.compression = codec;
    SortBuffer buffer(layout, options);
    ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
    ASSERT_OK(buffer.Spill());
    sizes[codec] = buffer.spilled_bytes();
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
    ASSERT_OK_AND_ASSIGN(auto reader,
                         KvMergeReader::Make(layout, nullptr, std::move(runs), KvMergeOptions{}));
    ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
    EXPECT_EQ(out.size(), 100u) << codec;
  }
  EXPECT_LT(sizes["zstd"] * 4, sizes["none"]);
  EXPECT_LT(sizes["lz4"] * 2, sizes["none"]);

  SpillOptions bad;
  bad.spill_dir = dir.Join("spill-bad");
  bad.compression = "brotli";
  SortBuffer buffer(layout, bad);
  ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
  Status st = buffer.Spill();
  EXPECT_NE(st.message().find("spill-compression"), std::string::npos) << st.ToString();
  EXPECT_EQ(buffer.record_count(), 20000);
}

// A spill taken out of the buffer (TakeSpill) is written on another thread while the buffer takes
// new records; the runs then hold every record once, in the same merge result as without spills.
TEST(SortBufferTest, TakenSpillsAreWrittenElsewhereWhileRecordsArrive) {
  std::mt19937_64 rng(11);
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  SpillOptions options;
  options.spill_dir = dir.Join("spill");
  options.max_spill_files = 4;  // TakeSpill merges the written files first
  SortBuffer buffer(layout, options);
  std::map<int32_t, Record> model;
  int64_t seq = 0;
  int written = 0;
  for (int round = 0; round < 10; ++round) {
    auto add = [&] {
      return buffer.Add(testing_kv::ToBatch(layout, RandomRecords(rng, 300, 500, &seq, &model)));
    };
    ASSERT_OK(add());
    const int64_t before = buffer.memory_bytes();
    ASSERT_OK_AND_ASSIGN(std::unique_ptr<SpillJob> job, buffer.TakeSpill());
    ASSERT_NE(job, nullptr);
    // The records as sorted for the spill (sorting copies them once, without padding).
    EXPECT_GT(job->memory_bytes(), 0);
    EXPECT_LE(job->memory_bytes(), before);
    EXPECT_EQ(buffer.memory_bytes(), 0);
    EXPECT_LE(buffer.spill_file_count(), 4);
    Status st;
    std::thread writer([&] { st = job->Write(); });
    ASSERT_OK(add());  // the buffer goes on meanwhile
    writer.join();
    ASSERT_OK(st);
    EXPECT_GT(job->file_bytes(), 0);
    ++written;
  }
  ASSERT_OK_AND_ASSIGN(auto last, buffer.TakeSpill());  // records in memory: a job
  ASSERT_NE(last, nullptr);
  ASSERT_OK(last->Write());
  ASSERT_OK_AND_ASSIGN(auto empty, buffer.TakeSpill());  // nothing in memory: no job
  EXPECT_EQ(empty, nullptr);
  EXPECT_EQ(buffer.record_count(), seq);
  EXPECT_GT(buffer.spilled_bytes(), 0);
  ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
  ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs)));
  ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
  std::vector<Record> expected;
  for (const auto& [k, r] : model) expected.push_back(r);
  ASSERT_EQ(out, expected) << written << " spills written elsewhere";
}

// Full chunks sorted on another thread (SpillOptions::background) come out as sorted inline: in
// key and sequence order, none lost, their bytes counted meanwhile. The executor may run a sort
// at once, later or never (a dropped task is sorted by whoever waits for it).
TEST(SortBufferTest, ChunksSortedInTheBackgroundComeOutAsSortedInline) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  for (const std::string mode : {"pool", "later", "dropped"}) {
    SCOPED_TRACE(mode);
    std::mt19937_64 rng(17);
    ThreadPool pool(1);
    std::vector<std::function<Status()>> handed;
    std::vector<std::future<Status>> running;
    SpillOptions options;
    options.spill_dir = dir.Join("spill-" + mode);
    options.sort_chunk_bytes = 40 << 10;  // two batches
    options.background = [&](std::function<Status()> run) {
      if (mode == "pool") {
        running.push_back(pool.Submit(std::move(run)));
      } else {
        handed.push_back(std::move(run));
      }
    };
    SortBuffer buffer(layout, options);
    std::map<int32_t, Record> model;
    int64_t seq = 0;
    int64_t added_bytes = 0;
    for (int b = 0; b < 24; ++b) {
      // Not a small batch: counted as it is.
      auto records = testing_kv::ToBatch(layout, RandomRecords(rng, 1100, 3000, &seq, &model));
      added_bytes += arrow::util::ReferencedBufferSize(*records).ValueOrDie();
      ASSERT_OK(buffer.Add(records));
      if (b == 15) {
        // A spill takes the chunks sorted so far (waiting for those still being sorted).
        if (mode == "later") {
          for (size_t i = 0; i < handed.size(); i += 2) ASSERT_OK(handed[i]());
        }
        EXPECT_EQ(buffer.memory_bytes(), added_bytes);  // sorting or not, every byte counted
        ASSERT_OK(buffer.Spill());
        EXPECT_EQ(buffer.memory_bytes(), 0);
        added_bytes = 0;
      }
    }
    EXPECT_EQ(handed.size() + running.size(), 12u);  // every full chunk went to the executor
    EXPECT_EQ(buffer.record_count(), seq);
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
    for (auto& f : running) ASSERT_OK(f.get());
    // A task runs once: handed to its executor after it was taken, it does nothing.
    for (auto& run : handed) ASSERT_OK(run());
    ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs)));
    ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
    std::vector<Record> expected;
    for (const auto& [k, r] : model) expected.push_back(r);
    ASSERT_EQ(out, expected);
  }
}

TEST(SortBufferTest, SortChunksAreASixteenthOfTheBufferWithinFourToSixteenMegabytes) {
  constexpr int64_t kMb = int64_t{1} << 20;
  EXPECT_EQ(SortChunkBytes(256 * kMb), 16 * kMb);  // the default write-buffer-size
  EXPECT_EQ(SortChunkBytes(8 * 1024 * kMb), 16 * kMb);
  EXPECT_EQ(SortChunkBytes(128 * kMb), 8 * kMb);
  EXPECT_EQ(SortChunkBytes(1 * kMb), 4 * kMb);
}

TEST(SortBufferTest, MemoryIsCountedAndReleasedBySpill) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  SpillOptions options;
  options.spill_dir = dir.Join("spill");
  SortBuffer buffer(layout, options);
  std::vector<Record> batch;
  for (int i = 0; i < 1000; ++i) batch.push_back(Record{1000 - i, i, 0, i});
  ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
  EXPECT_GE(buffer.memory_bytes(), 1000 * (4 + 8 + 8 + 1));
  ASSERT_OK(buffer.Spill());
  EXPECT_EQ(buffer.memory_bytes(), 0);
  EXPECT_EQ(buffer.spill_file_count(), 1);
  EXPECT_GT(buffer.spilled_bytes(), 0);
}

// A writer of many buckets gives each bucket a few rows per Write. Held as they come, thousands of
// tiny batches would take many times their rows' bytes in padded Arrow buffers; joined, they take
// about what one batch of the same rows takes, and still come out in key and arrival order.
TEST(SortBufferTest, ManyTinyBatchesAreJoinedAndKeepTheirOrder) {
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  SpillOptions options;
  options.spill_dir = dir.Join("spill");
  std::mt19937_64 rng(11);
  std::vector<std::vector<Record>> batches;
  std::vector<Record> all;
  std::map<int32_t, Record> model;
  int64_t seq = 0;
  for (int b = 0; b < 6000; ++b) {
    // Mostly 1-3 rows; now and then a batch too large to be joined.
    int n = b % 997 == 0 ? 1500 : 1 + static_cast<int>(rng() % 3);
    std::vector<Record> batch;
    for (int i = 0; i < n; ++i) {
      Record r{static_cast<int32_t>(rng() % 5000), seq++, 0, static_cast<int64_t>(rng())};
      batch.push_back(r);
      all.push_back(r);
      model[r.key] = r;
    }
    batches.push_back(std::move(batch));
  }
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  int64_t one_batch = 0;
  {
    int64_t before = pool->bytes_allocated();
    auto whole = testing_kv::ToBatch(layout, all);
    one_batch = pool->bytes_allocated() - before;
  }
  SortBuffer buffer(layout, options);
  int64_t before = pool->bytes_allocated();
  for (const auto& batch : batches) ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
  int64_t held = pool->bytes_allocated() - before;
  EXPECT_LT(held, 3 * one_batch) << "one batch of the rows: " << one_batch;
  EXPECT_EQ(buffer.record_count(), seq);
  ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
  ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs)));
  ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
  std::vector<Record> expected;
  for (const auto& [k, r] : model) expected.push_back(r);
  EXPECT_EQ(out, expected);
}

// The budget sees what small batches really take: the builders they go into reserve by doubling,
// and the reserved bytes count, not only the rows' (a thousand buckets each holding a few hundred
// rows in half-empty builders went over twice the buffer).
TEST(SortBufferTest, SmallBatchesCountTheirBuildersReservedBytes) {
  testing::TempDir dir;
  TableSchema schema = testing_kv::Schema({});
  schema.fields[1] = DataField{1, "s", DataType::String(), {}, {}};
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  SpillOptions options;
  options.spill_dir = dir.Join("spill");
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  int64_t seq = 0;
  for (int b = 0; b < 100; ++b) {  // 500 rows: below the 1,024 that close a builder batch
    arrow::Int32Builder k;
    arrow::StringBuilder v;
    arrow::Int64Builder sq;
    arrow::Int8Builder kind;
    for (int i = 0; i < 5; ++i) {
      ASSERT_TRUE(k.Append(b * 5 + i).ok());
      ASSERT_TRUE(v.Append(std::string(static_cast<size_t>(20 + (b * 7 + i) % 40), 'x')).ok());
      ASSERT_TRUE(sq.Append(seq++).ok());
      ASSERT_TRUE(kind.Append(0).ok());
    }
    batches.push_back(
        arrow::RecordBatch::Make(layout.schema, 5,
                                 {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
                                  sq.Finish().ValueOrDie(), kind.Finish().ValueOrDie()}));
  }
  arrow::MemoryPool* pool = arrow::default_memory_pool();
  SortBuffer buffer(layout, options);
  int64_t before = pool->bytes_allocated();
  for (const auto& batch : batches) ASSERT_OK(buffer.Add(batch));
  int64_t allocated = pool->bytes_allocated() - before;  // the builders only: the batches are ours
  ASSERT_GT(allocated, 0);
  EXPECT_GE(buffer.memory_bytes(), allocated * 9 / 10) << "allocated " << allocated;
  EXPECT_LE(buffer.memory_bytes(), allocated * 3 / 2) << "allocated " << allocated;
  EXPECT_EQ(buffer.record_count(), 500);
  // Taken as runs, nothing is left counted.
  ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
  EXPECT_EQ(buffer.memory_bytes(), 0);
}

TEST(SortBufferTest, UnwritableSpillDirectoryIsAClearErrorAndKeepsTheRecords) {
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  SpillOptions options;
  options.spill_dir = "/proc/fjord-cannot-create-this";
  SortBuffer buffer(layout, options);
  ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, {{1, 0, 0, 1}, {2, 1, 0, 2}})));
  EXPECT_THAT(buffer.Spill(), HasStatusCode(StatusCode::kIOError));
  EXPECT_EQ(buffer.record_count(), 2);
  ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
  ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs)));
  ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
  EXPECT_EQ(out, (std::vector<Record>{{1, 0, 0, 1}, {2, 1, 0, 2}}));
}

// A deduplicating table's buffer (last_record_wins) spills only the last record of each key among
// the records it holds: a spill of everything leaves one record per key, the newest, and the flush
// merges to the same result as a buffer that kept every record.
TEST(SortBufferTest, ALastRecordWinsSpillKeepsOnlyEachKeysNewestRecord) {
  std::mt19937_64 rng(11);
  testing::TempDir dir;
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(testing_kv::Schema({})));
  for (int round = 0; round < 6; ++round) {
    SpillOptions options;
    options.spill_dir = dir.Join("spill" + std::to_string(round));
    options.max_spill_files = 2;  // merging spill files keeps the last record too
    options.chunk_rows = 1 + static_cast<int64_t>(rng() % 40);
    options.last_record_wins = true;
    SortBuffer buffer(layout, options);
    std::map<int32_t, Record> model;
    int64_t seq = 0;
    for (int b = 0; b < 12; ++b) {
      std::vector<Record> batch;
      for (int i = 0; i < 80; ++i) {
        Record r{static_cast<int32_t>(rng() % 60), seq++, static_cast<int8_t>(rng() % 4),
                 static_cast<int64_t>(rng())};
        batch.push_back(r);
        model[r.key] = r;
      }
      ASSERT_OK(buffer.Add(testing_kv::ToBatch(layout, batch)));
      if (round % 2 == 0 || b == 11) ASSERT_OK(buffer.Spill());
    }
    std::vector<Record> expected;
    for (const auto& [k, r] : model) expected.push_back(r);
    ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
    KvMergeOptions all;
    all.keep_all_records = true;
    ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs), all));
    ASSERT_OK_AND_ASSIGN(auto out, testing_kv::ReadAll(reader.get()));
    if (round % 2 == 1) {
      // One spill of all 960 records: each of the 60 keys once, its newest record.
      EXPECT_EQ(out, expected) << "round " << round;
    } else {
      // A spill per batch (merged as they pass two files): at most one record per key and file,
      // fewer than were added, and the newest of each key among them.
      EXPECT_LT(static_cast<int64_t>(out.size()), seq);
      std::map<int32_t, Record> last;
      for (const Record& r : out) last[r.key] = r;
      std::vector<Record> merged;
      for (const auto& [k, r] : last) merged.push_back(r);
      EXPECT_EQ(merged, expected) << "round " << round;
    }
  }
}

// Sort chunks compare keys by their first 8 encoded bytes first: keys that share those bytes,
// keys that are prefixes of others, and keys with zero bytes in them still come out in byte order
// (the encoding's order), equal keys in arrival order.
TEST(SortBufferTest, KeysSharingTheirFirstBytesSortInByteOrder) {
  testing::TempDir dir;
  TableSchema schema;
  schema.version = 3;
  schema.fields = {DataField{0, "k", DataType::String(false), {}, {}},
                   DataField{1, "v", DataType::BigInt(), {}, {}}};
  schema.highest_field_id = 1;
  schema.primary_keys = {"k"};
  ASSERT_OK_AND_ASSIGN(KvLayout layout, KvLayout::Make(schema));
  SpillOptions options;
  options.spill_dir = dir.Join("spill");
  SortBuffer buffer(layout, options);
  std::mt19937_64 rng(3);
  const std::vector<std::string> stems = {
      "",         "a",        std::string("a\0", 2),        "abcdefg",     "abcdefgh", "abcdefghi",
      "abcdefgh", "abcdefgz", std::string("abcdefgh\0", 9), "zzzzzzzzzzzz"};
  std::vector<std::pair<std::string, int64_t>> added;
  arrow::StringBuilder k;
  arrow::Int64Builder v, seq;
  arrow::Int8Builder kind;
  for (int64_t i = 0; i < 2000; ++i) {
    std::string key = stems[rng() % stems.size()];
    if (rng() % 2 == 0) key += std::string(1, static_cast<char>(rng() % 3));
    added.emplace_back(key, i);
    ASSERT_TRUE(k.Append(key).ok());
    ASSERT_TRUE(v.Append(i).ok());
    // Sequence numbers repeat: equal (key, sequence) pairs keep their arrival order.
    ASSERT_TRUE(seq.Append(i % 7).ok());
    ASSERT_TRUE(kind.Append(0).ok());
  }
  ASSERT_OK(buffer.Add(
      arrow::RecordBatch::Make(layout.schema, 2000,
                               {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
                                seq.Finish().ValueOrDie(), kind.Finish().ValueOrDie()})));
  std::stable_sort(added.begin(), added.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first < b.first;
    return a.second % 7 < b.second % 7;
  });
  ASSERT_OK_AND_ASSIGN(auto runs, buffer.TakeRuns());
  KvMergeOptions all;
  all.keep_all_records = true;
  ASSERT_OK_AND_ASSIGN(auto reader, KvMergeReader::Make(layout, nullptr, std::move(runs), all));
  std::vector<std::pair<std::string, int64_t>> out;
  while (true) {
    ASSERT_OK_AND_ASSIGN(auto batch, reader->Next());
    if (!batch) break;
    auto keys = std::static_pointer_cast<arrow::StringArray>(batch->column(0));
    auto values = std::static_pointer_cast<arrow::Int64Array>(batch->column(1));
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      out.emplace_back(std::string(keys->GetView(r)), values->Value(r));
    }
  }
  ASSERT_EQ(out.size(), added.size());
  for (size_t i = 0; i < out.size(); ++i) {
    ASSERT_EQ(out[i], added[i]) << "row " << i;
  }
}

}  // namespace
}  // namespace fjord
