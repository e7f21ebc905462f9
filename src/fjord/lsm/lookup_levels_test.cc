#include "fjord/lsm/lookup_levels.h"

#include <arrow/api.h>
#include <arrow/json/from_string.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <thread>

#include "fjord/format/arrow_types.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

// A column of the test tables: its field and the JSON of its value for (key id, version).
struct Column {
  DataField field;
  bool key = false;
  std::function<std::string(int64_t id, int64_t version)> json;
};

// What the levels hold for one key: the file's level, its name, the row's physical position and
// where its expected record sits (the sorted batch written to the file, and the row in it).
struct Stored {
  int32_t level;
  std::string file;
  int64_t position;
  bool deleted;
  std::shared_ptr<arrow::RecordBatch> batch;
  int64_t row;
};

// A bucket of random data files in levels 1..3 (disjoint key ranges inside each level), some rows
// deleted by deletion vectors, and a model of what each key's lookup must return.
class Bucket {
 public:
  explicit Bucket(std::vector<Column> columns, uint32_t seed = 7) : rng_(seed) {
    schema_.version = 3;
    for (size_t i = 0; i < columns.size(); ++i) {
      columns[i].field.id = static_cast<int32_t>(i);
      schema_.fields.push_back(columns[i].field);
      if (columns[i].key) schema_.primary_keys.push_back(columns[i].field.name);
    }
    schema_.highest_field_id = static_cast<int32_t>(columns.size()) - 1;
    schema_.options = {{"target-file-size", "1 gb"}};
    columns_ = std::move(columns);
    layout_ = KvLayout::Make(schema_).value();
    encoder_ = std::make_unique<SortKeyEncoder>(layout_.KeyEncoder().value());
    readers_ = std::make_unique<KvFileReaderFactory>(io_, dir_.path(), schema_);
  }

  std::string bucket_dir() const { return dir_.Join("bucket-0"); }
  const KvLayout& layout() const { return layout_; }
  KvFileReaderFactory* readers() { return readers_.get(); }
  const std::vector<DataFileMeta>& files() const { return files_; }
  std::vector<DataFileMeta>& mutable_files() { return files_; }

  // Records of `ids` at `version`, in the layout schema, unsorted.
  std::shared_ptr<arrow::RecordBatch> Rows(const std::vector<int64_t>& ids, int64_t version) {
    arrow::ArrayVector arrays;
    for (const Column& c : columns_) {
      std::string json = "[";
      for (size_t i = 0; i < ids.size(); ++i) {
        json += (i ? "," : "") + c.json(ids[i], version);
      }
      json += "]";
      auto type = ToArrowType(*c.field.type).value();
      auto array = arrow::json::ArrayFromJSONString(type, json);
      EXPECT_TRUE(array.ok()) << c.field.name << ": " << array.status().ToString() << " " << json;
      arrays.push_back(*array);
    }
    arrow::Int64Builder seq;
    arrow::Int8Builder kind;
    for (size_t i = 0; i < ids.size(); ++i) {
      (void)seq.Append(version * 1000000 + static_cast<int64_t>(i));
      (void)kind.Append(0);
    }
    arrays.push_back(seq.Finish().ValueOrDie());
    arrays.push_back(kind.Finish().ValueOrDie());
    return arrow::RecordBatch::Make(layout_.schema, static_cast<int64_t>(ids.size()), arrays);
  }

  // The encoded key of id.
  std::string Key(int64_t id) {
    auto batch = Rows({id}, 0);
    return std::string(encoder_->Encode(*batch).value()[0]);
  }

