#include "fjord/format/gather_rows.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api_vector.h>
#include <arrow/util/bit_util.h>

#include <algorithm>
#include <cstring>
#include <limits>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"

namespace fjord {

namespace {

using arrow::ArrayData;
namespace bit_util = arrow::bit_util;

// The output's validity bitmap (nullptr when no source has a null) and its null count.
Result<std::shared_ptr<arrow::Buffer>> GatherValidity(const std::vector<const ArrayData*>& cols,
                                                      const std::vector<RowRef>& refs,
                                                      arrow::MemoryPool* pool,
                                                      int64_t* null_count) {
  *null_count = 0;
  bool any = false;
  for (const ArrayData* c : cols) any = any || (c != nullptr && c->GetNullCount() > 0);
  if (!any) return std::shared_ptr<arrow::Buffer>();
  const auto n = static_cast<int64_t>(refs.size());
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> bits,
                              arrow::AllocateEmptyBitmap(n, pool));
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    const ArrayData& c = *cols[static_cast<size_t>(refs[static_cast<size_t>(i)].source)];
    const uint8_t* v = c.buffers[0] ? c.buffers[0]->data() : nullptr;
    if (v == nullptr || bit_util::GetBit(v, c.offset + refs[static_cast<size_t>(i)].row)) {
      bit_util::SetBit(out, i);
    } else {
      ++*null_count;
    }
  }
  return bits;
}

template <int W>
void CopyFixed(const std::vector<const uint8_t*>& values, const std::vector<int64_t>& offsets,
               const std::vector<RowRef>& refs, int width, uint8_t* out) {
  const int w = W > 0 ? W : width;
  for (const RowRef& r : refs) {
    auto s = static_cast<size_t>(r.source);
    std::memcpy(out, values[s] + (offsets[s] + r.row) * w, static_cast<size_t>(w));
    out += w;
  }
}

Result<std::shared_ptr<arrow::Buffer>> GatherFixed(const std::vector<const ArrayData*>& cols,
                                                   const std::vector<RowRef>& refs, int width,
                                                   arrow::MemoryPool* pool) {
  std::vector<const uint8_t*> values(cols.size(), nullptr);
  std::vector<int64_t> offsets(cols.size(), 0);
  for (size_t s = 0; s < cols.size(); ++s) {
    if (cols[s] == nullptr) continue;
    values[s] = cols[s]->buffers[1] ? cols[s]->buffers[1]->data() : nullptr;
    offsets[s] = cols[s]->offset;
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(
      std::shared_ptr<arrow::Buffer> buf,
      arrow::AllocateBuffer(static_cast<int64_t>(refs.size()) * width, pool));
  uint8_t* out = buf->mutable_data();
  switch (width) {
    case 1:
      CopyFixed<1>(values, offsets, refs, width, out);
      break;
    case 2:
      CopyFixed<2>(values, offsets, refs, width, out);
      break;
    case 4:
      CopyFixed<4>(values, offsets, refs, width, out);
      break;
    case 8:
      CopyFixed<8>(values, offsets, refs, width, out);
      break;
    case 16:
      CopyFixed<16>(values, offsets, refs, width, out);
      break;
    default:
      CopyFixed<0>(values, offsets, refs, width, out);
      break;
  }
  return buf;
}

Result<std::shared_ptr<arrow::Buffer>> GatherBits(const std::vector<const ArrayData*>& cols,
                                                  const std::vector<RowRef>& refs,
                                                  arrow::MemoryPool* pool) {
  const auto n = static_cast<int64_t>(refs.size());
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> bits,
                              arrow::AllocateEmptyBitmap(n, pool));
  uint8_t* out = bits->mutable_data();
  for (int64_t i = 0; i < n; ++i) {
    const RowRef& r = refs[static_cast<size_t>(i)];
    const ArrayData& c = *cols[static_cast<size_t>(r.source)];
    if (bit_util::GetBit(c.buffers[1]->data(), c.offset + r.row)) bit_util::SetBit(out, i);
  }
  return bits;
}

