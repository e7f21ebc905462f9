#include "fjord/format/orc/column_writer.h"

#include <arrow/api.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "fjord/format/orc/proto_writer.h"

namespace fjord::orc {

namespace {

__extension__ typedef unsigned __int128 UInt128;

// Java's SpecialFields ids of the nested nodes of a field with id `base`, at `depth` below it
// (int arithmetic wraps as in Java).
constexpr uint32_t kStructuredBase = 2147483647u / 4;
int32_t ArrayElementId(int32_t base, int depth) {
  return static_cast<int32_t>(kStructuredBase + static_cast<uint32_t>(base) * 1024u +
                              static_cast<uint32_t>(depth));
}
int32_t MapKeyId(int32_t base, int depth) {
  return static_cast<int32_t>(kStructuredBase - static_cast<uint32_t>(base) * 1024u -
                              static_cast<uint32_t>(depth));
}

// Longest string Java's writer keeps whole in statistics (ORC-203).
constexpr size_t kMaxStatsString = 1024;

// The longest prefix of `s` of at most `max` bytes that ends at a UTF-8 character boundary.
std::string_view Utf8Prefix(std::string_view s, size_t max) {
  if (s.size() <= max) return s;
  size_t n = max;
  while (n > 0 && (static_cast<uint8_t>(s[n]) & 0xc0) == 0x80) --n;
  return s.substr(0, n);
}

// 10^38: decimals of precision 38 stay below it.
constexpr Int128 kDecimalLimit =
    static_cast<Int128>(10000000000000000000ull) * static_cast<Int128>(10000000000000000000ull);

// `unscaled` / 10^scale as text with the fraction's trailing zeros removed (HiveDecimal's form:
// "1.5", "-0.01", "0").
std::string DecimalText(Int128 unscaled, int32_t scale) {
  bool negative = unscaled < 0;
  auto magnitude =
      negative ? static_cast<UInt128>(-(unscaled + 1)) + 1 : static_cast<UInt128>(unscaled);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(magnitude % 10)));
    magnitude /= 10;
  } while (magnitude != 0);
  while (static_cast<int32_t>(digits.size()) <= scale) digits.push_back('0');
  std::reverse(digits.begin(), digits.end());
  std::string out = negative ? "-" : "";
  size_t int_digits = digits.size() - static_cast<size_t>(scale);
  out.append(digits, 0, int_digits);
  std::string fraction = digits.substr(int_digits);
  while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
  if (!fraction.empty()) out += "." + fraction;
  if (out == "-0") out = "0";
  return out;
}

}  // namespace

uint64_t FormatOrcNanos(int32_t nanos) {
  if (nanos == 0) return 0;
  if (nanos % 100 != 0) return static_cast<uint64_t>(nanos) << 3;
  uint64_t n = static_cast<uint64_t>(nanos) / 100;
  uint64_t zeros = 1;
  while (n % 10 == 0 && zeros < 7) {
    n /= 10;
    ++zeros;
  }
  return (n << 3) | zeros;
}

// --- OrcStatsBuilder ------------------------------------------------------------------------

void OrcStatsBuilder::UpdateInteger(int64_t v) {
  if (!have_) {
    int_min_ = int_max_ = v;
    have_ = true;
  } else {
    int_min_ = std::min(int_min_, v);
    int_max_ = std::max(int_max_, v);
  }
  if (!sum_overflow_ && __builtin_add_overflow(int_sum_, v, &int_sum_)) sum_overflow_ = true;
}

void OrcStatsBuilder::UpdateDouble(double v) {
  if (std::isnan(v)) {
    nan_ = true;
  } else if (!have_) {
    dbl_min_ = dbl_max_ = v;
    have_ = true;
  } else {
    dbl_min_ = std::min(dbl_min_, v);
    dbl_max_ = std::max(dbl_max_, v);
  }
  dbl_sum_ += v;
}

void OrcStatsBuilder::UpdateString(std::string_view v) {
  if (!have_) {
    str_min_.assign(v);
    str_max_.assign(v);
    have_ = true;
  } else if (v < std::string_view(str_min_)) {
    str_min_.assign(v);
  } else if (v > std::string_view(str_max_)) {
    str_max_.assign(v);
  }
  length_sum_ += static_cast<int64_t>(v.size());
}