  // Fills levels 1..3: each takes a random share of `universe` ids (in key order), cut into
  // `files_per_level` files; `delete_share` of each file's rows are deleted.
  void Fill(int64_t universe, int files_per_level, double delete_share) {
    std::vector<std::pair<std::string, int64_t>> ordered;
    for (int64_t id = 0; id < universe; ++id) ordered.emplace_back(Key(id), id);
    std::sort(ordered.begin(), ordered.end());
    for (int32_t level = 1; level <= 3; ++level) {
      std::vector<int64_t> chosen;
      std::bernoulli_distribution take(0.3 + 0.2 * level);
      for (const auto& [key, id] : ordered) {
        if (take(rng_)) chosen.push_back(id);
      }
      size_t per_file = (chosen.size() + files_per_level - 1) / files_per_level;
      for (size_t begin = 0; begin < chosen.size(); begin += per_file) {
        std::vector<int64_t> ids(
            chosen.begin() + static_cast<int64_t>(begin),
            chosen.begin() + static_cast<int64_t>(std::min(chosen.size(), begin + per_file)));
        WriteFile(level, ids, delete_share);
      }
    }
  }

  // Writes one file at `level` of `ids` (already in key order), deleting a share of its rows.
  void WriteFile(int32_t level, const std::vector<int64_t>& ids, double delete_share) {
    auto batch = Rows(ids, level);
    auto writer = KvFileWriter::Make(io_, schema_, bucket_dir(), level, &namer_).value();
    ASSERT_OK(writer->Write(batch));
    ASSERT_OK_AND_ASSIGN(std::vector<DataFileMeta> written, writer->Finish());
    ASSERT_EQ(written.size(), 1u);
    const DataFileMeta& file = written[0];
    std::vector<int64_t> deleted;
    std::bernoulli_distribution del(delete_share);
    for (size_t r = 0; r < ids.size(); ++r) {
      bool d = del(rng_);
      if (d) deleted.push_back(static_cast<int64_t>(r));
      model_[Key(ids[r])].push_back(Stored{level, file.file_name, static_cast<int64_t>(r), d, batch,
                                           static_cast<int64_t>(r)});
    }
    if (!deleted.empty()) {
      deletions_[file.file_name] = std::make_shared<DeletionVector>(std::move(deleted));
    }
    files_.push_back(file);
  }

  KvFileReaderFactory::DeletionOfFn DeletionOf() {
    return [this](const DataFileMeta& f) -> Result<std::shared_ptr<const DeletionVector>> {
      auto it = deletions_.find(f.file_name);
      if (it == deletions_.end()) return std::shared_ptr<const DeletionVector>();
      return std::shared_ptr<const DeletionVector>(it->second);
    };
  }

  // Deletes one more row of `file` (the deletion vector grows); returns that row's key.
  std::string DeleteOneMore(const std::string& file) {
    for (auto& [key, stored] : model_) {
      for (Stored& s : stored) {
        if (s.file == file && !s.deleted) {
          s.deleted = true;
          std::vector<int64_t> positions;
          if (deletions_.count(file)) positions = deletions_[file]->positions();
          positions.push_back(s.position);
          std::sort(positions.begin(), positions.end());
          deletions_[file] = std::make_shared<DeletionVector>(std::move(positions));
          return key;
        }
      }
    }
    return {};
  }

  // The model's answer: the lowest level >= max(start, 1) holding the key undeleted, among the
  // files in `live`.
  std::optional<Stored> Expected(const std::string& key, int32_t start,
                                 const std::set<std::string>& live) const {
    auto it = model_.find(key);
    if (it == model_.end()) return std::nullopt;
    std::optional<Stored> best;
    for (const Stored& s : it->second) {
      if (s.deleted || s.level < std::max(start, 1) || !live.count(s.file)) continue;
      if (!best || s.level < best->level) best = s;
    }
    return best;
  }

  std::set<std::string> Live() const {
    std::set<std::string> live;
    for (const auto& f : files_) live.insert(f.file_name);
    return live;
  }

 private:
  testing::TempDir dir_;
  std::shared_ptr<FileIO> io_ = FileIO::Local();
  DataFileNamer namer_{"data-", ".parquet"};
  TableSchema schema_;
  std::vector<Column> columns_;
  KvLayout layout_;
  std::unique_ptr<SortKeyEncoder> encoder_;
  std::unique_ptr<KvFileReaderFactory> readers_;
  std::mt19937 rng_;
  std::vector<DataFileMeta> files_;
  std::map<std::string, std::vector<Stored>> model_;
  std::map<std::string, std::shared_ptr<DeletionVector>> deletions_;
};

