#include "fjord/format/gather_rows.h"

#include <arrow/api.h>
#include <arrow/array/concatenate.h>
#include <arrow/compute/api_vector.h>
#include <arrow/util/bit_util.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <type_traits>

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

// Calls `copy` with std::integral_constant<int, W>, W the fixed width 1, 2, 4, 8 or 16 (a copy
// of a size known at compile time) or 0 for any other width.
template <typename F>
void ByWidth(int width, F&& copy) {
  switch (width) {
    case 1:
      return copy(std::integral_constant<int, 1>());
    case 2:
      return copy(std::integral_constant<int, 2>());
    case 4:
      return copy(std::integral_constant<int, 4>());
    case 8:
      return copy(std::integral_constant<int, 8>());
    case 16:
      return copy(std::integral_constant<int, 16>());
    default:
      return copy(std::integral_constant<int, 0>());
  }
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
  ByWidth(width, [&](auto w) { CopyFixed<decltype(w)::value>(values, offsets, refs, width, out); });
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

// Dealing out (RowScatter): one pass over each source column, every value copied to the end of
// its share's buffers.
using Dest = std::vector<std::vector<int32_t>>;

// The shares' bitmaps of the sources' buffer `index` (0: validity, where a source without one has
// every bit set; 1: a boolean column's values), and each share's count of unset bits.
Result<std::vector<std::shared_ptr<arrow::Buffer>>> ScatterBitmap(
    const std::vector<const ArrayData*>& cols, const Dest& dest, const std::vector<int64_t>& rows,
    arrow::MemoryPool* pool, size_t index, std::vector<int64_t>* unset) {
  unset->assign(rows.size(), 0);
  std::vector<std::shared_ptr<arrow::Buffer>> bits(rows.size());
  std::vector<uint8_t*> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    FJORD_ARROW_ASSIGN_OR_RAISE(bits[i], arrow::AllocateEmptyBitmap(rows[i], pool));
    out[i] = bits[i]->mutable_data();
  }
  std::vector<int64_t> next(rows.size(), 0);
  for (size_t s = 0; s < cols.size(); ++s) {
    const ArrayData& c = *cols[s];
    const uint8_t* v = c.buffers[index] ? c.buffers[index]->data() : nullptr;
    const std::vector<int32_t>& to = dest[s];
    for (size_t r = 0; r < to.size(); ++r) {
      const int32_t d = to[r];
      if (d < 0) continue;
      const auto i = static_cast<size_t>(d);
      if (v == nullptr || bit_util::GetBit(v, c.offset + static_cast<int64_t>(r))) {
        bit_util::SetBit(out[i], next[i]);
      } else {
        ++(*unset)[i];
      }
      ++next[i];
    }
  }
  return bits;
}

// The shares' validity bitmaps (all null when no source has a null) and null counts.
Result<std::vector<std::shared_ptr<arrow::Buffer>>> ScatterValidity(
    const std::vector<const ArrayData*>& cols, const Dest& dest, const std::vector<int64_t>& rows,
    arrow::MemoryPool* pool, std::vector<int64_t>* null_counts) {
  bool any = false;
  for (const ArrayData* c : cols) any = any || c->GetNullCount() > 0;
  if (any) return ScatterBitmap(cols, dest, rows, pool, 0, null_counts);
  null_counts->assign(rows.size(), 0);
  return std::vector<std::shared_ptr<arrow::Buffer>>(rows.size());
}

template <int W>
void ScatterFixedValues(const std::vector<const ArrayData*>& cols, const Dest& dest, int width,
                        std::vector<uint8_t*>& out) {
  const int w = W > 0 ? W : width;
  for (size_t s = 0; s < cols.size(); ++s) {
    const uint8_t* values = cols[s]->buffers[1] ? cols[s]->buffers[1]->data() : nullptr;
    if (values == nullptr) continue;  // no rows
    values += cols[s]->offset * w;
    const std::vector<int32_t>& to = dest[s];
    for (size_t r = 0; r < to.size(); ++r) {
      const int32_t d = to[r];
      if (d < 0) continue;
      uint8_t*& o = out[static_cast<size_t>(d)];
      std::memcpy(o, values + static_cast<int64_t>(r) * w, static_cast<size_t>(w));
      o += w;
    }
  }
}

Result<std::vector<std::shared_ptr<arrow::Buffer>>> ScatterFixed(
    const std::vector<const ArrayData*>& cols, const Dest& dest, const std::vector<int64_t>& rows,
    int width, arrow::MemoryPool* pool) {
  std::vector<std::shared_ptr<arrow::Buffer>> bufs(rows.size());
  std::vector<uint8_t*> out(rows.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    FJORD_ARROW_ASSIGN_OR_RAISE(bufs[i], arrow::AllocateBuffer(rows[i] * width, pool));
    out[i] = bufs[i]->mutable_data();
  }
  ByWidth(width, [&](auto w) { ScatterFixedValues<decltype(w)::value>(cols, dest, width, out); });
  return bufs;
}

