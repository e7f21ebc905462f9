#include "fjord/meta/manifest_writer.h"

#include <arrow/adapters/orc/adapter.h>
#include <arrow/api.h>
#include <arrow/io/memory.h>

#include <algorithm>
#include <memory>
#include <utility>

#include "fjord/common/arrow_status.h"
#include "fjord/common/strings.h"
#include "fjord/format/avro/container.h"
#include "fjord/format/avro/datum.h"
#include "fjord/format/avro/schema.h"

namespace fjord {

namespace {

using avro::Datum;

// Java's Schema.toString() of the 1.4 writer schemas (spec/format.md §4.2, §4.3, §4.7), checked
// against Java-written files by manifest_writer_test.cc.
#define FJORD_STATS_FIELDS                                                          \
  R"({"name":"_MIN_VALUES","type":"bytes"},{"name":"_MAX_VALUES","type":"bytes"},)" \
  R"({"name":"_NULL_COUNTS","type":["null",{"type":"array","items":["null","long"]}],"default":null})"

constexpr std::string_view kManifestListSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},)"
    R"({"name":"_FILE_NAME","type":"string"},)"
    R"({"name":"_FILE_SIZE","type":"long"},)"
    R"({"name":"_NUM_ADDED_FILES","type":"long"},)"
    R"({"name":"_NUM_DELETED_FILES","type":"long"},)"
    R"({"name":"_PARTITION_STATS","type":{"type":"record","name":"record__PARTITION_STATS","fields":[)" FJORD_STATS_FIELDS
    R"(]}},)"
    R"({"name":"_SCHEMA_ID","type":"long"},)"
    R"({"name":"_MIN_BUCKET","type":["null","int"],"default":null},)"
    R"({"name":"_MAX_BUCKET","type":["null","int"],"default":null},)"
    R"({"name":"_MIN_LEVEL","type":["null","int"],"default":null},)"
    R"({"name":"_MAX_LEVEL","type":["null","int"],"default":null},)"
    R"({"name":"_MIN_ROW_ID","type":["null","long"],"default":null},)"
    R"({"name":"_MAX_ROW_ID","type":["null","long"],"default":null}]})";

constexpr std::string_view kManifestFileSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},)"
    R"({"name":"_KIND","type":"int"},)"
    R"({"name":"_PARTITION","type":"bytes"},)"
    R"({"name":"_BUCKET","type":"int"},)"
    R"({"name":"_TOTAL_BUCKETS","type":"int"},)"
    R"({"name":"_FILE","type":{"type":"record","name":"record__FILE","fields":[)"
    R"({"name":"_FILE_NAME","type":"string"},)"
    R"({"name":"_FILE_SIZE","type":"long"},)"
    R"({"name":"_ROW_COUNT","type":"long"},)"
    R"({"name":"_MIN_KEY","type":"bytes"},)"
    R"({"name":"_MAX_KEY","type":"bytes"},)"
    R"({"name":"_KEY_STATS","type":{"type":"record","name":"record__FILE__KEY_STATS","fields":[)" FJORD_STATS_FIELDS
    R"(]}},)"
    R"({"name":"_VALUE_STATS","type":{"type":"record","name":"record__FILE__VALUE_STATS","fields":[)" FJORD_STATS_FIELDS
    R"(]}},)"
    R"({"name":"_MIN_SEQUENCE_NUMBER","type":"long"},)"
    R"({"name":"_MAX_SEQUENCE_NUMBER","type":"long"},)"
    R"({"name":"_SCHEMA_ID","type":"long"},)"
    R"({"name":"_LEVEL","type":"int"},)"
    R"({"name":"_EXTRA_FILES","type":{"type":"array","items":"string"}},)"
    R"({"name":"_CREATION_TIME","type":["null",{"type":"long","logicalType":"timestamp-millis"}],"default":null},)"
    R"({"name":"_DELETE_ROW_COUNT","type":["null","long"],"default":null},)"
    R"({"name":"_EMBEDDED_FILE_INDEX","type":["null","bytes"],"default":null},)"
    R"({"name":"_FILE_SOURCE","type":["null","int"],"default":null},)"
    R"({"name":"_VALUE_STATS_COLS","type":["null",{"type":"array","items":"string"}],"default":null},)"
    R"({"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},)"
    R"({"name":"_FIRST_ROW_ID","type":["null","long"],"default":null},)"
    R"({"name":"_WRITE_COLS","type":["null",{"type":"array","items":"string"}],"default":null}]}}]})";