std::vector<Column> IntKeyColumns() {
  return {
      Column{DataField{0, "k", DataType::Int(false), {}, {}}, true,
             [](int64_t id, int64_t) { return std::to_string(id * 3 - 500); }},
      Column{DataField{0, "v", DataType::BigInt(), {}, {}}, false,
             [](int64_t id, int64_t version) {
               return id % 11 == 0 ? std::string("null") : std::to_string(id * 100 + version);
             }},
  };
}

std::string Quote(const std::string& s) { return "\"" + s + "\""; }

// A composite key of a string and a bigint, and values of nested, decimal and timestamp types.
std::vector<Column> CompositeKeyColumns() {
  auto nested = DataType::Row({DataField{10, "a", DataType::Int(), {}, {}},
                               DataField{11, "b", DataType::String(), {}, {}}});
  return {
      Column{DataField{0, "s", DataType::String(false), {}, {}}, true,
             // Strings whose byte order differs from the ids' order, prefixes included.
             [](int64_t id, int64_t) {
               return Quote(std::string(id % 5, 'x') + std::to_string(id % 37));
             }},
      Column{DataField{0, "n", DataType::BigInt(false), {}, {}}, true,
             [](int64_t id, int64_t) { return std::to_string(id / 37 - 20); }},
      Column{DataField{0, "d", DataType::Decimal(20, 4), {}, {}}, false,
             [](int64_t id, int64_t v) {
               return Quote(std::to_string(id * 7 - 300) + "." + std::to_string(1000 + v));
             }},
      Column{DataField{0, "ts", DataType::Timestamp(9), {}, {}}, false,
             [](int64_t id, int64_t v) { return std::to_string(id * 1000000007LL + v); }},
      Column{DataField{0, "arr", DataType::Array(DataType::String()), {}, {}}, false,
             [](int64_t id, int64_t v) {
               return id % 4 == 0 ? std::string("[]")
                                  : "[" + Quote("e" + std::to_string(id)) + ",null," +
                                        Quote(std::to_string(v)) + "]";
             }},
      Column{DataField{0, "m", DataType::Map(DataType::String(false), DataType::Int()), {}, {}},
             false,
             [](int64_t id, int64_t v) {
               return "[[" + Quote("k" + std::to_string(id)) + "," + std::to_string(v) + "]]";
             }},
      Column{DataField{0, "r", nested, {}, {}}, false,
             [](int64_t id, int64_t v) {
               return id % 9 == 0 ? std::string("null")
                                  : "{\"a\":" + std::to_string(v) +
                                        ",\"b\":" + Quote("r" + std::to_string(id)) + "}";
             }},
      Column{DataField{0, "bin", DataType::Bytes(), {}, {}}, false,
             [](int64_t id, int64_t) { return Quote("b" + std::to_string(id)); }},
  };
}

LookupCacheOptions CacheOptions(const testing::TempDir& dir) {
  LookupCacheOptions o;
  o.local_dir = dir.Join("cache");
  return o;
}

// Checks one lookup against the model.
void CheckHit(Bucket& bucket, LookupLevels& levels, LookupPayload payload, int64_t id,
              int32_t start, const std::set<std::string>& live) {
  std::string key = bucket.Key(id);
  ASSERT_OK_AND_ASSIGN(std::optional<LookupHit> hit, levels.Lookup(key, start));
  std::optional<Stored> want = bucket.Expected(key, start, live);
  ASSERT_EQ(hit.has_value(), want.has_value()) << "id " << id << " start " << start;
  if (!hit) return;
  EXPECT_EQ(hit->level, want->level);
  EXPECT_EQ(hit->file_name, want->file);
  bool with_position =
      payload == LookupPayload::kPosition || payload == LookupPayload::kRecordAndPosition;
  bool with_record =
      payload == LookupPayload::kRecord || payload == LookupPayload::kRecordAndPosition;
  EXPECT_EQ(hit->position, with_position ? want->position : -1);
  ASSERT_EQ(hit->record != nullptr, with_record);
  if (!with_record) return;
  ASSERT_EQ(hit->record->num_rows(), 1);
  ASSERT_EQ(hit->record->num_columns(), want->batch->num_columns());
  for (int c = 0; c < want->batch->num_columns(); ++c) {
    auto expected = want->batch->column(c)->Slice(want->row, 1);
    EXPECT_TRUE(expected->Equals(*hit->record->column(c)))
        << "column " << c << " of id " << id << ": " << hit->record->column(c)->ToString() << " vs "
        << expected->ToString();
  }
  EXPECT_EQ(hit->record->schema()->field(bucket.layout().sequence_number_column())->name(),
            kSequenceNumberColumn);
}

