// Avro data files (spec/format.md §7.7) in batches: the file's bytes are held, records decoded
// `batch_rows` at a time into the canonical Arrow form.

#include <arrow/api.h>

#include "fjord/common/arrow_status.h"
#include "fjord/common/calendar.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/file_batches.h"

namespace fjord {

namespace {

// Big-endian two's complement bytes to a 128-bit integer.
Result<Int128> UnscaledFromBytes(std::string_view bytes) {
  if (bytes.empty() || bytes.size() > 16) {
    return Status::Corruption("decimal of ", bytes.size(), " bytes");
  }
  Int128 v = static_cast<signed char>(bytes[0]) < 0 ? -1 : 0;
  for (char c : bytes) v = (v << 8) | static_cast<unsigned char>(c);
  return v;
}

Result<Value> ToValue(const avro::Node* node, const avro::Datum& d, const DataType& type);

Result<int64_t> Integral(const avro::Datum& d) {
  if (d.type() == avro::Type::kInt) return int64_t{d.int_value()};
  if (d.type() == avro::Type::kLong) return d.long_value();
  return Status::Corruption("expected an Avro int or long, got ", avro::TypeName(d.type()));
}

Result<Value> ToValue(const avro::Node* node, const avro::Datum& d, const DataType& type) {
  if (node->type() == avro::Type::kUnion) {
    if (d.is_null()) return Value();
    node = node->branches()[static_cast<size_t>(d.branch())];
  }
  if (d.is_null()) return Value();
  switch (type.root()) {
    case TypeRoot::kBoolean:
      if (d.type() != avro::Type::kBoolean) break;
      return Value(d.boolean_value());
    case TypeRoot::kTinyInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      return Value(static_cast<int8_t>(v));
    }
    case TypeRoot::kSmallInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      return Value(static_cast<int16_t>(v));
    }
    case TypeRoot::kInt:
    case TypeRoot::kDate: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      return Value(static_cast<int32_t>(v));
    }
    case TypeRoot::kTime: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      if (node->logical_type() == "time-micros") v = FloorDiv(v, 1000);
      return Value(static_cast<int32_t>(v));
    }
    case TypeRoot::kBigInt: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      return Value(v);
    }
    case TypeRoot::kFloat:
      if (d.type() == avro::Type::kFloat) return Value(d.float_value());
      break;
    case TypeRoot::kDouble:
      if (d.type() == avro::Type::kDouble) return Value(d.double_value());
      if (d.type() == avro::Type::kFloat) return Value(static_cast<double>(d.float_value()));
      break;
    case TypeRoot::kDecimal: {
      if (d.type() == avro::Type::kBytes || d.type() == avro::Type::kFixed) {
        FJORD_ASSIGN_OR_RAISE(Int128 unscaled, UnscaledFromBytes(d.bytes()));
        return Value(Decimal{unscaled, type.precision(), type.scale()});
      }
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      return Value(Decimal{v, type.precision(), type.scale()});
    }
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      if (d.type() == avro::Type::kString || d.type() == avro::Type::kBytes ||
          d.type() == avro::Type::kFixed) {
        return Value(d.bytes());
      }
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, Integral(d));
      const std::string& lt = node->logical_type();
      if (lt == "timestamp-micros" || lt == "local-timestamp-micros") {
        int64_t millis = FloorDiv(v, 1000);
        return Value(Timestamp{millis, static_cast<int32_t>((v - millis * 1000) * 1000)});
      }
      if (lt == "timestamp-nanos" || lt == "local-timestamp-nanos") {
        int64_t millis = FloorDiv(v, 1000000);
        return Value(Timestamp{millis, static_cast<int32_t>(v - millis * 1000000)});
      }
      return Value(Timestamp{v, 0});
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      if (node->type() != avro::Type::kArray) break;
      ValueList items;
      for (const avro::Datum& item : d.items()) {
        FJORD_ASSIGN_OR_RAISE(Value v, ToValue(&node->items(), item, *type.element()));
        items.push_back(std::move(v));
      }
      return Value::List(std::move(items));
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      DataTypePtr count = DataType::Int(false);
      const DataType& kt = type.root() == TypeRoot::kMap ? *type.key() : *type.element();
      const DataType& vt = type.root() == TypeRoot::kMap ? *type.value() : *count;
      ValueMap entries;
      if (node->type() == avro::Type::kMap) {
        for (size_t i = 0; i < d.map_size(); ++i) {
          FJORD_ASSIGN_OR_RAISE(Value v, ToValue(&node->values(), d.map_value(i), vt));
          entries.emplace_back(Value(d.map_key(i)), std::move(v));
        }
      } else if (node->type() == avro::Type::kArray) {
        // Non-string keys: an array of {key, value} records.
        const avro::Node* entry = &node->items();
        for (const avro::Datum& item : d.items()) {
          const avro::Node* en = entry;
          if (en->type() == avro::Type::kUnion)
            en = en->branches()[static_cast<size_t>(item.branch())];
          if (en->type() != avro::Type::kRecord || item.items().size() < 2) {
            return Status::Corruption("map entry is not a {key, value} record");
          }
          auto ki = en->FieldIndex("key"), vi = en->FieldIndex("value");
          if (!ki || !vi) return Status::Corruption("map entry lacks key or value");
          FJORD_ASSIGN_OR_RAISE(Value k, ToValue(en->fields()[*ki].type, item.items()[*ki], kt));
          FJORD_ASSIGN_OR_RAISE(Value v, ToValue(en->fields()[*vi].type, item.items()[*vi], vt));
          entries.emplace_back(std::move(k), std::move(v));
        }
      } else {
        break;
      }
      return Value::Map(std::move(entries));
    }
    case TypeRoot::kRow: {
      if (node->type() != avro::Type::kRecord) break;
      ValueList fields;
      for (size_t f = 0; f < type.fields().size(); ++f) {
        auto idx = node->FieldIndex(type.fields()[f].name);
        if (!idx) idx = f < node->fields().size() ? std::optional<size_t>(f) : std::nullopt;
        if (!idx) {
          fields.emplace_back();
          continue;
        }
        FJORD_ASSIGN_OR_RAISE(
            Value v, ToValue(node->fields()[*idx].type, d.items()[*idx], *type.fields()[f].type));
        fields.push_back(std::move(v));
      }
      return Value::List(std::move(fields));
    }
  }
  return Status::Corruption("Avro ", avro::TypeName(node->type()), " value cannot be read as ",
                            type.ToString());
}

