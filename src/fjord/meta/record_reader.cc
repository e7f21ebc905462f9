#include "fjord/meta/record_reader.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/json.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/orc/orc_tail.h"

namespace fjord {

namespace {

// Avro schema JSON for an Arrow type as the ORC adapter returns it; nullable = union with null.
Result<Json> AvroJsonFor(const arrow::DataType& type, const std::string& name, int* counter) {
  switch (type.id()) {
    case arrow::Type::BOOL:
      return Json("boolean");
    case arrow::Type::INT8:
    case arrow::Type::INT16:
    case arrow::Type::INT32:
      return Json("int");
    case arrow::Type::INT64:
    case arrow::Type::TIMESTAMP:
      return Json("long");
    case arrow::Type::FLOAT:
      return Json("float");
    case arrow::Type::DOUBLE:
      return Json("double");
    case arrow::Type::STRING:
    case arrow::Type::LARGE_STRING:
      return Json("string");
    case arrow::Type::BINARY:
    case arrow::Type::LARGE_BINARY:
      return Json("bytes");
    case arrow::Type::LIST:
    case arrow::Type::LARGE_LIST: {
      const auto& list = static_cast<const arrow::BaseListType&>(type);
      FJORD_ASSIGN_OR_RAISE(Json items, AvroJsonFor(*list.value_type(), name + "_item", counter));
      return Json{{"type", "array"}, {"items", Json::array({"null", items})}};
    }
    case arrow::Type::STRUCT: {
      Json fields = Json::array();
      for (const auto& f : type.fields()) {
        FJORD_ASSIGN_OR_RAISE(Json t, AvroJsonFor(*f->type(), name + "_" + f->name(), counter));
        fields.push_back(Json{{"name", f->name()}, {"type", Json::array({"null", t})}});
      }
      return Json{
          {"type", "record"}, {"name", "r" + std::to_string((*counter)++)}, {"fields", fields}};
    }
    default:
      return Status::NotImplemented("ORC metadata column type ", type.ToString());
  }
}

// The value at `i` of `array` as a Datum under union ["null", T] (branch 1 when present).
Result<avro::Datum> DatumFor(const arrow::Array& array, int64_t i) {
  if (array.IsNull(i)) return avro::Datum::Union(0, avro::Datum::Null());
  avro::Datum d;
  switch (array.type_id()) {
    case arrow::Type::BOOL:
      d = avro::Datum::Boolean(static_cast<const arrow::BooleanArray&>(array).Value(i));
      break;
    case arrow::Type::INT8:
      d = avro::Datum::Int(static_cast<const arrow::Int8Array&>(array).Value(i));
      break;
    case arrow::Type::INT16:
      d = avro::Datum::Int(static_cast<const arrow::Int16Array&>(array).Value(i));
      break;
    case arrow::Type::INT32:
      d = avro::Datum::Int(static_cast<const arrow::Int32Array&>(array).Value(i));
      break;
    case arrow::Type::INT64:
      d = avro::Datum::Long(static_cast<const arrow::Int64Array&>(array).Value(i));
      break;
    case arrow::Type::TIMESTAMP: {
      const auto& ts = static_cast<const arrow::TimestampArray&>(array);
      auto unit = static_cast<const arrow::TimestampType&>(*ts.type()).unit();
      int64_t v = ts.Value(i);
      int64_t millis = unit == arrow::TimeUnit::NANO    ? v / 1000000
                       : unit == arrow::TimeUnit::MICRO ? v / 1000
                       : unit == arrow::TimeUnit::MILLI ? v
                                                        : v * 1000;
      d = avro::Datum::Long(millis);
      break;
    }
    case arrow::Type::FLOAT:
      d = avro::Datum::Float(static_cast<const arrow::FloatArray&>(array).Value(i));
      break;
    case arrow::Type::DOUBLE:
      d = avro::Datum::Double(static_cast<const arrow::DoubleArray&>(array).Value(i));
      break;
    case arrow::Type::STRING:
      d = avro::Datum::String(
          std::string(static_cast<const arrow::StringArray&>(array).GetView(i)));
      break;
    case arrow::Type::BINARY:
      d = avro::Datum::Bytes(std::string(static_cast<const arrow::BinaryArray&>(array).GetView(i)));
      break;
    case arrow::Type::LIST: {
      const auto& list = static_cast<const arrow::ListArray&>(array);
      std::vector<avro::Datum> items;
      for (int64_t j = list.value_offset(i); j < list.value_offset(i + 1); ++j) {
        FJORD_ASSIGN_OR_RAISE(avro::Datum item, DatumFor(*list.values(), j));
        items.push_back(std::move(item));
      }
      d = avro::Datum::Array(std::move(items));
      break;
    }
    case arrow::Type::STRUCT: {
      const auto& st = static_cast<const arrow::StructArray&>(array);
      std::vector<avro::Datum> fields;
      for (int f = 0; f < st.num_fields(); ++f) {
        FJORD_ASSIGN_OR_RAISE(avro::Datum v, DatumFor(*st.field(f), i));
        fields.push_back(std::move(v));
      }
      d = avro::Datum::Record(std::move(fields));
      break;
    }
    default:
      return Status::NotImplemented("ORC metadata column type ", array.type()->ToString());
  }
  return avro::Datum::Union(1, std::move(d));
}

bool IsIntegral(avro::Type t) { return t == avro::Type::kInt || t == avro::Type::kLong; }

}  // namespace

std::pair<const avro::Node*, const avro::Datum*> RecordView::Field(std::string_view name) const {
  std::optional<size_t> index = node_->FieldIndex(name);
  if (!index || *index >= datum_->items().size()) return {nullptr, nullptr};
  const avro::Node* node = node_->fields()[*index].type;
  const avro::Datum* datum = &datum_->items()[*index];
  if (node->type() == avro::Type::kUnion) {
    if (datum->is_null()) return {nullptr, nullptr};
    node = node->branches()[static_cast<size_t>(datum->branch())];
  }
  if (datum->is_null()) return {nullptr, nullptr};
  return {node, datum};
}

Status RecordView::Error(std::string_view field, std::string_view what) const {
  return Status::Corruption(*where_, ": field '", field, "' ", what);
}

Result<std::optional<int64_t>> RecordView::OptionalLong(std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return std::optional<int64_t>();
  if (!IsIntegral(datum->type())) return Error(name, "must be an int or long");
  return std::optional<int64_t>(datum->type() == avro::Type::kInt ? datum->int_value()
                                                                  : datum->long_value());
}

Result<int64_t> RecordView::Long(std::string_view name) const {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, OptionalLong(name));
  if (!v) return Error(name, "is missing or null");
  return *v;
}