void OrcStatsBuilder::UpdateDecimal(Int128 v) {
  if (!have_) {
    dec_min_ = dec_max_ = v;
    have_ = true;
  } else {
    dec_min_ = std::min(dec_min_, v);
    dec_max_ = std::max(dec_max_, v);
  }
  if (!sum_overflow_ && (__builtin_add_overflow(dec_sum_, v, &dec_sum_) ||
                         dec_sum_ >= kDecimalLimit || dec_sum_ <= -kDecimalLimit)) {
    sum_overflow_ = true;
  }
}

void OrcStatsBuilder::UpdateDate(int32_t days) {
  if (!have_) {
    int_min_ = int_max_ = days;
    have_ = true;
  } else {
    int_min_ = std::min<int64_t>(int_min_, days);
    int_max_ = std::max<int64_t>(int_max_, days);
  }
}

void OrcStatsBuilder::UpdateTimestamp(int64_t millis, int32_t nanos) {
  if (!have_) {
    ts_min_ = ts_max_ = millis;
    ts_min_nanos_ = ts_max_nanos_ = nanos;
    have_ = true;
    return;
  }
  if (millis < ts_min_ || (millis == ts_min_ && nanos < ts_min_nanos_)) {
    ts_min_ = millis;
    ts_min_nanos_ = nanos;
  }
  if (millis > ts_max_ || (millis == ts_max_ && nanos > ts_max_nanos_)) {
    ts_max_ = millis;
    ts_max_nanos_ = nanos;
  }
}

void OrcStatsBuilder::UpdateCollection(uint64_t children) {
  if (!have_) {
    children_min_ = children_max_ = children;
    have_ = true;
  } else {
    children_min_ = std::min(children_min_, children);
    children_max_ = std::max(children_max_, children);
  }
  children_sum_ += children;
}

void OrcStatsBuilder::Merge(const OrcStatsBuilder& o) {
  count_ += o.count_;
  has_null_ = has_null_ || o.has_null_;
  trues_ += o.trues_;
  length_sum_ += o.length_sum_;
  nan_ = nan_ || o.nan_;
  sum_overflow_ = sum_overflow_ || o.sum_overflow_;
  switch (kind_) {
    case Kind::kInteger:
      if (o.have_) {
        if (!have_) {
          int_min_ = o.int_min_;
          int_max_ = o.int_max_;
          have_ = true;
        } else {
          int_min_ = std::min(int_min_, o.int_min_);
          int_max_ = std::max(int_max_, o.int_max_);
        }
      }
      if (!sum_overflow_ && __builtin_add_overflow(int_sum_, o.int_sum_, &int_sum_)) {
        sum_overflow_ = true;
      }
      break;
    case Kind::kDate:
      if (o.have_) {
        UpdateDate(static_cast<int32_t>(o.int_min_));
        UpdateDate(static_cast<int32_t>(o.int_max_));
      }
      break;
    case Kind::kDouble:
      if (o.have_) {
        if (!have_) {
          dbl_min_ = o.dbl_min_;
          dbl_max_ = o.dbl_max_;
          have_ = true;
        } else {
          dbl_min_ = std::min(dbl_min_, o.dbl_min_);
          dbl_max_ = std::max(dbl_max_, o.dbl_max_);
        }
      }
      dbl_sum_ += o.dbl_sum_;
      break;
    case Kind::kString:
      if (o.have_) {
        if (!have_) {
          str_min_ = o.str_min_;
          str_max_ = o.str_max_;
          have_ = true;
        } else {
          if (o.str_min_ < str_min_) str_min_ = o.str_min_;
          if (o.str_max_ > str_max_) str_max_ = o.str_max_;
        }
      }
      break;
    case Kind::kDecimal:
      if (o.have_) {
        if (!have_) {
          dec_min_ = o.dec_min_;
          dec_max_ = o.dec_max_;
          have_ = true;
        } else {
          dec_min_ = std::min(dec_min_, o.dec_min_);
          dec_max_ = std::max(dec_max_, o.dec_max_);
        }
      }
      if (!sum_overflow_ && (__builtin_add_overflow(dec_sum_, o.dec_sum_, &dec_sum_) ||
                             dec_sum_ >= kDecimalLimit || dec_sum_ <= -kDecimalLimit)) {
        sum_overflow_ = true;
      }
      break;
    case Kind::kTimestamp:
      if (o.have_) {
        UpdateTimestamp(o.ts_min_, o.ts_min_nanos_);
        UpdateTimestamp(o.ts_max_, o.ts_max_nanos_);
      }
      break;
    case Kind::kCollection:
      if (o.have_) {
        if (!have_) {
          children_min_ = o.children_min_;
          children_max_ = o.children_max_;
          have_ = true;
        } else {
          children_min_ = std::min(children_min_, o.children_min_);
          children_max_ = std::max(children_max_, o.children_max_);
        }
      }
      children_sum_ += o.children_sum_;
      break;
    default:
      break;
  }
}

