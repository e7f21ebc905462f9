#include "bench_rows.h"

#include <cstdio>

namespace fjord::bench {

std::shared_ptr<arrow::Schema> RowSchema(bool with_partition) {
  arrow::FieldVector f;
  if (with_partition) f.push_back(arrow::field("p", arrow::int32()));
  f.push_back(arrow::field("k", arrow::int32(), /*nullable=*/with_partition));
  for (int j = 0; j < kStrings; ++j)
    f.push_back(arrow::field("s" + std::to_string(j), arrow::utf8()));
  return arrow::schema(f);
}

namespace {

template <typename IndexAt>
std::shared_ptr<arrow::RecordBatch> Build(int64_t count, IndexAt index_at, int64_t keys,
                                          bool with_partition) {
  arrow::Int32Builder ps, ks;
  std::vector<arrow::StringBuilder> ss(kStrings);
  (void)ps.Reserve(count);
  (void)ks.Reserve(count);
  for (auto& b : ss) {
    (void)b.Reserve(count);
    (void)b.ReserveData(count * kStringLen);
  }
  char buf[kStringLen];
  for (int64_t r = 0; r < count; ++r) {
    uint64_t h = SplitMix64(static_cast<uint64_t>(index_at(r)));
    ks.UnsafeAppend(KeyOf(h, keys));
    if (with_partition) ps.UnsafeAppend(PartitionOf(h));
    for (int j = 0; j < kStrings; ++j) {
      uint64_t x = SplitMix64(h + static_cast<uint64_t>(j) + 1);
      for (int c = 0; c < kStringLen; ++c) buf[c] = kAlphabet[(x >> (6 * c)) & 63];
      ss[j].UnsafeAppend(std::string_view(buf, kStringLen));
    }
  }
  arrow::ArrayVector arrays;
  if (with_partition) arrays.push_back(ps.Finish().ValueOrDie());
  arrays.push_back(ks.Finish().ValueOrDie());
  for (auto& b : ss) arrays.push_back(b.Finish().ValueOrDie());
  return arrow::RecordBatch::Make(RowSchema(with_partition), count, arrays);
}

}  // namespace

std::shared_ptr<arrow::RecordBatch> MakeRows(int64_t first, int64_t count, int64_t keys,
                                             bool with_partition) {
  return Build(
      count, [first](int64_t r) { return first + r; }, keys, with_partition);
}

std::shared_ptr<arrow::RecordBatch> MakeRowsAt(const std::vector<int64_t>& indices, int64_t keys,
                                               bool with_partition) {
  return Build(
      static_cast<int64_t>(indices.size()), [&indices](int64_t r) { return indices[r]; }, keys,
      with_partition);
}

arrow::Status Checksum::Add(const arrow::RecordBatch& batch, int32_t key_below) {
  auto k = batch.GetColumnByName("k");
  if (!k) return arrow::Status::Invalid("no column k");
  const auto& keys = static_cast<const arrow::Int32Array&>(*k);
  std::vector<std::shared_ptr<arrow::StringArray>> ss;
  for (int j = 0; j < kStrings; ++j) {
    auto c = batch.GetColumnByName("s" + std::to_string(j));
    if (!c) return arrow::Status::Invalid("no column s", j);
    if (c->type_id() != arrow::Type::STRING) return arrow::Status::Invalid("s", j, " not utf8");
    ss.push_back(std::static_pointer_cast<arrow::StringArray>(c));
  }
  if (light_) {
    for (int64_t r = 0; r < batch.num_rows(); ++r) {
      if (keys.Value(r) >= key_below) continue;
      sum_ += static_cast<uint64_t>(static_cast<int64_t>(keys.Value(r)));
      for (const auto& s : ss) sum_ += static_cast<uint64_t>(s->value_length(r));
      ++rows_;
    }
    return arrow::Status::OK();
  }
  for (int64_t r = 0; r < batch.num_rows(); ++r) {
    if (keys.Value(r) >= key_below) continue;
    uint64_t h = 0xcbf29ce484222325ULL;
    auto mix = [&h](uint8_t b) { h = (h ^ b) * 0x100000001b3ULL; };
    uint32_t key = static_cast<uint32_t>(keys.Value(r));
    for (int b = 0; b < 4; ++b) mix(static_cast<uint8_t>(key >> (8 * b)));
    for (const auto& s : ss) {
      std::string_view v = s->GetView(r);
      for (char c : v) mix(static_cast<uint8_t>(c));
      mix(0xff);
    }
    sum_ += h;
    ++rows_;
  }
  return arrow::Status::OK();
}

arrow::Status Checksum::Add(const arrow::Table& table, int32_t key_below) {
  arrow::TableBatchReader reader(table);
  std::shared_ptr<arrow::RecordBatch> batch;
  while (true) {
    ARROW_RETURN_NOT_OK(reader.ReadNext(&batch));
    if (!batch) return arrow::Status::OK();
    ARROW_RETURN_NOT_OK(Add(*batch, key_below));
  }
}

std::string Checksum::Hex() const {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(sum_));
  return buf;
}

std::vector<int64_t> LastIndexPerKey(int64_t rows, int64_t keys) {
  std::vector<int64_t> last(static_cast<size_t>(keys), -1);
  for (int64_t i = 0; i < rows; ++i) last[KeyOf(SplitMix64(static_cast<uint64_t>(i)), keys)] = i;
  return last;
}

}  // namespace fjord::bench
