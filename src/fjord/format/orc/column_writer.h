// The column encoders of Fjord's ORC writer (orc_writer.h), one per ORC type node, mirroring the
// column decoders of column_reader.h, with the column statistics ORC's footer and metadata hold.
// Internal to src/fjord/format/orc.
//
// Streams and encodings, as Java's ORC writer (1.9) lays them out:
//
//   BOOLEAN  DATA boolean RLE                 (DIRECT)
//   BYTE     DATA byte RLE                    (DIRECT)
//   SHORT, INT, LONG, DATE
//            DATA signed integer RLE v2       (DIRECT_V2)
//   FLOAT, DOUBLE
//            DATA IEEE 754 little endian      (DIRECT)
//   STRING, CHAR, VARCHAR, BINARY
//            DATA bytes, LENGTH unsigned RLE v2 (DIRECT_V2; CHAR(n) padded with blanks to n
//            characters, CHAR and VARCHAR cut to n characters, as Java's writer does)
//   DECIMAL  DATA zigzag base-128 varints of the unscaled values, SECONDARY the scale of each
//            value (signed RLE v2)            (DIRECT_V2, any precision)
//   TIMESTAMP, TIMESTAMP_INSTANT
//            DATA seconds from 2015-01-01 00:00:00 UTC (signed RLE v2), SECONDARY nanoseconds
//            with trailing zeros folded (unsigned RLE v2)  (DIRECT_V2); see TimestampParts
//   LIST, MAP
//            LENGTH unsigned RLE v2           (DIRECT_V2)
//   STRUCT   none                             (DIRECT)
//
// and a PRESENT stream (boolean RLE, 1 = value) for every column that holds a NULL in the stripe.
// A child of a STRUCT has no entry where the STRUCT is NULL; the children of a LIST or MAP hold
// the entries of its non-NULL values only.
#pragma once

#include <arrow/type_fwd.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "fjord/data_type.h"
#include "fjord/format/orc/orc_types.h"
#include "fjord/format/orc/out_stream.h"
#include "fjord/format/orc/rle_encoders.h"
#include "fjord/format/orc/stripe.h"
#include "fjord/value.h"

namespace fjord::orc {

// 2015-01-01 00:00:00 UTC, the base of a timestamp's DATA seconds.
inline constexpr int64_t kOrcTimestampBase = 1420070400;

// How Java's ORC writer stores a timestamp of `floor_seconds` (floored seconds since 1970) and
// `nanos` (0..999999999, the nanoseconds past them): the seconds of its epoch milliseconds divided
// with truncation toward zero (java.sql.Timestamp.getTime() / 1000), so a value before 1970 with
// at least a millisecond of fraction is stored one second later than its floor. ORC's readers
// (Java's, C++'s, Fjord's) subtract that second again when the stored seconds are negative and the
// nanoseconds exceed 999999: every value reads back exactly, except those in (-1 s, 0) with at
// least a millisecond of fraction, whose stored seconds are 0 and which therefore read back one
// second late - in Java as well, for files Java writes.
struct TimestampParts {
  int64_t seconds;  // stored seconds since 1970 (before subtracting kOrcTimestampBase)
  int32_t nanos;
};
inline TimestampParts OrcTimestampParts(int64_t floor_seconds, int32_t nanos) {
  return {floor_seconds + (floor_seconds < 0 && nanos > 999999 ? 1 : 0), nanos};
}
// The SECONDARY value of `nanos`: trailing decimal zeros removed (from the hundreds on), their
// count less one in the low 3 bits.
uint64_t FormatOrcNanos(int32_t nanos);

// One column's statistics for a stripe or the file (ORC Specification v1, "Column Statistics"),
// as Java's writer records them: the count of values and whether there are NULLs; integer
// min/max/sum, double min/max/sum, string min/max/total length (strings above 1024 bytes as a
// truncated lower bound only), binary total length, decimal min/max/sum as text, date min/max,
// timestamp min/max in UTC milliseconds plus the nanoseconds within the millisecond, the number
// of TRUE values of a BOOLEAN, and the children counts of a LIST or MAP.
class OrcStatsBuilder {
 public:
  enum class Kind : uint8_t {
    kNone,
    kBoolean,
    kInteger,
    kDouble,
    kString,
    kBinary,
    kDecimal,
    kDate,
    kTimestamp,
    kCollection
  };
  explicit OrcStatsBuilder(Kind kind = Kind::kNone, int32_t scale = 0)
      : kind_(kind), scale_(scale) {}

  void AddValues(uint64_t n) { count_ += n; }
  void SetHasNull() { has_null_ = true; }
  void UpdateBoolean(bool v) { trues_ += v ? 1 : 0; }
  void UpdateInteger(int64_t v);
  void UpdateDouble(double v);
  void UpdateString(std::string_view v);
  void UpdateBinary(uint64_t length) { length_sum_ += length; }
  void UpdateDecimal(Int128 unscaled);
  void UpdateDate(int32_t days);
  void UpdateTimestamp(int64_t millis, int32_t nanos_of_milli);
  void UpdateCollection(uint64_t children);