std::string OrcStatsBuilder::Serialize() const {
  // orc_proto.proto ColumnStatistics.
  ProtoWriter out;
  out.Uint(1, count_);
  ProtoWriter typed;
  uint32_t typed_field = 0;
  switch (kind_) {
    case Kind::kBoolean:
      typed_field = 5;  // BucketStatistics: the count of TRUE values
      if (count_ > 0) typed.Packed(1, std::vector<uint64_t>{trues_});
      break;
    case Kind::kInteger:
      typed_field = 2;
      if (have_) typed.Sint(1, int_min_).Sint(2, int_max_);
      if (have_ && !sum_overflow_) typed.Sint(3, int_sum_);
      break;
    case Kind::kDouble:
      typed_field = 3;
      // parquet-mr and Paimon drop bounds with NaN; ORC's bounds would be meaningless too.
      if (have_ && !nan_) typed.Double(1, dbl_min_).Double(2, dbl_max_);
      if (count_ > 0) typed.Double(3, dbl_sum_);
      break;
    case Kind::kString:
      typed_field = 4;
      if (have_) {
        if (str_min_.size() <= kMaxStatsString) {
          typed.Bytes(1, str_min_);
        } else {
          typed.Bytes(4, Utf8Prefix(str_min_, kMaxStatsString));  // lowerBound
        }
        // A maximum too long to keep is left out (unknown) rather than bounded.
        if (str_max_.size() <= kMaxStatsString) typed.Bytes(2, str_max_);
      }
      if (count_ > 0) typed.Sint(3, length_sum_);
      break;
    case Kind::kBinary:
      typed_field = 8;
      if (count_ > 0) typed.Sint(1, length_sum_);
      break;
    case Kind::kDecimal:
      typed_field = 6;
      if (have_)
        typed.Bytes(1, DecimalText(dec_min_, scale_)).Bytes(2, DecimalText(dec_max_, scale_));
      if (have_ && !sum_overflow_) typed.Bytes(3, DecimalText(dec_sum_, scale_));
      break;
    case Kind::kDate:
      typed_field = 7;
      if (have_) typed.Sint(1, int_min_).Sint(2, int_max_);
      break;
    case Kind::kTimestamp:
      typed_field = 9;
      if (have_) {
        typed.Sint(3, ts_min_).Sint(4, ts_max_);
        // Java leaves out the defaults (0 below the minimum's millisecond, 999999 above the
        // maximum's) and stores the others plus one.
        if (ts_min_nanos_ != 0) typed.Int32(5, ts_min_nanos_ + 1);
        if (ts_max_nanos_ != 999999) typed.Int32(6, ts_max_nanos_ + 1);
      }
      break;
    case Kind::kCollection:
      typed_field = 12;
      if (have_) typed.Uint(1, children_min_).Uint(2, children_max_).Uint(3, children_sum_);
      break;
    default:
      break;
  }
  if (typed_field != 0 && (count_ > 0 || kind_ == Kind::kBoolean)) {
    out.Bytes(typed_field, typed.str());
  }
  out.Uint(10, has_null_ ? 1 : 0);
  return out.Take();
}

// --- ColumnWriter ---------------------------------------------------------------------------

ColumnWriter::ColumnWriter(uint32_t id, EncodingKind encoding, const ColumnWriterContext& ctx,
                           OrcStatsBuilder::Kind stats_kind, int32_t scale)
    : stats_(stats_kind, scale),
      id_(id),
      encoding_(encoding),
      ctx_(ctx),
      finished_stripe_stats_(stats_kind, scale),
      file_stats_(stats_kind, scale) {}

ColumnWriter::~ColumnWriter() = default;

namespace {

Compressor* CompressorFor(const ColumnWriterContext& ctx, StreamKind kind) {
  if (kind == StreamKind::kData || kind == StreamKind::kDictionaryData) return ctx.compressor;
  return ctx.light_compressor != nullptr ? ctx.light_compressor : ctx.compressor;
}

}  // namespace

OutStream* ColumnWriter::AddStream(StreamKind kind) {
  streams_.emplace_back(kind,
                        std::make_unique<OutStream>(CompressorFor(ctx_, kind), ctx_.block_size));
  return streams_.back().second.get();
}

