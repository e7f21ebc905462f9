// Helpers for the commit protocol tests: tables with an `id BIGINT` column (and optional
// partition column `p STRING`), rows with given ids, and reading the ids back.
#pragma once

#include <arrow/api.h>

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "fjord/format/binary_row.h"
#include "fjord/table/catalog/catalog.h"
#include "fjord/table/commit/commit.h"
#include "fjord/table/file_store_table.h"
#include "fjord/table/write/append_write.h"
#include "fjord/table/write/primary_key_write.h"
#include "fjord/testing/test_util.h"

namespace fjord::commit_test {

struct TableDef {
  std::string columns = "id BIGINT NOT NULL, p STRING, v STRING";
  std::vector<std::string> partition_keys;
  std::vector<std::string> primary_keys;
  std::vector<std::pair<std::string, std::string>> options;
};

inline Result<std::unique_ptr<FileStoreTable>> CreateTable(const std::string& warehouse,
                                                           const std::string& name,
                                                           const TableDef& def) {
  FJORD_ASSIGN_OR_RAISE(auto catalog, FileSystemCatalog::Open(warehouse));
  FJORD_RETURN_NOT_OK(catalog->CreateDatabase("db", true));
  TableSpec spec;
  FJORD_ASSIGN_OR_RAISE(spec.fields, ParseColumnList(def.columns));
  spec.partition_keys = def.partition_keys;
  spec.primary_keys = def.primary_keys;
  spec.options = def.options;
  FJORD_ASSIGN_OR_RAISE(TableIdentifier id, TableIdentifier::Parse("db." + name));
  FJORD_RETURN_NOT_OK(catalog->CreateTable(id, spec));
  return catalog->GetTable(id);
}

// Rows (id, p, v) with v = "v<id>-<version>".
inline std::shared_ptr<arrow::Table> Rows(const std::vector<int64_t>& ids, const std::string& p,
                                          int version = 0) {
  arrow::Int64Builder id_builder;
  arrow::StringBuilder p_builder, v_builder;
  for (int64_t id : ids) {
    (void)id_builder.Append(id);
    (void)p_builder.Append(p);
    (void)v_builder.Append("v" + std::to_string(id) + "-" + std::to_string(version));
  }
  auto schema = arrow::schema({arrow::field("id", arrow::int64(), false),
                               arrow::field("p", arrow::utf8()), arrow::field("v", arrow::utf8())});
  return arrow::Table::Make(schema,
                            {id_builder.Finish().ValueOrDie(), p_builder.Finish().ValueOrDie(),
                             v_builder.Finish().ValueOrDie()});
}

inline std::vector<int64_t> Range(int64_t first, int64_t count) {
  std::vector<int64_t> out;
  for (int64_t i = first; i < first + count; ++i) out.push_back(i);
  return out;
}

// Writes `rows` with the table's writer (append or primary key) and returns the messages.
inline Result<std::vector<CommitMessage>> Prepare(const FileStoreTable& table,
                                                  const std::shared_ptr<arrow::Table>& rows) {
  if (table.schema().primary_keys.empty()) {
    FJORD_ASSIGN_OR_RAISE(auto writer, AppendTableWrite::Create(&table));
    FJORD_RETURN_NOT_OK(writer->Write(rows));
    return writer->PrepareCommit();
  }
  FJORD_ASSIGN_OR_RAISE(auto writer, PrimaryKeyTableWrite::Create(&table));
  FJORD_RETURN_NOT_OK(writer->Write(rows));
  return writer->PrepareCommit();
}

// (id, v) of every row at the latest snapshot (or `snapshot`), sorted.
inline Result<std::vector<std::pair<int64_t, std::string>>> ReadRows(
    const std::string& path, std::optional<int64_t> snapshot = std::nullopt) {
  FJORD_ASSIGN_OR_RAISE(auto table, FileStoreTable::Open(path));
  ReadRequest request;
  request.selector.snapshot_id = snapshot;
  FJORD_ASSIGN_OR_RAISE(ReadResult result, table->Read(request));
  std::vector<std::pair<int64_t, std::string>> out;
  if (!result.rows) return out;
  auto ids = result.rows->GetColumnByName("id");
  auto vs = result.rows->GetColumnByName("v");
  for (int c = 0; c < ids->num_chunks(); ++c) {
    auto id_chunk = std::static_pointer_cast<arrow::Int64Array>(ids->chunk(c));
    auto v_chunk = std::static_pointer_cast<arrow::StringArray>(vs->chunk(c));
    for (int64_t i = 0; i < id_chunk->length(); ++i) {
      out.emplace_back(id_chunk->Value(i), v_chunk->GetString(i));
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline Result<std::vector<int64_t>> ReadIds(const std::string& path,
                                            std::optional<int64_t> snapshot = std::nullopt) {
  FJORD_ASSIGN_OR_RAISE(auto rows, ReadRows(path, snapshot));
  std::vector<int64_t> ids;
  for (const auto& r : rows) ids.push_back(r.first);
  return ids;
}

}  // namespace fjord::commit_test
