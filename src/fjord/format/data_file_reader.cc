#include "fjord/format/data_file_reader.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/compute/api.h>
#include <arrow/io/interfaces.h>
#include <parquet/arrow/reader.h>
#include <parquet/arrow/schema.h>
#include <parquet/file_reader.h>

#include <algorithm>
#include <cctype>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/avro_data_reader.h"
#include "fjord/format/orc/orc_reader.h"
#include "fjord/format/orc/orc_tail.h"

namespace fjord {

namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

void CollectLeaves(const parquet::arrow::SchemaField& field, std::vector<int>* out) {
  if (field.is_leaf()) {
    out->push_back(field.column_index);
    return;
  }
  for (const auto& child : field.children) CollectLeaves(child, out);
}

// Puts the columns of `table` in the order and types of `fields`.
Result<std::shared_ptr<arrow::Table>> Conform(const std::shared_ptr<arrow::Table>& table,
                                              const std::vector<DataField>& fields,
                                              const std::string& path) {
  arrow::FieldVector out_fields;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (const DataField& f : fields) {
    auto column = table->GetColumnByName(f.name);
    if (!column) return Status::Corruption(path, ": data file has no column '", f.name, "'");
    arrow::ArrayVector chunks;
    for (const auto& chunk : column->chunks()) {
      Result<std::shared_ptr<arrow::Array>> canonical = ToCanonical(chunk, *f.type);
      if (!canonical.ok()) return canonical.status().WithContext(path, ": column '", f.name, "'");
      chunks.push_back(*canonical);
    }
    FJORD_ASSIGN_OR_RAISE(auto field, ToArrowField(f));
    if (chunks.empty()) {
      FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(field->type()));
      chunks.push_back(empty);
    }
    // Canonical, but a MAP with NULL keys keeps the list form (arrow_types.h).
    field = field->WithType(chunks[0]->type());
    out_fields.push_back(field);
    columns.push_back(std::make_shared<arrow::ChunkedArray>(chunks, field->type()));
  }
  return arrow::Table::Make(arrow::schema(out_fields), columns, table->num_rows());
}

Result<std::shared_ptr<arrow::Table>> ReadParquet(FileIO* io, const std::string& path,
                                                  const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  parquet::ArrowReaderProperties props;
  props.set_coerce_int96_timestamp_unit(arrow::TimeUnit::NANO);
  parquet::arrow::FileReaderBuilder builder;
  arrow::Status st = builder.Open(input);
  if (!st.ok()) return Status::Corruption(path, ": not a readable Parquet file: ", st.message());
  std::unique_ptr<parquet::arrow::FileReader> reader;
  st = builder.properties(props)->Build(&reader);
  if (!st.ok()) return Status::Corruption(path, ": ", st.message());
  const auto& manifest = reader->manifest();
  std::vector<int> leaves;
  for (const DataField& f : fields) {
    bool found = false;
    for (const auto& sf : manifest.schema_fields) {
      if (sf.field->name() == f.name) {
        CollectLeaves(sf, &leaves);
        found = true;
        break;
      }
    }
    if (!found) return Status::Corruption(path, ": data file has no column '", f.name, "'");
  }
  auto table = reader->ReadTable(leaves);
  if (!table.ok()) return FromArrow(table.status()).WithContext(path);
  return Conform(*table, fields, path);
}

bool HasChar(const DataType& type) {
  switch (type.root()) {
    case TypeRoot::kChar:
      return true;
    case TypeRoot::kArray:
    case TypeRoot::kVector:
    case TypeRoot::kMultiset:
      return HasChar(*type.element());
    case TypeRoot::kMap:
      return HasChar(*type.key()) || HasChar(*type.value());
    case TypeRoot::kRow:
      return std::any_of(type.fields().begin(), type.fields().end(),
                         [](const DataField& f) { return HasChar(*f.type); });
    default:
      return false;
  }
}

