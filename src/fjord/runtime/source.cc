#include "fjord/runtime/source.h"

#include <fcntl.h>
#include <unistd.h>

#include <arrow/record_batch.h>

#include <filesystem>
#include <fstream>

#include "fjord/format/input_rows.h"

namespace fjord::runtime {

Result<std::shared_ptr<arrow::RecordBatch>> ParseChunk(
    const std::string& text, bool csv, const std::string& csv_header, const std::string& csv_null,
    const TableSchema& schema, const std::string& file, int64_t first_line) {
  InputRows rows;
  if (csv) {
    CsvOptions options;
    options.null_literal = csv_null;
    options.lines_skipped = first_line - 2;  // the header is line 1
    FJORD_ASSIGN_OR_RAISE(rows, ParseCsvRows(csv_header + text, schema.fields, options, file));
  } else {
    FJORD_ASSIGN_OR_RAISE(rows, ParseJsonLines(text, schema.fields, file, first_line));
  }
  return InputRowsToBatch(rows, file);
}

Result<std::unique_ptr<Source>> MakeSource(const SourceSpec& spec, const TableSchema& schema) {
  if (spec.type == "files") return MakeFilesSource(spec, schema);
  if (spec.type == "datagen") return MakeDatagenSource(spec, schema);
  if (spec.type == "kafka") return MakeKafkaSource(spec, schema);
  return Status::Invalid("unknown source type '", spec.type, "'");
}

Status SeekDeadLetter(const std::string& path, int64_t* bytes) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(fs::path(path).parent_path(), ec);
  if (!fs::exists(path, ec)) std::ofstream(path, std::ios::app);
  auto size = static_cast<int64_t>(fs::file_size(path, ec));
  if (ec) return Status::IOError("cannot open dead-letter file ", path);
  if (size > *bytes) {
    fs::resize_file(path, static_cast<uintmax_t>(*bytes), ec);
    if (ec) return Status::IOError("cannot truncate dead-letter file ", path);
  } else {
    *bytes = size;
  }
  return Status::OK();
}

Status AppendDeadLetters(const std::string& path, std::string_view letters, int64_t* bytes) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("cannot open dead-letter file ", path);
  bool ok = ::write(fd, letters.data(), letters.size()) == static_cast<ssize_t>(letters.size()) &&
            ::fsync(fd) == 0;
  ::close(fd);
  if (!ok) return Status::IOError("cannot write dead-letter file ", path);
  *bytes += static_cast<int64_t>(letters.size());
  return Status::OK();
}

}  // namespace fjord::runtime
