// The bytes of a batch's rows in memory, for writers that size row groups and files by them.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>

#include "fjord/result.h"

namespace fjord {

// The bytes of the buffers' ranges that `batch`'s rows use (of a slice: its rows only), as
// arrow::util::ReferencedBufferSize counts them, for writers that call it on every slice they
// write. Fixed-width, boolean and (large) binary/string columns are counted from their lengths and
// offsets; ReferencedBufferSize, which also finds buffers shared between columns (building an
// index of every buffer on each call), counts the other columns, and a buffer two flat columns
// share counts twice here.
Result<int64_t> RowBytes(const arrow::RecordBatch& batch);

}  // namespace fjord
