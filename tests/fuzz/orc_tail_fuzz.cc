// libFuzzer target: arbitrary bytes parsed as an ORC file tail (PostScript, compressed Footer)
// and, when that parses, its Metadata section (the statistics of each stripe).
//
// Every input must end in a Status, never a crash, a hang, or unbounded memory. Whatever parses
// must be a usable type tree: the null-map-key check walks it, every subtype id points forward
// and inside the list, and the in-memory and chunked-read paths agree. The stripe statistics
// come one set per StripeStatistics message, in order, each as long as the columns asked for.
//
// Seed corpus: the Java-written ORC files under tests/fixtures/paimon-java (data files and
// ORC manifests, any file whose first bytes are "ORC").
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

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

  // Stripe statistics of every column, then of the last one and an id past the tree; read from
  // the file, as when the tail did not hold the section.
  std::vector<uint32_t> all;
  for (uint32_t c = 0; c < t.types.size(); ++c) all.push_back(c);
  std::vector<uint32_t> some{static_cast<uint32_t>(t.types.size() - 1),
                             static_cast<uint32_t>(t.types.size())};
  fjord::OrcTail unheld = t;
  unheld.metadata.clear();
  for (const fjord::OrcTail* tail_of : {&t, static_cast<const fjord::OrcTail*>(&unheld)}) {
    for (const std::vector<uint32_t>* columns : {&all, &some}) {
      size_t expected = 0;
      fjord::Status st = fjord::ReadOrcStripeStats(
          *tail_of, size, read_at, "fuzz.orc", *columns,
          [&](size_t index, const std::vector<fjord::OrcColumnStats>& stats) -> fjord::Status {
            Check(index == expected++);
            Check(stats.size() == columns->size());
            return fjord::Status::OK();
          });
      if (!st.ok()) {
        Check(st.IsCorruption() || st.code() == fjord::StatusCode::kNotImplemented);
        Check(st.message().rfind("fuzz.orc: ", 0) == 0);
      }
    }
  }
  return 0;
}
