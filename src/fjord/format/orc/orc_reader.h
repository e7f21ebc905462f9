// Fjord's own reader of ORC data files, used where Arrow's ORC adapter cannot be: files whose
// MAP columns hold NULL keys (Arrow aborts the process on them; orc_tail.h detects them from the
// footer statistics). It reads every type Paimon writes to ORC, stripe by stripe and column by
// column (orc/column_reader.h), decompressing NONE, ZLIB, SNAPPY, LZ4 and ZSTD streams
// (orc/compression.h) and decoding byte, boolean and integer RLE v1/v2 (orc/byte_rle.h,
// orc/int_rle.h).
//
// Output: one chunk per stripe for each requested field, in Fjord's canonical Arrow form
// (arrow_types.h) - except MAP columns whose keys may be NULL (the key column's hasNull
// statistic is true or absent), which come out as list<entries: struct<key, value>> with a
// nullable key, because Arrow's MapArray cannot hold NULL keys. arrow_types.h, row_json.h and
// arrow_values.h accept that form for a MAP.
#pragma once

#include <arrow/type_fwd.h>

#include <memory>
#include <string>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/orc/orc_types.h"

namespace fjord::orc {

// Reads the top-level columns `fields` (matched by name, nested ROW fields too) of the ORC file
// of `file_size` bytes read through `read_at`, whose tail is `tail`, one stripe at a time. Errors
// name `path` and, for bad column data, the column and stream. A field the file lacks is
// Corruption. `tail` and `read_at` must outlive the reader.
class OrcStripeReader {
 public:
  static Result<std::unique_ptr<OrcStripeReader>> Make(const OrcTail& tail, uint64_t file_size,
                                                       const OrcReadAt& read_at, std::string path,
                                                       std::vector<DataField> fields);
  ~OrcStripeReader();

  // The next stripe's rows (one array per field; a MAP with NULL keys in the list form), or
  // nullptr after the last stripe, when the stripes' row count is checked against the footer's.
  Result<std::shared_ptr<arrow::RecordBatch>> Next();
  // Passes over the next stripe without reading it (its rows still count towards the footer's).
  void Skip();
  // The index of the stripe Next() or Skip() takes next.
  size_t next_stripe() const;

 private:
  OrcStripeReader(const OrcTail& tail, uint64_t file_size, const OrcReadAt& read_at,
                  std::string path, std::vector<DataField> fields);
  struct State;
  std::unique_ptr<State> state_;
};

// Every stripe of the file at once (OrcStripeReader), one chunk per stripe.
Result<std::shared_ptr<arrow::Table>> ReadOrcFile(const OrcTail& tail, uint64_t file_size,
                                                  const OrcReadAt& read_at, const std::string& path,
                                                  const std::vector<DataField>& fields);

// The MAP columns of `tail` whose keys may hold NULLs (by column id), as ReadOrcFile decides.
std::vector<bool> MapsWithNullableKeys(const OrcTail& tail);

}  // namespace fjord::orc
