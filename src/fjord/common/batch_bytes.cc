#include "fjord/common/batch_bytes.h"

#include <arrow/api.h>
#include <arrow/util/byte_size.h>

#include "fjord/common/arrow_status.h"

namespace fjord {

namespace {

int64_t BitmapBytes(int64_t offset, int64_t length) {
  return (offset + length + 7) / 8 - offset / 8;
}

template <typename Offset>
int64_t BinaryBytes(const arrow::ArrayData& d) {
  const Offset* offsets = d.GetValues<Offset>(1);
  return d.length * static_cast<int64_t>(sizeof(Offset)) +
         static_cast<int64_t>(offsets[d.length] - offsets[0]);
}

}  // namespace

Result<int64_t> RowBytes(const arrow::RecordBatch& batch) {
  int64_t total = 0;
  for (int c = 0; c < batch.num_columns(); ++c) {
    const arrow::ArrayData& d = *batch.column_data(c);
    const arrow::Type::type id = d.type->id();
    const bool has_validity = !d.buffers.empty() && d.buffers[0] != nullptr;
    if (id == arrow::Type::BOOL) {
      total += BitmapBytes(d.offset, d.length);
    } else if (id == arrow::Type::STRING || id == arrow::Type::BINARY) {
      total += BinaryBytes<int32_t>(d);
    } else if (id == arrow::Type::LARGE_STRING || id == arrow::Type::LARGE_BINARY) {
      total += BinaryBytes<int64_t>(d);
    } else if (arrow::is_primitive(id) || id == arrow::Type::DECIMAL128 ||
               id == arrow::Type::DECIMAL256 || id == arrow::Type::FIXED_SIZE_BINARY) {
      const auto& fixed = static_cast<const arrow::FixedWidthType&>(*d.type);
      total += d.length * fixed.bit_width() / 8;
    } else {
      FJORD_ARROW_ASSIGN_OR_RAISE(int64_t bytes, arrow::util::ReferencedBufferSize(d));
      total += bytes;
      continue;
    }
    if (has_validity) total += BitmapBytes(d.offset, d.length);
  }
  return total;
}

}  // namespace fjord
