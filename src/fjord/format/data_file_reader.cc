#include "fjord/format/data_file_reader.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/strings.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/file_batches.h"

namespace fjord {

std::string_view FileFormatName(FileFormat format) {
  switch (format) {
    case FileFormat::kParquet:
      return "parquet";
    case FileFormat::kOrc:
      return "orc";
    case FileFormat::kAvro:
      return "avro";
  }
  return "?";
}

Result<FileFormat> ParseFileFormat(std::string_view name) {
  std::string n = Lower(name);
  if (n == "parquet") return FileFormat::kParquet;
  if (n == "orc") return FileFormat::kOrc;
  if (n == "avro") return FileFormat::kAvro;
  return Status::NotImplemented("unsupported file format '", name, "'");
}

Result<FileFormat> FileFormatOfPath(std::string_view path) {
  std::string name = BaseName(path);
  size_t dot = name.rfind('.');
  if (dot == std::string::npos) return Status::Invalid(path, ": data file name has no extension");
  std::string ext = Lower(name.substr(dot + 1));
  static const char* kCompression[] = {"zst", "zstd", "gz", "snappy", "lz4", "lzo", "bz2", "br"};
  for (const char* c : kCompression) {
    if (ext == c) {
      std::string rest = name.substr(0, dot);
      size_t prev = rest.rfind('.');
      if (prev == std::string::npos) break;
      ext = Lower(rest.substr(prev + 1));
      break;
    }
  }
  Result<FileFormat> f = ParseFileFormat(ext);
  if (!f.ok()) return f.status().WithContext(path);
  return f;
}

Result<std::unique_ptr<BatchReader>> OpenDataFile(FileIO* io, const std::string& path,
                                                  FileFormat format,
                                                  const std::vector<DataField>& fields,
                                                  const FileReadOptions& options) {
  switch (format) {
    case FileFormat::kParquet:
      return OpenParquetFile(io, path, fields, options);
    case FileFormat::kOrc:
      return OpenOrcFile(io, path, fields, options);
    case FileFormat::kAvro:
      return OpenAvroFile(io, path, fields, options);
  }
  return Status::Internal("unknown file format");
}

Result<std::shared_ptr<arrow::Table>> ReadDataFile(FileIO* io, const std::string& path,
                                                   FileFormat format,
                                                   const std::vector<DataField>& fields) {
  FileReadOptions options;
  options.batch_rows = int64_t{1} << 20;
  FJORD_ASSIGN_OR_RAISE(auto reader, OpenDataFile(io, path, format, fields, options));
  std::vector<std::shared_ptr<arrow::RecordBatch>> batches;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) break;
    batches.push_back(std::move(batch));
  }
  if (batches.empty()) {
    arrow::FieldVector out;
    for (const DataField& f : fields) {
      FJORD_ASSIGN_OR_RAISE(auto field, ToArrowField(f));
      out.push_back(field);
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::Table::MakeEmpty(arrow::schema(out)));
    return empty;
  }
  // Batches of one file may differ in a MAP column's form (arrow_types.h): unify them.
  std::vector<std::shared_ptr<arrow::Table>> parts;
  for (auto& b : batches) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto t, arrow::Table::FromRecordBatches({b}));
    parts.push_back(std::move(t));
  }
  FJORD_ASSIGN_OR_RAISE(parts, UnifyMapForms(parts));
  FJORD_ARROW_ASSIGN_OR_RAISE(auto all, arrow::ConcatenateTables(parts));
  return all;
}

}  // namespace fjord