class AvroBatchReader : public ChunkBatchReader {
 public:
  AvroBatchReader(std::string path, std::vector<DataField> fields, std::string bytes,
                  int64_t batch_rows)
      : ChunkBatchReader(batch_rows),
        path_(std::move(path)),
        fields_(std::move(fields)),
        bytes_(std::move(bytes)) {}

  Status Start() {
    FJORD_ASSIGN_OR_RAISE(reader_, avro::ContainerReader::Open(bytes_, path_));
    root_ = &reader_->schema()->root();
    if (root_->type() != avro::Type::kRecord) {
      return Status::Corruption(path_, ": Avro data file schema is not a record");
    }
    for (const DataField& f : fields_) {
      auto idx = root_->FieldIndex(f.name);
      if (!idx) return Status::Corruption(path_, ": data file has no column '", f.name, "'");
      indices_.push_back(*idx);
      FJORD_ASSIGN_OR_RAISE(auto af, ToArrowField(f));
      arrow_fields_.push_back(af);
      std::unique_ptr<arrow::ArrayBuilder> b;
      FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), af->type(), &b));
      builders_.push_back(std::move(b));
    }
    return Status::OK();
  }

 protected:
  Result<std::shared_ptr<arrow::RecordBatch>> NextChunk(int64_t* first_row) override {
    *first_row = rows_;
    int64_t n = 0;
    while (n < batch_rows()) {
      FJORD_ASSIGN_OR_RAISE(bool more, reader_->Next(&record_));
      if (!more) break;
      for (size_t c = 0; c < fields_.size(); ++c) {
        const avro::Field& af = root_->fields()[indices_[c]];
        Result<Value> v = ToValue(af.type, record_.items()[indices_[c]], *fields_[c].type);
        if (!v.ok()) {
          return v.status().WithContext(path_, ": record ", rows_ + n, ", column '",
                                        fields_[c].name, "'");
        }
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(builders_[c].get(), *v, *fields_[c].type));
      }
      ++n;
    }
    if (n == 0) return std::shared_ptr<arrow::RecordBatch>();
    rows_ += n;
    arrow::ArrayVector columns;
    for (auto& b : builders_) {
      FJORD_ARROW_ASSIGN_OR_RAISE(auto array, b->Finish());
      columns.push_back(array);
    }
    return arrow::RecordBatch::Make(arrow::schema(arrow_fields_), n, columns);
  }

 private:
  std::string path_;
  std::vector<DataField> fields_;
  std::string bytes_;
  std::unique_ptr<avro::ContainerReader> reader_;
  const avro::Node* root_ = nullptr;
  std::vector<size_t> indices_;
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders_;
  arrow::FieldVector arrow_fields_;
  avro::Datum record_;
  int64_t rows_ = 0;
};

}  // namespace

Result<std::unique_ptr<BatchReader>> OpenAvroFile(FileIO* io, const std::string& path,
                                                  const std::vector<DataField>& fields,
                                                  const FileReadOptions& options) {
  FJORD_ASSIGN_OR_RAISE(std::string bytes, io->ReadFile(path));
  auto reader =
      std::make_unique<AvroBatchReader>(path, fields, std::move(bytes), options.batch_rows);
  FJORD_RETURN_NOT_OK(reader->Start());
  return std::unique_ptr<BatchReader>(std::move(reader));
}

}  // namespace fjord