Result<std::optional<std::string>> RecordView::OptionalBytes(std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return std::optional<std::string>();
  if (datum->type() != avro::Type::kBytes && datum->type() != avro::Type::kString) {
    return Error(name, "must be bytes or a string");
  }
  return std::optional<std::string>(datum->bytes());
}

Result<std::string> RecordView::Bytes(std::string_view name) const {
  FJORD_ASSIGN_OR_RAISE(std::optional<std::string> v, OptionalBytes(name));
  if (!v) return Error(name, "is missing or null");
  return *v;
}

Result<RecordView> RecordView::Record(std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return Error(name, "is missing or null");
  if (node->type() != avro::Type::kRecord) return Error(name, "must be a record");
  return RecordView(node, datum, where_);
}

Result<std::optional<std::vector<std::string>>> RecordView::OptionalStringArray(
    std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return std::optional<std::vector<std::string>>();
  if (node->type() != avro::Type::kArray) return Error(name, "must be an array");
  std::vector<std::string> out;
  for (const avro::Datum& item : datum->items()) {
    if (item.type() != avro::Type::kString && item.type() != avro::Type::kBytes) {
      return Error(name, "must hold strings");
    }
    out.push_back(item.bytes());
  }
  return std::optional<std::vector<std::string>>(std::move(out));
}

Result<std::optional<std::vector<std::optional<int64_t>>>> RecordView::OptionalLongArray(
    std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return std::optional<std::vector<std::optional<int64_t>>>();
  if (node->type() != avro::Type::kArray) return Error(name, "must be an array");
  std::vector<std::optional<int64_t>> out;
  for (const avro::Datum& item : datum->items()) {
    if (item.is_null()) {
      out.emplace_back();
    } else if (IsIntegral(item.type())) {
      out.emplace_back(item.type() == avro::Type::kInt ? item.int_value() : item.long_value());
    } else {
      return Error(name, "must hold longs");
    }
  }
  return std::optional<std::vector<std::optional<int64_t>>>(std::move(out));
}

