#include "fjord/format/input_rows.h"

#include "fjord/format/rows_builder.h"
#include "fjord/format/text_columns.h"

namespace fjord {

Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source) {
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(fields));
  FJORD_ASSIGN_OR_RAISE(CsvRowReader reader,
                        CsvRowReader::Open(text, fields, options, std::string(source)));
  TextColumns columns(fields, &builder, text);
  // After a sample of records, the columns are grown once for the rest, estimated from the
  // sample's bytes per record with an eighth to spare (as ParseJsonLines does).
  constexpr int64_t kSample = 1024;
  const size_t header = reader.position();
  while (true) {
    if (builder.rows() == kSample) {
      const auto read = static_cast<double>(reader.position() - header);
      const double rest = static_cast<double>(text.size() - reader.position()) / read * kSample;
      FJORD_RETURN_NOT_OK(builder.ReserveMore(static_cast<int64_t>(rest * 1.125) + 16));
    }
    FJORD_ASSIGN_OR_RAISE(bool any, reader.Next(&columns));
    if (!any) break;
  }
  return builder.Finish();
}

}  // namespace fjord