// `data` (canonical form of `type`) with the trailing blanks of its CHAR values removed, as Java's
// ORC reader returns CHAR(n) values (ORC's CharTreeReader right-trims what writers pad to n).
// A child is replaced by an equal array starting at offset 0, which its parent's offsets and
// offset address the same way.
Result<std::shared_ptr<arrow::ArrayData>> TrimChars(const std::shared_ptr<arrow::ArrayData>& data,
                                                    const DataType& type) {
  if (!HasChar(type)) return data;
  if (type.root() == TypeRoot::kChar) {
    EnsureArrowCompute();
    arrow::compute::TrimOptions blanks(" ");
    auto trimmed = arrow::compute::CallFunction("utf8_rtrim", {arrow::MakeArray(data)}, &blanks);
    if (!trimmed.ok()) return FromArrow(trimmed.status());
    return trimmed->make_array()->data();
  }
  auto out = data->Copy();
  switch (type.root()) {
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      FJORD_ASSIGN_OR_RAISE(out->child_data[0], TrimChars(data->child_data[0], *type.element()));
      break;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& key = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& value = type.root() == TypeRoot::kMap ? *type.value() : *count;
      auto entries = data->child_data[0]->Copy();
      FJORD_ASSIGN_OR_RAISE(entries->child_data[0], TrimChars(entries->child_data[0], key));
      FJORD_ASSIGN_OR_RAISE(entries->child_data[1], TrimChars(entries->child_data[1], value));
      out->child_data[0] = entries;
      break;
    }
    case TypeRoot::kRow:
      for (size_t i = 0; i < type.fields().size(); ++i) {
        FJORD_ASSIGN_OR_RAISE(out->child_data[i],
                              TrimChars(data->child_data[i], *type.fields()[i].type));
      }
      break;
    default:
      break;
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> ReadOrcColumns(FileIO* io, const std::string& path,
                                                     const std::vector<DataField>& fields);

Result<std::shared_ptr<arrow::Table>> ReadOrc(FileIO* io, const std::string& path,
                                              const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(auto table, ReadOrcColumns(io, path, fields));
  if (std::none_of(fields.begin(), fields.end(),
                   [](const DataField& f) { return HasChar(*f.type); })) {
    return table;
  }
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns = table->columns();
  for (size_t c = 0; c < fields.size(); ++c) {
    if (!HasChar(*fields[c].type)) continue;
    arrow::ArrayVector chunks;
    for (const auto& chunk : columns[c]->chunks()) {
      Result<std::shared_ptr<arrow::ArrayData>> trimmed = TrimChars(chunk->data(), *fields[c].type);
      if (!trimmed.ok()) {
        return trimmed.status().WithContext(path, ": column '", fields[c].name, "'");
      }
      chunks.push_back(arrow::MakeArray(*trimmed));
    }
    columns[c] = std::make_shared<arrow::ChunkedArray>(chunks, columns[c]->type());
  }
  return arrow::Table::Make(table->schema(), columns, table->num_rows());
}

Result<std::shared_ptr<arrow::Table>> ReadOrcColumns(FileIO* io, const std::string& path,
                                                     const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
  std::vector<std::string> names;
  for (const DataField& f : fields) names.push_back(f.name);
  // Arrow's ORC adapter aborts the process on input it cannot represent (MAP keys with NULLs):
  // check the tail ourselves first and read such files with our own reader.
  // A tail we cannot decompress ourselves (LZO) is left to Arrow, which can.
  Result<OrcTail> tail = ReadOrcTail(input.get(), path);
  auto read_own = [&]() -> Result<std::shared_ptr<arrow::Table>> {
    FJORD_ARROW_ASSIGN_OR_RAISE(int64_t size, input->GetSize());
    OrcReadAt read_at = [&input, &path](uint64_t offset, uint64_t length) -> Result<std::string> {
      auto buffer = input->ReadAt(static_cast<int64_t>(offset), static_cast<int64_t>(length));
      if (!buffer.ok()) return FromArrow(buffer.status()).WithContext(path);
      return (*buffer)->ToString();
    };
    FJORD_ASSIGN_OR_RAISE(
        auto table, orc::ReadOrcFile(*tail, static_cast<uint64_t>(size), read_at, path, fields));
    return Conform(table, fields, path);
  };
  if (tail.ok()) {
    if (!CheckArrowCanReadOrc(*tail, names, path).ok()) return read_own();
  } else if (tail.status().code() != StatusCode::kNotImplemented) {
    return tail.status();
  }
  auto reader = arrow::adapters::orc::ORCFileReader::Open(input, arrow::default_memory_pool());
  if (!reader.ok()) {
    return Status::Corruption(path, ": not a readable ORC file: ", reader.status().message());
  }
  auto table = (*reader)->Read(names);
  if (!table.ok()) {
    // Arrow's ORC adapter reads every TIMESTAMP in nanoseconds and refuses values outside
    // 1677-2262, which Paimon writes at lower precisions (e.g. 9999-12-31 in a TIMESTAMP(3));
    // our reader keeps each column's own unit.
    if (tail.ok() &&
        table.status().message().find("out of range for nanosecond") != std::string::npos) {
      return read_own();
    }
    return FromArrow(table.status()).WithContext(path);
  }
  return Conform(*table, fields, path);
}

}  // namespace

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

Result<std::shared_ptr<arrow::Table>> ReadDataFile(FileIO* io, const std::string& path,
                                                   FileFormat format,
                                                   const std::vector<DataField>& fields) {
  switch (format) {
    case FileFormat::kParquet:
      return ReadParquet(io, path, fields);
    case FileFormat::kOrc:
      return ReadOrc(io, path, fields);
    case FileFormat::kAvro:
      return ReadAvroDataFile(io, path, fields);
  }
  return Status::Internal("unknown file format");
}

}  // namespace fjord