Status ColumnWriter::Write(const arrow::Array& array, const RowRanges& ranges) {
  int64_t rows = 0;
  for (const RowRange& r : ranges) rows += r.end - r.begin;
  if (rows == 0) return Status::OK();
  int64_t nulls = 0;
  if (array.null_count() > 0) {
    for (const RowRange& r : ranges) {
      for (int64_t i = r.begin; i < r.end; ++i) nulls += array.IsNull(i) ? 1 : 0;
    }
  }
  if (nulls > 0 && !present_active_) {
    if (!present_stream_) {
      present_stream_ =
          std::make_unique<OutStream>(CompressorFor(ctx_, StreamKind::kPresent), ctx_.block_size);
      present_ = std::make_unique<BoolRleEncoder>(present_stream_->buffer());
    }
    present_->AddRepeated(true, rows_);
    present_active_ = true;
  }
  if (present_active_) {
    if (nulls == 0) {
      present_->AddRepeated(true, rows);
    } else {
      for (const RowRange& r : ranges) {
        for (int64_t i = r.begin; i < r.end; ++i) present_->Add(array.IsValid(i));
      }
    }
  }
  rows_ += rows;
  stats_.AddValues(static_cast<uint64_t>(rows - nulls));
  if (nulls > 0) stats_.SetHasNull();
  if (rows > nulls) return WriteValues(array, ranges, nulls > 0);
  return Status::OK();
}

Status ColumnWriter::Spill() {
  if (present_active_) FJORD_RETURN_NOT_OK(present_stream_->Spill());
  for (auto& [kind, stream] : streams_) FJORD_RETURN_NOT_OK(stream->Spill());
  for (auto& child : children_) FJORD_RETURN_NOT_OK(child->Spill());
  return Status::OK();
}

uint64_t ColumnWriter::BufferedBytes() const {
  uint64_t n = present_active_ ? present_stream_->BufferedBytes() : 0;
  for (const auto& [kind, stream] : streams_) n += stream->BufferedBytes();
  for (const auto& child : children_) n += child->BufferedBytes();
  return n;
}

Status ColumnWriter::FinishStripe(std::vector<StripeStream>* streams,
                                  std::vector<EncodingKind>* encodings) {
  FlushEncoders();
  if (present_active_) {
    present_->Flush();
    FJORD_RETURN_NOT_OK(present_stream_->Finish());
    streams->push_back({id_, StreamKind::kPresent, &present_stream_->output()});
  }
  for (auto& [kind, stream] : streams_) {
    FJORD_RETURN_NOT_OK(stream->Finish());
    streams->push_back({id_, kind, &stream->output()});
  }
  if (encodings->size() <= id_) encodings->resize(id_ + 1);
  (*encodings)[id_] = encoding_;
  finished_stripe_stats_ = stats_;
  file_stats_.Merge(stats_);
  stats_.Reset();
  for (auto& child : children_) FJORD_RETURN_NOT_OK(child->FinishStripe(streams, encodings));
  return Status::OK();
}

void ColumnWriter::ResetStripe() {
  if (present_stream_) present_stream_->Reset();
  present_active_ = false;
  rows_ = 0;
  for (auto& [kind, stream] : streams_) stream->Reset();
  for (auto& child : children_) child->ResetStripe();
}

namespace {

// Calls on_value(i) for every non-NULL position of `ranges`.
template <typename OnValue>
void ForEachValue(const arrow::Array& array, const RowRanges& ranges, bool has_nulls,
                  OnValue&& on_value) {
  for (const RowRange& r : ranges) {
    if (has_nulls) {
      for (int64_t i = r.begin; i < r.end; ++i) {
        if (array.IsValid(i)) on_value(i);
      }
    } else {
      for (int64_t i = r.begin; i < r.end; ++i) on_value(i);
    }
  }
}

class BooleanWriter final : public ColumnWriter {
 public:
  BooleanWriter(uint32_t id, const ColumnWriterContext& ctx)
      : ColumnWriter(id, EncodingKind::kDirect, ctx, OrcStatsBuilder::Kind::kBoolean),
        data_(AddStream(StreamKind::kData)->buffer()) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto& a = static_cast<const arrow::BooleanArray&>(array);
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      bool v = a.Value(i);
      data_.Add(v);
      stats_.UpdateBoolean(v);
    });
    return Status::OK();
  }
  void FlushEncoders() override { data_.Flush(); }

 private:
  BoolRleEncoder data_;
};

