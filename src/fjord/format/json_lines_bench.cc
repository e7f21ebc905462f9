// JSON-lines decoding alone (bench/json_decode_bench.py, `make bench-json`): a file of JSON lines
// through JsonLinesReader into Arrow columns of the given table columns, batch by batch as
// `fjord write` reads ("fjord"), or through simdjson's on-demand parser alone, every value
// visited and nothing built ("simdjson": the parser's own speed, the limit of the decode); or a
// CSV file through CsvRowsReader ("csv").
// Prints one JSON line: rows and seconds.
#include <arrow/api.h>
#include <arrow/io/file.h>
#include <simdjson.h>

#include <chrono>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include "fjord/format/input_rows.h"
#include "fjord/row_text.h"
#include "fjord/schema.h"

namespace {

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// Visits every value of every line; returns the number of lines.
int64_t SimdjsonOnly(std::string_view text) {
  namespace od = simdjson::ondemand;
  od::parser parser;
  std::string padded;
  int64_t lines = 0, checksum = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    if (line.empty()) continue;
    if (padded.size() < line.size() + simdjson::SIMDJSON_PADDING) {
      padded.resize(line.size() + simdjson::SIMDJSON_PADDING);
    }
    std::copy(line.begin(), line.end(), padded.begin());
    od::document doc;
    od::object object;
    if (parser.iterate(padded.data(), line.size(), padded.size()).get(doc) ||
        doc.get_object().get(object)) {
      std::cerr << "bad line " << lines + 1 << "\n";
      std::exit(1);
    }
    for (auto member : object) {
      od::field field;
      std::string_view key, s;
      od::json_type type;
      if (std::move(member).get(field) || field.unescaped_key().get(key)) std::exit(1);
      od::value v = field.value();
      if (v.type().get(type)) std::exit(1);
      if (type == od::json_type::number) {
        double d;
        if (v.get_double().get(d)) std::exit(1);
        checksum += static_cast<int64_t>(d);
      } else if (type == od::json_type::string) {
        if (v.get_string().get(s)) std::exit(1);
        checksum += static_cast<int64_t>(s.size());
      }
    }
    ++lines;
  }
  return checksum == -1 ? 0 : lines;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::cerr << "usage: json_lines_bench fjord|simdjson|csv FILE [SCHEMA_FILE]\n";
    return 2;
  }
  std::string mode = argv[1];
  auto file = arrow::io::MemoryMappedFile::Open(argv[2], arrow::io::FileMode::READ);
  if (!file.ok()) {
    std::cerr << file.status().ToString() << "\n";
    return 1;
  }
  auto buffer = (*file)->ReadAt(0, *(*file)->GetSize());
  std::string_view text(reinterpret_cast<const char*>((*buffer)->data()),
                        static_cast<size_t>((*buffer)->size()));
  double start = Now();
  int64_t rows = 0;
  if (mode == "simdjson") {
    rows = SimdjsonOnly(text);
  } else {
    if (argc < 4) return 2;
    std::ifstream in(argv[3]);
    std::stringstream json;
    json << in.rdbuf();
    auto schema = fjord::TableSchema::FromJson(json.str(), argv[3]);
    if (!schema.ok()) {
      std::cerr << schema.status().ToString() << "\n";
      return 1;
    }
    // Batch by batch, as `fjord write` reads its input (InputFileReader): each batch dropped
    // before the next is read.
    const auto bytes = static_cast<size_t>(fjord::InputOptions{}.batch_bytes);
    auto read_all = [&](auto& reader) -> int {
      while (true) {
        auto next = reader.Next(bytes);
        if (!next.ok()) {
          std::cerr << next.status().ToString() << "\n";
          return 1;
        }
        if (!next->has_value()) return 0;
        rows += (*next)->rows->num_rows();
      }
    };
    if (mode == "csv") {
      auto reader = fjord::CsvRowsReader::Open(text, schema->fields, fjord::CsvOptions{}, argv[2]);
      if (!reader.ok()) {
        std::cerr << reader.status().ToString() << "\n";
        return 1;
      }
      if (read_all(*reader) != 0) return 1;
    } else {
      fjord::JsonLinesReader reader(text, schema->fields, argv[2]);
      if (read_all(reader) != 0) return 1;
    }
  }
  std::cout << "{\"rows\": " << rows << ", \"seconds\": " << Now() - start << "}\n";
  return 0;
}
