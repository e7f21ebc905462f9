// Manifest entries decoded straight from their Avro encoding into ManifestEntry, without the
// generic value tree of record_reader.h: planning a table of many files is mostly this decoding.
// A plan is compiled once per file from the writer's schema, field by field by name (as Java reads
// them: a missing optional field stays empty, an unknown field is skipped). Its partition can be
// tested before the rest of the entry is decoded; a refused entry is skipped without building it.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "fjord/format/avro/binary.h"
#include "fjord/format/avro/schema.h"
#include "fjord/meta/manifest.h"

namespace fjord {

class ManifestEntryDecoder {
 public:
  struct RecordPlan;

  // A decoder for records of the writer's schema `root`, or nullptr when the schema has a shape
  // this decoder does not take (a required field missing, a field of another type): the generic
  // reader then reads the file and names the problem.
  static std::unique_ptr<ManifestEntryDecoder> ForSchema(const avro::Node& root);
  ~ManifestEntryDecoder();

  // Decodes one record into `out`. When `keep` is set and returns false for the entry's stored
  // partition, the rest of the record is skipped and *kept is false. Errors name the field.
  Status Decode(avro::BinaryDecoder* in, const std::function<bool(const std::string&)>* keep,
                ManifestEntry* out, bool* kept) const;

 private:
  ManifestEntryDecoder() = default;
  const avro::Node* root_ = nullptr;  // the record, or a union holding it (Paimon 0.9 and older)
  std::unique_ptr<RecordPlan> entry_;
};

}  // namespace fjord
