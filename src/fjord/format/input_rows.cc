#include "fjord/format/input_rows.h"

#include "fjord/format/rows_builder.h"

namespace fjord {

Result<InputRows> ParseCsvRows(std::string_view text, const std::vector<DataField>& fields,
                               const CsvOptions& options, std::string_view source) {
  RowsBuilder builder;
  FJORD_RETURN_NOT_OK(builder.Init(fields));
  FJORD_ASSIGN_OR_RAISE(CsvRowReader reader,
                        CsvRowReader::Open(text, fields, options, std::string(source)));
  std::vector<Value> values;
  int8_t kind = 0;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(bool any, reader.Next(&values, &kind));
    if (!any) break;
    FJORD_RETURN_NOT_OK(builder.Append(values, kind));
  }
  return builder.Finish();
}

}  // namespace fjord
