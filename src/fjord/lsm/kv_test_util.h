// Test helpers for the key-value layer: a small primary-key schema (k INT key, v BIGINT) and
// conversions between records and KvLayout batches.
#pragma once

#include <arrow/api.h>

#include <map>
#include <memory>
#include <string>
#include <tuple>
#include <vector>

#include "fjord/lsm/key_value.h"
#include "fjord/lsm/kv_file_writer.h"
#include "fjord/lsm/kv_merge.h"
#include "fjord/lsm/levels.h"

namespace fjord::testing_kv {

// Sorted runs of one file each, from (level, size) pairs; files named f0, f1, ...
inline std::vector<LevelSortedRun> Runs(const std::vector<std::pair<int32_t, int64_t>>& spec) {
  std::vector<LevelSortedRun> runs;
  int n = 0;
  for (const auto& [level, size] : spec) {
    DataFileMeta f;
    f.file_name = "f" + std::to_string(n++);
    f.level = level;
    f.file_size = size;
    runs.push_back(LevelSortedRun{level, {f}});
  }
  return runs;
}

struct Record {
  int32_t key = 0;
  int64_t seq = 0;
  int8_t kind = 0;
  int64_t value = 0;
  bool operator==(const Record& o) const {
    return std::tie(key, seq, kind, value) == std::tie(o.key, o.seq, o.kind, o.value);
  }
};

inline void PrintTo(const Record& r, std::ostream* os) {
  *os << "{k=" << r.key << " seq=" << r.seq << " kind=" << int{r.kind} << " v=" << r.value << "}";
}

inline TableSchema Schema(const std::map<std::string, std::string>& options) {
  TableSchema s;
  s.version = 3;
  s.fields = {DataField{0, "k", DataType::Int(false), {}, {}},
              DataField{1, "v", DataType::BigInt(), {}, {}}};
  s.highest_field_id = 1;
  s.primary_keys = {"k"};
  for (const auto& [k, v] : options) s.options.emplace_back(k, v);
  return s;
}

inline std::shared_ptr<arrow::RecordBatch> ToBatch(const KvLayout& layout,
                                                   const std::vector<Record>& records) {
  arrow::Int32Builder k;
  arrow::Int64Builder v, seq;
  arrow::Int8Builder kind;
  for (const Record& r : records) {
    (void)k.Append(r.key);
    (void)v.Append(r.value);
    (void)seq.Append(r.seq);
    (void)kind.Append(r.kind);
  }
  return arrow::RecordBatch::Make(layout.schema, static_cast<int64_t>(records.size()),
                                  {k.Finish().ValueOrDie(), v.Finish().ValueOrDie(),
                                   seq.Finish().ValueOrDie(), kind.Finish().ValueOrDie()});
}

inline std::vector<Record> FromBatch(const arrow::RecordBatch& b) {
  std::vector<Record> out;
  auto k = std::static_pointer_cast<arrow::Int32Array>(b.column(0));
  auto v = std::static_pointer_cast<arrow::Int64Array>(b.column(1));
  auto seq = std::static_pointer_cast<arrow::Int64Array>(b.column(2));
  auto kind = std::static_pointer_cast<arrow::Int8Array>(b.column(3));
  for (int64_t r = 0; r < b.num_rows(); ++r) {
    out.push_back(Record{k->Value(r), seq->Value(r), kind->Value(r), v->Value(r)});
  }
  return out;
}

inline Result<std::vector<Record>> ReadAll(KvMergeReader* reader) {
  std::vector<Record> out;
  while (true) {
    FJORD_ASSIGN_OR_RAISE(auto batch, reader->Next());
    if (!batch) return out;
    auto part = FromBatch(*batch);
    out.insert(out.end(), part.begin(), part.end());
  }
}

// `records` written as data files of `level` in `bucket_dir` (one file unless they roll).
inline Result<std::vector<DataFileMeta>> WriteFiles(std::shared_ptr<FileIO> io,
                                                    const TableSchema& schema,
                                                    const std::string& bucket_dir, int32_t level,
                                                    DataFileNamer* namer,
                                                    const std::vector<Record>& records) {
  FJORD_ASSIGN_OR_RAISE(KvLayout layout, KvLayout::Make(schema));
  FJORD_ASSIGN_OR_RAISE(auto writer,
                        KvFileWriter::Make(std::move(io), schema, bucket_dir, level, namer));
  FJORD_RETURN_NOT_OK(writer->Write(ToBatch(layout, records)));
  return writer->Finish();
}

}  // namespace fjord::testing_kv