  void Merge(const OrcStatsBuilder& other);
  void Reset() { *this = OrcStatsBuilder(kind_, scale_); }
  // The ColumnStatistics message.
  std::string Serialize() const;

 private:
  Kind kind_;
  int32_t scale_;
  uint64_t count_ = 0;
  bool has_null_ = false;
  bool have_ = false;  // min/max set
  uint64_t trues_ = 0;
  int64_t int_min_ = 0, int_max_ = 0, int_sum_ = 0;
  bool sum_overflow_ = false;
  double dbl_min_ = 0, dbl_max_ = 0, dbl_sum_ = 0;
  bool nan_ = false;
  std::string str_min_, str_max_;
  int64_t length_sum_ = 0;
  Int128 dec_min_ = 0, dec_max_ = 0, dec_sum_ = 0;
  int64_t ts_min_ = 0, ts_max_ = 0;
  int32_t ts_min_nanos_ = 0, ts_max_nanos_ = 0;
  uint64_t children_min_ = 0, children_max_ = 0, children_sum_ = 0;
};

// The ORC type node of a column (orc_proto.proto Type).
struct OrcTypeNode {
  OrcTypeKind kind = OrcTypeKind::kStruct;
  std::vector<uint32_t> subtypes;
  std::vector<std::string> field_names;
  std::optional<uint32_t> maximum_length, precision, scale;
  std::optional<int32_t> paimon_id;  // the `paimon.id` attribute
};

// Positions [begin, end) of an Arrow array to write.
struct RowRange {
  int64_t begin;
  int64_t end;
};
using RowRanges = std::vector<RowRange>;

// One written stream of a stripe.
struct StripeStream {
  uint32_t column;
  StreamKind kind;
  const std::string* bytes;  // owned by the column writer, valid until its next Write
};

struct ColumnWriterContext {
  Compressor* compressor = nullptr;  // DATA streams; nullptr for NONE
  // PRESENT, LENGTH and SECONDARY streams (Java compresses them with its fastest settings);
  // nullptr: `compressor`.
  Compressor* light_compressor = nullptr;
  uint64_t block_size = 256 << 10;
};

class ColumnWriter {
 public:
  virtual ~ColumnWriter();

  // A writer for the column of Paimon type `type` whose ORC type tree starts at id
  // types->size(): appends its nodes to `types` (pre-order) and its writers to `writers` (by
  // id). `paimon_id` is the node's `paimon.id`; nested ids derive from `base` and `depth` as
  // Java's SpecialFields do. NotImplemented for types ORC files cannot hold.
  static Result<std::unique_ptr<ColumnWriter>> Make(const DataType& type,
                                                    std::optional<int32_t> paimon_id, int32_t base,
                                                    int depth, const ColumnWriterContext& ctx,
                                                    std::vector<OrcTypeNode>* types,
                                                    std::vector<ColumnWriter*>* writers);

  uint32_t id() const { return id_; }

  // Writes the positions `ranges` of `array`, which has the column's canonical Arrow type.
  Status Write(const arrow::Array& array, const RowRanges& ranges);

  // Compresses the whole blocks of what the column and its children buffered.
  Status Spill();
  // Ends the stripe: flushes the encoders and compresses the streams, then appends them (this
  // column's, then its children's) to `streams` and their encodings to `encodings` (by id).
  // The stripe's statistics are merged into the file's and kept for StripeStats.
  Status FinishStripe(std::vector<StripeStream>* streams, std::vector<EncodingKind>* encodings);
  // Statistics of the stripe FinishStripe ended, and of the file so far.
  const OrcStatsBuilder& stripe_stats() const { return finished_stripe_stats_; }
  const OrcStatsBuilder& file_stats() const { return file_stats_; }
  // Forgets the stripe's streams after they were written; FinishStripe must have run.
  void ResetStripe();
  // Stored plus uncompressed bytes buffered by this column and its children.
  uint64_t BufferedBytes() const;

 protected:
  ColumnWriter(uint32_t id, EncodingKind encoding, const ColumnWriterContext& ctx,
               OrcStatsBuilder::Kind stats_kind, int32_t scale = 0);

  // Writes the non-NULL values among `ranges` (`has_nulls`: whether any position there is NULL).
  virtual Status WriteValues(const arrow::Array& array, const RowRanges& ranges,
                             bool has_nulls) = 0;
  // Flushes the encoders into their streams' buffers.
  virtual void FlushEncoders() {}

  OutStream* AddStream(StreamKind kind);

  OrcStatsBuilder stats_;
  std::vector<std::unique_ptr<ColumnWriter>> children_;

 private:
  uint32_t id_;
  EncodingKind encoding_;
  ColumnWriterContext ctx_;
  std::vector<std::pair<StreamKind, std::unique_ptr<OutStream>>> streams_;
  // PRESENT: started at the stripe's first NULL, after `rows_` TRUE values.
  std::unique_ptr<OutStream> present_stream_;
  std::unique_ptr<BoolRleEncoder> present_;
  bool present_active_ = false;
  int64_t rows_ = 0;  // positions written in the stripe
  OrcStatsBuilder finished_stripe_stats_;
  OrcStatsBuilder file_stats_;
};

}  // namespace fjord::orc
