#include "fjord/table/write/row_router.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <numeric>
#include <string_view>
#include <unordered_map>

#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"
#include "fjord/format/bucket.h"

namespace fjord {

namespace {

// Rows encoded per round: the key rows of a chunk stay in cache while they are hashed and grouped.
constexpr int64_t kChunkRows = 4096;
// Longest string or binary stored inside its slot (spec/format.md §5).
constexpr size_t kMaxInlineBytes = 7;
// Rows are offsets into one buffer of at most this size ((offset << 32) | length slots).
constexpr uint64_t kMaxRowBytes = static_cast<uint64_t>(INT32_MAX);

constexpr uint64_t RoundToWord(uint64_t n) { return (n + 7) & ~uint64_t{7}; }

// How one key column is written, decided once per batch.
enum class Kind : uint8_t {
  kBoolean,
  kInt8,
  kInt16,
  kInt32,  // INT, DATE, TIME
  kInt64,
  kFloat,
  kDouble,
  kBytes,  // CHAR, VARCHAR, BINARY, VARBINARY
  kCompactDecimal,
  kWideDecimal,  // 16 reserved variable bytes, null or not
  kCompactTimestamp,
  kWideTimestamp,  // 8 reserved variable bytes, null or not
  kGeneric,        // nested and other types: the row-at-a-time Value path
};

struct KeyColumn {
  const arrow::Array* array = nullptr;
  const DataType* type = nullptr;
  Kind kind = Kind::kGeneric;
  int64_t per_milli = 1;  // timestamps: units per millisecond; 0 for seconds
};

// The Kind of a column whose canonical Arrow type (arrow_types.h) the array must have; Invalid
// when it has another type.
Result<Kind> KindOf(const arrow::Array& array, const DataType& type, int64_t* per_milli) {
  const arrow::Type::type id = array.type_id();
  auto expect = [&](bool ok, Kind kind) -> Result<Kind> {
    if (ok) return kind;
    return Status::Invalid("a ", type.ToString(), " column cannot be routed from Arrow type ",
                           array.type()->ToString(), " (the canonical form is expected)");
  };
  switch (type.root()) {
    case TypeRoot::kBoolean:
      return expect(id == arrow::Type::BOOL, Kind::kBoolean);
    case TypeRoot::kTinyInt:
      return expect(id == arrow::Type::INT8, Kind::kInt8);
    case TypeRoot::kSmallInt:
      return expect(id == arrow::Type::INT16, Kind::kInt16);
    case TypeRoot::kInt:
      return expect(id == arrow::Type::INT32, Kind::kInt32);
    case TypeRoot::kDate:
      return expect(id == arrow::Type::DATE32, Kind::kInt32);
    case TypeRoot::kTime:
      return expect(id == arrow::Type::TIME32, Kind::kInt32);
    case TypeRoot::kBigInt:
      return expect(id == arrow::Type::INT64, Kind::kInt64);
    case TypeRoot::kFloat:
      return expect(id == arrow::Type::FLOAT, Kind::kFloat);
    case TypeRoot::kDouble:
      return expect(id == arrow::Type::DOUBLE, Kind::kDouble);
    case TypeRoot::kChar:
    case TypeRoot::kVarChar:
    case TypeRoot::kBinary:
    case TypeRoot::kVarBinary:
      // utf8 and binary share one layout.
      return expect(id == arrow::Type::STRING || id == arrow::Type::BINARY, Kind::kBytes);
    case TypeRoot::kDecimal:
      return expect(id == arrow::Type::DECIMAL128,
                    type.precision() <= DataType::kCompactDecimalPrecision ? Kind::kCompactDecimal
                                                                           : Kind::kWideDecimal);
    case TypeRoot::kTimestamp:
    case TypeRoot::kTimestampLtz: {
      if (id != arrow::Type::TIMESTAMP) return expect(false, Kind::kGeneric);
      switch (static_cast<const arrow::TimestampType&>(*array.type()).unit()) {
        case arrow::TimeUnit::SECOND:
          *per_milli = 0;
          break;
        case arrow::TimeUnit::MILLI:
          *per_milli = 1;
          break;
        case arrow::TimeUnit::MICRO:
          *per_milli = 1000;
          break;
        case arrow::TimeUnit::NANO:
          *per_milli = 1000000;
          break;
      }
      return type.precision() <= DataType::kCompactTimestampPrecision ? Kind::kCompactTimestamp
                                                                      : Kind::kWideTimestamp;
    }
    default:
      return Kind::kGeneric;
  }
}

// (millis, nanos of millisecond) of a timestamp value, as ValueFromArrow computes them.
inline void SplitTimestamp(int64_t v, int64_t per_milli, int64_t* millis, int64_t* nanos) {
  if (per_milli == 0) {
    *millis = v * 1000;
    *nanos = 0;
    return;
  }
  int64_t q = v / per_milli;
  if ((v % per_milli != 0) && (v < 0)) --q;  // floor
  *millis = q;
  *nanos = (v - q * per_milli) * (1000000 / per_milli);
}

template <typename T>
inline void Store(char* p, T v) {
  std::memcpy(p, &v, sizeof(T));
}

// Encodes the key rows (stored BinaryRow without the arity prefix) of a record batch a chunk at a
// time, column by column: per column one switch on its kind, then a typed loop over the rows.
// Two passes when strings can spill to the variable part: first every row's size (so the rows can
// be laid out back to back), then the values. Columns of kinds without a typed loop (nested
// types) make the whole key take the row-at-a-time Value path, with the same bytes.
class KeyRowEncoder {
 public:
  static Result<KeyRowEncoder> Make(const arrow::RecordBatch& batch,
                                    const std::vector<int>& indices,
                                    const std::vector<DataTypePtr>& types) {
    KeyRowEncoder e;
    e.arity_ = static_cast<int32_t>(indices.size());
    e.null_bits_ = static_cast<size_t>(BinaryRowNullBitsSize(e.arity_));
    e.fixed_ = static_cast<size_t>(BinaryRowFixedPartSize(e.arity_));
    e.row_size_ = e.fixed_;
    for (size_t j = 0; j < indices.size(); ++j) {
      if (indices[j] < 0 || indices[j] >= batch.num_columns()) {
        return Status::Invalid("key column ", indices[j], " is not in a batch of ",
                               batch.num_columns(), " columns");
      }
      KeyColumn c;
      c.array = batch.column(indices[j]).get();
      c.type = types[j].get();
      FJORD_ASSIGN_OR_RAISE(c.kind, KindOf(*c.array, *c.type, &c.per_milli));
      if (c.kind == Kind::kGeneric) e.generic_ = true;
      if (c.kind == Kind::kBytes) e.fixed_size_ = false;
      if (c.kind == Kind::kWideDecimal) e.row_size_ += 16;
      if (c.kind == Kind::kWideTimestamp) e.row_size_ += 8;
      e.columns_.push_back(c);
    }
    if (e.generic_) {
      e.fixed_size_ = false;
      e.writer_ = std::make_unique<BinaryRowWriter>(e.arity_);
      e.values_.resize(indices.size());
    }
    return e;
  }

