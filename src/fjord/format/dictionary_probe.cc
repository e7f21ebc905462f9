#include "fjord/format/dictionary_probe.h"

#include <arrow/api.h>

#include <algorithm>
#include <functional>
#include <string_view>
#include <unordered_set>

namespace fjord {

namespace {

uint64_t NextRandom(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// The columns the probe judges, and the bytes of one of their values.
class ValueBytes {
 public:
  static bool Judged(const arrow::DataType& type) {
    if (arrow::is_base_binary_like(type.id())) return true;
    if (type.id() == arrow::Type::DICTIONARY || type.id() == arrow::Type::EXTENSION) return false;
    const auto* fixed = dynamic_cast<const arrow::FixedWidthType*>(&type);
    return fixed != nullptr && !arrow::is_nested(type.id()) && fixed->bit_width() >= 32;
  }

  static std::string_view At(const arrow::Array& array, int64_t row) {
    switch (array.type_id()) {
      case arrow::Type::STRING:
      case arrow::Type::BINARY:
        return static_cast<const arrow::BinaryArray&>(array).GetView(row);
      case arrow::Type::LARGE_STRING:
      case arrow::Type::LARGE_BINARY:
        return static_cast<const arrow::LargeBinaryArray&>(array).GetView(row);
      default: {
        const int width = static_cast<const arrow::FixedWidthType&>(*array.type()).bit_width() / 8;
        const uint8_t* values = array.data()->buffers[1]->data();
        return {reinterpret_cast<const char*>(values) + (array.offset() + row) * width,
                static_cast<size_t>(width)};
      }
    }
  }
};

// `count` distinct positions in [0, total), ascending.
std::vector<int64_t> SamplePositions(int64_t total, int64_t count) {
  std::unordered_set<int64_t> drawn;
  uint64_t state = 0x46a0e5d1c3b2f987ull;
  while (static_cast<int64_t>(drawn.size()) < count) {
    drawn.insert(static_cast<int64_t>(NextRandom(state) % static_cast<uint64_t>(total)));
  }
  std::vector<int64_t> out(drawn.begin(), drawn.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::string> DistinctValueColumns(
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& batches,
    const DictionaryProbeOptions& options) {
  std::vector<std::string> out;
  int64_t total = 0;
  for (const auto& b : batches) total += b->num_rows();
  if (batches.empty() || total < options.min_rows || total <= options.sample_rows) return out;
  const std::vector<int64_t> positions = SamplePositions(total, options.sample_rows);
  const arrow::Schema& schema = *batches[0]->schema();
  std::vector<uint64_t> hashes;
  hashes.reserve(positions.size());
  for (int c = 0; c < schema.num_fields(); ++c) {
    if (!ValueBytes::Judged(*schema.field(c)->type())) continue;
    hashes.clear();
    size_t b = 0;
    int64_t first = 0;  // the first row of batches[b]
    for (int64_t p : positions) {
      while (p >= first + batches[b]->num_rows()) first += batches[b++]->num_rows();
      const arrow::Array& array = *batches[b]->column(c);
      if (array.IsNull(p - first)) continue;
      hashes.push_back(std::hash<std::string_view>{}(ValueBytes::At(array, p - first)));
    }
    if (static_cast<int64_t>(hashes.size()) * 2 < options.sample_rows) continue;
    std::sort(hashes.begin(), hashes.end());
    // Two equal hashes: a repeat (or, at odds of about 2^-41 here, two values that collide: the
    // column then keeps its dictionary, as Arrow would give it).
    if (std::adjacent_find(hashes.begin(), hashes.end()) == hashes.end()) {
      out.push_back(schema.field(c)->name());
    }
  }
  return out;
}

}  // namespace fjord
