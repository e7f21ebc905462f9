#include "fjord/lsm/compact_task.h"

#include <arrow/api.h>

#include <map>

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Record;

// A bucket of an aggregation (sum) table as lookup compaction leaves it: level 3 the oldest
// values, level 1 a lookup compaction's output that already folded level 3 in, a level-0 file on
// top. Key 1: 10 at level 3, the folded 13 at level 1, 4 at level 0. Key 2: 5 at level 3 only.
// Key 3: 1 at level 0 only.
struct LookupBucket {
  testing::TempDir dir;
  TableSchema schema =
      testing_kv::Schema({{"merge-engine", "aggregation"}, {"fields.v.aggregate-function", "sum"}});
  std::shared_ptr<FileIO> io = FileIO::Local();
  DataFileNamer namer{"data-", ".parquet"};
  std::vector<DataFileMeta> files;

  Status Write(int32_t level, const std::vector<Record>& records) {
    FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
    FJORD_ASSIGN_OR_RAISE(auto writer,
                          KvFileWriter::Make(io, schema, dir.Join("bucket-0"), level, &namer));
    FJORD_RETURN_NOT_OK(writer->Write(testing_kv::ToBatch(layout, records)));
    FJORD_ASSIGN_OR_RAISE(std::vector<DataFileMeta> written, writer->Finish());
    files.insert(files.end(), written.begin(), written.end());
    return Status::OK();
  }

  Status Fill() {
    FJORD_RETURN_NOT_OK(Write(3, {{1, 1, 0, 10}, {2, 2, 0, 5}}));
    FJORD_RETURN_NOT_OK(Write(1, {{1, 5, 0, 13}}));
    return Write(0, {{1, 7, 0, 4}, {3, 8, 0, 1}});
  }

  // Fully compacts every file into level 3 and returns the records written.
  Result<std::map<int32_t, int64_t>> Compact(bool lookup_merge) {
    KvFileReaderFactory readers(io, dir.path(), schema);
    CompactContext ctx;
    ctx.io = io;
    ctx.schema = schema;
    ctx.bucket_dir = dir.Join("bucket-0");
    ctx.namer = &namer;
    ctx.max_level = 3;
    ctx.compaction_file_size = int64_t{1} << 40;  // rewrite everything, upgrade nothing
    ctx.readers = &readers;
    ctx.lookup_merge = lookup_merge;
    FJORD_ASSIGN_OR_RAISE(CompactResult result,
                          RunCompaction(CompactUnit{3, files}, /*drop_delete=*/true, ctx));
    std::map<int32_t, int64_t> out;
    FJORD_ASSIGN_OR_RAISE(auto run, readers.OpenRun(ctx.bucket_dir, result.after));
    while (true) {
      FJORD_ASSIGN_OR_RAISE(auto batch, run->Next());
      if (!batch) break;
      for (const Record& r : testing_kv::FromBatch(*batch)) out[r.key] = r.value;
    }
    return out;
  }
};

TEST(CompactTaskTest, LookupMergeSumsLevelZeroOntoTheLowestUpperLevelOnly) {
  LookupBucket bucket;
  ASSERT_OK(bucket.Fill());
  ASSERT_OK_AND_ASSIGN(auto out, bucket.Compact(/*lookup_merge=*/true));
  EXPECT_EQ(out, (std::map<int32_t, int64_t>{{1, 13 + 4}, {2, 5}, {3, 1}}));
}

TEST(CompactTaskTest, WithoutLookupMergeEveryLevelIsSummed) {
  LookupBucket bucket;
  ASSERT_OK(bucket.Fill());
  ASSERT_OK_AND_ASSIGN(auto out, bucket.Compact(/*lookup_merge=*/false));
  EXPECT_EQ(out, (std::map<int32_t, int64_t>{{1, 10 + 13 + 4}, {2, 5}, {3, 1}}));
}

}  // namespace
}  // namespace fjord
