// libFuzzer target: decodes arbitrary bytes as a BinaryRow of a fixed schema that covers every
// layout the codec knows (inline and variable strings, compact and wide decimals and timestamps,
// arrays, maps, multisets, nested rows). The decoder must never crash or read out of bounds; any
// bad input is a Corruption status. Whatever does decode must re-encode, and re-encoding is a
// fixpoint: encode(decode(encode(v))) == encode(v) byte for byte.
//
// Build (clang): -fsanitize=fuzzer,address,undefined, linked with fjord_format and fjord_common.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"

namespace {

fjord::DataField Field(int32_t id, const char* name, fjord::DataTypePtr type) {
  fjord::DataField f;
  f.id = id;
  f.name = name;
  f.type = std::move(type);
  return f;
}

const std::vector<fjord::DataTypePtr>& Schema() {
  using fjord::DataType;
  static const std::vector<fjord::DataTypePtr> types = [] {
    auto inner =
        DataType::Row({Field(100, "a", DataType::Int()), Field(101, "b", DataType::String()),
                       Field(102, "c", DataType::Decimal(22, 4))});
    return std::vector<fjord::DataTypePtr>{
        DataType::Boolean(),
        DataType::TinyInt(),
        DataType::SmallInt(),
        DataType::Int(),
        DataType::BigInt(),
        DataType::Float(),
        DataType::Double(),
        DataType::String(),
        DataType::Bytes(),
        DataType::Decimal(10, 2),
        DataType::Decimal(38, 10),
        DataType::Date(),
        DataType::Timestamp(3),
        DataType::Timestamp(9),
        DataType::TimestampLtz(6),
        DataType::Array(DataType::Int()),
        DataType::Array(DataType::String()),
        DataType::Array(DataType::Boolean()),
        DataType::Array(DataType::Array(DataType::Decimal(20, 0))),
        DataType::Map(DataType::String(), DataType::Array(DataType::Timestamp(9))),
        DataType::Multiset(DataType::String()),
        inner,
        DataType::Array(inner),
    };
  }();
  return types;
}

[[noreturn]] void Fail() { __builtin_trap(); }

void CheckStatus(const fjord::Status& st) {
  // Malformed bytes may only ever be reported as corruption.
  if (!st.ok() && !st.IsCorruption()) Fail();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const auto& types = Schema();

  uint8_t kind = 0;
  auto decoded = fjord::DecodeBinaryRow(bytes, types, &kind);
  CheckStatus(decoded.status());

  for (int32_t i = 0; i < static_cast<int32_t>(types.size()); ++i) {
    auto field = fjord::DecodeBinaryRowField(bytes, types, i);
    CheckStatus(field.status());
    // A field decodes on its own whenever the whole row does, to the same value.
    if (decoded.ok() && (!field.ok() || !(*field == (*decoded)[static_cast<size_t>(i)]))) Fail();
  }
  CheckStatus(fjord::DecodeStoredBinaryRow(bytes, types).status());
  (void)fjord::HashBinaryRow(bytes);

  if (decoded.ok()) {
    auto first = fjord::EncodeBinaryRow(*decoded, types, kind);
    if (!first.ok()) Fail();
    auto again = fjord::DecodeBinaryRow(*first, types);
    if (!again.ok()) Fail();
    auto second = fjord::EncodeBinaryRow(*again, types, kind);
    if (!second.ok() || *second != *first) Fail();
  }
  return 0;
}