constexpr std::string_view kIndexManifestSchema =
    R"({"type":"record","name":"record","namespace":"org.apache.paimon.avro.generated","fields":[)"
    R"({"name":"_VERSION","type":"int"},)"
    R"({"name":"_KIND","type":"int"},)"
    R"({"name":"_PARTITION","type":"bytes"},)"
    R"({"name":"_BUCKET","type":"int"},)"
    R"({"name":"_INDEX_TYPE","type":"string"},)"
    R"({"name":"_FILE_NAME","type":"string"},)"
    R"({"name":"_FILE_SIZE","type":"long"},)"
    R"({"name":"_ROW_COUNT","type":"long"},)"
    R"({"name":"_DELETIONS_VECTORS_RANGES","type":["null",{"type":"array","items":["null",)"
    R"({"type":"record","name":"record__DELETIONS_VECTORS_RANGES","fields":[)"
    R"({"name":"f0","type":"string"},)"
    R"({"name":"f1","type":"int"},)"
    R"({"name":"f2","type":"int"},)"
    R"({"name":"_CARDINALITY","type":["null","long"],"default":null}]}]}],"default":null},)"
    R"({"name":"_EXTERNAL_PATH","type":["null","string"],"default":null},)"
    R"({"name":"_GLOBAL_INDEX","type":["null",{"type":"record","name":"record__GLOBAL_INDEX","fields":[)"
    R"({"name":"_ROW_RANGE_START","type":"long"},)"
    R"({"name":"_ROW_RANGE_END","type":"long"},)"
    R"({"name":"_INDEX_FIELD_ID","type":"int"},)"
    R"({"name":"_EXTRA_FIELD_IDS","type":["null",{"type":"array","items":"int"}],"default":null},)"
    R"({"name":"_INDEX_META","type":["null","bytes"],"default":null}]}],"default":null}]})";

#undef FJORD_STATS_FIELDS

// Nullable values: branch 0 is null, branch 1 the value.
Datum Some(Datum v) { return Datum::Union(1, std::move(v)); }

Datum OptLong(const std::optional<int64_t>& v) { return v ? Some(Datum::Long(*v)) : Datum::Null(); }
Datum OptInt(const std::optional<int32_t>& v) { return v ? Some(Datum::Int(*v)) : Datum::Null(); }
Datum OptString(const std::optional<std::string>& v) {
  return v ? Some(Datum::String(*v)) : Datum::Null();
}
Datum OptBytes(const std::optional<std::string>& v) {
  return v ? Some(Datum::Bytes(*v)) : Datum::Null();
}
Datum StringArray(const std::vector<std::string>& v) {
  std::vector<Datum> items;
  items.reserve(v.size());
  for (const std::string& s : v) items.push_back(Datum::String(s));
  return Datum::Array(std::move(items));
}
Datum OptStringArray(const std::optional<std::vector<std::string>>& v) {
  return v ? Some(StringArray(*v)) : Datum::Null();
}

Datum Stats(const SimpleStats& s) {
  Datum null_counts;
  if (s.null_counts) {
    std::vector<Datum> items;
    items.reserve(s.null_counts->size());
    for (const std::optional<int64_t>& c : *s.null_counts) items.push_back(OptLong(c));
    null_counts = Some(Datum::Array(std::move(items)));
  }
  return Datum::Record(
      {Datum::Bytes(s.min_values), Datum::Bytes(s.max_values), std::move(null_counts)});
}

