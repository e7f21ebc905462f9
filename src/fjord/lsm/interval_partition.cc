#include "fjord/lsm/interval_partition.h"

#include <arrow/api.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <queue>

#include "fjord/common/arrow_status.h"
#include "fjord/format/arrow_types.h"
#include "fjord/format/arrow_values.h"
#include "fjord/format/binary_row.h"

namespace fjord {

namespace {

int Compare(const std::string& a, const std::string& b) {
  size_t n = std::min(a.size(), b.size());
  int c = n == 0 ? 0 : std::memcmp(a.data(), b.data(), n);
  if (c != 0) return c;
  return a.size() < b.size() ? -1 : (a.size() > b.size() ? 1 : 0);
}

// Lays the files of one section into sorted runs: files by min key; each file joins the run that
// ends earliest if it starts after that end, else opens a new run.
Section RunsOf(const std::vector<KeyRange>& ranges, std::vector<size_t> files) {
  std::stable_sort(files.begin(), files.end(), [&](size_t a, size_t b) {
    int c = Compare(ranges[a].min, ranges[b].min);
    return c != 0 ? c < 0 : Compare(ranges[a].max, ranges[b].max) < 0;
  });
  Section runs;
  // (run index) ordered by the max key of the run's last file, smallest on top.
  auto later_end = [&](size_t a, size_t b) {
    return Compare(ranges[runs[a].back()].max, ranges[runs[b].back()].max) > 0;
  };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later_end)> ends(later_end);
  for (size_t f : files) {
    if (!ends.empty() && Compare(ranges[runs[ends.top()].back()].max, ranges[f].min) < 0) {
      size_t r = ends.top();
      ends.pop();
      runs[r].push_back(f);
      ends.push(r);
    } else {
      runs.push_back({f});
      ends.push(runs.size() - 1);
    }
  }
  return runs;
}

}  // namespace

std::vector<Section> PartitionIntervals(const std::vector<KeyRange>& ranges) {
  std::vector<size_t> order(ranges.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int c = Compare(ranges[a].min, ranges[b].min);
    return c != 0 ? c < 0 : Compare(ranges[a].max, ranges[b].max) < 0;
  });
  std::vector<Section> sections;
  std::vector<size_t> current;
  const std::string* bound = nullptr;
  for (size_t f : order) {
    if (!current.empty() && Compare(ranges[f].min, *bound) > 0) {
      sections.push_back(RunsOf(ranges, std::move(current)));
      current.clear();
      bound = nullptr;
    }
    current.push_back(f);
    if (!bound || Compare(ranges[f].max, *bound) > 0) bound = &ranges[f].max;
  }
  if (!current.empty()) sections.push_back(RunsOf(ranges, std::move(current)));
  return sections;
}

Result<std::vector<KeyRange>> FileKeyRanges(const std::vector<DataFileMeta>& files,
                                            const std::vector<DataTypePtr>& key_types,
                                            bool declared_nullability) {
  std::vector<std::unique_ptr<arrow::ArrayBuilder>> builders;
  arrow::FieldVector fields;
  std::vector<SortColumn> columns;
  for (size_t i = 0; i < key_types.size(); ++i) {
    FJORD_ASSIGN_OR_RAISE(auto type, ToArrowType(*key_types[i]));
    std::unique_ptr<arrow::ArrayBuilder> b;
    FJORD_ARROW_RETURN_NOT_OK(arrow::MakeBuilder(arrow::default_memory_pool(), type, &b));
    builders.push_back(std::move(b));
    fields.push_back(arrow::field("k" + std::to_string(i), type));
    columns.push_back({static_cast<int>(i),
                       declared_nullability ? key_types[i] : key_types[i]->WithNullable(true),
                       false});
  }
  // Rows 2i and 2i+1 are file i's min and max key.
  for (const DataFileMeta& f : files) {
    for (const std::string* row : {&f.min_key, &f.max_key}) {
      Result<std::vector<Value>> values = DecodeStoredBinaryRow(*row, key_types);
      if (!values.ok()) return values.status().WithContext("key range of ", f.file_name);
      if (values->size() != key_types.size()) {
        return Status::Corruption(f.file_name, ": key row has ", values->size(),
                                  " fields, the primary key ", key_types.size());
      }
      for (size_t i = 0; i < key_types.size(); ++i) {
        FJORD_RETURN_NOT_OK(AppendValueToBuilder(builders[i].get(), (*values)[i], *key_types[i]));
      }
    }
  }
  arrow::ArrayVector arrays;
  for (auto& b : builders) {
    FJORD_ARROW_ASSIGN_OR_RAISE(auto a, b->Finish());
    arrays.push_back(a);
  }
  auto batch = arrow::RecordBatch::Make(arrow::schema(fields),
                                        static_cast<int64_t>(files.size() * 2), arrays);
  FJORD_ASSIGN_OR_RAISE(SortKeyEncoder encoder, SortKeyEncoder::Make(columns));
  FJORD_ASSIGN_OR_RAISE(EncodedRows encoded, encoder.Encode(*batch));
  std::vector<KeyRange> out;
  for (size_t i = 0; i < files.size(); ++i) {
    out.push_back(KeyRange{std::string(encoded[static_cast<int64_t>(2 * i)]),
                           std::string(encoded[static_cast<int64_t>(2 * i + 1)])});
  }
  return out;
}

}  // namespace fjord
