#include "fjord/meta/manifest_entry_decoder.h"

#include <span>
#include <string_view>
#include <vector>

namespace fjord {

namespace {

// Where a field's value goes.
enum class Slot : uint8_t {
  kSkip,
  kVersion,
  kKind,
  kPartition,
  kBucket,
  kTotalBuckets,
  kFile,
  kFileName,
  kFileSize,
  kRowCount,
  kMinKey,
  kMaxKey,
  kKeyStats,
  kValueStats,
  kMinSequence,
  kMaxSequence,
  kSchemaId,
  kLevel,
  kExtraFiles,
  kCreationTime,
  kDeleteRowCount,
  kEmbeddedIndex,
  kFileSource,
  kValueStatsCols,
  kExternalPath,
  kFirstRowId,
  kWriteCols,
  kMinValues,
  kMaxValues,
  kNullCounts,
};

// The value a slot takes: int or long; bytes or string; an array of strings; an array of
// nullable longs; a record.
enum class Shape : uint8_t { kLong, kBytes, kStrings, kLongs, kRecord };

struct FieldSpec {
  std::string_view name;
  Slot slot;
  Shape shape;
  bool required;
  std::span<const FieldSpec> record;  // the record's fields, for Shape::kRecord
};

constexpr FieldSpec kStatsFields[] = {
    {"_MIN_VALUES", Slot::kMinValues, Shape::kBytes, true, {}},
    {"_MAX_VALUES", Slot::kMaxValues, Shape::kBytes, true, {}},
    {"_NULL_COUNTS", Slot::kNullCounts, Shape::kLongs, false, {}},
};

constexpr FieldSpec kFileFields[] = {
    {"_FILE_NAME", Slot::kFileName, Shape::kBytes, true, {}},
    {"_FILE_SIZE", Slot::kFileSize, Shape::kLong, true, {}},
    {"_ROW_COUNT", Slot::kRowCount, Shape::kLong, true, {}},
    {"_MIN_KEY", Slot::kMinKey, Shape::kBytes, true, {}},
    {"_MAX_KEY", Slot::kMaxKey, Shape::kBytes, true, {}},
    {"_KEY_STATS", Slot::kKeyStats, Shape::kRecord, true, kStatsFields},
    {"_VALUE_STATS", Slot::kValueStats, Shape::kRecord, true, kStatsFields},
    {"_MIN_SEQUENCE_NUMBER", Slot::kMinSequence, Shape::kLong, true, {}},
    {"_MAX_SEQUENCE_NUMBER", Slot::kMaxSequence, Shape::kLong, true, {}},
    {"_SCHEMA_ID", Slot::kSchemaId, Shape::kLong, true, {}},
    {"_LEVEL", Slot::kLevel, Shape::kLong, true, {}},
    {"_EXTRA_FILES", Slot::kExtraFiles, Shape::kStrings, false, {}},
    {"_CREATION_TIME", Slot::kCreationTime, Shape::kLong, false, {}},
    {"_DELETE_ROW_COUNT", Slot::kDeleteRowCount, Shape::kLong, false, {}},
    {"_EMBEDDED_FILE_INDEX", Slot::kEmbeddedIndex, Shape::kBytes, false, {}},
    {"_FILE_SOURCE", Slot::kFileSource, Shape::kLong, false, {}},
    {"_VALUE_STATS_COLS", Slot::kValueStatsCols, Shape::kStrings, false, {}},
    {"_EXTERNAL_PATH", Slot::kExternalPath, Shape::kBytes, false, {}},
    {"_FIRST_ROW_ID", Slot::kFirstRowId, Shape::kLong, false, {}},
    {"_WRITE_COLS", Slot::kWriteCols, Shape::kStrings, false, {}},
};

constexpr FieldSpec kEntryFields[] = {
    {"_VERSION", Slot::kVersion, Shape::kLong, false, {}},
    {"_KIND", Slot::kKind, Shape::kLong, true, {}},
    {"_PARTITION", Slot::kPartition, Shape::kBytes, true, {}},
    {"_BUCKET", Slot::kBucket, Shape::kLong, true, {}},
    {"_TOTAL_BUCKETS", Slot::kTotalBuckets, Shape::kLong, true, {}},
    {"_FILE", Slot::kFile, Shape::kRecord, true, kFileFields},
};

bool IsIntegral(const avro::Node& n) {
  return n.type() == avro::Type::kInt || n.type() == avro::Type::kLong;
}
bool IsText(const avro::Node& n) {
  return n.type() == avro::Type::kBytes || n.type() == avro::Type::kString;
}

// Whether every non-null branch of `n` (n itself when not a union) passes `ok`, and one does.
template <typename Ok>
bool EachValueType(const avro::Node& n, Ok ok) {
  if (n.type() != avro::Type::kUnion) return ok(n);
  bool any = false;
  for (const avro::Node* b : n.branches()) {
    if (b->type() == avro::Type::kNull) continue;
    if (!ok(*b)) return false;
    any = true;
  }
  return any;
}

// The record type of a field declared as a record or a union of null and one record.
const avro::Node* RecordOf(const avro::Node& n) {
  if (n.type() == avro::Type::kRecord) return &n;
  if (n.type() != avro::Type::kUnion) return nullptr;
  const avro::Node* record = nullptr;
  for (const avro::Node* b : n.branches()) {
    if (b->type() == avro::Type::kNull) continue;
    if (b->type() != avro::Type::kRecord || record != nullptr) return nullptr;
    record = b;
  }
  return record;
}

// The type of the value that follows, past a union's branch index; nullptr for a null.
Status ValueType(avro::BinaryDecoder* in, const avro::Node* declared, const avro::Node** out) {
  if (declared->type() == avro::Type::kUnion) {
    FJORD_RETURN_NOT_OK(in->ReadBranch(*declared, &declared));
  }
  *out = declared->type() == avro::Type::kNull ? nullptr : declared;
  return Status::OK();
}

Status ReadIntegral(avro::BinaryDecoder* in, const avro::Node& n, int64_t* out) {
  if (n.type() == avro::Type::kLong) return in->ReadLong(out);
  int32_t v;
  FJORD_RETURN_NOT_OK(in->ReadInt(&v));
  *out = v;
  return Status::OK();
}

Status ReadText(avro::BinaryDecoder* in, std::string* out) {
  std::string_view v;
  FJORD_RETURN_NOT_OK(in->ReadBytes(&v));
  out->assign(v);
  return Status::OK();
}

}  // namespace

struct ManifestEntryDecoder::RecordPlan {
  struct Field {
    Slot slot = Slot::kSkip;
    Shape shape = Shape::kLong;
    bool required = false;
    std::string_view name;
    const avro::Node* node = nullptr;  // as declared, perhaps a union
    std::unique_ptr<RecordPlan> record;
  };
  std::vector<Field> fields;  // in the writer's order

