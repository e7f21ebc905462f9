#include "fjord/lsm/kv_file_writer.h"

#include <arrow/api.h>
#include <parquet/file_reader.h>
#include <parquet/metadata.h>

#include <set>

#include "fjord/lsm/kv_test_util.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing_kv::Record;

// The sequence number is unique per record: its dictionary would only fill up and fall back to
// plain pages. The other columns keep theirs (parquet.enable.dictionary, on by default).
TEST(KvFileWriterTest, SequenceNumbersAreWrittenWithoutADictionary) {
  testing::TempDir dir;
  TableSchema schema = testing_kv::Schema({});
  auto io = FileIO::Local();
  DataFileNamer namer{"data-", ".parquet"};
  std::vector<Record> records;
  for (int32_t i = 0; i < 5000; ++i) records.push_back(Record{i, i + 1, 0, i % 3});
  ASSERT_OK_AND_ASSIGN(
      std::vector<DataFileMeta> files,
      testing_kv::WriteFiles(io, schema, dir.Join("bucket-0"), 0, &namer, records));
  ASSERT_EQ(files.size(), 1u);

  auto reader = parquet::ParquetFileReader::OpenFile(dir.Join("bucket-0/" + files[0].file_name));
  std::shared_ptr<parquet::FileMetaData> meta = reader->metadata();
  std::set<std::string> with_dictionary;
  for (int g = 0; g < meta->num_row_groups(); ++g) {
    for (int c = 0; c < meta->num_columns(); ++c) {
      if (meta->RowGroup(g)->ColumnChunk(c)->has_dictionary_page()) {
        with_dictionary.insert(meta->schema()->Column(c)->path()->ToDotString());
      }
    }
  }
  EXPECT_EQ(with_dictionary, (std::set<std::string>{"_KEY_k", "_VALUE_KIND", "k", "v"}));
}

}  // namespace
}  // namespace fjord