void RunModel(std::vector<Column> columns, LookupPayload payload, bool bloom) {
  testing::TempDir tmp;
  Bucket bucket(std::move(columns));
  bucket.Fill(/*universe=*/1500, /*files_per_level=*/4, /*delete_share=*/0.2);
  LookupCacheOptions options = CacheOptions(tmp);
  options.bloom_filter = bloom;
  auto cache = LookupCache::Shared(options);
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      payload, bucket.DeletionOf()));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  std::set<std::string> live = bucket.Live();
  // Ids beyond the universe are absent; some fall inside file ranges, some outside.
  for (int64_t id = 0; id < 1700; ++id) {
    for (int32_t start : {0, 1, 2, 3, 4}) {
      CheckHit(bucket, *levels, payload, id, start, live);
      if (::testing::Test::HasFatalFailure()) return;
    }
  }
  // Each file's lookup file was built exactly once (nothing was evicted).
  EXPECT_EQ(cache->files_built(), static_cast<int64_t>(bucket.files().size()));
  EXPECT_EQ(cache->files_evicted(), 0);
  EXPECT_GT(cache->disk_bytes(), 0);
  // Nothing left the disk: its peak is what it holds now.
  EXPECT_EQ(cache->peak_disk_bytes(), cache->disk_bytes());
  EXPECT_GE(cache->peak_memory_bytes(), cache->memory_bytes());
}

TEST(LookupLevelsTest, IntKeyEveryPayload) {
  for (LookupPayload p : {LookupPayload::kExistence, LookupPayload::kPosition,
                          LookupPayload::kRecord, LookupPayload::kRecordAndPosition}) {
    SCOPED_TRACE(static_cast<int>(p));
    RunModel(IntKeyColumns(), p, /*bloom=*/true);
  }
}

TEST(LookupLevelsTest, IntKeyWithoutBloomFilter) {
  RunModel(IntKeyColumns(), LookupPayload::kRecordAndPosition, /*bloom=*/false);
}

TEST(LookupLevelsTest, CompositeKeyNestedRecords) {
  for (LookupPayload p : {LookupPayload::kExistence, LookupPayload::kRecordAndPosition}) {
    SCOPED_TRACE(static_cast<int>(p));
    RunModel(CompositeKeyColumns(), p, /*bloom=*/true);
  }
  RunModel(CompositeKeyColumns(), LookupPayload::kRecord, /*bloom=*/false);
}