Result<std::optional<std::vector<RecordView>>> RecordView::OptionalRecordArray(
    std::string_view name) const {
  auto [node, datum] = Field(name);
  if (datum == nullptr) return std::optional<std::vector<RecordView>>();
  if (node->type() != avro::Type::kArray) return Error(name, "must be an array");
  const avro::Node* item_node = &node->items();
  std::vector<RecordView> out;
  for (const avro::Datum& item : datum->items()) {
    const avro::Node* n = item_node;
    if (n->type() == avro::Type::kUnion) {
      if (item.is_null()) continue;
      n = n->branches()[static_cast<size_t>(item.branch())];
    }
    if (n->type() != avro::Type::kRecord) return Error(name, "must hold records");
    out.emplace_back(n, &item, where_);
  }
  return std::optional<std::vector<RecordView>>(std::move(out));
}

Result<std::unique_ptr<RecordFile>> RecordFile::Read(FileIO* io, const std::string& path,
                                                     const std::string& format) {
  auto file = std::make_unique<RecordFile>();
  if (format == "avro") {
    Result<std::string> bytes = io->ReadFile(path);
    if (!bytes.ok()) {
      if (bytes.status().IsNotFound())
        return Status::NotFound("metadata file ", path, " is missing");
      return bytes.status();
    }
    auto data = std::make_shared<std::string>(std::move(*bytes));
    FJORD_ASSIGN_OR_RAISE(auto reader, avro::ContainerReader::Open(*data, path));
    file->schema_ = reader->schema();
    FJORD_ASSIGN_OR_RAISE(file->records_, reader->ReadAll());
  } else if (format == "orc") {
    FJORD_ASSIGN_OR_RAISE(auto input, io->OpenInput(path));
    // Arrow's ORC adapter aborts on MAP keys with NULLs; check the tail ourselves first.
    FJORD_ASSIGN_OR_RAISE(OrcTail tail, ReadOrcTail(input.get(), path));
    FJORD_RETURN_NOT_OK(CheckArrowCanReadOrc(tail, {}, path));
    auto reader = arrow::adapters::orc::ORCFileReader::Open(input, arrow::default_memory_pool());
    if (!reader.ok()) {
      return Status::Corruption(path, ": not a readable ORC file: ", reader.status().message());
    }
    auto table = (*reader)->Read();
    if (!table.ok()) return Status::Corruption(path, ": ", table.status().message());
    auto combined = (*table)->CombineChunksToBatch();
    if (!combined.ok()) return FromArrow(combined.status()).WithContext(path);
    std::shared_ptr<arrow::RecordBatch> batch = *combined;
    int counter = 0;
    Json fields = Json::array();
    for (const auto& f : batch->schema()->fields()) {
      FJORD_ASSIGN_OR_RAISE(Json t, AvroJsonFor(*f->type(), f->name(), &counter));
      fields.push_back(Json{{"name", f->name()}, {"type", Json::array({"null", t})}});
    }
    Json root{{"type", "record"}, {"name", "orc_root"}, {"fields", fields}};
    {
      auto parsed = avro::Schema::FromJson(root);
      if (!parsed.ok()) return parsed.status().WithContext(path);
      file->schema_ = *parsed;
    }
    for (int64_t r = 0; r < batch->num_rows(); ++r) {
      std::vector<avro::Datum> values;
      for (int c = 0; c < batch->num_columns(); ++c) {
        FJORD_ASSIGN_OR_RAISE(avro::Datum v, DatumFor(*batch->column(c), r));
        values.push_back(std::move(v));
      }
      file->records_.push_back(avro::Datum::Record(std::move(values)));
    }
  } else {
    return Status::NotImplemented(path, ": manifest format '", format, "' is not supported");
  }
  file->root_ = &file->schema_->root();
  // Files of Paimon 0.9 and older wrap the top-level record in ["null", record].
  if (file->root_->type() == avro::Type::kUnion) {
    const avro::Node* record = nullptr;
    for (const avro::Node* b : file->root_->branches()) {
      if (b->type() == avro::Type::kRecord) record = b;
    }
    if (record == nullptr) return Status::Corruption(path, ": top-level schema has no record");
    for (size_t i = 0; i < file->records_.size(); ++i) {
      if (file->records_[i].type() != avro::Type::kRecord) {
        return Status::Corruption(path, ": record ", i, " is null");
      }
    }
    file->root_ = record;
  }
  if (file->root_->type() != avro::Type::kRecord) {
    return Status::Corruption(path, ": top-level schema is not a record");
  }
  for (size_t i = 0; i < file->records_.size(); ++i) {
    file->wheres_.push_back(path + " (record " + std::to_string(i) + ")");
  }
  return file;
}

}  // namespace fjord