Datum Kind(FileKind kind) { return Datum::Int(static_cast<int32_t>(kind)); }

Datum DataFile(const DataFileMeta& f) {
  std::vector<Datum> fields;
  fields.reserve(20);
  fields.push_back(Datum::String(f.file_name));
  fields.push_back(Datum::Long(f.file_size));
  fields.push_back(Datum::Long(f.row_count));
  fields.push_back(Datum::Bytes(f.min_key));
  fields.push_back(Datum::Bytes(f.max_key));
  fields.push_back(Stats(f.key_stats));
  fields.push_back(Stats(f.value_stats));
  fields.push_back(Datum::Long(f.min_sequence_number));
  fields.push_back(Datum::Long(f.max_sequence_number));
  fields.push_back(Datum::Long(f.schema_id));
  fields.push_back(Datum::Int(f.level));
  fields.push_back(StringArray(f.extra_files));
  fields.push_back(OptLong(f.creation_time_millis));
  fields.push_back(OptLong(f.delete_row_count));
  fields.push_back(OptBytes(f.embedded_index));
  fields.push_back(OptInt(f.file_source));
  fields.push_back(OptStringArray(f.value_stats_cols));
  fields.push_back(OptString(f.external_path));
  fields.push_back(OptLong(f.first_row_id));
  fields.push_back(OptStringArray(f.write_cols));
  return Datum::Record(std::move(fields));
}

Datum ManifestFileMetaDatum(const ManifestFileMeta& m) {
  return Datum::Record({Datum::Int(2), Datum::String(m.file_name), Datum::Long(m.file_size),
                        Datum::Long(m.num_added_files), Datum::Long(m.num_deleted_files),
                        Stats(m.partition_stats), Datum::Long(m.schema_id), OptInt(m.min_bucket),
                        OptInt(m.max_bucket), OptInt(m.min_level), OptInt(m.max_level),
                        OptLong(m.min_row_id), OptLong(m.max_row_id)});
}

Datum ManifestEntryDatum(const ManifestEntry& e) {
  return Datum::Record({Datum::Int(2), Kind(e.kind), Datum::Bytes(e.partition),
                        Datum::Int(e.bucket), Datum::Int(e.total_buckets), DataFile(e.file)});
}

Datum IndexEntryDatum(const IndexManifestEntry& e) {
  Datum ranges;
  if (e.dv_ranges) {
    std::vector<Datum> items;
    items.reserve(e.dv_ranges->size());
    for (const DeletionVectorMeta& dv : *e.dv_ranges) {
      items.push_back(Some(Datum::Record({Datum::String(dv.data_file_name), Datum::Int(dv.offset),
                                          Datum::Int(dv.length), OptLong(dv.cardinality)})));
    }
    ranges = Some(Datum::Array(std::move(items)));
  }
  return Datum::Record(
      {Datum::Int(1), Kind(e.kind), Datum::Bytes(e.partition), Datum::Int(e.bucket),
       Datum::String(e.index_type), Datum::String(e.file_name), Datum::Long(e.file_size),
       Datum::Long(e.row_count), std::move(ranges), OptString(e.external_path), Datum::Null()});
}

Result<std::shared_ptr<const avro::Schema>> ParsedSchema(std::string_view json) {
  // Parsed once per process; the texts are constants, so a failure is a bug.
  return avro::Schema::Parse(json);
}