// Offsets and data of a (large) binary or string column.
template <typename Offset>
Status GatherBinary(const std::vector<const ArrayData*>& cols, const std::vector<RowRef>& refs,
                    arrow::MemoryPool* pool, std::shared_ptr<arrow::Buffer>* offsets_out,
                    std::shared_ptr<arrow::Buffer>* data_out) {
  std::vector<const Offset*> offsets(cols.size(), nullptr);
  std::vector<const uint8_t*> data(cols.size(), nullptr);
  for (size_t s = 0; s < cols.size(); ++s) {
    if (cols[s] == nullptr) continue;
    offsets[s] = cols[s]->GetValues<Offset>(1);
    data[s] = cols[s]->buffers[2] ? cols[s]->buffers[2]->data() : nullptr;
  }
  int64_t total = 0;
  for (const RowRef& r : refs) {
    const Offset* o = offsets[static_cast<size_t>(r.source)];
    total += static_cast<int64_t>(o[r.row + 1]) - o[r.row];
  }
  if (total > std::numeric_limits<Offset>::max()) {
    return Status::Invalid("gathered rows hold ", total, " bytes in one column, more than ",
                           std::numeric_limits<Offset>::max(), " of its offsets");
  }
  const auto n = static_cast<int64_t>(refs.size());
  FJORD_ARROW_ASSIGN_OR_RAISE(
      *offsets_out, arrow::AllocateBuffer((n + 1) * static_cast<int64_t>(sizeof(Offset)), pool));
  FJORD_ARROW_ASSIGN_OR_RAISE(*data_out, arrow::AllocateBuffer(total, pool));
  auto* out_offsets = reinterpret_cast<Offset*>((*offsets_out)->mutable_data());
  uint8_t* out = (*data_out)->mutable_data();
  Offset pos = 0;
  for (int64_t i = 0; i < n; ++i) {
    const RowRef& r = refs[static_cast<size_t>(i)];
    const Offset* o = offsets[static_cast<size_t>(r.source)];
    const Offset len = o[r.row + 1] - o[r.row];
    out_offsets[i] = pos;
    if (len > 0) std::memcpy(out + pos, data[static_cast<size_t>(r.source)] + o[r.row], len);
    pos += len;
  }
  out_offsets[n] = pos;
  return Status::OK();
}

// Any other type: the ranges used of each source concatenated, then taken from.
Result<std::shared_ptr<arrow::Array>> GatherByTake(
    const std::vector<std::shared_ptr<arrow::Array>>& cols, const std::vector<RowRef>& refs) {
  std::vector<int64_t> lo(cols.size(), std::numeric_limits<int64_t>::max()), hi(cols.size(), -1);
  for (const RowRef& r : refs) {
    auto s = static_cast<size_t>(r.source);
    lo[s] = std::min(lo[s], r.row);
    hi[s] = std::max(hi[s], r.row);
  }
  arrow::ArrayVector slices;
  std::vector<int64_t> base(cols.size(), 0);
  int64_t offset = 0;
  for (size_t s = 0; s < cols.size(); ++s) {
    if (hi[s] < 0) continue;
    base[s] = offset - lo[s];
    slices.push_back(cols[s]->Slice(lo[s], hi[s] - lo[s] + 1));
    offset += hi[s] - lo[s] + 1;
  }
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> combined, arrow::Concatenate(slices));
  arrow::Int64Builder indices;
  FJORD_ARROW_RETURN_NOT_OK(indices.Reserve(static_cast<int64_t>(refs.size())));
  for (const RowRef& r : refs) indices.UnsafeAppend(base[static_cast<size_t>(r.source)] + r.row);
  FJORD_ARROW_ASSIGN_OR_RAISE(auto idx, indices.Finish());
  EnsureArrowCompute();
  FJORD_ARROW_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> taken,
                              arrow::compute::Take(*combined, *idx));
  return taken;
}