  // The plan for `record` filling the slots of `specs`; nullptr when the record does not fit.
  static std::unique_ptr<RecordPlan> Compile(const avro::Node& record,
                                             std::span<const FieldSpec> specs) {
    auto plan = std::make_unique<RecordPlan>();
    std::vector<bool> seen(specs.size(), false);
    for (const avro::Field& f : record.fields()) {
      Field field;
      field.node = f.type;
      field.name = f.name;
      for (size_t s = 0; s < specs.size(); ++s) {
        if (specs[s].name != f.name) continue;
        const FieldSpec& spec = specs[s];
        seen[s] = true;
        field.slot = spec.slot;
        field.shape = spec.shape;
        field.required = spec.required;
        if (!Fits(*f.type, spec)) return nullptr;
        if (spec.shape == Shape::kRecord) {
          field.record = Compile(*RecordOf(*f.type), spec.record);
          if (!field.record) return nullptr;
        }
      }
      plan->fields.push_back(std::move(field));
    }
    for (size_t s = 0; s < specs.size(); ++s) {
      if (specs[s].required && !seen[s]) return nullptr;
    }
    return plan;
  }

  static bool Fits(const avro::Node& n, const FieldSpec& spec) {
    switch (spec.shape) {
      case Shape::kLong:
        return EachValueType(n, IsIntegral);
      case Shape::kBytes:
        return EachValueType(n, IsText);
      case Shape::kStrings:
        return EachValueType(n, [](const avro::Node& a) {
          return a.type() == avro::Type::kArray && EachValueType(a.items(), IsText);
        });
      case Shape::kLongs:
        return EachValueType(n, [](const avro::Node& a) {
          return a.type() == avro::Type::kArray && EachValueType(a.items(), IsIntegral);
        });
      case Shape::kRecord:
        return RecordOf(n) != nullptr;
    }
    return false;
  }
};

namespace {

using Plan = ManifestEntryDecoder::RecordPlan;

// Where the slots of the record being decoded point.
struct Target {
  ManifestEntry* entry = nullptr;
  DataFileMeta* file = nullptr;
  SimpleStats* stats = nullptr;
};

Status ReadStrings(avro::BinaryDecoder* in, const avro::Node& array,
                   std::vector<std::string>* out) {
  const avro::Node& item = array.items();
  while (true) {
    int64_t count;
    FJORD_RETURN_NOT_OK(in->ReadItemCount(item, &count));
    if (count == 0) return Status::OK();
    for (int64_t i = 0; i < count; ++i) {
      const avro::Node* type;
      FJORD_RETURN_NOT_OK(ValueType(in, &item, &type));
      if (type == nullptr) return Status::Corruption("must hold strings, not nulls");
      FJORD_RETURN_NOT_OK(ReadText(in, &out->emplace_back()));
    }
  }
}

Status ReadLongs(avro::BinaryDecoder* in, const avro::Node& array,
                 std::vector<std::optional<int64_t>>* out) {
  const avro::Node& item = array.items();
  while (true) {
    int64_t count;
    FJORD_RETURN_NOT_OK(in->ReadItemCount(item, &count));
    if (count == 0) return Status::OK();
    for (int64_t i = 0; i < count; ++i) {
      const avro::Node* type;
      FJORD_RETURN_NOT_OK(ValueType(in, &item, &type));
      if (type == nullptr) {
        out->emplace_back();
        continue;
      }
      int64_t v;
      FJORD_RETURN_NOT_OK(ReadIntegral(in, *type, &v));
      out->emplace_back(v);
    }
  }
}

Status DecodeRecord(avro::BinaryDecoder* in, const Plan& plan, Target target,
                    const std::function<bool(const std::string&)>* keep, bool* kept);

// One field whose value (of `type`, not null) is in `in`.
Status DecodeValue(avro::BinaryDecoder* in, const Plan::Field& field, const avro::Node& type,
                   Target target) {
  int64_t v = 0;
  if (field.slot == Slot::kSkip) return in->SkipDatum(type);
  if (field.shape == Shape::kLong) FJORD_RETURN_NOT_OK(ReadIntegral(in, type, &v));
  DataFileMeta* f = target.file;
  switch (field.slot) {
    case Slot::kSkip:
      break;  // above
    case Slot::kVersion:
      if (v != 2) {
        return Status::Corruption("is ", v, ", expected 2 (written by an unsupported Paimon ",
                                  "version)");
      }
      return Status::OK();
    case Slot::kKind:
      if (v != 0 && v != 1) return Status::Corruption("must be 0 or 1");
      target.entry->kind = static_cast<FileKind>(v);
      return Status::OK();
    case Slot::kPartition:
      return ReadText(in, &target.entry->partition);
    case Slot::kBucket:
      target.entry->bucket = static_cast<int32_t>(v);
      return Status::OK();
    case Slot::kTotalBuckets:
      target.entry->total_buckets = static_cast<int32_t>(v);
      return Status::OK();
    case Slot::kFile:
      return DecodeRecord(in, *field.record, Target{target.entry, &target.entry->file, nullptr},
                          nullptr, nullptr);
    case Slot::kFileName:
      return ReadText(in, &f->file_name);
    case Slot::kFileSize:
      f->file_size = v;
      return Status::OK();
    case Slot::kRowCount:
      f->row_count = v;
      return Status::OK();
    case Slot::kMinKey:
      return ReadText(in, &f->min_key);
    case Slot::kMaxKey:
      return ReadText(in, &f->max_key);
    case Slot::kKeyStats:
      return DecodeRecord(in, *field.record, Target{nullptr, f, &f->key_stats}, nullptr, nullptr);
    case Slot::kValueStats:
      return DecodeRecord(in, *field.record, Target{nullptr, f, &f->value_stats}, nullptr, nullptr);
    case Slot::kMinSequence:
      f->min_sequence_number = v;
      return Status::OK();
    case Slot::kMaxSequence:
      f->max_sequence_number = v;
      return Status::OK();
    case Slot::kSchemaId:
      f->schema_id = v;
      return Status::OK();
    case Slot::kLevel:
      f->level = static_cast<int32_t>(v);
      return Status::OK();
    case Slot::kExtraFiles:
      return ReadStrings(in, type, &f->extra_files);
    case Slot::kCreationTime:
      f->creation_time_millis = v;
      return Status::OK();
    case Slot::kDeleteRowCount:
      f->delete_row_count = v;
      return Status::OK();
    case Slot::kEmbeddedIndex:
      return ReadText(in, &f->embedded_index.emplace());
    case Slot::kFileSource:
      f->file_source = static_cast<int32_t>(v);
      return Status::OK();
    case Slot::kValueStatsCols:
      return ReadStrings(in, type, &f->value_stats_cols.emplace());
    case Slot::kExternalPath:
      return ReadText(in, &f->external_path.emplace());
    case Slot::kFirstRowId:
      f->first_row_id = v;
      return Status::OK();
    case Slot::kWriteCols:
      return ReadStrings(in, type, &f->write_cols.emplace());
    case Slot::kMinValues:
      return ReadText(in, &target.stats->min_values);
    case Slot::kMaxValues:
      return ReadText(in, &target.stats->max_values);
    case Slot::kNullCounts:
      return ReadLongs(in, type, &target.stats->null_counts.emplace());
  }
  return Status::Internal("unknown manifest slot");
}

Status DecodeRecord(avro::BinaryDecoder* in, const Plan& plan, Target target,
                    const std::function<bool(const std::string&)>* keep, bool* kept) {
  for (size_t i = 0; i < plan.fields.size(); ++i) {
    const Plan::Field& field = plan.fields[i];
    const avro::Node* type;
    Status st = ValueType(in, field.node, &type);
    if (st.ok() && type == nullptr && field.required) {
      st = Status::Corruption("is missing or null");
    }
    if (st.ok() && type != nullptr) st = DecodeValue(in, field, *type, target);
    if (!st.ok()) [[unlikely]] {
      return st.WithContext("field '", field.name, "'");
    }
    if (keep != nullptr && field.slot == Slot::kPartition && !(*keep)(target.entry->partition)) {
      *kept = false;
      for (size_t j = i + 1; j < plan.fields.size(); ++j) {
        st = in->SkipDatum(*plan.fields[j].node);
        if (!st.ok()) return st.WithContext("field '", plan.fields[j].name, "'");
      }
      return Status::OK();
    }
  }
  return Status::OK();
}

}  // namespace

ManifestEntryDecoder::~ManifestEntryDecoder() = default;

std::unique_ptr<ManifestEntryDecoder> ManifestEntryDecoder::ForSchema(const avro::Node& root) {
  const avro::Node* record = RecordOf(root);
  if (record == nullptr) return nullptr;
  std::unique_ptr<RecordPlan> plan = RecordPlan::Compile(*record, kEntryFields);
  if (!plan) return nullptr;
  std::unique_ptr<ManifestEntryDecoder> decoder(new ManifestEntryDecoder());
  decoder->root_ = &root;
  decoder->entry_ = std::move(plan);
  return decoder;
}

Status ManifestEntryDecoder::Decode(avro::BinaryDecoder* in,
                                    const std::function<bool(const std::string&)>* keep,
                                    ManifestEntry* out, bool* kept) const {
  *kept = true;
  const avro::Node* type;
  FJORD_RETURN_NOT_OK(ValueType(in, root_, &type));
  if (type == nullptr) return Status::Corruption("the record is null");
  return DecodeRecord(in, *entry_, Target{out, &out->file, nullptr}, keep, kept);
}

}  // namespace fjord
