#include "fjord/meta/manifest_writer.h"

#include <memory>
#include <utility>

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

Result<int64_t> Publish(FileIO* io, const std::string& path, Result<std::string> bytes) {
  FJORD_ASSIGN_OR_RAISE(std::string data, std::move(bytes));
  FJORD_RETURN_NOT_OK(io->CreateIfAbsent(path, data));
  return static_cast<int64_t>(data.size());
}

}  // namespace

Result<ManifestWriterOptions> ManifestWriterOptions::FromTableOptions(
    const std::map<std::string, std::string>& table_options) {
  ManifestWriterOptions out;
  std::string name = "zstd";
  if (auto it = table_options.find("manifest.compression"); it != table_options.end()) {
    name = it->second;
  }
  if (auto it = table_options.find("avro.codec"); it != table_options.end()) name = it->second;
  if (name == "zstd") name = "zstandard";
  auto codec = avro::CodecFromName(name);
  if (!codec.ok()) {
    return Status::Invalid("manifest compression '", name, "': ", codec.status().message());
  }
  out.codec = *codec;
  if (out.codec == avro::Codec::kZstandard) {
    if (auto it = table_options.find("file.compression.zstd-level"); it != table_options.end()) {
      int level = 0;
      size_t used = 0;
      try {
        level = std::stoi(it->second, &used);
      } catch (...) {
        used = 0;
      }
      if (used == 0 || used != it->second.size()) {
        return Status::Invalid("file.compression.zstd-level: '", it->second, "' is not an integer");
      }
      out.compression_level = level;
    }
  }
  return out;
}

std::string_view ManifestListAvroSchema() { return kManifestListSchema; }
std::string_view ManifestFileAvroSchema() { return kManifestFileSchema; }
std::string_view IndexManifestAvroSchema() { return kIndexManifestSchema; }

Result<std::string> EncodeManifestList(const std::vector<ManifestFileMeta>& metas,
                                       const ManifestWriterOptions& options) {
  return Encode(kManifestListSchema, "<manifest list>", metas, options,
                [](const ManifestFileMeta& m) { return ManifestFileMetaDatum(m); });
}

Result<std::string> EncodeManifestFile(const std::vector<ManifestEntry>& entries,
                                       const ManifestWriterOptions& options) {
  return Encode(kManifestFileSchema, "<manifest file>", entries, options,
                [](const ManifestEntry& e) { return ManifestEntryDatum(e); });
}

Result<std::string> EncodeIndexManifest(const std::vector<IndexManifestEntry>& entries,
                                        const ManifestWriterOptions& options) {
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
