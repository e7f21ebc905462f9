// libFuzzer target: arbitrary bytes parsed as an ORC file tail (PostScript, compressed Footer).
//
// Every input must end in a Status, never a crash, a hang, or unbounded memory. Whatever parses
// must be a usable type tree: the null-map-key check walks it, every subtype id points forward
// and inside the list, and the in-memory and chunked-read paths agree.
//
// Seed corpus: the Java-written ORC files under tests/fixtures/paimon-java (data files and
// ORC manifests, any file whose first bytes are "ORC").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "fjord/format/orc/orc_tail.h"

namespace {

void Check(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fjord::Result<fjord::OrcTail> tail = fjord::ReadOrcTail(bytes, "fuzz.orc");
  if (!tail.ok()) {
    fjord::Status st = tail.status();
    Check(st.IsCorruption() || st.code() == fjord::StatusCode::kNotImplemented);
    Check(st.message().rfind("fuzz.orc: ", 0) == 0);
    return 0;
  }
  const fjord::OrcTail& t = *tail;
  Check(!t.types.empty());
  for (size_t i = 0; i < t.types.size(); ++i) {
    for (uint32_t sub : t.types[i].subtypes) Check(sub > i && sub < t.types.size());
    if (t.types[i].kind == fjord::OrcTypeKind::kMap) Check(t.types[i].subtypes.size() == 2);
    if (t.types[i].kind == fjord::OrcTypeKind::kStruct) {
      Check(t.types[i].field_names.size() == t.types[i].subtypes.size());
    }
  }
  std::vector<std::string> flagged = fjord::MapColumnsWithNullKeys(t);
  fjord::Status readable = fjord::CheckArrowCanReadOrc(t, {}, "fuzz.orc");
  Check(flagged.empty() || !readable.ok());
  for (uint32_t c = 0; c < t.types.size(); ++c) (void)fjord::HasMapWithNullKeys(t, c);

  // Reading through the callback, as from a file, gives the same tail.
  fjord::OrcReadAt read_at = [bytes](uint64_t offset,
                                     uint64_t length) -> fjord::Result<std::string> {
    Check(offset <= bytes.size() && length <= bytes.size() - offset);
    return std::string(bytes.substr(offset, length));
  };
  auto again = fjord::ReadOrcTail(size, read_at, "fuzz.orc");
  Check(again.ok());
  Check(again->rows == t.rows && again->types.size() == t.types.size() &&
        again->stats.size() == t.stats.size());
  return 0;
}