// Many files under small bounds: the bounds hold after every lookup (nothing is in use between
// lookups), answers stay right, and evicted files are rebuilt.
TEST(LookupCacheTest, MemoryAndDiskBoundsHoldWithManyFiles) {
  testing::TempDir tmp;
  Bucket bucket(IntKeyColumns());
  bucket.Fill(/*universe=*/6000, /*files_per_level=*/12, /*delete_share=*/0.1);
  LookupCacheOptions options = CacheOptions(tmp);
  options.max_memory_bytes = 96 << 10;
  // Each lookup file of ~1000 records with records is tens of KB: a few of them fit.
  options.max_disk_bytes = 200 << 10;
  auto cache = LookupCache::Shared(options);
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      LookupPayload::kRecordAndPosition, bucket.DeletionOf()));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  std::set<std::string> live = bucket.Live();
  int64_t max_disk = 0, max_memory = 0;
  std::mt19937 rng(3);
  std::uniform_int_distribution<int64_t> id(0, 6100);
  for (int i = 0; i < 6000; ++i) {
    int64_t k = id(rng);
    CheckHit(bucket, *levels, LookupPayload::kRecordAndPosition, k, 1 + i % 3, live);
    if (HasFatalFailure()) return;
    ASSERT_LE(cache->disk_bytes(), options.max_disk_bytes);
    ASSERT_LE(cache->memory_bytes(), options.max_memory_bytes);
    max_disk = std::max(max_disk, cache->disk_bytes());
    max_memory = std::max(max_memory, cache->memory_bytes());
  }
  // The bounds were reached (the test exercised them), files were evicted and built again.
  EXPECT_GT(max_disk, options.max_disk_bytes / 2);
  EXPECT_GT(max_memory, options.max_memory_bytes / 2);
  // The peaks saw at least what was sampled between lookups; memory never above its bound.
  EXPECT_GE(cache->peak_disk_bytes(), max_disk);
  EXPECT_GE(cache->peak_memory_bytes(), max_memory);
  EXPECT_LE(cache->peak_memory_bytes(), options.max_memory_bytes);
  EXPECT_GT(cache->files_evicted(), 0);
  EXPECT_GT(cache->files_built(), static_cast<int64_t>(bucket.files().size()));
}

// An unbounded cache builds each file once; a bounded one rebuilds, with the same answers.
TEST(LookupCacheTest, EvictionAndRebuildGiveTheSameAnswers) {
  testing::TempDir tmp;
  Bucket bucket(CompositeKeyColumns());
  bucket.Fill(/*universe=*/800, /*files_per_level=*/5, /*delete_share=*/0.15);
  LookupCacheOptions tiny = CacheOptions(tmp);
  tiny.local_dir = tmp.Join("tiny");
  tiny.max_disk_bytes = 1;  // every file is dropped right after the lookup that built it
  tiny.max_memory_bytes = 1;
  auto cache = LookupCache::Shared(tiny);
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      LookupPayload::kRecord, bucket.DeletionOf()));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  std::set<std::string> live = bucket.Live();
  for (int64_t k = 0; k < 60; ++k) {
    CheckHit(bucket, *levels, LookupPayload::kRecord, k, 1, live);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(cache->disk_bytes(), 0);
  EXPECT_EQ(cache->memory_bytes(), 0);
  EXPECT_EQ(cache->files_built(), cache->files_evicted());
  EXPECT_GE(cache->files_built(), 60);
  // Each file was on disk while its lookup ran: the disk peak is above the bound (one file at a
  // time); nothing was ever kept in memory.
  EXPECT_GT(cache->peak_disk_bytes(), tiny.max_disk_bytes);
  EXPECT_EQ(cache->peak_memory_bytes(), 0);
}

// Nothing stays in memory: every lookup reads the index, filter and block back from the file.
TEST(LookupCacheTest, WithoutMemoryEveryLookupReadsTheFile) {
  testing::TempDir tmp;
  Bucket bucket(CompositeKeyColumns());
  bucket.Fill(/*universe=*/400, /*files_per_level=*/3, /*delete_share=*/0.2);
  LookupCacheOptions options = CacheOptions(tmp);
  options.max_memory_bytes = 0;
  auto cache = LookupCache::Shared(options);
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      LookupPayload::kRecordAndPosition, bucket.DeletionOf()));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  std::set<std::string> live = bucket.Live();
  for (int64_t k = 0; k < 450; ++k) {
    CheckHit(bucket, *levels, LookupPayload::kRecordAndPosition, k, 1 + k % 3, live);
    if (HasFatalFailure()) return;
    ASSERT_EQ(cache->memory_bytes(), 0);
  }
  EXPECT_EQ(cache->files_built(), static_cast<int64_t>(bucket.files().size()));
  EXPECT_EQ(cache->files_evicted(), 0);
}