  int32_t arity() const { return arity_; }

  // Encodes rows [begin, end); Row(i) is then row begin + i.
  Status Encode(int64_t begin, int64_t end) {
    const int64_t m = end - begin;
    if (generic_) return EncodeGeneric(begin, m);
    if (fixed_size_) {
      buf_.assign(static_cast<size_t>(m) * row_size_, '\0');
    } else {
      FJORD_RETURN_NOT_OK(LayOut(begin, m));
    }
    // Variable parts start right after the fixed part, in column order.
    cursors_.resize(static_cast<size_t>(m));
    for (int64_t i = 0; i < m; ++i) cursors_[static_cast<size_t>(i)] = RowStart(i) + fixed_;
    for (size_t j = 0; j < columns_.size(); ++j) {
      FJORD_RETURN_NOT_OK(EncodeColumn(j, begin, m));
    }
    return Status::OK();
  }

  std::string_view Row(int64_t i) const {
    size_t start = RowStart(i);
    size_t size = fixed_size_ ? row_size_ : offsets_[static_cast<size_t>(i) + 1] - start;
    return std::string_view(buf_.data() + start, size);
  }

 private:
  size_t RowStart(int64_t i) const {
    return fixed_size_ ? static_cast<size_t>(i) * row_size_ : offsets_[static_cast<size_t>(i)];
  }