class ByteWriter final : public ColumnWriter {
 public:
  ByteWriter(uint32_t id, const ColumnWriterContext& ctx)
      : ColumnWriter(id, EncodingKind::kDirect, ctx, OrcStatsBuilder::Kind::kInteger),
        data_(AddStream(StreamKind::kData)->buffer()) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto* values = array.data()->GetValues<int8_t>(1);
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      data_.Add(static_cast<uint8_t>(values[i]));
      stats_.UpdateInteger(values[i]);
    });
    return Status::OK();
  }
  void FlushEncoders() override { data_.Flush(); }

 private:
  ByteRleEncoder data_;
};

// SHORT, INT, LONG from int16/int32/int64; DATE from date32; TIME (INT) from time32.
template <typename T>
class IntegerWriter final : public ColumnWriter {
 public:
  IntegerWriter(uint32_t id, const ColumnWriterContext& ctx, bool is_date)
      : ColumnWriter(id, EncodingKind::kDirectV2, ctx,
                     is_date ? OrcStatsBuilder::Kind::kDate : OrcStatsBuilder::Kind::kInteger),
        is_date_(is_date),
        data_(AddStream(StreamKind::kData)->buffer(), true) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const T* values = array.data()->GetValues<T>(1);
    if (is_date_) {
      ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
        data_.Add(values[i]);
        stats_.UpdateDate(static_cast<int32_t>(values[i]));
      });
    } else {
      ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
        data_.Add(values[i]);
        stats_.UpdateInteger(values[i]);
      });
    }
    return Status::OK();
  }
  void FlushEncoders() override { data_.Flush(); }

 private:
  bool is_date_;
  IntRleV2Encoder data_;
};

template <typename T>
class FloatingWriter final : public ColumnWriter {
 public:
  FloatingWriter(uint32_t id, const ColumnWriterContext& ctx)
      : ColumnWriter(id, EncodingKind::kDirect, ctx, OrcStatsBuilder::Kind::kDouble),
        data_(AddStream(StreamKind::kData)->buffer()) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const T* values = array.data()->GetValues<T>(1);
    if (!has_nulls) {
      for (const RowRange& r : ranges) {
        // Little-endian hosts store IEEE 754 values as ORC does.
        data_->append(reinterpret_cast<const char*>(values + r.begin),
                      static_cast<size_t>(r.end - r.begin) * sizeof(T));
        for (int64_t i = r.begin; i < r.end; ++i) stats_.UpdateDouble(values[i]);
      }
      return Status::OK();
    }
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      data_->append(reinterpret_cast<const char*>(values + i), sizeof(T));
      stats_.UpdateDouble(values[i]);
    });
    return Status::OK();
  }

 private:
  std::string* data_;
};

// STRING, CHAR(n), VARCHAR(n) and BINARY, DIRECT_V2.
class BytesWriter final : public ColumnWriter {
 public:
  enum class Mode { kString, kChar, kVarchar, kBinary };

  BytesWriter(uint32_t id, const ColumnWriterContext& ctx, Mode mode, int32_t max_length)
      : ColumnWriter(id, EncodingKind::kDirectV2, ctx,
                     mode == Mode::kBinary ? OrcStatsBuilder::Kind::kBinary
                                           : OrcStatsBuilder::Kind::kString),
        mode_(mode),
        max_length_(max_length),
        data_(AddStream(StreamKind::kData)->buffer()),
        lengths_(AddStream(StreamKind::kLength)->buffer(), false) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto& a = static_cast<const arrow::BinaryArray&>(array);
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) { Add(a.GetView(i)); });
    return Status::OK();
  }
  void FlushEncoders() override { lengths_.Flush(); }

 private:
  // The byte length of the first `max` characters of UTF-8 `v`, and how many characters it has.
  static size_t Utf8Cut(std::string_view v, int64_t max, int64_t* chars) {
    int64_t n = 0;
    for (size_t i = 0; i < v.size(); ++i) {
      if ((static_cast<uint8_t>(v[i]) & 0xc0) != 0x80) {
        if (n == max) {
          *chars = n;
          return i;
        }
        ++n;
      }
    }
    *chars = n;
    return v.size();
  }

  void Add(std::string_view v) {
    if (mode_ == Mode::kChar || mode_ == Mode::kVarchar) {
      int64_t chars = 0;
      size_t cut = Utf8Cut(v, max_length_, &chars);
      v = v.substr(0, cut);
      if (mode_ == Mode::kChar && chars < max_length_) {
        // Java's CharTreeWriter: blanks up to n characters.
        padded_.assign(v);
        padded_.append(static_cast<size_t>(max_length_ - chars), ' ');
        v = padded_;
      }
    }
    data_->append(v);
    lengths_.Add(static_cast<int64_t>(v.size()));
    if (mode_ == Mode::kBinary) {
      stats_.UpdateBinary(v.size());
    } else {
      stats_.UpdateString(v);
    }
  }

  Mode mode_;
  int64_t max_length_;
  std::string* data_;
  IntRleV2Encoder lengths_;
  std::string padded_;
};