template <typename T, typename ToDatum>
Result<std::string> Encode(std::string_view schema_json, const char* what,
                           const std::vector<T>& rows, const ManifestWriterOptions& options,
                           ToDatum to_datum) {
  static const Result<std::shared_ptr<const avro::Schema>> kSchemaResult =
      ParsedSchema(schema_json);
  // One static per instantiation: each writer kind instantiates Encode with its own lambda.
  FJORD_ASSIGN_OR_RAISE(std::shared_ptr<const avro::Schema> schema, kSchemaResult);
  avro::WriterOptions wo;
  wo.codec = options.codec;
  wo.compression_level = options.compression_level;
  wo.sync_marker = options.sync_marker;
  wo.zstd_checksum = options.zstd_checksum;
  wo.source = what;
  FJORD_ASSIGN_OR_RAISE(auto writer, avro::ContainerWriter::Create(std::move(schema), wo));
  for (const T& row : rows) FJORD_RETURN_NOT_OK(writer->Append(to_datum(row)));
  return writer->Finish();
}

// ---- ORC ----------------------------------------------------------------------------------
// Java's row types (ManifestFileMeta.SCHEMA, ManifestEntry.SCHEMA, DataFileMeta.SCHEMA,
// SimpleStats.SCHEMA, IndexManifestEntry.SCHEMA, DeletionVectorMeta.SCHEMA, GlobalIndexMeta.SCHEMA
// of 1.4, each behind `_VERSION` with id -1) as Arrow schemas whose field metadata becomes the
// `paimon.id` attribute of each ORC type (OrcTypeUtil). Nullability follows Java's types (ORC
// itself has none).

using ArrowType = std::shared_ptr<arrow::DataType>;
using ArrowField = std::shared_ptr<arrow::Field>;

std::shared_ptr<const arrow::KeyValueMetadata> FieldId(int64_t id) {
  return arrow::key_value_metadata({"paimon.id"}, {std::to_string(id)});
}

ArrowField OrcField(const char* name, ArrowType type, int32_t id, bool nullable) {
  return arrow::field(name, std::move(type), nullable, FieldId(id));
}

// An ARRAY field's ORC list. Its element carries Java's SpecialFields id 536870911 + 1024 * id +
// depth, depth 1 (every array here is a direct field of a row).
ArrowType OrcList(ArrowType element, int32_t id, bool element_nullable) {
  int64_t element_id = int64_t{536870911} + int64_t{1024} * id + 1;
  return arrow::list(
      arrow::field("item", std::move(element), element_nullable, FieldId(element_id)));
}

ArrowField OrcVersion() { return OrcField("_VERSION", arrow::int32(), -1, false); }

ArrowType OrcStats() {
  return arrow::struct_({OrcField("_MIN_VALUES", arrow::binary(), 0, false),
                         OrcField("_MAX_VALUES", arrow::binary(), 1, false),
                         OrcField("_NULL_COUNTS", OrcList(arrow::int64(), 2, true), 2, true)});
}

std::shared_ptr<arrow::Schema> ManifestListOrcSchema() {
  return arrow::schema({OrcVersion(), OrcField("_FILE_NAME", arrow::utf8(), 0, false),
                        OrcField("_FILE_SIZE", arrow::int64(), 1, false),
                        OrcField("_NUM_ADDED_FILES", arrow::int64(), 2, false),
                        OrcField("_NUM_DELETED_FILES", arrow::int64(), 3, false),
                        OrcField("_PARTITION_STATS", OrcStats(), 4, false),
                        OrcField("_SCHEMA_ID", arrow::int64(), 5, false),
                        OrcField("_MIN_BUCKET", arrow::int32(), 6, true),
                        OrcField("_MAX_BUCKET", arrow::int32(), 7, true),
                        OrcField("_MIN_LEVEL", arrow::int32(), 8, true),
                        OrcField("_MAX_LEVEL", arrow::int32(), 9, true),
                        OrcField("_MIN_ROW_ID", arrow::int64(), 10, true),
                        OrcField("_MAX_ROW_ID", arrow::int64(), 11, true)});
}