TEST(LookupCacheTest, FilesUnusedForTheRetentionAreDropped) {
  testing::TempDir tmp;
  Bucket bucket(IntKeyColumns());
  bucket.Fill(/*universe=*/300, /*files_per_level=*/1, /*delete_share=*/0);
  LookupCacheOptions options = CacheOptions(tmp);
  options.file_retention_millis = 200;
  auto cache = LookupCache::Shared(options);
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      LookupPayload::kExistence, {}));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  // Level 3 holds the most keys; a key found at level 1 builds only level 1's file.
  int64_t at_level1 = -1;
  for (int64_t k = 0; k < 300 && at_level1 < 0; ++k) {
    ASSERT_OK_AND_ASSIGN(auto hit, levels->Lookup(bucket.Key(k), 1));
    if (hit && hit->level == 1) at_level1 = k;
  }
  ASSERT_GE(at_level1, 0);
  EXPECT_EQ(cache->files_built(), 1);
  int64_t disk = cache->disk_bytes();
  EXPECT_GT(disk, 0);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  // Any access drops what has expired, before building level 2's file.
  ASSERT_OK_AND_ASSIGN(auto hit, levels->Lookup(bucket.Key(at_level1), 2));
  EXPECT_EQ(cache->files_evicted(), 1);
  EXPECT_EQ(cache->files_built(), 2);
  // The level-1 file is built again when needed.
  ASSERT_OK_AND_ASSIGN(hit, levels->Lookup(bucket.Key(at_level1), 1));
  ASSERT_TRUE(hit.has_value());
  EXPECT_EQ(hit->level, 1);
  EXPECT_EQ(cache->files_built(), 3);
}

// One cache per distinct options value; two buckets (on two threads) share it.
TEST(LookupCacheTest, TwoBucketsShareOneCache) {
  testing::TempDir tmp;
  LookupCacheOptions options = CacheOptions(tmp);
  options.max_memory_bytes = 64 << 10;
  auto cache = LookupCache::Shared(options);
  EXPECT_EQ(cache, LookupCache::Shared(options));
  LookupCacheOptions other = options;
  other.bloom_fpp = 0.01;
  EXPECT_NE(cache, LookupCache::Shared(other));

  Bucket a(IntKeyColumns(), 11), b(CompositeKeyColumns(), 12);
  a.Fill(2000, 3, 0.1);
  b.Fill(600, 3, 0.1);
  ASSERT_OK_AND_ASSIGN(auto la,
                       LookupLevels::Make(LookupCache::Shared(options), a.readers(), a.bucket_dir(),
                                          a.layout(), LookupPayload::kPosition, a.DeletionOf()));
  ASSERT_OK_AND_ASSIGN(auto lb,
                       LookupLevels::Make(LookupCache::Shared(options), b.readers(), b.bucket_dir(),
                                          b.layout(), LookupPayload::kRecord, b.DeletionOf()));
  ASSERT_OK(la->SetFiles(a.files()));
  ASSERT_OK(lb->SetFiles(b.files()));
  // Keys are encoded up front: the model's encoder is not shared between threads.
  std::vector<std::string> keys_a, keys_b;
  for (int64_t k = 0; k < 2100; ++k) keys_a.push_back(a.Key(k));
  for (int64_t k = 0; k < 650; ++k) keys_b.push_back(b.Key(k));
  std::set<std::string> live_a = a.Live(), live_b = b.Live();
  auto run = [](LookupLevels* levels, Bucket* bucket, const std::vector<std::string>* keys,
                const std::set<std::string>* live, int* wrong) {
    for (int round = 0; round < 3; ++round) {
      for (const std::string& key : *keys) {
        for (int32_t start = 1; start <= 3; ++start) {
          Result<std::optional<LookupHit>> hit = levels->Lookup(key, start);
          std::optional<Stored> want = bucket->Expected(key, start, *live);
          if (!hit.ok() || hit->has_value() != want.has_value() ||
              (want && ((*hit)->level != want->level || (*hit)->file_name != want->file))) {
            ++*wrong;
          }
        }
      }
    }
  };
  int wrong_a = 0, wrong_b = 0;
  std::thread ta(run, la.get(), &a, &keys_a, &live_a, &wrong_a);
  std::thread tb(run, lb.get(), &b, &keys_b, &live_b, &wrong_b);
  ta.join();
  tb.join();
  EXPECT_EQ(wrong_a, 0);
  EXPECT_EQ(wrong_b, 0);
  EXPECT_EQ(cache->files_built(), static_cast<int64_t>(a.files().size() + b.files().size()));
  EXPECT_LE(cache->memory_bytes(), options.max_memory_bytes);
  // A LookupLevels that goes drops its own files.
  int64_t before = cache->files_evicted();
  la.reset();
  EXPECT_EQ(cache->files_evicted() - before, static_cast<int64_t>(a.files().size()));
}

