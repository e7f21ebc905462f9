#include "fjord/format/orc/orc_reader.h"

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/orc/column_reader.h"
#include "fjord/format/orc/compression.h"
#include "fjord/format/orc/stripe.h"

namespace fjord::orc {

namespace {

// Marks `column` and its descendants in `out`.
void MarkSubtree(const std::vector<OrcType>& types, uint32_t column, std::vector<bool>* out) {
  std::vector<uint32_t> pending{column};
  while (!pending.empty()) {
    uint32_t id = pending.back();
    pending.pop_back();
    if (id >= types.size() || (*out)[id]) continue;
    (*out)[id] = true;
    pending.insert(pending.end(), types[id].subtypes.begin(), types[id].subtypes.end());
  }
}

}  // namespace

std::vector<bool> MapsWithNullableKeys(const OrcTail& tail) {
  std::vector<bool> out(tail.types.size(), false);
  if (tail.rows == 0) return out;
  for (size_t id = 0; id < tail.types.size(); ++id) {
    const OrcType& t = tail.types[id];
    if (t.kind != OrcTypeKind::kMap || t.subtypes.empty()) continue;
    uint32_t key = t.subtypes[0];
    out[id] = key >= tail.stats.size() || tail.stats[key].has_null.value_or(true);
  }
  return out;
}

Result<std::shared_ptr<arrow::Table>> ReadOrcFile(const OrcTail& tail, uint64_t file_size,
                                                  const OrcReadAt& read_at, const std::string& path,
                                                  const std::vector<DataField>& fields) {
  if (tail.types.empty() || tail.types[0].kind != OrcTypeKind::kStruct) {
    return Status::NotImplemented(path, ": the ORC root type is not a STRUCT");
  }
  const OrcType& root = tail.types[0];
  std::vector<uint32_t> ids;
  std::vector<bool> wanted(tail.types.size(), false);
  for (const DataField& f : fields) {
    size_t i = 0;
    while (i < root.field_names.size() && root.field_names[i] != f.name) ++i;
    if (i == root.field_names.size() || i >= root.subtypes.size()) {
      return Status::Corruption(path, ": data file has no column '", f.name, "'");
    }
    ids.push_back(root.subtypes[i]);
    MarkSubtree(tail.types, root.subtypes[i], &wanted);
  }

  ColumnContext ctx;
  ctx.types = &tail.types;
  ctx.source = path;
  ctx.maps_as_lists = MapsWithNullableKeys(tail);
  Decompressor decompressor(tail.compression, tail.compression_block_size);
  std::vector<arrow::ArrayVector> chunks(fields.size());
  uint64_t rows = 0;
  for (size_t s = 0; s < tail.stripes.size(); ++s) {
    FJORD_ASSIGN_OR_RAISE(StripeData stripe,
                          ReadStripe(tail, file_size, read_at, s, wanted, &decompressor, path));
    ctx.stripe = &stripe;
    rows += stripe.rows;
    for (size_t f = 0; f < fields.size(); ++f) {
      FJORD_ASSIGN_OR_RAISE(auto data, ReadColumn(ctx, ids[f], *fields[f].type, fields[f].name,
                                                  static_cast<int64_t>(stripe.rows), nullptr));
      chunks[f].push_back(arrow::MakeArray(data));
    }
  }
  if (rows != tail.rows) {
    return Status::Corruption(path, ": ORC stripes hold ", rows, " rows, the footer says ",
                              tail.rows);
  }

  arrow::FieldVector out_fields;
  std::vector<std::shared_ptr<arrow::ChunkedArray>> columns;
  for (size_t f = 0; f < fields.size(); ++f) {
    std::shared_ptr<arrow::DataType> type;
    if (chunks[f].empty()) {
      FJORD_ASSIGN_OR_RAISE(type, ToArrowType(*fields[f].type));
      FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::MakeEmptyArray(type));
      chunks[f].push_back(empty);
    }
    type = chunks[f][0]->type();
    out_fields.push_back(arrow::field(fields[f].name, type, fields[f].type->nullable()));
    columns.push_back(std::make_shared<arrow::ChunkedArray>(chunks[f], type));
  }
  return arrow::Table::Make(arrow::schema(out_fields), columns, static_cast<int64_t>(rows));
}

}  // namespace fjord::orc
