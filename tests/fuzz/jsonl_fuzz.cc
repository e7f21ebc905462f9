// libFuzzer target: one line of JSON-lines input (format/json_values.h: the exact JSON parser that
// keeps number text, canonical JSON to values) and every text-to-value parser
// (format/text_values.h) on the raw bytes. Arbitrary bytes must give a value or a clear Invalid
// error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fjord/format/json_values.h"
#include "fjord/format/text_values.h"

namespace {

const std::vector<fjord::DataField>& Fields() {
  static const std::vector<fjord::DataField> fields = *fjord::ParseColumnList(
      "id INT NOT NULL, b BOOLEAN, ti TINYINT, si SMALLINT, i INT, bi BIGINT, f FLOAT, "
      "d DOUBLE, dec DECIMAL(10, 2), bigdec DECIMAL(38, 10), c CHAR(3), vc VARCHAR(5), s STRING, "
      "bin BINARY(4), vb VARBINARY(8), bytes BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(3), "
      "ts6 TIMESTAMP(6), ts9 TIMESTAMP(9), ltz TIMESTAMP_LTZ(6), arr ARRAY<INT>, "
      "m MAP<STRING, INT>, r ROW<x INT, y STRING>, ms MULTISET<STRING>");
  return fields;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto row = fjord::ParseJsonLine(text, Fields(), "fuzz.jsonl line 1");
  if (row.ok()) {
    if (row->values.size() != Fields().size() || row->values[0].is_null()) __builtin_trap();
  } else if (!row.status().IsInvalid() || row.status().message().find("fuzz.jsonl line 1") != 0) {
    __builtin_trap();
  }
  for (const fjord::DataField& f : Fields()) {
    auto v = fjord::ValueFromText(text, *f.type);
    if (!v.ok() && !v.status().IsInvalid()) __builtin_trap();
    // What parses as a decimal has the column's scale and fits its precision.
    if (v.ok() && !v->is_null() && v->is<fjord::Decimal>()) {
      const fjord::Decimal& d = v->get<fjord::Decimal>();
      if (d.scale != f.type->scale() || d.precision != f.type->precision()) __builtin_trap();
    }
  }
  return 0;
}
