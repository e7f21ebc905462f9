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
TEST(KvFileReaderTest, AFileReadAloneStreamsARowGroupThatOneReadBesideOthersReadsWhole) {
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
}

}  // namespace
}  // namespace fjord