class DecimalWriter final : public ColumnWriter {
 public:
  DecimalWriter(uint32_t id, const ColumnWriterContext& ctx, int32_t scale)
      : ColumnWriter(id, EncodingKind::kDirectV2, ctx, OrcStatsBuilder::Kind::kDecimal, scale),
        scale_(scale),
        data_(AddStream(StreamKind::kData)->buffer()),
        scales_(AddStream(StreamKind::kSecondary)->buffer(), true) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto& a = static_cast<const arrow::FixedSizeBinaryArray&>(array);
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      Int128 v;
      std::memcpy(&v, a.GetValue(i), sizeof v);  // little-endian two's complement
      // Zigzag, then base-128 varint of up to 128 bits.
      auto u = (static_cast<UInt128>(v) << 1) ^ static_cast<UInt128>(v >> 127);
      while (u >= 0x80) {
        data_->push_back(static_cast<char>((static_cast<unsigned>(u) & 0x7f) | 0x80));
        u >>= 7;
      }
      data_->push_back(static_cast<char>(u));
      scales_.Add(scale_);
      stats_.UpdateDecimal(v);
    });
    return Status::OK();
  }
  void FlushEncoders() override { scales_.Flush(); }

 private:
  int32_t scale_;
  std::string* data_;
  IntRleV2Encoder scales_;
};

class TimestampWriter final : public ColumnWriter {
 public:
  TimestampWriter(uint32_t id, const ColumnWriterContext& ctx, int64_t per_second)
      : ColumnWriter(id, EncodingKind::kDirectV2, ctx, OrcStatsBuilder::Kind::kTimestamp),
        per_second_(per_second),
        seconds_(AddStream(StreamKind::kData)->buffer(), true),
        nanos_(AddStream(StreamKind::kSecondary)->buffer(), false) {}

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto* values = array.data()->GetValues<int64_t>(1);
    const int64_t nanos_per_unit = 1000000000 / per_second_;
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      int64_t v = values[i];
      int64_t s = v / per_second_;
      int64_t rem = v % per_second_;
      if (rem < 0) {
        --s;
        rem += per_second_;
      }
      auto nanos = static_cast<int32_t>(rem * nanos_per_unit);
      TimestampParts parts = OrcTimestampParts(s, nanos);
      seconds_.Add(parts.seconds - kOrcTimestampBase);
      nanos_.Add(static_cast<int64_t>(FormatOrcNanos(parts.nanos)));
      // The statistics hold the value as ORC's readers return it (see OrcTimestampParts).
      Int128 millis = static_cast<Int128>(parts.seconds) * 1000 + parts.nanos / 1000000;
      if (millis < 0 && parts.nanos > 999999) millis -= 1000;
      millis = std::clamp<Int128>(millis, INT64_MIN, INT64_MAX);
      stats_.UpdateTimestamp(static_cast<int64_t>(millis), parts.nanos % 1000000);
    });
    return Status::OK();
  }
  void FlushEncoders() override {
    seconds_.Flush();
    nanos_.Flush();
  }

 private:
  int64_t per_second_;
  IntRleV2Encoder seconds_;
  IntRleV2Encoder nanos_;
};

// The positions among `ranges` where `array` is not NULL, as ranges.
RowRanges ValidRanges(const arrow::Array& array, const RowRanges& ranges) {
  RowRanges out;
  for (const RowRange& r : ranges) {
    for (int64_t i = r.begin; i < r.end; ++i) {
      if (!array.IsValid(i)) continue;
      if (!out.empty() && out.back().end == i) {
        ++out.back().end;
      } else {
        out.push_back({i, i + 1});
      }
    }
  }
  return out;
}

