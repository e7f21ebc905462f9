#include "fjord/runtime/source.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/input_rows.h"
#include "fjord/table_write.h"

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
  auto combined = rows.rows->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(file, ": ", combined.status().message());
  std::shared_ptr<arrow::RecordBatch> batch = *combined;
  bool all_inserts = true;
  for (int8_t k : rows.row_kinds) all_inserts = all_inserts && k == 0;
  if (all_inserts) return batch;
  arrow::Int8Builder kinds;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.AppendValues(rows.row_kinds)));
  std::shared_ptr<arrow::Array> kind_array;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.Finish(&kind_array)));
  auto with_kinds = batch->AddColumn(
      batch->num_columns(), arrow::field(kRowKindColumn, arrow::int8(), false), kind_array);
  if (!with_kinds.ok()) return Status::Invalid(file, ": ", with_kinds.status().message());
  return *with_kinds;
}

Result<std::unique_ptr<Source>> MakeSource(const SourceSpec& spec, const TableSchema& schema) {
  if (spec.type == "files") return MakeFilesSource(spec, schema);
  if (spec.type == "datagen") return MakeDatagenSource(spec, schema);
  if (spec.type == "kafka") return MakeKafkaSource(spec, schema);
  return Status::Invalid("unknown source type '", spec.type, "'");
}

}  // namespace fjord::runtime
