// libFuzzer target: the CSV input reader (format/csv_reader.h) with the table's schema and the
// exact text-to-value parsers behind it (format/text_values.h). Arbitrary bytes must give rows
// or a clear Invalid error naming the source, never a crash.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fjord/format/csv_reader.h"
#include "fjord/format/text_values.h"

namespace {

const std::vector<fjord::DataField>& Fields() {
  static const std::vector<fjord::DataField> fields = *fjord::ParseColumnList(
      "id INT NOT NULL, b BOOLEAN, ti TINYINT, i INT, bi BIGINT, f FLOAT, d DOUBLE, "
      "dec DECIMAL(10, 2), bigdec DECIMAL(38, 10), c CHAR(3), s STRING, bin BINARY(4), "
      "bytes BYTES, dt DATE, tm TIME(3), ts TIMESTAMP(3), ts9 TIMESTAMP(9), "
      "ltz TIMESTAMP_LTZ(6), arr ARRAY<INT>, m MAP<STRING, INT>, r ROW<x INT, y STRING>, "
      "ms MULTISET<STRING>");
  return fields;
}

// The row's cells as values, each read by ValueFromText (what TextColumns appends to Arrow
// columns; the fuzz build has no Arrow).
class ValueCells : public fjord::CsvCells {
 public:
  fjord::Status Append(size_t column, std::string_view text) override {
    if (column >= Fields().size() || given_[column]) __builtin_trap();
    given_[column] = true;
    auto v = fjord::ValueFromText(text, *Fields()[column].type);
    if (!v.ok()) return v.status();
    values_[column] = std::move(*v);
    return fjord::Status::OK();
  }
  fjord::Status AppendNull(size_t column) override {
    if (column >= Fields().size() || given_[column]) __builtin_trap();
    given_[column] = true;
    values_[column] = fjord::Value();
    return fjord::Status::OK();
  }
  fjord::Status EndRow(int8_t kind) override {
    for (bool given : given_) {
      if (!given) __builtin_trap();  // every column gets one value
    }
    if (kind < 0 || kind > 3) __builtin_trap();
    if (values_[0].is_null()) __builtin_trap();  // id is NOT NULL
    given_.assign(Fields().size(), false);
    return fjord::Status::OK();
  }

 private:
  std::vector<bool> given_ = std::vector<bool>(Fields().size(), false);
  std::vector<fjord::Value> values_ = std::vector<fjord::Value>(Fields().size());
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  // The first byte chooses the null literal: the empty field or \N.
  fjord::CsvOptions options;
  if (!text.empty()) {
    if (text[0] & 1) options.null_literal = "\\N";
    text.remove_prefix(1);
  }
  auto reader = fjord::CsvRowReader::Open(text, Fields(), options, "fuzz.csv");
  if (!reader.ok()) {
    if (!reader.status().IsInvalid()) __builtin_trap();
    return 0;
  }
  ValueCells cells;
  while (true) {
    auto next = reader->Next(&cells);
    if (!next.ok()) {
      if (!next.status().IsInvalid() || next.status().message().find("fuzz.csv line ") != 0) {
        __builtin_trap();
      }
      break;
    }
    if (!*next) break;
  }
  return 0;
}
