#include "fjord/format/input_rows.h"

#include <arrow/api.h>

#include <algorithm>
#include <memory>

#include "fjord/common/arrow_status.h"
#include "fjord/format/rows_builder.h"
#include "fjord/format/text_columns.h"

namespace fjord {

Result<std::shared_ptr<arrow::RecordBatch>> InputRowsToBatch(const InputRows& rows,
                                                             std::string_view source) {
  auto combined = rows.rows->CombineChunksToBatch();
  if (!combined.ok()) return Status::Invalid(source, ": ", combined.status().message());
  std::shared_ptr<arrow::RecordBatch> batch = *combined;
  bool all_inserts = true;
  for (int8_t k : rows.row_kinds) all_inserts = all_inserts && k == 0;
  if (all_inserts) return batch;
  arrow::Int8Builder kinds;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.AppendValues(rows.row_kinds)));
  std::shared_ptr<arrow::Array> kind_array;
  FJORD_RETURN_NOT_OK(FromArrow(kinds.Finish(&kind_array)));
  auto with_kinds = batch->AddColumn(batch->num_columns(),
                                     arrow::field("_row_kind", arrow::int8(), false), kind_array);
  if (!with_kinds.ok()) return Status::Invalid(source, ": ", with_kinds.status().message());
  return *with_kinds;
}

struct CsvRowsReader::State {
  State(std::string_view t, const std::vector<DataField>& f, CsvRowReader r)
      : text(t), fields(f), reader(std::move(r)) {}
  std::string_view text;
  const std::vector<DataField>& fields;
  CsvRowReader reader;
  bool done = false;  // the reader found no more records
};

CsvRowsReader::CsvRowsReader(std::unique_ptr<State> state) : state_(std::move(state)) {}
CsvRowsReader::~CsvRowsReader() = default;
CsvRowsReader::CsvRowsReader(CsvRowsReader&&) noexcept = default;
CsvRowsReader& CsvRowsReader::operator=(CsvRowsReader&&) noexcept = default;

Result<CsvRowsReader> CsvRowsReader::Open(std::string_view text,
                                          const std::vector<DataField>& fields,
                                          const CsvOptions& options, std::string source) {
  FJORD_ASSIGN_OR_RAISE(CsvRowReader reader,
                        CsvRowReader::Open(text, fields, options, std::move(source)));
  return CsvRowsReader(std::make_unique<State>(text, fields, std::move(reader)));
}

size_t CsvRowsReader::position() const { return state_->reader.position(); }

Result<std::optional<InputRows>> CsvRowsReader::Next(size_t bytes) {
  State& st = *state_;
  CsvRowReader& reader = st.reader;
  const size_t start = reader.position();
  if (st.done || start >= st.text.size()) return std::optional<InputRows>();
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(st.fields));
  TextColumns columns(st.fields, &builder, st.text);
  bytes = std::max<size_t>(bytes, 1);  // at least one record
  const size_t stop = st.text.size() - start > bytes ? start + bytes : st.text.size();
  // After a sample of records, the columns are grown once for the rest of the batch, estimated
  // from the sample's bytes per record with an eighth to spare (as JsonLinesReader does).
  constexpr int64_t kSample = 1024;
  while (reader.position() < stop) {
    if (builder.rows() == kSample) {
      const auto read = static_cast<double>(reader.position() - start);
      const double rest = static_cast<double>(stop - reader.position()) / read * kSample;
      FJORD_RETURN_NOT_OK(builder.ReserveMore(static_cast<int64_t>(rest * 1.125) + 16));
    }
    FJORD_ASSIGN_OR_RAISE(bool any, reader.Next(&columns));
    if (!any) {
      st.done = true;
      if (builder.rows() == 0) return std::optional<InputRows>();
      break;
    }
  }
  FJORD_ASSIGN_OR_RAISE(InputRows rows, builder.Finish());
  return std::optional<InputRows>(std::move(rows));
}

Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source) {
  FJORD_ASSIGN_OR_RAISE(CsvRowsReader reader,
                        CsvRowsReader::Open(text, fields, options, std::string(source)));
  FJORD_ASSIGN_OR_RAISE(std::optional<InputRows> rows, reader.Next(text.size()));
  if (rows) return std::move(*rows);
  RowsBuilder empty;
  FJORD_RETURN_NOT_OK(empty.Init(fields));
  return empty.Finish();
}

}  // namespace fjord