  // Sizes every row (strings longer than 7 bytes spill, rounded to words), then zeroes them.
  Status LayOut(int64_t begin, int64_t m) {
    sizes_.assign(static_cast<size_t>(m), row_size_);
    for (const KeyColumn& c : columns_) {
      if (c.kind != Kind::kBytes) continue;
      const auto& a = static_cast<const arrow::BinaryArray&>(*c.array);
      const int32_t* offsets = a.raw_value_offsets();
      const bool nulls = a.null_count() > 0;
      for (int64_t i = 0; i < m; ++i) {
        int64_t r = begin + i;
        auto len = static_cast<uint64_t>(offsets[r + 1] - offsets[r]);
        if (len > kMaxInlineBytes && !(nulls && a.IsNull(r))) {
          sizes_[static_cast<size_t>(i)] += RoundToWord(len);
        }
      }
    }
    offsets_.resize(static_cast<size_t>(m) + 1);
    uint64_t total = 0;
    for (int64_t i = 0; i < m; ++i) {
      offsets_[static_cast<size_t>(i)] = total;
      uint64_t size = sizes_[static_cast<size_t>(i)];
      if (size > kMaxRowBytes) {
        return Status::Invalid("a key row of row ", begin + i, " would take ", size,
                               " bytes, more than 2 GiB");
      }
      total += size;
    }
    offsets_[static_cast<size_t>(m)] = total;
    buf_.assign(total, '\0');
    return Status::OK();
  }

  // Calls f(i, row) for every non-null row and null(i) for every null one, i relative to begin.
  template <typename F, typename N>
  static void ForRows(const arrow::Array& a, int64_t begin, int64_t m, F&& f, N&& null) {
    if (a.null_count() == 0) {
      for (int64_t i = 0; i < m; ++i) f(i, begin + i);
      return;
    }
    for (int64_t i = 0; i < m; ++i) {
      if (a.IsNull(begin + i)) {
        null(i);
      } else {
        f(i, begin + i);
      }
    }
  }

  template <typename T>
  void FixedColumn(const arrow::Array& a, size_t slot, size_t bit, int64_t begin, int64_t m) {
    const T* values = a.data()->GetValues<T>(1);
    char* buf = buf_.data();
    ForRows(
        a, begin, m, [&](int64_t i, int64_t r) { Store<T>(buf + RowStart(i) + slot, values[r]); },
        [&](int64_t i) { SetNullBit(i, bit); });
  }

  void SetNullBit(int64_t i, size_t bit) {
    buf_[RowStart(i) + (bit >> 3)] |= static_cast<char>(1u << (bit & 7));
  }

  // A null with reserved variable bytes: offset of the reservation in the slot, length 0.
  void ReserveNull(int64_t i, size_t slot, size_t bit, size_t reserve) {
    SetNullBit(i, bit);
    size_t start = RowStart(i);
    size_t& cursor = cursors_[static_cast<size_t>(i)];
    Store<uint64_t>(buf_.data() + start + slot, static_cast<uint64_t>(cursor - start) << 32);
    cursor += reserve;
  }

