#include "fjord/lsm/kv_file_reader.h"

#include <arrow/api.h>

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Record;

Result<std::vector<Record>> ReadFile(BatchReader* reader) {
  std::vector<Record> out;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) return out;
    auto part = testing_kv::FromBatch(*batch);
    out.insert(out.end(), part.begin(), part.end());
  }
}

// One Parquet row group whose four leaf columns (k INT, v BIGINT, the sequence number, the kind)
// decode to about 2.1 MB each on average: over kWholeRowGroupBytesAlone, under the default.
TEST(KvFileReaderTest, AFileReadAloneOrUnderASmallerBoundStreamsARowGroupReadWholeOtherwise) {
  testing::TempDir dir;
  TableSchema schema = testing_kv::Schema({});
  auto io = FileIO::Local();
  DataFileNamer namer{"data-", ".parquet"};
  std::vector<Record> records;
  const int32_t rows = 400000;
  for (int32_t i = 0; i < rows; ++i) records.push_back(Record{i, i + 1, 0, int64_t{i} * 7});
  ASSERT_OK_AND_ASSIGN(
      std::vector<DataFileMeta> files,
      testing_kv::WriteFiles(io, schema, dir.Join("bucket-0"), 5, &namer, records));
  ASSERT_EQ(files.size(), 1u);

  KvFileReaderFactory readers(io, dir.path(), schema);
  for (bool alone : {false, true}) {
    ASSERT_OK_AND_ASSIGN(auto reader, readers.OpenFile(dir.Join("bucket-0"), files[0],
                                                       schema.fields, true, {}, {}, alone));
    ASSERT_OK_AND_ASSIGN(std::vector<Record> read, ReadFile(reader.get()));
    EXPECT_EQ(read, records) << "alone " << alone;
    EXPECT_EQ(reader->row_groups_read_whole(), alone ? 0 : 1) << "alone " << alone;
  }
  // A factory whose files are read beside others stream it too when told the smaller bound (a
  // compaction's inputs), and read it whole again when told a larger one.
  for (int64_t whole : {kWholeRowGroupBytesAlone, int64_t{8} << 20}) {
    KvFileReaderFactory bounded(io, dir.path(), schema);
    bounded.set_whole_row_group_bytes_per_column(whole);
    for (bool alone : {false, true}) {
      ASSERT_OK_AND_ASSIGN(auto reader, bounded.OpenFile(dir.Join("bucket-0"), files[0],
                                                         schema.fields, true, {}, {}, alone));
      ASSERT_OK_AND_ASSIGN(std::vector<Record> read, ReadFile(reader.get()));
      EXPECT_EQ(read, records);
      EXPECT_EQ(reader->row_groups_read_whole(), !alone && whole > kWholeRowGroupBytesAlone ? 1 : 0)
          << "alone " << alone << " whole " << whole;
    }
  }
}

}  // namespace
}  // namespace fjord
