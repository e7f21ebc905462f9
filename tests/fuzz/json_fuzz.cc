// libFuzzer target: the JSON decoders of metadata files (schema, snapshot/tag, data types).
// Arbitrary bytes must give a value or a clear error, never a crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fjord/common/data_type_json.h"
#include "fjord/common/json.h"
#include "fjord/meta/snapshot.h"
#include "fjord/schema.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto schema = fjord::TableSchema::FromJson(text, "fuzz-schema");
  if (schema.ok()) {
    // What parses must print and parse back to the same text.
    std::string printed = schema->ToJson();
    auto again = fjord::TableSchema::FromJson(printed, "reprinted");
    if (!again.ok() || again->ToJson() != printed) __builtin_trap();
  }
  auto snapshot = fjord::Snapshot::FromJson(text, "fuzz-snapshot");
  if (snapshot.ok()) {
    auto again = fjord::Snapshot::FromJson(snapshot->ToJson(), "reprinted");
    if (!again.ok() || again->ToJson() != snapshot->ToJson()) __builtin_trap();
  }
  auto json = fjord::ParseJson(text, "fuzz");
  if (json.ok()) (void)fjord::DataTypeFromJson(*json, "fuzz-type");
  (void)fjord::ParseDataType(text);
  return 0;
}