// The shares' offsets and data of a (large) binary or string column.
template <typename Offset>
Status ScatterBinary(const std::vector<const ArrayData*>& cols, const Dest& dest,
                     const std::vector<int64_t>& rows, arrow::MemoryPool* pool,
                     std::vector<std::shared_ptr<arrow::Buffer>>* offsets_out,
                     std::vector<std::shared_ptr<arrow::Buffer>>* data_out) {
  const size_t shares = rows.size();
  std::vector<int64_t> bytes(shares, 0);
  for (size_t s = 0; s < cols.size(); ++s) {
    const Offset* o = cols[s]->GetValues<Offset>(1);
    const std::vector<int32_t>& to = dest[s];
    for (size_t r = 0; r < to.size(); ++r) {
      if (to[r] >= 0) bytes[static_cast<size_t>(to[r])] += o[r + 1] - o[r];
    }
  }
  offsets_out->resize(shares);
  data_out->resize(shares);
  std::vector<Offset*> out_offsets(shares);
  std::vector<uint8_t*> out_data(shares);
  for (size_t i = 0; i < shares; ++i) {
    if (bytes[i] > std::numeric_limits<Offset>::max()) {
      return Status::Invalid("gathered rows hold ", bytes[i], " bytes in one column, more than ",
                             std::numeric_limits<Offset>::max(), " of its offsets");
    }
    FJORD_ARROW_ASSIGN_OR_RAISE(
        (*offsets_out)[i],
        arrow::AllocateBuffer((rows[i] + 1) * static_cast<int64_t>(sizeof(Offset)), pool));
    FJORD_ARROW_ASSIGN_OR_RAISE((*data_out)[i], arrow::AllocateBuffer(bytes[i], pool));
    out_offsets[i] = reinterpret_cast<Offset*>((*offsets_out)[i]->mutable_data());
    out_data[i] = (*data_out)[i]->mutable_data();
  }
  std::vector<Offset> pos(shares, 0);
  for (size_t s = 0; s < cols.size(); ++s) {
    const Offset* o = cols[s]->GetValues<Offset>(1);
    const uint8_t* data = cols[s]->buffers[2] ? cols[s]->buffers[2]->data() : nullptr;
    const std::vector<int32_t>& to = dest[s];
    for (size_t r = 0; r < to.size(); ++r) {
      const int32_t d = to[r];
      if (d < 0) continue;
      const auto i = static_cast<size_t>(d);
      const Offset len = o[r + 1] - o[r];
      *out_offsets[i]++ = pos[i];
      if (len > 0) std::memcpy(out_data[i] + pos[i], data + o[r], static_cast<size_t>(len));
      pos[i] += len;
    }
  }
  for (size_t i = 0; i < shares; ++i) *out_offsets[i] = pos[i];
  return Status::OK();
}

}  // namespace

Result<std::shared_ptr<RowScatter>> RowScatter::Make(
    std::shared_ptr<arrow::Schema> schema, std::vector<std::shared_ptr<arrow::RecordBatch>> sources,
    std::vector<std::vector<int32_t>> dest, int32_t shares, arrow::MemoryPool* pool) {
  if (dest.size() != sources.size() || shares < 0) {
    return Status::Invalid("RowScatter: ", dest.size(), " destinations for ", sources.size(),
                           " sources, ", shares, " shares");
  }
  std::shared_ptr<RowScatter> out(new RowScatter());
  out->rows_.assign(static_cast<size_t>(shares), 0);
  for (size_t s = 0; s < sources.size(); ++s) {
    if (static_cast<int64_t>(dest[s].size()) != sources[s]->num_rows()) {
      return Status::Invalid("RowScatter: source ", s, " has ", sources[s]->num_rows(), " rows, ",
                             dest[s].size(), " destinations");
    }
    for (int32_t d : dest[s]) {
      if (d >= shares) return Status::Invalid("RowScatter: share ", d, " of ", shares);
      if (d >= 0) ++out->rows_[static_cast<size_t>(d)];
    }
  }
  out->columns_.assign(static_cast<size_t>(schema->num_fields()),
                       std::vector<std::shared_ptr<arrow::Array>>(static_cast<size_t>(shares)));
  // Each source column is held until its column is filled, then let go: the sources' memory
  // goes as the shares fill, not once every share is taken.
  out->source_columns_.resize(static_cast<size_t>(schema->num_fields()));
  for (size_t c = 0; c < out->source_columns_.size(); ++c) {
    for (const auto& source : sources) {
      out->source_columns_[c].push_back(source->column_data(static_cast<int>(c)));
    }
  }
  out->schema_ = std::move(schema);
  out->dest_ = std::move(dest);
  out->pool_ = pool != nullptr ? pool : arrow::default_memory_pool();
  out->fill_ = std::make_unique<SharedWork>(out->columns_.size(), [scatter = out.get()](size_t c) {
    return scatter->Fill(static_cast<int>(c));
  });
  return out;
}