  Status EncodeColumn(size_t j, int64_t begin, int64_t m) {
    const KeyColumn& c = columns_[j];
    const arrow::Array& a = *c.array;
    const size_t slot = null_bits_ + 8 * j;
    const size_t bit = j + 8;
    char* buf = buf_.data();
    auto null = [&](int64_t i) { SetNullBit(i, bit); };
    switch (c.kind) {
      case Kind::kBoolean: {
        const auto& b = static_cast<const arrow::BooleanArray&>(a);
        ForRows(
            a, begin, m,
            [&](int64_t i, int64_t r) { buf[RowStart(i) + slot] = b.Value(r) ? 1 : 0; }, null);
        return Status::OK();
      }
      case Kind::kInt8:
        FixedColumn<int8_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kInt16:
        FixedColumn<int16_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kInt32:
        FixedColumn<int32_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kInt64:
        FixedColumn<int64_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kFloat:
        // The bits as they are: BinaryRowWriter does not canonicalise NaN (arrays do).
        FixedColumn<uint32_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kDouble:
        FixedColumn<uint64_t>(a, slot, bit, begin, m);
        return Status::OK();
      case Kind::kBytes: {
        const auto& s = static_cast<const arrow::BinaryArray&>(a);
        const int32_t* offsets = s.raw_value_offsets();
        const uint8_t* data = s.raw_data();
        ForRows(
            a, begin, m,
            [&](int64_t i, int64_t r) {
              const size_t start = RowStart(i);
              const uint8_t* p = data + offsets[r];
              auto len = static_cast<size_t>(offsets[r + 1] - offsets[r]);
              if (len <= kMaxInlineBytes) {
                if (len > 0) std::memcpy(buf + start + slot, p, len);
                buf[start + slot + 7] = static_cast<char>(0x80 | len);
                return;
              }
              size_t& cursor = cursors_[static_cast<size_t>(i)];
              std::memcpy(buf + cursor, p, len);
              Store<uint64_t>(buf + start + slot,
                              (static_cast<uint64_t>(cursor - start) << 32) | len);
              cursor += RoundToWord(len);
            },
            null);
        return Status::OK();
      }
      case Kind::kCompactDecimal:
      case Kind::kWideDecimal: {
        const auto& d = static_cast<const arrow::Decimal128Array&>(a);
        const int32_t precision = c.type->precision();
        const bool wide = c.kind == Kind::kWideDecimal;
        Status st;
        ForRows(
            a, begin, m,
            [&](int64_t i, int64_t r) {
              Int128 v;
              std::memcpy(&v, d.GetValue(r), 16);  // both little-endian two's complement
              if (!Decimal{v, precision, c.type->scale()}.FitsPrecision()) {
                if (st.ok()) {
                  st =
                      Status::Invalid("decimal ", Decimal{v, precision, c.type->scale()}.ToString(),
                                      " of row ", r, " does not fit ", c.type->ToString());
                }
                return;
              }
              const size_t start = RowStart(i);
              if (!wide) {
                Store<int64_t>(buf + start + slot, static_cast<int64_t>(v));
                return;
              }
              size_t& cursor = cursors_[static_cast<size_t>(i)];
              char bytes[16];
              size_t n = UnscaledDecimalBytes(v, bytes);
              std::memcpy(buf + cursor, bytes, n);
              Store<uint64_t>(buf + start + slot,
                              (static_cast<uint64_t>(cursor - start) << 32) | n);
              cursor += 16;
            },
            [&](int64_t i) {
              if (wide) {
                ReserveNull(i, slot, bit, 16);
              } else {
                SetNullBit(i, bit);
              }
            });
        return st;
      }
      case Kind::kCompactTimestamp:
      case Kind::kWideTimestamp: {
        const int64_t* values = a.data()->GetValues<int64_t>(1);
        const int64_t per_milli = c.per_milli;
        const bool wide = c.kind == Kind::kWideTimestamp;
        ForRows(
            a, begin, m,
            [&](int64_t i, int64_t r) {
              int64_t millis = 0, nanos = 0;
              SplitTimestamp(values[r], per_milli, &millis, &nanos);
              const size_t start = RowStart(i);
              if (!wide) {
                Store<int64_t>(buf + start + slot, millis);
                return;
              }
              size_t& cursor = cursors_[static_cast<size_t>(i)];
              Store<int64_t>(buf + cursor, millis);
              Store<uint64_t>(buf + start + slot, (static_cast<uint64_t>(cursor - start) << 32) |
                                                      static_cast<uint64_t>(nanos));
              cursor += 8;
            },
            [&](int64_t i) {
              if (wide) {
                ReserveNull(i, slot, bit, 8);
              } else {
                SetNullBit(i, bit);
              }
            });
        return Status::OK();
      }
      case Kind::kGeneric:
        break;
    }
    return Status::Internal("no typed loop for ", c.type->ToString());
  }

  // The row-at-a-time path (nested key columns): Values through BinaryRowWriter.
  Status EncodeGeneric(int64_t begin, int64_t m) {
    buf_.clear();
    offsets_.assign(1, 0);
    for (int64_t i = 0; i < m; ++i) {
      int64_t r = begin + i;
      writer_->Reset();
      for (size_t j = 0; j < columns_.size(); ++j) {
        const KeyColumn& c = columns_[j];
        FJORD_ASSIGN_OR_RAISE(values_[j], ValueFromArrow(*c.array, r, *c.type));
        FJORD_RETURN_NOT_OK(writer_->WriteValue(static_cast<int32_t>(j), values_[j], *c.type));
      }
      if (writer_->data().size() > kMaxRowBytes) {
        return Status::Invalid("a key row of row ", r, " is more than 2 GiB");
      }
      buf_.append(writer_->data());
      offsets_.push_back(buf_.size());
    }
    return Status::OK();
  }

