#include "fjord/meta/manifest.h"

#include "fjord/format/avro/container.h"
#include "fjord/meta/manifest_entry_decoder.h"
#include "fjord/meta/record_reader.h"

namespace fjord {

namespace {

Result<SimpleStats> ReadStats(const RecordView& rec, std::string_view name) {
  FJORD_ASSIGN_OR_RAISE(RecordView stats, rec.Record(name));
  SimpleStats out;
  FJORD_ASSIGN_OR_RAISE(out.min_values, stats.Bytes("_MIN_VALUES"));
  FJORD_ASSIGN_OR_RAISE(out.max_values, stats.Bytes("_MAX_VALUES"));
  FJORD_ASSIGN_OR_RAISE(out.null_counts, stats.OptionalLongArray("_NULL_COUNTS"));
  return out;
}

Result<std::optional<int32_t>> OptionalInt(const RecordView& rec, std::string_view name) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> v, rec.OptionalLong(name));
  if (!v) return std::optional<int32_t>();
  return std::optional<int32_t>(static_cast<int32_t>(*v));
}

Status CheckVersion(const RecordView& rec, int64_t expected) {
  FJORD_ASSIGN_OR_RAISE(std::optional<int64_t> version, rec.OptionalLong("_VERSION"));
  if (version && *version != expected) {
    return rec.Error("_VERSION", "is " + std::to_string(*version) + ", expected " +
                                     std::to_string(expected) +
                                     " (written by an unsupported Paimon version)");
  }
  return Status::OK();
}

Result<FileKind> ReadKind(const RecordView& rec) {
  FJORD_ASSIGN_OR_RAISE(int64_t kind, rec.Long("_KIND"));
  if (kind != 0 && kind != 1) return rec.Error("_KIND", "must be 0 or 1");
  return static_cast<FileKind>(kind);
}

Result<DataFileMeta> ReadDataFileMeta(const RecordView& rec) {
  DataFileMeta f;
  FJORD_ASSIGN_OR_RAISE(f.file_name, rec.Bytes("_FILE_NAME"));
  FJORD_ASSIGN_OR_RAISE(f.file_size, rec.Long("_FILE_SIZE"));
  FJORD_ASSIGN_OR_RAISE(f.row_count, rec.Long("_ROW_COUNT"));
  FJORD_ASSIGN_OR_RAISE(f.min_key, rec.Bytes("_MIN_KEY"));
  FJORD_ASSIGN_OR_RAISE(f.max_key, rec.Bytes("_MAX_KEY"));
  FJORD_ASSIGN_OR_RAISE(f.key_stats, ReadStats(rec, "_KEY_STATS"));
  FJORD_ASSIGN_OR_RAISE(f.value_stats, ReadStats(rec, "_VALUE_STATS"));
  FJORD_ASSIGN_OR_RAISE(f.min_sequence_number, rec.Long("_MIN_SEQUENCE_NUMBER"));
  FJORD_ASSIGN_OR_RAISE(f.max_sequence_number, rec.Long("_MAX_SEQUENCE_NUMBER"));
  FJORD_ASSIGN_OR_RAISE(f.schema_id, rec.Long("_SCHEMA_ID"));
  FJORD_ASSIGN_OR_RAISE(int64_t level, rec.Long("_LEVEL"));
  f.level = static_cast<int32_t>(level);
  FJORD_ASSIGN_OR_RAISE(auto extra, rec.OptionalStringArray("_EXTRA_FILES"));
  if (extra) f.extra_files = std::move(*extra);
  FJORD_ASSIGN_OR_RAISE(f.creation_time_millis, rec.OptionalLong("_CREATION_TIME"));
  FJORD_ASSIGN_OR_RAISE(f.delete_row_count, rec.OptionalLong("_DELETE_ROW_COUNT"));
  FJORD_ASSIGN_OR_RAISE(f.embedded_index, rec.OptionalBytes("_EMBEDDED_FILE_INDEX"));
  FJORD_ASSIGN_OR_RAISE(f.file_source, OptionalInt(rec, "_FILE_SOURCE"));
  FJORD_ASSIGN_OR_RAISE(f.value_stats_cols, rec.OptionalStringArray("_VALUE_STATS_COLS"));
  FJORD_ASSIGN_OR_RAISE(f.external_path, rec.OptionalBytes("_EXTERNAL_PATH"));
  FJORD_ASSIGN_OR_RAISE(f.first_row_id, rec.OptionalLong("_FIRST_ROW_ID"));
  FJORD_ASSIGN_OR_RAISE(f.write_cols, rec.OptionalStringArray("_WRITE_COLS"));
  return f;
}

