// First-row compaction through the lookup levels (compact_task.h): Java's
// FirstRowMergeFunctionWrapper keeps a key one of whose records comes from a level above 0 of the
// compaction, and drops a key found at a level above the output otherwise.
#include <arrow/api.h>

#include <map>

#include "fjord/lsm/compact_task.h"
#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Record;

struct FirstRowBucket {
  testing::TempDir dir;
  TableSchema schema = testing_kv::Schema({{"merge-engine", "first-row"}});
  std::shared_ptr<FileIO> io = FileIO::Local();
  DataFileNamer namer{"data-", ".parquet"};
  std::vector<DataFileMeta> files;

  std::string bucket_dir() const { return dir.Join("bucket-0"); }

  Status Write(int32_t level, const std::vector<Record>& records) {
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
    FJORD_ASSIGN_OR_RAISE(auto writer, KvFileWriter::Make(io, schema, bucket_dir(), level, &namer));
    FJORD_RETURN_NOT_OK(writer->Write(testing_kv::ToBatch(layout, records)));
    FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> written, writer->Finish());
    files.insert(files.end(), written.begin(), written.end());
    return Status::OK();
  }

  // Compacts the files of levels < 3 into level 2 (level 3 stays above the output) and returns
  // the records written, by key.
  Result<std::map<int32_t, Record>> Compact() {
    KvFileReaderFactory readers(io, dir.path(), schema);
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
    testing::TempDir cache_dir;
    LookupCacheOptions cache_options;
    cache_options.local_dir = cache_dir.Join("cache");
    FJORD_ASSIGN_OR_RAISE(
        auto lookup, LookupLevels::Make(LookupCache::Shared(cache_options), &readers, bucket_dir(),
                                        layout, LookupPayload::kExistence, {}));
    FJORD_RETURN_NOT_OK(lookup->SetFiles(files));
    CompactContext ctx;
    ctx.io = io;
    ctx.schema = schema;
    ctx.bucket_dir = bucket_dir();
    ctx.namer = &namer;
    ctx.max_level = 3;
    ctx.compaction_file_size = int64_t{1} << 40;  // rewrite everything
    ctx.readers = &readers;
    ctx.first_row_lookup = true;
    ctx.lookup_levels = lookup.get();
    std::vector<DataFileMeta> unit_files;
    for (const DataFileMeta& f : files) {
      if (f.level < 3) unit_files.push_back(f);
    }
    FJORD_ASSIGN_OR_RAISE(CompactResult result,
                          RunCompaction(CompactUnit{2, unit_files}, /*drop_delete=*/false, ctx));
    std::map<int32_t, Record> out;
    FJORD_ASSIGN_OR_RAISE(auto run, readers.OpenRun(ctx.bucket_dir, result.after));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
      if (!batch) break;
      for (const Record& r : testing_kv::FromBatch(*batch)) out[r.key] = r;
    }
    return out;
  }
};

TEST(FirstRowCompactTest, KeysAboveTheOutputGoUnlessALevelAboveZeroOfTheUnitHoldsThem) {
  FirstRowBucket bucket;
  // Level 3 (above the output): keys 1, 2, 5. Level 1 (in the unit): keys 2, 4.
  ASSERT_OK(bucket.Write(3, {{1, 1, 0, 100}, {2, 2, 0, 200}, {5, 3, 0, 500}}));
  ASSERT_OK(bucket.Write(1, {{2, 5, 0, 201}, {4, 6, 0, 401}}));
  // Level 0: keys 1..4 again, and 6 new.
  ASSERT_OK(bucket.Write(0, {{1, 10, 0, 1000}, {2, 11, 0, 2000}, {3, 12, 0, 3000}}));
  ASSERT_OK(bucket.Write(0, {{4, 13, 0, 4000}, {6, 14, 0, 6000}}));
  ASSERT_OK_AND_ASSIGN(auto out, bucket.Compact());
  // 1: only level 0 in the unit, level 3 holds it: dropped. 2: level 1 holds it: its first row
  // (level 1's) stays although level 3 holds it too. 3, 6: new keys. 4: level 1's first row.
  std::vector<int32_t> keys;
  for (const auto& [k, r] : out) keys.push_back(k);
  EXPECT_EQ(keys, (std::vector<int32_t>{2, 3, 4, 6}));
  EXPECT_EQ(out[2].value, 201);
  EXPECT_EQ(out[3].value, 3000);
  EXPECT_EQ(out[4].value, 401);
  EXPECT_EQ(out[6].value, 6000);
}

TEST(FirstRowCompactTest, WithoutLookupLevelsTheCompactionIsRefused) {
  FirstRowBucket bucket;
  ASSERT_OK(bucket.Write(0, {{1, 1, 0, 1}}));
  KvFileReaderFactory readers(bucket.io, bucket.dir.path(), bucket.schema);
  CompactContext ctx;
  ctx.io = bucket.io;
  ctx.schema = bucket.schema;
  ctx.bucket_dir = bucket.bucket_dir();
  ctx.namer = &bucket.namer;
  ctx.max_level = 3;
  ctx.compaction_file_size = int64_t{1} << 40;
  ctx.readers = &readers;
  ctx.first_row_lookup = true;
  auto result = RunCompaction(CompactUnit{1, bucket.files}, false, ctx);
  EXPECT_THAT(result, IsError(StatusCode::kInvalid, "lookup levels"));
}

}  // namespace
}  // namespace fjord
