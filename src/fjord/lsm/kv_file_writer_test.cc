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

// The columns of each Parquet file that have a dictionary page.
std::set<std::string> ColumnsWithDictionary(const std::string& path) {
  auto reader = parquet::ParquetFileReader::OpenFile(path);
  std::shared_ptr<parquet::FileMetaData> meta = reader->metadata();
  std::set<std::string> with_dictionary;
  for (int g = 0; g < meta->num_row_groups(); ++g) {
    for (int c = 0; c < meta->num_columns(); ++c) {
      if (meta->RowGroup(g)->ColumnChunk(c)->has_dictionary_page()) {
        with_dictionary.insert(meta->schema()->Column(c)->path()->ToDotString());
      }
    }
  }
  return with_dictionary;
}

// The sequence number is unique per record, and so is a key of one field in a data file (one
// sorted run): their dictionaries would only fill up and fall back to plain pages. The other
// columns keep theirs (parquet.enable.dictionary, on by default).
TEST(KvFileWriterTest, UniqueColumnsAreWrittenWithoutADictionary) {
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
  EXPECT_EQ(ColumnsWithDictionary(dir.Join("bucket-0/" + files[0].file_name)),
            (std::set<std::string>{"_VALUE_KIND", "v"}));
}

// A key of several fields is unique only as a whole: each field keeps its dictionary, and so does
// a partition field trimmed off the key.
TEST(KvFileWriterTest, FieldsOfACompositeKeyKeepTheirDictionary) {
  testing::TempDir dir;
  auto io = FileIO::Local();
  DataFileNamer namer{"data-", ".parquet"};
  for (bool partitioned : {false, true}) {
    // Unique (k, v) pairs; a partition's file holds one v.
    std::vector<Record> records;
    for (int32_t i = 0; i < 5000; ++i) {
      records.push_back(partitioned ? Record{i, i + 1, 0, 7} : Record{i / 10, i + 1, 0, i % 10});
    }
    TableSchema schema = testing_kv::Schema({});
    schema.fields[1].type = DataType::BigInt(false);
    schema.primary_keys = {"k", "v"};
    if (partitioned) schema.partition_keys = {"v"};
    std::string bucket = dir.Join(partitioned ? "p/bucket-0" : "bucket-0");
    ASSERT_OK_AND_ASSIGN(std::vector<DataFileMeta> files,
                         testing_kv::WriteFiles(io, schema, bucket, 0, &namer, records));
    ASSERT_EQ(files.size(), 1u);
    std::set<std::string> expected =
        partitioned ? std::set<std::string>{"_VALUE_KIND", "v"}
                    : std::set<std::string>{"_KEY_k", "_KEY_v", "_VALUE_KIND", "k", "v"};
    EXPECT_EQ(ColumnsWithDictionary(bucket + "/" + files[0].file_name), expected) << partitioned;
  }
}

}  // namespace
}  // namespace fjord