// A file leaving the levels is dropped from the cache (and its disk); a row deleted after its
// lookup file was built is not found, without building the file again.
TEST(LookupCacheTest, FilesLeavingTheLevelsAreDroppedAndLaterDeletionsApply) {
  testing::TempDir tmp;
  Bucket bucket(IntKeyColumns());
  bucket.Fill(/*universe=*/500, /*files_per_level=*/2, /*delete_share=*/0.1);
  auto cache = LookupCache::Shared(CacheOptions(tmp));
  ASSERT_OK_AND_ASSIGN(
      auto levels, LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(), bucket.layout(),
                                      LookupPayload::kPosition, bucket.DeletionOf()));
  ASSERT_OK(levels->SetFiles(bucket.files()));
  std::set<std::string> live = bucket.Live();
  for (int64_t k = 0; k < 500; ++k) {
    CheckHit(bucket, *levels, LookupPayload::kPosition, k, 1, live);
    if (HasFatalFailure()) return;
  }
  int64_t files = static_cast<int64_t>(bucket.files().size());
  EXPECT_EQ(cache->files_built(), files);
  int64_t disk = cache->disk_bytes();

  // The first level-1 file leaves (compacted away): its keys come from lower levels now.
  DataFileMeta gone = bucket.files()[0];
  ASSERT_EQ(gone.level, 1);
  bucket.mutable_files().erase(bucket.mutable_files().begin());
  ASSERT_OK(levels->SetFiles(bucket.files()));
  EXPECT_EQ(cache->files_evicted(), 1);
  EXPECT_LT(cache->disk_bytes(), disk);
  // The peak keeps what the disk held before the file went.
  EXPECT_EQ(cache->peak_disk_bytes(), disk);
  live = bucket.Live();
  for (int64_t k = 0; k < 500; ++k) {
    CheckHit(bucket, *levels, LookupPayload::kPosition, k, 1, live);
    if (HasFatalFailure()) return;
  }
  EXPECT_EQ(cache->files_built(), files);

  // One more row of a level-2 file is deleted: the row is not found, the file not rebuilt.
  std::string file2;
  for (const auto& f : bucket.files()) {
    if (f.level == 2) file2 = f.file_name;
  }
  std::string key = bucket.DeleteOneMore(file2);
  ASSERT_FALSE(key.empty());
  ASSERT_OK(levels->SetFiles(bucket.files()));
  ASSERT_OK_AND_ASSIGN(auto hit, levels->Lookup(key, 2));
  std::optional<Stored> want = bucket.Expected(key, 2, live);
  ASSERT_EQ(hit.has_value(), want.has_value());
  if (hit) {
    EXPECT_NE(hit->file_name, file2);
  }
  EXPECT_EQ(cache->files_built(), files);
}