std::shared_ptr<arrow::Schema> ManifestFileOrcSchema() {
  ArrowType file = arrow::struct_({
      OrcField("_FILE_NAME", arrow::utf8(), 0, false),
      OrcField("_FILE_SIZE", arrow::int64(), 1, false),
      OrcField("_ROW_COUNT", arrow::int64(), 2, false),
      OrcField("_MIN_KEY", arrow::binary(), 3, false),
      OrcField("_MAX_KEY", arrow::binary(), 4, false),
      OrcField("_KEY_STATS", OrcStats(), 5, false),
      OrcField("_VALUE_STATS", OrcStats(), 6, false),
      OrcField("_MIN_SEQUENCE_NUMBER", arrow::int64(), 7, false),
      OrcField("_MAX_SEQUENCE_NUMBER", arrow::int64(), 8, false),
      OrcField("_SCHEMA_ID", arrow::int64(), 9, false),
      OrcField("_LEVEL", arrow::int32(), 10, false),
      OrcField("_EXTRA_FILES", OrcList(arrow::utf8(), 11, false), 11, false),
      // TIMESTAMP(3) without time zone: ORC TIMESTAMP (wall clock; Arrow's writer zone is UTC).
      OrcField("_CREATION_TIME", arrow::timestamp(arrow::TimeUnit::MILLI), 12, true),
      OrcField("_DELETE_ROW_COUNT", arrow::int64(), 13, true),
      OrcField("_EMBEDDED_FILE_INDEX", arrow::binary(), 14, true),
      OrcField("_FILE_SOURCE", arrow::int8(), 15, true),
      OrcField("_VALUE_STATS_COLS", OrcList(arrow::utf8(), 16, false), 16, true),
      OrcField("_EXTERNAL_PATH", arrow::utf8(), 17, true),
      OrcField("_FIRST_ROW_ID", arrow::int64(), 18, true),
      OrcField("_WRITE_COLS", OrcList(arrow::utf8(), 19, false), 19, true),
  });
  return arrow::schema({OrcVersion(), OrcField("_KIND", arrow::int8(), 0, false),
                        OrcField("_PARTITION", arrow::binary(), 1, false),
                        OrcField("_BUCKET", arrow::int32(), 2, false),
                        OrcField("_TOTAL_BUCKETS", arrow::int32(), 3, false),
                        OrcField("_FILE", file, 4, false)});
}

std::shared_ptr<arrow::Schema> IndexManifestOrcSchema() {
  ArrowType dv = arrow::struct_({OrcField("f0", arrow::utf8(), 0, false),
                                 OrcField("f1", arrow::int32(), 1, false),
                                 OrcField("f2", arrow::int32(), 2, false),
                                 OrcField("_CARDINALITY", arrow::int64(), 3, true)});
  ArrowType global =
      arrow::struct_({OrcField("_ROW_RANGE_START", arrow::int64(), 0, false),
                      OrcField("_ROW_RANGE_END", arrow::int64(), 1, false),
                      OrcField("_INDEX_FIELD_ID", arrow::int32(), 2, false),
                      OrcField("_EXTRA_FIELD_IDS", OrcList(arrow::int32(), 3, false), 3, true),
                      OrcField("_INDEX_META", arrow::binary(), 4, true)});
  return arrow::schema({OrcVersion(), OrcField("_KIND", arrow::int8(), 0, false),
                        OrcField("_PARTITION", arrow::binary(), 1, false),
                        OrcField("_BUCKET", arrow::int32(), 2, false),
                        OrcField("_INDEX_TYPE", arrow::utf8(), 3, false),
                        OrcField("_FILE_NAME", arrow::utf8(), 4, false),
                        OrcField("_FILE_SIZE", arrow::int64(), 5, false),
                        OrcField("_ROW_COUNT", arrow::int64(), 6, false),
                        OrcField("_DELETIONS_VECTORS_RANGES", OrcList(dv, 7, true), 7, true),
                        OrcField("_EXTERNAL_PATH", arrow::utf8(), 8, true),
                        OrcField("_GLOBAL_INDEX", global, 9, true)});
}