Result<std::shared_ptr<arrow::Array>> GatherColumn(
    const std::shared_ptr<arrow::DataType>& type,
    const std::vector<std::shared_ptr<arrow::Array>>& arrays, const std::vector<RowRef>& refs,
    arrow::MemoryPool* pool) {
  std::vector<const ArrayData*> cols(arrays.size(), nullptr);
  for (size_t s = 0; s < arrays.size(); ++s) cols[s] = arrays[s]->data().get();
  const arrow::Type::type id = type->id();
  const auto n = static_cast<int64_t>(refs.size());
  std::vector<std::shared_ptr<arrow::Buffer>> buffers(1);
  if (id == arrow::Type::BOOL) {
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> bits, GatherBits(cols, refs, pool));
    buffers.push_back(std::move(bits));
  } else if (arrow::is_primitive(id) || id == arrow::Type::FIXED_SIZE_BINARY ||
             id == arrow::Type::DECIMAL128 || id == arrow::Type::DECIMAL256) {
    const int width = type->byte_width();
    if (width <= 0) return GatherByTake(arrays, refs);
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Buffer> values,
                          GatherFixed(cols, refs, width, pool));
    buffers.push_back(std::move(values));
  } else if (id == arrow::Type::STRING || id == arrow::Type::BINARY ||
             id == arrow::Type::LARGE_STRING || id == arrow::Type::LARGE_BINARY) {
    std::shared_ptr<arrow::Buffer> offsets, data;
    if (id == arrow::Type::STRING || id == arrow::Type::BINARY) {
      FJORD_RETURN_NOT_OK(GatherBinary<int32_t>(cols, refs, pool, &offsets, &data));
    } else {
      FJORD_RETURN_NOT_OK(GatherBinary<int64_t>(cols, refs, pool, &offsets, &data));
    }
    buffers.push_back(std::move(offsets));
    buffers.push_back(std::move(data));
  } else {
    return GatherByTake(arrays, refs);
  }
  int64_t null_count = 0;
  FJORD_ASSIGN_OR_RAISE(buffers[0], GatherValidity(cols, refs, pool, &null_count));
  return arrow::MakeArray(ArrayData::Make(type, n, std::move(buffers), null_count));
}

}  // namespace

Result<std::shared_ptr<arrow::RecordBatch>> GatherRows(
    const std::shared_ptr<arrow::Schema>& schema,
    const std::vector<std::shared_ptr<arrow::RecordBatch>>& sources,
    const std::vector<RowRef>& refs, arrow::MemoryPool* pool) {
  if (pool == nullptr) pool = arrow::default_memory_pool();
  for (const RowRef& r : refs) {
    if (r.source < 0 || static_cast<size_t>(r.source) >= sources.size() || r.row < 0 ||
        r.row >= sources[static_cast<size_t>(r.source)]->num_rows()) {
      return Status::Invalid("GatherRows: row ", r.row, " of source ", r.source,
                             " is out of range");
    }
  }
  if (refs.empty()) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto empty, arrow::RecordBatch::MakeEmpty(schema));
    return empty;
  }
  arrow::ArrayVector columns;
  columns.reserve(static_cast<size_t>(schema->num_fields()));
  for (int c = 0; c < schema->num_fields(); ++c) {
    std::vector<std::shared_ptr<arrow::Array>> arrays;
    arrays.reserve(sources.size());
    for (const auto& b : sources) arrays.push_back(b->column(c));
    FJORD_ASSIGN_OR_RAISE(std::shared_ptr<arrow::Array> column,
                          GatherColumn(schema->field(c)->type(), arrays, refs, pool));
    columns.push_back(std::move(column));
  }
  return arrow::RecordBatch::Make(schema, static_cast<int64_t>(refs.size()), std::move(columns));
}

}  // namespace fjord
