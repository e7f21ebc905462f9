// `fjord cat`, `fjord snapshots`, `fjord schema`, `fjord files`: reading tables.

#include <arrow/api.h>

#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>

#include "commands.h"
#include "fjord/common/strings.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/row_json.h"
#include "fjord/table/table.h"
#include "fjord/value.h"

namespace fjord::cli {

namespace {

int Fail(const Status& st) {
  std::cerr << "fjord: " << st.ToString() << "\n";
  return 1;
}

std::string CsvQuote(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

// A cell as text for csv/table output: JSON form, with strings unquoted.
Result<std::string> CellText(const arrow::Array& array, int64_t row, const DataType& type) {
  std::string json;
  FJORD_RETURN_NOT_OK(AppendValueJson(array, row, type, &json));
  if (array.IsNull(row)) return std::string("");
  if (json.size() >= 2 && json.front() == '"' && !type.IsNested()) {
    // Undo JSON string escaping for plain text output.
    std::string text;
    for (size_t i = 1; i + 1 < json.size(); ++i) {
      if (json[i] == '\\' && i + 2 < json.size()) {
        char n = json[++i];
        text += n == 'n' ? '\n' : n == 't' ? '\t' : n == 'r' ? '\r' : n;
      } else {
        text += json[i];
      }
    }
    return text;
  }
  return json;
}

Status PrintRows(const ReadResult& result, const std::string& format) {
  std::shared_ptr<arrow::Table> rows = result.rows;
  auto combined = rows->CombineChunks();
  if (!combined.ok()) return Status::Internal(combined.status().message());
  rows = *combined;
  std::vector<std::shared_ptr<arrow::Array>> columns;
  for (int c = 0; c < rows->num_columns(); ++c) {
    auto col = rows->column(c);
    if (col->num_chunks() == 0) {
      auto empty = arrow::MakeEmptyArray(col->type());
      if (!empty.ok()) return Status::Internal(empty.status().message());
      columns.push_back(*empty);
    } else {
      columns.push_back(col->chunk(0));
    }
  }
  const auto& fields = result.fields;
  std::string out;
  if (format == "jsonl") {
    for (int64_t r = 0; r < rows->num_rows(); ++r) {
      out.clear();
      FJORD_RETURN_NOT_OK(AppendRowJson(columns, fields, r, &out));
      out += '\n';
      std::fwrite(out.data(), 1, out.size(), stdout);
    }
    return Status::OK();
  }
  std::vector<std::vector<std::string>> cells;
  std::vector<std::string> header;
  for (const DataField& f : fields) header.push_back(f.name);
  for (int64_t r = 0; r < rows->num_rows(); ++r) {
    std::vector<std::string> line;
    for (size_t c = 0; c < fields.size(); ++c) {
      FJORD_ASSIGN_OR_RAISE(std::string text, CellText(*columns[c], r, *fields[c].type));
      line.push_back(std::move(text));
    }
    cells.push_back(std::move(line));
  }
  if (format == "csv") {
    for (size_t c = 0; c < header.size(); ++c) std::cout << (c ? "," : "") << CsvQuote(header[c]);
    std::cout << "\n";
    for (const auto& line : cells) {
      for (size_t c = 0; c < line.size(); ++c) std::cout << (c ? "," : "") << CsvQuote(line[c]);
      std::cout << "\n";
    }
    return Status::OK();
  }
  std::vector<size_t> width(header.size());
  for (size_t c = 0; c < header.size(); ++c) width[c] = header[c].size();
  for (const auto& line : cells) {
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  }
  auto print_line = [&](const std::vector<std::string>& line) {
    for (size_t c = 0; c < line.size(); ++c) {
      std::cout << (c ? " | " : "") << line[c] << std::string(width[c] - line[c].size(), ' ');
    }
    std::cout << "\n";
  };
  print_line(header);
  for (size_t c = 0; c < header.size(); ++c) {
    std::cout << (c ? "-+-" : "") << std::string(width[c], '-');
  }
  std::cout << "\n";
  for (const auto& line : cells) print_line(line);
  std::cout << "(" << cells.size() << " rows)\n";
  return Status::OK();
}

struct CatArgs {
  std::string table;
  std::optional<int64_t> snapshot;
  std::optional<int64_t> timestamp;
  std::optional<std::string> tag;
  std::string columns;
  std::string where;
  std::string format = "jsonl";
};

int RunCat(const CatArgs& args) {
  auto table = Table::Open(args.table);
  if (!table.ok()) return Fail(table.status());
  ReadRequest request;
  request.selector.snapshot_id = args.snapshot;
  request.selector.timestamp_millis = args.timestamp;
  request.selector.tag = args.tag;
  request.where = args.where;
  request.columns = SplitCommaList(args.columns);
  auto result = (*table)->Read(request);
  if (!result.ok()) return Fail(result.status());
  Status st = PrintRows(*result, args.format);
  if (!st.ok()) return Fail(st);
  return 0;
}

std::string FormatMillis(int64_t millis) {
  return FormatTimestamp(millis / 1000 - (millis % 1000 < 0),
                         static_cast<int32_t>(((millis % 1000) + 1000) % 1000 * 1000000), 3) +
         "Z";
}

int RunSnapshots(const std::string& path) {
  auto table = Table::Open(path);
  if (!table.ok()) return Fail(table.status());
  const SnapshotManager& sm = (*table)->snapshots();
  auto ids = sm.ListIds();
  if (!ids.ok()) return Fail(ids.status());
  std::printf("%-8s %-6s %-10s %-24s %-12s %-12s %-20s %s\n", "id", "schema", "kind", "time",
              "total_rows", "delta_rows", "identifier", "commit_user");
  for (int64_t id : *ids) {
    auto s = sm.Load(id);
    if (!s.ok()) return Fail(s.status());
    std::printf("%-8lld %-6lld %-10s %-24s %-12lld %-12lld %-20lld %s\n",
                static_cast<long long>(s->id), static_cast<long long>(s->schema_id),
                std::string(CommitKindName(s->commit_kind)).c_str(),
                FormatMillis(s->time_millis).c_str(),
                static_cast<long long>(s->total_record_count.value_or(-1)),
                static_cast<long long>(s->delta_record_count.value_or(-1)),
                static_cast<long long>(s->commit_identifier), s->commit_user.c_str());
  }
  auto tags = sm.ListTags();
  if (!tags.ok()) return Fail(tags.status());
  for (const std::string& t : *tags) {
    auto s = sm.LoadTag(t);
    if (!s.ok()) return Fail(s.status());
    std::printf("tag %s -> snapshot %lld\n", t.c_str(), static_cast<long long>(s->id));
  }
  return 0;
}

int RunSchema(const std::string& path) {
  auto table = Table::Open(path);
  if (!table.ok()) return Fail(table.status());
  std::cout << (*table)->schema().ToJson() << "\n";
  return 0;
}

std::string RowText(const std::string& stored, const std::vector<DataField>& fields) {
  std::vector<DataTypePtr> types;
  for (const DataField& f : fields) types.push_back(f.type->WithNullable(true));
  auto split = SplitArityPrefix(stored);
  if (!split.ok()) return "?";
  auto values = DecodeBinaryRow(split->second, types);
  if (!values.ok()) return "?";
  std::string out = "[";
  for (size_t i = 0; i < values->size(); ++i) {
    if (i) out += ", ";
    out += ValueToString((*values)[i], *types[i]);
  }
  return out + "]";
}

int RunFiles(const std::string& path, const CatArgs& sel) {
  auto table = Table::Open(path);
  if (!table.ok()) return Fail(table.status());
  ScanSelector selector{sel.snapshot, sel.timestamp, sel.tag};
  auto resolved = (*table)->Resolve(selector);
  if (!resolved.ok()) return Fail(resolved.status());
  auto plan = (*table)->Plan(selector);
  if (!plan.ok()) return Fail(plan.status());
  const TableSchema& schema = resolved->second;
  std::vector<DataField> partition_fields = schema.FieldsByName(schema.partition_keys);
  std::vector<DataField> key_fields = schema.FieldsByName(schema.TrimmedPrimaryKeys());
  std::printf("%-24s %-6s %-5s %-8s %-10s %-24s %-24s %s\n", "partition", "bucket", "level", "rows",
              "size", "min_key", "max_key", "file");
  for (const DataSplit& split : plan->splits) {
    std::string partition = RowText(split.partition, partition_fields);
    for (const DataFileMeta& f : split.files) {
      std::printf("%-24s %-6d %-5d %-8lld %-10lld %-24s %-24s %s\n", partition.c_str(),
                  split.bucket, f.level, static_cast<long long>(f.row_count),
                  static_cast<long long>(f.file_size), RowText(f.min_key, key_fields).c_str(),
                  RowText(f.max_key, key_fields).c_str(), f.file_name.c_str());
    }
  }
  return 0;
}

void AddSelectorOptions(CLI::App* cmd, CatArgs* args) {
  auto* snap = cmd->add_option("--snapshot", args->snapshot, "Read at this snapshot id");
  auto* ts = cmd->add_option("--timestamp", args->timestamp,
                             "Read the latest snapshot committed at or before MILLIS (epoch ms)");
  auto* tag = cmd->add_option("--tag", args->tag, "Read the snapshot of this tag");
  snap->excludes(ts)->excludes(tag);
  ts->excludes(tag);
}

}  // namespace

void AddTableCommands(CLI::App* app, Handler* handler) {
  auto cat_args = std::make_shared<CatArgs>();
  auto* cat = app->add_subcommand("cat", "Print the rows of a table");
  cat->add_option("table", cat_args->table, "Table directory")->required();
  AddSelectorOptions(cat, cat_args.get());
  cat->add_option("--columns", cat_args->columns, "Comma-separated columns to print");
  cat->add_option("--where", cat_args->where, "Filter, e.g. \"id > 5 AND name = 'x'\"");
  cat->add_option("--format", cat_args->format, "jsonl (canonical), csv or table")
      ->check(CLI::IsMember({"jsonl", "csv", "table"}));
  cat->callback([handler, cat_args] { *handler = [cat_args] { return RunCat(*cat_args); }; });

  auto path = std::make_shared<std::string>();
  auto* snapshots = app->add_subcommand("snapshots", "List the snapshots and tags of a table");
  snapshots->add_option("table", *path, "Table directory")->required();
  snapshots->callback([handler, path] { *handler = [path] { return RunSnapshots(*path); }; });

  auto* schema = app->add_subcommand("schema", "Print the latest schema of a table");
  schema->add_option("table", *path, "Table directory")->required();
  schema->callback([handler, path] { *handler = [path] { return RunSchema(*path); }; });

  auto files_args = std::make_shared<CatArgs>();
  auto* files = app->add_subcommand("files", "List the live data files of a table");
  files->add_option("table", files_args->table, "Table directory")->required();
  AddSelectorOptions(files, files_args.get());
  files->callback([handler, files_args] {
    *handler = [files_args] { return RunFiles(files_args->table, *files_args); };
  });
}

}  // namespace fjord::cli