class StructWriter final : public ColumnWriter {
 public:
  StructWriter(uint32_t id, const ColumnWriterContext& ctx)
      : ColumnWriter(id, EncodingKind::kDirect, ctx, OrcStatsBuilder::Kind::kNone) {}

  void AddChild(std::unique_ptr<ColumnWriter> child) { children_.push_back(std::move(child)); }

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto& a = static_cast<const arrow::StructArray&>(array);
    RowRanges valid = has_nulls ? ValidRanges(array, ranges) : RowRanges();
    const RowRanges& rows = has_nulls ? valid : ranges;
    for (size_t f = 0; f < children_.size(); ++f) {
      FJORD_RETURN_NOT_OK(children_[f]->Write(*a.field(static_cast<int>(f)), rows));
    }
    return Status::OK();
  }
};

// LIST (one child) and MAP (key and value children).
class ListWriter final : public ColumnWriter {
 public:
  ListWriter(uint32_t id, const ColumnWriterContext& ctx)
      : ColumnWriter(id, EncodingKind::kDirectV2, ctx, OrcStatsBuilder::Kind::kCollection),
        lengths_(AddStream(StreamKind::kLength)->buffer(), false) {}

  void AddChild(std::unique_ptr<ColumnWriter> child) { children_.push_back(std::move(child)); }

 protected:
  Status WriteValues(const arrow::Array& array, const RowRanges& ranges, bool has_nulls) override {
    const auto& a = static_cast<const arrow::ListArray&>(array);
    const int32_t* offsets = a.raw_value_offsets();
    RowRanges entries;
    ForEachValue(array, ranges, has_nulls, [&](int64_t i) {
      int64_t begin = offsets[i];
      int64_t end = offsets[i + 1];
      lengths_.Add(end - begin);
      stats_.UpdateCollection(static_cast<uint64_t>(end - begin));
      if (end == begin) return;
      if (!entries.empty() && entries.back().end == begin) {
        entries.back().end = end;
      } else {
        entries.push_back({begin, end});
      }
    });
    if (children_.size() == 1) return children_[0]->Write(*a.values(), entries);
    const auto& map = static_cast<const arrow::MapArray&>(array);
    FJORD_RETURN_NOT_OK(children_[0]->Write(*map.keys(), entries));
    return children_[1]->Write(*map.items(), entries);
  }
  void FlushEncoders() override { lengths_.Flush(); }

 private:
  IntRleV2Encoder lengths_;
};

}  // namespace