// lookups/s for 1M keys in 10 files (a measurement for the docs, not a check): run with
// --gtest_also_run_disabled_tests --gtest_filter='*LookupThroughput*'.
TEST(LookupCacheTest, DISABLED_LookupThroughput) {
  testing::TempDir tmp;
  Bucket bucket(IntKeyColumns());
  std::vector<int64_t> ids;
  for (int64_t id = 0; id < 1000000; ++id) {
    ids.push_back(id);
    if (ids.size() == 100000) {
      bucket.WriteFile(1 + static_cast<int32_t>(id / 400000), ids, 0);
      ids.clear();
    }
  }
  std::vector<std::string> keys;
  for (int64_t id = 0; id < 1000000; ++id) keys.push_back(bucket.Key(id));
  std::shuffle(keys.begin(), keys.end(), std::mt19937(1));
  for (LookupPayload payload : {LookupPayload::kExistence, LookupPayload::kRecordAndPosition}) {
    auto cache = LookupCache::Shared(CacheOptions(tmp));
    ASSERT_OK_AND_ASSIGN(auto levels,
                         LookupLevels::Make(cache, bucket.readers(), bucket.bucket_dir(),
                                            bucket.layout(), payload, {}));
    ASSERT_OK(levels->SetFiles(bucket.files()));
    auto t0 = std::chrono::steady_clock::now();
    for (int64_t k = 0; k < 10; ++k) {
      ASSERT_OK(levels->Lookup(bucket.Key(k * 100000), 1).status());
    }
    auto t1 = std::chrono::steady_clock::now();
    int64_t found = 0;
    for (const std::string& key : keys) {
      ASSERT_OK_AND_ASSIGN(auto hit, levels->Lookup(key, 1));
      found += hit.has_value();
    }
    auto t2 = std::chrono::steady_clock::now();
    EXPECT_EQ(found, 1000000);
    double build = std::chrono::duration<double>(t1 - t0).count();
    double look = std::chrono::duration<double>(t2 - t1).count();
    std::printf("payload %d: build %.2f s, %.0f lookups/s, disk %lld bytes, memory %lld bytes\n",
                static_cast<int>(payload), build, 1e6 / look,
                static_cast<long long>(cache->disk_bytes()),
                static_cast<long long>(cache->memory_bytes()));
  }
}

TEST(LookupCacheOptionsTest, FromTableOptions) {
  // Java's defaults: 256 MB of memory, unlimited disk, an hour of retention, bloom filters at 5%.
  ASSERT_OK_AND_ASSIGN(CoreOptions defaults, CoreOptions::FromMap({}));
  ASSERT_OK_AND_ASSIGN(LookupCacheOptions d, LookupCacheOptions::FromOptions(defaults));
  EXPECT_EQ(d, LookupCacheOptions{});
  EXPECT_EQ(d.max_memory_bytes, 256LL << 20);
  EXPECT_EQ(d.max_disk_bytes, INT64_MAX);
  EXPECT_EQ(d.file_retention_millis, 3600LL * 1000);
  EXPECT_TRUE(d.bloom_filter);
  EXPECT_DOUBLE_EQ(d.bloom_fpp, 0.05);

  ASSERT_OK_AND_ASSIGN(CoreOptions set,
                       CoreOptions::FromMap({{"lookup.cache-max-memory-size", "1 mb"},
                                             {"lookup.cache-max-disk-size", "2 gb"},
                                             {"lookup.cache-file-retention", "90 s"},
                                             {"lookup.cache.bloom.filter.enabled", "false"},
                                             {"lookup.cache.bloom.filter.fpp", "0.01"}}));
  ASSERT_OK_AND_ASSIGN(LookupCacheOptions o, LookupCacheOptions::FromOptions(set));
  EXPECT_EQ(o.max_memory_bytes, 1LL << 20);
  EXPECT_EQ(o.max_disk_bytes, 2LL << 30);
  EXPECT_EQ(o.file_retention_millis, 90000);
  EXPECT_FALSE(o.bloom_filter);
  EXPECT_DOUBLE_EQ(o.bloom_fpp, 0.01);

  ASSERT_OK_AND_ASSIGN(CoreOptions bad,
                       CoreOptions::FromMap({{"lookup.cache.bloom.filter.fpp", "1.5"}}));
  EXPECT_THAT(LookupCacheOptions::FromOptions(bad),
              IsError(StatusCode::kInvalid, "lookup.cache.bloom.filter.fpp"));
  EXPECT_THAT(CoreOptions::FromMap({{"lookup.cache-max-memory-size", "lots"}}),
              IsError(StatusCode::kInvalid, "lookup.cache-max-memory-size"));
}

}  // namespace
}  // namespace fjord