  int32_t arity_ = 0;
  size_t null_bits_ = 0;
  size_t fixed_ = 0;
  size_t row_size_ = 0;     // fixed part plus reserved decimal/timestamp bytes
  bool fixed_size_ = true;  // no strings: every row is row_size_ bytes
  bool generic_ = false;
  std::vector<KeyColumn> columns_;
  std::string buf_;
  std::vector<uint64_t> sizes_;    // per row of the chunk
  std::vector<uint64_t> offsets_;  // per row of the chunk, plus the end
  std::vector<size_t> cursors_;    // per row: where its next variable bytes go
  std::unique_ptr<BinaryRowWriter> writer_;
  std::vector<Value> values_;
};

// Distinct partition rows -> dense index (first-seen order). Open addressing over (hash, index)
// pairs; rows are compared only when their hashes are equal. Not Java's hash: any good hash of
// the bytes does, and rows are whole 8-byte words, so the hash takes a word at a time.
class PartitionDictionary {
 public:
  explicit PartitionDictionary(int32_t arity) : arity_(arity) { slots_.resize(kInitialSlots); }

  static uint64_t Hash(std::string_view row) {
    constexpr uint64_t kMul = 0x9e3779b97f4a7c15ull;
    uint64_t h = row.size() * kMul;
    size_t i = 0;
    for (; i + 8 <= row.size(); i += 8) {
      uint64_t w;
      std::memcpy(&w, row.data() + i, 8);
      h = (h ^ w) * kMul;
      h ^= h >> 29;
    }
    for (; i < row.size(); ++i) h = (h ^ static_cast<unsigned char>(row[i])) * kMul;
    h ^= h >> 32;
    return h * kMul;
  }

  // The index of `row` (hash `h`), adding it as the next index when new.
  int32_t FindOrAdd(std::string_view row, uint64_t h) {
    size_t mask = slots_.size() - 1;
    for (size_t i = static_cast<size_t>(h >> 7) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (s.index < 0) {
        s.hash = h;
        s.index = static_cast<int32_t>(rows_.size());
        rows_.push_back(WithArityPrefix(row, arity_));
        if (rows_.size() * 2 > slots_.size()) Grow();
        return static_cast<int32_t>(rows_.size() - 1);
      }
      if (s.hash == h && Equal(Row(s.index), row)) return s.index;
    }
  }

  // Row equality, a word at a time (rows are whole words; short calls beat memcmp here).
  static bool Equal(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    size_t i = 0;
    for (; i + 8 <= a.size(); i += 8) {
      uint64_t x, y;
      std::memcpy(&x, a.data() + i, 8);
      std::memcpy(&y, b.data() + i, 8);
      if (x != y) return false;
    }
    return a.substr(i) == b.substr(i);
  }

  // The row of an index, without its arity prefix.
  std::string_view Row(int32_t index) const {
    return std::string_view(rows_[static_cast<size_t>(index)]).substr(4);
  }
  // Stored partitions (with the arity prefix), by index.
  std::vector<std::string>& stored() { return rows_; }

 private:
  static constexpr size_t kInitialSlots = 64;
  struct Slot {
    uint64_t hash = 0;
    int32_t index = -1;
  };

  void Grow() {
    std::vector<Slot> old = std::move(slots_);
    slots_.assign(old.size() * 2, Slot{});
    size_t mask = slots_.size() - 1;
    for (const Slot& s : old) {
      if (s.index < 0) continue;
      size_t i = static_cast<size_t>(s.hash >> 7) & mask;
      while (slots_[i].index >= 0) i = (i + 1) & mask;
      slots_[i] = s;
    }
  }

  int32_t arity_;
  std::vector<Slot> slots_;
  std::vector<std::string> rows_;
};

// Java's bucket of a hash, abs(hash % n) (bucket.h: BucketOfHash), without a division per row:
// that is |hash| mod n, computed with Lemire's "fastmod" (exact for every 32-bit value and n).
class BucketOfHashes {
 public:
  explicit BucketOfHashes(int32_t n)
      : n_(static_cast<uint32_t>(n)), m_(~uint64_t{0} / static_cast<uint32_t>(n) + 1) {}