Result<std::unique_ptr<ColumnWriter>> ColumnWriter::Make(const DataType& type,
                                                         std::optional<int32_t> paimon_id,
                                                         int32_t base, int depth,
                                                         const ColumnWriterContext& ctx,
                                                         std::vector<OrcTypeNode>* types,
                                                         std::vector<ColumnWriter*>* writers) {
  auto id = static_cast<uint32_t>(types->size());
  types->emplace_back();
  types->back().paimon_id = paimon_id;
  writers->push_back(nullptr);
  auto node = [&]() -> OrcTypeNode& { return (*types)[id]; };  // `types` grows below
  std::unique_ptr<ColumnWriter> writer;
  switch (type.root()) {
    case TypeRoot::kBoolean:
      node().kind = OrcTypeKind::kBoolean;
      writer = std::make_unique<BooleanWriter>(id, ctx);
      break;
    case TypeRoot::kTinyInt:
      node().kind = OrcTypeKind::kByte;
      writer = std::make_unique<ByteWriter>(id, ctx);
      break;
    case TypeRoot::kSmallInt:
      node().kind = OrcTypeKind::kShort;
      writer = std::make_unique<IntegerWriter<int16_t>>(id, ctx, false);
      break;
    case TypeRoot::kInt:
      node().kind = OrcTypeKind::kInt;
      writer = std::make_unique<IntegerWriter<int32_t>>(id, ctx, false);
      break;
    case TypeRoot::kTime:
      // ORC has no TIME: Java writes the milliseconds of the day as INT.
      node().kind = OrcTypeKind::kInt;
      writer = std::make_unique<IntegerWriter<int32_t>>(id, ctx, false);
      break;
    case TypeRoot::kBigInt:
      node().kind = OrcTypeKind::kLong;
      writer = std::make_unique<IntegerWriter<int64_t>>(id, ctx, false);
      break;
    case TypeRoot::kDate:
      node().kind = OrcTypeKind::kDate;
      writer = std::make_unique<IntegerWriter<int32_t>>(id, ctx, true);
      break;
    case TypeRoot::kFloat:
      node().kind = OrcTypeKind::kFloat;
      writer = std::make_unique<FloatingWriter<float>>(id, ctx);
      break;
    case TypeRoot::kDouble:
      node().kind = OrcTypeKind::kDouble;
      writer = std::make_unique<FloatingWriter<double>>(id, ctx);
      break;
    case TypeRoot::kDecimal:
      if (type.precision() < 1 || type.precision() > 38) {
        return Status::NotImplemented("ORC data files cannot hold ", type.ToString());
      }
      node().kind = OrcTypeKind::kDecimal;
      node().precision = static_cast<uint32_t>(type.precision());
      node().scale = static_cast<uint32_t>(type.scale());
      writer = std::make_unique<DecimalWriter>(id, ctx, type.scale());
      break;
    case TypeRoot::kChar:
      node().kind = OrcTypeKind::kChar;
      node().maximum_length = static_cast<uint32_t>(type.length());
      writer = std::make_unique<BytesWriter>(id, ctx, BytesWriter::Mode::kChar, type.length());
      break;
    case TypeRoot::kVarChar:
      if (type.length() == DataType::kMaxLength) {
        node().kind = OrcTypeKind::kString;
        writer = std::make_unique<BytesWriter>(id, ctx, BytesWriter::Mode::kString, 0);
      } else {
        node().kind = OrcTypeKind::kVarchar;
        node().maximum_length = static_cast<uint32_t>(type.length());
        writer = std::make_unique<BytesWriter>(id, ctx, BytesWriter::Mode::kVarchar, type.length());
      }
      break;
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
    case TypeRoot::kBlob:
    case TypeRoot::kVariant:
      node().kind = OrcTypeKind::kBinary;
      writer = std::make_unique<BytesWriter>(id, ctx, BytesWriter::Mode::kBinary, 0);
      break;
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      node().kind = type.root() == TypeRoot::kTimestamp ? OrcTypeKind::kTimestamp
                                                        : OrcTypeKind::kTimestampInstant;
      int64_t per_second = type.precision() <= 3   ? 1000
                           : type.precision() <= 6 ? 1000000
                                                   : 1000000000;
      writer = std::make_unique<TimestampWriter>(id, ctx, per_second);
      break;
    }
    case TypeRoot::kArray:
    case TypeRoot::kVector: {
      node().kind = OrcTypeKind::kList;
      auto list = std::make_unique<ListWriter>(id, ctx);
      FJORD_ASSIGN_OR_RAISE(auto element, Make(*type.element(), ArrayElementId(base, depth + 1),
                                               base, depth + 1, ctx, types, writers));
      node().subtypes.push_back(element->id());
      list->AddChild(std::move(element));
      writer = std::move(list);
      break;
    }
    case TypeRoot::kMap:
    case TypeRoot::kMultiset: {
      node().kind = OrcTypeKind::kMap;
      bool is_map = type.root() == TypeRoot::kMap;
      DataTypePtr count = DataType::Int(false);
      const DataType& key_type = is_map ? *type.key() : *type.element();
      const DataType& value_type = is_map ? *type.value() : *count;
      auto map = std::make_unique<ListWriter>(id, ctx);
      FJORD_ASSIGN_OR_RAISE(auto key, Make(key_type, MapKeyId(base, depth + 1), base, depth + 1,
                                           ctx, types, writers));
      node().subtypes.push_back(key->id());
      map->AddChild(std::move(key));
      FJORD_ASSIGN_OR_RAISE(auto value, Make(value_type, ArrayElementId(base, depth + 1), base,
                                             depth + 1, ctx, types, writers));
      node().subtypes.push_back(value->id());
      map->AddChild(std::move(value));
      writer = std::move(map);
      break;
    }
    case TypeRoot::kRow: {
      node().kind = OrcTypeKind::kStruct;
      auto st = std::make_unique<StructWriter>(id, ctx);
      for (const DataField& f : type.fields()) {
        FJORD_ASSIGN_OR_RAISE(auto child, Make(*f.type, f.id, f.id, 0, ctx, types, writers));
        node().subtypes.push_back(child->id());
        node().field_names.push_back(f.name);
        st->AddChild(std::move(child));
      }
      writer = std::move(st);
      break;
    }
  }
  if (!writer) return Status::NotImplemented("ORC data files cannot hold ", type.ToString());
  (*writers)[id] = writer.get();
  return writer;
}

}  // namespace fjord::orc