// Avro files whose schema the direct decoder takes: nullopt when it does not.
Result<std::optional<std::vector<ManifestEntry>>> DecodeAvroEntries(
    FileIO* io, const std::string& path,
    const std::function<bool(const std::string&)>* keep_partition) {
  Result<std::string> bytes = io->ReadFile(path);
  if (!bytes.ok()) {
    if (bytes.status().IsNotFound()) return Status::NotFound("metadata file ", path, " is missing");
    return bytes.status();
  }
  FJORD_ASSIGN_OR_RAISE(auto reader, avro::ContainerReader::Open(*bytes, path));
  std::unique_ptr<ManifestEntryDecoder> decoder =
      ManifestEntryDecoder::ForSchema(reader->schema()->root());
  if (!decoder) return std::optional<std::vector<ManifestEntry>>();
  std::vector<ManifestEntry> out;
  ManifestEntry entry;
  bool kept = true;
  auto decode = [&](avro::BinaryDecoder* in) {
    entry = ManifestEntry();
    return decoder->Decode(in, keep_partition, &entry, &kept);
  };
  while (true) {
    FJORD_ASSIGN_OR_RAISE(bool more, reader->NextWith(decode));
    if (!more) break;
    if (kept) out.push_back(std::move(entry));
  }
  return std::optional<std::vector<ManifestEntry>>(std::move(out));
}

}  // namespace

