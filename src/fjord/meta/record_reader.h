// Generic access to manifest-like records, whatever the container format: Avro files are decoded
// into avro::Datum trees with their writer schema; ORC files are read through Arrow and turned into
// the same trees (with a schema derived from the ORC columns), so one decoder handles both.
//
// Fields are looked up by name, as Java's readers do: a field missing from the file reads as null,
// extra fields are ignored. Errors name the file, the record number and the field.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/file_io.h"
#include "fjord/format/avro/datum.h"
#include "fjord/format/avro/schema.h"

namespace fjord {

// One record (or nested record) with its schema node.
class RecordView {
 public:
  RecordView(const avro::Node* node, const avro::Datum* datum, const std::string* where)
      : node_(node), datum_(datum), where_(where) {}

  // The raw field, with a union unwrapped: (node, datum), or (nullptr, nullptr) when the field is
  // absent from the schema or null.
  std::pair<const avro::Node*, const avro::Datum*> Field(std::string_view name) const;

  Result<int64_t> Long(std::string_view name) const;  // int or long, required
  Result<std::optional<int64_t>> OptionalLong(std::string_view name) const;
  Result<std::string> Bytes(std::string_view name) const;  // bytes or string, required
  Result<std::optional<std::string>> OptionalBytes(std::string_view name) const;
  Result<RecordView> Record(std::string_view name) const;  // required
  // Array of strings; nullopt when null or absent.
  Result<std::optional<std::vector<std::string>>> OptionalStringArray(std::string_view name) const;
  // Array of nullable longs.
  Result<std::optional<std::vector<std::optional<int64_t>>>> OptionalLongArray(
      std::string_view name) const;
  // Array of records; nullopt when null or absent.
  Result<std::optional<std::vector<RecordView>>> OptionalRecordArray(std::string_view name) const;

  Status Error(std::string_view field, std::string_view what) const;

 private:
  const avro::Node* node_;
  const avro::Datum* datum_;
  const std::string* where_;
};

// All records of a metadata file, decoded. `format` is "avro" or "orc".
class RecordFile {
 public:
  static Result<std::unique_ptr<RecordFile>> Read(FileIO* io, const std::string& path,
                                                  const std::string& format);

  size_t size() const { return records_.size(); }
  RecordView At(size_t i) const { return RecordView(root_, &records_[i], &wheres_[i]); }

 private:
  std::shared_ptr<const avro::Schema> schema_;
  const avro::Node* root_ = nullptr;
  std::vector<avro::Datum> records_;
  std::vector<std::string> wheres_;
};

}  // namespace fjord
