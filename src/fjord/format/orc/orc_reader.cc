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

struct OrcStripeReader::State {
  State(const OrcTail& t, uint64_t size, const OrcReadAt& r, std::string p,
        std::vector<DataField> f)
      : tail(t),
        file_size(size),
        read_at(r),
        path(std::move(p)),
        fields(std::move(f)),
        decompressor(t.compression, t.compression_block_size) {}

  const OrcTail& tail;
  uint64_t file_size;
  const OrcReadAt& read_at;
  std::string path;
  std::vector<DataField> fields;
  std::vector<uint32_t> ids;
  std::vector<bool> wanted;
  ColumnContext ctx;
  Decompressor decompressor;
  size_t next_stripe = 0;
  uint64_t rows = 0;
};

OrcStripeReader::OrcStripeReader(const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at,
                                 std::string path, std::vector<DataField> fields)
    : state_(
          std::make_unique<State>(tail, file_size, read_at, std::move(path), std::move(fields))) {}

OrcStripeReader::~OrcStripeReader() = default;

Result<std::unique_ptr<OrcStripeReader>> OrcStripeReader::Make(const OrcTail& tail,
                                                               uint64_t file_size,
                                                               const OrcReadAt& read_at,
                                                               std::string path,
                                                               std::vector<DataField> fields) {
  if (tail.types.empty() || tail.types[0].kind != OrcTypeKind::kStruct) {
    return Status::NotImplemented(path, ": the ORC root type is not a STRUCT");
  }
  std::unique_ptr<OrcStripeReader> reader(
      new OrcStripeReader(tail, file_size, read_at, std::move(path), std::move(fields)));
  State& s = *reader->state_;
  const OrcType& root = tail.types[0];
  s.wanted.assign(tail.types.size(), false);
  for (const DataField& f : s.fields) {
    size_t i = 0;
    while (i < root.field_names.size() && root.field_names[i] != f.name) ++i;
    if (i == root.field_names.size() || i >= root.subtypes.size()) {
      return Status::Corruption(s.path, ": data file has no column '", f.name, "'");
    }
    s.ids.push_back(root.subtypes[i]);
    MarkSubtree(tail.types, root.subtypes[i], &s.wanted);
  }
  s.ctx.types = &tail.types;
  s.ctx.source = s.path;
  s.ctx.maps_as_lists = MapsWithNullableKeys(tail);
  return reader;
}

Result<std::shared_ptr<arrow::RecordBatch>> OrcStripeReader::Next() {
  State& s = *state_;
  if (s.next_stripe >= s.tail.stripes.size()) {
    if (s.rows != s.tail.rows) {
      return Status::Corruption(s.path, ": ORC stripes hold ", s.rows, " rows, the footer says ",
                                s.tail.rows);
    }
    return std::shared_ptr<arrow::RecordBatch>();
  }
  FJORD_ASSIGN_OR_RAISE(StripeData stripe,
                        ReadStripe(s.tail, s.file_size, s.read_at, s.next_stripe++, s.wanted,
                                   &s.decompressor, s.path));
  s.ctx.stripe = &stripe;
  s.rows += stripe.rows;
  arrow::FieldVector out_fields;
  arrow::ArrayVector columns;
  for (size_t f = 0; f < s.fields.size(); ++f) {
    FJORD_ASSIGN_OR_RAISE(auto data,
                          ReadColumn(s.ctx, s.ids[f], *s.fields[f].type, s.fields[f].name,
                                     static_cast<int64_t>(stripe.rows), nullptr));
    auto array = arrow::MakeArray(data);
    out_fields.push_back(
        arrow::field(s.fields[f].name, array->type(), s.fields[f].type->nullable()));
    columns.push_back(std::move(array));
  }
  s.ctx.stripe = nullptr;
  return arrow::RecordBatch::Make(arrow::schema(out_fields), static_cast<int64_t>(stripe.rows),
                                  columns);
}

void OrcStripeReader::Skip() {
  State& s = *state_;
  if (s.next_stripe >= s.tail.stripes.size()) return;
  s.rows += s.tail.stripes[s.next_stripe++].rows;
}

size_t OrcStripeReader::next_stripe() const { return state_->next_stripe; }

Result<std::shared_ptr<arrow::Table>> ReadOrcFile(const OrcTail& tail, uint64_t file_size,
                                                  const OrcReadAt& read_at, const std::string& path,
                                                  const std::vector<DataField>& fields) {
  FJORD_ASSIGN_OR_RAISE(auto reader, OrcStripeReader::Make(tail, file_size, read_at, path, fields));
  std::vector<arrow::ArrayVector> chunks(fields.size());
  int64_t rows = 0;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto stripe, reader->Next());
    if (!stripe) break;
    rows += stripe->num_rows();
    for (size_t f = 0; f < fields.size(); ++f) {
      chunks[f].push_back(stripe->column(static_cast<int>(f)));
    }
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
  return arrow::Table::Make(arrow::schema(out_fields), columns, rows);
}

}  // namespace fjord::orc
