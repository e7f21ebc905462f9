// The input buffer of a streamed Parquet column: 256 KB on a local disk, 1 MB on an object store
// (one request per MB). A wide row group streamed from a local file holds a quarter of the
// buffers, and reads the same rows.
#include <arrow/api.h>
#include <gtest/gtest.h>

#include <random>

#include "fjord/format/data_file_reader.h"
#include "fjord/format/data_file_writer.h"
#include "fjord/io/fault_injection_file_io.h"
#include "fjord/testing/test_util.h"

namespace fjord {
namespace {

using testing::TempDir;

constexpr int kColumns = 8;
constexpr int64_t kRows = 48 * 1024;

std::vector<DataField> WideFields() {
  std::vector<DataField> fields;
  for (int c = 0; c < kColumns; ++c) {
    fields.push_back(DataField{c, "s" + std::to_string(c), DataType::String(true), {}, {}});
  }
  return fields;
}

// One row group of kColumns columns of 64 random hex digits per row (about 1.6 MB per column
// compressed, more than either buffer), no dictionary.
std::string WriteWideFile(const TempDir& dir) {
  std::string path = dir.Join("data-0.parquet");
  auto io = FileIO::Local();
  DataFileWriterOptions options;
  options.parquet_dictionary = false;
  auto writer = *DataFileWriter::Open(io.get(), path, FileFormat::kParquet, WideFields(), options);
  std::mt19937_64 random(42);
  arrow::FieldVector schema_fields;
  arrow::ArrayVector columns;
  for (int c = 0; c < kColumns; ++c) {
    arrow::StringBuilder values;
    char hex[65];
    for (int64_t r = 0; r < kRows; ++r) {
      for (int w = 0; w < 4; ++w)
        std::snprintf(hex + 16 * w, 17, "%016llx", static_cast<unsigned long long>(random()));
      EXPECT_TRUE(values.Append(hex, 64).ok());
    }
    schema_fields.push_back(arrow::field("s" + std::to_string(c), arrow::utf8()));
    columns.push_back(*values.Finish());
  }
  EXPECT_OK(writer->Write(*arrow::RecordBatch::Make(arrow::schema(schema_fields), kRows, columns)));
  EXPECT_TRUE(writer->Finish().ok());
  return path;
}

// A local FileIO that says it is an object store.
class ObjectStoreLike : public FaultInjectionFileIO {
 public:
  using FaultInjectionFileIO::FaultInjectionFileIO;
  bool IsObjectStore() const override { return true; }
};

struct StreamedRead {
  int64_t peak_bytes = 0;
  std::vector<std::string> first_values;  // column 0, every row
};

StreamedRead ReadStreamed(FileIO* io, const std::string& path) {
  arrow::ProxyMemoryPool pool(arrow::default_memory_pool());
  StreamedRead out;
  {
    FileReadOptions options;
    options.batch_rows = 1024;
    options.whole_row_group_bytes_per_column = 0;  // streamed page by page
    options.pool = &pool;
    auto reader = OpenDataFile(io, path, FileFormat::kParquet, WideFields(), options);
    EXPECT_TRUE(reader.ok()) << reader.status().ToString();
    if (!reader.ok()) return out;
    while (true) {  // one batch held at a time
      auto batch = (*reader)->Next();
      EXPECT_TRUE(batch.ok()) << batch.status().ToString();
      if (!batch.ok() || *batch == nullptr) break;
      EXPECT_LE((*batch)->num_rows(), 1024);
      auto values = std::static_pointer_cast<arrow::StringArray>((*batch)->column(0));
      for (int64_t r = 0; r < values->length(); ++r)
        out.first_values.push_back(values->GetString(r));
    }
  }
  out.peak_bytes = pool.max_memory();
  return out;
}

TEST(ParquetReadBufferTest, LocalStreamedColumnsHoldAQuarterOfTheBuffers) {
  TempDir dir;
  std::string path = WriteWideFile(dir);
  auto local = FileIO::Local();
  auto store = std::make_shared<ObjectStoreLike>(FileIO::Local());
  ASSERT_FALSE(local->IsObjectStore());
  StreamedRead from_disk = ReadStreamed(local.get(), path);
  StreamedRead from_store = ReadStreamed(store.get(), path);
  ASSERT_EQ(from_disk.first_values.size(), static_cast<size_t>(kRows));
  EXPECT_EQ(from_disk.first_values, from_store.first_values);
  // Each column's buffer: 256 KB against 1 MB.
  EXPECT_GE(from_store.peak_bytes - from_disk.peak_bytes, kColumns * (int64_t{768} << 10))
      << from_disk.peak_bytes << " vs " << from_store.peak_bytes;
  // Per column at most its buffer, a compressed and a decompressed page (up to 1 MB each), plus
  // the batch.
  EXPECT_LE(from_disk.peak_bytes,
            kColumns * (int64_t{256} << 10) + kColumns * (int64_t{2} << 20) + kColumns * 1024 * 80)
      << from_disk.peak_bytes << " vs " << from_store.peak_bytes;
}

}  // namespace
}  // namespace fjord