// Appends one Avro datum (the record trees the Avro writer encodes) to the builder of the
// matching Arrow column. Unions are transparent: a null datum is a null, anything else its value.
Status AppendDatum(arrow::ArrayBuilder* b, const Datum& d, const std::string& field) {
  if (d.is_null()) return FromArrow(b->AppendNull());
  auto integral = [&](int64_t min, int64_t max) -> Result<int64_t> {
    if (d.type() != avro::Type::kInt && d.type() != avro::Type::kLong) {
      return Status::Internal("field ", field, ": not an integer");
    }
    int64_t v = d.type() == avro::Type::kInt ? d.int_value() : d.long_value();
    if (v < min || v > max) {
      return Status::Invalid("field ", field, ": ", v, " does not fit its ORC column");
    }
    return v;
  };
  switch (b->type()->id()) {
    case arrow::Type::INT8: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integral(INT8_MIN, INT8_MAX));
      return FromArrow(static_cast<arrow::Int8Builder*>(b)->Append(static_cast<int8_t>(v)));
    }
    case arrow::Type::INT32: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integral(INT32_MIN, INT32_MAX));
      return FromArrow(static_cast<arrow::Int32Builder*>(b)->Append(static_cast<int32_t>(v)));
    }
    case arrow::Type::INT64: {
      FJORD_ASSIGN_OR_RAISE(int64_t v, integral(INT64_MIN, INT64_MAX));
      return FromArrow(static_cast<arrow::Int64Builder*>(b)->Append(v));
    }
    case arrow::Type::TIMESTAMP: {  // milliseconds
      FJORD_ASSIGN_OR_RAISE(int64_t v, integral(INT64_MIN, INT64_MAX));
      return FromArrow(static_cast<arrow::TimestampBuilder*>(b)->Append(v));
    }
    case arrow::Type::STRING:
      return FromArrow(static_cast<arrow::StringBuilder*>(b)->Append(d.bytes()));
    case arrow::Type::BINARY:
      return FromArrow(static_cast<arrow::BinaryBuilder*>(b)->Append(d.bytes()));
    case arrow::Type::LIST: {
      auto* list = static_cast<arrow::ListBuilder*>(b);
      FJORD_RETURN_NOT_OK(FromArrow(list->Append()));
      for (const Datum& item : d.items()) {
        FJORD_RETURN_NOT_OK(AppendDatum(list->value_builder(), item, field));
      }
      return Status::OK();
    }
    case arrow::Type::STRUCT: {
      auto* st = static_cast<arrow::StructBuilder*>(b);
      const std::shared_ptr<arrow::DataType> type = st->type();  // built anew by each call
      const arrow::FieldVector& fields = type->fields();
      if (d.items().size() != fields.size()) {
        return Status::Internal("field ", field, ": ", d.items().size(), " values for ",
                                fields.size(), " ORC struct fields");
      }
      FJORD_RETURN_NOT_OK(FromArrow(st->Append()));
      for (size_t i = 0; i < fields.size(); ++i) {
        FJORD_RETURN_NOT_OK(
            AppendDatum(st->field_builder(static_cast<int>(i)), d.items()[i], fields[i]->name()));
      }
      return Status::OK();
    }
    default:
      return Status::Internal("field ", field, ": no ORC column of type ", b->type()->ToString());
  }
}

Result<arrow::Compression::type> OrcCodec(const std::string& kind) {
  if (kind == "NONE") return arrow::Compression::UNCOMPRESSED;
  if (kind == "ZLIB") return arrow::Compression::GZIP;  // Arrow's ORC writer: GZIP = ORC ZLIB
  if (kind == "SNAPPY") return arrow::Compression::SNAPPY;
  if (kind == "LZ4") return arrow::Compression::LZ4;
  if (kind == "ZSTD") return arrow::Compression::ZSTD;
  return Status::Invalid("ORC manifest compression '", kind, "' is not supported");
}