Result<std::vector<ManifestFileMeta>> ReadManifestList(FileIO* io, const std::string& path,
                                                       const std::string& format) {
  FJORD_ASSIGN_OR_RAISE(auto file, RecordFile::Read(io, path, format));
  std::vector<ManifestFileMeta> out;
  for (size_t i = 0; i < file->size(); ++i) {
    RecordView rec = file->At(i);
    FJORD_RETURN_NOT_OK(CheckVersion(rec, 2));
    ManifestFileMeta m;
    FJORD_ASSIGN_OR_RAISE(m.file_name, rec.Bytes("_FILE_NAME"));
    FJORD_ASSIGN_OR_RAISE(m.file_size, rec.Long("_FILE_SIZE"));
    FJORD_ASSIGN_OR_RAISE(m.num_added_files, rec.Long("_NUM_ADDED_FILES"));
    FJORD_ASSIGN_OR_RAISE(m.num_deleted_files, rec.Long("_NUM_DELETED_FILES"));
    FJORD_ASSIGN_OR_RAISE(m.partition_stats, ReadStats(rec, "_PARTITION_STATS"));
    FJORD_ASSIGN_OR_RAISE(m.schema_id, rec.Long("_SCHEMA_ID"));
    FJORD_ASSIGN_OR_RAISE(m.min_bucket, OptionalInt(rec, "_MIN_BUCKET"));
    FJORD_ASSIGN_OR_RAISE(m.max_bucket, OptionalInt(rec, "_MAX_BUCKET"));
    FJORD_ASSIGN_OR_RAISE(m.min_level, OptionalInt(rec, "_MIN_LEVEL"));
    FJORD_ASSIGN_OR_RAISE(m.max_level, OptionalInt(rec, "_MAX_LEVEL"));
    FJORD_ASSIGN_OR_RAISE(m.min_row_id, rec.OptionalLong("_MIN_ROW_ID"));
    FJORD_ASSIGN_OR_RAISE(m.max_row_id, rec.OptionalLong("_MAX_ROW_ID"));
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ManifestEntry>> ReadManifestFile(FileIO* io, const std::string& path,
                                                    const std::string& format) {
  return ReadManifestFile(io, path, format, nullptr);
}

Result<std::vector<ManifestEntry>> ReadManifestFile(
    FileIO* io, const std::string& path, const std::string& format,
    const std::function<bool(const std::string&)>* keep_partition) {
  if (format == "avro") {
    FJORD_ASSIGN_OR_RAISE(auto direct, DecodeAvroEntries(io, path, keep_partition));
    if (direct) return std::move(*direct);
  }
  return ReadManifestFileGeneric(io, path, format, keep_partition);
}

Result<std::vector<ManifestEntry>> ReadManifestFileGeneric(
    FileIO* io, const std::string& path, const std::string& format,
    const std::function<bool(const std::string&)>* keep_partition) {
  FJORD_ASSIGN_OR_RAISE(auto file, RecordFile::Read(io, path, format));
  std::vector<ManifestEntry> out;
  out.reserve(file->size());
  for (size_t i = 0; i < file->size(); ++i) {
    RecordView rec = file->At(i);
    FJORD_RETURN_NOT_OK(CheckVersion(rec, 2));
    ManifestEntry e;
    FJORD_ASSIGN_OR_RAISE(e.kind, ReadKind(rec));
    FJORD_ASSIGN_OR_RAISE(e.partition, rec.Bytes("_PARTITION"));
    FJORD_ASSIGN_OR_RAISE(int64_t bucket, rec.Long("_BUCKET"));
    e.bucket = static_cast<int32_t>(bucket);
    FJORD_ASSIGN_OR_RAISE(int64_t total, rec.Long("_TOTAL_BUCKETS"));
    e.total_buckets = static_cast<int32_t>(total);
    if (keep_partition != nullptr && !(*keep_partition)(e.partition)) continue;
    FJORD_ASSIGN_OR_RAISE(RecordView f, rec.Record("_FILE"));
    FJORD_ASSIGN_OR_RAISE(e.file, ReadDataFileMeta(f));
    out.push_back(std::move(e));
  }
  return out;
}

Result<std::vector<IndexManifestEntry>> ReadIndexManifest(FileIO* io, const std::string& path,
                                                          const std::string& format) {
  FJORD_ASSIGN_OR_RAISE(auto file, RecordFile::Read(io, path, format));
  std::vector<IndexManifestEntry> out;
  for (size_t i = 0; i < file->size(); ++i) {
    RecordView rec = file->At(i);
    FJORD_RETURN_NOT_OK(CheckVersion(rec, 1));
    IndexManifestEntry e;
    FJORD_ASSIGN_OR_RAISE(e.kind, ReadKind(rec));
    FJORD_ASSIGN_OR_RAISE(e.partition, rec.Bytes("_PARTITION"));
    FJORD_ASSIGN_OR_RAISE(int64_t bucket, rec.Long("_BUCKET"));
    e.bucket = static_cast<int32_t>(bucket);
    FJORD_ASSIGN_OR_RAISE(e.index_type, rec.Bytes("_INDEX_TYPE"));
    FJORD_ASSIGN_OR_RAISE(e.file_name, rec.Bytes("_FILE_NAME"));
    FJORD_ASSIGN_OR_RAISE(e.file_size, rec.Long("_FILE_SIZE"));
    FJORD_ASSIGN_OR_RAISE(e.row_count, rec.Long("_ROW_COUNT"));
    FJORD_ASSIGN_OR_RAISE(auto ranges, rec.OptionalRecordArray("_DELETIONS_VECTORS_RANGES"));
    if (ranges) {
      std::vector<DeletionVectorMeta> dvs;
      for (const RecordView& r : *ranges) {
        DeletionVectorMeta dv;
        FJORD_ASSIGN_OR_RAISE(dv.data_file_name, r.Bytes("f0"));
        FJORD_ASSIGN_OR_RAISE(int64_t offset, r.Long("f1"));
        FJORD_ASSIGN_OR_RAISE(int64_t length, r.Long("f2"));
        dv.offset = static_cast<int32_t>(offset);
        dv.length = static_cast<int32_t>(length);
        FJORD_ASSIGN_OR_RAISE(dv.cardinality, r.OptionalLong("_CARDINALITY"));
        dvs.push_back(std::move(dv));
      }
      e.dv_ranges = std::move(dvs);
    }
    FJORD_ASSIGN_OR_RAISE(e.external_path, rec.OptionalBytes("_EXTERNAL_PATH"));
    out.push_back(std::move(e));
  }
  return out;
}

}  // namespace fjord