int RowScatter::num_columns() const { return schema_->num_fields(); }

Status RowScatter::Fill(int c) {
  // The source columns, let go when this returns.
  std::vector<std::shared_ptr<ArrayData>> sources =
      std::move(source_columns_[static_cast<size_t>(c)]);
  if (sources.size() != dest_.size()) {
    return Status::Invalid("RowScatter: column ", c, " filled twice");
  }
  const std::shared_ptr<arrow::DataType>& type = schema_->field(c)->type();
  std::vector<const ArrayData*> cols(sources.size());
  for (size_t s = 0; s < sources.size(); ++s) cols[s] = sources[s].get();
  const size_t shares = rows_.size();
  const arrow::Type::type id = type->id();
  std::vector<std::vector<std::shared_ptr<arrow::Buffer>>> buffers(shares);
  if (id == arrow::Type::BOOL) {
    std::vector<int64_t> unset;
    FJORD_ASSIGN_OR_RAISE(auto bits, ScatterBitmap(cols, dest_, rows_, pool_, 1, &unset));
    for (size_t i = 0; i < shares; ++i) buffers[i] = {nullptr, std::move(bits[i])};
  } else if ((arrow::is_primitive(id) || id == arrow::Type::FIXED_SIZE_BINARY ||
              id == arrow::Type::DECIMAL128 || id == arrow::Type::DECIMAL256) &&
             type->byte_width() > 0) {
    FJORD_ASSIGN_OR_RAISE(auto values, ScatterFixed(cols, dest_, rows_, type->byte_width(), pool_));
    for (size_t i = 0; i < shares; ++i) buffers[i] = {nullptr, std::move(values[i])};
  } else if (id == arrow::Type::STRING || id == arrow::Type::BINARY ||
             id == arrow::Type::LARGE_STRING || id == arrow::Type::LARGE_BINARY) {
    std::vector<std::shared_ptr<arrow::Buffer>> offsets, data;
    if (id == arrow::Type::STRING || id == arrow::Type::BINARY) {
      FJORD_RETURN_NOT_OK(ScatterBinary<int32_t>(cols, dest_, rows_, pool_, &offsets, &data));
    } else {
      FJORD_RETURN_NOT_OK(ScatterBinary<int64_t>(cols, dest_, rows_, pool_, &offsets, &data));
    }
    for (size_t i = 0; i < shares; ++i) {
      buffers[i] = {nullptr, std::move(offsets[i]), std::move(data[i])};
    }
  } else {
    // Share by share, from the rows' references.
    std::vector<std::vector<RowRef>> refs(shares);
    for (size_t i = 0; i < shares; ++i) refs[i].reserve(static_cast<size_t>(rows_[i]));
    for (size_t s = 0; s < dest_.size(); ++s) {
      for (size_t r = 0; r < dest_[s].size(); ++r) {
        if (dest_[s][r] >= 0) {
          refs[static_cast<size_t>(dest_[s][r])].push_back(
              {static_cast<int>(s), static_cast<int64_t>(r)});
        }
      }
    }
    std::vector<std::shared_ptr<arrow::Array>> arrays(sources.size());
    for (size_t s = 0; s < sources.size(); ++s) arrays[s] = arrow::MakeArray(sources[s]);
    for (size_t i = 0; i < shares; ++i) {
      std::shared_ptr<arrow::Array>& column = columns_[static_cast<size_t>(c)][i];
      if (refs[i].empty()) {
        FJORD_ARROW_ASSIGN_OR_RAISE(column, arrow::MakeEmptyArray(type, pool_));
      } else {
        FJORD_ASSIGN_OR_RAISE(column, GatherColumn(type, arrays, refs[i], pool_));
      }
    }
    return Status::OK();
  }
  std::vector<int64_t> null_counts;
  FJORD_ASSIGN_OR_RAISE(auto validity, ScatterValidity(cols, dest_, rows_, pool_, &null_counts));
  for (size_t i = 0; i < shares; ++i) {
    buffers[i][0] = std::move(validity[i]);
    columns_[static_cast<size_t>(c)][i] =
        arrow::MakeArray(ArrayData::Make(type, rows_[i], std::move(buffers[i]), null_counts[i]));
  }
  return Status::OK();
}

Result<std::shared_ptr<arrow::RecordBatch>> RowScatter::Share(int32_t i) const {
  if (i < 0 || static_cast<size_t>(i) >= rows_.size()) {
    return Status::Invalid("RowScatter: no share ", i, " of ", rows_.size());
  }
  arrow::ArrayVector columns;
  columns.reserve(columns_.size());
  for (size_t c = 0; c < columns_.size(); ++c) {
    const std::shared_ptr<arrow::Array>& column = columns_[c][static_cast<size_t>(i)];
    if (column == nullptr) return Status::Invalid("RowScatter: column ", c, " not filled");
    columns.push_back(column);
  }
  return arrow::RecordBatch::Make(schema_, rows_[static_cast<size_t>(i)], std::move(columns));
}

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