template <typename T, typename ToDatum>
Result<std::string> EncodeOrc(const std::shared_ptr<arrow::Schema>& schema, const char* what,
                              const std::vector<T>& rows, const ManifestWriterOptions& options,
                              ToDatum to_datum) {
  FJORD_ARROW_ASSIGN_OR_RAISE(std::unique_ptr<arrow::RecordBatchBuilder> builder,
                              arrow::RecordBatchBuilder::Make(schema, arrow::default_memory_pool(),
                                                              static_cast<int64_t>(rows.size())));
  for (const T& row : rows) {
    Datum record = to_datum(row);
    for (int i = 0; i < schema->num_fields(); ++i) {
      Status st = AppendDatum(builder->GetField(i), record.items()[static_cast<size_t>(i)],
                              schema->field(i)->name());
      if (!st.ok()) return st.WithContext(what);
    }
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::RecordBatch> batch, builder->Flush());
  arrow::adapters::orc::WriteOptions wo;
  FJORD_ASSIGN_OR_RAISE(wo.compression, OrcCodec(options.orc_compression));
  wo.compression_strategy = options.compression_level.value_or(1) <= 1
                                ? arrow::adapters::orc::CompressionStrategy::kSpeed
                                : arrow::adapters::orc::CompressionStrategy::kCompression;
  wo.compression_block_size = 256 * 1024;  // Java's orc.compress.size
  FJORD_ARROW_ASSIGN_OR_RAISE(auto out, arrow::io::BufferOutputStream::Create());
  FJORD_ARROW_ASSIGN_OR_RAISE(auto writer,
                              arrow::adapters::orc::ORCFileWriter::Open(out.get(), wo));
  // Also for no rows: the writer creates the file on the first batch, so an empty list still
  // gets its schema and footer.
  FJORD_ARROW_RETURN_NOT_OK(writer->Write(*batch));
  FJORD_ARROW_RETURN_NOT_OK(writer->Close());
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> bytes, out->Finish());
  return bytes->ToString();
}

Result<int64_t> Publish(FileIO* io, const std::string& path, Result<std::string> bytes) {
  FJORD_ASSIGN_OR_RAISE(std::string data, std::move(bytes));
  FJORD_RETURN_NOT_OK(io->CreateIfAbsent(path, data));
  return static_cast<int64_t>(data.size());
}

}  // namespace

Result<ManifestWriterOptions> ManifestWriterOptions::FromTableOptions(
    const std::map<std::string, std::string>& table_options) {
  FJORD_ASSIGN_OR_RAISE(CoreOptions options, CoreOptions::FromMap(table_options));
  return FromOptions(options);
}

Result<ManifestWriterOptions> ManifestWriterOptions::FromOptions(const CoreOptions& options) {
  ManifestWriterOptions out;
  // The file formats' own options (orc.compress, avro.codec, orc.compression.zstd.level), and
  // file.compression.zstd-level only when the table sets it (else each codec's default level).
  auto option = [&](const char* key) -> std::optional<std::string> {
    std::optional<OptionLayer> layer = options.options().LayerOf(key);
    if (!layer || *layer == OptionLayer::kDefault) return std::nullopt;
    return options.options().Get(key);
  };
  auto level = [&](const char* key) -> Status {
    std::optional<std::string> text = option(key);
    if (!text) return Status::OK();
    int value = 0;
    size_t used = 0;
    try {
      value = std::stoi(*text, &used);
    } catch (...) {
      used = 0;
    }
    if (used == 0 || used != text->size()) {
      return Status::Invalid(key, ": '", *text, "' is not an integer");
    }
    out.compression_level = value;
    return Status::OK();
  };
  const std::string& format = options.manifest_format();
  if (format == "orc") {
    out.format = ManifestFormat::kOrc;
    // Java: orc.compress if set, else CompressionKind.valueOf(manifest.compression.toUpperCase()).
    std::string name = option("orc.compress").value_or(options.manifest_compression());
    std::string kind = Upper(name);
    if (kind == "LZO") {
      return Status::NotImplemented("ORC manifests compressed with LZO (liborc cannot write it)");
    }
    if (kind != "NONE" && kind != "ZLIB" && kind != "SNAPPY" && kind != "LZ4" && kind != "ZSTD") {
      return Status::Invalid("manifest compression '", name,
                             "' is not an ORC compression kind (none, zlib, snappy, lzo, lz4, "
                             "zstd), as manifest.format = orc needs");
    }
    out.orc_compression = kind;
    if (kind == "ZSTD") {
      FJORD_RETURN_NOT_OK(level(option("orc.compression.zstd.level")
                                    ? "orc.compression.zstd.level"
                                    : "file.compression.zstd-level"));
    }
    return out;
  }
  if (format == "parquet") {
    return Status::NotImplemented("writing manifest.format 'parquet' (avro and orc are supported)");
  }
  if (format != "avro") return Status::Invalid("unknown manifest.format '", format, "'");
  std::string name = option("avro.codec").value_or(options.manifest_compression());
  if (name == "zstd") name = "zstandard";
  auto codec = avro::CodecFromName(name);
  if (!codec.ok()) {
    return Status::Invalid("manifest compression '", name, "': ", codec.status().message());
  }
  out.codec = *codec;
  if (out.codec == avro::Codec::kZstandard) {
    FJORD_RETURN_NOT_OK(level("file.compression.zstd-level"));
  }
  return out;
}