  int32_t operator()(int32_t hash) const {
    __extension__ typedef unsigned __int128 U128;
    uint32_t a = hash < 0 ? 0u - static_cast<uint32_t>(hash) : static_cast<uint32_t>(hash);
    uint64_t low = m_ * a;
    return static_cast<int32_t>((static_cast<U128>(low) * n_) >> 64);
  }

 private:
  uint32_t n_;
  uint64_t m_;  // 0 for n = 1, which gives 0
};

}  // namespace

Result<RowRouter> RowRouter::Make(const TableSchema& schema, const CoreOptions& options) {
  RowRouter r;
  const int32_t buckets = options.bucket();
  if (buckets == 0 || buckets < -2) {
    return Status::Invalid("option 'bucket' must be -1 or a positive count, got ", buckets);
  }
  if (!schema.primary_keys.empty() && buckets == -2) {
    return Status::NotImplemented(
        "writing primary-key tables with bucket = -2 (postponed buckets) is not supported yet; "
        "use dynamic buckets ('bucket' = -1) or a fixed bucket count ('bucket' = N > 0)");
  }
  if (!schema.primary_keys.empty() && buckets == -1) {
    for (const std::string& p : schema.partition_keys) {
      if (std::find(schema.primary_keys.begin(), schema.primary_keys.end(), p) ==
          schema.primary_keys.end()) {
        return Status::NotImplemented(
            "writing a dynamic-bucket table whose primary key does not hold partition key '", p,
            "' (cross-partition upsert, Java's global index) is not supported; add the partition "
            "keys to the primary key or use a fixed bucket count ('bucket' = N > 0)");
      }
    }
    r.dynamic_ = true;
  }
  if (buckets == -2) return Status::Invalid("bucket = -2 is only valid for primary-key tables");
  r.total_buckets_ = buckets;
  for (const std::string& p : schema.partition_keys) {
    int i = schema.FieldIndex(p);
    if (i < 0) return Status::Invalid("partition key '", p, "' is not a column");
    r.partition_columns_.push_back(i);
    r.partition_types_.push_back(schema.fields[static_cast<size_t>(i)].type->WithNullable(true));
  }
  if (buckets > 0 || r.dynamic_) {
    // Dynamic buckets hash the trimmed primary key (Java's DynamicBucketRowKeyExtractor).
    const std::vector<std::string>& bucket_key = options.bucket_key();
    std::vector<std::string> keys =
        r.dynamic_ || bucket_key.empty() ? schema.TrimmedPrimaryKeys() : bucket_key;
    for (const std::string& b : keys) {
      int i = schema.FieldIndex(b);
      if (i < 0) return Status::Invalid("bucket key '", b, "' is not a column");
      r.bucket_columns_.push_back(i);
      r.bucket_types_.push_back(schema.fields[static_cast<size_t>(i)].type);
    }
  }
  return r;
}

Result<std::map<PartitionBucket, std::vector<int64_t>>> RowRouter::Route(
    const arrow::RecordBatch& rows, BucketAssigner* assigner) const {
  if (dynamic_ && !assigner) {
    return Status::Invalid("routing rows of a dynamic-bucket table needs a bucket assigner");
  }
  std::map<PartitionBucket, std::vector<int64_t>> groups;
  const int64_t n = rows.num_rows();
  if (n == 0) return groups;
  const auto num = static_cast<size_t>(n);

  // 1. Per row: the partition's index (first-seen order) and the bucket.
  PartitionDictionary partitions(static_cast<int32_t>(partition_columns_.size()));
  std::vector<int32_t> group(num, 0);  // partition index, then group index
  std::vector<int32_t> bucket;
  const bool partitioned = !partition_columns_.empty();
  const bool bucketed = total_buckets_ > 0 || dynamic_;
  if (!partitioned) {
    std::string_view empty = BinaryRowWriter(0).data();
    partitions.FindOrAdd(empty, PartitionDictionary::Hash(empty));
  }
  if (partitioned || bucketed) {
    FJORD_ASSIGN_OR_RAISE(KeyRowEncoder penc,
                          KeyRowEncoder::Make(rows, partition_columns_, partition_types_));
    FJORD_ASSIGN_OR_RAISE(KeyRowEncoder benc,
                          KeyRowEncoder::Make(rows, bucket_columns_, bucket_types_));
    if (bucketed) bucket.resize(num);
    const BucketOfHashes bucket_of(total_buckets_ > 0 ? total_buckets_ : 1);
    int32_t previous = -1;
    for (int64_t begin = 0; begin < n; begin += kChunkRows) {
      const int64_t end = std::min(n, begin + kChunkRows);
      if (partitioned) {
        FJORD_RETURN_NOT_OK(penc.Encode(begin, end));
        for (int64_t r = begin; r < end; ++r) {
          std::string_view row = penc.Row(r - begin);
          // Runs of one partition are common (sorted or single-partition input): no hashing.
          if (previous < 0 || !PartitionDictionary::Equal(partitions.Row(previous), row)) {
            previous = partitions.FindOrAdd(row, PartitionDictionary::Hash(row));
          }
          group[static_cast<size_t>(r)] = previous;
        }
      }
      if (bucketed) {
        FJORD_RETURN_NOT_OK(benc.Encode(begin, end));
        for (int64_t r = begin; r < end; ++r) {
          int32_t hash = HashBinaryRow(benc.Row(r - begin));
          bucket[static_cast<size_t>(r)] = dynamic_ ? hash : bucket_of(hash);
        }
      }
    }
  }

  uint64_t num_buckets = bucketed ? static_cast<uint64_t>(total_buckets_) : 1;
  if (dynamic_) {
    // `group` still holds partition indices here.
    FJORD_RETURN_NOT_OK(assigner->AssignBuckets(partitions.stored(), group, &bucket));
    int32_t max_bucket = 0;
    for (int32_t b : bucket) {
      if (b < 0) return Status::Internal("the bucket assigner returned bucket ", b);
      max_bucket = std::max(max_bucket, b);
    }
    num_buckets = static_cast<uint64_t>(max_bucket) + 1;
  }

  // 2. Group (partition, bucket) pairs in first-seen order, then hand out the row indices.
  const auto num_partitions = static_cast<uint64_t>(partitions.stored().size());
  std::vector<std::pair<int32_t, int32_t>> keys;  // group -> (partition index, bucket)
  if (num_partitions == 1 && !bucketed) {
    keys.emplace_back(0, 0);  // `group` is all zeros already
  } else if (num_partitions * num_buckets <= std::max<uint64_t>(4 * num, uint64_t{1} << 16)) {
    std::vector<int32_t> dense(num_partitions * num_buckets, -1);
    for (size_t r = 0; r < num; ++r) {
      int32_t b = bucketed ? bucket[r] : 0;
      int32_t& g = dense[static_cast<uint64_t>(group[r]) * num_buckets + static_cast<uint64_t>(b)];
      if (g < 0) {
        g = static_cast<int32_t>(keys.size());
        keys.emplace_back(group[r], b);
      }
      group[r] = g;
    }
  } else {
    std::unordered_map<uint64_t, int32_t> sparse;
    for (size_t r = 0; r < num; ++r) {
      int32_t b = bucketed ? bucket[r] : 0;
      uint64_t key = (static_cast<uint64_t>(group[r]) << 32) | static_cast<uint32_t>(b);
      auto [it, inserted] = sparse.emplace(key, static_cast<int32_t>(keys.size()));
      if (inserted) keys.emplace_back(group[r], b);
      group[r] = it->second;
    }
  }
  std::vector<std::vector<int64_t>> indices(keys.size());
  if (keys.size() == 1) {
    indices[0].resize(num);
    std::iota(indices[0].begin(), indices[0].end(), int64_t{0});
  } else {
    std::vector<size_t> counts(keys.size(), 0);
    for (int32_t g : group) ++counts[static_cast<size_t>(g)];
    for (size_t g = 0; g < keys.size(); ++g) indices[g].reserve(counts[g]);
    for (size_t r = 0; r < num; ++r) {
      indices[static_cast<size_t>(group[r])].push_back(static_cast<int64_t>(r));
    }
  }
  for (size_t g = 0; g < keys.size(); ++g) {
    groups.emplace(
        PartitionBucket{partitions.stored()[static_cast<size_t>(keys[g].first)], keys[g].second},
        std::move(indices[g]));
  }
  return groups;
}

}  // namespace fjord