std::string_view ManifestListAvroSchema() { return kManifestListSchema; }
std::string_view ManifestFileAvroSchema() { return kManifestFileSchema; }
std::string_view IndexManifestAvroSchema() { return kIndexManifestSchema; }

Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const ManifestWriterOptions& options) {
  if (options.format == ManifestFormat::kOrc) {
    static const std::shared_ptr<arrow::Schema> kSchema = ManifestListOrcSchema();
    return EncodeOrc(kSchema, "<manifest list>", metas, options, ManifestFileMetaDatum);
  }
  return Encode(kManifestListSchema, "<manifest list>", metas, options,
                [](const ManifestFileMeta& m) { return ManifestFileMetaDatum(m); });
}

Result<std::string> EncodeManifestFile(const std::vector<ManifestEntry>& entries,
                                       const ManifestWriterOptions& options) {
  if (options.format == ManifestFormat::kOrc) {
    static const std::shared_ptr<arrow::Schema> kSchema = ManifestFileOrcSchema();
    return EncodeOrc(kSchema, "<manifest file>", entries, options, ManifestEntryDatum);
  }
  return Encode(kManifestFileSchema, "<manifest file>", entries, options,
                [](const ManifestEntry& e) { return ManifestEntryDatum(e); });
}

Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const ManifestWriterOptions& options) {
  if (options.format == ManifestFormat::kOrc) {
    static const std::shared_ptr<arrow::Schema> kSchema = IndexManifestOrcSchema();
    return EncodeOrc(kSchema, "<index manifest>", entries, options, IndexEntryDatum);
  }
  return Encode(kIndexManifestSchema, "<index manifest>", entries, options,
                [](const IndexManifestEntry& e) { return IndexEntryDatum(e); });
}

Result<int64_t> WriteManifestList(FileIO* io, const std::string& path,
                                  const std::vector<ManifestFileMeta>& metas,
                                  const ManifestWriterOptions& options) {
  return Publish(io, path, EncodeManifestList(metas, options));
}

Result<int64_t> WriteManifestFile(FileIO* io, const std::string& path,
                                  const std::vector<ManifestEntry>& entries,
                                  const ManifestWriterOptions& options) {
  return Publish(io, path, EncodeManifestFile(entries, options));
}

Result<int64_t> WriteIndexManifest(FileIO* io, const std::string& path,
                                   const std::vector<IndexManifestEntry>& entries,
                                   const ManifestWriterOptions& options) {
  return Publish(io, path, EncodeIndexManifest(entries, options));
}

}  // namespace fjord
